/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * placement.c: the pure placement function (rules in placement.h). It
 * allocates only the plan it returns; no I/O, no logging.
 */
#include "placement.h"

#include <errno.h>
#include <stdlib.h>

#include "macro.h"

static void set_reason(const char **ret_reason, const char *reason) {
        if (ret_reason)
                *ret_reason = reason;
}

static const CpuInfo *cpu_info(const CpuTopology *topo, unsigned id) {
        for (size_t i = 0; i < topo->n_cpus; i++)
                if (topo->cpus[i].id == id)
                        return &topo->cpus[i];
        return NULL;
}

int placement_usable(const IrqConfig *cfg, const CpuTopology *topo, CpuSet *ret, const char **ret_reason) {
        CpuSet s;
        bool any_named_online = false;

        if (!cfg || !topo || !ret)
                return -EINVAL;
        cpuset_zero(&s);
        for (size_t i = 0; i < topo->n_cpus; i++) {
                unsigned c = topo->cpus[i].id;
                bool named = cfg->cpus_set && cpuset_has(&cfg->cpus, c);

                if (cfg->cpus_set && !named)
                        continue;
                any_named_online = any_named_online || named;
                if (cpuset_has(&cfg->exclude_cpus, c))
                        continue;
                /* Isolated and tickless CPUs belong to latency-critical tasks: only when asked for by name. */
                if (!named && (cpuset_has(&topo->isolated, c) || cpuset_has(&topo->nohz_full, c)))
                        continue;
                cpuset_add(&s, c);
        }
        if (cfg->cpus_set && !any_named_online) {
                set_reason(ret_reason, "none of the CPUs in cpus= is online");
                return -EINVAL;
        }
        if (cpuset_is_empty(&s)) {
                set_reason(ret_reason, cfg->cpus_set ? "every CPU in cpus= is excluded by exclude-cpus="
                                                     : "no CPU left: every online CPU is excluded, isolated or nohz_full");
                return -EINVAL;
        }
        *ret = s;
        return 0;
}

typedef struct OrderKey {
        const CpuInfo *cpu;
        bool remote;
} OrderKey;

static int cmp_spread(const void *a, const void *b) {
        const OrderKey *x = a, *y = b;

        /* Node first: a remote node costs on every packet, a shared core only under load. */
        if (x->remote != y->remote)
                return x->remote ? 1 : -1;
        if (x->cpu->thread != y->cpu->thread)
                return x->cpu->thread < y->cpu->thread ? -1 : 1;
        return x->cpu->id < y->cpu->id ? -1 : x->cpu->id > y->cpu->id;
}

/* The usable CPUs in the order the strategy hands them out; *ret_n >= 1. */
static int order_cpus(const IrqConfig *cfg, const CpuTopology *topo, const CpuSet *usable, int node,
                      unsigned **ret, size_t *ret_n) {
        _cleanup_(freep) OrderKey *keys = NULL;
        unsigned *order;
        size_t n = 0;

        keys = calloc(topo->n_cpus ?: 1, sizeof(OrderKey));
        if (!keys)
                return -ENOMEM;
        for (size_t i = 0; i < topo->n_cpus; i++)
                if (cpuset_has(usable, topo->cpus[i].id))
                        keys[n++] = (OrderKey){ &topo->cpus[i], node >= 0 && topo->cpus[i].node != node };
        if (cfg->strategy != IRQ_STRATEGY_CPUS)
                qsort(keys, n, sizeof(OrderKey), cmp_spread);
        /* strategy=cpus: topo->cpus is ascending already, which is the order asked for. */

        order = calloc(n ?: 1, sizeof(unsigned));
        if (!order)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++)
                order[i] = keys[i].cpu->id;
        *ret = order;
        *ret_n = n;
        return 0;
}

static unsigned pick(const IrqConfig *cfg, const unsigned *order, size_t n, unsigned offset, unsigned pos) {
        if (cfg->strategy == IRQ_STRATEGY_PACK)
                return order[0];
        return order[((size_t)offset + pos) % n];
}

/* RPS auto: the usable CPUs that share the queue CPU's NUMA node (all of them when unknown). */
static CpuSet same_node(const CpuTopology *topo, const CpuSet *usable, unsigned cpu) {
        const CpuInfo *c = cpu_info(topo, cpu);
        CpuSet s;

        cpuset_zero(&s);
        for (size_t i = 0; i < topo->n_cpus; i++) {
                const CpuInfo *o = &topo->cpus[i];
                if (cpuset_has(usable, o->id) && (!c || c->node < 0 || o->node == c->node))
                        cpuset_add(&s, o->id);
        }
        return s;
}

static void plan_mask(IrqMaskMode mode, const CpuSet *explicit_set, const CpuSet *derived, bool *ret_set,
                      CpuSet *ret_mask) {
        cpuset_zero(ret_mask);
        *ret_set = mode != IRQ_MASK_KEEP;
        if (mode == IRQ_MASK_EXPLICIT)
                *ret_mask = *explicit_set;
        else if (mode == IRQ_MASK_AUTO)
                *ret_mask = *derived;
}

int placement_plan(const IrqConfig *cfg, const CpuTopology *topo, const PlacementDevice *dev, QueuePlan **ret,
                   size_t *ret_n, const char **ret_reason) {
        _cleanup_(freep) unsigned *order = NULL;
        _cleanup_(freep) QueuePlan *plan = NULL;
        size_t n_order = 0, n_rx = 0;
        CpuSet usable;
        int r;

        if (!cfg || !topo || !dev || !ret || !ret_n || (dev->n_queues > 0 && !dev->queues))
                return -EINVAL;
        for (size_t i = 0; i < dev->n_queues; i++) {
                if (dev->queues[i].kind >= _QUEUE_KIND_MAX) {
                        set_reason(ret_reason, "unknown queue kind");
                        return -EINVAL;
                }
                for (size_t j = 0; j < i; j++)
                        if (dev->queues[j].kind == dev->queues[i].kind && dev->queues[j].index == dev->queues[i].index) {
                                set_reason(ret_reason, "a queue is listed twice");
                                return -EINVAL;
                        }
                if (dev->queues[i].kind != QUEUE_TX)
                        n_rx++;
        }

        r = placement_usable(cfg, topo, &usable, ret_reason);
        if (r < 0)
                return r;
        r = order_cpus(cfg, topo, &usable, dev->numa_node, &order, &n_order);
        if (r < 0)
                return r;

        if (dev->n_queues == 0) {
                *ret = NULL;
                *ret_n = 0;
                return 0;
        }
        plan = calloc(dev->n_queues, sizeof(QueuePlan));
        if (!plan)
                return -ENOMEM;

        /* rx/combined queues take positions in index order; input order may be anything. */
        for (size_t i = 0; i < dev->n_queues; i++) {
                const PlacementQueue *q = &dev->queues[i];
                unsigned pos = 0;

                plan[i].kind = q->kind;
                plan[i].index = q->index;
                if (q->kind == QUEUE_TX)
                        continue;
                for (size_t j = 0; j < dev->n_queues; j++)
                        if (dev->queues[j].kind != QUEUE_TX && dev->queues[j].index < q->index)
                                pos++;
                plan[i].cpu = pick(cfg, order, n_order, dev->offset, pos);
        }
        for (size_t i = 0; i < dev->n_queues; i++) {
                bool found = false;

                if (plan[i].kind != QUEUE_TX)
                        continue;
                /* tx-N follows rx-N, so completions and the sender's XPS queue share a CPU. */
                for (size_t j = 0; j < dev->n_queues && !found; j++)
                        if (plan[j].kind != QUEUE_TX && plan[j].index == plan[i].index) {
                                plan[i].cpu = plan[j].cpu;
                                found = true;
                        }
                if (!found)
                        plan[i].cpu = pick(cfg, order, n_order, dev->offset, plan[i].index);
        }

        for (size_t i = 0; i < dev->n_queues; i++) {
                CpuSet derived;

                if (plan[i].kind != QUEUE_TX) {
                        /* As many rx queues as CPUs: the NIC spreads already and RPS only adds an IPI. */
                        if (n_rx >= cpuset_count(&usable))
                                cpuset_zero(&derived);
                        else
                                derived = same_node(topo, &usable, plan[i].cpu);
                        plan_mask(cfg->rps, &cfg->rps_cpus, &derived, &plan[i].set_rps, &plan[i].rps);
                }
                if (plan[i].kind != QUEUE_RX) {
                        cpuset_zero(&derived);
                        cpuset_add(&derived, plan[i].cpu);
                        plan_mask(cfg->xps, &cfg->xps_cpus, &derived, &plan[i].set_xps, &plan[i].xps);
                }
        }

        *ret = TAKE_PTR(plan);
        *ret_n = dev->n_queues;
        return 0;
}
