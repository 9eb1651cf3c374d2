/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cpuwake.h: the kernel's word that tasks started waiting for a CPU, so the
 * adaptive loop may sample rarely while nobody waits. A PSI trigger on
 * /proc/pressure/cpu (Documentation/accounting/psi.rst): "some THRESHOLD
 * WINDOW" makes the descriptor poll EPOLLPRI once some task waited more than
 * THRESHOLD within WINDOW, at most once a window. The kernel checks
 * CAP_SYS_RESOURCE in the credentials of whoever opened the file: without it
 * only whole multiples of 2 s are accepted, and those are evaluated every 2 s,
 * too late to yield within two sampling intervals. So the trigger is opened at
 * start, while the capability is held, and the capability is dropped after;
 * or the service manager opens the file and passes it (cpuwake_passed()), and
 * netpolld never needs the capability.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

/*
 * 10 ms of waiting within 500 ms: far below what the yield rule acts on, so the
 * wake-up comes first. The system-wide share is averaged over the CPUs that
 * were busy: on a machine with dozens of busy CPUs one CPU's waiting can stay
 * under it, and the next rest sample (at most 500 ms later) sees it instead.
 */
#define CPUWAKE_THRESHOLD_US (UINT64_C(10) * 1000)
#define CPUWAKE_WINDOW_US (UINT64_C(500) * 1000)
/*
 * While a trigger under 2 s exists, the kernel's psimon thread evaluates it
 * every window / 10 as long as CPU pressure changed at all, which its own
 * wake-ups see to: about 18 wake-ups a second (50 ms + a tick), measured on
 * 6.18 with nothing else running. So a trigger netpolld opened is removed
 * after this long without traffic, where it would save nothing.
 */
#define CPUWAKE_DISARM_AFTER_US (UINT64_C(10) * 1000 * 1000)

/*
 * The trigger's blind time: once it fired, the kernel does not fire it again
 * before its window is over, and on a busy machine the window's firing is
 * often spent on waiting that moves nothing. So for the rest of that window,
 * while busy polling could yield, the caller looks at "some" itself this
 * often (monitor_watch(): one pread of the pressure file) and samples at once
 * when it grew by the scan gate's share. At most window / this looks per
 * firing (50), none while the trigger stays quiet.
 */
#define CPUWAKE_WATCH_US (UINT64_C(10) * 1000)

/* CAP_SYS_RESOURCE is effective now: cpuwake_open() can arm a sub-2 s window. */
bool cpuwake_privileged(void);

/*
 * Arms a "some" trigger on fd, an open /proc/pressure/cpu. Returns 0, or
 * -EINVAL when the kernel refused the window (the file was opened without
 * CAP_SYS_RESOURCE; or the arguments are out of range), -EBUSY when fd holds
 * a trigger already, another -errno from write.
 */
int cpuwake_arm(int fd, uint64_t threshold_us, uint64_t window_us);

/*
 * The CPU pressure file the service manager passed (sd_listen_fds(3), named
 * "cpu-pressure"; systemd 253's OpenFile=/proc/pressure/cpu:cpu-pressure),
 * with CLOEXEC set. Returns the descriptor, -ENOENT when none was passed,
 * -EMEDIUMTYPE when the descriptor of that name is not a pressure file of
 * procfs (closed: nothing is written to it). Every other passed descriptor is
 * closed with a warning, and the LISTEN_ variables are removed.
 */
int cpuwake_passed(void);

/*
 * Opens path (/proc/pressure/cpu) and arms a "some" trigger on it. Returns
 * the descriptor (poll it for EPOLLPRI; closing it removes the trigger), or
 * -EPERM without CAP_SYS_RESOURCE, -ENOENT without PSI, -EOPNOTSUPP when PSI
 * is off (psi=0), another -errno from open or write.
 */
int cpuwake_open(const char *path, uint64_t threshold_us, uint64_t window_us);
