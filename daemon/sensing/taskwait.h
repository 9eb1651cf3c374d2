/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * taskwait.h: how long tasks waited for a CPU, per CPU, on kernels without
 * CONFIG_SCHEDSTATS (no /proc/schedstat run_delay). Every task's
 * /proc/PID/task/TID/schedstat (CONFIG_SCHED_INFO) has the time it spent
 * runnable but not running; a scan adds each task's growth of that time since
 * the previous scan to the CPU it last ran on (field 39 of its stat), whose
 * run queue it waited in. A task that runs the whole time (a busy-polling
 * reader alone on its CPU) gains run time, not delay, so it never counts.
 *
 * Cost (measured on the 2-vCPU development VM, docs/ARCHITECTURE.md): each
 * task's schedstat is kept open and re-read with pread (~0.8 us a task);
 * /proc is listed again (~400 us for 100 tasks) only when /proc/loadavg's
 * last PID shows a task was created; a task's stat is opened only in a scan
 * where its delay grew. At most TASK_WAIT_MAX tasks are followed (each holds
 * a file descriptor); the rest are counted as untracked. The one task doing
 * the scan is skipped. Nothing here logs.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

/* Tasks followed at most: each keeps one descriptor, and a service's default soft limit is 1024. */
#define TASK_WAIT_MAX 896

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
 * the delay each task gained since the previous scan. Tasks that appeared
 * since then are read for a baseline and count from the next scan; tasks
 * that ended are dropped. Allocates nothing. 0, or the errno of listing /proc.
 */
int task_wait_scan(TaskWait *t, uint64_t *waited_ns, size_t n);

/* Tasks followed, and tasks seen at the last listing beyond TASK_WAIT_MAX or the descriptor limit. */
size_t task_wait_tracked(const TaskWait *t);
size_t task_wait_untracked(const TaskWait *t);
/* Scans and listings done since task_wait_new() (for tests and the cost figures). */
uint64_t task_wait_scans(const TaskWait *t);
uint64_t task_wait_listings(const TaskWait *t);
