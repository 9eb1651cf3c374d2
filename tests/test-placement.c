/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * test-placement.c: the pure placement function on synthetic topologies
 * (2 CPUs; 16 CPUs with adjacent SMT siblings; 2 NUMA nodes x 8 cores x 2
 * threads numbered the Intel way; 8 CPUs with isolated and nohz_full ones)
 * and reading a topology from a fixture sysfs.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "macro.h"
#include "placement.h"
#include "testutil.h"
#include "topology.h"

static CpuInfo cpu_store[64];

/* n CPUs; node(c) and thread(c) describe the machine. */
static CpuTopology topo_make(unsigned n, int (*node)(unsigned), unsigned (*thread)(unsigned)) {
        CpuTopology t = { .cpus = cpu_store, .n_cpus = n, .nr_cpu_ids = n };

        ck_assert_uint_le(n, ELEMENTSOF(cpu_store));
        cpuset_zero(&t.isolated);
        cpuset_zero(&t.nohz_full);
        for (unsigned c = 0; c < n; c++)
                cpu_store[c] = (CpuInfo){ .id = c, .node = node(c), .package = node(c), .core = (int)c,
                                          .thread = thread(c) };
        return t;
}

static int node0(unsigned c) {
        return 0;
}
static unsigned no_smt(unsigned c) {
        return 0;
}
/* 16 CPUs, siblings adjacent (0,1), (2,3), ... as AMD numbers them. */
static unsigned adjacent_smt(unsigned c) {
        return c % 2;
}
/* 32 CPUs: node 0 = 0-7 and their siblings 16-23, node 1 = 8-15 and 24-31. */
static int numa2(unsigned c) {
        return (c % 16) >= 8;
}
static unsigned intel_smt(unsigned c) {
        return c >= 16;
}

static IrqConfig config(IrqStrategy s) {
        IrqConfig c = { .strategy = s, .rps = IRQ_MASK_AUTO, .xps = IRQ_MASK_AUTO };
        cpuset_zero(&c.cpus);
        cpuset_zero(&c.exclude_cpus);
        cpuset_zero(&c.rps_cpus);
        cpuset_zero(&c.xps_cpus);
        return c;
}

static CpuSet set(const char *list) {
        CpuSet s;
        ck_assert_int_eq(cpuset_parse_list(list, &s, NULL), 0);
        return s;
}

static void combined(PlacementQueue *q, size_t n) {
        for (size_t i = 0; i < n; i++)
                q[i] = (PlacementQueue){ QUEUE_COMBINED, (unsigned)i };
}

/* Plans and checks the IRQ CPUs of every queue (want: one CPU per queue). */
static QueuePlan *plan_ok(const IrqConfig *cfg, const CpuTopology *t, const PlacementDevice *dev, const unsigned *want) {
        QueuePlan *plan = NULL;
        const char *reason = NULL;
        size_t n = 0;

        ck_assert_msg(placement_plan(cfg, t, dev, &plan, &n, &reason) == 0, "placement failed: %s", strempty(reason));
        ck_assert_uint_eq(n, dev->n_queues);
        for (size_t i = 0; want && i < n; i++)
                ck_assert_msg(plan[i].cpu == want[i], "queue %zu on CPU %u, want %u", i, plan[i].cpu, want[i]);
        return plan;
}

static void assert_set(const CpuSet *got, const char *want) {
        _cleanup_(freep) char *s = cpuset_format_list(got);
        ck_assert_str_eq(s, want);
}

/* ---- spread ---- */

START_TEST(test_spread_two_cpus_one_queue_each_rps_off) {
        CpuTopology t = topo_make(2, node0, no_smt);
        IrqConfig cfg = config(IRQ_STRATEGY_SPREAD);
        PlacementQueue q[2];
        static const unsigned want[] = { 0, 1 };
        _cleanup_(freep) QueuePlan *p = NULL;

        combined(q, 2);
        p = plan_ok(&cfg, &t, &(PlacementDevice){ .numa_node = -1, .queues = q, .n_queues = 2 }, want);
        /* As many queues as CPUs: the NIC spreads already, RPS stays off. */
        ck_assert(p[0].set_rps);
        assert_set(&p[0].rps, "none");
        assert_set(&p[1].rps, "none");
        ck_assert(p[1].set_xps);
        assert_set(&p[0].xps, "0");
        assert_set(&p[1].xps, "1");
}
END_TEST

START_TEST(test_spread_wraps_when_more_queues_than_cpus) {
        CpuTopology t = topo_make(2, node0, no_smt);
        IrqConfig cfg = config(IRQ_STRATEGY_SPREAD);
        PlacementQueue q[5];
        static const unsigned want[] = { 0, 1, 0, 1, 0 };

        combined(q, 5);
        free(plan_ok(&cfg, &t, &(PlacementDevice){ .numa_node = 0, .queues = q, .n_queues = 5 }, want));
}
END_TEST

START_TEST(test_spread_16_physical_cores_before_siblings) {
        CpuTopology t = topo_make(16, node0, adjacent_smt);
        IrqConfig cfg = config(IRQ_STRATEGY_SPREAD);
        PlacementQueue q[10];
        static const unsigned want[] = { 0, 2, 4, 6, 8, 10, 12, 14, 1, 3 };
        _cleanup_(freep) QueuePlan *p = NULL;

        combined(q, 10);
        p = plan_ok(&cfg, &t, &(PlacementDevice){ .numa_node = 0, .queues = q, .n_queues = 10 }, want);
        /* 10 queues on 16 CPUs: RPS on, over the queue CPU's node (all 16 here). */
        assert_set(&p[0].rps, "0-15");
        assert_set(&p[9].xps, "3");
}
END_TEST

START_TEST(test_spread_16_queues_on_16_cpus_turns_rps_off) {
        CpuTopology t = topo_make(16, node0, adjacent_smt);
        IrqConfig cfg = config(IRQ_STRATEGY_SPREAD);
        PlacementQueue q[16];
        _cleanup_(freep) QueuePlan *p = NULL;

        combined(q, 16);
        p = plan_ok(&cfg, &t, &(PlacementDevice){ .numa_node = 0, .queues = q, .n_queues = 16 }, NULL);
        for (size_t i = 0; i < 16; i++)
                ck_assert(cpuset_is_empty(&p[i].rps));
        ck_assert_uint_eq(p[15].cpu, 15);
}
END_TEST

START_TEST(test_spread_numa_device_node_first) {
        CpuTopology t = topo_make(32, numa2, intel_smt);
        IrqConfig cfg = config(IRQ_STRATEGY_SPREAD);
        PlacementQueue q[20];
        /* node 1's cores, node 1's siblings, then node 0's cores */
        static const unsigned want[] = { 8, 9, 10, 11, 12, 13, 14, 15, 24, 25, 26, 27, 28, 29, 30, 31, 0, 1, 2, 3 };
        _cleanup_(freep) QueuePlan *p = NULL;

        combined(q, 20);
        p = plan_ok(&cfg, &t, &(PlacementDevice){ .numa_node = 1, .queues = q, .n_queues = 20 }, want);
        assert_set(&p[0].rps, "8-15,24-31");
        assert_set(&p[16].rps, "0-7,16-23");
}
END_TEST

START_TEST(test_spread_unknown_node_prefers_cores_everywhere) {
        CpuTopology t = topo_make(32, numa2, intel_smt);
        IrqConfig cfg = config(IRQ_STRATEGY_SPREAD);
        PlacementQueue q[18];
        static const unsigned want[] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17 };

        combined(q, 18);
        free(plan_ok(&cfg, &t, &(PlacementDevice){ .numa_node = -1, .queues = q, .n_queues = 18 }, want));
}
END_TEST

START_TEST(test_spread_offset_continues_after_earlier_devices) {
        CpuTopology t = topo_make(16, node0, adjacent_smt);
        IrqConfig cfg = config(IRQ_STRATEGY_SPREAD);
        PlacementQueue q[3];
        static const unsigned want[] = { 8, 10, 12 };

        combined(q, 3);
        free(plan_ok(&cfg, &t, &(PlacementDevice){ .numa_node = 0, .queues = q, .n_queues = 3, .offset = 4 }, want));
}
END_TEST

/* ---- pack and cpus= ---- */

START_TEST(test_pack_puts_every_queue_on_one_local_cpu) {
        CpuTopology t = topo_make(32, numa2, intel_smt);
        IrqConfig cfg = config(IRQ_STRATEGY_PACK);
        PlacementQueue q[4];
        static const unsigned want[] = { 8, 8, 8, 8 };
        _cleanup_(freep) QueuePlan *p = NULL;

        combined(q, 4);
        p = plan_ok(&cfg, &t, &(PlacementDevice){ .numa_node = 1, .queues = q, .n_queues = 4, .offset = 3 }, want);
        /* RPS spreads the protocol work the IRQs do not. */
        assert_set(&p[3].rps, "8-15,24-31");
        assert_set(&p[3].xps, "8");
}
END_TEST

START_TEST(test_cpus_strategy_round_robin_in_order) {
        CpuTopology t = topo_make(16, node0, adjacent_smt);
        IrqConfig cfg = config(IRQ_STRATEGY_CPUS);
        PlacementQueue q[4];
        static const unsigned want[] = { 4, 5, 9, 4 };
        static const unsigned shifted[] = { 5, 9, 4, 5 };

        cfg.cpus_set = true;
        cfg.cpus = set("9,4-5");
        combined(q, 4);
        free(plan_ok(&cfg, &t, &(PlacementDevice){ .numa_node = 0, .queues = q, .n_queues = 4 }, want));
        free(plan_ok(&cfg, &t, &(PlacementDevice){ .numa_node = 0, .queues = q, .n_queues = 4, .offset = 1 }, shifted));
}
END_TEST

START_TEST(test_cpus_restricts_spread) {
        CpuTopology t = topo_make(32, numa2, intel_smt);
        IrqConfig cfg = config(IRQ_STRATEGY_SPREAD);
        PlacementQueue q[3];
        /* node 1 first even within the restriction */
        static const unsigned want[] = { 8, 0, 16 };
        _cleanup_(freep) QueuePlan *p = NULL;

        cfg.cpus_set = true;
        cfg.cpus = set("0,8,16");
        combined(q, 3);
        p = plan_ok(&cfg, &t, &(PlacementDevice){ .numa_node = 1, .queues = q, .n_queues = 3 }, want);
        /* 3 queues, 3 usable CPUs: RPS off. */
        ck_assert(cpuset_is_empty(&p[0].rps));
}
END_TEST

/* ---- exclusions ---- */

START_TEST(test_exclude_cpus_are_never_used) {
        CpuTopology t = topo_make(2, node0, no_smt);
        IrqConfig cfg = config(IRQ_STRATEGY_SPREAD);
        PlacementQueue q[3];
        static const unsigned want[] = { 1, 1, 1 };
        _cleanup_(freep) QueuePlan *p = NULL;

        cfg.exclude_cpus = set("0");
        combined(q, 3);
        p = plan_ok(&cfg, &t, &(PlacementDevice){ .numa_node = 0, .queues = q, .n_queues = 3 }, want);
        ck_assert(cpuset_is_empty(&p[0].rps));
}
END_TEST

START_TEST(test_isolated_and_nohz_full_avoided_unless_named) {
        CpuTopology t = topo_make(8, node0, no_smt);
        IrqConfig cfg = config(IRQ_STRATEGY_SPREAD);
        PlacementQueue q[6];
        static const unsigned want[] = { 0, 1, 4, 5, 0, 1 };
        static const unsigned named[] = { 2, 3, 4, 2, 3, 4 };
        _cleanup_(freep) QueuePlan *p = NULL;
        CpuSet usable;

        t.isolated = set("2-3");
        t.nohz_full = set("6-7");
        combined(q, 6);
        p = plan_ok(&cfg, &t, &(PlacementDevice){ .numa_node = 0, .queues = q, .n_queues = 6 }, want);
        ck_assert(cpuset_is_empty(&p[0].rps)); /* 6 queues >= 4 usable CPUs */
        ck_assert_int_eq(placement_usable(&cfg, &t, &usable, NULL), 0);
        assert_set(&usable, "0-1,4-5");

        cfg.cpus_set = true;
        cfg.cpus = set("2-4");
        free(plan_ok(&cfg, &t, &(PlacementDevice){ .numa_node = 0, .queues = q, .n_queues = 6 }, named));
}
END_TEST

START_TEST(test_no_usable_cpu_is_an_error_with_reason) {
        CpuTopology t = topo_make(8, node0, no_smt);
        IrqConfig cfg = config(IRQ_STRATEGY_SPREAD);
        PlacementQueue q[1];
        QueuePlan *p = (QueuePlan *)0x1;
        const char *reason = NULL;
        size_t n = 77;

        combined(q, 1);
        PlacementDevice dev = { .numa_node = 0, .queues = q, .n_queues = 1 };

        t.isolated = set("0-3");
        cfg.exclude_cpus = set("4-7");
        ck_assert_int_eq(placement_plan(&cfg, &t, &dev, &p, &n, &reason), -EINVAL);
        ck_assert_str_eq(reason, "no CPU left: every online CPU is excluded, isolated or nohz_full");
        ck_assert_ptr_eq(p, (QueuePlan *)0x1);
        ck_assert_uint_eq(n, 77);

        cfg.cpus_set = true;
        cfg.cpus = set("5");
        ck_assert_int_eq(placement_plan(&cfg, &t, &dev, &p, &n, &reason), -EINVAL);
        ck_assert_str_eq(reason, "every CPU in cpus= is excluded by exclude-cpus=");

        cfg.cpus = set("64-65");
        ck_assert_int_eq(placement_plan(&cfg, &t, &dev, &p, &n, &reason), -EINVAL);
        ck_assert_str_eq(reason, "none of the CPUs in cpus= is online");
}
END_TEST

/* ---- separate rx/tx queues and masks ---- */

START_TEST(test_tx_follows_rx_cpu) {
        CpuTopology t = topo_make(16, node0, adjacent_smt);
        IrqConfig cfg = config(IRQ_STRATEGY_SPREAD);
        /* Input order is not queue order. */
        PlacementQueue q[] = { { QUEUE_TX, 1 }, { QUEUE_RX, 1 }, { QUEUE_TX, 0 }, { QUEUE_RX, 0 }, { QUEUE_TX, 2 } };
        static const unsigned want[] = { 2, 2, 0, 0, 4 };
        _cleanup_(freep) QueuePlan *p = NULL;

        p = plan_ok(&cfg, &t, &(PlacementDevice){ .numa_node = 0, .queues = q, .n_queues = 5 }, want);
        ck_assert_int_eq(p[0].kind, QUEUE_TX);
        ck_assert_uint_eq(p[0].index, 1);
        ck_assert(!p[0].set_rps);
        ck_assert(p[0].set_xps);
        assert_set(&p[0].xps, "2");
        ck_assert(p[1].set_rps);
        ck_assert(!p[1].set_xps);
        assert_set(&p[1].rps, "0-15");
        /* tx-2 has no rx-2: the strategy's CPU for index 2. */
        assert_set(&p[4].xps, "4");
}
END_TEST

START_TEST(test_explicit_off_and_keep_masks) {
        CpuTopology t = topo_make(16, node0, adjacent_smt);
        IrqConfig cfg = config(IRQ_STRATEGY_SPREAD);
        PlacementQueue q[2];
        _cleanup_(freep) QueuePlan *p = NULL, *p2 = NULL;

        combined(q, 2);
        cfg.rps = IRQ_MASK_EXPLICIT;
        cfg.rps_cpus = set("0-1,12");
        cfg.xps = IRQ_MASK_OFF;
        p = plan_ok(&cfg, &t, &(PlacementDevice){ .numa_node = 0, .queues = q, .n_queues = 2 }, NULL);
        assert_set(&p[1].rps, "0-1,12");
        ck_assert(p[1].set_xps);
        assert_set(&p[1].xps, "none");

        cfg.rps = IRQ_MASK_KEEP;
        cfg.xps = IRQ_MASK_KEEP;
        p2 = plan_ok(&cfg, &t, &(PlacementDevice){ .numa_node = 0, .queues = q, .n_queues = 2 }, NULL);
        ck_assert(!p2[0].set_rps);
        ck_assert(!p2[0].set_xps);
}
END_TEST

START_TEST(test_plan_refuses_bad_input) {
        CpuTopology t = topo_make(2, node0, no_smt);
        IrqConfig cfg = config(IRQ_STRATEGY_SPREAD);
        PlacementQueue q[] = { { QUEUE_RX, 0 }, { QUEUE_RX, 0 } };
        QueuePlan *p = NULL;
        const char *reason = NULL;
        size_t n = 0;

        ck_assert_int_eq(placement_plan(&cfg, &t, &(PlacementDevice){ .queues = q, .n_queues = 2 }, &p, &n, &reason),
                         -EINVAL);
        ck_assert_str_eq(reason, "a queue is listed twice");
        ck_assert_int_eq(placement_plan(NULL, &t, &(PlacementDevice){ .queues = q, .n_queues = 1 }, &p, &n, NULL),
                         -EINVAL);
        ck_assert_int_eq(placement_plan(&cfg, &t, &(PlacementDevice){ .n_queues = 0 }, &p, &n, NULL), 0);
        ck_assert_ptr_null(p);
        ck_assert_uint_eq(n, 0);
}
END_TEST

/* ---- topology from sysfs ---- */

static char *root;

static void sysfs_setup(void) {
        root = tu_mkdtemp();
        tu_write(root, "sys/devices/system/cpu/online", "0-3\n", 0644);
        tu_write(root, "sys/devices/system/cpu/possible", "0-7\n", 0644);
        tu_write(root, "sys/devices/system/cpu/isolated", "\n", 0644);
        tu_write(root, "sys/devices/system/cpu/nohz_full", "(null)\n", 0644);
        for (unsigned c = 0; c < 4; c++) {
                char p[128], v[16];

                snprintf(p, sizeof(p), "sys/devices/system/cpu/cpu%u/topology/core_id", c);
                snprintf(v, sizeof(v), "%u\n", c % 2);
                tu_write(root, p, v, 0644);
                snprintf(p, sizeof(p), "sys/devices/system/cpu/cpu%u/topology/physical_package_id", c);
                tu_write(root, p, c < 2 ? "0\n" : "1\n", 0644);
                snprintf(p, sizeof(p), "sys/devices/system/cpu/cpu%u/topology/thread_siblings_list", c);
                tu_write(root, p, c % 2 == 0 ? "0,2\n" : "1,3\n", 0644);
                snprintf(p, sizeof(p), "sys/devices/system/cpu/cpu%u/node%u/.keep", c, c / 2);
                tu_write(root, p, "", 0644);
        }
}

static void sysfs_teardown(void) {
        tu_rm_rf(root);
        free(root);
        root = NULL;
}

START_TEST(test_topology_read_from_sysfs) {
        CpuTopology t = {};
        const char *reason = NULL;

        ck_assert_int_eq(topology_read(root, &t, &reason), 0);
        ck_assert_uint_eq(t.n_cpus, 4);
        ck_assert_uint_eq(t.nr_cpu_ids, 8);
        ck_assert(cpuset_is_empty(&t.isolated));
        ck_assert(cpuset_is_empty(&t.nohz_full));
        ck_assert_uint_eq(t.cpus[2].id, 2);
        ck_assert_int_eq(t.cpus[2].core, 0);
        ck_assert_int_eq(t.cpus[2].package, 1);
        ck_assert_int_eq(t.cpus[2].node, 1);
        ck_assert_uint_eq(t.cpus[2].thread, 1);
        ck_assert_uint_eq(t.cpus[1].thread, 0);
        ck_assert_int_eq(t.cpus[1].node, 0);
        topology_done(&t);
        ck_assert_ptr_null(t.cpus);
}
END_TEST

START_TEST(test_topology_read_tolerates_missing_details) {
        _cleanup_(freep) char *dir = tu_join(root, "sys/devices/system/cpu/cpu3");
        CpuTopology t = {};

        tu_rm_rf(dir);
        tu_write(root, "sys/devices/system/cpu/isolated", "1\n", 0644);
        ck_assert_int_eq(topology_read(root, &t, NULL), 0);
        ck_assert_uint_eq(t.cpus[3].id, 3);
        ck_assert_int_eq(t.cpus[3].core, -1);
        ck_assert_int_eq(t.cpus[3].node, -1);
        ck_assert(cpuset_has(&t.isolated, 1));
        topology_done(&t);
}
END_TEST

START_TEST(test_topology_read_refuses_odd_files) {
        CpuTopology t = {};
        const char *reason = NULL;

        tu_write(root, "sys/devices/system/cpu/cpu1/topology/core_id", "one\n", 0644);
        ck_assert_int_eq(topology_read(root, &t, &reason), -EBADMSG);
        ck_assert_str_eq(reason, "cannot parse a file in /sys/devices/system/cpu/cpuN/topology");
        tu_write(root, "sys/devices/system/cpu/online", "0-x\n", 0644);
        ck_assert_int_eq(topology_read(root, &t, &reason), -EBADMSG);
        ck_assert_str_eq(reason, "cannot parse /sys/devices/system/cpu/online");
        ck_assert_ptr_null(t.cpus);
}
END_TEST

static Suite *placement_suite(void) {
        Suite *s = suite_create("placement");
        TCase *tc;

        tc = tcase_create("spread");
        tcase_add_test(tc, test_spread_two_cpus_one_queue_each_rps_off);
        tcase_add_test(tc, test_spread_wraps_when_more_queues_than_cpus);
        tcase_add_test(tc, test_spread_16_physical_cores_before_siblings);
        tcase_add_test(tc, test_spread_16_queues_on_16_cpus_turns_rps_off);
        tcase_add_test(tc, test_spread_numa_device_node_first);
        tcase_add_test(tc, test_spread_unknown_node_prefers_cores_everywhere);
        tcase_add_test(tc, test_spread_offset_continues_after_earlier_devices);
        suite_add_tcase(s, tc);

        tc = tcase_create("pack-and-cpus");
        tcase_add_test(tc, test_pack_puts_every_queue_on_one_local_cpu);
        tcase_add_test(tc, test_cpus_strategy_round_robin_in_order);
        tcase_add_test(tc, test_cpus_restricts_spread);
        suite_add_tcase(s, tc);

        tc = tcase_create("exclusions");
        tcase_add_test(tc, test_exclude_cpus_are_never_used);
        tcase_add_test(tc, test_isolated_and_nohz_full_avoided_unless_named);
        tcase_add_test(tc, test_no_usable_cpu_is_an_error_with_reason);
        suite_add_tcase(s, tc);

        tc = tcase_create("masks");
        tcase_add_test(tc, test_tx_follows_rx_cpu);
        tcase_add_test(tc, test_explicit_off_and_keep_masks);
        tcase_add_test(tc, test_plan_refuses_bad_input);
        suite_add_tcase(s, tc);

        tc = tcase_create("topology-sysfs");
        tcase_add_checked_fixture(tc, sysfs_setup, sysfs_teardown);
        tcase_add_test(tc, test_topology_read_from_sysfs);
        tcase_add_test(tc, test_topology_read_tolerates_missing_details);
        tcase_add_test(tc, test_topology_read_refuses_odd_files);
        suite_add_tcase(s, tc);
        return s;
}

TU_MAIN(placement_suite)
