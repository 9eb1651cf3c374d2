/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * monitor.h: the per-CPU sampler. Each interval it reads how many tasks wait
 * for each CPU and the softnet / softirq counters, and turns two successive
 * readings into per-CPU rates for the controller and `netpollctl monitor`.
 *
 * The signal: how many tasks wait for each CPU, averaged over the interval,
 * never counting the task that runs there. The latency profile's objective
 * (poll while it pays and nobody waits for the CPU) reads it on the polling
 * CPUs only ([adaptive] poll-cpus). It comes from the best source the kernel
 * offers, chosen once at monitor_new():
 *   "schedstat"      /proc/schedstat run_delay: average tasks waiting over the
 *                    interval (delta run_delay ns / delta wall ns); needs
 *                    CONFIG_SCHEDSTATS;
 *   "tasks"          the same figure summed from each task's own
 *                    /proc/PID/task/TID/schedstat delay, on the CPU it last ran
 *                    on (taskwait.h); needs CONFIG_SCHED_INFO only. A running
 *                    busy poller gains run time, not delay, so it never counts.
 *                    When PSI's cpu "some" total grew by less than the scan
 *                    gate (monitor_set_scan_threshold()) since the last
 *                    sample, no CPU can have had tasks waiting for long
 *                    enough to matter: the scan is skipped and every CPU
 *                    reads 0 (the idle cost is then that one pread);
 *   "sched_debug"    debugfs sched/debug .nr_running, an instant reading:
 *                    waiting = nr_running - 1; needs debugfs mounted;
 *   "procs_running"  /proc/stat, system-wide only: every online CPU gets
 *                    (procs_running - 1 (the sampler) - online CPUs) / online
 *                    CPUs, at least 0. It cannot tell which CPU the waiting is
 *                    on.
 * PSI cpu "some" (/proc/pressure/cpu) is added when the kernel has it.
 * Whether polling pays, the packets busy polling delivered (TcpExt
 * BusyPollRxPackets of every network namespace a process is in, busypoll.h),
 * is read on request only (monitor_busy_poll_packets()): ~28 us a namespace.
 *
 * All files are opened below the sysroot at monitor_new() and kept open; each
 * sample preads them into buffers allocated there, so sampling allocates
 * nothing unless a file outgrew its buffer (the buffer then doubles, once).
 * Nothing here logs.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cpuset.h"

typedef struct Monitor Monitor;

/*
 * The task scan runs only when PSI's "some" grew by at least this share of
 * the interval, in thousandths (1 %), or by more when a threshold says so
 * (monitor_set_scan_threshold()). On an idle 2-CPU VM "some" moves in most
 * 100 ms intervals (timer wake-ups), but by 1 ms or more in about one in ten
 * (measured); the scan of ~100 tasks is the largest part of a tick.
 */
#define MONITOR_SCAN_WAIT_PERMILLE 10

/* /proc/stat (online CPUs, procs_running) is read every interval only for source procs_running, else this often. */
#define MONITOR_STAT_REFRESH_NS (UINT64_C(1000) * 1000 * 1000)

typedef enum MonitorSource {
        MONITOR_SOURCE_SCHEDSTAT,
        MONITOR_SOURCE_TASKS,
        MONITOR_SOURCE_SCHED_DEBUG,
        MONITOR_SOURCE_PROCS_RUNNING,
} MonitorSource;

/* One CPU over the last interval. Rates are 0 on the first sample and for a counter that went backwards. */
typedef struct MonitorCpu {
        bool online;                /* listed in /proc/stat at the last sample */
        uint64_t runnable_milli;    /* tasks waiting to run (the running one not counted), x1000 */
        uint64_t crowd_milli;       /* CPU time the crowd (monitor_mark_crowd()) ran here, x1000 of the interval */
        uint64_t net_rx_per_sec;    /* NET_RX softirqs */
        uint64_t net_tx_per_sec;    /* NET_TX softirqs */
        uint64_t processed_per_sec; /* packets, softnet_stat */
        uint64_t drops_per_sec;     /* packets dropped with the backlog full */
        uint64_t squeeze_per_sec;   /* NET_RX runs that ran out of budget with work left */
} MonitorCpu;

/* System-wide readings of the last sample. */
typedef struct MonitorSystem {
        uint64_t procs_running;        /* running + runnable tasks, the sampler included */
        unsigned n_online;             /* online CPUs */
        uint64_t psi_some_avg10_centi; /* kernel's 10 s average, percent x100 (0 without PSI) */
        uint64_t psi_some_milli;       /* share of the last interval some task waited for a CPU, x1000 */
        /* Source tasks only: */
        bool tasks_scanned;            /* false: PSI showed nobody waited, the scan was skipped */
        size_t tasks_tracked;          /* tasks followed */
        size_t tasks_untracked;        /* tasks beyond what the scan follows (TASK_WAIT_MAX, descriptors) */
        uint64_t tasks_listings;       /* listings of /proc since start (task_wait_listings()) */
} MonitorSystem;

/* Load over a set of CPUs, the controller's input. */
typedef struct MonitorLoad {
        uint64_t runnable_milli_max; /* the busiest CPU */
        int runnable_cpu;            /* which one (the lowest numbered of equals), -1 when no CPU is sampled */
        uint64_t crowd_milli_max;    /* the CPU where the crowd ran most */
        uint64_t squeeze_per_sec;    /* sums */
        uint64_t drops_per_sec;
        uint64_t net_rx_per_sec;
        uint64_t processed_per_sec;
} MonitorLoad;

/*
 * Opens the statistics files below sysroot (NULL or "/" for the real ones)
 * and takes no sample yet. The CPU count is fixed here from /proc/stat;
 * CPUs numbered higher that come online later are not sampled. -ENOENT (or
 * the open errno) when /proc/stat, /proc/net/softnet_stat or /proc/softirqs
 * is missing, -EBADMSG when one of them cannot be read as expected.
 */
int monitor_new(Monitor **ret, const char *sysroot);
Monitor *monitor_free(Monitor *m);
static inline void monitor_freep(Monitor **m) {
        if (*m)
                monitor_free(*m);
}

/*
 * Reads every file and computes the rates since the previous successful
 * sample. now_ns is a monotonic clock reading (CLOCK_MONOTONIC in the daemon,
 * any increasing number in tests). Returns 1 when the rates cover an
 * interval, 0 for the first sample (a baseline: instant readings only);
 * -EINVAL when now_ns is not after the previous sample, -EAGAIN when a test
 * fixture's clock (test-hook.h) has not moved on or moved while the files
 * were read, else the read errno or -EBADMSG. On failure the previous
 * results and baseline stay in place.
 */
int monitor_sample(Monitor *m, uint64_t now_ns);
/*
 * A look between samples: reads /proc/pressure/cpu alone (one pread) and
 * tells whether "some" grew, since the later of the last sample and the last
 * look, by the scan gate's share of that time (monitor_set_scan_threshold()):
 * 1 when it did, so a sample now would find tasks waiting; 0 when not.
 * now_ns is the caller's monotonic clock, as passed to monitor_sample() (a
 * test fixture's clock does not time looks). -EOPNOTSUPP without PSI,
 * -EINVAL before the first sample or when now_ns is not after the last
 * look, else the read errno or -EBADMSG.
 */
int monitor_watch(Monitor *m, uint64_t now_ns);
/* The time of the last sample taken: now_ns as passed, or the fixture's; 0 before the first. */
uint64_t monitor_sample_ns(const Monitor *m);

MonitorSource monitor_source(const Monitor *m);
/* "schedstat", "tasks", "sched_debug", "procs_running". */
const char *monitor_source_to_string(MonitorSource s);
static inline const char *monitor_source_name(const Monitor *m) {
        return monitor_source_to_string(monitor_source(m));
}
/*
 * The crowd (source tasks only, else -EOPNOTSUPP): monitor_mark_crowd() adds
 * the CPU-bound tasks that waited in the last sample on a CPU of cpus (NULL:
 * any; see task_wait_mark_crowd()) and returns the crowd's size; from the
 * next sample on, MonitorCpu.crowd_milli tells how much of each CPU they
 * used, also in samples where PSI spares the full scan. The controller marks
 * the tasks busy polling yields to and keeps the yield while they use the
 * CPU; monitor_crowd_tasks() counts those that have not ended (as of the
 * last sample; 0 without a crowd); monitor_clear_crowd() forgets them.
 */
int monitor_mark_crowd(Monitor *m, const CpuSet *cpus, unsigned min_share_milli);
size_t monitor_crowd_tasks(const Monitor *m);
void monitor_clear_crowd(Monitor *m);
/*
 * Clears the crowd, its tasks that have not ended becoming companions that
 * never join a crowd again (task_wait_crowd_to_companions()): how many, or
 * -EOPNOTSUPP unless the source is tasks.
 */
int monitor_crowd_to_companions(Monitor *m);
/*
 * The crowd's processes (task_wait_crowd_pids(), PIDs as the sysroot's /proc
 * names them): how many, the first max in pids; -EOPNOTSUPP unless the source
 * is tasks.
 */
int monitor_crowd_pids(const Monitor *m, int *pids, size_t max);
/*
 * The kernel (a CPU pressure trigger) or monitor_watch() said tasks started
 * waiting just now: the next sample scans the tasks even where PSI's growth
 * over the whole time since the last sample is below the scan gate (a short
 * wait at the end of a long rest is what the caller wants to see), and lists
 * new tasks, however soon (task_wait_list_next()). The adapter also asks
 * for it after each mark that found no CPU-bound task yet: a neighbour that
 * runs alone since busy polling stopped waits too little for the gate, and
 * what the last full scan read of it is stale.
 */
void monitor_woken(Monitor *m);
/*
 * How long (ns, from now_ns, CLOCK_MONOTONIC) a sample asked for by a wake
 * should wait so that at most one woken sample is taken per interval_ns:
 * 0 when the last woken sample is that old, or there was none. Steady mild
 * CPU pressure makes the trigger's watch ask every CPUWAKE_WATCH_US.
 */
uint64_t monitor_woken_wait_ns(const Monitor *m, uint64_t now_ns, uint64_t interval_ns);
/* Tasks never counted as waiting (task_wait_ignore()); -EOPNOTSUPP unless the source is tasks. */
int monitor_ignore_tasks(Monitor *m, const int *tids, size_t n);

/*
 * The depth that matters, in thousandths of a task (the adaptive profile's
 * runqueue-threshold; 0, the default, for every depth). Source "tasks" then
 * skips its scan while PSI "some" grew by less than threshold / (2 x online
 * CPUs) of the interval (at least MONITOR_SCAN_WAIT_PERMILLE): PSI weighs each
 * CPU by its busy time, and a CPU busy all interval counts at least 1/CPUs of
 * it, so a CPU whose tasks waited threshold x interval in total, at most two
 * of them at a time, makes "some" grow by at least that much. At 0.5 tasks on
 * 2 CPUs: 12.5 %; on 64 CPUs: the 1 % floor.
 */
void monitor_set_scan_threshold(Monitor *m, uint64_t runnable_milli);

/*
 * Packets busy polling delivered in all network namespaces since the previous
 * call (the first call finds the namespaces and counts from there). -ENODEV
 * when no netstat has TcpExt BusyPollRxPackets (then always), else the errno
 * of listing /proc.
 */
int monitor_busy_poll_packets(Monitor *m, uint64_t *ret);

/* Whether /proc/pressure/cpu is read. */
bool monitor_uses_psi(const Monitor *m);
/* CPU slots: highest CPU number in /proc/stat at monitor_new() + 1. */
size_t monitor_n_cpus(const Monitor *m);
/* The last sample of one CPU, NULL when cpu >= monitor_n_cpus(). Owned by the monitor. */
const MonitorCpu *monitor_cpu(const Monitor *m, size_t cpu);
const MonitorSystem *monitor_system(const Monitor *m);
/*
 * The running total of time_squeeze (softnet_stat) of one CPU at the last
 * sample, for exporting as a counter. false before the first sample and for
 * a CPU missing from it.
 */
bool monitor_time_squeeze_total(const Monitor *m, size_t cpu, uint64_t *ret);

/* Busiest runnable depth and summed rates over cpus (NULL: all); offline CPUs count as idle. */
void monitor_load(const Monitor *m, const CpuSet *cpus, MonitorLoad *ret);
