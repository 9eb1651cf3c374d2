/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * manager-ops.c: the operations people and the controller ask for: get,
 * set (validated as a whole, then applied, undone on a kernel refusal),
 * reset, and adaptive moves. Every write still goes through write_knob().
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "irqpin.h"
#include "log.h"
#include "manager-internal.h"
#include "strv.h"

/* Parses "NAME[@DEV]" into a ref, with a message for the caller. */
static int parse_ref(const char *name, KnobRef *ret, char **ret_message) {
        const char *reason = NULL;
        int r = knob_ref_parse(name, ret, &reason);
        if (r == -ENOENT)
                return asprintf(ret_message, "unknown knob '%s' (netpollctl list shows them all)", name) < 0
                               ? -ENOMEM : -MANAGER_E_UNKNOWN_KNOB;
        if (r < 0)
                return asprintf(ret_message, "%s: %s", name, strempty(reason)) < 0 ? -ENOMEM
                                                                                   : -MANAGER_E_INVALID_VALUE;
        return 0;
}

int manager_get_knob(Manager *m, const char *name, char **ret_value, KnobOrigin *ret_origin, char **ret_message) {
        KnobRef ref;
        KnobValue v;
        int r;

        r = parse_ref(name, &ref, ret_message);
        if (r < 0)
                return r;
        r = knob_read(&ref, m->sysroot, &v);
        if (r == -EOPNOTSUPP || r == -ENODEV)
                return unsupported_message(&ref, r, ret_message);
        if (r < 0)
                return asprintf(ret_message, "cannot read %s: %s", name, strerror(-r)) < 0 ? -ENOMEM : r;

        char *s = knob_format_value(ref.desc, &v);
        if (!s)
                return -ENOMEM;
        KnobState *k = manager_knob_state(m, &ref);
        *ret_origin = k ? k->origin : ORIGIN_DEFAULT;
        *ret_value = s;
        return 0;
}

typedef struct PendingSet {
        KnobRef ref;
        KnobValue value;
        /* for undo when a later pair fails */
        KnobValue before;
        bool before_known;
        KnobOrigin before_origin;
        bool before_owned;
        KnobValue before_last;
} PendingSet;

int manager_set_knobs(Manager *m, char *const *pairs, char ***ret_values, char **ret_message) {
        size_t n = strv_length(pairs);
        _cleanup_(freep) PendingSet *sets = NULL;
        _cleanup_(strv_freep) char **values = NULL;
        int r;

        if (n == 0 || n % 2 != 0)
                return asprintf(ret_message, "expected knob and value pairs") < 0 ? -ENOMEM : -MANAGER_E_INVALID_VALUE;
        n /= 2;
        sets = calloc(n, sizeof(PendingSet));
        if (!sets)
                return -ENOMEM;

        /* Validate everything before changing anything. */
        for (size_t i = 0; i < n; i++) {
                const char *name = pairs[2 * i], *value = pairs[2 * i + 1], *reason = NULL;
                PendingSet *s = &sets[i];

                r = parse_ref(name, &s->ref, ret_message);
                if (r < 0)
                        return r;
                r = knob_parse_value(s->ref.desc, value, &s->value, &reason);
                if (r < 0) {
                        _cleanup_(freep) char *expected = knob_expected(s->ref.desc);
                        return asprintf(ret_message, "%s: invalid value '%s': %s; expected %s", name, value,
                                        strempty(reason), strempty(expected)) < 0 ? -ENOMEM
                                                                                   : -MANAGER_E_INVALID_VALUE;
                }
                r = knob_supported(&s->ref, m->sysroot);
                if (r <= 0)
                        return unsupported_message(&s->ref, r == 0 ? -EOPNOTSUPP : r, ret_message);
                if (profile_steers_mask(m->profile, &s->ref))
                        return asprintf(ret_message,
                                        "%s: %s's queues are steered by profile %s ([irq]); change %s= there "
                                        "(netpollctl irq shows the plan)",
                                        name, s->ref.device, m->profile->name,
                                        s->ref.desc->scope == KNOB_RX_QUEUES ? "rps" : "xps") < 0
                                       ? -ENOMEM : -MANAGER_E_INVALID_VALUE;
                for (size_t j = 0; j < i; j++)
                        if (sets[j].ref.desc == s->ref.desc && streq(sets[j].ref.device, s->ref.device))
                                return asprintf(ret_message, "%s is given twice", name) < 0
                                               ? -ENOMEM : -MANAGER_E_INVALID_VALUE;
        }

        for (size_t i = 0; i < n; i++) {
                PendingSet *s = &sets[i];
                KnobState *k = manager_knob_state(m, &s->ref);
                if (!k)
                        return -ENOMEM;
                s->before_known = knob_read(&s->ref, m->sysroot, &s->before) >= 0;
                s->before_origin = k->origin;
                s->before_owned = k->owned;
                s->before_last = k->last;

                r = write_knob(m, k, &s->value, ORIGIN_MANUAL, "manual", NULL, ret_message);
                if (r < 0) {
                        /* Put back what this call already changed, newest first. */
                        while (i-- > 0) {
                                PendingSet *u = &sets[i];
                                KnobState *uk = manager_knob_state(m, &u->ref);
                                _cleanup_(freep) char *ignored = NULL;
                                if (!uk || !u->before_known)
                                        continue;
                                if (!u->before_owned) {
                                        /*
                                         * Not netpolld's before this call: the journal entry
                                         * was made by it, and restoring drops it again, so a
                                         * later stop cannot write over someone else's value.
                                         */
                                        restore_knob(m, uk, "reset");
                                        uk->origin = u->before_origin;
                                        continue;
                                }
                                (void)write_knob(m, uk, &u->before, u->before_origin, "reset", NULL, &ignored);
                                uk->owned = u->before_owned;
                                uk->last = u->before_last;
                        }
                        return r;
                }
        }

        for (size_t i = 0; i < n; i++) {
                char *v = NULL;
                if (manager_dry_run(m))
                        v = knob_format_value(sets[i].ref.desc, &sets[i].value);
                else
                        v = read_formatted(m, &sets[i].ref, NULL);
                if (!v || strv_push(&values, v) < 0) {
                        free(v);
                        return -ENOMEM;
                }
        }
        *ret_values = TAKE_PTR(values);
        return 0;
}

int manager_reset_knob(Manager *m, const char *name, char **ret_value, char **ret_message) {
        KnobState *k;
        KnobRef ref;
        int r;

        r = parse_ref(name, &ref, ret_message);
        if (r < 0)
                return r;
        r = knob_supported(&ref, m->sysroot);
        if (r <= 0)
                return unsupported_message(&ref, r == 0 ? -EOPNOTSUPP : r, ret_message);
        k = manager_knob_state(m, &ref);
        if (!k)
                return -ENOMEM;

        /* Steered masks are irqpin's: reset takes back queues changed outside netpolld. */
        if (profile_steers_mask(m->profile, &ref) && m->irqpin) {
                KnobOrigin o;
                r = irqpin_reset(m->irqpin, ref.device);
                if (r < 0)
                        return asprintf(ret_message, "cannot take back %s: %s", name, strerror(-r)) < 0 ? -ENOMEM : r;
                return manager_get_knob(m, name, ret_value, &o, ret_message);
        }

        const ProfileKnob *pk = m->profile ? profile_get_knob(m->profile, &ref) : NULL;
        if (pk) {
                r = write_knob(m, k, &pk->value, ORIGIN_PROFILE, "reset", NULL, ret_message);
                if (r < 0)
                        return r;
        } else if (k->origin == ORIGIN_EXTERNAL) {
                /* The journal entry went when the change was noticed: the outside value stays. */
                k->origin = ORIGIN_DEFAULT;
                k->owned = false;
        } else
                restore_knob(m, k, "reset");

        KnobOrigin o;
        return manager_get_knob(m, name, ret_value, &o, ret_message);
}

int manager_adapt(Manager *m, const char *name, uint64_t expected, uint64_t value, const char *why) {
        _cleanup_(freep) char *msg = NULL;
        KnobRef ref = { .desc = knob_find(name) };
        KnobValue v = { .num = value }, cur;
        KnobState *k;
        int r;

        if (!ref.desc)
                return -ENOENT;
        k = manager_knob_state(m, &ref);
        if (!k)
                return -ENOMEM;
        /* What a person set, or changed outside netpolld (also just now), is theirs. */
        if (k->origin == ORIGIN_MANUAL || k->origin == ORIGIN_EXTERNAL || manager_check_knob_external(m, k))
                return 0;
        /* The decision was made on this value: if the kernel holds another now, decide again. */
        if (knob_read(&ref, m->sysroot, &cur) >= 0 && cur.num != expected)
                return -ESTALE;
        r = write_knob(m, k, &v, ORIGIN_ADAPTIVE, "adaptive", why, &msg);
        if (r < 0)
                log_warning("%s, ignoring", msg ?: strerror(-r));
        return r;
}
