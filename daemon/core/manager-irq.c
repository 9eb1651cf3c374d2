/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * manager-irq.c: what steering shows of the devices, for ListIrqs and
 * ListNapiThreads: irqpin's rows, and the NAPI instances among them once
 * each with their mode by name.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "knob.h"
#include "manager.h"
#include "strv.h"

int manager_list_irqs(Manager *m, IrqRow **ret, size_t *ret_n, char **ret_message) {
        if (!m->irqpin) {
                *ret_message = strdup("netpolld could not open netlink at start-up: no device information");
                return *ret_message ? -EIO : -ENOMEM;
        }
        return irqpin_list(m->irqpin, ret, ret_n);
}

int manager_napi_threads(const IrqRow *rows, size_t n, NapiThread **ret, size_t *ret_n) {
        const KnobDesc *d = &knob_catalog[KNOB_ID_NAPI_THREADED];
        NapiThread *t = calloc(n ?: 1, sizeof(NapiThread));
        size_t k = 0;

        if (!t)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++) {
                bool seen = false;

                for (size_t j = 0; j < i && !seen; j++)
                        seen = rows[j].napi_id == rows[i].napi_id && streq(rows[j].device, rows[i].device);
                if (rows[i].napi_id == 0 || seen)
                        continue;
                t[k++] = (NapiThread){
                        .device = rows[i].device,
                        .napi_id = rows[i].napi_id,
                        .mode = rows[i].threaded >= 0 && (uint64_t)rows[i].threaded <= d->max
                                        ? d->values[rows[i].threaded] : "",
                        .thread = rows[i].thread,
                        .thread_cpus = rows[i].thread_cpus,
                };
        }
        *ret = t;
        *ret_n = k;
        return 0;
}
