/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * caps.c: after start-up netpolld stays uid 0 (the files it writes are owned
 * by root with mode 0644, so no CAP_DAC_OVERRIDE is needed) and keeps a single
 * capability:
 *
 *   CAP_NET_ADMIN: the kernel checks it for writes to /sys/class/net/DEV/
 *   attributes (threaded, napi_defer_hard_irqs, gro_flush_timeout,
 *   queues/rx-N/rps_cpus and tx-N/xps_cpus) and for changes made over rtnetlink.
 *
 * and, when held (the unit grants it):
 *
 *   CAP_SYS_NICE: [irq] steering places the kernel threads of threaded NAPI
 *   instances; sched_setaffinity(2) on a task whose permitted set is not a
 *   subset of the caller's (every kernel thread) needs it
 *   (cap_task_setscheduler()). Without it those threads stay where the
 *   kernel put them, and their queue's state says "failed".
 *
 * and, permitted but not effective, only when the starting profile adapts
 * and no CPU pressure file was passed (cpuwake.h):
 *
 *   CAP_SYS_RESOURCE: the kernel takes a PSI trigger with a window under 2 s
 *   only on a file opened with it. The trigger costs the kernel a psimon
 *   thread waking about 18 times a second, so netpolld arms it only while traffic
 *   flows, and opens the file anew each time (adapt.c, wake_arm()).
 *
 * and, only when the starting profile sets [adaptive] live-sockets = yes:
 *
 *   CAP_SYS_PTRACE: pidfd_getfd(2) checks PTRACE_MODE_ATTACH_REALCREDS, which
 *   for a process of another user, or one whose permitted set is not a
 *   subset of netpolld's (every other root service), needs it. Setting
 *   SO_BUSY_POLL itself needs no capability (net/core/sock.c, 6.12).
 *
 * Everything else goes, including from the bounding set, so not even an
 * exec'd helper could get it back. /proc/sys writes need no capability as
 * root in the initial namespaces.
 */
#include "caps.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "macro.h"

static bool kept(const cap_value_t *keep, size_t n, cap_value_t c) {
        for (size_t i = 0; i < n; i++)
                if (keep[i] == c)
                        return true;
        return false;
}

static void cap_freep(cap_t *c) {
        if (*c)
                cap_free(*c);
}

int caps_drop_to_minimum(bool keep_ptrace, bool keep_resource) {
        cap_value_t keep[4] = { CAP_NET_ADMIN };
        size_t n_keep = 1, n_effective;
        _cleanup_(cap_freep) cap_t cur = NULL, want = NULL, none = NULL;
        cap_flag_value_t setpcap = CAP_CLEAR, ptrace = CAP_CLEAR, resource = CAP_CLEAR, nice = CAP_CLEAR;
        int last = (int)cap_max_bits() - 1;

        cur = cap_get_proc();
        none = cap_init();
        want = cap_init();
        if (!cur || !none || !want)
                return negative_errno();
        if (cap_compare(cur, none) == 0)
                return 1; /* an unprivileged run: nothing to drop */

        /* Kept only if held: a unit without them (no live-sockets drop-in, say) must still start. */
        if (cap_get_flag(cur, CAP_SYS_NICE, CAP_PERMITTED, &nice) < 0)
                return negative_errno();
        if (nice == CAP_SET)
                keep[n_keep++] = CAP_SYS_NICE;
        if (keep_ptrace && cap_get_flag(cur, CAP_SYS_PTRACE, CAP_PERMITTED, &ptrace) < 0)
                return negative_errno();
        if (ptrace == CAP_SET)
                keep[n_keep++] = CAP_SYS_PTRACE;
        n_effective = n_keep;
        if (keep_resource && cap_get_flag(cur, CAP_SYS_RESOURCE, CAP_PERMITTED, &resource) < 0)
                return negative_errno();
        if (resource == CAP_SET)
                keep[n_keep++] = CAP_SYS_RESOURCE;
        if (cap_set_flag(want, CAP_EFFECTIVE, (int)n_effective, keep, CAP_SET) < 0 ||
            cap_set_flag(want, CAP_PERMITTED, (int)n_keep, keep, CAP_SET) < 0)
                return negative_errno();
        if (cap_get_flag(cur, CAP_SETPCAP, CAP_EFFECTIVE, &setpcap) < 0)
                return negative_errno();

        /*
         * The bounding set first: dropping from it needs CAP_SETPCAP, which goes
         * next. Under systemd, CapabilityBoundingSet= has done all of this
         * already, and the unit's system call filter does not even allow
         * capset(): nothing is left to do then.
         */
        for (cap_value_t c = 0; setpcap == CAP_SET && c <= last; c++)
                if (!kept(keep, n_keep, c) && CAP_IS_SUPPORTED(c) && cap_get_bound(c) > 0 && cap_drop_bound(c) < 0)
                        return negative_errno();
        if (cap_compare(cur, want) != 0 && cap_set_proc(want) < 0)
                return negative_errno();
        /* No ambient capabilities survive either. */
        if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 && errno != EINVAL)
                return negative_errno();
        return 0;
}

int caps_drop_ptrace(void) {
        _cleanup_(cap_freep) cap_t cur = cap_get_proc();
        const cap_value_t c = CAP_SYS_PTRACE;
        cap_flag_value_t have = CAP_CLEAR;

        if (!cur)
                return negative_errno();
        if (cap_get_flag(cur, c, CAP_PERMITTED, &have) < 0)
                return negative_errno();
        if (have == CAP_CLEAR)
                return 0;
        if (cap_set_flag(cur, CAP_EFFECTIVE, 1, &c, CAP_CLEAR) < 0 ||
            cap_set_flag(cur, CAP_PERMITTED, 1, &c, CAP_CLEAR) < 0 ||
            cap_set_flag(cur, CAP_INHERITABLE, 1, &c, CAP_CLEAR) < 0)
                return negative_errno();
        if (cap_set_proc(cur) < 0)
                return negative_errno();
        return 1;
}

int caps_resource_effective(bool on) {
        _cleanup_(cap_freep) cap_t cur = cap_get_proc();
        const cap_value_t c = CAP_SYS_RESOURCE;

        if (!cur)
                return negative_errno();
        if (cap_set_flag(cur, CAP_EFFECTIVE, 1, &c, on ? CAP_SET : CAP_CLEAR) < 0 || cap_set_proc(cur) < 0)
                return negative_errno();
        return 0;
}

char *caps_describe(void) {
        _cleanup_(cap_freep) cap_t cur = cap_get_proc();
        char *text, *copy;

        if (!cur)
                return NULL;
        text = cap_to_text(cur, NULL);
        if (!text)
                return NULL;
        /* "=" alone is cap_to_text's way of saying none. */
        copy = strdup(streq(text, "=") ? "none" : text + strspn(text, "= "));
        cap_free(text);
        return copy;
}

bool caps_hold_ptrace(void) {
        _cleanup_(cap_freep) cap_t cur = cap_get_proc();
        cap_flag_value_t have = CAP_CLEAR;

        return cur && cap_get_flag(cur, CAP_SYS_PTRACE, CAP_EFFECTIVE, &have) >= 0 && have == CAP_SET;
}
