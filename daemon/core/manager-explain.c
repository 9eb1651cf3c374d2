/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * manager-explain.c: gathers what Explain reports (explain.h) from the
 * catalog, the owner, the restore journal, the profile and the controller's
 * decision history. Reads only: values are read afresh, nothing is created
 * or decided (outside changes are the 2 s check's to notice).
 */
#include "explain.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "macro.h"
#include "manager-internal.h"
#include "napi.h"
#include "other-owner.h"

static void wish_done(ExplainWish *w) {
        free(w->target);
        free(w->value);
        free(w->source);
}

static void target_done(ExplainTarget *t) {
        free(t->name);
        free(t->key);
        free(t->value);
        free(t->original);
        free(t->at_stop);
        free(t->outside_was);
        free(t->outside_found);
        other_owners_free(t->owners, t->n_owners);
}

void explanation_done(Explanation *e) {
        for (size_t i = 0; i < e->n_wishes; i++)
                wish_done(&e->wishes[i]);
        for (size_t i = 0; i < e->n_targets; i++)
                target_done(&e->targets[i]);
        for (size_t i = 0; i < e->n_decisions; i++) {
                free(e->decisions[i].old_value);
                free(e->decisions[i].new_value);
                free(e->decisions[i].reason);
        }
        free(e->wishes);
        free(e->targets);
        free(e->decisions);
        free(e->name);
        free(e->value);
        *e = (Explanation){};
}

/* The kernel's text as people read it (with units) when d knows the knob; a copy of it otherwise. */
static char *format_kernel(const KnobDesc *d, const char *text) {
        KnobValue v;

        if (!text)
                return strdup("");
        if (d && knob_parse_kernel(d, text, &v) >= 0)
                return knob_format_value(d, &v);
        return strdup(text);
}

static char *format_num(const KnobDesc *d, uint64_t num) {
        KnobValue v = { .num = num };
        return knob_format_value(d, &v);
}

/* "FILE:LINE" of the [irq] devices= line that puts a device under steering, or "[irq]". */
static char *steering_source(const Profile *p) {
        char *s = NULL;

        for (size_t i = 0; p && i < p->n_settings; i++)
                if (streq(p->settings[i].section, "irq") && streq(p->settings[i].key, "devices"))
                        return asprintf(&s, "[irq] %s:%u", p->settings[i].origin.file, p->settings[i].origin.line) < 0
                                       ? NULL : s;
        return strdup("[irq]");
}

/* The knob ref a target belongs to: its name up to the queue or instance (":rx-0", ":napi-8193"). */
static bool target_ref(const Target *t, KnobRef *ret) {
        char name[sizeof(t->name)];
        const char *reason;

        snprintf(name, sizeof(name), "%.*s", (int)strcspn(t->name, ":"), t->name);
        return knob_ref_parse(name, ret, &reason) >= 0;
}

/* Where the profile layer's wish for t comes from, and whether that is steering ([irq]) rather than [knobs]. */
static char *profile_source(const Manager *m, const Target *t, bool *ret_steering) {
        const Profile *p = m->profile;
        KnobRef ref;
        char *s = NULL;

        *ret_steering = t->kind == TARGET_IRQ || t->kind == TARGET_THREAD;
        if (!*ret_steering && target_ref(t, &ref)) {
                *ret_steering = profile_steers_mask(p, &ref);
                for (size_t i = 0; !*ret_steering && p && i < p->n_knobs; i++) {
                        const ProfileKnob *k = &p->knobs[i];
                        if (k->ref.desc == ref.desc && streq(k->ref.device, ref.device))
                                return asprintf(&s, "%s:%u", k->origin.file, k->origin.line) < 0 ? NULL : s;
                }
        }
        if (*ret_steering)
                return steering_source(p);
        return strdup(p ? p->path : "profile");
}

static char *controller_source(const Manager *m, const KnobDesc *d) {
        size_t n = d ? history_count(&m->history, d->name) : 0;
        const HistoryEntry *e = n > 0 ? history_at(&m->history, d->name, n - 1) : NULL;

        return strdup(e ? e->reason : "the adaptive controller");
}

static int add_wishes(Manager *m, const KnobDesc *d, const Target *t, bool external, Explanation *e) {
        static const char *const layer_names[_LAYER_MAX] = {
                [LAYER_PROFILE] = "profile", [LAYER_CONTROLLER] = "controller", [LAYER_MANUAL] = "manual",
        };
        bool top = !external;

        /* Highest first, as the owner decides: the first layer that asks wins, unless somebody else's value holds. */
        for (Layer l = _LAYER_MAX; l-- > 0;) {
                const char *v = owner_layer_value(m->owner, t, l);
                ExplainWish *w, *a;
                bool steering = false;

                if (!v)
                        continue;
                a = realloc(e->wishes, (e->n_wishes + 1) * sizeof(ExplainWish));
                if (!a)
                        return -ENOMEM;
                e->wishes = a;
                w = &e->wishes[e->n_wishes++];
                *w = (ExplainWish){
                        .target = strdup(t->name),
                        .layer = layer_names[l],
                        .value = format_kernel(d, v),
                        .source = l == LAYER_MANUAL     ? strdup("netpollctl set")
                                  : l == LAYER_CONTROLLER ? controller_source(m, d)
                                                          : profile_source(m, t, &steering),
                        .wins = top,
                };
                if (steering)
                        w->layer = "steering";
                top = false;
                if (!w->target || !w->value || !w->source)
                        return -ENOMEM;
        }
        return 0;
}

static int add_target(Manager *m, const KnobDesc *d, const Target *t, Explanation *e) {
        const JournalEntry *j = m->journal ? journal_get(m->journal, t->key) : NULL;
        _cleanup_(freep) char *now = NULL;
        OwnerOutside out = {};
        ExplainTarget *x;
        bool external;

        (void)owner_read(m->owner, t, &now);
        external = owner_outside_change(m->owner, t, &out);
        x = &e->targets[e->n_targets++];
        *x = (ExplainTarget){
                .name = strdup(t->name),
                .key = strdup(t->key),
                .value = format_kernel(d, now),
                .origin = origin_to_string(owner_origin(m->owner, t)),
                .original = format_kernel(d, j ? j->original : NULL),
                .at_stop = format_kernel(d, j && m->config && m->config->rollback == ROLLBACK_AUTO ? j->original
                                                                                                  : NULL),
                .outside = external,
                .outside_was = format_kernel(d, out.was),
                .outside_found = format_kernel(d, out.found),
                .outside_at_ms = out.at_ms,
        };
        if (!x->name || !x->key || !x->value || !x->original || !x->at_stop || !x->outside_was || !x->outside_found)
                return -ENOMEM;
        /* Somebody else's value: an outside change, or one netpolld never held. */
        if (external || owner_origin(m->owner, t) == ORIGIN_DEFAULT) {
                int r = manager_other_owners(m, t, now, &x->owners, &x->n_owners);
                if (r < 0)
                        return r;
        }
        return add_wishes(m, d, t, external, e);
}

static int add_decisions(Manager *m, const KnobDesc *d, Explanation *e) {
        size_t n = d ? history_count(&m->history, d->name) : 0;

        if (n == 0)
                return 0;
        e->decisions = calloc(n, sizeof(ExplainDecision));
        if (!e->decisions)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++) {
                const HistoryEntry *h = history_at(&m->history, d->name, i);
                ExplainDecision *x = &e->decisions[e->n_decisions++];

                *x = (ExplainDecision){
                        .at_ms = h->at_ms,
                        .old_value = format_num(d, h->old_value),
                        .new_value = format_num(d, h->new_value),
                        .reason = strdup(h->reason),
                };
                if (!x->old_value || !x->new_value || !x->reason)
                        return -ENOMEM;
        }
        return 0;
}

/* The explanation of targets already resolved: d formats their values (NULL: the kernel's text). */
static int explain_targets(Manager *m, const char *name, const KnobDesc *d, const Target *t, size_t n,
                           Explanation *ret) {
        _cleanup_(explanation_done) Explanation e = {
                .name = strdup(name),
                .unit = d ? d->unit : "",
                .summary = d ? d->summary : "",
                .supported = true,
                .needs = "",
                .rollback = rollback_to_string(m->config ? m->config->rollback : ROLLBACK_AUTO),
                .origin = origin_to_string(n > 0 && m->owner ? owner_origin(m->owner, &t[0]) : ORIGIN_DEFAULT),
        };
        int r;

        if (!e.name)
                return -ENOMEM;
        if (n > 0) {
                e.targets = calloc(n, sizeof(ExplainTarget));
                if (!e.targets)
                        return -ENOMEM;
        }
        for (size_t i = 0; m->owner && i < n; i++) {
                r = add_target(m, d, &t[i], &e);
                if (r < 0)
                        return r;
        }
        r = add_decisions(m, d, &e);
        if (r < 0)
                return r;
        /* One value stands for the knob: the first target's (a per-queue knob's queues are listed each). */
        e.value = strdup(e.n_targets > 0 ? e.targets[0].value : "");
        if (!e.value)
                return -ENOMEM;
        *ret = e;
        e = (Explanation){};
        return 0;
}

/*
 * A name with a queue or NAPI instance (KnobChanged's and ListIrqs' names,
 * knob.h's grammar): the value the owner holds by that name, else the queue's
 * own target of a per-queue knob (rps-cpus@DEV:rx-N before netpolld set it).
 */
static int explain_instance(Manager *m, const KnobName *kn, Explanation *ret, char **ret_message) {
        const KnobDesc *d = knob_find(kn->knob);
        _cleanup_(freep) Target *t = NULL;
        char name[sizeof(t->name)];
        size_t n = 0;
        Target held;
        int r;

        knob_name_format(kn, name, sizeof(name));
        if (m->owner && owner_find_target(m->owner, name, &held) >= 0)
                return explain_targets(m, name, d, &held, 1, ret);
        if (m->owner && d && (d->scope == KNOB_RX_QUEUES || d->scope == KNOB_TX_QUEUES) && !kn->napi_id) {
                KnobRef ref = { .desc = d };

                memcpy(ref.device, kn->device, sizeof(ref.device));
                r = knob_targets(m, &ref, &t, &n);
                if (r == -ENODEV)
                        return unsupported_message(&ref, r, ret_message);
                if (r < 0 && r != -EOPNOTSUPP)
                        return asprintf(ret_message, "cannot explain %s: %s", name, strerror(-r)) < 0 ? -ENOMEM : r;
                for (size_t i = 0; i < n; i++)
                        if (streq(t[i].name, name))
                                return explain_targets(m, name, d, &t[i], 1, ret);
                return asprintf(ret_message, "%s: %s has no such queue (netpollctl irq lists them)", name,
                                kn->device) < 0 ? -ENOMEM : -MANAGER_E_NO_DEVICE;
        }
        return asprintf(ret_message, "'%s' is not a value netpolld holds now (values netpolld steers, such as "
                        "irq-affinity@DEV:rx-N, are known once it holds them; per-NAPI knobs are "
                        "napi-defer-hard-irqs, gro-flush-timeout, irq-suspend-timeout and napi-threaded)", name) < 0
                       ? -ENOMEM : -MANAGER_E_UNKNOWN_KNOB;
}

int manager_explain(Manager *m, const char *name, Explanation *ret, char **ret_message) {
        _cleanup_(freep) Target *t = NULL;
        _cleanup_(freep) char *v = NULL;
        const char *reason = NULL;
        char canonical[64];
        size_t n = 0;
        KnobRef ref;
        Target held;
        KnobName kn;
        NapiRef napi;
        int r;

        /* A per-NAPI instance, unless the owner holds a value by that name (rps-cpus@DEV:rx-N, irq-affinity@DEV:rx-N). */
        if (napi_ref_parse(name, &napi, NULL) >= 0 && m->owner && owner_find_target(m->owner, name, &held) < 0) {
                const KnobDesc *d = NULL;
                uint64_t value;

                r = manager_napi_resolve(m, name, &held, &d, &value, ret_message);
                if (r < 0)
                        return r;
                return explain_targets(m, name, d, &held, 1, ret);
        }
        if (knob_name_parse(name, &kn, NULL) >= 0 && kn.instance)
                return explain_instance(m, &kn, ret, ret_message);
        r = knob_ref_parse(name, &ref, &reason);
        if (r == -ENOENT && m->owner && owner_find_target(m->owner, name, &held) >= 0) {
                KnobRef owner_ref;
                return explain_targets(m, name, target_ref(&held, &owner_ref) ? owner_ref.desc : NULL,
                                       &held, 1, ret);
        }
        if (r == -ENOENT)
                return asprintf(ret_message, "unknown knob '%s' (netpollctl list shows the knobs; values netpolld "
                                "steers, such as irq-affinity@DEV:rx-N, are known once it holds them)", name) < 0
                               ? -ENOMEM : -MANAGER_E_UNKNOWN_KNOB;
        if (r < 0)
                return asprintf(ret_message, "%s: %s", name, strempty(reason)) < 0 ? -ENOMEM : -MANAGER_E_INVALID_VALUE;

        r = knob_supported(&ref, m->sysroot);
        if (r < 0)
                return unsupported_message(&ref, r, ret_message);
        if (r == 0) {
                /* Listed as ListKnobs lists it: unsupported, with what it needs. */
                _cleanup_(explanation_done) Explanation e = {};

                r = explain_targets(m, knob_ref_format(&ref, canonical, sizeof(canonical)), ref.desc, NULL,
                                    0, &e);
                if (r < 0)
                        return r;
                e.supported = false;
                e.needs = knob_needs(ref.desc);
                *ret = e;
                e = (Explanation){};
                return 0;
        }
        if (m->owner) {
                r = knob_targets(m, &ref, &t, &n);
                if (r == -ENODEV)
                        return unsupported_message(&ref, r, ret_message);
                if (r < 0)
                        return asprintf(ret_message, "cannot explain %s: %s", name, strerror(-r)) < 0 ? -ENOMEM : r;
        }
        r = explain_targets(m, knob_ref_format(&ref, canonical, sizeof(canonical)), ref.desc, t, n, ret);
        if (r < 0)
                return r;
        /* The knob's value as GetKnob reads it (the common value of per-NAPI instances, say). */
        v = read_formatted(m, &ref, NULL);
        if (v) {
                free(ret->value);
                ret->value = TAKE_PTR(v);
        }
        return 0;
}
