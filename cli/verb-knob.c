/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * verb-knob.c: the netpollctl verbs about knobs: list, get, set and reset.
 * Names and values go to the daemon as typed; it owns the catalog and the
 * validation. Only the command-line syntax (pairs, --all) is checked here.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "netpollctl.h"
#include "table.h"

CtlStatus verb_list(int argc, char **argv) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        _cleanup_(json_object_putp) json_object *array = NULL;
        _cleanup_(freep) KnobInfo *knobs = NULL;
        size_t n;
        int r;

        if (ctl_open_bus(&bus) < 0)
                return CTL_FAILED;
        r = ctl_list_knobs(bus, &error, &reply, &knobs, &n);
        if (r < 0)
                return ctl_bus_failed(&error, r);

        if (!arg_json) {
                r = ctl_print_knob_table(knobs, n);
                return r < 0 ? ctl_failed(r, "cannot print the knob table") : CTL_OK;
        }

        array = json_object_new_array();
        if (!array)
                return ctl_failed(-ENOMEM, "cannot build the JSON output");
        for (size_t i = 0; i < n; i++) {
                json_object *o = json_object_new_object();

                r = o ? json_add(array, NULL, o) : -ENOMEM;
                if (r >= 0)
                        r = json_add_string(o, "name", knobs[i].name);
                if (r >= 0)
                        r = json_add_string(o, "value", knobs[i].value);
                if (r >= 0)
                        r = json_add_string(o, "unit", knobs[i].unit);
                if (r >= 0)
                        r = json_add_string(o, "origin", knobs[i].origin);
                if (r >= 0)
                        r = json_add_bool(o, "supported", knobs[i].supported);
                if (r >= 0)
                        r = json_add_string(o, "patch", knobs[i].patch);
                if (r >= 0)
                        r = json_add_string(o, "summary", knobs[i].summary);
                if (r < 0)
                        return ctl_failed(r, "cannot build the JSON output");
        }
        r = ctl_print_json(array, true);
        return r < 0 ? ctl_failed(r, "cannot print the JSON output") : CTL_OK;
}

CtlStatus verb_get(int argc, char **argv) {
        static const char *const headers[] = { "knob", "value", "origin" };
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        _cleanup_(json_object_putp) json_object *array = NULL;
        _cleanup_(table_freep) Table *t = NULL;
        int r;

        r = arg_json ? ((array = json_object_new_array()) ? 0 : -ENOMEM)
                     : table_new(&t, ELEMENTSOF(headers), headers);
        if (r < 0)
                return ctl_failed(r, "cannot build the output");

        if (ctl_open_bus(&bus) < 0)
                return CTL_FAILED;

        /* All or nothing: a bad name anywhere prints no partial table. */
        for (int i = 1; i < argc; i++) {
                _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
                const char *value, *origin;

                r = ctl_call(bus, "GetKnob", &error, &reply, "s", argv[i]);
                if (r < 0)
                        return ctl_bus_failed(&error, r);
                r = sd_bus_message_read(reply, "ss", &value, &origin);
                if (r < 0)
                        return ctl_bus_failed(&error, ctl_bad_reply(&error, r, "GetKnob"));

                if (t)
                        r = table_add_cells(t, argv[i], value, origin);
                else {
                        json_object *o = json_object_new_object();

                        r = o ? json_add(array, NULL, o) : -ENOMEM;
                        if (r >= 0)
                                r = json_add_string(o, "name", argv[i]);
                        if (r >= 0)
                                r = json_add_string(o, "value", value);
                        if (r >= 0)
                                r = json_add_string(o, "origin", origin);
                }
                if (r < 0)
                        return ctl_failed(r, "cannot build the output");
        }

        r = t ? table_print(t, stdout) : ctl_print_json(array, true);
        return r < 0 ? ctl_failed(r, "cannot print the output") : CTL_OK;
}

/* Prints what set or reset did: "NAME VERB to VALUE" lines, or the JSON array of {name, value}. */
static int print_changes(json_object *array, const char *name, const char *value, const char *verb) {
        json_object *o;
        int r;

        if (!arg_json) {
                printf("%s %s to %s\n", name, verb, value);
                return 0;
        }

        o = json_object_new_object();
        if (!o)
                return -ENOMEM;
        r = json_add(array, NULL, o);
        if (r >= 0)
                r = json_add_string(o, "name", name);
        if (r >= 0)
                r = json_add_string(o, "value", value);
        return r;
}

CtlStatus verb_set(int argc, char **argv) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL, *reply = NULL;
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        _cleanup_(json_object_putp) json_object *array = NULL;
        const char *name, *value;
        int r;

        if ((argc - 1) % 2 != 0)
                return ctl_usage_error("set takes KNOB VALUE pairs; no value given for '%s'", argv[argc - 1]);

        if (arg_json) {
                array = json_object_new_array();
                if (!array)
                        return ctl_failed(-ENOMEM, "cannot build the JSON output");
        }

        if (ctl_open_bus(&bus) < 0)
                return CTL_FAILED;

        /* One SetKnobs call: the daemon checks every pair before it changes anything. */
        r = sd_bus_message_new_method_call(bus, &m, NETPOLLD_BUS_NAME, NETPOLLD_OBJECT_PATH,
                                           NETPOLLD_INTERFACE, "SetKnobs");
        if (r >= 0)
                r = sd_bus_message_open_container(m, 'a', "(ss)");
        for (int i = 1; r >= 0 && i + 1 < argc; i += 2)
                r = sd_bus_message_append(m, "(ss)", argv[i], argv[i + 1]);
        if (r >= 0)
                r = sd_bus_message_close_container(m);
        if (r < 0)
                return ctl_failed(r, "cannot build the SetKnobs call");

        r = sd_bus_call(bus, m, 0, &error, &reply);
        if (r < 0)
                return ctl_bus_failed(&error, r);

        r = sd_bus_message_enter_container(reply, 'a', "(ss)");
        while (r >= 0 && (r = sd_bus_message_read(reply, "(ss)", &name, &value)) > 0) {
                r = print_changes(array, name, value, "set");
                if (r < 0)
                        return ctl_failed(r, "cannot build the JSON output");
        }
        if (r >= 0)
                r = sd_bus_message_exit_container(reply);
        if (r < 0)
                return ctl_bus_failed(&error, ctl_bad_reply(&error, r, "SetKnobs"));

        if (array) {
                r = ctl_print_json(array, true);
                if (r < 0)
                        return ctl_failed(r, "cannot print the JSON output");
        }
        return CTL_OK;
}

/* Whether reset --all takes this knob back: only what netpolld does not already follow the profile for. */
static bool origin_needs_reset(const char *origin) {
        return streq(origin, "manual") || streq(origin, "adaptive") || streq(origin, "external");
}

static CtlStatus reset_one(sd_bus *bus, const char *name, json_object *array) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        const char *value;
        int r;

        r = ctl_call(bus, "ResetKnob", &error, &reply, "s", name);
        if (r < 0)
                return ctl_bus_failed(&error, r);
        r = sd_bus_message_read(reply, "s", &value);
        if (r < 0)
                return ctl_bus_failed(&error, ctl_bad_reply(&error, r, "ResetKnob"));

        r = print_changes(array, name, value, "reset");
        if (r < 0)
                return ctl_failed(r, "cannot build the JSON output");
        /* Each line is a change already made: let a reader see it even if a later one fails. */
        fflush(stdout);
        return CTL_OK;
}

CtlStatus verb_reset(int argc, char **argv) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *list_reply = NULL;
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        _cleanup_(json_object_putp) json_object *array = NULL;
        _cleanup_(freep) KnobInfo *knobs = NULL;
        CtlStatus s = CTL_OK;
        size_t n = 0;
        int r;

        if (arg_all && argc > 1)
                return ctl_usage_error("reset takes either KNOB names or --all, not both");
        if (!arg_all && argc < 2)
                return ctl_usage_error("reset needs KNOB names or --all");

        if (arg_json) {
                array = json_object_new_array();
                if (!array)
                        return ctl_failed(-ENOMEM, "cannot build the JSON output");
        }

        if (ctl_open_bus(&bus) < 0)
                return CTL_FAILED;

        if (arg_all) {
                r = ctl_list_knobs(bus, &error, &list_reply, &knobs, &n);
                if (r < 0)
                        return ctl_bus_failed(&error, r);
                for (size_t i = 0; s == CTL_OK && i < n; i++)
                        if (origin_needs_reset(knobs[i].origin))
                                s = reset_one(bus, knobs[i].name, array);
        } else {
                /* There is no batch reset: ask for every name first so that a typo resets nothing. */
                for (int i = 1; i < argc; i++) {
                        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;

                        r = ctl_call(bus, "GetKnob", &error, &reply, "s", argv[i]);
                        if (r < 0)
                                return ctl_bus_failed(&error, r);
                }
                for (int i = 1; s == CTL_OK && i < argc; i++)
                        s = reset_one(bus, argv[i], array);
        }

        /* Print what was done even when a later reset failed: those changes are real. */
        if (array) {
                r = ctl_print_json(array, true);
                if (r < 0 && s == CTL_OK)
                        s = ctl_failed(r, "cannot print the JSON output");
        }
        return s;
}
