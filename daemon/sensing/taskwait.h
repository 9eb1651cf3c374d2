/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * taskwait.h: how long tasks waited for a CPU, per CPU, on kernels without
 * CONFIG_SCHEDSTATS (no /proc/schedstat run_delay). Every task's
 * /proc/PID/task/TID/schedstat (CONFIG_SCHED_INFO) has the time it spent
 * runnable but not running; a scan adds each task's growth of that time since
 * the previous scan to the CPU it last ran on (field 39 of its stat), whose
 * run queue it waited in. A task that runs the whole time (a busy-polling
 * reader alone on its CPU) gains run time, not delay, so it never counts.
 * The same scan follows the crowd (below): the tasks busy polling yielded to.
 *
 * Cost (measured on the 2-vCPU development VM, docs/ARCHITECTURE.md): each
 * task's schedstat and stat are kept open and re-read with pread (~0.8 us a
 * task; stat only when its delay grew); /proc is listed again (~400 us for
 * 100 tasks) only when /proc/loadavg's last PID shows a task was created,
 * and at most every TASK_WAIT_RELIST_NS, so that a host forking all the time
 * does not pay a listing each interval. A task found by a listing after the
 * first counts at once, with the delay it gathered since the previous listing
 * (it is new, or was untracked): within about 250 ms of its creation at a
 * 100 ms interval, or at the sample a CPU pressure trigger asks for
 * (task_wait_list_next()).
 * Each task followed holds two descriptors: at most TASK_WAIT_MAX tasks, and
 * no more than half of RLIMIT_NOFILE's soft limit less 128 (448 tasks under
 * a service's default 1024; the unit raises it). The rest are counted as
 * untracked. The one task doing the scan is skipped. Nothing here logs.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "cpuset.h"

#define TASK_WAIT_RELIST_NS (UINT64_C(250) * 1000 * 1000)

/* Tasks followed at most (see above for the descriptor limit). */
#define TASK_WAIT_MAX 4096

typedef struct TaskWait TaskWait;

/*
 * Opens sysroot's /proc (NULL or "/" for the real one) and lists its tasks
 * (their first delay readings are the baseline). -ENOENT when no task there
 * has a readable schedstat (kernel without CONFIG_SCHED_INFO, or an empty
 * fixture), else the open errno or -ENOMEM.
 */
int task_wait_new(TaskWait **ret, const char *sysroot);
TaskWait *task_wait_free(TaskWait *t);
static inline void task_wait_freep(TaskWait **t) {
        if (*t)
                task_wait_free(*t);
}

/*
 * Adds to waited_ns[cpu] (n slots; tasks on CPUs at or above n are left out)
 * the delay each task gained since the previous scan, and to crowd_ns[cpu]
 * (NULL: not wanted) the CPU time each task of the crowd gained there. Tasks
 * that appeared since the last listing are listed (see TASK_WAIT_RELIST_NS;
 * now_ns is a monotonic clock), read for a baseline and count from the next
 * scan; tasks that ended are dropped. Allocates nothing. 0, or the errno of
 * listing /proc.
 */
int task_wait_scan(TaskWait *t, uint64_t now_ns, uint64_t *waited_ns, uint64_t *crowd_ns, size_t n);

/*
 * The crowd: the tasks busy polling yielded to. task_wait_mark_crowd() adds
 * the tasks that waited in the last scan on a CPU of cpus (NULL: any) and
 * have spent more of their CPU time in user mode than in the kernel: work
 * that wants the CPU, not a server woken by its packets (network servers and
 * their clients spend 90-99% of theirs in the kernel, busy polling included;
 * docs/ARCHITECTURE.md), and that ran more than min_share_milli / 1000 of
 * the last scan's time (one that used less is quiet itself: it would add
 * nothing to the crowd's use but keep it from ever ending; a long-lived
 * thread whose few ticks fell in user mode is such a one). Kernel threads
 * never join (a kworker's few ticks can land in user mode, and it never
 * ends). It returns the crowd's size. task_wait_scan_crowd()
 * reads the crowd alone (for samples where the full scan is skipped) and
 * adds to crowd_ns[cpu] as above; crowd tasks that ended leave it.
 * task_wait_crowd_tasks() counts the crowd's tasks that have not ended (as
 * of the last scan).
 */
size_t task_wait_mark_crowd(TaskWait *t, const CpuSet *cpus, unsigned min_share_milli);
/*
 * The crowd's tasks that have not ended become companions, and the crowd is
 * cleared; returns how many. A companion ran beside busy polling through a
 * probe without making it yield (the application's own, or its load
 * generator on the same CPU): it never joins a crowd again, for as long as
 * it lives, but its waiting still counts.
 */
size_t task_wait_crowd_to_companions(TaskWait *t);
void task_wait_scan_crowd(TaskWait *t, uint64_t *crowd_ns, size_t n);
size_t task_wait_crowd_tasks(const TaskWait *t);
void task_wait_clear_crowd(TaskWait *t);
/*
 * The processes (thread group IDs) the crowd's tasks belong to, each once,
 * the first max of them into pids; returns how many there are (more than
 * max: the list is cut, and the count may hold repeats beyond it).
 */
size_t task_wait_crowd_pids(const TaskWait *t, int *pids, size_t max);

/*
 * Tasks whose waiting counts nowhere and who never join the crowd: the
 * kernel threads of NAPI instances in busy-poll mode. Such a thread is
 * always runnable, so on a shared CPU it "waits" whenever anything else
 * runs: counting it would make busy polling yield to netpolld's own
 * dedicated pollers. Replaces the previous set (tids, copied; n 0 clears
 * it). 0 or -ENOMEM (then the previous set stays).
 */
int task_wait_ignore(TaskWait *t, const int *tids, size_t n);

/*
 * The next scan lists /proc if a task was created since the last listing,
 * however soon after it: for a caller the kernel just told that tasks wait
 * for a CPU (cpuwake.h), so that a new neighbour counts at the sample that
 * wake asks for rather than up to TASK_WAIT_RELIST_NS later. Once: after
 * such an early listing the next one waits the whole TASK_WAIT_RELIST_NS,
 * however often this is asked (steady waiting asks at every sample).
 */
void task_wait_list_next(TaskWait *t);

/* Tasks followed, and tasks seen at the last listing beyond the cap or the descriptor limit. */
size_t task_wait_tracked(const TaskWait *t);
size_t task_wait_untracked(const TaskWait *t);
/* Scans and listings done since task_wait_new() (for tests and the cost figures). */
uint64_t task_wait_scans(const TaskWait *t);
uint64_t task_wait_listings(const TaskWait *t);
