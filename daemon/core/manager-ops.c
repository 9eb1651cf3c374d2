/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * manager-ops.c: the operations people and the controller ask for: get,
 * set (validated as a whole, then applied, undone on a kernel refusal),
 * reset, and adaptive moves. Every write goes through write_knob() and so
 * through the owner; read-only operations change no state.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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

int manager_get_knob(Manager *m, const char *name, char **ret_value, const char **ret_origin, char **ret_message) {
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
        *ret_origin = origin_to_string(manager_knob_origin(m, &ref));
        *ret_value = s;
        return 0;
}

typedef struct PendingSet {
        KnobRef ref;
        KnobValue value;
        /* for undo when a later pair fails: what the manual layer asked before */
        char *before_manual;
        bool done;
} PendingSet;

static void pending_sets_free(PendingSet *sets, size_t n) {
        for (size_t i = 0; sets && i < n; i++)
                free(sets[i].before_manual);
        free(sets);
}

/* What the manual layer asks for the knob's first target, copied; NULL when nothing. */
static char *manual_value(Manager *m, const KnobRef *ref) {
        _cleanup_(freep) Target *t = NULL;
        const char *v;
        size_t n;

        if (knob_targets(m, ref, &t, &n) < 0 || n == 0)
                return NULL;
        v = owner_layer_value(m->owner, &t[0], LAYER_MANUAL);
        return v ? strdup(v) : NULL;
}

int manager_set_knobs(Manager *m, char *const *pairs, char ***ret_values, char **ret_message) {
        size_t n = strv_length(pairs);
        PendingSet *sets = NULL;
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
                        goto out;
                r = knob_parse_value(s->ref.desc, value, &s->value, &reason);
                if (r < 0) {
                        _cleanup_(freep) char *expected = knob_expected(s->ref.desc);
                        r = asprintf(ret_message, "%s: invalid value '%s': %s; expected %s", name, value,
                                     strempty(reason), strempty(expected)) < 0 ? -ENOMEM : -MANAGER_E_INVALID_VALUE;
                        goto out;
                }
                r = knob_supported(&s->ref, m->sysroot);
                if (r <= 0) {
                        r = unsupported_message(&s->ref, r == 0 ? -EOPNOTSUPP : r, ret_message);
                        goto out;
                }
                for (size_t j = 0; j < i; j++)
                        if (sets[j].ref.desc == s->ref.desc && streq(sets[j].ref.device, s->ref.device)) {
                                r = asprintf(ret_message, "%s is given twice", name) < 0 ? -ENOMEM
                                                                                        : -MANAGER_E_INVALID_VALUE;
                                goto out;
                        }
        }

        for (size_t i = 0; i < n; i++) {
                PendingSet *s = &sets[i];

                if (!manager_knob_state(m, &s->ref)) {
                        r = -ENOMEM;
                        goto out;
                }
                s->before_manual = m->owner ? manual_value(m, &s->ref) : NULL;
                r = write_knob(m, &s->ref, &s->value, ORIGIN_MANUAL, NULL, ret_message);
                if (r < 0) {
                        /* Put back what this call already changed, newest first. */
                        while (i-- > 0) {
                                PendingSet *u = &sets[i];
                                _cleanup_(freep) char *ignored = NULL;
                                KnobValue v;

                                if (!u->before_manual) {
                                        release_knob(m, &u->ref, LAYER_BIT(LAYER_MANUAL), "reset");
                                        continue;
                                }
                                if (knob_parse_kernel(u->ref.desc, u->before_manual, &v) >= 0)
                                        (void)write_knob(m, &u->ref, &v, ORIGIN_MANUAL, "undo", &ignored);
                        }
                        goto out;
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
                        r = -ENOMEM;
                        goto out;
                }
        }
        *ret_values = TAKE_PTR(values);
        r = 0;
out:
        pending_sets_free(sets, n);
        return r;
}

int manager_reset_knob(Manager *m, const char *name, char **ret_value, char **ret_message) {
        const char *origin;
        KnobRef ref;
        int r;

        r = parse_ref(name, &ref, ret_message);
        if (r < 0)
                return r;
        r = knob_supported(&ref, m->sysroot);
        if (r <= 0)
                return unsupported_message(&ref, r == 0 ? -EOPNOTSUPP : r, ret_message);
        /* Manual and adaptive values give way: the profile's (or steering's) value, else the original. */
        release_knob(m, &ref, LAYER_BIT(LAYER_MANUAL) | LAYER_BIT(LAYER_CONTROLLER), "reset");
        /* On a steered device the reset of a mask takes back its IRQs as well. */
        if (m->irqpin && profile_steers_mask(m->profile, &ref)) {
                r = irqpin_reset(m->irqpin, ref.device);
                if (r < 0)
                        return asprintf(ret_message, "cannot take back %s: %s", name, strerror(-r)) < 0 ? -ENOMEM : r;
        }
        return manager_get_knob(m, name, ret_value, &origin, ret_message);
}

/* Keeps the move for Explain; a full table of knobs only costs the record (history.h). */
static void record_decision(Manager *m, const char *name, uint64_t old, uint64_t new, const char *why) {
        struct timespec ts;
        int r;

        (void)clock_gettime(CLOCK_REALTIME, &ts);
        r = history_record(&m->history, name, (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000, old, new,
                           why);
        if (r < 0)
                log_debug_errno(r, "%s: decision not kept for explain: %m, ignoring", name);
}

int manager_adapt(Manager *m, const char *name, uint64_t expected, uint64_t value, const char *why) {
        _cleanup_(freep) char *msg = NULL;
        KnobRef ref = { .desc = knob_find(name) };
        KnobValue v = { .num = value }, cur;
        ValueOrigin o;
        int r;

        if (!ref.desc)
                return -ENOENT;
        if (!manager_knob_state(m, &ref))
                return -ENOMEM;
        /* What a person set, or changed outside netpolld (also just now), is theirs. */
        manager_check_external(m);
        o = manager_knob_origin(m, &ref);
        if (o == ORIGIN_MANUAL || o == ORIGIN_EXTERNAL)
                return 0;
        /* The decision was made on this value: if the kernel holds another now, decide again. */
        if (knob_read(&ref, m->sysroot, &cur) >= 0 && cur.num != expected)
                return -ESTALE;
        r = write_knob(m, &ref, &v, ORIGIN_ADAPTIVE, why, &msg);
        if (r < 0) {
                log_warning("%s, ignoring", msg ?: strerror(-r));
                return r;
        }
        record_decision(m, ref.desc->name, expected, value, why);
        return 1;
}
