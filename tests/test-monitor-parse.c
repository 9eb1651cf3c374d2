/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * test-monitor-parse.c: the statistics file parsers on fixtures captured from
 * this machine's kernel or written to the kernel's documented formats
 * (tests/data/monitor/, see its README), and odd content of every kind.
 */
#include <errno.h>
#include <string.h>

#include "macro.h"
#include "monitor-parse.h"
#include "testutil.h"

static char *fixture(const char *name) {
        _cleanup_(freep) char *dir = tu_data("monitor");
        char *s = tu_read(dir, name);
        ck_assert_msg(s, "cannot read fixture %s", name);
        return s;
}

/* ---- /proc/schedstat ---- */

START_TEST(test_schedstat_v15_reads_run_delay_per_cpu) {
        _cleanup_(freep) char *t = fixture("schedstat-v15.txt");
        SchedstatCpu c[4];
        unsigned version = 0;

        ck_assert_int_eq(schedstat_parse(t, c, 4, &version), 4);
        ck_assert_uint_eq(version, 15);
        ck_assert(c[0].present && c[1].present && c[2].present && c[3].present);
        ck_assert_uint_eq(c[0].run_delay_ns, UINT64_C(119204316757));
        ck_assert_uint_eq(c[1].run_delay_ns, UINT64_C(98123456789));
        ck_assert_uint_eq(c[2].run_delay_ns, UINT64_C(45000000000));
        ck_assert_uint_eq(c[3].run_delay_ns, 7);
}
END_TEST

START_TEST(test_schedstat_v16_reads_run_delay_up_to_u64_max) {
        _cleanup_(freep) char *t = fixture("schedstat-v16.txt");
        SchedstatCpu c[3];
        unsigned version = 0;

        ck_assert_int_eq(schedstat_parse(t, c, 3, &version), 2);
        ck_assert_uint_eq(version, 16);
        ck_assert_uint_eq(c[0].run_delay_ns, UINT64_C(3320485211));
        ck_assert_uint_eq(c[1].run_delay_ns, UINT64_MAX);
        ck_assert(!c[2].present);
}
END_TEST

START_TEST(test_schedstat_v17_named_domains_are_skipped) {
        const char *t = "version 17\ntimestamp 4294892366\n"
                        "cpu0 0 0 12 4 9 3 1000 2500 8\n"
                        "domain0 SMT 00000003 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20\n"
                        "domain1 MC 0000000f 1 2 3\n";
        SchedstatCpu c[1];

        ck_assert_int_eq(schedstat_parse(t, c, 1, NULL), 1);
        ck_assert_uint_eq(c[0].run_delay_ns, 2500);
}
END_TEST

START_TEST(test_schedstat_skips_cpus_beyond_the_array) {
        _cleanup_(freep) char *t = fixture("schedstat-v15.txt");
        SchedstatCpu c[2];

        ck_assert_int_eq(schedstat_parse(t, c, 2, NULL), 4);
        ck_assert_uint_eq(c[1].run_delay_ns, UINT64_C(98123456789));
}
END_TEST

START_TEST(test_schedstat_rejects_other_versions) {
        SchedstatCpu c[1];

        ck_assert_int_eq(schedstat_parse("version 14\ncpu0 0 0 0 0 0 0 0 0 0\n", c, 1, NULL), -EPROTONOSUPPORT);
        ck_assert_int_eq(schedstat_parse("version 18\ncpu0 0 0 0 0 0 0 0 0 0\n", c, 1, NULL), -EPROTONOSUPPORT);
}
END_TEST

START_TEST(test_schedstat_rejects_odd_content_and_leaves_array) {
        static const char *const bad[] = {
                "",
                "cpu0 0 0 0 0 0 0 0 5 0\n",                                  /* no version */
                "version 15\n",                                              /* no cpu */
                "version 15\ncpu0 0 0 0 0 0 0 0 5\n",                        /* 8 numbers */
                "version 15\ncpu0 0 0 0 0 0 0 0 5 0 1\n",                    /* 10 numbers */
                "version 15\ncpu0 0 0 0 0 0 0 0 -5 0\n",                     /* sign */
                "version 15\ncpu0 0 0 0 0 0 0 0 18446744073709551616 0\n",   /* overflow */
                "version 15\ncpu1 0 0 0 0 0 0 0 5 0\ncpu1 0 0 0 0 0 0 0 5 0\n", /* duplicate */
                "version 15\ncpu1 0 0 0 0 0 0 0 5 0\ncpu0 0 0 0 0 0 0 0 5 0\n", /* out of order */
                "version 15\ndomain0 03 1 2\ncpu0 0 0 0 0 0 0 0 5 0\n",       /* domain before cpu */
                "version 15\ncpu0 0 0 0 0 0 0 0 5 0\nbogus 1\n",               /* unknown line */
                "version 15\ncpu 0 0 0 0 0 0 0 5 0\n",                        /* no CPU number */
                "version 15\nversion 15\ncpu0 0 0 0 0 0 0 0 5 0\n",
        };
        SchedstatCpu c[1] = { { .present = true, .run_delay_ns = 42 } };

        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                ck_assert_msg(schedstat_parse(bad[i], c, 1, NULL) == -EBADMSG, "accepted: %s", bad[i]);
                ck_assert(c[0].present);
                ck_assert_uint_eq(c[0].run_delay_ns, 42);
        }
}
END_TEST

/* ---- debugfs sched/debug ---- */

START_TEST(test_sched_debug_reads_nr_running_of_cpu_blocks) {
        _cleanup_(freep) char *t = fixture("sched-debug.txt");
        SchedDebugCpu c[2];

        ck_assert_int_eq(sched_debug_parse(t, c, 2), 2);
        ck_assert(c[0].present && c[1].present);
        ck_assert_uint_eq(c[0].nr_running, 1);
        ck_assert_uint_eq(c[1].nr_running, 2);
}
END_TEST

START_TEST(test_sched_debug_ignores_cfs_rq_nr_running) {
        _cleanup_(freep) char *t = fixture("sched-debug-5.15.txt");
        SchedDebugCpu c[2];

        ck_assert_int_eq(sched_debug_parse(t, c, 2), 2);
        ck_assert_uint_eq(c[0].nr_running, 4); /* not the cfs_rq's 9 */
        ck_assert_uint_eq(c[1].nr_running, 0); /* not the cfs_rq's 5 */
}
END_TEST

START_TEST(test_sched_debug_rejects_odd_content) {
        static const char *const bad[] = {
                "",
                "cpu#0\n  .nr_running : 1\n",                                       /* no header */
                "Sched Debug Version: v0.11\n",                                     /* no CPU */
                "Sched Debug Version: v0.11\ncpu#0\n  .nr_switches : 1\n",          /* no nr_running */
                "Sched Debug Version: v0.11\ncpu#0\n  .nr_running : x\n",
                "Sched Debug Version: v0.11\ncpu#0\n  .nr_running : -1\n",
                "Sched Debug Version: v0.11\ncpu#0\n  .nr_running 1\n",
                "Sched Debug Version: v0.11\ncpu#0\n  .nr_running : 1\n  .nr_running : 1\n",
                "Sched Debug Version: v0.11\ncpu#a, 100 MHz\n  .nr_running : 1\n",
                "Sched Debug Version: v0.11\ncpu#1\n  .nr_running : 1\ncpu#0\n  .nr_running : 1\n",
        };
        SchedDebugCpu c[2];

        for (size_t i = 0; i < ELEMENTSOF(bad); i++)
                ck_assert_msg(sched_debug_parse(bad[i], c, 2) == -EBADMSG, "accepted: %s", bad[i]);
}
END_TEST

/* ---- /proc/stat ---- */

START_TEST(test_proc_stat_reads_procs_running_and_online_cpus) {
        _cleanup_(freep) char *t = fixture("stat.txt");
        ProcStat st;
        bool online[3];

        ck_assert_int_eq(proc_stat_parse(t, &st, online, 3), 2);
        ck_assert_uint_eq(st.procs_running, 7);
        ck_assert_uint_eq(st.n_online, 2);
        ck_assert_uint_eq(st.cpu_slots, 2);
        ck_assert(online[0] && online[1] && !online[2]);
}
END_TEST

START_TEST(test_proc_stat_offline_cpu_leaves_a_hole) {
        const char *t = "cpu  10 0 10 100 0 0 0 0 0 0\ncpu0 5 0 5 50 0 0 0 0 0 0\n"
                        "cpu2 5 0 5 50 0 0 0 0 0 0\nctxt 12\nprocs_running 3\nprocs_blocked 0\n";
        ProcStat st;
        bool online[3];

        ck_assert_int_eq(proc_stat_parse(t, &st, online, 3), 2);
        ck_assert_uint_eq(st.cpu_slots, 3);
        ck_assert(online[0] && !online[1] && online[2]);
}
END_TEST

START_TEST(test_proc_stat_rejects_odd_content) {
        static const char *const bad[] = {
                "",
                "cpu0 1 2 3 4\n",                              /* no procs_running */
                "procs_running 3\n",                           /* no CPU */
                "cpu0 1 2 3 4\nprocs_running x\n",
                "cpu0 1 2 3 4\nprocs_running 3 4\n",
                "cpu0 1 2 3 4\nprocs_running 3\nprocs_running 3\n",
                "cpu0 1 2\nprocs_running 3\n",                 /* too few times */
                "cpu0 1 2 x 4\nprocs_running 3\n",
                "cpu1 1 2 3 4\ncpu1 1 2 3 4\nprocs_running 3\n",
        };
        ProcStat st = { .procs_running = 99 };

        for (size_t i = 0; i < ELEMENTSOF(bad); i++)
                ck_assert_msg(proc_stat_parse(bad[i], &st, NULL, 0) == -EBADMSG, "accepted: %s", bad[i]);
        ck_assert_uint_eq(st.procs_running, 99);
}
END_TEST

/* ---- /proc/pressure/cpu ---- */

START_TEST(test_psi_reads_some_and_full) {
        _cleanup_(freep) char *t = fixture("pressure-cpu.txt");
        Psi p;

        ck_assert_int_eq(psi_parse(t, &p), 0);
        ck_assert_uint_eq(p.some_avg10_centi, 9699);
        ck_assert_uint_eq(p.some_total_us, 253726590);
        ck_assert(p.has_full);
        ck_assert_uint_eq(p.full_total_us, 0);
}
END_TEST

START_TEST(test_psi_without_full_line) {
        _cleanup_(freep) char *t = fixture("pressure-cpu-some.txt");
        Psi p;

        ck_assert_int_eq(psi_parse(t, &p), 0);
        ck_assert_uint_eq(p.some_avg10_centi, 152);
        ck_assert_uint_eq(p.some_total_us, 4815162);
        ck_assert(!p.has_full);
}
END_TEST

START_TEST(test_psi_rejects_odd_content) {
        static const char *const bad[] = {
                "",
                "some avg10=1.5 avg60=0.00 avg300=0.00 total=1\n",
                "some avg10=1.50 avg60=0.00 avg300=0.00\n",
                "some avg10=1.50 avg60=0.00 avg300=0.00 total=x\n",
                "some avg10=1.50 avg60=0.00 avg300=0.00 total=1 more=2\n",
                "some avg60=0.00 avg10=1.50 avg300=0.00 total=1\n",
                "full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n",
                "some avg10=0.00 avg60=0.00 avg300=0.00 total=0\nsome avg10=0.00 avg60=0.00 avg300=0.00 total=0\n",
                "some avg10=0.00 avg60=0.00 avg300=0.00 total=0\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=0\nx\n",
        };
        Psi p = { .some_total_us = 5 };

        for (size_t i = 0; i < ELEMENTSOF(bad); i++)
                ck_assert_msg(psi_parse(bad[i], &p) == -EBADMSG, "accepted: %s", bad[i]);
        ck_assert_uint_eq(p.some_total_us, 5);
}
END_TEST

/* ---- /proc/net/softnet_stat ---- */

START_TEST(test_softnet_11_columns_uses_line_number) {
        _cleanup_(freep) char *t = fixture("softnet-11.txt");
        SoftnetCpu c[4];
        unsigned columns = 0;

        ck_assert_int_eq(softnet_parse(t, c, 4, &columns), 4);
        ck_assert_uint_eq(columns, 11);
        ck_assert_uint_eq(c[0].processed, 0x5c5e1);
        ck_assert_uint_eq(c[0].time_squeeze, 3);
        ck_assert_uint_eq(c[1].dropped, 0x10);
        ck_assert_uint_eq(c[1].time_squeeze, 0x2a);
        ck_assert_uint_eq(c[3].processed, 0xffffffff);
        ck_assert_uint_eq(c[3].time_squeeze, 0x100);
}
END_TEST

START_TEST(test_softnet_13_columns_uses_cpu_index) {
        _cleanup_(freep) char *t = fixture("softnet-13.txt");
        SoftnetCpu c[4];
        unsigned columns = 0;

        ck_assert_int_eq(softnet_parse(t, c, 4, &columns), 3);
        ck_assert_uint_eq(columns, 13);
        ck_assert(c[0].present && !c[1].present && c[2].present && c[3].present);
        ck_assert_uint_eq(c[0].processed, 0x7d0);
        ck_assert_uint_eq(c[0].time_squeeze, 5);
        ck_assert_uint_eq(c[2].processed, 0x3e8);
        ck_assert_uint_eq(c[2].dropped, 2);
        ck_assert_uint_eq(c[2].time_squeeze, 0x40);
        ck_assert_uint_eq(c[3].processed, 0xabcdef);
}
END_TEST

START_TEST(test_softnet_15_columns_from_this_kernel) {
        _cleanup_(freep) char *t = fixture("softnet-15.txt");
        SoftnetCpu c[2];
        unsigned columns = 0;

        ck_assert_int_eq(softnet_parse(t, c, 2, &columns), 2);
        ck_assert_uint_eq(columns, 15);
        ck_assert_uint_eq(c[0].processed, 0x1f6f1);
        ck_assert_uint_eq(c[1].processed, 0x757a0);
        ck_assert_uint_eq(c[1].dropped, 0);
}
END_TEST

START_TEST(test_softnet_rejects_odd_content) {
        static const char *const bad[] = {
                "",
                "00000001 00000002\n",
                "00000001 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000\n",
                "0000zz01 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000\n",
                /* 11 then 13 columns */
                "00000001 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000\n"
                "00000001 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 "
                "00000000 00000001\n",
                /* CPU index 1 twice */
                "00000001 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 "
                "00000000 00000001\n"
                "00000001 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 "
                "00000000 00000001\n",
                /* a blank line between CPUs */
                "00000001 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000\n\n",
        };
        SoftnetCpu c[2];

        for (size_t i = 0; i < ELEMENTSOF(bad); i++)
                ck_assert_msg(softnet_parse(bad[i], c, 2, NULL) == -EBADMSG, "accepted: %s", bad[i]);
}
END_TEST

/* ---- /proc/softirqs ---- */

START_TEST(test_softirqs_2_cpus) {
        _cleanup_(freep) char *t = fixture("softirqs-2.txt");
        SoftirqCpu c[2];

        ck_assert_int_eq(softirqs_parse(t, c, 2), 2);
        ck_assert_uint_eq(c[0].net_rx, 129858);
        ck_assert_uint_eq(c[1].net_rx, 479669);
        ck_assert_uint_eq(c[0].net_tx, 8);
        ck_assert_uint_eq(c[1].net_tx, 2);
}
END_TEST

START_TEST(test_softirqs_64_cpus) {
        _cleanup_(freep) char *t = fixture("softirqs-64.txt");
        SoftirqCpu c[64], few[8];

        ck_assert_int_eq(softirqs_parse(t, c, 64), 64);
        for (unsigned i = 0; i < 64; i++) {
                ck_assert(c[i].present);
                ck_assert_uint_eq(c[i].net_rx, 1000 * i + 7);
                ck_assert_uint_eq(c[i].net_tx, 3 * i);
        }
        ck_assert_int_eq(softirqs_parse(t, few, 8), 64);
        ck_assert_uint_eq(few[7].net_rx, 7007);
}
END_TEST

START_TEST(test_softirqs_rejects_odd_content) {
        static const char *const bad[] = {
                "",
                "   CPU0 CPU1\n  NET_TX: 1 2\n",                         /* no NET_RX */
                "   CPU0 CPU1\n  NET_TX: 1 2\n  NET_RX: 1\n",            /* short row */
                "   CPU0 CPU1\n  NET_TX: 1 2\n  NET_RX: 1 2 3\n",        /* long row */
                "   CPU0 CPUx\n  NET_TX: 1 2\n  NET_RX: 1 2\n",
                "   CPU1 CPU0\n  NET_TX: 1 2\n  NET_RX: 1 2\n",
                "   CPU0 CPU1\n  NET_TX: 1 2\n  NET_RX: 1 2\n  NET_RX: 1 2\n",
                "   CPU0 CPU1\n  NET_TX 1 2\n  NET_RX: 1 2\n",
                "   CPU0 CPU1\n  NET_TX: 1 2\n  NET_RX: 1 -2\n",
                "\n  NET_TX: 1 2\n  NET_RX: 1 2\n",
        };
        SoftirqCpu c[2];

        for (size_t i = 0; i < ELEMENTSOF(bad); i++)
                ck_assert_msg(softirqs_parse(bad[i], c, 2) == -EBADMSG, "accepted: %s", bad[i]);
}
END_TEST

START_TEST(test_netstat_busy_poll_rx_packets) {
        const char *text = "TcpExt: SyncookiesSent BusyPollRxPackets TCPAutoCorking\n"
                           "TcpExt: 0 1234567 9\n"
                           "IpExt: InNoRoutes BusyPollRxPackets\n"
                           "IpExt: 5 6\n";
        uint64_t v = 0;

        ck_assert_int_eq(netstat_field_parse(text, "TcpExt", "BusyPollRxPackets", &v), 0);
        ck_assert_uint_eq(v, 1234567);
        ck_assert_int_eq(netstat_field_parse(text, "IpExt", "BusyPollRxPackets", &v), 0);
        ck_assert_uint_eq(v, 6);
        ck_assert_int_eq(netstat_field_parse(text, "TcpExt", "NoSuchField", &v), -ENOENT);
        ck_assert_int_eq(netstat_field_parse(text, "MPTcpExt", "BusyPollRxPackets", &v), -ENOENT);
        ck_assert_int_eq(netstat_field_parse("TcpExt: A B\nTcpExt: 1\n", "TcpExt", "B", &v), -EBADMSG);
        ck_assert_int_eq(netstat_field_parse("TcpExt: A B\nTcpExt: 1 x\n", "TcpExt", "B", &v), -EBADMSG);
        ck_assert_int_eq(netstat_field_parse("TcpExt: A B\n", "TcpExt", "B", &v), -EBADMSG);
        ck_assert_uint_eq(v, 6);
}
END_TEST


/* ---- one task: schedstat, stat; /proc/loadavg ---- */

START_TEST(test_task_schedstat_reads_run_delay_and_slices) {
        _cleanup_(freep) char *t = fixture("task-schedstat.txt");
        TaskSchedstat ts = {}, before = { 1, 2, 3 }, after = before;

        ck_assert_int_eq(task_schedstat_parse(t, &ts), 0);
        ck_assert_uint_eq(ts.run_ns, UINT64_C(214344194));
        ck_assert_uint_eq(ts.delay_ns, UINT64_C(57085625));
        ck_assert_uint_eq(ts.slices, 662);
        ck_assert_int_eq(task_schedstat_parse("18446744073709551615 0 0", &ts), 0);
        ck_assert_uint_eq(ts.run_ns, UINT64_MAX);

        ck_assert_int_eq(task_schedstat_parse("1 2\n", &after), -EBADMSG);
        ck_assert_int_eq(task_schedstat_parse("1 2 3 4\n", &after), -EBADMSG);
        ck_assert_int_eq(task_schedstat_parse("1 -2 3\n", &after), -EBADMSG);
        ck_assert_int_eq(task_schedstat_parse("1 18446744073709551616 3\n", &after), -EBADMSG);
        ck_assert_int_eq(task_schedstat_parse("", &after), -EBADMSG);
        ck_assert_mem_eq(&after, &before, sizeof(before));
}
END_TEST

START_TEST(test_task_stat_fields_after_the_name) {
        _cleanup_(freep) char *t = fixture("task-stat.txt");
        /* A name with spaces and parentheses shifts naive field counting; fields resume after the last ')'. */
        const char *odd = "42 (a) b (c)) R 1 42 42 0 -1 4194304 97 0 0 0 812 9 0 0 20 0 1 0 1281741 3133440 366 "
                          "18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 7 0 0 0 0 0\n";
        TaskStat st = { .cpu = 99 }, before;

        ck_assert_int_eq(task_stat_parse(t, &st), 0);
        ck_assert_int_eq(st.state, 'S');
        ck_assert(!st.kthread);
        ck_assert_uint_eq(st.cpu, 1);
        ck_assert_uint_eq(st.utime, 1);
        ck_assert_uint_eq(st.stime, 20);
        ck_assert_int_eq(task_stat_parse(odd, &st), 0);
        ck_assert_int_eq(st.state, 'R');
        ck_assert(!st.kthread);
        ck_assert_uint_eq(st.cpu, 7);
        ck_assert_uint_eq(st.utime, 812);
        ck_assert_uint_eq(st.stime, 9);
        /* A kworker: PF_KTHREAD in the flags (field 9). */
        ck_assert_int_eq(task_stat_parse("14238 (kworker/u8:0-events_unbound) I 2 0 0 0 -1 69238880 0 0 0 0 1 0 0 0 "
                                         "20 0 1 0 9 0 0 18446744073709551615 0 0 0 0 0 0 0 2147483647 0 0 0 0 "
                                         "17 1 0 0 0 0 0\n", &st), 0);
        ck_assert(st.kthread);
        ck_assert_int_eq(st.state, 'I');
        ck_assert_uint_eq(st.utime, 1);
        ck_assert_uint_eq(st.cpu, 1);

        before = st;
        ck_assert_int_eq(task_stat_parse("42 (short) R 1 2 3\n", &st), -EBADMSG);
        ck_assert_int_eq(task_stat_parse("42 no name R 1 2 3\n", &st), -EBADMSG);
        ck_assert_int_eq(task_stat_parse("", &st), -EBADMSG);
        /* The state is one letter. */
        ck_assert_int_eq(task_stat_parse("42 (a) RS 1 42 42 0 -1 4194304 97 0 0 0 1 9 0 0 20 0 1 0 1 1 1 "
                                         "1 1 1 0 0 0 0 0 0 0 0 0 0 17 7 0\n", &st), -EBADMSG);
        /* utime must be a number: "x" where field 14 stands. */
        ck_assert_int_eq(task_stat_parse("42 (a) R 1 42 42 0 -1 4194304 97 0 0 0 x 9 0 0 20 0 1 0 1 1 1 "
                                         "1 1 1 0 0 0 0 0 0 0 0 0 0 17 7 0\n", &st), -EBADMSG);
        ck_assert_mem_eq(&st, &before, sizeof(st));
}
END_TEST

START_TEST(test_loadavg_last_pid) {
        _cleanup_(freep) char *t = fixture("loadavg.txt");
        uint64_t pid = 0;

        ck_assert_int_eq(loadavg_last_pid_parse(t, &pid), 0);
        ck_assert_uint_eq(pid, 30580);
        ck_assert_int_eq(loadavg_last_pid_parse("0.00 0.01 0.05 1/105 4194304\n", &pid), 0);
        ck_assert_uint_eq(pid, 4194304);
        ck_assert_int_eq(loadavg_last_pid_parse("0.00 0.01 0.05 105 7\n", &pid), -EBADMSG);
        ck_assert_int_eq(loadavg_last_pid_parse("0.00 0.01 0.05 1/105\n", &pid), -EBADMSG);
        ck_assert_int_eq(loadavg_last_pid_parse("0.00 0.01 0.05 1/105 7 8\n", &pid), -EBADMSG);
        ck_assert_uint_eq(pid, 4194304);
}
END_TEST
static Suite *monitor_parse_suite(void) {
        Suite *s = suite_create("monitor-parse");
        TCase *tc;

        tc = tcase_create("schedstat");
        tcase_add_test(tc, test_schedstat_v15_reads_run_delay_per_cpu);
        tcase_add_test(tc, test_schedstat_v16_reads_run_delay_up_to_u64_max);
        tcase_add_test(tc, test_schedstat_v17_named_domains_are_skipped);
        tcase_add_test(tc, test_schedstat_skips_cpus_beyond_the_array);
        tcase_add_test(tc, test_schedstat_rejects_other_versions);
        tcase_add_test(tc, test_schedstat_rejects_odd_content_and_leaves_array);
        suite_add_tcase(s, tc);

        tc = tcase_create("sched_debug");
        tcase_add_test(tc, test_sched_debug_reads_nr_running_of_cpu_blocks);
        tcase_add_test(tc, test_sched_debug_ignores_cfs_rq_nr_running);
        tcase_add_test(tc, test_sched_debug_rejects_odd_content);
        suite_add_tcase(s, tc);

        tc = tcase_create("proc_stat");
        tcase_add_test(tc, test_proc_stat_reads_procs_running_and_online_cpus);
        tcase_add_test(tc, test_proc_stat_offline_cpu_leaves_a_hole);
        tcase_add_test(tc, test_proc_stat_rejects_odd_content);
        suite_add_tcase(s, tc);

        tc = tcase_create("psi");
        tcase_add_test(tc, test_psi_reads_some_and_full);
        tcase_add_test(tc, test_psi_without_full_line);
        tcase_add_test(tc, test_psi_rejects_odd_content);
        suite_add_tcase(s, tc);

        tc = tcase_create("softnet");
        tcase_add_test(tc, test_softnet_11_columns_uses_line_number);
        tcase_add_test(tc, test_softnet_13_columns_uses_cpu_index);
        tcase_add_test(tc, test_softnet_15_columns_from_this_kernel);
        tcase_add_test(tc, test_softnet_rejects_odd_content);
        suite_add_tcase(s, tc);

        tc = tcase_create("softirqs");
        tcase_add_test(tc, test_softirqs_2_cpus);
        tcase_add_test(tc, test_softirqs_64_cpus);
        tcase_add_test(tc, test_softirqs_rejects_odd_content);
        suite_add_tcase(s, tc);

        tc = tcase_create("netstat");
        tcase_add_test(tc, test_netstat_busy_poll_rx_packets);
        suite_add_tcase(s, tc);

        tc = tcase_create("task");
        tcase_add_test(tc, test_task_schedstat_reads_run_delay_and_slices);
        tcase_add_test(tc, test_task_stat_fields_after_the_name);
        tcase_add_test(tc, test_loadavg_last_pid);
        suite_add_tcase(s, tc);

        return s;
}

TU_MAIN(monitor_parse_suite)
