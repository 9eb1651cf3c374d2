/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * test-rules.c: workload rules. Parsing of [rule NAME] sections (every error
 * as exact text with file and line), the pure evaluation of rule-eval.c
 * (delays, flapping, a restarting unit, precedence), and the /proc and
 * cgroupfs scan of workload.c on fixture trees.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "macro.h"
#include "policy-fixture.h"
#include "policy.h"
#include "rule-eval.h"
#include "testutil.h"
#include "unit-watch.h"
#include "workload.h"

#define MS UINT64_C(1000)
#define S UINT64_C(1000000)

static DaemonConfig *load_ok(const char *content) {
        _cleanup_(freep) char *path = tu_join(dir, "n.conf");
        DaemonConfig *c = NULL;
        char **errs = NULL;

        write_file("n.conf", content);
        ck_assert_int_eq(config_load(&c, path, &errs), 0);
        ck_assert_ptr_null(errs);
        return c;
}

static char **load_errors(const char *content) {
        _cleanup_(freep) char *path = tu_join(dir, "n.conf");
        DaemonConfig *c = NULL;
        char **errs = NULL;

        write_file("n.conf", content);
        ck_assert_int_eq(config_load(&c, path, &errs), -EINVAL);
        ck_assert_ptr_null(c);
        return errs;
}

/* ---- parsing ---- */

START_TEST(test_rules_parsed_in_file_order) {
        _cleanup_(config_freep) DaemonConfig *c = load_ok(
                "[daemon]\nprofile = balanced\nrule-scan-interval = 250ms\n"
                "[rule db]\nprofile = latency\nunit = redis-server.service\npriority = 7\n"
                "start-delay = 2s\nstop-delay = 500\n"
                "[rule batch]\nprofile = throughput\nprocess = ffmpeg\n"
                "[rule pods]\nprofile = /etc/p/x.conf\ncgroup = /system.slice/podman.service\n");

        ck_assert_uint_eq(c->rule_scan_us, 250 * MS);
        ck_assert_uint_eq(c->n_rules, 3);
        ck_assert_str_eq(c->rules[0].name, "db");
        ck_assert_int_eq(c->rules[0].kind, RULE_UNIT);
        ck_assert_str_eq(c->rules[0].match, "redis-server.service");
        ck_assert_str_eq(c->rules[0].profile, "latency");
        ck_assert_uint_eq(c->rules[0].priority, 7);
        ck_assert_uint_eq(c->rules[0].start_delay_us, 2 * S);
        ck_assert_uint_eq(c->rules[0].stop_delay_us, 500 * MS);
        ck_assert_uint_eq(c->rules[0].line, 4);
        ck_assert_int_eq(c->rules[1].kind, RULE_PROCESS);
        ck_assert_str_eq(c->rules[1].match, "ffmpeg");
        ck_assert_uint_eq(c->rules[1].priority, 0);
        ck_assert_uint_eq(c->rules[1].start_delay_us, 0);
        ck_assert_uint_eq(c->rules[1].stop_delay_us, RULE_DEFAULT_STOP_DELAY_USEC);
        ck_assert_int_eq(c->rules[2].kind, RULE_CGROUP);
        ck_assert_str_eq(c->rules[2].match, "system.slice/podman.service"); /* leading '/' dropped */
        ck_assert_str_eq(c->rules[2].profile, "/etc/p/x.conf");
        ck_assert_ptr_eq(config_find_rule(c, "batch"), &c->rules[1]);
        ck_assert_ptr_null(config_find_rule(c, "nope"));
}
END_TEST

START_TEST(test_rules_every_error_with_file_and_line) {
        _cleanup_(strv_freep) char **errs = load_errors(
                "[rule db]\n"                        /* 1 */
                "profile = latency\n"                /* 2 */
                "process = redis-server\n"           /* 3 */
                "unit = redis.service\n"             /* 4 */
                "[rule db]\n"                        /* 5 */
                "[rule bad name]\n"                  /* 6 */
                "process = x\n"                      /* 7 */
                "[rule u]\n"                         /* 8 */
                "profile = latency\n"                /* 9 */
                "unit = foo@.service\n"              /* 10 */
                "unit = foo\n"                       /* 11 */
                "[rule c]\n"                         /* 12 */
                "profile = latency\n"                /* 13 */
                "cgroup = a/../b\n"                  /* 14 */
                "[rule p]\n"                         /* 15 */
                "profile = latency\n"                /* 16 */
                "process = abcdefghijklmnop\n"       /* 17 */
                "priority = 1001\n"                  /* 18 */
                "colour = blue\n"                    /* 19 */
                "[rule]\n"                           /* 20 */
                "[rule empty]\n");                   /* 21 */

        assert_errors(errs,
                      "$D/n.conf:4: [rule db] unit: the rule already waits for a process (redis-server); give one "
                      "of unit=, process= or cgroup= per rule",
                      "$D/n.conf:5: [rule db]: rule defined twice (first on line 1)",
                      "$D/n.conf:6: [rule bad name]: invalid rule name 'bad name'; expected 1 to 32 letters, digits, "
                      "'_', '.' or '-', not starting with '.'",
                      "$D/n.conf:10: [rule u] unit: invalid value 'foo@.service': a template is never active itself; "
                      "name an instance such as foo@1.service; expected a unit name such as redis-server.service",
                      "$D/n.conf:11: [rule u] unit: set twice (first on line 10)",
                      "$D/n.conf:14: [rule c] cgroup: invalid value 'a/../b': empty, '.' or '..' path components; "
                      "expected a path below /sys/fs/cgroup such as system.slice/podman.service",
                      "$D/n.conf:17: [rule p] process: invalid value 'abcdefghijklmnop': longer than 15 characters: "
                      "the kernel keeps only the first 15 of a process name (/proc/PID/comm), so write those; "
                      "expected a process name such as redis-server",
                      "$D/n.conf:18: [rule p] priority: invalid value '1001': out of range; expected a whole number from 0 to "
                      "1000",
                      "$D/n.conf:19: [rule p] colour: unknown key (expected one of: profile, unit, process, cgroup, "
                      "priority, start-delay, stop-delay)",
                      "$D/n.conf:20: [rule]: unknown section (expected [daemon] or [rule NAME])",
                      "$D/n.conf:8: [rule u]: no unit=, process= or cgroup= (what the rule waits for)",
                      "$D/n.conf:12: [rule c]: no unit=, process= or cgroup= (what the rule waits for)",
                      "$D/n.conf:15: [rule p]: no unit=, process= or cgroup= (what the rule waits for)",
                      "$D/n.conf:21: [rule empty]: no profile= (the profile to switch to while the rule matches)",
                      "$D/n.conf:21: [rule empty]: no unit=, process= or cgroup= (what the rule waits for)");
}
END_TEST

START_TEST(test_rules_unit_names) {
        static const char *const good[] = { "a.service", "getty@tty1.service", "x.scope", "user-1000.slice",
                                            "dev-sda1.device", "foo\\x2dbar.mount" };
        static const char *const bad[] = { "redis", ".service", "a.servic", "a*.service", "a b.service" };
        char buf[128];

        for (size_t i = 0; i < ELEMENTSOF(good); i++) {
                snprintf(buf, sizeof(buf), "[rule r]\nprofile = p\nunit = %s\n", good[i]);
                DaemonConfig *c = load_ok(buf);
                ck_assert_str_eq(c->rules[0].match, good[i]);
                config_free(c);
        }
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                snprintf(buf, sizeof(buf), "[rule r]\nprofile = p\nunit = %s\n", bad[i]);
                char **errs = load_errors(buf);
                ck_assert_msg(strstr(errs[0], "[rule r] unit: invalid value"), "%s: %s", bad[i], errs[0]);
                strv_free(errs);
        }
}
END_TEST

START_TEST(test_rules_missing_profile_is_error_at_rule) {
        _cleanup_(config_freep) DaemonConfig *c = NULL;
        _cleanup_(strv_freep) char **errs = NULL;
        char **d = dirs();

        write_file("ok.conf", "[profile]\ndescription = fine\n");
        c = load_ok("[rule a]\nprofile = ok\nprocess = x\n[rule b]\nprofile = gone\nprocess = y\n");
        ck_assert_int_eq(rules_check_profiles(c, d, &errs), -EINVAL);
        ck_assert_ptr_nonnull(errs);
        ck_assert_str_eq(errs[0] + strlen(dir), "/n.conf:4: [rule b] profile: no profile 'gone':");
        ck_assert_ptr_nonnull(strstr(errs[1], "profile 'gone' not found"));
        ck_assert_ptr_null(errs[2]);
}
END_TEST

/* ---- evaluation ---- */

static Rule mk(const char *name, unsigned priority, uint64_t start, uint64_t stop) {
        return (Rule){ .name = (char *)name, .profile = (char *)"p", .kind = RULE_PROCESS, .match = (char *)"x",
                       .priority = priority, .start_delay_us = start, .stop_delay_us = stop };
}

START_TEST(test_eval_switches_at_once_without_delays) {
        Rule r[] = { mk("a", 0, 0, 0) };
        RuleState st[1] = {};
        uint64_t wake;

        ck_assert_uint_eq(rules_step(r, st, 1, (bool[]){ false }, 1 * S, &wake), RULE_NONE);
        ck_assert_uint_eq(wake, RULE_NO_WAKEUP);
        ck_assert_uint_eq(rules_step(r, st, 1, (bool[]){ true }, 2 * S, &wake), 0);
        ck_assert_uint_eq(wake, RULE_NO_WAKEUP);
        ck_assert_uint_eq(rules_step(r, st, 1, (bool[]){ false }, 3 * S, &wake), RULE_NONE);
}
END_TEST

START_TEST(test_eval_start_delay_needs_the_condition_throughout) {
        Rule r[] = { mk("a", 0, 2 * S, 0) };
        RuleState st[1] = {};
        uint64_t wake;

        ck_assert_uint_eq(rules_step(r, st, 1, (bool[]){ true }, 10 * S, &wake), RULE_NONE);
        ck_assert_uint_eq(wake, 12 * S);
        /* gone before the delay ended: the clock starts again */
        ck_assert_uint_eq(rules_step(r, st, 1, (bool[]){ false }, 11 * S, &wake), RULE_NONE);
        ck_assert_uint_eq(wake, RULE_NO_WAKEUP);
        ck_assert_uint_eq(rules_step(r, st, 1, (bool[]){ true }, 11500 * MS, &wake), RULE_NONE);
        ck_assert_uint_eq(wake, 13500 * MS);
        ck_assert_uint_eq(rules_step(r, st, 1, (bool[]){ true }, 13499 * MS, &wake), RULE_NONE);
        ck_assert_uint_eq(rules_step(r, st, 1, (bool[]){ true }, 13500 * MS, &wake), 0);
        ck_assert_uint_eq(wake, RULE_NO_WAKEUP);
}
END_TEST

START_TEST(test_eval_flapping_process_stays_within_stop_delay) {
        Rule r[] = { mk("a", 0, 0, 1500 * MS) };
        RuleState st[1] = {};
        uint64_t t = 0, wake;
        unsigned switches = 0;
        size_t last = RULE_NONE, w;

        /* Seen for 300 ms, gone for 200 ms, ten times, sampled every 100 ms; then gone. */
        for (int i = 0; i < 60; i++, t += 100 * MS) {
                bool seen = i < 50 && i % 5 < 3;
                w = rules_step(r, st, 1, &seen, t, &wake);
                if (w != last)
                        switches++;
                last = w;
        }
        ck_assert_uint_eq(switches, 1); /* on, and still on 1 s after the last sighting */
        for (int i = 0; i < 10; i++, t += 100 * MS) {
                w = rules_step(r, st, 1, (bool[]){ false }, t, &wake);
                if (w != last)
                        switches++;
                last = w;
        }
        ck_assert_uint_eq(switches, 2); /* and off once stop-delay passed */
        ck_assert_uint_eq(last, RULE_NONE);
}
END_TEST

START_TEST(test_eval_restarting_unit_keeps_the_rule) {
        Rule r[] = { mk("svc", 0, 0, 5 * S) };
        RuleState st[1] = {};
        uint64_t wake;

        r[0].kind = RULE_UNIT;
        ck_assert_uint_eq(rules_step(r, st, 1, (bool[]){ true }, 1 * S, &wake), 0);
        /* systemctl restart: deactivating/inactive for a moment, then active again */
        ck_assert_uint_eq(rules_step(r, st, 1, (bool[]){ false }, 2 * S, &wake), 0);
        ck_assert_uint_eq(wake, 7 * S);
        ck_assert_uint_eq(rules_step(r, st, 1, (bool[]){ true }, 2100 * MS, &wake), 0);
        ck_assert_uint_eq(wake, RULE_NO_WAKEUP);
        /* the wake-up that was armed comes and finds nothing to do */
        ck_assert_uint_eq(rules_step(r, st, 1, (bool[]){ true }, 7 * S, &wake), 0);
        /* stopped for good */
        ck_assert_uint_eq(rules_step(r, st, 1, (bool[]){ false }, 8 * S, &wake), 0);
        ck_assert_uint_eq(rules_step(r, st, 1, (bool[]){ false }, 13 * S, &wake), RULE_NONE);
}
END_TEST

START_TEST(test_eval_priority_then_file_order) {
        Rule r[] = { mk("first", 1, 0, 0), mk("second", 1, 0, 0), mk("high", 5, 0, 0) };
        RuleState st[3] = {};

        ck_assert_uint_eq(rules_step(r, st, 3, (bool[]){ true, true, false }, 1, NULL), 0);
        ck_assert_uint_eq(rules_step(r, st, 3, (bool[]){ false, true, false }, 2, NULL), 1);
        ck_assert_uint_eq(rules_step(r, st, 3, (bool[]){ true, true, true }, 3, NULL), 2);
        ck_assert_uint_eq(rules_step(r, st, 3, (bool[]){ true, true, false }, 4, NULL), 0);
        ck_assert_uint_eq(rules_winner(r, st, 3), 0);
}
END_TEST

START_TEST(test_eval_earliest_wakeup_of_several) {
        Rule r[] = { mk("a", 0, 3 * S, 0), mk("b", 0, 0, 1 * S) };
        RuleState st[2] = {};
        uint64_t wake;

        ck_assert_uint_eq(rules_step(r, st, 2, (bool[]){ false, true }, 10 * S, &wake), 1);
        ck_assert_uint_eq(rules_step(r, st, 2, (bool[]){ true, false }, 11 * S, &wake), 1);
        ck_assert_uint_eq(wake, 12 * S); /* b's stop-delay ends before a's start-delay (14 s) */
        ck_assert_uint_eq(rules_step(r, st, 2, (bool[]){ true, false }, 12 * S, &wake), RULE_NONE);
        ck_assert_uint_eq(wake, 14 * S);
        ck_assert_uint_eq(rules_step(r, st, 2, (bool[]){ true, false }, 14 * S, &wake), 0);
}
END_TEST

/* ---- the scan ---- */

START_TEST(test_scan_processes_and_cgroups) {
        Rule r[] = { mk("p", 0, 0, 0), mk("z", 0, 0, 0), mk("gone", 0, 0, 0), mk("cg", 0, 0, 0),
                     mk("nocg", 0, 0, 0), mk("unit", 0, 0, 0) };
        bool seen[6] = { false, true, true, false, true, true };

        r[0].match = (char *)"my server";
        r[1].match = (char *)"zombie";
        r[2].match = (char *)"absent";
        r[3].kind = RULE_CGROUP;
        r[3].match = (char *)"system.slice/x.service";
        r[4].kind = RULE_CGROUP;
        r[4].match = (char *)"system.slice/y.service";
        r[5].kind = RULE_UNIT;
        tu_write(dir, "proc/1/stat", "1 (init) S 0 1 1 0\n", 0444);
        tu_write(dir, "proc/42/stat", "42 (my server) R 1 42 42 0\n", 0444);
        tu_write(dir, "proc/43/stat", "43 (zombie) Z 1 43 43 0\n", 0444);
        tu_write(dir, "proc/self/stat", "1 (absent) S 0\n", 0444); /* not a PID directory */
        tu_write(dir, "proc/sys/net/core/busy_read", "0\n", 0644);
        tu_write(dir, "sys/fs/cgroup/system.slice/x.service/cgroup.procs", "", 0444);
        tu_write(dir, "sys/fs/cgroup/system.slice/y.service", "not a directory", 0444);

        ck_assert_int_eq(workload_scan(dir, r, 6, seen), 0);
        ck_assert(seen[0]);
        ck_assert(!seen[1]); /* a zombie's comm outlives it */
        ck_assert(!seen[2]);
        ck_assert(seen[3]);
        ck_assert(!seen[4]);
        ck_assert(seen[5]); /* unit rules are not the scan's */
        ck_assert(rules_have_kind(r, 6, RULE_CGROUP));
        ck_assert(!rules_have_kind(r, 3, RULE_UNIT));
}
END_TEST

START_TEST(test_scan_parse_stat_edge_cases) {
        char comm[16];

        ck_assert(workload_parse_stat("7 (a) b) S 1", comm, sizeof(comm)));
        ck_assert_str_eq(comm, "a) b");
        ck_assert(!workload_parse_stat("7 (x) Z 1", comm, sizeof(comm)));
        ck_assert(!workload_parse_stat("7 (x) X 1", comm, sizeof(comm)));
        ck_assert(!workload_parse_stat("garbage", comm, sizeof(comm)));
        ck_assert(!workload_parse_stat("7 (x)", comm, sizeof(comm)));
        ck_assert(workload_parse_stat("7 (0123456789abcdefXYZ) S", comm, 8));
        ck_assert_str_eq(comm, "0123456");
}
END_TEST

START_TEST(test_unit_active_states) {
        ck_assert(unit_active_state_counts("active"));
        ck_assert(unit_active_state_counts("reloading"));
        ck_assert(unit_active_state_counts("activating")); /* also Restart='s auto-restart wait */
        ck_assert(!unit_active_state_counts("deactivating"));
        ck_assert(!unit_active_state_counts("inactive"));
        ck_assert(!unit_active_state_counts("failed"));
        ck_assert(!unit_active_state_counts("not-loaded"));
        ck_assert(!unit_active_state_counts(NULL));
}
END_TEST

static Suite *rules_suite(void) {
        Suite *s = suite_create("rules");
        TCase *tc;

        tc = fixture_tcase(s, "parse");
        tcase_add_test(tc, test_rules_parsed_in_file_order);
        tcase_add_test(tc, test_rules_every_error_with_file_and_line);
        tcase_add_test(tc, test_rules_unit_names);
        tcase_add_test(tc, test_rules_missing_profile_is_error_at_rule);

        tc = tcase_create("eval");
        tcase_add_test(tc, test_eval_switches_at_once_without_delays);
        tcase_add_test(tc, test_eval_start_delay_needs_the_condition_throughout);
        tcase_add_test(tc, test_eval_flapping_process_stays_within_stop_delay);
        tcase_add_test(tc, test_eval_restarting_unit_keeps_the_rule);
        tcase_add_test(tc, test_eval_priority_then_file_order);
        tcase_add_test(tc, test_eval_earliest_wakeup_of_several);
        suite_add_tcase(s, tc);

        tc = fixture_tcase(s, "scan");
        tcase_add_test(tc, test_scan_processes_and_cgroups);
        tcase_add_test(tc, test_scan_parse_stat_edge_cases);
        tcase_add_test(tc, test_unit_active_states);
        return s;
}

TU_MAIN(rules_suite)
