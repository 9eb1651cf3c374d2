/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * test-irqbalance-ban.c: the irqbalance drop-in ([irq] irqbalance-ban) on a
 * fake sysroot: its exact text against Debian's irqbalance.service, writing
 * it (directory created, unchanged text not rewritten), removing it, and the
 * restore journal's "dropin" entries: which keys they take, and that the
 * crash replay (owner_restore_all()) removes a stale drop-in and forgets it.
 */
#include <sys/stat.h>
#include <unistd.h>

#include "irqbalance-ban.h"
#include "journal.h"
#include "macro.h"
#include "owner.h"
#include "testutil.h"

static char *root;  /* the fake sysroot */
static char *state; /* the journal's directory */

static void setup(void) {
        root = tu_mkdtemp();
        state = tu_join(root, "state");
}

static void teardown(void) {
        tu_rm_rf(root);
        free(root);
        free(state);
}

static const JournalEntry dropin_entry = {
        .kind = (char *)JOURNAL_KIND_DROPIN,
        .name = (char *)IRQBALANCE_JOURNAL_NAME,
        .device = (char *)"",
        .key = (char *)IRQBALANCE_DROPIN,
        .original = (char *)IRQBALANCE_DROPIN_ABSENT,
};

START_TEST(test_irqbalance_dropin_bans_each_irq_once_after_the_admins_args) {
        const int irqs[] = { 45, 24, 31, 24 };
        _cleanup_(freep) char *text = NULL;

        ck_assert_int_eq(irqbalance_dropin_format(irqs, ELEMENTSOF(irqs), &text), 0);
        /* ExecStart= is reset: /etc/default/irqbalance's IRQBALANCE_ARGS would override an Environment=. */
        ck_assert_ptr_nonnull(strstr(text, "\n[Service]\nExecStart=\nExecStart=/usr/sbin/irqbalance --foreground "
                                           "$IRQBALANCE_ARGS --banirq=24 --banirq=31 --banirq=45\n"));
        ck_assert_ptr_null(strstr(text, "Environment"));
        ck_assert_int_eq(text[0], '#');
}
END_TEST

START_TEST(test_irqbalance_dropin_refuses_no_irqs_and_negative_ones) {
        const int bad[] = { 3, -1 };
        char *text = NULL;

        ck_assert_int_eq(irqbalance_dropin_format(bad, 0, &text), -EINVAL);
        ck_assert_int_eq(irqbalance_dropin_format(bad, 2, &text), -EINVAL);
        ck_assert_ptr_null(text);
}
END_TEST

START_TEST(test_irqbalance_dropin_written_below_sysroot_and_removed) {
        _cleanup_(freep) char *got = NULL, *dir = tu_join(root, IRQBALANCE_DROPIN_DIR);
        struct stat st;

        _cleanup_(freep) char *file = tu_join(root, IRQBALANCE_DROPIN);
        mode_t old = umask(0077); /* the unit's UMask= */

        ck_assert_int_eq(irqbalance_dropin_exists(root), 0);
        ck_assert_int_eq(irqbalance_dropin_write(root, "A\n"), 1);
        umask(old);
        ck_assert_int_eq(irqbalance_dropin_exists(root), 1);
        /* Readable by all, like any unit file: systemd warns about a world-inaccessible drop-in. */
        ck_assert_int_eq(stat(file, &st), 0);
        ck_assert_uint_eq(st.st_mode & 0777, 0644);
        ck_assert_int_eq(stat(dir, &st), 0);
        ck_assert_uint_eq(st.st_mode & 0777, 0755);
        got = tu_read(root, IRQBALANCE_DROPIN);
        ck_assert_str_eq(got, "A\n");
        /* The same text again: nothing changed, so systemd is not bothered. */
        ck_assert_int_eq(irqbalance_dropin_write(root, "A\n"), 0);
        ck_assert_int_eq(irqbalance_dropin_write(root, "B\n"), 1);
        free(got);
        got = tu_read(root, IRQBALANCE_DROPIN);
        ck_assert_str_eq(got, "B\n");
        ck_assert_int_eq(irqbalance_dropin_remove(root), 1);
        ck_assert_int_eq(irqbalance_dropin_exists(root), 0);
        /* The directory it made goes with it; a second removal finds nothing. */
        ck_assert_int_ne(stat(dir, &st), 0);
        ck_assert_int_eq(irqbalance_dropin_remove(root), 0);
}
END_TEST

START_TEST(test_irqbalance_dropin_removal_keeps_other_dropins) {
        tu_write(root, IRQBALANCE_DROPIN_DIR "/10-admin.conf", "[Service]\nNice=5\n", 0644);
        ck_assert_int_eq(irqbalance_dropin_write(root, "A\n"), 1);
        ck_assert_int_eq(irqbalance_dropin_remove(root), 1);
        _cleanup_(freep) char *admin = tu_read(root, IRQBALANCE_DROPIN_DIR "/10-admin.conf");
        ck_assert_str_eq(admin, "[Service]\nNice=5\n");
}
END_TEST

START_TEST(test_journal_dropin_keys) {
        ck_assert(journal_entry_key_valid(JOURNAL_KIND_DROPIN, IRQBALANCE_DROPIN));
        ck_assert(!journal_entry_key_valid(JOURNAL_KIND_DROPIN, "/proc/sys/net/core/busy_read"));
        ck_assert(!journal_entry_key_valid(JOURNAL_KIND_DROPIN, "/run/systemd/system/../../etc/x.conf"));
        ck_assert(!journal_entry_key_valid(JOURNAL_KIND_DROPIN, "/run/systemd/system/x.service.d/a.txt"));
        /* Kernel kinds never take a drop-in's path: the owner would write a value into it. */
        ck_assert(!journal_entry_key_valid("sysctl", IRQBALANCE_DROPIN));
        ck_assert(journal_entry_key_valid("sysctl", "/proc/sys/net/core/busy_read"));
}
END_TEST

START_TEST(test_journal_dropin_round_trip) {
        _cleanup_(journal_freep) Journal *j = NULL;
        _cleanup_(freep) char *why = NULL, *file = NULL;

        ck_assert_int_eq(journal_open(&j, state, &why), 0);
        ck_assert_int_eq(journal_record(j, &dropin_entry), 0);
        j = journal_free(j);
        file = tu_read(state, "restore.journal");
        ck_assert_str_eq(file, "netpolld-journal 2\ndropin\tirqbalance-ban\t-\t0\t" IRQBALANCE_DROPIN "\tabsent\nend 1\n");
        ck_assert_int_eq(journal_open(&j, state, &why), 0);
        ck_assert_ptr_nonnull(journal_get(j, IRQBALANCE_DROPIN));
}
END_TEST

START_TEST(test_journal_refuses_sysctl_entry_on_a_dropin_path) {
        _cleanup_(journal_freep) Journal *j = NULL;
        _cleanup_(freep) char *why = NULL;

        tu_write(state, "restore.journal",
                 "netpolld-journal 2\nsysctl\tx\t-\t0\t" IRQBALANCE_DROPIN "\t5\nend 1\n", 0600);
        ck_assert_int_eq(journal_open(&j, state, &why), -EBADMSG);
        ck_assert_ptr_nonnull(strstr(why, "line 2"));
}
END_TEST

START_TEST(test_crash_replay_removes_a_stale_dropin) {
        _cleanup_(journal_freep) Journal *j = NULL;
        _cleanup_(owner_freep) Owner *o = NULL;
        _cleanup_(freep) char *why = NULL;

        /* What a crashed run left: the journal entry and the drop-in. */
        tu_write(state, "restore.journal",
                 "netpolld-journal 2\ndropin\tirqbalance-ban\t-\t0\t" IRQBALANCE_DROPIN "\tabsent\nend 1\n", 0600);
        ck_assert_int_eq(irqbalance_dropin_write(root, "stale\n"), 1);
        ck_assert_int_eq(journal_open(&j, state, &why), 0);
        ck_assert_int_eq(owner_new(&o, root, j, false), 0);
        ck_assert_int_eq(owner_restore_all(o), 0);
        ck_assert_int_eq(irqbalance_dropin_exists(root), 0);
        ck_assert_uint_eq(journal_size(j), 0);
}
END_TEST

START_TEST(test_crash_replay_of_a_dropin_never_written) {
        _cleanup_(journal_freep) Journal *j = NULL;
        _cleanup_(owner_freep) Owner *o = NULL;
        _cleanup_(freep) char *why = NULL;

        /* A crash between the journal record and the write: nothing to remove, the entry goes. */
        ck_assert_int_eq(journal_open(&j, state, &why), 0);
        ck_assert_int_eq(journal_record(j, &dropin_entry), 0);
        ck_assert_int_eq(owner_new(&o, root, j, false), 0);
        ck_assert_int_eq(owner_restore_all(o), 0);
        ck_assert_uint_eq(journal_size(j), 0);
}
END_TEST

START_TEST(test_dry_run_replay_keeps_the_dropin) {
        _cleanup_(journal_freep) Journal *j = NULL;
        _cleanup_(owner_freep) Owner *o = NULL;
        _cleanup_(freep) char *why = NULL;

        ck_assert_int_eq(journal_open(&j, state, &why), 0);
        ck_assert_int_eq(journal_record(j, &dropin_entry), 0);
        ck_assert_int_eq(irqbalance_dropin_write(root, "kept\n"), 1);
        ck_assert_int_eq(owner_new(&o, root, j, true), 0);
        ck_assert_int_eq(owner_restore_all(o), 0);
        ck_assert_int_eq(irqbalance_dropin_exists(root), 1);
        ck_assert_uint_eq(journal_size(j), 1);
}
END_TEST

static Suite *suite(void) {
        Suite *s = suite_create("irqbalance-ban");
        TCase *tc = tcase_create("dropin");

        tcase_add_checked_fixture(tc, setup, teardown);
        tcase_add_test(tc, test_irqbalance_dropin_bans_each_irq_once_after_the_admins_args);
        tcase_add_test(tc, test_irqbalance_dropin_refuses_no_irqs_and_negative_ones);
        tcase_add_test(tc, test_irqbalance_dropin_written_below_sysroot_and_removed);
        tcase_add_test(tc, test_irqbalance_dropin_removal_keeps_other_dropins);
        tcase_add_test(tc, test_journal_dropin_keys);
        tcase_add_test(tc, test_journal_dropin_round_trip);
        tcase_add_test(tc, test_journal_refuses_sysctl_entry_on_a_dropin_path);
        tcase_add_test(tc, test_crash_replay_removes_a_stale_dropin);
        tcase_add_test(tc, test_crash_replay_of_a_dropin_never_written);
        tcase_add_test(tc, test_dry_run_replay_keeps_the_dropin);
        suite_add_tcase(s, tc);
        return s;
}

TU_MAIN(suite)
