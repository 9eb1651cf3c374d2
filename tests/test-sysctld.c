/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * test-sysctld.c: which sysctl.d line sets a sysctl, on fake sysroots:
 * systemd-sysctl's directories and masking, basename order, the last
 * assignment winning, /etc/sysctl.conf, key spellings, and odd files
 * (long lines, binary, FIFOs, directories) reported, never fatal.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "macro.h"
#include "sysctld.h"
#include "testutil.h"

#define root tu_root

typedef struct Skips {
        unsigned n;
        char file[256];
        unsigned line;
        int r;
} Skips;

static void on_skip(const char *file, unsigned line, int r, void *userdata) {
        Skips *s = userdata;

        s->n++;
        snprintf(s->file, sizeof(s->file), "%s", file);
        s->line = line;
        s->r = r;
}

/* Finds key; asserts FILE:LINE and value, or none when file is NULL. */
static void assert_found(const char *key, const char *file, unsigned line, const char *value, Skips *skips) {
        _cleanup_(sysctl_setting_done) SysctlSetting s = {};
        Skips none = {};
        int r = sysctld_find(root, key, &s, on_skip, skips ?: &none);

        if (!file) {
                ck_assert_int_eq(r, 0);
                return;
        }
        ck_assert_int_eq(r, 1);
        ck_assert_str_eq(s.file, file);
        ck_assert_uint_eq(s.line, line);
        ck_assert_str_eq(s.value, value);
        if (!skips)
                ck_assert_uint_eq(none.n, 0);
}

START_TEST(test_sysctld_finds_file_and_line) {
        tu_write(root, "usr/lib/sysctl.d/50-default.conf", "# comment\n; other\n\nnet.core.busy_read = 50\n", 0644);
        assert_found("net.core.busy_read", "/usr/lib/sysctl.d/50-default.conf", 4, "50", NULL);
        assert_found("/proc/sys/net/core/busy_read", "/usr/lib/sysctl.d/50-default.conf", 4, "50", NULL);
        assert_found("net.core.busy_poll", NULL, 0, NULL, NULL);
}
END_TEST

START_TEST(test_sysctld_earlier_directory_masks_same_basename) {
        tu_write(root, "usr/lib/sysctl.d/60-net.conf", "net.core.busy_read = 50\n", 0644);
        tu_write(root, "etc/sysctl.d/60-net.conf", "net.core.busy_poll = 10\n", 0644);
        /* /etc's 60-net.conf masks /usr/lib's: busy_read is set by nobody. */
        assert_found("net.core.busy_read", NULL, 0, NULL, NULL);
        tu_write(root, "run/sysctl.d/60-net.conf", "net.core.busy_read = 7\n", 0644);
        assert_found("net.core.busy_read", NULL, 0, NULL, NULL);
        tu_write(root, "usr/local/lib/sysctl.d/70-x.conf", "net.core.busy_read = 8\n", 0644);
        tu_write(root, "usr/lib/sysctl.d/70-x.conf", "net.core.busy_read = 9\n", 0644);
        assert_found("net.core.busy_read", "/usr/local/lib/sysctl.d/70-x.conf", 1, "8", NULL);
}
END_TEST

START_TEST(test_sysctld_basename_order_and_last_assignment_win) {
        /* Basename order across directories: /usr/lib's 90-z comes after /etc's 10-a. */
        tu_write(root, "usr/lib/sysctl.d/90-z.conf", "net.core.busy_read = 90\n", 0644);
        tu_write(root, "etc/sysctl.d/10-a.conf", "net.core.busy_read = 10\nnet.core.busy_read = 11\n", 0644);
        assert_found("net.core.busy_read", "/usr/lib/sysctl.d/90-z.conf", 1, "90", NULL);
        tu_write(root, "etc/sysctl.d/10-a.conf", "net.core.busy_poll = 1\nnet.core.busy_poll=  2 \n", 0644);
        assert_found("net.core.busy_poll", "/etc/sysctl.d/10-a.conf", 2, "2", NULL);
        /* /etc/sysctl.conf comes after every sysctl.d file. */
        tu_write(root, "etc/sysctl.conf", "net.core.busy_read = 100\n", 0644);
        assert_found("net.core.busy_read", "/etc/sysctl.conf", 1, "100", NULL);
}
END_TEST

/* Makes root/etc/sysctl.d/NAME a link to target. */
static void link_conf(const char *name, const char *target) {
        _cleanup_(freep) char *rel = NULL, *link = NULL;

        tu_write(root, "etc/sysctl.d/00-empty.conf", "", 0644);
        ck_assert_int_ge(asprintf(&rel, "etc/sysctl.d/%s", name), 0);
        link = tu_join(root, rel);
        ck_assert_int_eq(symlink(target, link), 0);
}

START_TEST(test_sysctld_sysctl_conf_link_read_once_in_its_place) {
        tu_write(root, "etc/sysctl.conf", "net.core.busy_read = 5\n", 0644);
        link_conf("99-sysctl.conf", "../sysctl.conf");
        tu_write(root, "usr/lib/sysctl.d/99-zz.conf", "net.core.busy_read = 6\n", 0644);
        /* Debian's link puts sysctl.conf at 99-sysctl, before 99-zz; it is not read again at the end. */
        assert_found("net.core.busy_read", "/usr/lib/sysctl.d/99-zz.conf", 1, "6", NULL);
}
END_TEST

START_TEST(test_sysctld_absolute_link_stays_below_root) {
        tu_write(root, "opt/net.conf", "net.core.busy_read = 40\n", 0644);
        link_conf("40-link.conf", "/opt/net.conf");
        assert_found("net.core.busy_read", "/etc/sysctl.d/40-link.conf", 1, "40", NULL);
}
END_TEST

START_TEST(test_sysctld_key_spellings) {
        tu_write(root, "etc/sysctl.d/20-k.conf",
                 "net/core/busy_read = 1\n"
                 "-net.core.busy_poll = 2\n"
                 "  net.core.netdev_budget   =   300  \n"
                 "net.ipv4.conf.eth0/1.rp_filter = 0\n"
                 "net/ipv4/conf/eth0.2/rp_filter = 1\n"
                 "net.core.*_weight = 64\n"
                 "net.core.dev_weight\n",
                 0644);
        assert_found("net.core.busy_read", "/etc/sysctl.d/20-k.conf", 1, "1", NULL);
        assert_found("net.core.busy_poll", "/etc/sysctl.d/20-k.conf", 2, "2", NULL);
        assert_found("net/core/netdev_budget", "/etc/sysctl.d/20-k.conf", 3, "300", NULL);
        assert_found("/proc/sys/net/ipv4/conf/eth0.1/rp_filter", "/etc/sysctl.d/20-k.conf", 4, "0", NULL);
        assert_found("/proc/sys/net/ipv4/conf/eth0.2/rp_filter", "/etc/sysctl.d/20-k.conf", 5, "1", NULL);
        assert_found("net.core.dev_weight", "/etc/sysctl.d/20-k.conf", 6, "64", NULL);
}
END_TEST

START_TEST(test_sysctld_long_line_skipped_rest_read) {
        size_t n = 70000;
        _cleanup_(freep) char *text = malloc(n + 64);
        Skips skips = {};

        memcpy(text, "net.core.busy_read = ", 21);
        memset(text + 21, '1', n);
        strcpy(text + 21 + n, "\nnet.core.busy_read = 3\n");
        tu_write(root, "etc/sysctl.d/30-long.conf", text, 0644);
        assert_found("net.core.busy_read", "/etc/sysctl.d/30-long.conf", 2, "3", &skips);
        ck_assert_uint_eq(skips.n, 1);
        ck_assert_uint_eq(skips.line, 1);
        ck_assert_int_eq(skips.r, -E2BIG);
}
END_TEST

START_TEST(test_sysctld_binary_and_special_files_reported) {
        _cleanup_(freep) char *bin = tu_join(root, "etc/sysctl.d/10-bin.conf");
        _cleanup_(freep) char *fifo = tu_join(root, "etc/sysctl.d/20-fifo.conf");
        _cleanup_(freep) char *dir = tu_join(root, "etc/sysctl.d/30-dir.conf");
        Skips skips = {};
        FILE *f;

        tu_write(root, "etc/sysctl.d/40-ok.conf", "net.core.busy_read = 4\n", 0644);
        f = fopen(bin, "we");
        ck_assert_ptr_nonnull(f);
        fwrite("net.core.busy_read = 1\n\0\x7f" "ELF\n", 1, 28, f);
        fclose(f);
        ck_assert_int_eq(mkfifo(fifo, 0600), 0);
        ck_assert_int_eq(mkdir(dir, 0755), 0);
        /* The FIFO is not opened for a blocking read, the binary file stops at its NUL. */
        assert_found("net.core.busy_read", "/etc/sysctl.d/40-ok.conf", 1, "4", &skips);
        ck_assert_uint_eq(skips.n, 3);
        tu_write(root, "etc/sysctl.d/40-ok.conf", "", 0644);
        skips = (Skips){};
        assert_found("net.core.busy_read", "/etc/sysctl.d/10-bin.conf", 1, "1", &skips);
}
END_TEST

START_TEST(test_sysctld_unreadable_file_reported) {
        Skips skips = {};

        if (geteuid() == 0)
                tu_skip("root reads a mode 000 file");
        tu_write(root, "etc/sysctl.d/10-secret.conf", "net.core.busy_read = 1\n", 0000);
        assert_found("net.core.busy_read", NULL, 0, NULL, &skips);
        ck_assert_uint_eq(skips.n, 1);
        ck_assert_int_eq(skips.r, -EACCES);
}
END_TEST

static Suite *sysctld_suite(void) {
        Suite *s = suite_create("sysctld");
        TCase *tc = tcase_create("core");

        tcase_add_checked_fixture(tc, tu_root_setup, tu_root_teardown);
        tcase_add_test(tc, test_sysctld_finds_file_and_line);
        tcase_add_test(tc, test_sysctld_earlier_directory_masks_same_basename);
        tcase_add_test(tc, test_sysctld_basename_order_and_last_assignment_win);
        tcase_add_test(tc, test_sysctld_sysctl_conf_link_read_once_in_its_place);
        tcase_add_test(tc, test_sysctld_absolute_link_stays_below_root);
        tcase_add_test(tc, test_sysctld_key_spellings);
        tcase_add_test(tc, test_sysctld_long_line_skipped_rest_read);
        tcase_add_test(tc, test_sysctld_binary_and_special_files_reported);
        tcase_add_test(tc, test_sysctld_unreadable_file_reported);
        suite_add_tcase(s, tc);
        return s;
}

TU_MAIN(sysctld_suite)
