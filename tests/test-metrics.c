/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * test-metrics.c: the Prometheus text formatter on fixed inputs, compared as
 * text: units, escaping of label values, HELP/TYPE for empty families.
 */
#include <stdlib.h>
#include <string.h>

#include "macro.h"
#include "metrics.h"
#include "testutil.h"

static char *format(const MetricsInput *in) {
        char *text = NULL;
        ck_assert_int_eq(metrics_format(in, &text), 0);
        ck_assert_ptr_nonnull(text);
        return text;
}

static void assert_has(const char *text, const char *line) {
        if (!strstr(text, line))
                ck_abort_msg("missing\n%s\nin\n%s", line, text);
}

START_TEST(test_metrics_fixed_decimals) {
        char buf[32];
        ck_assert_str_eq(metrics_format_fixed(buf, sizeof(buf), 50000, 9), "0.00005");
        ck_assert_str_eq(metrics_format_fixed(buf, sizeof(buf), 2000000000, 9), "2");
        ck_assert_str_eq(metrics_format_fixed(buf, sizeof(buf), 1500, 3), "1.5");
        ck_assert_str_eq(metrics_format_fixed(buf, sizeof(buf), 0, 3), "0");
        ck_assert_str_eq(metrics_format_fixed(buf, sizeof(buf), 42, 0), "42");
        ck_assert_str_eq(metrics_format_fixed(buf, sizeof(buf), 1001, 3), "1.001");
}
END_TEST

START_TEST(test_metrics_knobs_in_base_units) {
        const MetricsKnob knobs[] = {
                { "busy-read", "manual", METRICS_KNOB_TIME, 1000, true, true, 50 },
                { "gro-flush-timeout@eth1", "profile", METRICS_KNOB_TIME, 1, true, true, 20000 },
                { "netdev-budget", "default", METRICS_KNOB_COUNT, 0, true, true, 300 },
                { "rps-cpus@eth1", "profile", METRICS_KNOB_CPUS, 0, true, true, 4 },
                { "softirq-budget", "default", METRICS_KNOB_TIME, 1000, false, false, 0 },
        };
        MetricsInput in = { .knobs = knobs, .n_knobs = ELEMENTSOF(knobs) };
        _cleanup_(freep) char *t = format(&in);

        assert_has(t, "netpolld_knob_seconds{knob=\"busy-read\",origin=\"manual\"} 0.00005\n");
        assert_has(t, "netpolld_knob_seconds{knob=\"gro-flush-timeout@eth1\",origin=\"profile\"} 0.00002\n");
        assert_has(t, "netpolld_knob_value{knob=\"netdev-budget\",origin=\"default\"} 300\n");
        assert_has(t, "netpolld_knob_cpus{knob=\"rps-cpus@eth1\",origin=\"profile\"} 4\n");
        assert_has(t, "netpolld_knob_supported{knob=\"softirq-budget\"} 0\n");
        assert_has(t, "netpolld_knob_supported{knob=\"busy-read\"} 1\n");
        /* No value for an unsupported knob. */
        ck_assert_ptr_null(strstr(t, "netpolld_knob_seconds{knob=\"softirq-budget\""));
}
END_TEST

START_TEST(test_metrics_escapes_label_values) {
        const MetricsQueue q[] = {
                { "we\\ird\"dev\nx", "rx-0", 8193, 42, "0-1", "none", "", "applied" },
                { "eth1", "tx-0", 0, -1, "", "", "2", "unmanaged" },
        };
        MetricsInput in = { .queues = q, .n_queues = ELEMENTSOF(q) };
        _cleanup_(freep) char *t = format(&in);

        assert_has(t, "netpolld_queue_info{device=\"we\\\\ird\\\"dev\\nx\",queue=\"rx-0\",napi_id=\"8193\","
                      "irq=\"42\",cpus=\"0-1\",rps_cpus=\"none\",xps_cpus=\"\",state=\"applied\"} 1\n");
        assert_has(t, "netpolld_queue_info{device=\"eth1\",queue=\"tx-0\",napi_id=\"\",irq=\"\",cpus=\"\","
                      "rps_cpus=\"\",xps_cpus=\"2\",state=\"unmanaged\"} 1\n");
}
END_TEST

START_TEST(test_metrics_counters_and_load) {
        const MetricsDecision d[] = { { "busy-read", "down", "contention", 3 } };
        const MetricsCpu cpus[] = { { 0, 1800, true, 12 }, { 3, 0, false, 0 } };
        MetricsInput in = { .decisions = d, .n_decisions = 1, .has_samples = true, .samples = 4711,
                            .wakeups_trigger = 17, .wakeups_watch = 5, .wakeups_crowd_exit = 2,
                            .has_busy_poll_rx = true,
                            .busy_poll_rx_packets = 123456789012ULL, .cpus = cpus, .n_cpus = 2,
                            .has_psi = true, .psi_some_milli = 250 };
        _cleanup_(freep) char *t = format(&in);

        assert_has(t, "netpolld_controller_decisions_total{knob=\"busy-read\",direction=\"down\",reason=\"contention\"} 3\n");
        assert_has(t, "netpolld_controller_samples_total 4711\n");
        assert_has(t, "netpolld_controller_wakeups_total{by=\"trigger\"} 17\n");
        assert_has(t, "netpolld_controller_wakeups_total{by=\"watch\"} 5\n");
        assert_has(t, "netpolld_controller_wakeups_total{by=\"crowd-exit\"} 2\n");
        assert_has(t, "netpolld_busy_poll_rx_packets_total 123456789012\n");
        assert_has(t, "netpolld_cpu_runnable_tasks{cpu=\"0\"} 1.8\n");
        assert_has(t, "netpolld_cpu_runnable_tasks{cpu=\"3\"} 0\n");
        assert_has(t, "netpolld_cpu_pressure_some_ratio 0.25\n");
        assert_has(t, "netpolld_cpu_time_squeeze_total{cpu=\"0\"} 12\n");
        ck_assert_ptr_null(strstr(t, "netpolld_cpu_time_squeeze_total{cpu=\"3\"}"));
}
END_TEST

/* Per-queue statistics: one counter family per statistic, only what the kernel sent. */
START_TEST(test_metrics_queue_stats_only_what_kernel_sent) {
        QueueStats rx = { .ifindex = 4, .kind = QUEUE_RX, .id = 0 }, tx = { .ifindex = 4, .kind = QUEUE_TX, .id = 1 };
        const MetricsQueueStats rows[] = {
                { "eth0", 8193, &rx },
                { "eth0", 0, &tx },
        };
        MetricsInput in = { .queue_stats = rows, .n_queue_stats = ELEMENTSOF(rows) };

        rx.has[QSTAT_PACKETS] = rx.has[QSTAT_BYTES] = true;
        rx.value[QSTAT_PACKETS] = 52240;
        rx.value[QSTAT_BYTES] = UINT64_MAX;
        tx.has[QSTAT_PACKETS] = tx.has[QSTAT_STOP] = true;
        tx.value[QSTAT_PACKETS] = 7;
        tx.value[QSTAT_STOP] = 0;
        _cleanup_(freep) char *t = format(&in);

        assert_has(t, "# TYPE netpolld_queue_packets_total counter\n"
                      "netpolld_queue_packets_total{device=\"eth0\",ifindex=\"4\",queue_type=\"rx\",queue_id=\"0\","
                      "napi_id=\"8193\"} 52240\n"
                      "netpolld_queue_packets_total{device=\"eth0\",ifindex=\"4\",queue_type=\"tx\",queue_id=\"1\","
                      "napi_id=\"\"} 7\n");
        assert_has(t, "netpolld_queue_bytes_total{device=\"eth0\",ifindex=\"4\",queue_type=\"rx\",queue_id=\"0\","
                      "napi_id=\"8193\"} 18446744073709551615\n");
        assert_has(t, "netpolld_queue_stop_total{device=\"eth0\",ifindex=\"4\",queue_type=\"tx\",queue_id=\"1\","
                      "napi_id=\"\"} 0\n");
        /* Not sent: no sample, not a zero. */
        ck_assert_ptr_null(strstr(t, "netpolld_queue_bytes_total{device=\"eth0\",ifindex=\"4\",queue_type=\"tx\""));
        ck_assert_ptr_null(strstr(t, "netpolld_queue_wake_total{"));
        assert_has(t, "# TYPE netpolld_queue_wake_total counter\n");
}
END_TEST

START_TEST(test_metrics_every_family_has_help_and_type) {
        static const char *const families[][2] = {
                { "netpolld_knob_supported", "gauge" },
                { "netpolld_knob_seconds", "gauge" },
                { "netpolld_knob_value", "gauge" },
                { "netpolld_knob_cpus", "gauge" },
                { "netpolld_controller_decisions_total", "counter" },
                { "netpolld_controller_samples_total", "counter" },
                { "netpolld_controller_wakeups_total", "counter" },
                { "netpolld_busy_poll_rx_packets_total", "counter" },
                { "netpolld_queue_info", "gauge" },
                { "netpolld_cpu_runnable_tasks", "gauge" },
                { "netpolld_cpu_pressure_some_ratio", "gauge" },
                { "netpolld_cpu_time_squeeze_total", "counter" },
                { "netpolld_queue_packets_total", "counter" },
                { "netpolld_queue_bytes_total", "counter" },
                { "netpolld_queue_alloc_fail_total", "counter" },
                { "netpolld_queue_hw_gso_wire_bytes_total", "counter" },
                { "netpolld_queue_wake_total", "counter" },
        };
        MetricsInput in = {};
        _cleanup_(freep) char *t = format(&in);
        char line[160];

        for (size_t i = 0; i < ELEMENTSOF(families); i++) {
                snprintf(line, sizeof(line), "# HELP %s ", families[i][0]);
                assert_has(t, line);
                snprintf(line, sizeof(line), "# TYPE %s %s\n", families[i][0], families[i][1]);
                assert_has(t, line);
        }
        /* Nothing but comments without input, and the text ends with a newline. */
        for (const char *p = t; *p; p = strchr(p, '\n') + 1)
                ck_assert_int_eq(*p, '#');
        ck_assert_int_eq(t[strlen(t) - 1], '\n');
}
END_TEST

static Suite *metrics_suite(void) {
        Suite *s = suite_create("metrics");
        TCase *tc = tcase_create("format");

        tcase_add_test(tc, test_metrics_fixed_decimals);
        tcase_add_test(tc, test_metrics_knobs_in_base_units);
        tcase_add_test(tc, test_metrics_escapes_label_values);
        tcase_add_test(tc, test_metrics_counters_and_load);
        tcase_add_test(tc, test_metrics_queue_stats_only_what_kernel_sent);
        tcase_add_test(tc, test_metrics_every_family_has_help_and_type);
        suite_add_tcase(s, tc);
        return s;
}

TU_MAIN(metrics_suite)
