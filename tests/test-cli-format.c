/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * test-cli-format.c: netpollctl's pure formatters for status and monitor:
 * fixed-point runnable depth, the "Mode:" text, the list of recent knob
 * changes, the monitor screen's text and its repaint of a terminal. Output
 * is captured in memory and compared byte for byte.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "format.h"
#include "macro.h"
#include "screen.h"
#include "testutil.h"

/* ---------------------------------------------------------------- format */

static void check_milli(uint64_t v, const char *expected) {
        char buf[32];

        ck_assert_str_eq(format_milli(buf, sizeof(buf), v), expected);
}

START_TEST(test_format_milli_two_decimals_rounded_half_up) {
        check_milli(1250, "1.25");
        check_milli(0, "0.00");
        check_milli(1000, "1.00");
        check_milli(4, "0.00");
        check_milli(5, "0.01");
        check_milli(994, "0.99");
        check_milli(995, "1.00");
        check_milli(1999, "2.00");
        check_milli(12345678, "12345.68");
}
END_TEST

START_TEST(test_format_milli_largest_value_does_not_overflow) {
        /* 18446744073709551615 thousandths. */
        check_milli(UINT64_MAX, "18446744073709551.62");
}
END_TEST

START_TEST(test_format_milli_truncates_to_buffer) {
        char buf[4];

        ck_assert_str_eq(format_milli(buf, sizeof(buf), 1250), "1.2");
}
END_TEST

static void check_mode(const char *mode, const char *source, int pressure, const char *expected) {
        char buf[256];

        ck_assert_str_eq(format_mode(buf, sizeof(buf), mode, source, pressure), expected);
}

START_TEST(test_format_mode_names_source_and_psi) {
        check_mode("adaptive", "procs_running", 1, "adaptive (runnable depth from procs_running, PSI in use)");
        check_mode("paused", "schedstat", 0, "paused (runnable depth from schedstat, PSI not in use)");
}
END_TEST

/* explain's decision lines, in local time (UTC here). */
START_TEST(test_format_decision_names_values_time_and_reason) {
        char buf[256], small[24];

        setenv("TZ", "UTC", 1);
        tzset();
        /* 2026-12-06 12:01:03.120 UTC */
        ck_assert_str_eq(format_time_ms(buf, sizeof(buf), UINT64_C(1796558463120)), "12:01:03.120");
        ck_assert_str_eq(format_time_ms(buf, sizeof(buf), UINT64_C(1796558463005)), "12:01:03.005");
        ck_assert_str_eq(format_decision(buf, sizeof(buf), "busy-poll", "50us", "0us", UINT64_C(1796558463120),
                                         "runnable 1.4 > 0.5 for 2 samples: busy polling yields to the waiting tasks"),
                         "busy-poll 50us -> 0us at 12:01:03.120: runnable 1.4 > 0.5 for 2 samples: busy polling "
                         "yields to the waiting tasks");
        ck_assert_str_eq(format_decision(buf, sizeof(buf), NULL, NULL, "0us", 0, NULL), "? ? -> 0us at 00:00:00.000: ?");
        /* Cut to the buffer, never past it. */
        ck_assert_str_eq(format_decision(small, sizeof(small), "busy-poll", "50us", "0us", 0, "x"), "busy-poll 50us -> 0us a");
}
END_TEST

START_TEST(test_format_mode_leaves_out_what_the_daemon_does_not_report) {
        check_mode("static", "sched_debug", -1, "static (runnable depth from sched_debug)");
        check_mode("static", NULL, 1, "static");
        check_mode("static", "", 1, "static");
        check_mode(NULL, NULL, -1, "n/a");
        check_mode("", "schedstat", 1, "n/a (runnable depth from schedstat, PSI in use)");
}
END_TEST

/* ---------------------------------------------------------------- event log */

static void add(EventLog *l, const char *time, const char *name, const char *old, const char *new,
                const char *reason) {
        ck_assert_int_eq(event_log_add(l, time, name, old, new, reason), 0);
}

START_TEST(test_event_log_returns_newest_first) {
        EventLog l = {};

        ck_assert_uint_eq(event_log_size(&l), 0);
        ck_assert_ptr_null(event_log_get(&l, 0));

        add(&l, "12:00:01", "busy-read", "0us", "50us", "profile");
        add(&l, "12:00:02", "busy-poll", "0us", "50us", "manual");
        ck_assert_uint_eq(event_log_size(&l), 2);
        ck_assert_str_eq(event_log_get(&l, 0)->name, "busy-poll");
        ck_assert_str_eq(event_log_get(&l, 0)->reason, "manual");
        ck_assert_str_eq(event_log_get(&l, 1)->name, "busy-read");
        ck_assert_str_eq(event_log_get(&l, 1)->time, "12:00:01");
        ck_assert_str_eq(event_log_get(&l, 1)->old, "0us");
        ck_assert_str_eq(event_log_get(&l, 1)->new, "50us");
        ck_assert_ptr_null(event_log_get(&l, 2));
        event_log_clear(&l);
}
END_TEST

START_TEST(test_event_log_keeps_only_the_last_ten) {
        EventLog l = {};
        char name[32];

        for (int i = 0; i < 13; i++) {
                snprintf(name, sizeof(name), "knob-%d", i);
                add(&l, "12:00:00", name, "1", "2", "adaptive");
        }
        ck_assert_uint_eq(event_log_size(&l), EVENT_LOG_SIZE);
        ck_assert_str_eq(event_log_get(&l, 0)->name, "knob-12");
        ck_assert_str_eq(event_log_get(&l, 9)->name, "knob-3");
        ck_assert_ptr_null(event_log_get(&l, 10));
        event_log_clear(&l);
}
END_TEST

START_TEST(test_event_log_copies_its_strings) {
        EventLog l = {};
        char name[] = "busy-read", old[] = "0us";

        add(&l, "12:00:01", name, old, "50us", "manual");
        name[0] = 'X';
        old[0] = '9';
        ck_assert_str_eq(event_log_get(&l, 0)->name, "busy-read");
        ck_assert_str_eq(event_log_get(&l, 0)->old, "0us");
        event_log_clear(&l);
}
END_TEST

START_TEST(test_event_log_cuts_long_times) {
        EventLog l = {};

        add(&l, "2025-06-01T12:03:07.412Z", "busy-read", "0us", "50us", "manual");
        ck_assert_str_eq(event_log_get(&l, 0)->time, "2025-06-01T12:0");
        event_log_clear(&l);
}
END_TEST

START_TEST(test_event_log_refuses_null_and_stays_unchanged) {
        EventLog l = {};

        add(&l, "12:00:01", "busy-read", "0us", "50us", "manual");
        ck_assert_int_eq(event_log_add(&l, "12:00:02", NULL, "0", "1", "manual"), -EINVAL);
        ck_assert_int_eq(event_log_add(&l, "12:00:02", "busy-poll", "0", "1", NULL), -EINVAL);
        ck_assert_int_eq(event_log_add(NULL, "12:00:02", "busy-poll", "0", "1", "manual"), -EINVAL);
        ck_assert_uint_eq(event_log_size(&l), 1);
        ck_assert_str_eq(event_log_get(&l, 0)->name, "busy-read");
        event_log_clear(&l);
}
END_TEST

START_TEST(test_event_log_clear_empties_and_can_be_reused) {
        EventLog l = {};

        add(&l, "12:00:01", "busy-read", "0us", "50us", "manual");
        event_log_clear(&l);
        ck_assert_uint_eq(event_log_size(&l), 0);
        ck_assert_ptr_null(event_log_get(&l, 0));
        add(&l, "12:00:02", "busy-poll", "0us", "50us", "manual");
        ck_assert_str_eq(event_log_get(&l, 0)->name, "busy-poll");
        event_log_clear(&l);
        event_log_clear(NULL);
}
END_TEST

/* ---------------------------------------------------------------- render */

static char *render(const Screen *s) {
        char *buf = NULL;
        size_t size = 0;
        FILE *f = open_memstream(&buf, &size);
        int r;

        ck_assert_ptr_nonnull(f);
        r = screen_render(s, f);
        ck_assert_int_eq(fclose(f), 0);
        ck_assert_int_eq(r, 0);
        return buf;
}

static const CpuLoad two_cpus[] = {
        { .cpu = 0, .runnable_milli = 1250, .net_rx = 12034, .net_tx = 5, .processed = 999, .squeeze = 3, .drops = 0 },
        { .cpu = 1, .runnable_milli = 0, .net_rx = 7, .net_tx = 0, .processed = 0, .squeeze = 0, .drops = 2 },
};

static const KnobInfo knobs[] = {
        { "busy-read", "50us", "us", "profile", true, "", "" },
        { "busy-loop-threshold", "", "", "default", false, "0001-net-busy-loop-threshold.patch", "" },
        { "netdev-budget", "600", "", "adaptive", true, "", "" },
        { "gro-flush-timeout@veth0", "", "ns", "default", true, "", "" },
};

START_TEST(test_screen_render_shows_header_cpus_knobs_and_changes) {
        _cleanup_(freep) char *out = NULL;
        EventLog l = {};
        Screen s = {
                .profile = "latency",
                .mode = "adaptive",
                .source = "schedstat",
                .pressure = 1,
                .time = "12:03:07",
                .cpus = two_cpus,
                .n_cpus = ELEMENTSOF(two_cpus),
                .knobs = knobs,
                .n_knobs = ELEMENTSOF(knobs),
                .events = &l,
        };

        add(&l, "12:03:01", "busy-read", "0us", "50us", "profile");
        add(&l, "12:03:07", "netdev-budget", "300", "600", "adaptive");
        out = render(&s);
        event_log_clear(&l);
        ck_assert_str_eq(out,
                         "Profile: latency\n"
                         "Mode: adaptive (runnable depth from schedstat, PSI in use)\n"
                         "Updated: 12:03:07\n"
                         "\n"
                         "CPU  RUNNABLE  NET_RX/S  SQUEEZE/S  DROPS/S\n"
                         "0    1.25      12034     3          0\n"
                         "1    0.00      7         0          2\n"
                         "\n"
                         "KNOB                     VALUE  ORIGIN\n"
                         "busy-read                50us   profile\n"
                         "netdev-budget            600    adaptive\n"
                         "gro-flush-timeout@veth0  -      default\n"
                         "\n"
                         "Recent changes, newest first:\n"
                         "TIME      KNOB           CHANGE       REASON\n"
                         "12:03:07  netdev-budget  300 -> 600   adaptive\n"
                         "12:03:01  busy-read      0us -> 50us  profile\n");
}
END_TEST

START_TEST(test_screen_render_once_has_no_time_and_no_changes) {
        _cleanup_(freep) char *out = NULL;
        Screen s = {
                .profile = "balanced",
                .mode = "static",
                .source = "procs_running",
                .pressure = 0,
                .cpus = two_cpus,
                .n_cpus = 1,
                .knobs = knobs,
                .n_knobs = 1,
        };

        out = render(&s);
        ck_assert_str_eq(out,
                         "Profile: balanced\n"
                         "Mode: static (runnable depth from procs_running, PSI not in use)\n"
                         "\n"
                         "CPU  RUNNABLE  NET_RX/S  SQUEEZE/S  DROPS/S\n"
                         "0    1.25      12034     3          0\n"
                         "\n"
                         "KNOB       VALUE  ORIGIN\n"
                         "busy-read  50us   profile\n");
}
END_TEST

START_TEST(test_screen_render_says_what_is_missing) {
        _cleanup_(freep) char *out = NULL;
        EventLog l = {};
        Screen s = {
                .pressure = -1,
                .knobs = knobs + 1,     /* unsupported only */
                .n_knobs = 1,
                .events = &l,
        };

        out = render(&s);
        ck_assert_str_eq(out,
                         "Profile: n/a\n"
                         "Mode: n/a\n"
                         "\n"
                         "No per-CPU load reported.\n"
                         "\n"
                         "No supported knobs.\n"
                         "\n"
                         "No knob changes since the monitor started.\n");
}
END_TEST

START_TEST(test_screen_render_load_note_replaces_cpu_table_and_note_follows_header) {
        _cleanup_(freep) char *out = NULL;
        Screen s = {
                .profile = "latency",
                .mode = "paused",
                .pressure = -1,
                .time = "09:00:00",
                .note = "Refresh failed: GetLoad: Connection timed out (older data shown)",
                .cpus = two_cpus,
                .n_cpus = ELEMENTSOF(two_cpus),
                .load_note = SCREEN_LOAD_UNSUPPORTED,
        };

        out = render(&s);
        ck_assert_str_eq(out,
                         "Profile: latency\n"
                         "Mode: paused\n"
                         "Updated: 09:00:00\n"
                         "Refresh failed: GetLoad: Connection timed out (older data shown)\n"
                         "\n"
                         "Per-CPU load: this netpolld does not report it (it has no GetLoad method).\n"
                         "\n"
                         "No supported knobs.\n");
}
END_TEST

START_TEST(test_screen_render_keeps_control_characters_out_of_the_layout) {
        _cleanup_(freep) char *out = NULL;
        EventLog l = {};
        Screen s = { .pressure = -1, .events = &l };

        add(&l, "12:00:00", "busy\nread", "0us", "", "manual");
        out = render(&s);
        event_log_clear(&l);
        ck_assert_str_eq(out,
                         "Profile: n/a\n"
                         "Mode: n/a\n"
                         "\n"
                         "No per-CPU load reported.\n"
                         "\n"
                         "No supported knobs.\n"
                         "\n"
                         "Recent changes, newest first:\n"
                         "TIME      KNOB       CHANGE    REASON\n"
                         "12:00:00  busy read  0us -> -  manual\n");
}
END_TEST

START_TEST(test_screen_render_refuses_null) {
        Screen s = {};

        ck_assert_int_eq(screen_render(NULL, stdout), -EINVAL);
        ck_assert_int_eq(screen_render(&s, NULL), -EINVAL);
}
END_TEST

/* ---------------------------------------------------------------- load note */

START_TEST(test_screen_load_note_for_a_daemon_without_getload) {
        _cleanup_(freep) char *note = NULL;

        ck_assert_int_eq(screen_load_note("org.freedesktop.DBus.Error.UnknownMethod", "Unknown method GetLoad", &note), 1);
        ck_assert_str_eq(note, "Per-CPU load: this netpolld does not report it (it has no GetLoad method).");
}
END_TEST

START_TEST(test_screen_load_note_carries_the_daemons_reason) {
        _cleanup_(freep) char *a = NULL, *b = NULL;

        ck_assert_int_eq(screen_load_note("org.netpolld1.Error.Failed",
                                          "CPU and softnet statistics cannot be read below /tmp/root", &a), 1);
        ck_assert_str_eq(a, "Per-CPU load: not available: CPU and softnet statistics cannot be read below /tmp/root");
        ck_assert_int_eq(screen_load_note("org.netpolld1.Error.Failed", "", &b), 1);
        ck_assert_str_eq(b, "Per-CPU load: not available: org.netpolld1.Error.Failed");
}
END_TEST

START_TEST(test_screen_load_note_leaves_other_failures_to_the_caller) {
        char *note = (char *) "untouched";

        ck_assert_int_eq(screen_load_note("org.freedesktop.DBus.Error.NoReply", "timed out", &note), 0);
        ck_assert_int_eq(screen_load_note("org.freedesktop.DBus.Error.InconsistentMessage", "bad reply", &note), 0);
        ck_assert_int_eq(screen_load_note("System.Error.ECONNRESET", NULL, &note), 0);
        ck_assert_str_eq(note, "untouched");
        ck_assert_int_eq(screen_load_note(NULL, NULL, &note), -EINVAL);
        ck_assert_int_eq(screen_load_note("org.netpolld1.Error.Failed", "x", NULL), -EINVAL);
}
END_TEST

/* ---------------------------------------------------------------- paint */

static char *paint(const char *text, unsigned rows, unsigned cols) {
        char *buf = NULL;
        size_t size = 0;
        FILE *f = open_memstream(&buf, &size);
        int r;

        ck_assert_ptr_nonnull(f);
        r = screen_paint(text, rows, cols, f);
        ck_assert_int_eq(fclose(f), 0);
        ck_assert_int_eq(r, 0);
        return buf;
}

START_TEST(test_screen_paint_homes_erases_lines_and_rest) {
        _cleanup_(freep) char *a = paint("ab\ncd\n", 0, 0), *b = paint("", 24, 80), *c = paint("x", 24, 80);

        /* No newline after the last line: on the bottom row it would scroll. */
        ck_assert_str_eq(a, "\033[Hab\033[K\ncd\033[K\033[J");
        ck_assert_str_eq(b, "\033[H\033[J");
        ck_assert_str_eq(c, "\033[Hx\033[K\033[J");
}
END_TEST

START_TEST(test_screen_paint_cuts_lines_to_one_less_than_the_width) {
        _cleanup_(freep) char *a = paint("abcdefg\nab\n", 0, 5), *b = paint("abc\n", 0, 1);

        ck_assert_str_eq(a, "\033[Habcd\033[K\nab\033[K\033[J");
        /* A one-column terminal: cutting to zero would show nothing at all. */
        ck_assert_str_eq(b, "\033[Ha\033[K\033[J");
}
END_TEST

START_TEST(test_screen_paint_counts_characters_not_bytes) {
        _cleanup_(freep) char *out = paint("\xc3\xa4\xc3\xb6\xc3\xbc\xc3\x9f\xe2\x82\xac" "x\n", 0, 5);

        ck_assert_str_eq(out, "\033[H\xc3\xa4\xc3\xb6\xc3\xbc\xc3\x9f\033[K\033[J");
}
END_TEST

START_TEST(test_screen_paint_says_how_many_lines_did_not_fit) {
        _cleanup_(freep) char *a = paint("1\n2\n3\n4\n5\n", 3, 80), *b = paint("1\n2\n3\n", 3, 80),
                              *c = paint("1\n2\n3\n4\n5\n", 3, 12);

        ck_assert_str_eq(a, "\033[H1\033[K\n2\033[K\n... 3 more lines: enlarge the window\033[K\033[J");
        ck_assert_str_eq(b, "\033[H1\033[K\n2\033[K\n3\033[K\033[J");
        ck_assert_str_eq(c, "\033[H1\033[K\n2\033[K\n... 3 more \033[K\033[J");
}
END_TEST

START_TEST(test_screen_paint_refuses_null) {
        ck_assert_int_eq(screen_paint(NULL, 24, 80, stdout), -EINVAL);
        ck_assert_int_eq(screen_paint("x\n", 24, 80, NULL), -EINVAL);
}
END_TEST

static Suite *cli_format_suite(void) {
        Suite *s = suite_create("cli-format");
        TCase *tc;

        tc = tcase_create("format");
        tcase_add_test(tc, test_format_milli_two_decimals_rounded_half_up);
        tcase_add_test(tc, test_format_milli_largest_value_does_not_overflow);
        tcase_add_test(tc, test_format_milli_truncates_to_buffer);
        tcase_add_test(tc, test_format_mode_names_source_and_psi);
        tcase_add_test(tc, test_format_mode_leaves_out_what_the_daemon_does_not_report);
        tcase_add_test(tc, test_format_decision_names_values_time_and_reason);
        suite_add_tcase(s, tc);

        tc = tcase_create("event_log");
        tcase_add_test(tc, test_event_log_returns_newest_first);
        tcase_add_test(tc, test_event_log_keeps_only_the_last_ten);
        tcase_add_test(tc, test_event_log_copies_its_strings);
        tcase_add_test(tc, test_event_log_cuts_long_times);
        tcase_add_test(tc, test_event_log_refuses_null_and_stays_unchanged);
        tcase_add_test(tc, test_event_log_clear_empties_and_can_be_reused);
        suite_add_tcase(s, tc);

        tc = tcase_create("render");
        tcase_add_test(tc, test_screen_render_shows_header_cpus_knobs_and_changes);
        tcase_add_test(tc, test_screen_render_once_has_no_time_and_no_changes);
        tcase_add_test(tc, test_screen_render_says_what_is_missing);
        tcase_add_test(tc, test_screen_render_load_note_replaces_cpu_table_and_note_follows_header);
        tcase_add_test(tc, test_screen_render_keeps_control_characters_out_of_the_layout);
        tcase_add_test(tc, test_screen_render_refuses_null);
        suite_add_tcase(s, tc);

        tc = tcase_create("load_note");
        tcase_add_test(tc, test_screen_load_note_for_a_daemon_without_getload);
        tcase_add_test(tc, test_screen_load_note_carries_the_daemons_reason);
        tcase_add_test(tc, test_screen_load_note_leaves_other_failures_to_the_caller);
        suite_add_tcase(s, tc);

        tc = tcase_create("paint");
        tcase_add_test(tc, test_screen_paint_homes_erases_lines_and_rest);
        tcase_add_test(tc, test_screen_paint_cuts_lines_to_one_less_than_the_width);
        tcase_add_test(tc, test_screen_paint_counts_characters_not_bytes);
        tcase_add_test(tc, test_screen_paint_says_how_many_lines_did_not_fit);
        tcase_add_test(tc, test_screen_paint_refuses_null);
        suite_add_tcase(s, tc);

        return s;
}

TU_MAIN(cli_format_suite)
