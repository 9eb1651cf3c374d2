/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * test-qstats.c: the parser of qstats-get replies (netdev-genl.c), fed messages built
 * the way the kernel builds them (uint attributes of 4 or 8 bytes, only
 * the statistics the driver keeps), and broken ones. No socket.
 */
#include <errno.h>
#include <stdlib.h>

#include <netlink/genl/genl.h>
#include <netlink/msg.h>

#include "macro.h"
#include "netdev-genl.h"
#include "testutil.h"

/* include/uapi/linux/netdev.h */
enum { A_IFINDEX = 1, A_TYPE = 2, A_ID = 3, A_RX_PACKETS = 8, A_RX_BYTES = 9, A_TX_PACKETS = 10,
       A_RX_HW_DROPS = 13, A_TX_HW_DROPS = 24, A_TX_STOP = 33, A_TX_WAKE = 34 };

static struct nl_msg *reply(void) {
        struct nl_msg *msg = nlmsg_alloc();
        ck_assert_ptr_nonnull(msg);
        /* family 0x1f, command 12 (qstats-get), version 1 */
        ck_assert_ptr_nonnull(genlmsg_put(msg, 0, 1, 0x1f, 0, NLM_F_MULTI, 12, 1));
        return msg;
}

static void put_queue(struct nl_msg *msg, uint32_t ifindex, uint32_t type, uint32_t id) {
        ck_assert_int_eq(nla_put_u32(msg, A_IFINDEX, ifindex), 0);
        ck_assert_int_eq(nla_put_u32(msg, A_TYPE, type), 0);
        ck_assert_int_eq(nla_put_u32(msg, A_ID, id), 0);
}

static int parse(struct nl_msg *msg, QueueStats *q) {
        int r = netdev_genl_qstats_parse(nlmsg_hdr(msg), q);
        nlmsg_free(msg);
        return r;
}

START_TEST(test_qstats_rx_queue_small_and_large_uint) {
        struct nl_msg *msg = reply();
        QueueStats q;

        put_queue(msg, 4, 0, 3);
        ck_assert_int_eq(nla_put_u32(msg, A_RX_PACKETS, 52240), 0);
        ck_assert_int_eq(nla_put_u64(msg, A_RX_BYTES, UINT64_C(0x1234567890)), 0);
        ck_assert_int_eq(nla_put_u32(msg, A_RX_HW_DROPS, 0), 0);
        ck_assert_int_eq(parse(msg, &q), 1);
        ck_assert_int_eq(q.ifindex, 4);
        ck_assert_int_eq(q.kind, QUEUE_RX);
        ck_assert_uint_eq(q.id, 3);
        ck_assert(q.has[QSTAT_PACKETS] && q.value[QSTAT_PACKETS] == 52240);
        ck_assert(q.has[QSTAT_BYTES] && q.value[QSTAT_BYTES] == UINT64_C(0x1234567890));
        /* A zero the kernel sent is a zero; what it did not send is absent. */
        ck_assert(q.has[QSTAT_HW_DROPS] && q.value[QSTAT_HW_DROPS] == 0);
        ck_assert(!q.has[QSTAT_ALLOC_FAIL]);
        ck_assert(!q.has[QSTAT_STOP]);
}
END_TEST

START_TEST(test_qstats_tx_queue_reads_tx_attributes_only) {
        struct nl_msg *msg = reply();
        QueueStats q;

        put_queue(msg, 7, 1, 0);
        ck_assert_int_eq(nla_put_u32(msg, A_TX_PACKETS, 26874), 0);
        ck_assert_int_eq(nla_put_u32(msg, A_TX_HW_DROPS, 5), 0);
        ck_assert_int_eq(nla_put_u32(msg, A_TX_STOP, 2), 0);
        ck_assert_int_eq(nla_put_u32(msg, A_TX_WAKE, 2), 0);
        /* An rx attribute on a tx queue means nothing for it. */
        ck_assert_int_eq(nla_put_u32(msg, A_RX_BYTES, 99), 0);
        ck_assert_int_eq(parse(msg, &q), 1);
        ck_assert_int_eq(q.kind, QUEUE_TX);
        ck_assert(q.has[QSTAT_PACKETS] && q.value[QSTAT_PACKETS] == 26874);
        ck_assert(q.has[QSTAT_HW_DROPS] && q.value[QSTAT_HW_DROPS] == 5);
        ck_assert(q.has[QSTAT_STOP] && q.value[QSTAT_STOP] == 2);
        ck_assert(q.has[QSTAT_WAKE] && q.value[QSTAT_WAKE] == 2);
        ck_assert(!q.has[QSTAT_BYTES]);
}
END_TEST

START_TEST(test_qstats_rejects_missing_identity_and_bad_sizes) {
        struct nl_msg *msg = reply();
        QueueStats q = { .ifindex = 99 };

        /* A device-scope answer: no queue type or id. */
        ck_assert_int_eq(nla_put_u32(msg, A_IFINDEX, 4), 0);
        ck_assert_int_eq(nla_put_u32(msg, A_RX_PACKETS, 1), 0);
        ck_assert_int_eq(parse(msg, &q), -EBADMSG);
        ck_assert_int_eq(q.ifindex, 99); /* untouched on failure */

        msg = reply();
        put_queue(msg, 4, 0, 0);
        ck_assert_int_eq(nla_put_u16(msg, A_RX_PACKETS, 1), 0); /* a uint is 4 or 8 bytes */
        ck_assert_int_eq(parse(msg, &q), -EBADMSG);

        msg = reply();
        ck_assert_int_eq(nla_put_u64(msg, A_IFINDEX, 4), 0); /* ifindex is a u32 */
        ck_assert_int_eq(nla_put_u32(msg, A_TYPE, 0), 0);
        ck_assert_int_eq(nla_put_u32(msg, A_ID, 0), 0);
        ck_assert_int_eq(parse(msg, &q), -EBADMSG);

        msg = reply();
        put_queue(msg, 0, 0, 0);
        ck_assert_int_eq(parse(msg, &q), -EBADMSG);
        ck_assert_int_eq(netdev_genl_qstats_parse(NULL, &q), -EINVAL);
}
END_TEST

START_TEST(test_qstats_skips_unknown_queue_type) {
        struct nl_msg *msg = reply();
        QueueStats q = {};

        put_queue(msg, 4, 2, 0); /* a queue type newer than this code */
        ck_assert_int_eq(nla_put_u32(msg, A_RX_PACKETS, 1), 0);
        ck_assert_int_eq(parse(msg, &q), 0);
}
END_TEST

START_TEST(test_qstat_table_names_and_sides) {
        for (Qstat s = 0; s < _QSTAT_MAX; s++) {
                ck_assert_ptr_nonnull(qstat_name(s));
                ck_assert_ptr_nonnull(qstat_help(s));
                ck_assert(qstat_attr(s, QUEUE_RX) > 0 || qstat_attr(s, QUEUE_TX) > 0);
                for (Qstat o = 0; o < s; o++) {
                        ck_assert_str_ne(qstat_name(s), qstat_name(o));
                        ck_assert(qstat_attr(s, QUEUE_RX) == 0 || qstat_attr(s, QUEUE_RX) != qstat_attr(o, QUEUE_RX));
                        ck_assert(qstat_attr(s, QUEUE_TX) == 0 || qstat_attr(s, QUEUE_TX) != qstat_attr(o, QUEUE_TX));
                }
        }
        ck_assert_ptr_null(qstat_name(_QSTAT_MAX));
        ck_assert_int_eq(qstat_attr(QSTAT_STOP, QUEUE_RX), 0);
}
END_TEST

static Suite *qstats_suite(void) {
        Suite *s = suite_create("qstats");
        TCase *tc = tcase_create("qstats");

        tcase_add_test(tc, test_qstats_rx_queue_small_and_large_uint);
        tcase_add_test(tc, test_qstats_tx_queue_reads_tx_attributes_only);
        tcase_add_test(tc, test_qstats_rejects_missing_identity_and_bad_sizes);
        tcase_add_test(tc, test_qstats_skips_unknown_queue_type);
        tcase_add_test(tc, test_qstat_table_names_and_sides);
        suite_add_tcase(s, tc);
        return s;
}

TU_MAIN(qstats_suite)
