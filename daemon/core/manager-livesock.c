/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * manager-livesock.c: taking a busy-read move to the sockets that exist
 * ([adaptive] live-sockets). The rules are livesock.c's, the socket I/O
 * sockscan.c's; this file runs one pass over the host's processes and logs
 * what it did. Only the controller's moves (yield and return) and the undo at
 * stop or when the feature is switched off run a pass: a person's `set` or a
 * profile's value is a new default for new sockets, as the sysctl is.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <time.h>

#include "caps.h"
#include "log.h"
#include "manager-internal.h"
#include "sockscan.h"

/* Process sockets are found through the real /proc: pidfd_open() takes real pids, whatever the sysroot. */
#define LIVESOCK_PROC "/proc"

typedef struct PassContext {
        Manager *m;
        LiveSockPass *pass;
        unsigned changed, failed;
        int first_error;
} PassContext;

static void note_failure(PassContext *c, int r) {
        /* Gone meanwhile (process exited, fd closed): not a failure. */
        if (r == -ESRCH || r == -EBADF || r == -ENOENT)
                return;
        if (c->failed++ == 0)
                c->first_error = r;
}

static int on_socket(int pidfd, int pid, int fd, uint64_t inode, void *userdata) {
        PassContext *c = userdata;
        uint64_t cur, to;
        int r;

        r = sockscan_busy_poll(pidfd, fd, &cur, NULL);
        if (r < 0) {
                note_failure(c, r);
                return 0;
        }
        r = livesock_pass_socket(&c->m->live, c->pass, inode, cur, &to);
        if (r <= 0)
                return r;
        r = sockscan_busy_poll(pidfd, fd, NULL, &to);
        if (r < 0) {
                note_failure(c, r);
                return 0;
        }
        c->changed++;
        log_debug("pid %d fd %d socket:[%" PRIu64 "]: SO_BUSY_POLL %" PRIu64 " -> %" PRIu64, pid, fd, inode, cur,
                  to);
        return livesock_pass_moved(c->pass, inode);
}

static const char *pass_name(LiveSockPassKind k) {
        return k == LIVESOCK_YIELD ? "yield" : k == LIVESOCK_RETURN ? "return" : "undo";
}

static uint64_t now_us(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

bool manager_live_sockets(const Manager *m) {
        /* Only the controller's moves are propagated: without adaptation, an outstanding yield is undone. */
        return m->profile && m->profile->adaptive.enabled && m->profile->adaptive.live_sockets;
}

int manager_livesock_pass(Manager *m, LiveSockPassKind kind, uint64_t old, uint64_t new) {
        _cleanup_(freep) uint64_t *inodes = NULL;
        LiveSockPass pass;
        PassContext c = { .m = m, .pass = &pass };
        size_t n = 0;
        uint64_t start = now_us();
        unsigned refused = 0;
        int r, visited;

        if (manager_dry_run(m) || (kind != LIVESOCK_UNDO && !manager_live_sockets(m)))
                return 0;
        if (livesock_pass_begin(&m->live, kind, old, new, &pass) == 0) {
                if (kind == LIVESOCK_UNDO)
                        livesock_clear(&m->live);
                return 0;
        }
        r = sockscan_inet_inodes(LIVESOCK_PROC, &inodes, &n);
        visited = r < 0 ? r : sockscan_walk(LIVESOCK_PROC, inodes, n, on_socket, &c, &refused);
        if (visited < 0) {
                livesock_pass_abort(&pass);
                if (kind == LIVESOCK_UNDO)
                        livesock_clear(&m->live);
                return log_warning_errno(visited, "live sockets (%s): cannot walk the processes' sockets: %m, ignoring",
                                         pass_name(kind));
        }
        log_info("live sockets (%s): %u of %d TCP/UDP sockets went from SO_BUSY_POLL %" PRIu64 " to %" PRIu64
                 " (%" PRIu64 " us; %u processes' descriptors out of reach)",
                 pass_name(kind), c.changed, visited, pass.from, pass.to, now_us() - start, refused);
        if (c.failed > 0)
                log_warning("live sockets (%s): %u sockets could not be read or changed: %s%s", pass_name(kind),
                            c.failed, strerror(-c.first_error),
                            c.first_error == -EPERM ? " (pidfd_getfd needs CAP_SYS_PTRACE for other users' "
                                                      "and other services' processes, and under systemd the "
                                                      "drop-in live-sockets.conf)" : "");
        livesock_pass_end(&m->live, &pass);
        return (int)c.changed;
}

void manager_adapt_live_sockets(Manager *m, uint64_t old, uint64_t new) {
        if (old != new)
                (void)manager_livesock_pass(m, new < old ? LIVESOCK_YIELD : LIVESOCK_RETURN, old, new);
}

void manager_follow_live_sockets(Manager *m) {
        int r;

        if (manager_live_sockets(m)) {
                if (!m->live_ptrace)
                        log_notice("live-sockets is on, but netpolld does not hold CAP_SYS_PTRACE (given up at "
                                   "start for a profile without live-sockets, or not granted: under systemd, "
                                   "the drop-in live-sockets.conf): only processes it may trace without it "
                                   "are reached");
                return;
        }
        /* Off (or no adaptation): sockets of an outstanding yield go back, and the capability goes for good. */
        (void)manager_livesock_pass(m, LIVESOCK_UNDO, 0, 0);
        if (m->live_ptrace) {
                r = caps_drop_ptrace();
                if (r < 0)
                        log_warning_errno(r, "cannot give up CAP_SYS_PTRACE: %m, ignoring");
                m->live_ptrace = false;
        }
}
