/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * manager-napi.c: per-NAPI references in GetKnob, SetKnob, SetKnobs,
 * ResetKnob and Explain ("KNOB@DEV:napi-ID", "KNOB@DEV:rx-N"): irqpin says
 * which instance a reference means and its value, the owner changes it.
 * Values are parsed and formatted with the catalog's rules for the same knob
 * names. Errors are MANAGER_E_* with a message, as manager-ops.c's.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "manager-internal.h"
#include "napi.h"

bool manager_is_napi_ref(const char *name) {
        return strchr(name, ':') != NULL;
}

static int parse_napi(Manager *m, const char *name, NapiRef *ret, char **ret_message) {
        const char *reason = NULL;

        if (napi_ref_parse(name, ret, &reason) < 0)
                return asprintf(ret_message,
                                "'%s' is not a per-NAPI knob: %s (expected KNOB@DEVICE:napi-ID or "
                                "KNOB@DEVICE:rx-N with KNOB one of napi-defer-hard-irqs, "
                                "gro-flush-timeout, irq-suspend-timeout, napi-threaded)", name, strempty(reason)) < 0
                               ? -ENOMEM : -MANAGER_E_UNKNOWN_KNOB;
        if (!m->irqpin)
                return asprintf(ret_message,
                                "%s: netpolld could not open netlink at start-up, so per-NAPI knobs are "
                                "unavailable", name) < 0 ? -ENOMEM : -MANAGER_E_UNSUPPORTED;
        return 0;
}

/* What an instance's lookup or change failing with r means for the knob of catalog entry d. */
static int napi_error(const char *name, const KnobDesc *d, int r, char **ret_message) {
        switch (r) {
        case -EOPNOTSUPP:
                /* The instance exists, so netdev napi-set does (6.13+): this value is what the kernel lacks. */
                return asprintf(ret_message, "%s is not supported by this kernel: it needs %s", name,
                                d && d->kernel ? d->kernel : "Linux 6.13 (netdev napi-set)") < 0
                               ? -ENOMEM : -MANAGER_E_UNSUPPORTED;
        case -ENODEV:
                return asprintf(ret_message, "%s: no such network device", name) < 0 ? -ENOMEM : -MANAGER_E_NO_DEVICE;
        case -ENOENT:
                return asprintf(ret_message, "%s: no such NAPI instance (netpollctl irq lists them)", name) < 0
                               ? -ENOMEM : -MANAGER_E_NO_DEVICE;
        default: {
                const char *hint = d && (r == -EINVAL || r == -ERANGE) ? knob_refusal_hint(d) : NULL;
                return asprintf(ret_message, "the kernel refused %s: %s%s%s", name, strerror(-r), hint ? "; " : "",
                                strempty(hint)) < 0 ? -ENOMEM : -MANAGER_E_KERNEL_REFUSED;
        }
        }
}

/* The owner's target for the instance ref means, and its current value. */
static int napi_target(Manager *m, const NapiRef *ref, Target *ret, uint64_t *ret_value) {
        uint32_t id;
        char name[96];
        int r;

        r = irqpin_napi_get(m->irqpin, ref, ret_value, &id);
        if (r < 0)
                return r;
        snprintf(name, sizeof(name), "%s@%s:napi-%" PRIu32, napi_knob_to_string(ref->knob), ref->device, id);
        if (!m->owner)
                return -EAGAIN;
        return owner_napi_target(m->owner, name, ref->device, id, napi_knob_to_string(ref->knob), ret);
}

int manager_napi_resolve(Manager *m, const char *name, Target *ret, const KnobDesc **ret_desc, uint64_t *ret_value,
                         char **ret_message) {
        NapiRef ref;
        int r;

        r = parse_napi(m, name, &ref, ret_message);
        if (r < 0)
                return r;
        r = napi_target(m, &ref, ret, ret_value);
        if (r < 0)
                return napi_error(name, napi_knob_desc(ref.knob), r, ret_message);
        *ret_desc = napi_knob_desc(ref.knob);
        return 0;
}

int manager_get_napi(Manager *m, const char *name, char **ret_value, const char **ret_origin, char **ret_message) {
        const KnobDesc *d;
        KnobValue v = {};
        Target t;
        int r;

        r = manager_napi_resolve(m, name, &t, &d, &v.num, ret_message);
        if (r < 0)
                return r;
        *ret_value = knob_format_value(d, &v);
        if (!*ret_value)
                return -ENOMEM;
        *ret_origin = origin_to_string(owner_origin(m->owner, &t));
        return 0;
}

int manager_set_napi(Manager *m, const char *name, const char *value, char **ret_value, char **ret_message) {
        _cleanup_(freep) char *expected = NULL, *now = NULL;
        const char *reason = NULL;
        KnobValue v, back = {};
        char text[32];
        NapiRef ref;
        Target t;
        int r;

        r = parse_napi(m, name, &ref, ret_message);
        if (r < 0)
                return r;
        if (knob_parse_value(napi_knob_desc(ref.knob), value, &v, &reason) < 0) {
                expected = knob_expected(napi_knob_desc(ref.knob));
                return asprintf(ret_message, "%s: invalid value '%s': %s; expected %s", name, value,
                                strempty(reason), strempty(expected)) < 0 ? -ENOMEM : -MANAGER_E_INVALID_VALUE;
        }
        r = napi_target(m, &ref, &t, &back.num);
        if (r < 0)
                return napi_error(name, napi_knob_desc(ref.knob), r, ret_message);
        snprintf(text, sizeof(text), "%" PRIu64, v.num);
        r = owner_set(m->owner, &t, LAYER_MANUAL, text, NULL, &now);
        if (r == -OWNER_E_NOT_JOURNALED) {
                *ret_message = owner_not_journaled_message(m->owner, name);
                return *ret_message ? -EIO : -ENOMEM;
        }
        if (r < 0 && r != -EDOM)
                return napi_error(name, napi_knob_desc(ref.knob), r, ret_message);
        back = v;
        if (manager_dry_run(m))
                log_info("dry-run: would set %s to %s", name, value);
        else if (!now || knob_parse_kernel(napi_knob_desc(ref.knob), now, &back) < 0)
                back = v;
        *ret_value = knob_format_value(napi_knob_desc(ref.knob), &back);
        return *ret_value ? 0 : -ENOMEM;
}

int manager_reset_napi(Manager *m, const char *name, char **ret_value, char **ret_message) {
        _cleanup_(freep) char *now = NULL;
        const KnobDesc *d = NULL;
        KnobValue v = {};
        Target t;
        int r = manager_napi_resolve(m, name, &t, &d, &v.num, ret_message);

        if (r < 0)
                return r;
        /* The value below the manual layer, or the original, comes back. */
        r = owner_unset(m->owner, &t, LAYER_BIT(LAYER_MANUAL), "reset", &now);
        if (r < 0)
                return napi_error(name, d, r, ret_message);
        if (now)
                (void)knob_parse_kernel(d, now, &v);
        *ret_value = knob_format_value(d, &v);
        return *ret_value ? 0 : -ENOMEM;
}
