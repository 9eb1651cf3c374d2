/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * test-policy.c: netpolld.conf parsing and the line syntax every file shares
 * (each error as exact text with file and line), check_config() output, and
 * netpolld's command line. Profiles are in test-profile.c.
 */
#include <errno.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check-config.h"
#include "macro.h"
#include "policy-fixture.h"
#include "policy.h"
#include "testutil.h"

static char **config_errors(const char *rel, int r) {
        _cleanup_(freep) char *path = tu_join(dir, rel);
        DaemonConfig *c = NULL;
        char **errs = NULL;

        ck_assert_int_eq(config_load(&c, path, &errs), r);
        ck_assert_ptr_null(c);
        return errs;
}

/* ---- netpolld.conf ---- */

START_TEST(test_config_every_key_parsed) {
        _cleanup_(config_freep) DaemonConfig *c = NULL;
        _cleanup_(freep) char *path = tu_join(dir, "n.conf");
        char **errs = NULL;

        write_file("n.conf", "[daemon]\nprofile = latency\ninterval = 250\nrollback = not-on-exit\n"
                             "dry-run = yes\nstate-dir = /tmp/np-state\n");
        ck_assert_int_eq(config_load(&c, path, &errs), 0);
        ck_assert_ptr_null(errs);
        ck_assert_str_eq(c->path, path);
        ck_assert_str_eq(c->profile, "latency");
        ck_assert_uint_eq(c->interval_us, 250000);
        ck_assert_int_eq(c->rollback, ROLLBACK_NOT_ON_EXIT);
        ck_assert(c->dry_run);
        ck_assert_str_eq(c->state_dir, "/tmp/np-state");
}
END_TEST

START_TEST(test_config_empty_file_gives_defaults) {
        _cleanup_(config_freep) DaemonConfig *c = NULL;
        _cleanup_(freep) char *path = tu_join(dir, "n.conf");

        write_file("n.conf", "# nothing\n[daemon]\n");
        ck_assert_int_eq(config_load(&c, path, NULL), 0);
        ck_assert_str_eq(c->profile, "balanced");
        ck_assert_uint_eq(c->interval_us, DEFAULT_INTERVAL_USEC);
        ck_assert_int_eq(c->rollback, ROLLBACK_AUTO);
        ck_assert(!c->dry_run);
        ck_assert_str_eq(c->state_dir, "/run/netpolld");
}
END_TEST

START_TEST(test_config_interval_units_and_bounds) {
        static const struct {
                const char *value;
                uint64_t us;
        } good[] = { { "10ms", 10000 }, { "60s", 60000000 }, { "20.5", 20500 }, { "1.5s", 1500000 } };
        _cleanup_(freep) char *path = tu_join(dir, "n.conf");

        for (size_t i = 0; i < ELEMENTSOF(good); i++) {
                _cleanup_(config_freep) DaemonConfig *c = NULL;
                char text[64];
                snprintf(text, sizeof(text), "[daemon]\ninterval = %s\n", good[i].value);
                write_file("n.conf", text);
                ck_assert_int_eq(config_load(&c, path, NULL), 0);
                ck_assert_uint_eq(c->interval_us, good[i].us);
        }
        write_file("n.conf", "[daemon]\ninterval = 61s\n");
        _cleanup_(strv_freep) char **errs = config_errors("n.conf", -EINVAL);
        assert_errors(errs, "$D/n.conf:2: [daemon] interval: invalid value '61s': out of range; expected a time such "
                            "as 100ms or 1s (a bare number is ms), from 10ms to 60s");
}
END_TEST

START_TEST(test_config_every_key_rejects_bad_value) {
        _cleanup_(strv_freep) char **errs = NULL;

        write_file("n.conf", "[daemon]\nprofile = has space\ninterval = 5ms\nrollback = sometimes\n"
                             "dry-run = maybe\nstate-dir = run/netpolld\n");
        errs = config_errors("n.conf", -EINVAL);
        assert_errors(errs,
                      "$D/n.conf:2: [daemon] profile: invalid value 'has space': not a profile name; expected a name "
                      "of letters, digits, '_', '.' or '-' (at most 64 characters, not starting with '.') or a path "
                      "containing '/'",
                      "$D/n.conf:3: [daemon] interval: invalid value '5ms': out of range; expected a time such as "
                      "100ms or 1s (a bare number is ms), from 10ms to 60s",
                      "$D/n.conf:4: [daemon] rollback: invalid value 'sometimes'; expected auto or not-on-exit",
                      "$D/n.conf:5: [daemon] dry-run: invalid value 'maybe'; expected yes or no (true/false, on/off, "
                      "1/0)",
                      "$D/n.conf:6: [daemon] state-dir: invalid value 'run/netpolld': not an absolute path; expected "
                      "a directory such as /run/netpolld");
}
END_TEST

START_TEST(test_config_metrics_file) {
        _cleanup_(config_freep) DaemonConfig *c = NULL, *off = NULL;
        _cleanup_(strv_freep) char **errs = NULL;
        _cleanup_(freep) char *path = tu_join(dir, "n.conf"), *text = NULL, *file = tu_join(dir, "m.prom");

        ck_assert_int_ge(asprintf(&text, "[daemon]\nmetrics-file = %s\n", file), 0);
        write_file("n.conf", text);
        ck_assert_int_eq(config_load(&c, path, NULL), 0);
        ck_assert_str_eq(c->metrics_file, file);

        write_file("n.conf", "[daemon]\nmetrics-file =\n");
        ck_assert_int_eq(config_load(&off, path, NULL), 0);
        ck_assert_ptr_null(off->metrics_file);

        write_file("n.conf", "[daemon]\nmetrics-file = m.prom\n");
        errs = config_errors("n.conf", -EINVAL);
        assert_errors(errs, "$D/n.conf:2: [daemon] metrics-file: invalid value 'm.prom': expected the absolute path "
                            "of a file, such as /var/lib/prometheus/node-exporter/netpolld.prom, or nothing (off)");
        strv_free(errs);
        write_file("n.conf", "[daemon]\n# a directory that is not there\nmetrics-file = /nonexistent-netpolld/m.prom\n");
        errs = config_errors("n.conf", -EINVAL);
        assert_errors(errs, "$D/n.conf:3: [daemon] metrics-file: invalid value '/nonexistent-netpolld/m.prom': "
                            "directory /nonexistent-netpolld does not exist");
        strv_free(errs);
        write_file("n.conf", "[daemon]\nmetrics-file = /tmp/\n");
        errs = config_errors("n.conf", -EINVAL);
        assert_errors(errs, "$D/n.conf:2: [daemon] metrics-file: invalid value '/tmp/': expected the absolute path "
                            "of a file, such as /var/lib/prometheus/node-exporter/netpolld.prom, or nothing (off)");
}
END_TEST

START_TEST(test_config_profile_may_be_path) {
        _cleanup_(config_freep) DaemonConfig *c = NULL;
        _cleanup_(freep) char *path = tu_join(dir, "n.conf");

        write_file("n.conf", "[daemon]\nprofile = ./my profiles/x.conf\n");
        ck_assert_int_eq(config_load(&c, path, NULL), 0);
        ck_assert_str_eq(c->profile, "./my profiles/x.conf");
}
END_TEST

START_TEST(test_config_explicit_missing_file_is_error) {
        _cleanup_(strv_freep) char **errs = config_errors("none.conf", -ENOENT);
        assert_errors(errs, "$D/none.conf: cannot open: No such file or directory");
}
END_TEST

START_TEST(test_config_default_file_missing_means_defaults) {
        _cleanup_(config_freep) DaemonConfig *c = NULL;

        if (access(NETPOLLD_CONF_FILE, F_OK) == 0) {
                tu_skip("%s exists on this machine", NETPOLLD_CONF_FILE);
        }
        ck_assert_int_eq(config_load(&c, NULL, NULL), 0);
        ck_assert_ptr_null(c->path);
        ck_assert_str_eq(c->profile, "balanced");
}
END_TEST

START_TEST(test_config_unknown_section_and_key) {
        _cleanup_(strv_freep) char **errs = NULL;

        write_file("n.conf", "[deamon]\nprofile = x\n[daemon]\nprofil = x\n");
        errs = config_errors("n.conf", -EINVAL);
        assert_errors(errs, "$D/n.conf:1: [deamon]: unknown section (expected [daemon] or [rule NAME])",
                      "$D/n.conf:4: [daemon] profil: unknown key (expected one of: profile, interval, rollback, "
                      "dry-run, state-dir, metrics-file, "
                      "rule-scan-interval)");
}
END_TEST

START_TEST(test_config_key_set_twice) {
        _cleanup_(strv_freep) char **errs = NULL;

        write_file("n.conf", "[daemon]\ninterval = 1s\n\n[daemon]\ninterval = 2s\n");
        errs = config_errors("n.conf", -EINVAL);
        assert_errors(errs, "$D/n.conf:5: [daemon] interval: set twice (first on line 2)");
}
END_TEST

/* ---- line syntax (the libinih layer) ---- */

START_TEST(test_syntax_garbage_line) {
        _cleanup_(strv_freep) char **errs = NULL;

        write_file("n.conf", "[daemon]\ngarbage\n[daemon\ninterval = 1s\n");
        errs = config_errors("n.conf", -EINVAL);
        assert_errors(errs, "$D/n.conf:2: expected 'key = value' or '[section]'",
                      "$D/n.conf:3: expected 'key = value' or '[section]'");
}
END_TEST

START_TEST(test_syntax_collects_every_error) {
        _cleanup_(strv_freep) char **errs = NULL;

        write_file("n.conf", "[daemon]\ninterval = 5\nrollback = never\n");
        errs = config_errors("n.conf", -EINVAL);
        assert_errors(errs,
                      "$D/n.conf:2: [daemon] interval: invalid value '5': out of range; expected a time such as "
                      "100ms or 1s (a bare number is ms), from 10ms to 60s",
                      "$D/n.conf:3: [daemon] rollback: invalid value 'never'; expected auto or not-on-exit");
}
END_TEST

START_TEST(test_syntax_too_long_line) {
        _cleanup_(strv_freep) char **errs = NULL;
        char comment[200], value[191], text[512];

        /* A 199-character line is fine, a 200-character one is not; later lines keep their numbers. */
        memset(comment, 'x', 199);
        comment[0] = '#';
        comment[199] = '\0';
        memset(value, 'a', 190);
        value[190] = '\0';
        snprintf(text, sizeof(text), "[daemon]\n%s\nprofile = %s\ninterval = 5\n", comment, value);
        write_file("n.conf", text);
        errs = config_errors("n.conf", -EINVAL);
        assert_errors(errs, "$D/n.conf:3: line too long (at most 199 characters)",
                      "$D/n.conf:4: [daemon] interval: invalid value '5': out of range; expected a time such as "
                      "100ms or 1s (a bare number is ms), from 10ms to 60s");
}
END_TEST

START_TEST(test_syntax_indented_key_is_not_continuation) {
        _cleanup_(config_freep) DaemonConfig *c = NULL;
        _cleanup_(freep) char *path = tu_join(dir, "n.conf");

        write_file("n.conf", "[daemon]\nprofile = latency\n    interval = 200ms\n\t  dry-run = on\n");
        ck_assert_int_eq(config_load(&c, path, NULL), 0);
        ck_assert_str_eq(c->profile, "latency");
        ck_assert_uint_eq(c->interval_us, 200000);
        ck_assert(c->dry_run);
}
END_TEST

START_TEST(test_syntax_comments_and_inline_comments) {
        _cleanup_(config_freep) DaemonConfig *c = NULL;
        _cleanup_(freep) char *path = tu_join(dir, "n.conf");

        write_file("n.conf", "; comment\n# comment\n[daemon] ; the section\nprofile = latency ; why\n  # indented\n");
        ck_assert_int_eq(config_load(&c, path, NULL), 0);
        ck_assert_str_eq(c->profile, "latency");
}
END_TEST

START_TEST(test_syntax_key_before_section) {
        _cleanup_(strv_freep) char **errs = NULL;

        write_file("n.conf", "interval = 1s\n[daemon]\n");
        errs = config_errors("n.conf", -EINVAL);
        assert_errors(errs, "$D/n.conf:1: interval: key before the first [section] header");
}
END_TEST

/* ---- check_config() ---- */

typedef struct Output {
        char *out, *err;
} Output;

static int run_check(const char *config, const char *profile, char *const *pdirs, const char *sysroot, Output *o) {
        size_t n1, n2;
        FILE *out = open_memstream(&o->out, &n1), *err = open_memstream(&o->err, &n2);
        int r;

        ck_assert_ptr_nonnull(out);
        ck_assert_ptr_nonnull(err);
        r = check_config(config, profile, pdirs, sysroot, out, err);
        fclose(out);
        fclose(err);
        return r;
}

static void output_done(Output *o) {
        free(o->out);
        free(o->err);
}

START_TEST(test_check_config_every_shipped_profile) {
        _cleanup_(freep) char *pattern = tu_source("conf/profiles/*.conf"), *conf = tu_source("conf/netpolld.conf"),
                                  *pdir = tu_source("conf/profiles");
        char *v[] = { pdir, NULL };
        glob_t g = {};

        ck_assert_int_eq(glob(pattern, 0, NULL, &g), 0);
        ck_assert_uint_gt(g.gl_pathc, 0);
        for (size_t i = 0; i < g.gl_pathc; i++) {
                Output o = {};
                int r = run_check(conf, g.gl_pathv[i], v, dir, &o);
                ck_assert_msg(r == 0, "%s: %s", g.gl_pathv[i], o.err);
                ck_assert_ptr_nonnull(strstr(o.out, "\nConfiguration is valid.\n"));
                output_done(&o);
        }
        globfree(&g);
}
END_TEST

/* Column widths follow the fixture's path length, so compare with runs of spaces collapsed. */
static char *squeeze_spaces(const char *s) {
        char *r = strdup(s), *w = r;
        ck_assert_ptr_nonnull(r);
        for (const char *p = s; *p; p++)
                if (!(*p == ' ' && p > s && p[-1] == ' '))
                        *w++ = *p;
        *w = 0;
        return r;
}

START_TEST(test_check_config_output) {
        _cleanup_(freep) char *data = tu_data("policy"), *conf = tu_data("policy/show-netpolld.conf"),
                                  *text = tu_read(data, "show.expected"), *want = NULL,
                                  *want_err = NULL;
        char *v[] = { data, NULL };
        Output o = {};

        tu_write(dir, "proc/sys/net/core/busy_read", "0\n", 0644);
        tu_write(dir, "proc/sys/net/core/netdev_budget", "300\n", 0644);
        tu_write(dir, "sys/class/net/eth9/gro_flush_timeout", "0\n", 0644);
        ck_assert_ptr_nonnull(text);
        ck_assert_int_eq(run_check(conf, NULL, v, dir, &o), 0);
        want = subst(text, data);
        _cleanup_(freep) char *got_squeezed = squeeze_spaces(o.out), *want_squeezed = squeeze_spaces(want);
        ck_assert_str_eq(got_squeezed, want_squeezed);
        want_err = subst("netpolld: warning: busy-loop-threshold is not supported by this kernel (needs "
                         "kernel-patches/0001-net-busy_poll-add-busy_loop_threshold-sysctl.patch); it will be skipped\n"
                         "netpolld: warning: dev-weight is not supported by this kernel; it will be skipped\n"
                         "netpolld: warning: napi-defer-hard-irqs@nodev0: device nodev0 does not exist; it will be "
                         "skipped\n", data);
        ck_assert_str_eq(o.err, want_err);
        output_done(&o);
}
END_TEST

START_TEST(test_check_config_reports_every_error) {
        _cleanup_(freep) char *conf = tu_join(dir, "n.conf"), *want = NULL;
        Output o = {};

        /* A broken config yields no profile name, so the override is what still gets checked. */
        write_file("n.conf", "[daemon]\nprofile = balanced\nrollback = never\n");
        write_file("broken.conf", "[knobs]\nbusy-read = 1h\n");
        ck_assert_int_eq(run_check(conf, "broken", dirs(), dir, &o), 1);
        ck_assert_str_eq(o.out, "");
        want = subst("netpolld: $D/n.conf:3: [daemon] rollback: invalid value 'never'; expected auto or not-on-exit\n"
                     "netpolld: $D/broken.conf:2: [knobs] busy-read: invalid value '1h': unknown unit; expected ns, "
                     "us, ms or s; expected a time such as 50us or 2ms (a bare number is us), from 0us to "
                     "2147483647us\n", dir);
        ck_assert_str_eq(o.err, want);
        output_done(&o);
}
END_TEST

/* ---- the netpolld binary ---- */

/* Runs netpolld with args; stdout and stderr land in the fixture dir. Returns the exit code. */
static int run_netpolld(const char *const *args, char **ret_out, char **ret_err) {
        const char *bin = getenv("NETPOLLD_BINARY");
        _cleanup_(freep) char *out = tu_join(dir, "stdout"), *err = tu_join(dir, "stderr");
        const char *argv[16] = { "netpolld" };
        int status;
        pid_t pid;

        ck_assert_msg(bin, "NETPOLLD_BINARY is not set (run through meson test)");
        for (size_t i = 0; args[i]; i++)
                argv[i + 1] = args[i];
        pid = fork();
        ck_assert_int_ge(pid, 0);
        if (pid == 0) {
                if (!freopen(out, "w", stdout) || !freopen(err, "w", stderr))
                        _exit(127);
                execv(bin, (char *const *)argv);
                _exit(127);
        }
        ck_assert_int_eq(waitpid(pid, &status, 0), pid);
        ck_assert(WIFEXITED(status));
        *ret_out = tu_read(dir, "stdout");
        *ret_err = tu_read(dir, "stderr");
        return WEXITSTATUS(status);
}

START_TEST(test_netpolld_check_config_broken_profile_exits_1) {
        _cleanup_(freep) char *conf = tu_join(dir, "n.conf"), *prof = tu_join(dir, "broken.conf"), *out = NULL,
                                  *err = NULL, *want = NULL;

        write_file("n.conf", "[daemon]\n");
        write_file("broken.conf", "[knobs]\nbusy-read = 5x\n");
        ck_assert_int_eq(run_netpolld((const char *[]){ "--check-config", "--config", conf, "--profile", prof,
                                                        "--sysroot", dir, NULL }, &out, &err), 1);
        want = subst("netpolld: $D/broken.conf:2: [knobs] busy-read: invalid value '5x': unknown unit; expected ns, us, "
                     "ms or s; expected a time such as 50us or 2ms (a bare number is us), from 0us to 2147483647us\n",
                     dir);
        ck_assert_str_eq(err, want);
        ck_assert_str_eq(out, "");
}
END_TEST

START_TEST(test_netpolld_check_config_profile_dir_order) {
        _cleanup_(freep) char *conf = tu_join(dir, "n.conf"), *d1 = tu_join(dir, "d1"), *d2 = tu_join(dir, "d2"),
                                  *out = NULL, *err = NULL;

        write_file("n.conf", "[daemon]\nprofile = x\n");
        write_file("d1/x.conf", "[profile]\ndescription = first\n");
        write_file("d2/x.conf", "[profile]\ndescription = second\n");
        ck_assert_int_eq(run_netpolld((const char *[]){ "--check-config", "--config", conf, "--profile-dir", d1,
                                                        "--profile-dir", d2, "--sysroot", dir, NULL }, &out, &err), 0);
        ck_assert_ptr_nonnull(strstr(out, "\n  first\n"));
}
END_TEST

START_TEST(test_netpolld_help_exits_0) {
        _cleanup_(freep) char *out = NULL, *err = NULL;

        ck_assert_int_eq(run_netpolld((const char *[]){ "--help", NULL }, &out, &err), 0);
        ck_assert_ptr_nonnull(startswith(out, "Usage: netpolld [OPTIONS...]\n"));
        ck_assert_str_eq(err, "");
}
END_TEST

START_TEST(test_netpolld_bad_usage_exits_2) {
        _cleanup_(freep) char *out = NULL, *err = NULL, *out2 = NULL, *err2 = NULL;

        ck_assert_int_eq(run_netpolld((const char *[]){ "--bogus", NULL }, &out, &err), 2);
        ck_assert_str_eq(err, "netpolld: unrecognized option '--bogus'\nTry 'netpolld --help'.\n");
        ck_assert_int_eq(run_netpolld((const char *[]){ "extra", NULL }, &out2, &err2), 2);
        ck_assert_str_eq(err2, "netpolld: unexpected argument 'extra'\nTry 'netpolld --help'.\n");
}
END_TEST

START_TEST(test_netpolld_refuses_to_start_with_broken_profile) {
        _cleanup_(freep) char *conf = tu_join(dir, "n.conf"), *prof = tu_join(dir, "broken.conf"),
                                  *state = tu_join(dir, "state"), *out = NULL, *err = NULL, *want = NULL;
        struct stat st;

        write_file("n.conf", "[daemon]\n");
        write_file("broken.conf", "[knobs]\nbusy-read = 50us\nbusy-poll = -1\n");
        write_file("proc/sys/net/core/busy_read", "0\n");
        /* The bus address is never reached: a bad configuration is refused before anything else. */
        ck_assert_int_eq(run_netpolld((const char *[]){ "--config", conf, "--profile", prof, "--sysroot", dir,
                                                        "--state-dir", state, "--bus-address",
                                                        "unix:path=/nonexistent", NULL }, &out, &err), 1);
        want = subst("netpolld: error: $D/broken.conf:3: [knobs] busy-poll: invalid value '-1': negative values are "
                     "not allowed; expected a time such as 50us or 2ms (a bare number is us), from 0us to "
                     "2147483647us\nnetpolld: error: refusing to start with an invalid configuration\n", dir);
        ck_assert_str_eq(err, want);
        _cleanup_(freep) char *v = tu_read(dir, "proc/sys/net/core/busy_read");
        ck_assert_str_eq(v, "0\n");
        ck_assert_int_eq(stat(state, &st), -1);
}
END_TEST
static Suite *policy_suite(void) {
        Suite *s = suite_create("policy");
        TCase *tc;

        tc = fixture_tcase(s, "daemon_config");
        tcase_add_test(tc, test_config_every_key_parsed);
        tcase_add_test(tc, test_config_empty_file_gives_defaults);
        tcase_add_test(tc, test_config_interval_units_and_bounds);
        tcase_add_test(tc, test_config_every_key_rejects_bad_value);
        tcase_add_test(tc, test_config_metrics_file);
        tcase_add_test(tc, test_config_profile_may_be_path);
        tcase_add_test(tc, test_config_explicit_missing_file_is_error);
        tcase_add_test(tc, test_config_default_file_missing_means_defaults);
        tcase_add_test(tc, test_config_unknown_section_and_key);
        tcase_add_test(tc, test_config_key_set_twice);

        tc = fixture_tcase(s, "syntax");
        tcase_add_test(tc, test_syntax_garbage_line);
        tcase_add_test(tc, test_syntax_collects_every_error);
        tcase_add_test(tc, test_syntax_too_long_line);
        tcase_add_test(tc, test_syntax_indented_key_is_not_continuation);
        tcase_add_test(tc, test_syntax_comments_and_inline_comments);
        tcase_add_test(tc, test_syntax_key_before_section);

        tc = fixture_tcase(s, "check_config");
        tcase_add_test(tc, test_check_config_every_shipped_profile);
        tcase_add_test(tc, test_check_config_output);
        tcase_add_test(tc, test_check_config_reports_every_error);

        tc = fixture_tcase(s, "netpolld_binary");
        tcase_add_test(tc, test_netpolld_check_config_broken_profile_exits_1);
        tcase_add_test(tc, test_netpolld_check_config_profile_dir_order);
        tcase_add_test(tc, test_netpolld_help_exits_0);
        tcase_add_test(tc, test_netpolld_bad_usage_exits_2);
        tcase_add_test(tc, test_netpolld_refuses_to_start_with_broken_profile);

        return s;
}

TU_MAIN(policy_suite)
