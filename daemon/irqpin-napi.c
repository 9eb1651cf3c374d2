/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * irqpin-napi.c: per-NAPI knobs through napi-set/napi-get, with the
 * instance's original value kept in memory before its first change.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "irqpin-internal.h"
#include "log.h"

/* Our own socket for our own namespace; a fresh one in another namespace (*ret_own set). */
static int open_genl(IrqPin *p, const char *netns, NetdevGenl **ret, NetdevGenl **ret_own) {
        int r;

        *ret_own = NULL;
        if (!netns) {
                if (!p->genl)
                        return -EOPNOTSUPP;
                *ret = p->genl;
                return 0;
        }
        r = netdev_genl_open(ret_own, netns, p->genl_family);
        if (r < 0)
                return r;
        *ret = *ret_own;
        return 0;
}

/* The NAPI instance ref means, checked to belong to ref->device in g's namespace. */
static int resolve(NetdevGenl *g, const NapiRef *ref, NapiInfo *ret) {
        uint32_t id = ref->napi_id;
        int ifindex, r;

        ifindex = netdev_genl_ifindex(g, ref->device);
        if (ifindex < 0)
                return ifindex;
        if (id == 0) {
                r = netdev_genl_queue_napi(g, ifindex, ref->kind, ref->index, &id);
                if (r == -EINVAL)
                        return -ENOENT; /* no such queue (the kernel checked the range) */
                if (r < 0)
                        return r;
                if (id == 0)
                        return -ENOENT;
        }
        r = netdev_genl_napi_get(g, id, ret);
        if (r < 0)
                return r;
        return ret->ifindex == ifindex ? 0 : -ENOENT;
}

int irqpin_napi_get(IrqPin *p, const char *netns, const NapiRef *ref, uint64_t *ret_value, uint32_t *ret_napi_id) {
        _cleanup_(netdev_genl_freep) NetdevGenl *own = NULL;
        NetdevGenl *g;
        NapiInfo info;
        int r;

        if (!p || !ref || ref->knob >= _NAPI_KNOB_MAX || !ret_value)
                return -EINVAL;
        r = open_genl(p, netns, &g, &own);
        if (r < 0)
                return r;
        r = resolve(g, ref, &info);
        if (r < 0)
                return r;
        if (!info.has[ref->knob])
                return -EOPNOTSUPP;
        *ret_value = info.value[ref->knob];
        if (ret_napi_id)
                *ret_napi_id = info.id;
        return 0;
}

static NapiOriginal *find_original(IrqPin *p, const char *netns, uint32_t id, NapiKnob knob) {
        for (size_t i = 0; i < p->n_napi; i++)
                if (p->napi[i].napi_id == id && p->napi[i].knob == knob && streq_ptr(p->napi[i].netns, netns))
                        return &p->napi[i];
        return NULL;
}

bool irqpin_napi_changed(IrqPin *p, const char *netns, uint32_t napi_id, NapiKnob knob) {
        return p && find_original(p, netns, napi_id, knob);
}

int irqpin_napi_set(IrqPin *p, const char *netns, const NapiRef *ref, uint64_t value, uint64_t *ret_readback,
                    uint32_t *ret_napi_id) {
        _cleanup_(netdev_genl_freep) NetdevGenl *own = NULL;
        const char *name;
        bool recorded = false;
        NetdevGenl *g;
        NapiInfo info, back;
        int r;

        if (!p || !ref || ref->knob >= _NAPI_KNOB_MAX)
                return -EINVAL;
        name = napi_knob_to_string(ref->knob);
        r = open_genl(p, netns, &g, &own);
        if (r < 0)
                return r;
        r = resolve(g, ref, &info);
        if (r < 0)
                return r;
        if (!info.has[ref->knob])
                return -EOPNOTSUPP;
        if (ret_napi_id)
                *ret_napi_id = info.id;

        if (info.value[ref->knob] != value) {
                if (!find_original(p, netns, info.id, ref->knob)) {
                        NapiOriginal *a = reallocarray(p->napi, p->n_napi + 1, sizeof(NapiOriginal));
                        if (!a)
                                return -ENOMEM;
                        p->napi = a;
                        a[p->n_napi] = (NapiOriginal){ .napi_id = info.id, .knob = ref->knob,
                                                       .value = info.value[ref->knob] };
                        if (netns && !(a[p->n_napi].netns = strdup(netns)))
                                return -ENOMEM;
                        p->n_napi++;
                        recorded = true;
                }
                r = netdev_genl_napi_set(g, info.id, ref->knob, value);
                if (r < 0) {
                        if (recorded)
                                free(p->napi[--p->n_napi].netns); /* nothing changed: nothing to restore */
                        return r;
                }
                log_info("%s@%s:napi-%" PRIu32 "%s%s: %" PRIu64 " -> %" PRIu64, name, ref->device, info.id,
                         netns ? " in " : "", strempty(netns), info.value[ref->knob], value);
        }

        r = netdev_genl_napi_get(g, info.id, &back);
        if (r < 0)
                return r;
        if (!back.has[ref->knob] || back.value[ref->knob] != value) {
                if (ret_readback)
                        *ret_readback = back.value[ref->knob];
                return -EDOM;
        }
        return 0;
}

int irqpin_napi_reset(IrqPin *p, const char *netns, const NapiRef *ref, uint64_t *ret_value) {
        _cleanup_(netdev_genl_freep) NetdevGenl *own = NULL;
        NapiOriginal *o;
        NetdevGenl *g;
        NapiInfo info;
        int r;

        if (!p || !ref || ref->knob >= _NAPI_KNOB_MAX || !ret_value)
                return -EINVAL;
        r = open_genl(p, netns, &g, &own);
        if (r < 0)
                return r;
        r = resolve(g, ref, &info);
        if (r < 0)
                return r;
        if (!info.has[ref->knob])
                return -EOPNOTSUPP;
        o = find_original(p, netns, info.id, ref->knob);
        if (!o) {
                /* Never changed by netpolld: nothing to put back. */
                *ret_value = info.value[ref->knob];
                return 0;
        }
        r = netdev_genl_napi_set(g, info.id, ref->knob, o->value);
        if (r < 0)
                return r;
        log_info("%s@%s:napi-%" PRIu32 ": %" PRIu64 " -> %" PRIu64 " (reset, original value)",
                 napi_knob_to_string(ref->knob), ref->device, info.id, info.value[ref->knob], o->value);
        *ret_value = o->value;
        free(o->netns);
        memmove(o, o + 1, (size_t)(p->napi + p->n_napi - o - 1) * sizeof(NapiOriginal));
        p->n_napi--;
        return 0;
}

int irqpin_napi_restore(IrqPin *p) {
        int failed = 0;

        if (!p)
                return -EINVAL;
        for (size_t i = p->n_napi; i-- > 0;) {
                _cleanup_(netdev_genl_freep) NetdevGenl *own = NULL;
                NapiOriginal *o = &p->napi[i];
                NetdevGenl *g;
                int r;

                r = open_genl(p, o->netns, &g, &own);
                if (r >= 0)
                        r = netdev_genl_napi_set(g, o->napi_id, o->knob, o->value);
                /* An instance (or namespace) that is gone took its value with it. */
                if (r == -ENOENT || r == -ENODEV)
                        r = 0;
                if (r < 0) {
                        log_warning_errno(r, "%s of NAPI instance %" PRIu32 "%s%s: cannot restore %" PRIu64 ": %m",
                                          napi_knob_to_string(o->knob), o->napi_id, o->netns ? " in " : "",
                                          strempty(o->netns), o->value);
                        failed++;
                        continue;
                }
                free(o->netns);
                memmove(o, o + 1, (p->n_napi - i - 1) * sizeof(NapiOriginal));
                p->n_napi--;
        }
        return failed;
}
