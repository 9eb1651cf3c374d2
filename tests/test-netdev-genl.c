/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * test-netdev-genl.c: the netdev family's reply parsers without a kernel
 * (netdev_genl_parse_queues/_napis): messages built with libnl as the kernel
 * sends them, in one datagram, through the handlers real requests use.
 */
#include <linux/netlink.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>
#include <stdlib.h>
#include <string.h>

#include "macro.h"
#include "netdev-genl.h"
#include "testutil.h"

#define FAMILY 0x1a
enum { QUEUE_GET = 10, NAPI_GET = 11 };

/* A datagram: the messages appended one after another. */
typedef struct Datagram {
        unsigned char buf[4096];
        size_t len;
} Datagram;

static void append(Datagram *d, struct nl_msg *m) {
        struct nlmsghdr *h = nlmsg_hdr(m);

        ck_assert_uint_le(d->len + NLMSG_ALIGN(h->nlmsg_len), sizeof(d->buf));
        memcpy(d->buf + d->len, h, h->nlmsg_len);
        d->len += NLMSG_ALIGN(h->nlmsg_len);
        nlmsg_free(m);
}

static struct nl_msg *reply(uint8_t cmd) {
        struct nl_msg *m = nlmsg_alloc();

        ck_assert_ptr_nonnull(m);
        ck_assert_ptr_nonnull(genlmsg_put(m, 4242, 1, FAMILY, 0, NLM_F_MULTI, cmd, 1));
        return m;
}

static void add_queue(Datagram *d, uint32_t id, uint32_t type, int64_t napi) {
        struct nl_msg *m = reply(QUEUE_GET);

        nla_put_u32(m, 1, id);   /* NETDEV_A_QUEUE_ID */
        nla_put_u32(m, 2, 3);    /* IFINDEX */
        nla_put_u32(m, 3, type); /* TYPE */
        if (napi >= 0)
                nla_put_u32(m, 4, (uint32_t)napi);
        append(d, m);
}

static void add_done(Datagram *d, int error) {
        struct nl_msg *m = nlmsg_alloc_simple(NLMSG_DONE, NLM_F_MULTI);

        ck_assert_ptr_nonnull(m);
        nlmsg_append(m, &error, sizeof(error), NLMSG_ALIGNTO);
        append(d, m);
}

START_TEST(test_netdev_genl_parse_queues_sorts_and_skips_new_types) {
        _cleanup_(freep) NetdevQueue *q = NULL;
        Datagram d = {};
        size_t n = 0;

        add_queue(&d, 1, 1, 8194);
        add_queue(&d, 0, 2, 1); /* a queue type newer than the code: ignored */
        add_queue(&d, 1, 0, 8194);
        add_queue(&d, 0, 0, -1);
        add_done(&d, 0);
        ck_assert_int_eq(netdev_genl_parse_queues(d.buf, d.len, &q, &n), 0);
        ck_assert_uint_eq(n, 3);
        ck_assert_int_eq(q[0].kind, QUEUE_RX);
        ck_assert_uint_eq(q[0].id, 0);
        ck_assert_uint_eq(q[0].napi_id, 0);
        ck_assert_int_eq(q[1].kind, QUEUE_RX);
        ck_assert_uint_eq(q[1].napi_id, 8194);
        ck_assert_int_eq(q[2].kind, QUEUE_TX);
        ck_assert_uint_eq(q[2].id, 1);
}
END_TEST

START_TEST(test_netdev_genl_parse_refuses_bad_sizes_and_reports_done_errors) {
        NetdevQueue *q = NULL;
        Datagram d = {};
        size_t n = 0;
        struct nl_msg *m = reply(QUEUE_GET);

        /* The queue id as a u16: not the kernel's size. */
        nla_put_u16(m, 1, 7);
        nla_put_u32(m, 3, 0);
        append(&d, m);
        add_done(&d, 0);
        ck_assert_int_eq(netdev_genl_parse_queues(d.buf, d.len, &q, &n), -EBADMSG);
        ck_assert_ptr_null(q);

        d = (Datagram){};
        add_queue(&d, 0, 0, 1);
        add_done(&d, -EOPNOTSUPP); /* a dump that failed says so in NLMSG_DONE */
        ck_assert_int_eq(netdev_genl_parse_queues(d.buf, d.len, &q, &n), -EOPNOTSUPP);
        ck_assert_ptr_null(q);

        /* A truncated datagram yields what it holds whole. */
        d = (Datagram){};
        add_queue(&d, 0, 0, 1);
        add_queue(&d, 1, 0, 2);
        ck_assert_int_eq(netdev_genl_parse_queues(d.buf, d.len - 3, &q, &n), 0);
        ck_assert_uint_eq(n, 1);
        free(q);
}
END_TEST

START_TEST(test_netdev_genl_parse_napis_reads_both_uint_sizes) {
        _cleanup_(freep) NapiInfo *v = NULL;
        struct nl_msg *m = reply(NAPI_GET);
        Datagram d = {};
        size_t n = 0;

        nla_put_u32(m, 2, 8193);                    /* NETDEV_A_NAPI_ID */
        nla_put_u32(m, 1, 3);                       /* IFINDEX */
        nla_put_u32(m, 3, 41);                      /* IRQ */
        nla_put_u32(m, 5, 2);                       /* DEFER_HARD_IRQS */
        nla_put_u32(m, 6, 20000);                   /* GRO_FLUSH_TIMEOUT, 4 bytes */
        nla_put_u64(m, 7, UINT64_C(1) << 33);       /* IRQ_SUSPEND_TIMEOUT, 8 bytes */
        nla_put_u32(m, 4, 812);                     /* PID: a threaded instance's kthread */
        nla_put_u32(m, 8, 2);                       /* THREADED: busy-poll (after 6.18) */
        append(&d, m);
        m = reply(NAPI_GET);
        nla_put_u32(m, 2, 8194);
        nla_put_u32(m, 1, 3);
        append(&d, m);
        add_done(&d, 0);
        ck_assert_int_eq(netdev_genl_parse_napis(d.buf, d.len, &v, &n), 0);
        ck_assert_uint_eq(n, 2);
        ck_assert_uint_eq(v[0].id, 8193);
        ck_assert_int_eq(v[0].ifindex, 3);
        ck_assert_int_eq(v[0].irq, 41);
        ck_assert_int_eq(v[0].pid, 812);
        ck_assert(v[0].has[NAPI_KNOB_THREADED] && v[0].value[NAPI_KNOB_THREADED] == 2);
        ck_assert(v[0].has[NAPI_KNOB_DEFER_HARD_IRQS] && v[0].value[NAPI_KNOB_DEFER_HARD_IRQS] == 2);
        ck_assert(v[0].has[NAPI_KNOB_GRO_FLUSH_TIMEOUT] && v[0].value[NAPI_KNOB_GRO_FLUSH_TIMEOUT] == 20000);
        ck_assert(v[0].has[NAPI_KNOB_IRQ_SUSPEND_TIMEOUT] &&
                  v[0].value[NAPI_KNOB_IRQ_SUSPEND_TIMEOUT] == UINT64_C(1) << 33);
        ck_assert_int_eq(v[1].irq, -1);
        ck_assert(!v[1].has[NAPI_KNOB_GRO_FLUSH_TIMEOUT]);
        ck_assert(!v[1].has[NAPI_KNOB_THREADED]); /* 6.12: no threaded attribute */
        ck_assert_int_eq(v[1].pid, -1);
}
END_TEST

static Suite *netdev_genl_suite(void) {
        Suite *s = suite_create("netdev-genl");
        TCase *tc = tcase_create("parse");

        tcase_add_test(tc, test_netdev_genl_parse_queues_sorts_and_skips_new_types);
        tcase_add_test(tc, test_netdev_genl_parse_refuses_bad_sizes_and_reports_done_errors);
        tcase_add_test(tc, test_netdev_genl_parse_napis_reads_both_uint_sizes);
        suite_add_tcase(s, tc);
        return s;
}

TU_MAIN(netdev_genl_suite)
