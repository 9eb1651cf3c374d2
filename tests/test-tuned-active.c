/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * test-tuned-active.c: which line of tuned's active profile sets a sysctl,
 * on fake sysroots: /etc/tuned masking /usr/lib/tuned, include= chains,
 * several active profiles, variables, and odd files (missing profile,
 * FIFO, over-long line) reported, never fatal.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "macro.h"
#include "testutil.h"
#include "tuned-active.h"

#define root tu_root

static unsigned n_skips;
static char last_skip[512];

static void on_skip(const char *message, void *userdata) {
        (void)userdata;
        n_skips++;
        snprintf(last_skip, sizeof(last_skip), "%s", message);
}

static void assert_found(const char *key, const char *profile, const char *file, unsigned line, const char *value) {
        _cleanup_(tuned_setting_done) TunedSetting s = {};
        int r = tuned_active_find(root, key, &s, on_skip, NULL);

        if (!file) {
                ck_assert_int_eq(r, 0);
                return;
        }
        ck_assert_int_eq(r, 1);
        ck_assert_str_eq(s.profile, profile);
        ck_assert_str_eq(s.file, file);
        ck_assert_uint_eq(s.line, line);
        ck_assert_str_eq(s.value, value);
}

static void write_profiles(void) {
        tu_write(root, "usr/lib/tuned/base/tuned.conf",
                 "[main]\nsummary=base\n[sysctl]\nnet.core.busy_poll = \"30\"\nnet.core.busy_read=10\n", 0644);
        tu_write(root, "etc/tuned/net-test/tuned.conf",
                 "[main]\ninclude=base\n[variables]\nread=50\n[sysctl]\nnet.core.busy_read=${read}\n", 0644);
        /* Masked by /etc/tuned/net-test. */
        tu_write(root, "usr/lib/tuned/net-test/tuned.conf", "[sysctl]\nnet.core.busy_read=99\n", 0644);
}

START_TEST(test_tuned_active_profile_and_include_chain) {
        assert_found("net.core.busy_read", NULL, NULL, 0, NULL);
        write_profiles();
        tu_write(root, "etc/tuned/active_profile", "net-test\n", 0644);
        n_skips = 0;
        assert_found("net.core.busy_read", "net-test", "/etc/tuned/net-test/tuned.conf", 6, "50");
        assert_found("/proc/sys/net/core/busy_poll", "net-test", "/usr/lib/tuned/base/tuned.conf", 4, "30");
        assert_found("net.core.netdev_budget", NULL, NULL, 0, NULL);
        ck_assert_uint_eq(n_skips, 0);
}
END_TEST

START_TEST(test_tuned_later_active_profile_wins) {
        write_profiles();
        tu_write(root, "usr/lib/tuned/extra/tuned.conf", "[sysctl]\nnet/core/busy_read = 7\n", 0644);
        tu_write(root, "etc/tuned/active_profile", "net-test extra\n", 0644);
        assert_found("net.core.busy_read", "extra", "/usr/lib/tuned/extra/tuned.conf", 2, "7");
        assert_found("net.core.busy_poll", "net-test", "/usr/lib/tuned/base/tuned.conf", 4, "30");
}
END_TEST

START_TEST(test_tuned_odd_files_reported) {
        _cleanup_(freep) char *fifo = NULL, *huge = malloc(10000);

        write_profiles();
        tu_write(root, "etc/tuned/active_profile", "nosuch net-test\n", 0644);
        n_skips = 0;
        assert_found("net.core.busy_read", "net-test", "/etc/tuned/net-test/tuned.conf", 6, "50");
        ck_assert_uint_eq(n_skips, 1);
        ck_assert_ptr_nonnull(strstr(last_skip, "tuned profile nosuch"));

        /* A line past the reader's bound: the profile is skipped with its FILE:LINE. */
        memset(huge, 'x', 9999);
        huge[9999] = '\0';
        {
                _cleanup_(freep) char *text = NULL;
                ck_assert_int_ge(asprintf(&text, "[sysctl]\nnet.core.busy_read=%s\n", huge), 0);
                tu_write(root, "etc/tuned/long/tuned.conf", text, 0644);
        }
        tu_write(root, "etc/tuned/active_profile", "long\n", 0644);
        n_skips = 0;
        assert_found("net.core.busy_read", NULL, NULL, 0, NULL);
        ck_assert_uint_eq(n_skips, 1);
        ck_assert_ptr_nonnull(strstr(last_skip, "/etc/tuned/long/tuned.conf:2"));

        /* active_profile as a FIFO: reported, never read (it would block). */
        fifo = tu_join(root, "etc/tuned/active_profile");
        tu_rm_rf(fifo);
        ck_assert_int_eq(mkfifo(fifo, 0600), 0);
        n_skips = 0;
        assert_found("net.core.busy_read", NULL, NULL, 0, NULL);
        ck_assert_uint_eq(n_skips, 1);
}
END_TEST

static Suite *tuned_active_suite(void) {
        Suite *s = suite_create("tuned-active");
        TCase *tc = tcase_create("core");

        tcase_add_checked_fixture(tc, tu_root_setup, tu_root_teardown);
        tcase_add_test(tc, test_tuned_active_profile_and_include_chain);
        tcase_add_test(tc, test_tuned_later_active_profile_wins);
        tcase_add_test(tc, test_tuned_odd_files_reported);
        suite_add_tcase(s, tc);
        return s;
}

TU_MAIN(tuned_active_suite)
