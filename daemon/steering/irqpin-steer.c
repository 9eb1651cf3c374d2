/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * irqpin-steer.c: one device at a time: which queues, NAPI instances and
 * IRQs it has, the plan for them, and the journaled writes with their
 * outcome per queue (irqpin.h's states). Device-level logging happens here
 * because this is where the outcome is understood.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "irqpin-internal.h"
#include "log.h"
#include "napi-backend.h"
#include "netdev-sysfs.h"

static const char *const file_labels[] = {
        [STEER_IRQ] = "irq-affinity",
        [STEER_RPS] = "rps-cpus",
        [STEER_XPS] = "xps-cpus",
        [STEER_THREAD] = "napi-thread-affinity",
};

static void slot_name(const Slot *s, char *buf, size_t size) {
        snprintf(buf, size, "%s-%u", queue_kind_to_string(s->kind), s->index);
}

bool irqpin_slot_file(const Device *d, const Slot *s, SteerFile f, char **ret_path, char *label, size_t size) {
        char q[32];
        int r;

        if ((f == STEER_IRQ && s->irq < 0) || (f == STEER_RPS && s->kind == QUEUE_TX) ||
            (f == STEER_XPS && s->kind == QUEUE_RX))
                return false;
        r = steer_path(f, d->name, f == STEER_IRQ ? (unsigned)s->irq : s->index, ret_path);
        if (r < 0)
                return false;
        slot_name(s, q, sizeof(q));
        /* RPS/XPS named for the queue directory they live in, as the knob's own targets are (rps-cpus@DEV:rx-N). */
        if (f == STEER_IRQ)
                snprintf(label, size, "%s@%s:%s", file_labels[f], d->name, q);
        else
                snprintf(label, size, "%s@%s:%s-%u", file_labels[f], d->name, f == STEER_RPS ? "rx" : "tx", s->index);
        return true;
}

static const TargetKind file_kinds[] = {
        [STEER_IRQ] = TARGET_IRQ,
        [STEER_RPS] = TARGET_RPS,
        [STEER_XPS] = TARGET_XPS,
};

/* The first slot of d that s's NAPI instance serves: the one that places its thread. */
static bool first_of_napi(const Device *d, const Slot *s) {
        for (const Slot *o = d->slots; o < s; o++)
                if (o->napi_id == s->napi_id)
                        return false;
        return true;
}

bool irqpin_slot_target(IrqPin *p, const Device *d, const Slot *s, SteerFile f, Target *ret) {
        _cleanup_(freep) char *path = NULL;
        char label[96];

        if (!p->owner)
                return false;
        if (f == STEER_THREAD) {
                /* Named for the instance, like a per-NAPI value; its key is the backend's (napi-backend.h). */
                if (s->napi_id == 0 || !first_of_napi(d, s))
                        return false;
                snprintf(label, sizeof(label), "%s@%s:napi-%" PRIu32, file_labels[f], d->name, s->napi_id);
                return owner_thread_target(p->owner, label, d->name, s->napi_id, NAPI_THREAD_CPUS, ret) >= 0;
        }
        if (!irqpin_slot_file(d, s, f, &path, label, sizeof(label)))
                return false;
        return owner_file_target(p->owner, file_kinds[f], label, d->name, path, ret) >= 0;
}

static int cmp_slot(const void *a, const void *b) {
        const Slot *x = a, *y = b;
        if (x->index != y->index)
                return x->index < y->index ? -1 : 1;
        return x->kind < y->kind ? -1 : x->kind > y->kind;
}

static Slot *find_slot(Slot *l, size_t n, QueueKind kind, unsigned index) {
        for (size_t i = 0; i < n; i++)
                if (l[i].kind == kind && l[i].index == index)
                        return &l[i];
        return NULL;
}

static int push_slot(Slot **l, size_t *n, QueueKind kind, unsigned index, uint32_t napi_id) {
        Slot *a = reallocarray(*l, *n + 1, sizeof(Slot));
        if (!a)
                return -ENOMEM;
        *l = a;
        a[(*n)++] = (Slot){ .kind = kind, .index = index, .napi_id = napi_id, .irq = -1, .thread_pid = -1,
                            .threaded = -1 };
        return 0;
}

/* Queues from the netdev family: rx-N and tx-N served by one NAPI instance become combined-N. */
static int slots_from_genl(const NetdevQueue *q, size_t nq, const NapiInfo *napis, size_t nn, Slot **l, size_t *n) {
        for (size_t i = 0; i < nq; i++) {
                const NetdevQueue *pair = NULL;
                int r;

                for (size_t j = 0; j < nq && q[i].napi_id; j++)
                        if (q[j].kind != q[i].kind && q[j].id == q[i].id && q[j].napi_id == q[i].napi_id)
                                pair = &q[j];
                if (pair && q[i].kind == QUEUE_TX)
                        continue; /* added with its rx queue */
                r = push_slot(l, n, pair ? QUEUE_COMBINED : q[i].kind, q[i].id, q[i].napi_id);
                if (r < 0)
                        return r;
                for (size_t k = 0; k < nn; k++)
                        if (napis[k].id == q[i].napi_id && q[i].napi_id) {
                                Slot *s = &(*l)[*n - 1];
                                s->irq = napis[k].irq;
                                s->thread_pid = napis[k].pid;
                                s->threaded = napis[k].has[NAPI_KNOB_THREADED]
                                                      ? (int)napis[k].value[NAPI_KNOB_THREADED]
                                                      : -1;
                        }
        }
        return 0;
}

/* IRQs by /proc/interrupts names, for drivers that do not report them with their NAPI instances. */
static int irqs_from_names(IrqPin *p, Device *d, const DeviceSysfs *sys, Slot **l, size_t *n) {
        _cleanup_(freep) QueueIrq *qi = NULL;
        size_t nqi = 0;
        int r;

        r = device_queue_irqs(p->sysroot, d->name, sys, &qi, &nqi);
        if (r < 0)
                return r;
        for (size_t i = 0; i < nqi; i++) {
                Slot *rx = find_slot(*l, *n, QUEUE_RX, qi[i].index);
                Slot *tx = find_slot(*l, *n, QUEUE_TX, qi[i].index);
                Slot *s = find_slot(*l, *n, qi[i].kind, qi[i].index);

                if (qi[i].kind == QUEUE_COMBINED && rx && tx) {
                        /* One vector serves both: one row, like the netdev family shows shared NAPI. */
                        rx->kind = QUEUE_COMBINED;
                        rx->napi_id = rx->napi_id ?: tx->napi_id;
                        if (rx->irq < 0)
                                rx->irq = (int)qi[i].irq;
                        (*l)[tx - *l] = (*l)[--*n];
                        continue;
                }
                if (qi[i].kind == QUEUE_COMBINED)
                        s = s ?: rx ?: tx;
                if (s && s->irq < 0)
                        s->irq = (int)qi[i].irq;
        }
        return 0;
}

int irqpin_discover(IrqPin *p, Device *d, int *ret_numa_node) {
        _cleanup_(freep) NetdevQueue *q = NULL;
        _cleanup_(freep) NapiInfo *napis = NULL;
        _cleanup_(freep) Slot *l = NULL;
        DeviceSysfs sys = { .numa_node = -1 };
        size_t nq = 0, nn = 0, n = 0;
        bool have_irq = false;
        int r;

        r = device_sysfs_read(p->sysroot, d->name, &sys);
        if (r == -ENODEV && d->n_slots > 0) {
                /*
                 * Gone from sysfs, and the netlink removal is on its way (a
                 * "down" event can come first). Keep the queues known, so that
                 * the removal forgets their journal entries: else they would be
                 * replayed onto the next device that takes the name.
                 */
                device_sysfs_done(&sys);
                return -ENODEV;
        }
        if (r < 0 && r != -ENODEV)
                return r;

        if (p->genl && (d->flags & IFF_UP)) {
                r = netdev_genl_queues(p->genl, d->ifindex, &q, &nq);
                if (r >= 0)
                        r = netdev_genl_napis(p->genl, d->ifindex, &napis, &nn);
                if (r < 0) {
                        log_debug_errno(r, "%s: netdev family gave no queues (%m), using sysfs", d->name);
                        nq = 0;
                }
        }
        if (nq > 0)
                r = slots_from_genl(q, nq, napis, nn, &l, &n);
        else {
                _cleanup_(freep) PlacementQueue *pq = NULL;
                size_t npq = 0;

                r = device_sysfs_queues(p->sysroot, d->name, &pq, &npq);
                if (r == -ENODEV)
                        r = 0; /* not below this sysroot: nothing to steer */
                for (size_t i = 0; r >= 0 && i < npq; i++)
                        r = push_slot(&l, &n, pq[i].kind, pq[i].index, 0);
        }
        for (size_t i = 0; r >= 0 && i < n; i++)
                have_irq = have_irq || l[i].irq >= 0;
        if (r >= 0 && !have_irq && n > 0 && (sys.driver || sys.msi_irqs)) {
                r = irqs_from_names(p, d, &sys, &l, &n);
                if (r < 0 && r != -ENOMEM) {
                        /* Steering RPS/XPS still works without IRQs. */
                        log_debug_errno(r, "%s: no IRQs from /proc/interrupts (%m)", d->name);
                        r = 0;
                }
        }
        if (ret_numa_node)
                *ret_numa_node = sys.numa_node;
        device_sysfs_done(&sys);
        if (r < 0)
                return r;

        if (n > 1)
                qsort(l, n, sizeof(Slot), cmp_slot);
        /* What is known about queues that stay stays: ownership, outcome, plan. */
        for (size_t i = 0; i < n; i++) {
                Slot *old = find_slot(d->slots, d->n_slots, l[i].kind, l[i].index);
                if (!old)
                        continue;
                if (old->irq != l[i].irq) {
                        /* Another IRQ now: the old one goes back to its original. */
                        Target t;
                        if (irqpin_slot_target(p, d, old, STEER_IRQ, &t))
                                (void)owner_unset(p->owner, &t, LAYER_BIT(LAYER_PROFILE), "profile", NULL);
                        old->attempts = 0;
                }
                Slot fresh = l[i];
                l[i] = *old;
                l[i].napi_id = fresh.napi_id;
                l[i].irq = fresh.irq;
                l[i].thread_pid = fresh.thread_pid;
                l[i].threaded = fresh.threaded;
        }
        free(d->slots);
        d->slots = TAKE_PTR(l);
        d->n_slots = n;
        return 0;
}

static int severity(IrqState s) {
        switch (s) {
        case IRQ_STATE_FAILED:
                return 5;
        case IRQ_STATE_RETRYING:
                return 4;
        case IRQ_STATE_EXTERNAL:
                return 3;
        case IRQ_STATE_KERNEL_MANAGED:
                return 2;
        case IRQ_STATE_IRQBALANCE:
                return 1;
        default:
                return 0;
        }
}

static void worsen(IrqState *st, IrqState s) {
        if (severity(s) > severity(*st))
                *st = s;
}

/* Asks the owner for one file of a slot (the profile's layer); returns the state it leaves. */
static IrqState steer_file(IrqPin *p, Device *d, Slot *s, SteerFile f, const CpuSet *want) {
        _cleanup_(freep) char *list = NULL, *text = NULL, *now = NULL;
        Target t;
        int r;

        if (!irqpin_slot_target(p, d, s, f, &t))
                return IRQ_STATE_APPLIED;
        list = cpuset_format_list(want);
        text = f == STEER_IRQ || f == STEER_THREAD ? cpuset_format_list(want)
                                                   : cpuset_format_mask(want, p->topo.nr_cpu_ids);
        if (!list || !text)
                return IRQ_STATE_FAILED;
        r = owner_set(p->owner, &t, LAYER_PROFILE, text, NULL, &now);
        if (r >= 0 || r == -EDOM) {
                switch (owner_origin(p->owner, &t)) {
                case ORIGIN_EXTERNAL:
                        return f == STEER_IRQ && irqpin_irqbalance_moves(p, s->irq) ? IRQ_STATE_IRQBALANCE : IRQ_STATE_EXTERNAL;
                case ORIGIN_MANUAL:
                        return IRQ_STATE_MANUAL;
                default:
                        break;
                }
                if (r == -EDOM)
                        log_warning("%s: the kernel holds %s instead of %s", t.name, strempty(now), list);
                else if (f == STEER_IRQ)
                        /* The kernel moves an IRQ when it next fires, so a quiet queue stays put a while. */
                        log_debug("%s: IRQ %d on CPU %s (effective at its next interrupt)", t.name, s->irq, list);
                else if (f == STEER_THREAD)
                        log_debug("%s: kernel thread %d on CPU %s", t.name, s->thread_pid, list);
                if (f == STEER_IRQ)
                        s->attempts = 0;
                return IRQ_STATE_APPLIED;
        }
        if (r == -OWNER_E_NOT_JOURNALED) {
                _cleanup_(freep) char *msg = owner_not_journaled_message(p->owner, t.name);
                log_warning("%s", msg ?: t.name);
                return IRQ_STATE_FAILED;
        }
        const char *label = t.name;
        if (f != STEER_IRQ) {
                /*
                 * Nothing there to steer: no RPS/XPS files in this kernel (CONFIG_RPS, CONFIG_XPS; the
                 * owner reports a file it cannot read as a gone device), no tx-N for rx-N, or the
                 * thread ended (softirq mode again).
                 */
                if (r == -ENOENT || r == -ENODEV)
                        return IRQ_STATE_APPLIED;
                log_warning("%s: cannot set %s: %s", label, strempty(list),
                            owner_last_error(p->owner) ?: strerror(-r));
                return IRQ_STATE_FAILED;
        }

        switch (steer_classify_irq(r)) {
        case STEER_OUTCOME_KERNEL_MANAGED:
                if (s->attempts++ == 0)
                        log_info("%s: IRQ %d is kernel-managed (the kernel refuses other affinities), leaving it",
                                 label, s->irq);
                return IRQ_STATE_KERNEL_MANAGED;
        case STEER_OUTCOME_RETRY:
                if (++s->attempts <= IRQPIN_RETRY_MAX) {
                        log_debug_errno(r, "%s: IRQ %d refused CPU %s for now (%m), retrying", label, s->irq,
                                        strempty(list));
                        return IRQ_STATE_RETRYING;
                }
                log_warning_errno(r, "%s: IRQ %d kept refusing CPU %s (%m), giving up", label, s->irq,
                                  strempty(list));
                return IRQ_STATE_FAILED;
        case STEER_OUTCOME_NO_VECTORS:
                log_warning("%s: no interrupt vector left on CPU %s for IRQ %d", label, strempty(list), s->irq);
                return IRQ_STATE_FAILED;
        default:
                log_warning_errno(r, "%s: cannot move IRQ %d to CPU %s: %m", label, s->irq, strempty(list));
                return IRQ_STATE_FAILED;
        }
}

static void steer_slot(IrqPin *p, Device *d, Slot *s) {
        IrqState st = IRQ_STATE_APPLIED;
        bool first = true;
        CpuSet one;

        /* A vector serving several queues is placed by the first of them; the others would only fight it. */
        for (const Slot *o = d->slots; o < s; o++)
                first = first && !(s->irq >= 0 && o->irq == s->irq);
        cpuset_zero(&one);
        cpuset_add(&one, s->plan.cpu);
        if (first)
                worsen(&st, steer_file(p, d, s, STEER_IRQ, &one));
        if (s->plan.set_rps)
                worsen(&st, steer_file(p, d, s, STEER_RPS, &s->plan.rps));
        if (s->plan.set_xps)
                worsen(&st, steer_file(p, d, s, STEER_XPS, &s->plan.xps));
        /* A threaded instance polls in its kernel thread: it goes where its IRQ does. */
        if (s->thread_pid > 0)
                worsen(&st, steer_file(p, d, s, STEER_THREAD, &one));
        if (irqpin_irqbalance_moves(p, s->irq))
                worsen(&st, IRQ_STATE_IRQBALANCE);
        s->state = st;
}

/* What a dry run would do, once per change of plan. */
static void log_plan(const Device *d, const Slot *s) {
        _cleanup_(freep) char *rps = s->plan.set_rps ? cpuset_format_list(&s->plan.rps) : NULL;
        _cleanup_(freep) char *xps = s->plan.set_xps ? cpuset_format_list(&s->plan.xps) : NULL;
        char irq[32] = "no IRQ";

        if (s->irq >= 0)
                snprintf(irq, sizeof(irq), "IRQ %d", s->irq);
        log_info("dry-run: %s %s-%u: would put %s on CPU %u%s%s%s%s", d->name, queue_kind_to_string(s->kind),
                 s->index, irq, s->plan.cpu, rps ? ", RPS " : "", strempty(rps), xps ? ", XPS " : "", strempty(xps));
}

int irqpin_steer_device(IrqPin *p, Device *d, unsigned offset) {
        _cleanup_(freep) PlacementQueue *pq = NULL;
        _cleanup_(freep) QueuePlan *plan = NULL;
        const char *reason = NULL;
        size_t n_plan = 0;
        unsigned used = 0;
        int node = -1, r;

        r = irqpin_discover(p, d, &node);
        if (r == -ENODEV)
                return 0; /* being removed */
        if (r < 0)
                return log_warning_errno(r, "%s: cannot find its queues: %m", d->name);

        pq = calloc(d->n_slots ?: 1, sizeof(PlacementQueue));
        if (!pq)
                return log_oom();
        for (size_t i = 0; i < d->n_slots; i++) {
                pq[i] = (PlacementQueue){ d->slots[i].kind, d->slots[i].index };
                used += d->slots[i].kind != QUEUE_TX;
        }
        PlacementDevice dev = { .numa_node = node, .queues = pq, .n_queues = d->n_slots, .offset = offset };
        r = placement_plan(&p->cfg, &p->topo, &dev, &plan, &n_plan, &reason);
        if (r < 0) {
                for (size_t i = 0; i < d->n_slots; i++)
                        d->slots[i].state = IRQ_STATE_FAILED;
                if (r == -ENOMEM)
                        return log_oom();
                return log_error_errno(r, "%s: no placement possible: %s", d->name, strempty(reason));
        }

        for (size_t i = 0; i < d->n_slots; i++) {
                Slot *s = &d->slots[i];
                QueuePlan old_plan = s->plan;

                s->plan = plan[i];
                s->planned = true;
                if (p->dry_run) {
                        if (s->state != IRQ_STATE_PLANNED || memcmp(&old_plan, &s->plan, sizeof(QueuePlan)) != 0)
                                log_plan(d, s);
                        s->state = IRQ_STATE_PLANNED;
                        continue;
                }
                steer_slot(p, d, s); /* the owner leaves what was changed outside alone */
        }
        return (int)used;
}

bool irqpin_steer_retry(IrqPin *p, Device *d) {
        bool waiting = false;

        for (size_t i = 0; i < d->n_slots; i++) {
                Slot *s = &d->slots[i];
                if (s->state != IRQ_STATE_RETRYING || !s->planned || p->dry_run)
                        continue;
                steer_slot(p, d, s);
                waiting = waiting || s->state == IRQ_STATE_RETRYING;
        }
        return waiting;
}

void irqpin_update_states(IrqPin *p, Device *d) {
        for (size_t i = 0; i < d->n_slots; i++) {
                Slot *s = &d->slots[i];
                IrqState owned = IRQ_STATE_APPLIED;

                if (!s->planned || p->dry_run)
                        continue;
                for (SteerFile f = STEER_IRQ; f <= STEER_THREAD; f++) {
                        Target t;
                        ValueOrigin o;

                        if (!irqpin_slot_target(p, d, s, f, &t))
                                continue;
                        o = owner_origin(p->owner, &t);
                        if (o == ORIGIN_EXTERNAL)
                                owned = f == STEER_IRQ && irqpin_irqbalance_moves(p, s->irq) ? IRQ_STATE_IRQBALANCE
                                                                                : IRQ_STATE_EXTERNAL;
                        else if (o == ORIGIN_MANUAL && owned == IRQ_STATE_APPLIED)
                                owned = IRQ_STATE_MANUAL;
                }
                /* Who holds the files decides these states; the kernel's answers (retrying, failed...) stay. */
                if (owned != IRQ_STATE_APPLIED || s->state == IRQ_STATE_EXTERNAL || s->state == IRQ_STATE_MANUAL ||
                    (s->state == IRQ_STATE_IRQBALANCE && !irqpin_irqbalance_moves(p, s->irq)))
                        s->state = owned;
        }
}

void irqpin_hand_back(IrqPin *p, Device *d) {
        for (size_t i = 0; i < d->n_slots; i++) {
                Slot *s = &d->slots[i];

                for (SteerFile f = STEER_IRQ; f <= STEER_THREAD; f++) {
                        Target t;
                        int r;

                        if (!irqpin_slot_target(p, d, s, f, &t))
                                continue;
                        r = owner_unset(p->owner, &t, LAYER_BIT(LAYER_PROFILE), "profile", NULL);
                        if (r < 0)
                                log_warning_errno(r, "%s: cannot hand back: %m", t.name);
                }
                *s = (Slot){ .kind = s->kind, .index = s->index, .napi_id = s->napi_id, .irq = s->irq,
                             .thread_pid = s->thread_pid, .threaded = s->threaded };
        }
}

void irqpin_take_back(IrqPin *p, Device *d) {
        for (size_t i = 0; i < d->n_slots; i++)
                for (SteerFile f = STEER_IRQ; f <= STEER_THREAD; f++) {
                        Target t;
                        if (irqpin_slot_target(p, d, &d->slots[i], f, &t))
                                (void)owner_unset(p->owner, &t, LAYER_BIT(LAYER_MANUAL), "reset", NULL);
                }
}
