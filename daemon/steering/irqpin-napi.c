/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * irqpin-napi.c: which NAPI instance a per-NAPI reference means
 * (KNOB@DEV:napi-ID or KNOB@DEV:rx-N), and its current value. Changes go
 * through the owner with the backend of kernel/napi-backend.c.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "irqpin-internal.h"
#include "log.h"

/* The NAPI instance ref means, checked to belong to ref->device. */
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

int irqpin_napi_get(IrqPin *p, const NapiRef *ref, uint64_t *ret_value, uint32_t *ret_napi_id) {
        NapiInfo info;
        int r;

        if (!p || !ref || ref->knob >= _NAPI_KNOB_MAX || !ret_value)
                return -EINVAL;
        if (!p->genl)
                return -EOPNOTSUPP;
        r = resolve(p->genl, ref, &info);
        if (r < 0)
                return r;
        if (!info.has[ref->knob])
                return -EOPNOTSUPP;
        *ret_value = info.value[ref->knob];
        if (ret_napi_id)
                *ret_napi_id = info.id;
        return 0;
}
