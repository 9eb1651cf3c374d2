/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * bus-napi.c: the per-NAPI side of GetKnob/SetKnob (see bus-napi.h). Values
 * are parsed and formatted with the catalog's rules for the same knob names.
 */
#include "bus-napi.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bus.h"
#include "irqpin.h"
#include "log.h"
#include "napi.h"
#include "owner.h"

/* "KNOB@DEV:napi-ID" and "KNOB@DEV:rx-N" address one NAPI instance, set over netlink by irqpin. */
bool is_napi_ref(const char *name) {
        return strchr(name, ':') != NULL;
}

static int parse_napi(Manager *m, const char *name, NapiRef *ret, sd_bus_error *error) {
        const char *reason = NULL;

        if (napi_ref_parse(name, ret, &reason) < 0)
                return sd_bus_error_setf(error, BUS_ERROR_UNKNOWN_KNOB,
                                         "'%s' is not a per-NAPI knob: %s (expected KNOB@DEVICE:napi-ID or "
                                         "KNOB@DEVICE:rx-N with KNOB one of napi-defer-hard-irqs, "
                                         "gro-flush-timeout, irq-suspend-timeout, napi-threaded)", name,
                                         strempty(reason));
        if (!m->irqpin)
                return sd_bus_error_setf(error, BUS_ERROR_UNSUPPORTED,
                                         "%s: netpolld could not open netlink at start-up, so per-NAPI knobs are "
                                         "unavailable", name);
        return 0;
}

static int napi_error(sd_bus_error *error, const char *name, NapiKnob k, int r) {
        const KnobDesc *d = napi_knob_desc(k);

        switch (r) {
        case -EOPNOTSUPP:
                /* The instance exists, so netdev napi-set does (6.13+): this value is what the kernel lacks. */
                return sd_bus_error_setf(error, BUS_ERROR_UNSUPPORTED,
                                         "%s is not supported by this kernel: it needs %s", name,
                                         d && d->kernel ? d->kernel : "Linux 6.13 (netdev napi-set)");
        case -ENODEV:
                return sd_bus_error_setf(error, BUS_ERROR_NO_DEVICE, "%s: no such network device", name);
        case -ENOENT:
                return sd_bus_error_setf(error, BUS_ERROR_NO_DEVICE,
                                         "%s: no such NAPI instance (netpollctl irq lists them)", name);
        default: {
                const char *hint = d && (r == -EINVAL || r == -ERANGE) ? knob_refusal_hint(d) : NULL;
                return sd_bus_error_setf(error, BUS_ERROR_KERNEL_REFUSED, "the kernel refused %s: %s%s%s", name,
                                         strerror(-r), hint ? "; " : "", strempty(hint));
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

int napi_resolve(Manager *m, const char *name, Target *ret, const KnobDesc **ret_desc, uint64_t *ret_value,
                 sd_bus_error *error) {
        NapiRef ref;
        int r;

        r = parse_napi(m, name, &ref, error);
        if (r < 0)
                return r;
        r = napi_target(m, &ref, ret, ret_value);
        if (r < 0)
                return napi_error(error, name, ref.knob, r);
        *ret_desc = napi_knob_desc(ref.knob);
        return 0;
}

int get_napi(sd_bus_message *message, Manager *m, const char *name, sd_bus_error *error) {
        _cleanup_(freep) char *text = NULL;
        const KnobDesc *d;
        KnobValue v = {};
        Target t;
        int r;

        r = napi_resolve(m, name, &t, &d, &v.num, error);
        if (r < 0)
                return r;
        text = knob_format_value(d, &v);
        if (!text)
                return -ENOMEM;
        return sd_bus_reply_method_return(message, "ss", text, origin_to_string(owner_origin(m->owner, &t)));
}

/* Sets one per-NAPI knob (the manual layer); *ret_text is the value the kernel holds afterwards. */
static int napi_set_value(Manager *m, const char *name, const char *value, char **ret_text, sd_bus_error *error) {
        _cleanup_(freep) char *expected = NULL, *now = NULL;
        const char *reason = NULL;
        KnobValue v, back = {};
        char text[32];
        NapiRef ref;
        Target t;
        int r;

        r = parse_napi(m, name, &ref, error);
        if (r < 0)
                return r;
        if (knob_parse_value(napi_knob_desc(ref.knob), value, &v, &reason) < 0) {
                expected = knob_expected(napi_knob_desc(ref.knob));
                return sd_bus_error_setf(error, BUS_ERROR_INVALID_VALUE, "%s: invalid value '%s': %s; expected %s",
                                         name, value, strempty(reason), strempty(expected));
        }
        r = napi_target(m, &ref, &t, &back.num);
        if (r < 0)
                return napi_error(error, name, ref.knob, r);
        snprintf(text, sizeof(text), "%" PRIu64, v.num);
        r = owner_set(m->owner, &t, LAYER_MANUAL, text, NULL, &now);
        if (r == -OWNER_E_NOT_JOURNALED) {
                _cleanup_(freep) char *msg = owner_not_journaled_message(m->owner, name);
                return msg ? sd_bus_error_set(error, BUS_ERROR_FAILED, msg) : -ENOMEM;
        }
        if (r < 0 && r != -EDOM)
                return napi_error(error, name, ref.knob, r);
        back = v;
        if (manager_dry_run(m))
                log_info("dry-run: would set %s to %s", name, value);
        else if (!now || knob_parse_kernel(napi_knob_desc(ref.knob), now, &back) < 0)
                back = v;
        *ret_text = knob_format_value(napi_knob_desc(ref.knob), &back);
        return *ret_text ? 0 : -ENOMEM;
}

int set_napi(sd_bus_message *message, Manager *m, const char *name, const char *value, sd_bus_error *error) {
        _cleanup_(freep) char *text = NULL;
        int r = napi_set_value(m, name, value, &text, error);
        if (r < 0)
                return r;
        return sd_bus_reply_method_return(message, "s", text);
}

int set_napi_pairs(sd_bus_message *message, Manager *m, const char *name, const char *value,
                          sd_bus_error *error) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        _cleanup_(freep) char *text = NULL;
        int r = napi_set_value(m, name, value, &text, error);
        if (r < 0)
                return r;
        r = sd_bus_message_new_method_return(message, &reply);
        if (r >= 0)
                r = sd_bus_message_append(reply, "a(ss)", 1, name, text);
        if (r < 0)
                return r;
        return sd_bus_send(NULL, reply, NULL);
}


int reset_napi(sd_bus_message *message, Manager *m, const char *name, sd_bus_error *error) {
        _cleanup_(freep) char *text = NULL, *now = NULL;
        KnobValue v = {};
        NapiRef ref;
        Target t;
        int r;

        r = parse_napi(m, name, &ref, error);
        if (r < 0)
                return r;
        r = napi_target(m, &ref, &t, &v.num);
        if (r < 0)
                return napi_error(error, name, ref.knob, r);
        r = owner_unset(m->owner, &t, LAYER_BIT(LAYER_MANUAL), "reset", &now);
        if (r < 0)
                return napi_error(error, name, ref.knob, r);
        if (now)
                (void)knob_parse_kernel(napi_knob_desc(ref.knob), now, &v);
        text = knob_format_value(napi_knob_desc(ref.knob), &v);
        if (!text)
                return -ENOMEM;
        return sd_bus_reply_method_return(message, "s", text);
}
