/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * monitor-parse.h: pure parsers for the kernel statistics the monitor samples:
 * /proc/schedstat, debugfs sched/debug, /proc/stat, /proc/pressure/cpu,
 * /proc/net/softnet_stat, /proc/softirqs, /proc/net/netstat, /proc/loadavg
 * and one task's schedstat and stat. Text in, plain structs out: no
 * I/O, no allocation, no logging, so the sampler can run them every interval.
 *
 * Per-CPU parsers fill an array indexed by CPU number with room for n CPUs:
 * entries of CPUs the file does not list get present = false, and CPUs at or
 * above n are skipped (a CPU that came online after the caller sized its
 * arrays). The array is written only when the whole text parsed. They return
 * the number of CPUs the file lists, or -EBADMSG for odd content (a missing
 * or malformed field, a duplicate CPU, a number that does not fit).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct SchedstatCpu {
        bool present;
        uint64_t run_delay_ns; /* total time tasks waited on this CPU's run queue */
} SchedstatCpu;

/*
 * /proc/schedstat, versions 15 to 17 (their "cpuN" lines are the same; the
 * domain lines that changed are not read). run_delay is the 8th number of a
 * cpu line. -EPROTONOSUPPORT for another version. ret_version may be NULL.
 */
int schedstat_parse(const char *text, SchedstatCpu *cpus, size_t n, unsigned *ret_version);

typedef struct SchedDebugCpu {
        bool present;
        uint64_t nr_running; /* tasks on the run queue, the running one included */
} SchedDebugCpu;

/*
 * debugfs sched/debug: ".nr_running" of each "cpu#N" block. The cfs_rq/rt_rq
 * sub-blocks that follow have counters of their own (older kernels call one
 * of them .nr_running too); only the CPU's own block is read.
 */
int sched_debug_parse(const char *text, SchedDebugCpu *cpus, size_t n);

typedef struct ProcStat {
        uint64_t procs_running; /* running and runnable tasks, system-wide */
        unsigned n_online;      /* "cpuN" lines: online CPUs */
        unsigned cpu_slots;     /* highest N listed + 1 */
} ProcStat;

/*
 * /proc/stat: procs_running and the per-CPU "cpuN" lines (other lines are not
 * read). online (may be NULL) gets one flag per CPU below n, like the per-CPU
 * parsers. Returns n_online.
 */
int proc_stat_parse(const char *text, ProcStat *ret, bool *online, size_t n);

typedef struct Psi {
        uint64_t some_avg10_centi; /* percent x100 of the last 10 s some task waited for a CPU */
        uint64_t some_total_us;    /* total time some task waited */
        bool has_full;             /* kernels since 5.13 also print a (system-wide zero) "full" line */
        uint64_t full_total_us;
} Psi;

/* /proc/pressure/cpu: a "some" line and an optional "full" line. Returns 0. */
int psi_parse(const char *text, Psi *ret);

typedef struct SoftnetCpu {
        bool present;
        uint64_t processed;    /* packets processed (column 0) */
        uint64_t dropped;      /* packets dropped: backlog full (column 1) */
        uint64_t time_squeeze; /* NET_RX runs that ended with work left (column 2) */
} SoftnetCpu;

/*
 * /proc/net/softnet_stat: one line of hex columns per online CPU. Lines must
 * all have the same count, at least 11 (Linux 3.11 to 5.9 print 11, 5.10 adds
 * backlog length and CPU index for 13, 6.x adds two queue lengths for 15).
 * The CPU is column 12 where there is one, else the line number (which is
 * only right while no CPU is offline: old kernels give nothing better).
 * ret_columns may be NULL.
 */
int softnet_parse(const char *text, SoftnetCpu *cpus, size_t n, unsigned *ret_columns);

typedef struct SoftirqCpu {
        bool present;
        uint64_t net_rx; /* NET_RX softirqs run on this CPU */
        uint64_t net_tx;
} SoftirqCpu;

/*
 * /proc/softirqs: a header of "CPUn" columns (possible CPUs, not only online
 * ones) and one "NAME:" row of as many counts per softirq. NET_RX and NET_TX
 * must be present.
 */
int softirqs_parse(const char *text, SoftirqCpu *cpus, size_t n);

/*
 * /proc/net/netstat (and /proc/net/snmp): pairs of lines "GROUP: NAME..."
 * then "GROUP: VALUE...". *ret gets the value of group's field name.
 * -ENOENT when the kernel does not count it, -EBADMSG for odd content.
 */
int netstat_field_parse(const char *text, const char *group, const char *name, uint64_t *ret);

typedef struct TaskSchedstat {
        uint64_t run_ns;   /* time on a CPU */
        uint64_t delay_ns; /* time runnable, waiting on a run queue */
        uint64_t slices;   /* times it was picked to run */
} TaskSchedstat;

/* /proc/PID/task/TID/schedstat (CONFIG_SCHED_INFO): "RUN_NS DELAY_NS SLICES". */
int task_schedstat_parse(const char *text, TaskSchedstat *ret);

/* include/linux/sched.h: the flag ps(1) also reads to tell kernel threads. */
#define TASK_PF_KTHREAD UINT64_C(0x00200000)

typedef struct TaskStat {
        char state;     /* field 3: 'R', 'S', ...; 'Z' or 'X' once it exited (not yet reaped, or being) */
        bool kthread;   /* field 9 (flags) has PF_KTHREAD: a kernel thread */
        uint64_t utime; /* field 14: clock ticks in user mode */
        uint64_t stime; /* field 15: clock ticks in the kernel (system calls, busy polling among them) */
        unsigned cpu;   /* field 39: the CPU the task last ran on (it waits on that CPU's queue) */
} TaskStat;

/* /proc/PID/task/TID/stat: the fields above. -EBADMSG for odd content (*ret untouched). */
int task_stat_parse(const char *text, TaskStat *ret);

/* /proc/loadavg: the last field, the PID most recently handed out; it changes whenever a task is created. */
int loadavg_last_pid_parse(const char *text, uint64_t *ret);
