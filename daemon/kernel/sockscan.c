/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * sockscan.c: see sockscan.h. Logs nothing; callers say what errors mean.
 */
#include "sockscan.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "macro.h"
#include "u64-array.h"

int sockscan_parse_net(const char *text, uint64_t **v, size_t *n, size_t *cap) {
        const char *line = strchr(text, '\n'); /* the first line is the header */

        while (line && *++line) {
                const char *end = strchrnul(line, '\n'), *p = line;
                char *num_end;
                uint64_t inode;

                /* "sl local rem st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode ...": field 10. */
                for (int field = 0; field < 9; field++) {
                        p += strspn(p, " ");
                        p += strcspn(p, " \n");
                        if (p >= end)
                                return -EINVAL;
                }
                p += strspn(p, " ");
                errno = 0;
                inode = strtoull(p, &num_end, 10);
                if (num_end == p || errno != 0 || (*num_end != ' ' && *num_end != '\n' && *num_end != 0))
                        return -EINVAL;
                if (inode != 0 && u64_push(v, n, cap, inode) < 0) /* 0: TIME_WAIT and friends, no socket */
                        return -ENOMEM;
                line = *end ? end : NULL;
        }
        return 0;
}

/* A whole /proc text file (their size is not known before reading). */
static int read_text(const char *path, char **ret) {
        _cleanup_(closep) int fd = open(path, O_RDONLY | O_CLOEXEC);
        _cleanup_(freep) char *buf = NULL;
        size_t len = 0, cap = 0;

        if (fd < 0)
                return -errno;
        for (;;) {
                ssize_t k;
                if (cap - len < 4096) {
                        char *nb = realloc(buf, cap + 65536);
                        if (!nb)
                                return -ENOMEM;
                        buf = nb;
                        cap += 65536;
                }
                k = read(fd, buf + len, cap - len - 1);
                if (k < 0 && errno == EINTR)
                        continue;
                if (k < 0)
                        return -errno;
                if (k == 0)
                        break;
                len += (size_t)k;
        }
        buf[len] = 0;
        *ret = TAKE_PTR(buf);
        return 0;
}

int sockscan_net_dir(const char *dir, uint64_t **v, size_t *n, size_t *cap) {
        static const char *const files[] = { "tcp", "tcp6", "udp", "udp6" };
        int r;

        for (size_t i = 0; i < ELEMENTSOF(files); i++) {
                _cleanup_(freep) char *path = NULL, *text = NULL;

                if (asprintf(&path, "%s/%s", dir, files[i]) < 0)
                        return -ENOMEM;
                r = read_text(path, &text);
                if (r == -ENOENT && i > 0)
                        continue; /* no IPv6, say; but no net/tcp means no such directory */
                if (r < 0)
                        return r;
                r = sockscan_parse_net(text, v, n, cap);
                if (r < 0)
                        return r;
        }
        return 0;
}

int sockscan_inet_inodes(const char *proc, uint64_t **ret, size_t *ret_n) {
        _cleanup_(freep) uint64_t *v = NULL, *netns = NULL;
        size_t n = 0, cap = 0, n_netns = 0, cap_netns = 0, out = 0;
        struct dirent *de;
        DIR *d;
        int r = 0;

        d = opendir(proc);
        if (!d)
                return -errno;
        /* busy_read is global: sockets of every network namespace copied it. Each is read once, through a member. */
        while ((de = readdir(d))) {
                char path[PATH_MAX], link[64];
                uint64_t ns = 0;
                bool seen = false;
                ssize_t len;
                char *end;
                long pid = strtol(de->d_name, &end, 10);

                if (*end || pid <= 0)
                        continue;
                snprintf(path, sizeof(path), "%s/%ld/ns/net", proc, pid);
                len = readlink(path, link, sizeof(link) - 1);
                if (len < 0)
                        continue; /* gone, or a kernel thread's */
                link[len] = 0;
                if (!startswith(link, "net:[") || sscanf(link + 5, "%" SCNu64, &ns) != 1)
                        continue;
                for (size_t i = 0; i < n_netns && !seen; i++)
                        seen = netns[i] == ns;
                if (seen)
                        continue;
                snprintf(path, sizeof(path), "%s/%ld/net", proc, pid);
                r = sockscan_net_dir(path, &v, &n, &cap);
                if (r == -ENOENT || r == -ESRCH || r == -EACCES) {
                        r = 0;
                        continue; /* gone meanwhile: another member may still show it */
                }
                if (r < 0)
                        break;
                r = u64_push(&netns, &n_netns, &cap_netns, ns);
                if (r < 0)
                        break;
        }
        closedir(d);
        if (r < 0)
                return r;
        if (n > 0) {
                qsort(v, n, sizeof(*v), u64_cmp);
                for (size_t i = 0; i < n; i++)
                        if (out == 0 || v[out - 1] != v[i])
                                v[out++] = v[i];
        }
        *ret = TAKE_PTR(v);
        *ret_n = out;
        return 0;
}

int sockscan_parse_link(const char *link, uint64_t *ret_inode) {
        const char *p = startswith(link, "socket:[");
        char *end;
        uint64_t v;

        if (!p || *p < '0' || *p > '9')
                return -EINVAL;
        errno = 0;
        v = strtoull(p, &end, 10);
        if (errno != 0 || !streq(end, "]"))
                return -EINVAL;
        *ret_inode = v;
        return 0;
}

static int walk_process(const char *proc, int pid, const uint64_t *inodes, size_t n, bool *visited,
                        sockscan_fn fn, void *userdata) {
        _cleanup_(closep) int pidfd = -EBADF;
        char path[PATH_MAX];
        DIR *d;
        struct dirent *de;
        int r = 0, count = 0;

        snprintf(path, sizeof(path), "%s/%d/fd", proc, pid);
        d = opendir(path);
        if (!d)
                /* Gone: nothing of it to visit. Not ours to read: the caller counts it. */
                return errno == EACCES || errno == EPERM ? -EACCES : 0;
        while ((de = readdir(d))) {
                char link[64];
                uint64_t inode;
                const uint64_t *hit;
                ssize_t len;
                char *end;
                long fd;

                if (de->d_name[0] == '.')
                        continue;
                len = readlinkat(dirfd(d), de->d_name, link, sizeof(link) - 1);
                if (len < 0 && (errno == EACCES || errno == EPERM)) {
                        /* The directory lists, but its links need ptrace access: the whole process is out of reach. */
                        r = -EACCES;
                        break;
                }
                if (len < 0)
                        continue;
                link[len] = 0;
                if (sockscan_parse_link(link, &inode) < 0)
                        continue;
                hit = bsearch(&inode, inodes, n, sizeof(*inodes), u64_cmp);
                if (!hit || visited[hit - inodes])
                        continue;
                fd = strtol(de->d_name, &end, 10);
                if (*end || fd < 0 || fd > INT_MAX)
                        continue;
                if (pidfd < 0) {
                        pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
                        if (pidfd < 0) {
                                r = errno == ESRCH ? 0 : -errno;
                                break;
                        }
                }
                visited[hit - inodes] = true;
                r = fn(pidfd, pid, (int)fd, inode, userdata);
                if (r < 0)
                        break;
                count++;
        }
        closedir(d);
        return r < 0 ? r : count;
}

int sockscan_walk(const char *proc, const uint64_t *inodes, size_t n, sockscan_fn fn, void *userdata,
                  unsigned *ret_refused) {
        _cleanup_(freep) bool *visited = NULL;
        struct dirent *de;
        DIR *d;
        int r = 0, total = 0;
        unsigned refused = 0;
        pid_t self = getpid();

        *ret_refused = 0;
        if (n == 0)
                return 0;
        visited = calloc(n, sizeof(bool));
        if (!visited)
                return -ENOMEM;
        d = opendir(proc);
        if (!d)
                return -errno;
        while ((de = readdir(d))) {
                char *end;
                long pid = strtol(de->d_name, &end, 10);

                if (*end || pid <= 0 || pid > INT_MAX || pid == self)
                        continue;
                r = walk_process(proc, (int)pid, inodes, n, visited, fn, userdata);
                if (r == -EACCES) {
                        refused++;
                        r = 0;
                        continue;
                }
                if (r < 0)
                        break;
                total += r;
        }
        closedir(d);
        *ret_refused = refused;
        return r < 0 ? r : total;
}

int sockscan_busy_poll(int pidfd, int fd, uint64_t *ret_value, const uint64_t *set) {
        _cleanup_(closep) int dup = (int)syscall(SYS_pidfd_getfd, pidfd, fd, 0);
        int v;
        socklen_t len = sizeof(v);

        if (dup < 0)
                return -errno;
        if (set) {
                if (*set > INT_MAX)
                        return -ERANGE;
                v = (int)*set;
                if (setsockopt(dup, SOL_SOCKET, SO_BUSY_POLL, &v, sizeof(v)) < 0)
                        return -errno;
        }
        if (getsockopt(dup, SOL_SOCKET, SO_BUSY_POLL, &v, &len) < 0)
                return -errno;
        if (ret_value)
                *ret_value = (uint64_t)(unsigned)v;
        return 0;
}
