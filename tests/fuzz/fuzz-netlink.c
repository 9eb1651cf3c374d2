/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * fuzz-netlink.c: netdev generic netlink replies as the kernel might send
 * them: the input's first byte picks queue-get or napi-get, the rest is one
 * datagram of netlink messages fed to netdev_genl_parse_queues() /
 * netdev_genl_parse_napis(), the handlers real requests use. A reply is
 * either refused with a negative errno and nothing returned, or gives
 * queues of a known kind in order, NAPI instances with an id.
 */
#include <errno.h>
#include <stdlib.h>

#include "fuzz.h"
#include "macro.h"
#include "netdev-genl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        _cleanup_(freep) void *buf = NULL;
        int r;

        if (size < 1 || size > 64 * 1024)
                return 0;
        buf = fuzz_copy(data + 1, size - 1);
        if (data[0] % 2 == 0) {
                NetdevQueue *q = (NetdevQueue *)1;
                size_t n = 7;

                r = netdev_genl_parse_queues(buf, size - 1, &q, &n);
                if (r < 0) {
                        fuzz_assert(q == (NetdevQueue *)1 && n == 7);
                        return 0;
                }
                for (size_t i = 0; i < n; i++) {
                        fuzz_assert(q[i].kind == QUEUE_RX || q[i].kind == QUEUE_TX);
                        if (i > 0)
                                fuzz_assert(q[i - 1].kind < q[i].kind ||
                                            (q[i - 1].kind == q[i].kind && q[i - 1].id <= q[i].id));
                }
                free(q);
        } else {
                NapiInfo *v = (NapiInfo *)1;
                size_t n = 7;

                r = netdev_genl_parse_napis(buf, size - 1, &v, &n);
                if (r < 0) {
                        fuzz_assert(v == (NapiInfo *)1 && n == 7);
                        return 0;
                }
                for (size_t i = 0; i < n; i++)
                        for (NapiKnob k = 0; k < _NAPI_KNOB_MAX; k++)
                                fuzz_assert(v[i].has[k] || v[i].value[k] == 0);
                free(v);
        }
        return 0;
}
