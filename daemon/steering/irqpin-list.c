/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * irqpin-list.c: ListIrqs rows. Queues, NAPI instances and IRQs are looked
 * up afresh (a veth gets its NAPI instance only when GRO is switched on);
 * the values shown are what the kernel holds, or in a dry run the plan.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "irqpin-internal.h"
#include "knob.h"
#include "log.h"
#include "napi-backend.h"
#include "irqbalance.h"
#include "netdev-sysfs.h"

/* What the file holds as a CPU list; "" when it has none or cannot be read. */
static char *read_list(IrqPin *p, const Device *d, const Slot *s, SteerFile f) {
        _cleanup_(freep) char *path = NULL;
        char label[64];
        CpuSet set;

        if (!irqpin_slot_file(d, s, f, &path, label, sizeof(label)) || steer_read(p->sysroot, f, path, &set) < 0)
                return strdup("");
        return cpuset_format_list(&set);
}

static char *plan_list(const CpuSet *set) {
        return cpuset_format_list(set);
}

static int fill_row(IrqPin *p, const Device *d, const Slot *s, IrqRow *row) {
        bool plan = d->managed && s->planned;
        bool rx = s->kind != QUEUE_TX, tx = s->kind != QUEUE_RX;
        CpuSet one;

        cpuset_zero(&one);
        cpuset_add(&one, s->plan.cpu);
        *row = (IrqRow){ .napi_id = s->napi_id, .irq = s->irq, .threaded = -1, .thread = -1 };
        row->device = strdup(d->name);
        if (asprintf(&row->queue, "%s-%u", queue_kind_to_string(s->kind), s->index) < 0)
                row->queue = NULL;
        /* Without an IRQ the plan's CPU is what XPS follows: show it rather than nothing. */
        if (plan && (p->dry_run || s->irq < 0))
                row->cpus = plan_list(&one);
        else
                row->cpus = s->irq >= 0 ? read_list(p, d, s, STEER_IRQ) : strdup("");
        if (!rx)
                row->rps = strdup("");
        else if (plan && p->dry_run && s->plan.set_rps)
                row->rps = plan_list(&s->plan.rps);
        else
                row->rps = read_list(p, d, s, STEER_RPS);
        if (!tx)
                row->xps = strdup("");
        else if (plan && p->dry_run && s->plan.set_xps)
                row->xps = plan_list(&s->plan.xps);
        else
                row->xps = read_list(p, d, s, STEER_XPS);
        row->state = strdup(irq_state_to_string(d->managed ? s->state : IRQ_STATE_UNMANAGED));
        row->threaded = s->napi_id ? s->threaded : -1;
        row->thread = s->napi_id ? s->thread_pid : -1;
        if (row->thread <= 0 || napi_thread_cpus(row->thread, &row->thread_cpus) < 0) {
                row->thread = -1; /* ended since the instance was read */
                row->thread_cpus = strdup("");
        }
        if (!row->device || !row->queue || !row->cpus || !row->rps || !row->xps || !row->state || !row->thread_cpus)
                return -ENOMEM;
        return 0;
}

int irqpin_list(IrqPin *p, IrqRow **ret, size_t *ret_n) {
        IrqRow *rows = NULL;
        size_t n = 0;
        int r = 0;

        if (!p || !ret || !ret_n)
                return -EINVAL;
        irqbalance_info(p->sysroot, &p->irqbalance);
        for (size_t i = 0; r >= 0 && i < p->n_devices; i++) {
                Device *d = &p->devices[i];
                IrqRow *a;

                if (d->flags & IFF_LOOPBACK)
                        continue;
                r = irqpin_discover(p, d, NULL);
                if (r < 0) {
                        log_debug_errno(r, "%s: cannot list its queues: %m", d->name);
                        r = 0;
                        continue;
                }
                /* Read-only: states from what the owner already knows; noticing changes is its timer's job. */
                if (d->managed)
                        irqpin_update_states(p, d);
                a = reallocarray(rows, n + d->n_slots + 1, sizeof(IrqRow));
                if (!a) {
                        r = -ENOMEM;
                        break;
                }
                rows = a;
                for (size_t j = 0; r >= 0 && j < d->n_slots; j++)
                        r = fill_row(p, d, &d->slots[j], &rows[n++]);
        }
        if (r < 0) {
                irq_rows_free(rows, n);
                return r;
        }
        *ret = rows;
        *ret_n = n;
        return 0;
}

int irqpin_steered_irqs(const IrqPin *p, int **ret, size_t *ret_n) {
        _cleanup_(freep) int *irqs = NULL;
        size_t n = 0, cap = 0;

        for (size_t i = 0; p && !p->dry_run && i < p->n_devices; i++) {
                const Device *d = &p->devices[i];
                if (!d->managed)
                        continue;
                for (size_t j = 0; j < d->n_slots; j++) {
                        const Slot *s = &d->slots[j];
                        /* The kernel places a managed IRQ itself; irqbalance leaves those alone anyway. */
                        if (!s->planned || s->irq < 0 || s->state == IRQ_STATE_KERNEL_MANAGED)
                                continue;
                        if (n == cap) {
                                int *a = realloc(irqs, (cap = cap ? 2 * cap : 16) * sizeof(int));
                                if (!a)
                                        return -ENOMEM;
                                irqs = a;
                        }
                        irqs[n++] = s->irq;
                }
        }
        *ret = TAKE_PTR(irqs);
        *ret_n = n;
        return 0;
}
