/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * bus-irq.c: ListIrqs a(ssuissss) and ListNapiThreads a(susis), both from
 * the rows manager_list_irqs() gives (one per queue; one per NAPI instance
 * through manager_napi_threads()).
 */
#include "bus-irq.h"

#include <stdlib.h>

#include "bus.h"
#include "escape.h"
#include "macro.h"

static int append_irqs(sd_bus_message *reply, const IrqRow *rows, size_t n) {
        _cleanup_(text_pool_done) TextPool t = {};
        int r;

        r = sd_bus_message_open_container(reply, 'a', "(ssuissss)");
        for (size_t i = 0; r >= 0 && i < n; i++)
                r = sd_bus_message_append(reply, "(ssuissss)", bus_text(&t, rows[i].device), rows[i].queue,
                                          rows[i].napi_id, rows[i].irq, rows[i].cpus, rows[i].rps, rows[i].xps,
                                          rows[i].state);
        if (r >= 0)
                r = sd_bus_message_close_container(reply);
        return r;
}

static int append_napi_threads(sd_bus_message *reply, const IrqRow *rows, size_t n) {
        _cleanup_(text_pool_done) TextPool t = {};
        _cleanup_(freep) NapiThread *threads = NULL;
        size_t n_threads;
        int r;

        r = manager_napi_threads(rows, n, &threads, &n_threads);
        if (r < 0)
                return r;
        r = sd_bus_message_open_container(reply, 'a', "(susis)");
        for (size_t i = 0; r >= 0 && i < n_threads; i++)
                r = sd_bus_message_append(reply, "(susis)", bus_text(&t, threads[i].device), threads[i].napi_id,
                                          threads[i].mode, threads[i].thread, threads[i].thread_cpus);
        if (r >= 0)
                r = sd_bus_message_close_container(reply);
        return r;
}

/* Both methods: the same rows, appended in one method's shape. */
static int reply_irq_rows(sd_bus_message *message, Manager *m, sd_bus_error *error,
                          int (*append)(sd_bus_message *reply, const IrqRow *rows, size_t n)) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        _cleanup_(freep) char *msg = NULL;
        IrqRow *rows = NULL;
        size_t n = 0;
        int r;

        r = manager_list_irqs(m, &rows, &n, &msg);
        if (r < 0)
                return bus_error_from_manager(error, r, msg);
        r = sd_bus_message_new_method_return(message, &reply);
        if (r >= 0)
                r = append(reply, rows, n);
        irq_rows_free(rows, n);
        if (r < 0)
                return r;
        return sd_bus_send(NULL, reply, NULL);
}

int method_list_irqs(sd_bus_message *message, void *userdata, sd_bus_error *error) {
        return reply_irq_rows(message, userdata, error, append_irqs);
}

int method_list_napi_threads(sd_bus_message *message, void *userdata, sd_bus_error *error) {
        return reply_irq_rows(message, userdata, error, append_napi_threads);
}
