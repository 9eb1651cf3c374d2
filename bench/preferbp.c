/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * bench/preferbp.c: an LD_PRELOAD library that makes an unmodified epoll
 * application "prefer busy polling", the way an application written for the
 * kernel's IRQ suspension (irq-suspend-timeout, 6.13+) would:
 *
 *   - every epoll instance it creates gets EPIOCSPARAMS: busy_poll_usecs,
 *     busy_poll_budget and prefer_busy_poll = 1;
 *   - every TCP socket it creates or accepts gets SO_PREFER_BUSY_POLL = 1.
 *
 * The values come from the environment: PREFERBP_USECS (default 64),
 * PREFERBP_BUDGET (default 64). Failures are counted, never fatal: the
 * application must behave as without the library when the kernel refuses,
 * and PREFERBP_REPORT=FILE gets a line "pid epoll_ok epoll_failed sock_ok
 * sock_failed" per call (one of the four is 1), appended as it happens, so
 * the harness can tell whether it took even when the server is killed
 * before its exit handlers run (a destructor lost it once under load).
 *
 * Built by bench/run into its work directory; used by the napi-suspend
 * configuration only.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/types.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#ifndef SO_PREFER_BUSY_POLL
#define SO_PREFER_BUSY_POLL 69
#endif

/* include/uapi/linux/eventpoll.h (6.9+); glibc 2.36 does not have it. */
struct preferbp_epoll_params {
        __u32 busy_poll_usecs;
        __u16 busy_poll_budget;
        __u8 prefer_busy_poll;
        __u8 __pad;
};
#ifndef EPIOCSPARAMS
#define EPIOCSPARAMS _IOW(0x8A, 0x01, struct preferbp_epoll_params)
#endif

/* Appends "pid a b c d" to $PREFERBP_REPORT: one O_APPEND write, so lines from several processes do not mix. */
static void report(int epoll_ok, int epoll_failed, int sock_ok, int sock_failed) {
        const char *path = getenv("PREFERBP_REPORT");
        char line[64];
        int fd, len, saved = errno;

        if (!path || !*path)
                return;
        len = snprintf(line, sizeof(line), "%ld %d %d %d %d\n", (long)getpid(), epoll_ok, epoll_failed, sock_ok,
                       sock_failed);
        fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
        if (fd >= 0) {
                if (write(fd, line, (size_t)len) < 0) {
                        /* nothing to do: the harness then reports the preload as not taken */
                }
                close(fd);
        }
        errno = saved; /* the application sees its own call's errno */
}

static unsigned long env_number(const char *name, unsigned long def, unsigned long max) {
        const char *s = getenv(name);
        char *end;
        unsigned long v;

        if (!s || !*s)
                return def;
        errno = 0;
        v = strtoul(s, &end, 10);
        if (errno || *end || v > max)
                return def;
        return v;
}

static void tune_epoll(int fd) {
        struct preferbp_epoll_params p = {
                .busy_poll_usecs = (__u32)env_number("PREFERBP_USECS", 64, UINT32_MAX),
                .busy_poll_budget = (__u16)env_number("PREFERBP_BUDGET", 64, UINT16_MAX),
                .prefer_busy_poll = 1,
        };

        if (fd < 0)
                return;
        if (ioctl(fd, EPIOCSPARAMS, &p) == 0)
                report(1, 0, 0, 0);
        else
                report(0, 1, 0, 0);
}

static void tune_socket(int fd) {
        int one = 1, type = 0;
        socklen_t len = sizeof(type);

        if (fd < 0 || getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) < 0 || type != SOCK_STREAM)
                return;
        if (setsockopt(fd, SOL_SOCKET, SO_PREFER_BUSY_POLL, &one, sizeof(one)) == 0)
                report(0, 0, 1, 0);
        else
                report(0, 0, 0, 1);
}

typedef int (*int_fn)(int);
typedef int (*socket_fn)(int, int, int);
typedef int (*accept_fn)(int, struct sockaddr *, socklen_t *);
typedef int (*accept4_fn)(int, struct sockaddr *, socklen_t *, int);

/* The next definition of NAME (libc's), looked up once. */
static void *next(void **cache, const char *name) {
        if (!*cache)
                *cache = dlsym(RTLD_NEXT, name);
        return *cache;
}

static void *p_epoll_create, *p_epoll_create1, *p_socket, *p_accept, *p_accept4;

int epoll_create(int size) {
        int fd = ((int_fn)next(&p_epoll_create, "epoll_create"))(size);
        tune_epoll(fd);
        return fd;
}

int epoll_create1(int flags) {
        int fd = ((int_fn)next(&p_epoll_create1, "epoll_create1"))(flags);
        tune_epoll(fd);
        return fd;
}

int socket(int domain, int type, int protocol) {
        int fd = ((socket_fn)next(&p_socket, "socket"))(domain, type, protocol);
        if (domain == AF_INET || domain == AF_INET6)
                tune_socket(fd);
        return fd;
}

int accept(int fd, struct sockaddr *addr, socklen_t *len) {
        int c = ((accept_fn)next(&p_accept, "accept"))(fd, addr, len);
        tune_socket(c);
        return c;
}

int accept4(int fd, struct sockaddr *addr, socklen_t *len, int flags) {
        int c = ((accept4_fn)next(&p_accept4, "accept4"))(fd, addr, len, flags);
        tune_socket(c);
        return c;
}
