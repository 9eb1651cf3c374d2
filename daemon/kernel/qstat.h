/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * qstat.h: the per-queue statistics the kernel's netdev family reports
 * (qstats-get, Linux 6.10+; which ones depends on the driver). One entry
 * per statistic, whether the kernel sends it for rx queues, tx queues or
 * both; the name drops the kernel's "rx-"/"tx-" prefix, the queue's type
 * says which side it counts. Pure: no I/O.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "interrupts.h"

typedef enum Qstat {
        QSTAT_PACKETS,
        QSTAT_BYTES,
        QSTAT_ALLOC_FAIL,
        QSTAT_HW_DROPS,
        QSTAT_HW_DROP_OVERRUNS,
        QSTAT_HW_DROP_ERRORS,
        QSTAT_HW_DROP_RATELIMITS,
        QSTAT_CSUM_COMPLETE,
        QSTAT_CSUM_UNNECESSARY,
        QSTAT_CSUM_NONE,
        QSTAT_CSUM_BAD,
        QSTAT_NEEDS_CSUM,
        QSTAT_HW_GRO_PACKETS,
        QSTAT_HW_GRO_BYTES,
        QSTAT_HW_GRO_WIRE_PACKETS,
        QSTAT_HW_GRO_WIRE_BYTES,
        QSTAT_HW_GSO_PACKETS,
        QSTAT_HW_GSO_BYTES,
        QSTAT_HW_GSO_WIRE_PACKETS,
        QSTAT_HW_GSO_WIRE_BYTES,
        QSTAT_STOP,
        QSTAT_WAKE,
        _QSTAT_MAX,
} Qstat;

/* One queue's statistics as the kernel sent them; has[s] false: not reported. */
typedef struct QueueStats {
        int ifindex;
        QueueKind kind; /* QUEUE_RX or QUEUE_TX */
        unsigned id;
        bool has[_QSTAT_MAX];
        uint64_t value[_QSTAT_MAX];
} QueueStats;

/* "packets", "hw_drops", ...: a Prometheus-safe name; NULL for an unknown s. */
const char *qstat_name(Qstat s);
/* What the statistic counts, one sentence. */
const char *qstat_help(Qstat s);
/*
 * The netdev family's attribute (NETDEV_A_QSTATS_*) of s on a queue of
 * this kind; 0 when the kernel has no such statistic for that side.
 */
int qstat_attr(Qstat s, QueueKind kind);
