/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * placement.h: where a device's queue interrupts and its RPS/XPS masks go.
 * placement_plan() is pure: a profile's [irq] settings, a CPU topology and
 * a device's queues in, a plan out (per queue: the IRQ's CPU, the RPS mask,
 * the XPS mask). topology.h reads the topology from sysfs.
 *
 * Rules:
 *  - Usable CPUs: online, restricted to cpus= when given, minus exclude-cpus=,
 *    minus isolated and nohz_full CPUs unless cpus= names them.
 *  - spread: rx/combined queue i goes to the i-th usable CPU (plus the
 *    device's offset), CPUs of the device's NUMA node first, first SMT
 *    threads of every core before their siblings, then by CPU number;
 *    wraps around when there are more queues than CPUs.
 *  - pack: every queue on the first CPU of that order.
 *  - cpus: the usable CPUs in ascending order, round robin.
 *  - A separate tx queue's IRQ goes where rx-N's went (or, without rx-N, to
 *    the strategy's CPU for index N).
 *  - RPS auto: off when the device has at least as many rx queues as there
 *    are usable CPUs (the NIC spreads already); otherwise the usable CPUs of
 *    the queue CPU's NUMA node. XPS auto: tx-N gets rx-N's CPU.
 *    Explicit lists are used as given; off empties the mask; keep leaves
 *    the queue's mask alone.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "cpuset.h"
#include "interrupts.h"
#include "policy.h"
#include "topology.h"

typedef struct PlacementDevice {
        int numa_node;                /* -1: unknown, no preference */
        const PlacementQueue *queues; /* each (kind, index) at most once */
        size_t n_queues;
        unsigned offset;              /* spread/cpus: skip this many positions (earlier devices' queues) */
} PlacementDevice;

typedef struct QueuePlan {
        QueueKind kind;
        unsigned index;
        unsigned cpu;   /* where the queue's IRQ goes */
        bool set_rps;   /* rx and combined queues unless rps=keep */
        CpuSet rps;
        bool set_xps;   /* tx and combined queues unless xps=keep */
        CpuSet xps;
} QueuePlan;

/*
 * The usable CPUs (see above). -EINVAL with a static *ret_reason when none
 * is left.
 */
int placement_usable(const IrqConfig *cfg, const CpuTopology *topo, CpuSet *ret, const char **ret_reason);

/*
 * The plan for one device, one entry per input queue in input order
 * (caller frees *ret; NULL when there are no queues). -EINVAL with a static
 * *ret_reason when no CPU is usable or a queue is listed twice.
 */
int placement_plan(const IrqConfig *cfg, const CpuTopology *topo, const PlacementDevice *dev, QueuePlan **ret,
                   size_t *ret_n, const char **ret_reason);
