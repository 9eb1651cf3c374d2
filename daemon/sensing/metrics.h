/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * metrics.h: the Prometheus text exposition of what netpolld knows. Pure:
 * plain structs in (gathered by the caller), text out; no I/O, no clock, no
 * logging. Every family gets # HELP and # TYPE, names start with netpolld_
 * and use base units (times in seconds, counts as they are). Label values
 * are escaped (backslash, double quote, newline) as the format requires.
 *
 * Families (see netpolld.conf(5), METRICS):
 *   netpolld_knob_supported{knob}               gauge 0/1, every listed knob
 *   netpolld_knob_seconds{knob,origin}          gauge, time knobs
 *   netpolld_knob_value{knob,origin}            gauge, count knobs
 *   netpolld_knob_cpus{knob,origin}             gauge, CPU-set knobs: how many CPUs
 *   netpolld_controller_decisions_total{knob,direction,reason}  counter
 *   netpolld_controller_samples_total           counter, samples the controller stepped on
 *   netpolld_controller_wakeups_total{by}       counter, samples taken at once: a task started waiting
 *                                               ("trigger": PSI, "watch": its blind time), or the tasks
 *                                               busy polling yielded to exited ("crowd-exit")
 *   netpolld_busy_poll_rx_packets_total         counter, TcpExt BusyPollRxPackets
 *   netpolld_queue_info{device,queue,napi_id,irq,cpus,rps_cpus,xps_cpus,state}  gauge 1
 *   netpolld_cpu_runnable_tasks{cpu}            gauge, tasks waiting for the CPU
 *   netpolld_cpu_pressure_some_ratio            gauge, PSI cpu "some" share of the last interval
 *   netpolld_cpu_time_squeeze_total{cpu}        counter, softnet_stat time_squeeze
 *   netpolld_queue_<stat>_total{device,ifindex,queue_type,queue_id,napi_id}  counter, one family
 *                                               per statistic of qstat.h (netdev qstats-get)
 * A family whose source is missing keeps its HELP and TYPE and has no samples.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "qstat.h"

typedef enum MetricsKnobKind {
        METRICS_KNOB_COUNT,
        METRICS_KNOB_TIME,  /* value in units of unit_ns nanoseconds */
        METRICS_KNOB_CPUS,  /* value is the number of CPUs in the set */
} MetricsKnobKind;

typedef struct MetricsKnob {
        const char *name;   /* "busy-read", "gro-flush-timeout@eth1" */
        const char *origin; /* "default", "profile", ... */
        MetricsKnobKind kind;
        uint64_t unit_ns;   /* METRICS_KNOB_TIME */
        bool supported;
        bool has_value;     /* false: unsupported or unreadable, no value sample */
        uint64_t value;
} MetricsKnob;

typedef struct MetricsDecision {
        const char *knob;
        const char *direction; /* "up" or "down" */
        const char *reason;    /* a short stable word */
        uint64_t count;
} MetricsDecision;

typedef struct MetricsQueue {
        const char *device, *queue;
        uint32_t napi_id; /* 0: none (label "") */
        int32_t irq;      /* -1: none (label "") */
        const char *cpus, *rps_cpus, *xps_cpus, *state;
} MetricsQueue;

typedef struct MetricsQueueStats {
        const char *device;      /* the interface's name, "" when unknown */
        uint32_t napi_id;        /* the queue's NAPI instance, 0: none known (label "") */
        const QueueStats *stats; /* a statistic the kernel did not send gets no sample */
} MetricsQueueStats;

typedef struct MetricsCpu {
        unsigned cpu;
        uint64_t runnable_milli;
        bool has_time_squeeze;
        uint64_t time_squeeze; /* running total */
} MetricsCpu;

typedef struct MetricsInput {
        const MetricsKnob *knobs;
        size_t n_knobs;
        const MetricsDecision *decisions;
        size_t n_decisions;
        bool has_samples;     /* the controller runs (adaptive or paused profile with statistics) */
        uint64_t samples;
        uint64_t wakeups_trigger, wakeups_watch, wakeups_crowd_exit; /* with has_samples */
        bool has_busy_poll_rx;
        uint64_t busy_poll_rx_packets;
        const MetricsQueue *queues;
        size_t n_queues;
        const MetricsQueueStats *queue_stats;
        size_t n_queue_stats;
        const MetricsCpu *cpus; /* online CPUs */
        size_t n_cpus;
        bool has_psi;
        uint64_t psi_some_milli;
} MetricsInput;

/* The exposition text (caller frees) in *ret. 0, or -ENOMEM. */
int metrics_format(const MetricsInput *in, char **ret);

/* Prints v / 10^decimals as a decimal ("1.5", "0.00005", "3"); buf needs 32 bytes. */
char *metrics_format_fixed(char *buf, size_t size, uint64_t v, unsigned decimals);
