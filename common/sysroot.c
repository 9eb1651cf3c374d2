/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * sysroot.c: path resolution below the sysroot and the one place that reads
 * and writes single-value kernel files.
 */
#include "sysroot.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "macro.h"
#include "units.h"

static bool has_dotdot(const char *path) {
        for (const char *p = path; (p = strstr(p, "..")); p += 2) {
                bool at_start = p == path || p[-1] == '/';
                bool at_end = p[2] == 0 || p[2] == '/';
                if (at_start && at_end)
                        return true;
        }
        return false;
}

/* NULL, "" or only slashes: paths stay as they are. */
static bool root_is_slash(const char *root) {
        return !root || root[strspn(root, "/")] == '\0';
}

/* statfs() follows symlinks: what counts is the file system the path reaches. */
static bool fs_is(const char *root, const char *path, unsigned long magic) {
        _cleanup_(freep) char *full = NULL;
        struct statfs sfs;

        return sysroot_path(root, path, &full) >= 0 && statfs(full, &sfs) >= 0 && (unsigned long)sfs.f_type == magic;
}

bool sysroot_is_live(const char *root, const char **ret_why_not) {
        _cleanup_(freep) char *self = NULL;
        char target[32], pid[32];
        const char *why = NULL;
        ssize_t n = -1;

        if (!fs_is(root, "/proc", PROC_SUPER_MAGIC))
                why = "its proc is not procfs";
        else {
                if (sysroot_path(root, "/proc/self", &self) >= 0)
                        n = readlink(self, target, sizeof(target) - 1);
                if (n >= 0)
                        target[n] = '\0';
                snprintf(pid, sizeof(pid), "%d", (int)getpid());
                /* Another PID namespace's procfs names netpolld by another pid, or not at all. */
                if (n < 0 || !streq(target, pid))
                        why = "its proc is another PID namespace's";
                else if (!fs_is(root, "/sys", SYSFS_MAGIC))
                        why = "its sys is not sysfs";
        }
        if (why && ret_why_not)
                *ret_why_not = why;
        return !why;
}

int sysroot_path(const char *root, const char *path, char **ret) {
        char *p;

        if (!path || path[0] != '/' || has_dotdot(path))
                return -EINVAL;
        if (root_is_slash(root))
                p = strdup(path);
        else {
                size_t rl = strlen(root);
                while (rl > 1 && root[rl - 1] == '/')
                        rl--;
                if (asprintf(&p, "%.*s%s", (int)rl, root, path) < 0)
                        p = NULL;
        }
        if (!p)
                return -ENOMEM;
        *ret = p;
        return 0;
}

int sysfs_read_value(const char *fullpath, char **ret) {
        _cleanup_(closep) int fd = -EBADF;
        char buf[SYSFS_VALUE_MAX + 1];
        size_t len = 0;
        char *v;

        fd = open(fullpath, O_RDONLY | O_CLOEXEC | O_NOCTTY);
        if (fd < 0)
                return negative_errno();
        /* Kernel attributes answer in one read, but a fixture file may not. */
        while (len < sizeof(buf)) {
                ssize_t n = read(fd, buf + len, sizeof(buf) - len);
                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        return negative_errno();
                }
                if (n == 0)
                        break;
                len += (size_t)n;
        }
        if (len > SYSFS_VALUE_MAX)
                return -EBADMSG;
        if (len > 0 && buf[len - 1] == '\n')
                len--;
        if (len == 0)
                return -ENODATA;
        if (memchr(buf, '\0', len) || memchr(buf, '\n', len))
                return -EBADMSG;
        v = strndup(buf, len);
        if (!v)
                return -ENOMEM;
        *ret = v;
        return 0;
}

int sysfs_write_value(const char *fullpath, const char *value) {
        _cleanup_(closep) int fd = -EBADF;
        _cleanup_(freep) char *line = NULL;
        ssize_t n;
        int len;

        /* With a newline, as echo(1) writes it: what the kernel prints, and what every sysctl parses. */
        len = asprintf(&line, "%s\n", value);
        if (len < 0)
                return -ENOMEM;
        fd = open(fullpath, O_WRONLY | O_CLOEXEC | O_NOCTTY | O_TRUNC);
        if (fd < 0)
                return negative_errno();
        /* One write: procfs sysctls parse what a single write(2) delivers. */
        do
                n = write(fd, line, (size_t)len);
        while (n < 0 && errno == EINTR);
        if (n < 0)
                return negative_errno();
        if (n != len)
                return -EIO;
        if (close(TAKE_FD(fd)) < 0)
                return negative_errno();
        return 0;
}

int sysroot_read_value(const char *root, const char *path, char **ret) {
        _cleanup_(freep) char *full = NULL;
        int r = sysroot_path(root, path, &full);
        return r < 0 ? r : sysfs_read_value(full, ret);
}

int sysroot_write_value(const char *root, const char *path, const char *value) {
        _cleanup_(freep) char *full = NULL;
        int r = sysroot_path(root, path, &full);
        return r < 0 ? r : sysfs_write_value(full, value);
}

bool ifname_valid(const char *name) {
        size_t len;

        if (!name)
                return false;
        len = strlen(name);
        if (len == 0 || len > 15 || streq(name, ".") || streq(name, ".."))
                return false;
        /* unsigned: with a signed char, bytes >= 0x80 (UTF-8 names the kernel accepts) would
         * compare below ' ' on x86 but not on arm64. */
        for (const unsigned char *p = (const unsigned char *)name; *p; p++)
                if (*p == '/' || *p == ':' || *p <= ' ' || *p == 0x7f)
                        return false;
        return true;
}

int proc_find_comm(const char *root, const char *comm) {
        _cleanup_(freep) char *proc = NULL;
        DIR *d;
        int pid = 0;

        if (sysroot_path(root, "/proc", &proc) < 0)
                return 0;
        d = opendir(proc);
        if (!d)
                return 0;
        for (struct dirent *de; !pid && (de = readdir(d));) {
                _cleanup_(freep) char *path = NULL, *text = NULL;
                uint64_t v;

                if (parse_u64_range(de->d_name, 1, INT32_MAX, &v, NULL) < 0)
                        continue;
                if (asprintf(&path, "%s/%s/comm", proc, de->d_name) < 0)
                        break;
                /* Processes come and go while we look: an unreadable one is simply not it. */
                if (sysfs_read_value(path, &text) >= 0 && streq(text, comm))
                        pid = (int)v;
        }
        closedir(d);
        return pid;
}
