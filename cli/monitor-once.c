/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * monitor-once.c: netpollctl monitor --once: one monitor screen as plain
 * text (no terminal codes), or with --json one document with the same data,
 * from synchronous GetAll, GetLoad and ListKnobs calls. What scripts and
 * tests use.
 */
#include <errno.h>
#include <stdio.h>
#include <time.h>

#include "format.h"
#include "monitor.h"
#include "screen.h"

/* Calls GetLoad; 0 with *ret_note set (free()) when the daemon says it cannot report the load. */
static int get_load(sd_bus *bus, sd_bus_error *error, sd_bus_message **ret_reply, LoadInfo *ret,
                    char **ret_note) {
        int r = ctl_get_load(bus, error, ret_reply, ret), k;

        if (r >= 0 || !sd_bus_error_is_set(error))
                return r;
        k = screen_load_note(error->name, error->message, ret_note);
        if (k == 0)
                return r;
        /* Either way the daemon's error is dealt with: shown as the note, or replaced by ours. */
        sd_bus_error_free(error);
        return k < 0 ? k : 0;
}

static int add_cpus(json_object *o, const LoadInfo *load) {
        json_object *cpus = json_object_new_array();
        int r;

        r = cpus ? json_add(o, "cpus", cpus) : -ENOMEM;
        for (size_t i = 0; r >= 0 && i < load->n_cpus; i++) {
                const CpuLoad *c = &load->cpus[i];
                json_object *e = json_object_new_object(), *runnable;
                char buf[32];

                r = e ? json_add(cpus, NULL, e) : -ENOMEM;
                if (r >= 0)
                        r = json_add_int(e, "cpu", c->cpu);
                if (r >= 0) {
                        /* Written as formatted ("1.25"), not as the nearest double's 17 digits. */
                        format_milli(buf, sizeof(buf), c->runnable_milli);
                        runnable = json_object_new_double_s((double) c->runnable_milli / 1000, buf);
                        r = runnable ? json_add(e, "runnable", runnable) : -ENOMEM;
                }
                if (r >= 0)
                        r = json_add_int(e, "net_rx_per_s", (int64_t) c->net_rx);
                if (r >= 0)
                        r = json_add_int(e, "net_tx_per_s", (int64_t) c->net_tx);
                if (r >= 0)
                        r = json_add_int(e, "processed_per_s", (int64_t) c->processed);
                if (r >= 0)
                        r = json_add_int(e, "squeeze_per_s", (int64_t) c->squeeze);
                if (r >= 0)
                        r = json_add_int(e, "drops_per_s", (int64_t) c->drops);
        }
        return r;
}

static int print_json(const Properties *p, const LoadInfo *load, const char *load_note,
                      const KnobInfo *knobs, size_t n_knobs) {
        _cleanup_(json_object_putp) json_object *o = json_object_new_object();
        json_object *array;
        int r;

        if (!o)
                return -ENOMEM;
        r = json_add_schema(o, "monitor-once");
        if (r >= 0)
                r = json_add_string(o, "profile", p->profile);
        if (r >= 0)
                r = json_add_string(o, "mode", p->mode);
        if (r >= 0)
                r = json_add_string(o, "runqueue_source", p->runqueue_source ?: load->source);
        if (r >= 0)
                r = p->pressure >= 0 ? json_add_bool(o, "pressure", p->pressure)
                    : load_note ? json_add(o, "pressure", NULL)
                    : json_add_bool(o, "pressure", load->psi);
        if (r >= 0)
                r = load_note ? json_add(o, "cpus", NULL) : add_cpus(o, load);
        if (r >= 0)
                r = json_add_string(o, "load_error", load_note);
        if (r < 0)
                return r;

        array = json_object_new_array();
        r = array ? json_add(o, "knobs", array) : -ENOMEM;
        for (size_t i = 0; r >= 0 && i < n_knobs; i++) {
                json_object *k;

                if (!knobs[i].supported)
                        continue;
                k = json_object_new_object();
                r = k ? json_add(array, NULL, k) : -ENOMEM;
                if (r >= 0)
                        r = json_add_string(k, "name", knobs[i].name);
                if (r >= 0)
                        r = json_add_string(k, "value", knobs[i].value);
                if (r >= 0)
                        r = json_add_string(k, "origin", knobs[i].origin);
        }
        if (r < 0)
                return r;
        return ctl_print_json(o, true);
}

CtlStatus monitor_once(void) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *props_reply = NULL, *load_reply = NULL,
                *knobs_reply = NULL;
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        _cleanup_(load_info_done) LoadInfo load = {};
        _cleanup_(freep) KnobInfo *knobs = NULL;
        Properties p = PROPERTIES_INIT;
        _cleanup_(freep) char *load_note = NULL;
        size_t n_knobs;
        int r;

        if (ctl_open_bus(&bus) < 0)
                return CTL_FAILED;

        r = ctl_get_properties(bus, &error, &props_reply, &p);
        if (r < 0)
                return ctl_bus_failed(&error, r);

        r = get_load(bus, &error, &load_reply, &load, &load_note);
        if (r < 0)
                return ctl_bus_failed(&error, r);
        /*
         * Without the controller running the daemon samples when asked, so this
         * first answer covers the time since anybody last asked (zeros if nobody
         * did). A second sample a second later gives rates over that second.
         */
        if (!load_note && !streq_ptr(p.mode, "adaptive")) {
                const struct timespec second = { .tv_sec = 1 };

                load_info_done(&load);
                load_reply = sd_bus_message_unref(load_reply);
                (void) nanosleep(&second, NULL);
                r = get_load(bus, &error, &load_reply, &load, &load_note);
                if (r < 0)
                        return ctl_bus_failed(&error, r);
        }

        r = ctl_list_knobs(bus, &error, &knobs_reply, &knobs, &n_knobs);
        if (r < 0)
                return ctl_bus_failed(&error, r);

        if (arg_json)
                r = print_json(&p, &load, load_note, knobs, n_knobs);
        else {
                Screen s = {
                        .profile = p.profile,
                        .mode = p.mode,
                        .source = p.runqueue_source ?: load.source,
                        .pressure = p.pressure >= 0 || load_note ? p.pressure : load.psi,
                        .cpus = load.cpus,
                        .n_cpus = load.n_cpus,
                        .load_note = load_note,
                        .knobs = knobs,
                        .n_knobs = n_knobs,
                };

                r = screen_render(&s, stdout);
        }
        return r < 0 ? ctl_failed(r, "cannot print the monitor screen") : CTL_OK;
}
