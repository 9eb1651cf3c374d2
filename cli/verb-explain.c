/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * verb-explain.c: netpollctl explain KNOB[@DEV[:INSTANCE]]: why a knob holds
 * its value, from the Explain method (docs/dbus.md): the value now, each
 * layer's wish and the winner, per kernel value the journal's original and
 * what stop writes, outside changes, the controller's last decisions and
 * what the kernel lacks. A table by default, JSON (schema explain) with --json.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "format.h"
#include "netpollctl.h"
#include "table.h"

/* The reply's parts; strings belong to the reply message. */
typedef struct Wish {
        const char *target, *layer, *value, *source;
        bool wins;
} Wish;

typedef struct Value {
        const char *target, *key, *value, *origin, *original, *at_stop;
        bool outside;
        const char *outside_was, *outside_found;
        uint64_t outside_at_ms;
} Value;

typedef struct Decision {
        uint64_t at_ms;
        const char *old_value, *new_value, *reason;
} Decision;

typedef struct Explained {
        const char *name, *value, *unit, *origin, *needs, *summary, *rollback;
        bool supported;
        Wish *wishes;
        size_t n_wishes;
        Value *values;
        size_t n_values;
        Decision *decisions;
        size_t n_decisions;
        OwnerRow *owners; /* GetOtherOwners' rows for the name */
        size_t n_owners;
} Explained;

static void explained_done(Explained *e) {
        free(e->wishes);
        free(e->values);
        free(e->decisions);
        free(e->owners);
}

static int read_wish(sd_bus_message *reply, void *item) {
        Wish *w = item;
        return sd_bus_message_read(reply, "(ssssb)", &w->target, &w->layer, &w->value, &w->source, &w->wins);
}

static int read_value(sd_bus_message *reply, void *item) {
        Value *v = item;
        return sd_bus_message_read(reply, "(ssssssbsst)", &v->target, &v->key, &v->value, &v->origin, &v->original,
                                   &v->at_stop, &v->outside, &v->outside_was, &v->outside_found, &v->outside_at_ms);
}

static int read_decision(sd_bus_message *reply, void *item) {
        Decision *d = item;
        return sd_bus_message_read(reply, "(tsss)", &d->at_ms, &d->old_value, &d->new_value, &d->reason);
}

/* Reads an array of structs `contents` into *items (size bytes each) with read_one. */
static int read_array(sd_bus_message *reply, const char *contents, int (*read_one)(sd_bus_message *, void *),
                      void **items, size_t *n, size_t size) {
        size_t allocated = 0;
        int r;

        r = sd_bus_message_enter_container(reply, 'a', contents);
        while (r > 0) {
                r = ctl_grow(items, &allocated, *n + 1, size);
                if (r < 0)
                        return r;
                r = read_one(reply, (char *)*items + *n * size);
                if (r > 0)
                        (*n)++;
        }
        return r < 0 ? r : sd_bus_message_exit_container(reply);
}

static int parse_reply(sd_bus_message *reply, Explained *e) {
        int r;

        r = sd_bus_message_read(reply, "ssssbsss", &e->name, &e->value, &e->unit, &e->origin, &e->supported,
                                &e->needs, &e->summary, &e->rollback);
        if (r >= 0)
                r = read_array(reply, "(ssssb)", read_wish, (void **)&e->wishes, &e->n_wishes, sizeof(Wish));
        if (r >= 0)
                r = read_array(reply, "(ssssssbsst)", read_value, (void **)&e->values, &e->n_values, sizeof(Value));
        if (r >= 0)
                r = read_array(reply, "(tsss)", read_decision, (void **)&e->decisions, &e->n_decisions,
                               sizeof(Decision));
        return r;
}

/* What stop does with a value, in words. */
static const char *at_stop_text(const Explained *e, const Value *v, char *buf, size_t size) {
        if (v->at_stop[0])
                snprintf(buf, size, "writes %s (the original)", v->at_stop);
        else if (v->outside)
                snprintf(buf, size, "leaves it (changed outside netpolld)");
        else if (v->original[0])
                snprintf(buf, size, "leaves it (rollback = %s)", e->rollback);
        else
                snprintf(buf, size, "leaves it (netpolld did not change it)");
        return buf;
}

static int print_table(const Explained *e) {
        static const char *const wish_headers[] = { "target", "layer", "value", "from", "wins" };
        static const char *const value_headers[] = { "target", "now", "origin", "original", "at stop" };
        _cleanup_(table_freep) Table *wishes = NULL, *values = NULL;
        char buf[512];
        int r;

        printf("%s: %s (%s)\n", e->name, e->value[0] ? e->value : "(no value)", e->origin);
        if (e->summary[0])
                printf("  %s\n", e->summary);
        printf("Kernel: %s%s\n", e->supported ? "yes" : "no, needs ", e->supported ? "" : e->needs[0] ? e->needs : "?");

        r = table_new(&wishes, ELEMENTSOF(wish_headers), wish_headers);
        for (size_t i = 0; r >= 0 && i < e->n_wishes; i++) {
                const Wish *w = &e->wishes[i];
                r = table_add_cells(wishes, w->target, w->layer, w->value, w->source, w->wins ? "yes" : "no");
        }
        if (r < 0)
                return r;
        printf("\nWishes, highest layer first:\n");
        if (e->n_wishes == 0)
                printf("  none: netpolld leaves the value as it found it\n");
        else if (table_print(wishes, stdout) < 0)
                return -EIO;

        r = table_new(&values, ELEMENTSOF(value_headers), value_headers);
        for (size_t i = 0; r >= 0 && i < e->n_values; i++) {
                const Value *v = &e->values[i];
                r = table_add_cells(values, v->target, v->value[0] ? v->value : "?", v->origin,
                                    v->original[0] ? v->original : "-", at_stop_text(e, v, buf, sizeof(buf)));
        }
        if (r < 0)
                return r;
        if (e->n_values > 0) {
                printf("\nKernel values and the restore journal (stop with rollback = %s):\n", e->rollback);
                if (table_print(values, stdout) < 0)
                        return -EIO;
        }

        for (size_t i = 0; i < e->n_values; i++) {
                const Value *v = &e->values[i];
                char when[32];

                if (!v->outside)
                        continue;
                printf("\nOutside change: %s was %s by netpolld's doing, found %s at %s; left alone until "
                       "'netpollctl reset %s'\n", v->target, v->outside_was[0] ? v->outside_was : "?",
                       v->outside_found[0] ? v->outside_found : "?", format_time_ms(when, sizeof(when), v->outside_at_ms),
                       v->target);
        }

        for (size_t i = 0; i < e->n_owners; i++) {
                const OwnerRow *o = &e->owners[i];
                bool first = i == 0 || !streq(e->owners[i - 1].target, o->target);

                printf("%s%s %s: %s\n", first ? "\nSet by (most likely first): " : "  or: ", o->target,
                       o->value[0] ? o->value : "?", ctl_owner_text(o, buf, sizeof(buf)));
        }

        printf("\nController decisions (the last %zu kept):\n", e->n_decisions);
        if (e->n_decisions == 0)
                printf("  none\n");
        for (size_t i = 0; i < e->n_decisions; i++) {
                const Decision *d = &e->decisions[i];
                printf("  %s\n", format_decision(buf, sizeof(buf), e->name, d->old_value, d->new_value, d->at_ms,
                                                 d->reason));
        }
        return fflush(stdout) == 0 ? 0 : -EIO;
}

static int json_wishes(json_object *o, const Explained *e) {
        json_object *a = json_object_new_array();
        int r = a ? json_add(o, "wishes", a) : -ENOMEM;

        for (size_t i = 0; r >= 0 && i < e->n_wishes; i++) {
                const Wish *w = &e->wishes[i];
                json_object *x = json_object_new_object();

                r = x ? json_add(a, NULL, x) : -ENOMEM;
                if (r >= 0)
                        r = json_add_string(x, "target", w->target);
                if (r >= 0)
                        r = json_add_string(x, "layer", w->layer);
                if (r >= 0)
                        r = json_add_string(x, "value", w->value);
                if (r >= 0)
                        r = json_add_string(x, "source", w->source);
                if (r >= 0)
                        r = json_add_bool(x, "wins", w->wins);
        }
        return r;
}

static int json_values(json_object *o, const Explained *e) {
        json_object *a = json_object_new_array();
        int r = a ? json_add(o, "values", a) : -ENOMEM;

        for (size_t i = 0; r >= 0 && i < e->n_values; i++) {
                const Value *v = &e->values[i];
                json_object *x = json_object_new_object(), *out = NULL;

                r = x ? json_add(a, NULL, x) : -ENOMEM;
                if (r >= 0)
                        r = json_add_string(x, "target", v->target);
                if (r >= 0)
                        r = json_add_string(x, "key", v->key);
                if (r >= 0)
                        r = json_add_string(x, "value", v->value);
                if (r >= 0)
                        r = json_add_string(x, "origin", v->origin);
                if (r >= 0)
                        r = json_add_string(x, "original", v->original[0] ? v->original : NULL);
                if (r >= 0)
                        r = json_add_string(x, "at_stop", v->at_stop[0] ? v->at_stop : NULL);
                if (r >= 0 && v->outside) {
                        out = json_object_new_object();
                        r = out ? json_add(x, "outside_change", out) : -ENOMEM;
                        if (r >= 0)
                                r = json_add_string(out, "was", v->outside_was);
                        if (r >= 0)
                                r = json_add_string(out, "found", v->outside_found);
                        if (r >= 0)
                                r = json_add_int(out, "at_ms", (int64_t)v->outside_at_ms);
                } else if (r >= 0)
                        r = json_add(x, "outside_change", NULL);
                if (r >= 0)
                        r = ctl_json_owners(x, v->target, e->owners, e->n_owners);
        }
        return r;
}

static int json_decisions(json_object *o, const Explained *e) {
        json_object *a = json_object_new_array();
        int r = a ? json_add(o, "decisions", a) : -ENOMEM;

        for (size_t i = 0; r >= 0 && i < e->n_decisions; i++) {
                const Decision *d = &e->decisions[i];
                json_object *x = json_object_new_object();

                r = x ? json_add(a, NULL, x) : -ENOMEM;
                if (r >= 0)
                        r = json_add_int(x, "at_ms", (int64_t)d->at_ms);
                if (r >= 0)
                        r = json_add_string(x, "old", d->old_value);
                if (r >= 0)
                        r = json_add_string(x, "new", d->new_value);
                if (r >= 0)
                        r = json_add_string(x, "reason", d->reason);
        }
        return r;
}

static int print_json(const Explained *e) {
        _cleanup_(json_object_putp) json_object *o = json_object_new_object();
        int r = o ? json_add_schema(o, "explain") : -ENOMEM;

        if (r >= 0)
                r = json_add_string(o, "name", e->name);
        if (r >= 0)
                r = json_add_string(o, "value", e->value);
        if (r >= 0)
                r = json_add_string(o, "unit", e->unit);
        if (r >= 0)
                r = json_add_string(o, "origin", e->origin);
        if (r >= 0)
                r = json_add_bool(o, "supported", e->supported);
        if (r >= 0)
                r = json_add_string(o, "needs", e->needs);
        if (r >= 0)
                r = json_add_string(o, "summary", e->summary);
        if (r >= 0)
                r = json_add_string(o, "rollback", e->rollback);
        if (r >= 0)
                r = json_wishes(o, e);
        if (r >= 0)
                r = json_values(o, e);
        if (r >= 0)
                r = json_decisions(o, e);
        if (r >= 0)
                r = ctl_print_json(o, true);
        return r;
}

CtlStatus verb_explain(int argc, char **argv) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL, *owners_reply = NULL;
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        _cleanup_(explained_done) Explained e = {};
        int r;

        if (ctl_open_bus(&bus) < 0)
                return CTL_FAILED;
        r = ctl_call(bus, "Explain", &error, &reply, "s", argv[1]);
        if (r >= 0) {
                r = parse_reply(reply, &e);
                if (r < 0)
                        r = ctl_bad_reply(&error, r, "Explain");
        }
        if (r < 0)
                return ctl_bus_failed(&error, r);
        /* The owners are a hint: a name GetOtherOwners does not resolve (a per-NAPI instance) just has none. */
        if (ctl_get_other_owners(bus, argv[1], &error, &owners_reply, &e.owners, &e.n_owners) < 0) {
                sd_bus_error_free(&error);
                e.n_owners = 0;
        }
        r = arg_json ? print_json(&e) : print_table(&e);
        return r < 0 ? ctl_failed(r, "cannot print the explanation") : CTL_OK;
}
