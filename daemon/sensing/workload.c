/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * workload.c: the /proc and cgroupfs scan of workload rules (workload.h).
 * One pass over /proc reads each process's stat line once, whatever the number of
 * process= rules; a cgroup= rule is one stat().
 */
#include "workload.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "macro.h"
#include "sysroot.h"

bool rules_have_kind(const Rule *rules, size_t n, RuleKind kind) {
        for (size_t i = 0; i < n; i++)
                if (rules[i].kind == kind)
                        return true;
        return false;
}

/*
 * The comm of a live process from the /proc/PID/stat line "PID (COMM) STATE ..."
 * (one read gives both; COMM may hold ')' itself, so the last one ends it).
 * False for a zombie (its comm outlives it until reaped) or when it is gone.
 */
bool workload_parse_stat(const char *line, char *comm, size_t size) {
        const char *open = strchr(line, '('), *close = strrchr(line, ')');
        size_t n;

        if (!open || !close || close < open || close[1] != ' ')
                return false;
        if (close[2] == 'Z' || close[2] == 'X' || close[2] == 'x' || close[2] == '\0')
                return false;
        n = (size_t)(close - open - 1);
        if (n >= size)
                n = size - 1;
        memcpy(comm, open + 1, n);
        comm[n] = '\0';
        return true;
}

static bool read_comm(int dirfd, const char *pid, char *comm, size_t size) {
        _cleanup_(closep) int fd = -EBADF;
        char path[PATH_MAX], buf[256];
        ssize_t n;

        if ((size_t)snprintf(path, sizeof(path), "%s/stat", pid) >= sizeof(path))
                return false;
        fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return false;
        n = read(fd, buf, sizeof(buf) - 1);
        if (n <= 0)
                return false;
        buf[n] = '\0';
        return workload_parse_stat(buf, comm, size);
}

bool workload_comm(const char *sysroot, int pid, char *comm, size_t size) {
        _cleanup_(freep) char *dir = NULL;
        char rel[32];

        snprintf(rel, sizeof(rel), "/proc/%d", pid);
        return sysroot_path(sysroot, rel, &dir) >= 0 && read_comm(AT_FDCWD, dir, comm, size);
}

static int scan_processes(const char *sysroot, const Rule *rules, size_t n, bool *seen) {
        _cleanup_(freep) char *proc = NULL;
        size_t left = 0;
        struct dirent *de;
        DIR *d;
        int r;

        for (size_t i = 0; i < n; i++)
                if (rules[i].kind == RULE_PROCESS)
                        left++;
        if (left == 0)
                return 0;
        r = sysroot_path(sysroot, "/proc", &proc);
        if (r < 0)
                return r;
        d = opendir(proc);
        if (!d)
                return negative_errno();
        bool *found = calloc(n, sizeof(bool));
        if (!found) {
                closedir(d);
                return -ENOMEM;
        }
        while (left > 0 && (de = readdir(d))) {
                char comm[32];

                if (de->d_name[0] < '1' || de->d_name[0] > '9' ||
                    strspn(de->d_name, "0123456789") != strlen(de->d_name))
                        continue;
                if (!read_comm(dirfd(d), de->d_name, comm, sizeof(comm)))
                        continue; /* it ended while we looked */
                for (size_t i = 0; i < n; i++)
                        if (rules[i].kind == RULE_PROCESS && !found[i] && streq(rules[i].match, comm)) {
                                found[i] = true;
                                left--;
                        }
        }
        closedir(d);
        for (size_t i = 0; i < n; i++)
                if (rules[i].kind == RULE_PROCESS)
                        seen[i] = found[i];
        free(found);
        return 0;
}

int workload_scan(const char *sysroot, const Rule *rules, size_t n, bool *seen) {
        for (size_t i = 0; i < n; i++) {
                _cleanup_(freep) char *rel = NULL, *path = NULL;
                struct stat st;

                if (rules[i].kind != RULE_CGROUP)
                        continue;
                if (asprintf(&rel, "/sys/fs/cgroup/%s", rules[i].match) < 0) {
                        rel = NULL;
                        return -ENOMEM;
                }
                if (sysroot_path(sysroot, rel, &path) < 0)
                        return -ENOMEM;
                seen[i] = stat(path, &st) >= 0 && S_ISDIR(st.st_mode);
        }
        return scan_processes(sysroot, rules, n, seen);
}
