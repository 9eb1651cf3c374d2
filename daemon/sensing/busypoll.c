/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * busypoll.c: one entry per network namespace (netstat inode, a PID in it,
 * the counter's last value). A read re-opens each entry's netstat through its
 * PID; an entry whose PID is gone or now shows another namespace sends the
 * read through a fresh listing, which keeps entries it finds again.
 */
#include "busypoll.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "macro.h"
#include "monitor-parse.h"
#include "procdir.h"

#define DENTS_SIZE 4096
#define NETSTAT_MAX 16384

typedef struct Netns {
        uint64_t ino;
        int pid;
        uint64_t packets;
        bool seen; /* found by the listing in progress */
} Netns;

struct BusyPollCounter {
        ProcDir proc;
        Netns ns[BUSY_POLL_NETNS_MAX];
        unsigned n_ns;
        char *dents, *text;
};

BusyPollCounter *busy_poll_counter_free(BusyPollCounter *b) {
        if (!b)
                return NULL;
        proc_dir_close(&b->proc);
        free(b->dents);
        free(b->text);
        free(b);
        return NULL;
}

/* The namespace's counter through pid: -ESTALE when pid is gone or is in another namespace now. */
static int read_packets(BusyPollCounter *b, int pid, uint64_t ino, uint64_t *ret) {
        char path[48];
        struct stat st;
        ssize_t n;
        int fd, r;

        snprintf(path, sizeof(path), "%d/net/netstat", pid);
        fd = openat(b->proc.fd, path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
        if (fd < 0)
                return -ESTALE;
        if (fstat(fd, &st) < 0 || (uint64_t)st.st_ino != ino) {
                close(fd);
                return -ESTALE;
        }
        n = read(fd, b->text, NETSTAT_MAX - 1);
        close(fd);
        if (n < 0)
                return -ESTALE;
        b->text[n] = 0;
        r = netstat_field_parse(b->text, "TcpExt", "BusyPollRxPackets", ret);
        return r < 0 ? r : 0;
}

static Netns *find_ns(BusyPollCounter *b, uint64_t ino) {
        for (unsigned i = 0; i < b->n_ns; i++)
                if (b->ns[i].ino == ino)
                        return &b->ns[i];
        return NULL;
}

/* Finds the namespaces of all processes; known ones keep their last value, new ones read a baseline. */
static int list_netns(BusyPollCounter *b) {
        long n;

        for (unsigned i = 0; i < b->n_ns; i++)
                b->ns[i].seen = false;
        if (lseek(b->proc.fd, 0, SEEK_SET) < 0)
                return negative_errno();
        while ((n = syscall(SYS_getdents64, b->proc.fd, b->dents, DENTS_SIZE)) > 0)
                for (long off = 0; off < n;) {
                        const struct dirent64 *d = (const struct dirent64 *)(b->dents + off);
                        char path[48];
                        struct stat st;
                        Netns *ns;
                        int pid;

                        off += d->d_reclen;
                        if (d->d_name[0] < '1' || d->d_name[0] > '9')
                                continue;
                        pid = atoi(d->d_name);
                        snprintf(path, sizeof(path), "%d/net/netstat", pid);
                        if (fstatat(b->proc.fd, path, &st, 0) < 0)
                                continue;
                        ns = find_ns(b, (uint64_t)st.st_ino);
                        if (ns) {
                                if (!ns->seen)
                                        ns->pid = pid;
                                ns->seen = true;
                                continue;
                        }
                        if (b->n_ns >= BUSY_POLL_NETNS_MAX)
                                continue;
                        ns = &b->ns[b->n_ns];
                        *ns = (Netns){ .ino = (uint64_t)st.st_ino, .pid = pid, .seen = true };
                        if (read_packets(b, pid, ns->ino, &ns->packets) >= 0)
                                b->n_ns++;
                }
        if (n < 0)
                return negative_errno();
        /* Namespaces no process is in any more are forgotten. */
        for (unsigned i = 0; i < b->n_ns;)
                if (!b->ns[i].seen)
                        b->ns[i] = b->ns[--b->n_ns];
                else
                        i++;
        return 0;
}

int busy_poll_counter_new(BusyPollCounter **ret, const char *sysroot) {
        _cleanup_(busy_poll_counter_freep) BusyPollCounter *b = NULL;
        int r;

        if (!ret)
                return -EINVAL;
        b = calloc(1, sizeof(*b));
        if (!b)
                return -ENOMEM;
        b->proc = PROC_DIR_NULL;
        b->dents = malloc(DENTS_SIZE);
        b->text = malloc(NETSTAT_MAX);
        if (!b->dents || !b->text)
                return -ENOMEM;
        r = proc_dir_open(&b->proc, sysroot);
        if (r < 0)
                return r;
        r = list_netns(b);
        if (r < 0)
                return r;
        if (b->n_ns == 0)
                return -ENOENT;
        *ret = TAKE_PTR(b);
        return 0;
}

int busy_poll_counter_read(BusyPollCounter *b, uint64_t *ret_delta) {
        uint64_t total = 0;
        bool relist = proc_dir_tasks_created(&b->proc);
        int r;

        for (unsigned i = 0; i < b->n_ns; i++) {
                uint64_t v;

                if (read_packets(b, b->ns[i].pid, b->ns[i].ino, &v) < 0) {
                        relist = true; /* its PID is gone: find another process in it, or forget it */
                        continue;
                }
                if (v > b->ns[i].packets)
                        total += v - b->ns[i].packets;
                b->ns[i].packets = v;
        }
        if (relist) {
                r = list_netns(b);
                if (r < 0)
                        return r;
        }
        *ret_delta = total;
        return 0;
}

unsigned busy_poll_counter_netns(const BusyPollCounter *b) {
        return b->n_ns;
}
