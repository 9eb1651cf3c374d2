/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * calls.c: netpollctl's calls of the org.netpolld1.Manager methods that
 * several verbs share (ListKnobs, GetLoad, the properties), and the reply
 * parsing they need, usable on replies of asynchronous calls too.
 * Non-logging: errors go into the sd_bus_error for ctl_bus_failed() to
 * report.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "netpollctl.h"

int ctl_call(sd_bus *bus, const char *member, sd_bus_error *error, sd_bus_message **ret_reply,
             const char *types, ...) {
        va_list ap;
        int r;

        va_start(ap, types);
        r = sd_bus_call_methodv(bus, NETPOLLD_BUS_NAME, NETPOLLD_OBJECT_PATH, NETPOLLD_INTERFACE,
                                member, error, ret_reply, types, ap);
        va_end(ap);
        return r;
}

int ctl_grow(void **p, size_t *allocated, size_t need, size_t size) {
        size_t a;
        void *q;

        if (need <= *allocated)
                return 0;
        a = MAX(need, MAX(*allocated * 2, (size_t) 8));
        q = reallocarray(*p, a, size);
        if (!q)
                return -ENOMEM;
        *p = q;
        *allocated = a;
        return 0;
}

int ctl_bad_reply(sd_bus_error *error, int r, const char *method) {
        if (r >= 0)
                r = -EBADMSG;
        /* A reply we cannot read means client and daemon disagree on the API: say which call. */
        sd_bus_error_setf(error, SD_BUS_ERROR_INCONSISTENT_MESSAGE,
                          "unexpected reply from netpolld to %s: %s", method, strerror(-r));
        return r;
}

int ctl_parse_knobs(sd_bus_message *reply, KnobInfo **ret_knobs, size_t *ret_n) {
        _cleanup_(freep) KnobInfo *knobs = NULL;
        size_t n = 0, allocated = 0;
        int r;

        r = sd_bus_message_enter_container(reply, 'a', "(ssssbss)");
        if (r < 0)
                return r;
        for (;;) {
                KnobInfo k = {};
                int supported;

                r = sd_bus_message_read(reply, "(ssssbss)", &k.name, &k.value, &k.unit, &k.origin,
                                        &supported, &k.patch, &k.summary);
                if (r < 0)
                        return r;
                if (r == 0)
                        break;
                k.supported = supported;

                r = ctl_grow((void **) &knobs, &allocated, n + 1, sizeof(KnobInfo));
                if (r < 0)
                        return r;
                knobs[n++] = k;
        }
        r = sd_bus_message_exit_container(reply);
        if (r < 0)
                return r;

        *ret_knobs = TAKE_PTR(knobs);
        *ret_n = n;
        return 0;
}

int ctl_list_knobs(sd_bus *bus, sd_bus_error *error, sd_bus_message **ret_reply,
                   KnobInfo **ret_knobs, size_t *ret_n) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        int r;

        r = ctl_call(bus, "ListKnobs", error, &reply, NULL);
        if (r < 0)
                return r;
        r = ctl_parse_knobs(reply, ret_knobs, ret_n);
        if (r < 0)
                return ctl_bad_reply(error, r, "ListKnobs");

        *ret_reply = TAKE_PTR(reply);
        return 0;
}

static const struct {
        const char *name;
        char type;
        size_t offset;
} property_table[] = {
        { "Version", 's', offsetof(Properties, version) },
        { "ActiveProfile", 's', offsetof(Properties, profile) },
        { "ActiveProfilePath", 's', offsetof(Properties, profile_path) },
        { "Mode", 's', offsetof(Properties, mode) },
        { "StateDir", 's', offsetof(Properties, state_dir) },
        { "Sysroot", 's', offsetof(Properties, sysroot) },
        { "RunqueueSource", 's', offsetof(Properties, runqueue_source) },
        { "DryRun", 'b', offsetof(Properties, dry_run) },
        { "Pressure", 'b', offsetof(Properties, pressure) },
        { "Interval", 't', offsetof(Properties, interval_us) },
        { "ActiveRule", 's', offsetof(Properties, active_rule) },
        { "RuleProfile", 's', offsetof(Properties, rule_profile) },
        { "ProfilePinned", 'b', offsetof(Properties, pinned) },
};

/* Reads one "{sv}" entry into p when it is a property we know with the documented type. */
static int read_property(sd_bus_message *m, Properties *p) {
        const char *key, *contents;
        int r;

        r = sd_bus_message_read(m, "s", &key);
        if (r < 0)
                return r;
        r = sd_bus_message_peek_type(m, NULL, &contents);
        if (r < 0)
                return r;

        for (size_t i = 0; i < ELEMENTSOF(property_table); i++) {
                if (!streq(key, property_table[i].name))
                        continue;
                if (contents[0] != property_table[i].type || contents[1])
                        return -EBADMSG;
                r = sd_bus_message_enter_container(m, 'v', contents);
                if (r >= 0)
                        r = sd_bus_message_read_basic(m, contents[0], (uint8_t *) p + property_table[i].offset);
                if (r >= 0)
                        r = sd_bus_message_exit_container(m);
                return r;
        }
        /* A property added by a newer daemon: not ours to show. */
        return sd_bus_message_skip(m, "v");
}

int ctl_parse_properties(sd_bus_message *reply, Properties *ret) {
        Properties p = PROPERTIES_INIT;
        int r;

        r = sd_bus_message_enter_container(reply, 'a', "{sv}");
        while (r >= 0 && (r = sd_bus_message_enter_container(reply, 'e', "sv")) > 0) {
                r = read_property(reply, &p);
                if (r >= 0)
                        r = sd_bus_message_exit_container(reply);
        }
        if (r >= 0)
                r = sd_bus_message_exit_container(reply);
        if (r < 0)
                return r;

        *ret = p;
        return 0;
}

int ctl_get_properties(sd_bus *bus, sd_bus_error *error, sd_bus_message **ret_reply, Properties *ret) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        int r;

        r = sd_bus_call_method(bus, NETPOLLD_BUS_NAME, NETPOLLD_OBJECT_PATH,
                               "org.freedesktop.DBus.Properties", "GetAll", error, &reply,
                               "s", NETPOLLD_INTERFACE);
        if (r < 0)
                return r;
        r = ctl_parse_properties(reply, ret);
        if (r < 0)
                return ctl_bad_reply(error, r, "GetAll");

        *ret_reply = TAKE_PTR(reply);
        return 0;
}

void load_info_done(LoadInfo *l) {
        if (!l)
                return;
        free(l->cpus);
        *l = (LoadInfo) {};
}

int ctl_parse_load(sd_bus_message *reply, LoadInfo *ret) {
        _cleanup_(freep) CpuLoad *cpus = NULL;
        size_t n = 0, allocated = 0;
        const char *source;
        int psi, r;

        r = sd_bus_message_read(reply, "sb", &source, &psi);
        if (r >= 0)
                r = sd_bus_message_enter_container(reply, 'a', "(utttttt)");
        while (r >= 0) {
                CpuLoad c;

                r = sd_bus_message_read(reply, "(utttttt)", &c.cpu, &c.runnable_milli, &c.net_rx, &c.net_tx,
                                        &c.processed, &c.squeeze, &c.drops);
                if (r <= 0)
                        break;
                r = ctl_grow((void **) &cpus, &allocated, n + 1, sizeof(CpuLoad));
                if (r >= 0)
                        cpus[n++] = c;
        }
        if (r >= 0)
                r = sd_bus_message_exit_container(reply);
        if (r < 0)
                return r;

        *ret = (LoadInfo) {
                .source = source,
                .psi = psi,
                .cpus = TAKE_PTR(cpus),
                .n_cpus = n,
        };
        return 0;
}

int ctl_get_load(sd_bus *bus, sd_bus_error *error, sd_bus_message **ret_reply, LoadInfo *ret) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        int r;

        r = ctl_call(bus, "GetLoad", error, &reply, NULL);
        if (r < 0)
                return r;
        r = ctl_parse_load(reply, ret);
        if (r < 0)
                return ctl_bad_reply(error, r, "GetLoad");

        *ret_reply = TAKE_PTR(reply);
        return 0;
}

int ctl_get_other_owners(sd_bus *bus, const char *name, sd_bus_error *error, sd_bus_message **ret_reply,
                         OwnerRow **ret_rows, size_t *ret_n) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        _cleanup_(freep) OwnerRow *rows = NULL;
        size_t n = 0, allocated = 0;
        int r;

        r = ctl_call(bus, "GetOtherOwners", error, &reply, "s", name);
        if (r < 0 && sd_bus_error_has_name(error, SD_BUS_ERROR_UNKNOWN_METHOD)) {
                sd_bus_error_free(error);
                *ret_reply = NULL;
                *ret_rows = NULL;
                *ret_n = 0;
                return 0;
        }
        if (r < 0)
                return r;
        r = sd_bus_message_enter_container(reply, 'a', "(sssss)");
        while (r > 0) {
                OwnerRow o;

                r = sd_bus_message_read(reply, "(sssss)", &o.target, &o.value, &o.kind, &o.where, &o.note);
                if (r > 0) {
                        r = ctl_grow((void **)&rows, &allocated, n + 1, sizeof(OwnerRow));
                        if (r >= 0) {
                                rows[n++] = o;
                                r = 1;
                        }
                }
        }
        if (r >= 0)
                r = sd_bus_message_exit_container(reply);
        if (r < 0)
                return ctl_bad_reply(error, r, "GetOtherOwners");
        *ret_reply = TAKE_PTR(reply);
        *ret_rows = TAKE_PTR(rows);
        *ret_n = n;
        return 0;
}

const char *ctl_owner_text(const OwnerRow *o, char *buf, size_t size) {
        if (!o->kind[0])
                snprintf(buf, size, "unknown (no sysctl.d line, tuned profile or irqbalance sets it)");
        else
                snprintf(buf, size, "%s %s%s%s%s", o->kind, o->where, o->note[0] ? " (" : "", o->note,
                         o->note[0] ? ")" : "");
        return buf;
}

int ctl_json_owners(json_object *x, const char *target, const OwnerRow *rows, size_t n) {
        json_object *a = json_object_new_array();
        int r = a ? json_add(x, "owners", a) : -ENOMEM;

        for (size_t i = 0; r >= 0 && i < n; i++) {
                json_object *o;

                if (!streq(rows[i].target, target) || !rows[i].kind[0])
                        continue;
                o = json_object_new_object();
                r = o ? json_add(a, NULL, o) : -ENOMEM;
                if (r >= 0)
                        r = json_add_string(o, "kind", rows[i].kind);
                if (r >= 0)
                        r = json_add_string(o, "where", rows[i].where);
                if (r >= 0)
                        r = json_add_string(o, "note", rows[i].note);
        }
        return r;
}
