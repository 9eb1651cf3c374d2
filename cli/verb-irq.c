/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * verb-irq.c: netpollctl irq: every network queue with its NAPI instance,
 * IRQ, the IRQ's CPUs, RPS and XPS masks and steering state, from ListIrqs
 * (a(ssuissss): device, queue, napi id (0: none), irq (-1: none), cpus,
 * rps, xps, state), and each NAPI instance's napi-threaded mode and kernel
 * thread from ListNapiThreads (a(susis): device, napi id, mode ("" unknown),
 * thread pid (-1: none), the thread's CPUs).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "netpollctl.h"
#include "table.h"

typedef struct IrqInfo {
        const char *device;
        const char *queue;
        uint32_t napi_id;
        int32_t irq;
        const char *cpus;
        const char *rps;
        const char *xps;
        const char *state;
        /* From ListNapiThreads; NULL/-1 when the instance has none or the daemon predates it. */
        const char *mode;
        int32_t thread;
        const char *thread_cpus;
} IrqInfo;

/* Joins ListNapiThreads' rows into l by (device, napi id); the strings stay reply's. */
static int parse_threads(sd_bus_message *reply, IrqInfo *l, size_t n) {
        int r;

        r = sd_bus_message_enter_container(reply, 'a', "(susis)");
        if (r < 0)
                return r;
        for (;;) {
                const char *device, *mode, *cpus;
                uint32_t napi_id;
                int32_t pid;

                r = sd_bus_message_read(reply, "(susis)", &device, &napi_id, &mode, &pid, &cpus);
                if (r < 0)
                        return r;
                if (r == 0)
                        break;
                for (size_t i = 0; i < n; i++)
                        if (l[i].napi_id == napi_id && streq(l[i].device, device)) {
                                l[i].mode = mode;
                                l[i].thread = pid;
                                l[i].thread_cpus = cpus;
                        }
        }
        return sd_bus_message_exit_container(reply);
}

/* *ret (free()) borrows the strings of reply. */
static int parse_irqs(sd_bus_message *reply, IrqInfo **ret, size_t *ret_n) {
        _cleanup_(freep) IrqInfo *l = NULL;
        size_t n = 0, allocated = 0;
        int r;

        r = sd_bus_message_enter_container(reply, 'a', "(ssuissss)");
        if (r < 0)
                return r;
        for (;;) {
                IrqInfo i = { .thread = -1 };

                r = sd_bus_message_read(reply, "(ssuissss)", &i.device, &i.queue, &i.napi_id, &i.irq, &i.cpus,
                                        &i.rps, &i.xps, &i.state);
                if (r < 0)
                        return r;
                if (r == 0)
                        break;
                r = ctl_grow((void **) &l, &allocated, n + 1, sizeof(IrqInfo));
                if (r < 0)
                        return r;
                l[n++] = i;
        }
        r = sd_bus_message_exit_container(reply);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(l);
        *ret_n = n;
        return 0;
}

static int print_table(const IrqInfo *l, size_t n) {
        static const char *const headers[] = { "device", "queue", "napi", "irq",    "cpus",   "rps",
                                               "xps",    "mode",  "thread", "thread-cpus", "state" };
        _cleanup_(table_freep) Table *t = NULL;
        int r;

        r = table_new(&t, ELEMENTSOF(headers), headers);
        if (r < 0)
                return r;
        for (size_t i = 0; i < n; i++) {
                char napi[16] = "", irq[16] = "", thread[16] = "";

                /* An empty cell prints as "-": no NAPI instance, no IRQ of its own, not an rx/tx queue. */
                if (l[i].napi_id)
                        snprintf(napi, sizeof(napi), "%" PRIu32, l[i].napi_id);
                if (l[i].irq >= 0)
                        snprintf(irq, sizeof(irq), "%" PRIi32, l[i].irq);
                if (l[i].thread > 0)
                        snprintf(thread, sizeof(thread), "%" PRIi32, l[i].thread);
                r = table_add_cells(t, l[i].device, l[i].queue, napi, irq, l[i].cpus, l[i].rps, l[i].xps,
                                    strempty(l[i].mode), thread, strempty(l[i].thread_cpus), l[i].state);
                if (r < 0)
                        return r;
        }
        return table_print(t, stdout);
}

/* "" and the sentinels become null: scripts test for absence, not for magic values. */
static int add_entry(json_object *array, const IrqInfo *i) {
        json_object *o = json_object_new_object();
        int r;

        r = o ? json_add(array, NULL, o) : -ENOMEM;
        if (r >= 0)
                r = json_add_string(o, "device", i->device);
        if (r >= 0)
                r = json_add_string(o, "queue", i->queue);
        if (r >= 0)
                r = i->napi_id ? json_add_int(o, "napi_id", i->napi_id) : json_add(o, "napi_id", NULL);
        if (r >= 0)
                r = i->irq >= 0 ? json_add_int(o, "irq", i->irq) : json_add(o, "irq", NULL);
        if (r >= 0)
                r = json_add_string(o, "cpus", i->cpus[0] ? i->cpus : NULL);
        if (r >= 0)
                r = json_add_string(o, "rps", i->rps[0] ? i->rps : NULL);
        if (r >= 0)
                r = json_add_string(o, "xps", i->xps[0] ? i->xps : NULL);
        if (r >= 0)
                r = json_add_string(o, "napi_mode", i->mode && i->mode[0] ? i->mode : NULL);
        if (r >= 0)
                r = i->thread > 0 ? json_add_int(o, "napi_thread", i->thread) : json_add(o, "napi_thread", NULL);
        if (r >= 0)
                r = json_add_string(o, "napi_thread_cpus",
                                    i->thread_cpus && i->thread_cpus[0] ? i->thread_cpus : NULL);
        if (r >= 0)
                r = json_add_string(o, "state", i->state);
        return r;
}

CtlStatus verb_irq(int argc, char **argv) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL, *threads = NULL;
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        _cleanup_(json_object_putp) json_object *array = NULL;
        _cleanup_(freep) IrqInfo *l = NULL;
        size_t n = 0;
        int r;

        if (ctl_open_bus(&bus) < 0)
                return CTL_FAILED;
        r = ctl_call(bus, "ListIrqs", &error, &reply, NULL);
        if (r < 0)
                return ctl_bus_failed(&error, r);
        r = parse_irqs(reply, &l, &n);
        if (r < 0) {
                ctl_bad_reply(&error, r, "ListIrqs");
                return ctl_bus_failed(&error, r);
        }
        r = ctl_call(bus, "ListNapiThreads", &error, &threads, NULL);
        if (r < 0 && !sd_bus_error_has_name(&error, SD_BUS_ERROR_UNKNOWN_METHOD))
                return ctl_bus_failed(&error, r);
        sd_bus_error_free(&error); /* a netpolld before ListNapiThreads: no modes to show */
        if (r >= 0) {
                r = parse_threads(threads, l, n);
                if (r < 0) {
                        ctl_bad_reply(&error, r, "ListNapiThreads");
                        return ctl_bus_failed(&error, r);
                }
        }

        if (!arg_json) {
                r = print_table(l, n);
                return r < 0 ? ctl_failed(r, "cannot print the IRQ table") : CTL_OK;
        }
        array = json_object_new_array();
        if (!array)
                return ctl_failed(-ENOMEM, "cannot build the JSON output");
        for (size_t i = 0; i < n; i++) {
                r = add_entry(array, &l[i]);
                if (r < 0)
                        return ctl_failed(r, "cannot build the JSON output");
        }
        r = ctl_print_json(array, true);
        return r < 0 ? ctl_failed(r, "cannot print the JSON output") : CTL_OK;
}
