/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * adapt-crowd.c: following the crowd busy polling yielded to (adapt-crowd.h).
 *
 * A neighbour that exits ends the yield's reason at once, so each crowd
 * process is watched by a pidfd (readable once it exited), and when one
 * exited the adapter samples at once rather than at its next interval (the
 * last one's end ends the yield; an earlier one's may begin a probe).
 * A live sysroot only (sysroot_is_live(): a fixture's PIDs are no process's), at
 * most ADAPT_CROWD_PROCS_MAX processes: a larger crowd, or a pidfd that
 * cannot be had but for a process already gone, leaves the return to the
 * interval samples until the crowd clears.
 */
#include "adapt-crowd.h"

#include <errno.h>
#include <stdio.h>
#include <sys/epoll.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "control.h"
#include "log.h"
#include "macro.h"
#include "workload.h"

void adapt_crowd_init(AdaptCrowd *c, Monitor *monitor, sd_event *event, const char *sysroot, bool live,
                      void (*exited)(void *userdata), void *userdata) {
        *c = (AdaptCrowd){
                .monitor = monitor,
                .event = event,
                .sysroot = sysroot,
                .live = live,
                .exited = exited,
                .userdata = userdata,
        };
}

static void unwatch(AdaptCrowd *c) {
        for (size_t i = 0; i < c->n_exit; i++)
                c->exit[i] = sd_event_source_disable_unref(c->exit[i]);
        c->n_exit = 0;
}

void adapt_crowd_done(AdaptCrowd *c) {
        unwatch(c);
}

void adapt_crowd_clear(AdaptCrowd *c) {
        if (c->monitor)
                monitor_clear_crowd(c->monitor);
        unwatch(c);
        c->following = c->found = false;
        c->exit_off = false;
        c->n_named = 0;
}

static int on_process_exit(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        AdaptCrowd *c = userdata;

        for (size_t i = 0; i < c->n_exit; i++)
                if (c->exit[i] == s) {
                        sd_event_source_disable_unref(s);
                        c->n_exit--;
                        c->exit[i] = c->exit[c->n_exit];
                        c->exit_pid[i] = c->exit_pid[c->n_exit];
                        break;
                }
        if (!c->exit_off)
                c->exited(c->userdata);
        return 0;
}

static bool watched(const AdaptCrowd *c, int pid) {
        for (size_t i = 0; i < c->n_exit; i++)
                if (c->exit_pid[i] == pid)
                        return true;
        return false;
}

/* Watches the crowd's processes (pids: the first of n, monitor_crowd_pids()) for their exit. */
static void watch(AdaptCrowd *c, const int *pids, int n) {
        int fd, r;

        if (c->exit_off || !c->live)
                return;
        if ((size_t)n > ADAPT_CROWD_PROCS_MAX) {
                log_debug("busy polling yields to more than %d processes: their exits are not watched",
                          ADAPT_CROWD_PROCS_MAX);
                goto off;
        }
        for (int i = 0; i < n; i++) {
                sd_event_source *src = NULL;

                if (watched(c, pids[i]))
                        continue;
                if (c->n_exit >= ELEMENTSOF(c->exit)) /* some watched ones ended, not yet dispatched */
                        goto off;
                fd = (int)syscall(SYS_pidfd_open, pids[i], 0);
                if (fd < 0) {
                        if (errno == ESRCH) /* it ended already: the next sample sees it gone */
                                continue;
                        log_debug_errno(-errno, "cannot watch process %d for its exit: %m", pids[i]);
                        goto off;
                }
                r = sd_event_add_io(c->event, &src, fd, EPOLLIN, on_process_exit, c);
                if (r >= 0)
                        r = sd_event_source_set_io_fd_own(src, true);
                if (r < 0) {
                        sd_event_source_disable_unref(src);
                        close(fd); /* not owned by the source unless both calls succeeded */
                        log_debug_errno(r, "cannot watch process %d for its exit: %m", pids[i]);
                        goto off;
                }
                (void)sd_event_source_set_description(src, "crowd-exit");
                c->exit[c->n_exit] = src;
                c->exit_pid[c->n_exit++] = pids[i];
        }
        return;
off:
        unwatch(c);
        c->exit_off = true;
}

/* "COMM[PID], ..." of the n pids into buf (size > 0), a PID whose stat is gone as "[PID]"; returns the length. */
static size_t name_pids(const AdaptCrowd *c, const int *pids, size_t n, char *buf, size_t size) {
        size_t at = 0;

        buf[0] = '\0';
        for (size_t i = 0; i < n && at < size; i++) {
                char comm[64];
                int k;

                if (workload_comm(c->sysroot, pids[i], comm, sizeof(comm)))
                        k = snprintf(buf + at, size - at, "%s%s[%d]", i > 0 ? ", " : "", comm, pids[i]);
                else
                        k = snprintf(buf + at, size - at, "%s[%d]", i > 0 ? ", " : "", pids[i]);
                at += k > 0 ? (size_t)k : 0;
        }
        return MIN(at, size - 1);
}

int adapt_crowd_describe(const AdaptCrowd *c, char *buf, size_t size) {
        int pids[ADAPT_CROWD_PROCS_MAX], n;
        size_t at;

        if (size > 0)
                buf[0] = '\0';
        if (!c->monitor)
                return -EOPNOTSUPP;
        n = monitor_crowd_pids(c->monitor, pids, ELEMENTSOF(pids));
        if (n < 0 || size == 0)
                return n;
        at = name_pids(c, pids, MIN((size_t)n, ELEMENTSOF(pids)), buf, size);
        if (n > (int)ELEMENTSOF(pids) && at + 1 < size)
                snprintf(buf + at, size - at, " and %d more", n - (int)ELEMENTSOF(pids));
        return n;
}

/* Logs the crowd's processes the log has not named in this yield, while fewer than the array holds were. */
static void name_new(AdaptCrowd *c, const int *pids, int n) {
        int fresh[ADAPT_CROWD_PROCS_MAX];
        size_t n_fresh = 0;
        char names[512];

        for (int i = 0; i < MIN(n, ADAPT_CROWD_PROCS_MAX) && c->n_named < ELEMENTSOF(c->named); i++) {
                bool seen = false;

                for (size_t j = 0; j < c->n_named && !seen; j++)
                        seen = c->named[j] == pids[i];
                if (!seen)
                        fresh[n_fresh++] = c->named[c->n_named++] = pids[i];
        }
        if (n_fresh == 0)
                return;
        name_pids(c, fresh, n_fresh, names, sizeof(names));
        if (c->n_named == n_fresh)
                log_info("busy polling yields to the CPU-bound tasks of %s%s", names,
                         n > (int)n_fresh ? " and more" : "");
        else
                log_info("busy polling also yields to the CPU-bound tasks of %s", names);
}

void adapt_crowd_mark(AdaptCrowd *c, const CpuSet *cpus) {
        int r;

        r = monitor_mark_crowd(c->monitor, cpus, CONTROL_CROWD_QUIET_MILLI);
        if (r > 0) {
                int pids[ADAPT_CROWD_PROCS_MAX], n = monitor_crowd_pids(c->monitor, pids, ELEMENTSOF(pids));

                if (n > 0) {
                        watch(c, pids, n);
                        name_new(c, pids, n);
                }
        }
        c->following = r >= 0;
        c->found = c->found || r > 0;
}

void adapt_crowd_accept(AdaptCrowd *c) {
        char names[512];
        int r;

        /* Named before they leave the crowd: only the crowd's processes are listed. */
        if (!c->found || adapt_crowd_describe(c, names, sizeof(names)) <= 0)
                names[0] = '\0';
        r = monitor_crowd_to_companions(c->monitor);
        if (r > 0 && names[0])
                log_info("busy polling ran beside %s through its probe: they are not yielded to again", names);
        adapt_crowd_clear(c);
}

void adapt_crowd_log_probe(const AdaptCrowd *c) {
        char names[512];

        if (c->found && adapt_crowd_describe(c, names, sizeof(names)) > 0)
                log_info("busy polling tries again beside the tasks it yielded to that still run: %s", names);
}
