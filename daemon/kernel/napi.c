/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * napi.c: per-NAPI knob names and references.
 */
#include "napi.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "macro.h"
#include "sysroot.h"
#include "units.h"

/* The device-wide knobs of the same name carry the same name, type and range: their catalog entries
 * (irq-suspend-timeout's is set on every instance of the device). */
static const KnobDesc *const descs[_NAPI_KNOB_MAX] = {
        [NAPI_KNOB_DEFER_HARD_IRQS] = &knob_catalog[KNOB_ID_NAPI_DEFER_HARD_IRQS],
        [NAPI_KNOB_GRO_FLUSH_TIMEOUT] = &knob_catalog[KNOB_ID_GRO_FLUSH_TIMEOUT],
        [NAPI_KNOB_IRQ_SUSPEND_TIMEOUT] = &knob_catalog[KNOB_ID_IRQ_SUSPEND_TIMEOUT],
        [NAPI_KNOB_THREADED] = &knob_catalog[KNOB_ID_NAPI_THREADED],
};

const char *napi_knob_to_string(NapiKnob k) {
        return k < _NAPI_KNOB_MAX ? descs[k]->name : NULL;
}

int napi_knob_from_string(const char *s, NapiKnob *ret) {
        for (NapiKnob k = 0; s && k < _NAPI_KNOB_MAX; k++)
                if (streq(s, descs[k]->name)) {
                        *ret = k;
                        return 0;
                }
        return -ENOENT;
}

const KnobDesc *napi_knob_desc(NapiKnob k) {
        return k < _NAPI_KNOB_MAX ? descs[k] : NULL;
}

static int fail(const char **ret_reason, const char *reason, int r) {
        if (ret_reason)
                *ret_reason = reason;
        return r;
}

int napi_ref_parse(const char *s, NapiRef *ret, const char **ret_reason) {
        const char *at;
        char knob[32];
        KnobName n;
        NapiRef r = {};
        int e;

        if (!s)
                return fail(ret_reason, "empty reference", -EINVAL);
        at = strchr(s, '@');
        if (!at || (size_t)(at - s) >= sizeof(knob))
                return fail(ret_reason, "expected KNOB@DEVICE:napi-ID or KNOB@DEVICE:rx-N", -EINVAL);
        memcpy(knob, s, (size_t)(at - s));
        knob[at - s] = 0;
        if (napi_knob_from_string(knob, &r.knob) < 0)
                return fail(ret_reason,
                            "unknown per-NAPI knob; expected napi-defer-hard-irqs, gro-flush-timeout, irq-suspend-timeout "
                            "or napi-threaded",
                            -ENOENT);
        /* The grammar of every value name (knob.h); a per-NAPI reference is the rx/tx/napi part of it. */
        e = knob_name_parse(s, &n, ret_reason);
        if (e < 0)
                return e;
        if (!n.instance)
                return fail(ret_reason, "expected :napi-ID or :rx-N after the device", -EINVAL);
        if (!n.napi_id && n.kind == QUEUE_COMBINED)
                return fail(ret_reason, "expected napi-ID, rx-N or tx-N after the device", -EINVAL);
        memcpy(r.device, n.device, sizeof(r.device));
        r.napi_id = n.napi_id;
        r.kind = n.kind;
        r.index = n.index;
        *ret = r;
        return 0;
}

char *napi_ref_format(const NapiRef *r, char *buf, size_t size) {
        if (r->napi_id)
                snprintf(buf, size, "%s@%s:napi-%" PRIu32, strempty(napi_knob_to_string(r->knob)), r->device,
                         r->napi_id);
        else
                snprintf(buf, size, "%s@%s:%s-%u", strempty(napi_knob_to_string(r->knob)), r->device,
                         strempty(queue_kind_to_string(r->kind)), r->index);
        return buf;
}
