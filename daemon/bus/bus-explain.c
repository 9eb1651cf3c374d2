/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * bus-explain.c: Explain(s name): manager_explain()'s findings (a knob, a
 * value netpolld steers or a per-NAPI instance) in the reply's shape.
 * Read-only and unprivileged, like GetKnob.
 */
#include "bus-explain.h"

#include <errno.h>
#include <stdlib.h>

#include "bus.h"
#include "escape.h"
#include "explain.h"
#include "macro.h"
#include "other-owner.h"

static int append_explanation(sd_bus_message *reply, const Explanation *e) {
        _cleanup_(text_pool_done) TextPool x = {};
        int r;

        /* Names, values and FILE:LINE sources carry device names and paths: any byte. */
        r = sd_bus_message_append(reply, "ssssbsss", bus_text(&x, e->name), bus_text(&x, e->value), e->unit,
                                  e->origin, e->supported, e->needs, e->summary, e->rollback);
        if (r < 0)
                return r;
        r = sd_bus_message_open_container(reply, 'a', "(ssssb)");
        for (size_t i = 0; r >= 0 && i < e->n_wishes; i++) {
                const ExplainWish *w = &e->wishes[i];
                r = sd_bus_message_append(reply, "(ssssb)", bus_text(&x, w->target), w->layer, bus_text(&x, w->value),
                                          bus_text(&x, w->source), w->wins);
        }
        if (r >= 0)
                r = sd_bus_message_close_container(reply);
        if (r >= 0)
                r = sd_bus_message_open_container(reply, 'a', "(ssssssbsst)");
        for (size_t i = 0; r >= 0 && i < e->n_targets; i++) {
                const ExplainTarget *t = &e->targets[i];
                r = sd_bus_message_append(reply, "(ssssssbsst)", bus_text(&x, t->name), bus_text(&x, t->key),
                                          bus_text(&x, t->value), t->origin, bus_text(&x, t->original),
                                          bus_text(&x, t->at_stop), t->outside, bus_text(&x, t->outside_was),
                                          bus_text(&x, t->outside_found), t->outside_at_ms);
        }
        if (r >= 0)
                r = sd_bus_message_close_container(reply);
        if (r >= 0)
                r = sd_bus_message_open_container(reply, 'a', "(tsss)");
        for (size_t i = 0; r >= 0 && i < e->n_decisions; i++) {
                const ExplainDecision *d = &e->decisions[i];
                r = sd_bus_message_append(reply, "(tsss)", d->at_ms, d->old_value, d->new_value,
                                          bus_text(&x, d->reason));
        }
        if (r >= 0)
                r = sd_bus_message_close_container(reply);
        return r;
}

int method_explain(sd_bus_message *message, void *userdata, sd_bus_error *error) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        _cleanup_(explanation_done) Explanation e = {};
        _cleanup_(freep) char *msg = NULL;
        const char *name;
        int r;

        /* Read-only: outside changes are the ownership timer's to notice, not a reader's. */
        r = sd_bus_message_read(message, "s", &name);
        if (r < 0)
                return r;
        r = manager_explain(userdata, name, &e, &msg);
        if (r < 0)
                return bus_error_from_manager(error, r, msg);
        r = sd_bus_message_new_method_return(message, &reply);
        if (r < 0)
                return r;
        r = append_explanation(reply, &e);
        if (r < 0)
                return r;
        return sd_bus_send(NULL, reply, NULL);
}

/* GetOtherOwners(s name): who most likely set values netpolld does not hold ("": every outside change). */
int method_get_other_owners(sd_bus_message *message, void *userdata, sd_bus_error *error) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        _cleanup_(text_pool_done) TextPool x = {};
        _cleanup_(freep) char *msg = NULL;
        OtherOwnerRow *rows = NULL;
        const char *name;
        size_t n = 0;
        int r;

        r = sd_bus_message_read(message, "s", &name);
        if (r < 0)
                return r;
        r = manager_other_owner_rows(userdata, name, &rows, &n, &msg);
        if (r < 0)
                return bus_error_from_manager(error, r, msg);
        r = sd_bus_message_new_method_return(message, &reply);
        if (r >= 0)
                r = sd_bus_message_open_container(reply, 'a', "(sssss)");
        for (size_t i = 0; r >= 0 && i < n; i++)
                r = sd_bus_message_append(reply, "(sssss)", bus_text(&x, rows[i].target), bus_text(&x, rows[i].value),
                                          rows[i].owner.kind, bus_text(&x, rows[i].owner.where),
                                          bus_text(&x, rows[i].owner.note));
        other_owner_rows_free(rows, n);
        if (r >= 0)
                r = sd_bus_message_close_container(reply);
        return r < 0 ? r : sd_bus_send(NULL, reply, NULL);
}
