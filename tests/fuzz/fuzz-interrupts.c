/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * fuzz-interrupts.c: /proc/interrupts through interrupts_parse(), then what
 * steering does with it: every handler name through irq_name_parse(), and
 * interrupts_match_device() for devices of each naming scheme. Refusals say
 * which line; matches come sorted by kind and index, one IRQ per queue, and
 * name IRQs the table has.
 */
#include <errno.h>
#include <string.h>

#include "fuzz.h"
#include "interrupts.h"
#include "macro.h"

static void match(const Interrupts *t, const DeviceIdent *dev) {
        _cleanup_(freep) QueueIrq *q = NULL;
        size_t n = 0;
        int r;

        r = interrupts_match_device(t, dev, &q, &n);
        if (r < 0) {
                fuzz_assert(r == -ENOMEM || r == -EINVAL);
                return;
        }
        fuzz_assert((n == 0) == (q == NULL));
        for (size_t i = 0; i < n; i++) {
                fuzz_assert(q[i].kind < _QUEUE_KIND_MAX);
                fuzz_assert(interrupts_find(t, q[i].irq));
                if (i > 0)
                        fuzz_assert(q[i - 1].kind < q[i].kind ||
                                    (q[i - 1].kind == q[i].kind && q[i - 1].index < q[i].index));
        }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        _cleanup_(freep) char *text = fuzz_text(data, size);
        _cleanup_(interrupts_freep) Interrupts *t = NULL;
        _cleanup_(freep) char *reason = NULL;
        unsigned msi[8];
        size_t n_msi = 0;
        int r;

        if (!text)
                return 0;
        r = interrupts_parse(text, &t, &reason);
        if (r < 0) {
                fuzz_assert(!t);
                if (r == -EBADMSG)
                        fuzz_assert(reason && strncmp(reason, "line ", 5) == 0);
                return 0;
        }
        fuzz_assert(t);
        for (size_t i = 0; i < t->n_lines; i++) {
                fuzz_assert(interrupts_find(t, t->lines[i].irq));
                for (char **a = t->lines[i].actions; a && *a; a++) {
                        IrqQueueName qn;
                        if (irq_name_parse(*a, &qn) == 0)
                                fuzz_assert(qn.kind < _QUEUE_KIND_MAX && memchr(qn.owner, 0, sizeof(qn.owner)));
                }
                if (n_msi < ELEMENTSOF(msi) && i % 2 == 0)
                        msi[n_msi++] = t->lines[i].irq;
        }
        match(t, &(DeviceIdent){ .ifname = "eth0", .driver = "igb", .bus_id = "0000:00:03.0" });
        match(t, &(DeviceIdent){ .ifname = "eth0", .driver = "ena" });
        match(t, &(DeviceIdent){ .ifname = "ens1f0", .driver = "i40e", .bus_id = "0000:3b:00.0",
                                 .msi_irqs = msi, .n_msi_irqs = n_msi });
        match(t, &(DeviceIdent){ .ifname = "eth1", .driver = "mlx5_core", .bus_id = "0000:08:00.0" });
        match(t, &(DeviceIdent){ .ifname = "ens3", .driver = "virtio_net", .virtio = "virtio0" });
        match(t, &(DeviceIdent){ .ifname = "eth2", .driver = "bnxt_en", .msi_irqs = msi, .n_msi_irqs = n_msi });
        return 0;
}
