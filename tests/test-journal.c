/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * test-journal.c: the restore journal: exact file format, reloading,
 * forgetting, restoring and replaying against a fixture sysroot, refusal of
 * corrupt files (left in place byte for byte) and memory/disk agreement
 * when the file cannot be written.
 */
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "journal.h"
#include "macro.h"
#include "testutil.h"

#define BUSY_READ "/proc/sys/net/core/busy_read"
#define THREADED "/sys/class/net/veth0/threaded"

static char *dir;     /* test directory */
static char *state;   /* dir/state: the journal's directory, created by the first record */
static char *sysroot; /* dir/root: a fixture /proc and /sys */

static void setup(void) {
        dir = tu_mkdtemp();
        state = tu_join(dir, "state");
        sysroot = tu_join(dir, "root");
        tu_write(sysroot, BUSY_READ, "100\n", 0644);
        tu_write(sysroot, THREADED, "1\n", 0644);
}

static void teardown(void) {
        tu_rm_rf(dir);
        free(dir);
        free(state);
        free(sysroot);
}

static Journal *open_ok(void) {
        _cleanup_(freep) char *why = NULL;
        Journal *j = NULL;
        int r = journal_open(&j, state, &why);

        ck_assert_msg(r == 0, "journal_open: %d %s", r, strempty(why));
        return j;
}

/* The journal file's content, or NULL when there is none. */
static char *journal_text(void) {
        return tu_read(state, JOURNAL_FILE);
}

static void assert_text(const char *root, const char *rel, const char *want) {
        _cleanup_(freep) char *c = tu_read(root, rel);
        ck_assert_msg(c, "%s/%s missing", root, rel);
        ck_assert_str_eq(c, want);
}

typedef struct Reports {
        unsigned n;
        char paths[4][64];
        int errors[4];
} Reports;

static void collect(const char *knob, const char *path, const char *original, int error, void *userdata) {
        Reports *rep = userdata;

        ck_assert_ptr_nonnull(knob);
        ck_assert_ptr_nonnull(original);
        if (rep->n < 4) {
                snprintf(rep->paths[rep->n], sizeof(rep->paths[0]), "%s", path);
                rep->errors[rep->n] = error;
        }
        rep->n++;
}

/* Turns the state directory into a regular file so every rewrite of the journal fails. */
static void break_state_dir(void) {
        _cleanup_(freep) char *f = tu_join(state, JOURNAL_FILE);
        (void)unlink(f);
        ck_assert_int_eq(rmdir(state), 0);
        tu_write(dir, "state", "not a directory\n", 0644);
}

/* ---- recording ---- */

START_TEST(test_journal_record_writes_exact_format) {
        _cleanup_(journal_freep) Journal *j = open_ok();
        _cleanup_(freep) char *jp = tu_join(state, JOURNAL_FILE);

        ck_assert_int_eq(access(state, F_OK), -1);
        ck_assert_str_eq(journal_path(j), jp);
        ck_assert_int_eq(journal_record(j, "busy-read", BUSY_READ, "50"), 0);
        ck_assert_int_eq(journal_record(j, "napi-threaded@veth0", THREADED, "0"), 0);
        ck_assert_uint_eq(journal_size(j), 2);
        assert_text(state, JOURNAL_FILE,
                    "netpolld-journal 1\n"
                    "busy-read\t" BUSY_READ "\t50\n"
                    "napi-threaded@veth0\t" THREADED "\t0\n"
                    "end 2\n");
}
END_TEST

START_TEST(test_journal_record_keeps_values_verbatim) {
        _cleanup_(journal_freep) Journal *j = open_ok(), *again = NULL;

        ck_assert_int_eq(journal_record(j, "x", "/proc/sys/net/ipv4/tcp_rmem", " 4096 87380 6291456 "), 0);
        again = open_ok();
        ck_assert_str_eq(journal_original(again, "/proc/sys/net/ipv4/tcp_rmem"), " 4096 87380 6291456 ");
}
END_TEST

START_TEST(test_journal_reopen_loads_entries_in_order) {
        _cleanup_(journal_freep) Journal *j = open_ok(), *again = NULL;

        ck_assert_int_eq(journal_record(j, "napi-threaded@veth0", THREADED, "0"), 0);
        ck_assert_int_eq(journal_record(j, "busy-read", BUSY_READ, "50"), 0);
        again = open_ok();
        ck_assert_uint_eq(journal_size(again), 2);
        ck_assert_str_eq(journal_original(again, BUSY_READ), "50");
        ck_assert_str_eq(journal_original(again, THREADED), "0");
        ck_assert_ptr_null(journal_original(again, "/proc/sys/net/core/busy_poll"));
        ck_assert_int_eq(journal_record(again, "busy-poll", "/proc/sys/net/core/busy_poll", "0"), 0);
        assert_text(state, JOURNAL_FILE,
                    "netpolld-journal 1\n"
                    "napi-threaded@veth0\t" THREADED "\t0\n"
                    "busy-read\t" BUSY_READ "\t50\n"
                    "busy-poll\t/proc/sys/net/core/busy_poll\t0\n"
                    "end 3\n");
}
END_TEST

START_TEST(test_journal_record_keeps_first_original) {
        _cleanup_(journal_freep) Journal *j = open_ok();

        ck_assert_int_eq(journal_record(j, "busy-read", BUSY_READ, "50"), 0);
        ck_assert_int_eq(journal_record(j, "busy-read", BUSY_READ, "100"), 0);
        ck_assert_uint_eq(journal_size(j), 1);
        ck_assert_str_eq(journal_original(j, BUSY_READ), "50");
        assert_text(state, JOURNAL_FILE, "netpolld-journal 1\nbusy-read\t" BUSY_READ "\t50\nend 1\n");
}
END_TEST

START_TEST(test_journal_record_refuses_unstorable_fields) {
        _cleanup_(journal_freep) Journal *j = open_ok();

        ck_assert_int_eq(journal_record(j, "busy-read", BUSY_READ, "5\t0"), -EINVAL);
        ck_assert_int_eq(journal_record(j, "busy-read", BUSY_READ, "50\n"), -EINVAL);
        ck_assert_int_eq(journal_record(j, "busy-read", BUSY_READ, ""), -EINVAL);
        ck_assert_int_eq(journal_record(j, "busy\tread", BUSY_READ, "50"), -EINVAL);
        ck_assert_int_eq(journal_record(j, "busy\nread", BUSY_READ, "50"), -EINVAL);
        ck_assert_int_eq(journal_record(j, "", BUSY_READ, "50"), -EINVAL);
        ck_assert_int_eq(journal_record(j, "busy-read", "/proc/sys/net/core/busy\tread", "50"), -EINVAL);
        ck_assert_int_eq(journal_record(j, "busy-read", "../x", "50"), -EINVAL);
        ck_assert_int_eq(journal_record(j, "busy-read", "/proc/../etc/shadow", "50"), -EINVAL);
        ck_assert_int_eq(journal_record(j, "busy-read", "/etc/shadow", "50"), -EINVAL);
        ck_assert_int_eq(journal_record(j, "busy-read", NULL, "50"), -EINVAL);
        ck_assert_uint_eq(journal_size(j), 0);
        ck_assert_int_eq(access(state, F_OK), -1);
}
END_TEST

START_TEST(test_journal_record_leaves_no_temporary_files) {
        _cleanup_(journal_freep) Journal *j = open_ok();
        struct dirent *de;
        unsigned n = 0;
        DIR *d;

        ck_assert_int_eq(journal_record(j, "busy-read", BUSY_READ, "50"), 0);
        ck_assert_int_eq(journal_record(j, "napi-threaded@veth0", THREADED, "0"), 0);
        ck_assert_int_eq(journal_forget(j, BUSY_READ), 0);
        d = opendir(state);
        ck_assert_ptr_nonnull(d);
        while ((de = readdir(d))) {
                if (streq(de->d_name, ".") || streq(de->d_name, ".."))
                        continue;
                ck_assert_str_eq(de->d_name, JOURNAL_FILE);
                n++;
        }
        closedir(d);
        ck_assert_uint_eq(n, 1);
}
END_TEST

START_TEST(test_journal_record_failure_keeps_memory_and_disk_equal) {
        _cleanup_(journal_freep) Journal *j = open_ok();

        tu_write(dir, "state", "a regular file where the directory should be\n", 0644);
        ck_assert_int_eq(journal_record(j, "busy-read", BUSY_READ, "50"), -ENOTDIR);
        ck_assert_uint_eq(journal_size(j), 0);
        ck_assert_ptr_null(journal_original(j, BUSY_READ));
}
END_TEST

START_TEST(test_journal_record_failure_removes_temporary_file) {
        _cleanup_(journal_freep) Journal *j = open_ok();
        struct dirent *de;
        unsigned n = 0;
        DIR *d;

        /* A non-empty directory in the journal's place makes the final rename fail. */
        tu_write(state, JOURNAL_FILE "/blocker", "x\n", 0644);
        ck_assert_int_eq(journal_record(j, "busy-read", BUSY_READ, "50"), -EISDIR);
        ck_assert_uint_eq(journal_size(j), 0);
        d = opendir(state);
        ck_assert_ptr_nonnull(d);
        while ((de = readdir(d))) {
                if (streq(de->d_name, ".") || streq(de->d_name, ".."))
                        continue;
                ck_assert_str_eq(de->d_name, JOURNAL_FILE);
                n++;
        }
        closedir(d);
        ck_assert_uint_eq(n, 1);
}
END_TEST

/* ---- forgetting and restoring ---- */

START_TEST(test_journal_forget_drops_entries_and_file) {
        _cleanup_(journal_freep) Journal *j = open_ok();
        _cleanup_(freep) char *gone = NULL;

        ck_assert_int_eq(journal_record(j, "busy-read", BUSY_READ, "50"), 0);
        ck_assert_int_eq(journal_record(j, "napi-threaded@veth0", THREADED, "0"), 0);
        ck_assert_int_eq(journal_forget(j, BUSY_READ), 0);
        ck_assert_ptr_null(journal_original(j, BUSY_READ));
        assert_text(state, JOURNAL_FILE, "netpolld-journal 1\nnapi-threaded@veth0\t" THREADED "\t0\nend 1\n");
        ck_assert_int_eq(journal_forget(j, BUSY_READ), -ENOENT);
        ck_assert_int_eq(journal_forget(j, THREADED), 0);
        ck_assert_uint_eq(journal_size(j), 0);
        ck_assert_ptr_null(gone = journal_text());
}
END_TEST

START_TEST(test_journal_forget_failure_keeps_entry) {
        _cleanup_(journal_freep) Journal *j = open_ok();

        ck_assert_int_eq(journal_record(j, "busy-read", BUSY_READ, "50"), 0);
        ck_assert_int_eq(journal_record(j, "napi-threaded@veth0", THREADED, "0"), 0);
        break_state_dir();
        ck_assert_int_eq(journal_forget(j, BUSY_READ), -ENOTDIR);
        ck_assert_uint_eq(journal_size(j), 2);
        ck_assert_str_eq(journal_original(j, BUSY_READ), "50");
}
END_TEST

START_TEST(test_journal_restore_writes_back_and_drops) {
        _cleanup_(journal_freep) Journal *j = open_ok();
        _cleanup_(freep) char *gone = NULL;

        ck_assert_int_eq(journal_record(j, "busy-read", BUSY_READ, "50"), 0);
        ck_assert_int_eq(journal_restore(j, sysroot, THREADED), -ENOENT);
        ck_assert_int_eq(journal_restore(j, sysroot, BUSY_READ), 0);
        assert_text(sysroot, BUSY_READ, "50\n");
        assert_text(sysroot, THREADED, "1\n");
        ck_assert_uint_eq(journal_size(j), 0);
        ck_assert_ptr_null(gone = journal_text());
        ck_assert_int_eq(journal_restore(j, sysroot, BUSY_READ), -ENOENT);
}
END_TEST

/* ---- replay ---- */

START_TEST(test_journal_replay_restores_everything) {
        _cleanup_(journal_freep) Journal *j = open_ok(), *again = NULL;
        _cleanup_(freep) char *gone = NULL;
        Reports rep = {};

        ck_assert_int_eq(journal_record(j, "busy-read", BUSY_READ, "50"), 0);
        ck_assert_int_eq(journal_record(j, "napi-threaded@veth0", THREADED, "0"), 0);
        /* A restart after a crash: the journal comes from disk. */
        again = open_ok();
        ck_assert_int_eq(journal_replay(again, sysroot, collect, &rep), 0);
        ck_assert_uint_eq(rep.n, 2);
        ck_assert_str_eq(rep.paths[0], BUSY_READ);
        ck_assert_str_eq(rep.paths[1], THREADED);
        ck_assert_int_eq(rep.errors[0], 0);
        ck_assert_int_eq(rep.errors[1], 0);
        assert_text(sysroot, BUSY_READ, "50\n");
        assert_text(sysroot, THREADED, "0\n");
        ck_assert_uint_eq(journal_size(again), 0);
        ck_assert_ptr_null(gone = journal_text());
}
END_TEST

START_TEST(test_journal_replay_keeps_unwritable_entry) {
        _cleanup_(journal_freep) Journal *j = open_ok();
        Reports rep = {};

        ck_assert_int_eq(journal_record(j, "busy-read", BUSY_READ, "50"), 0);
        /* The parent of this path is a regular file: the write fails with ENOTDIR. */
        ck_assert_int_eq(journal_record(j, "odd", BUSY_READ "/sub", "7"), 0);
        ck_assert_int_eq(journal_record(j, "napi-threaded@veth0", THREADED, "0"), 0);
        ck_assert_int_eq(journal_replay(j, sysroot, collect, &rep), 1);
        /* Restored entries first, in order; the one that kept failing last, once. */
        ck_assert_uint_eq(rep.n, 3);
        ck_assert_int_eq(rep.errors[0], 0);
        ck_assert_int_eq(rep.errors[1], 0);
        ck_assert_str_eq(rep.paths[2], BUSY_READ "/sub");
        ck_assert_int_eq(rep.errors[2], -ENOTDIR);
        assert_text(sysroot, BUSY_READ, "50\n");
        assert_text(sysroot, THREADED, "0\n");
        ck_assert_uint_eq(journal_size(j), 1);
        assert_text(state, JOURNAL_FILE, "netpolld-journal 1\nodd\t" BUSY_READ "/sub\t7\nend 1\n");
}
END_TEST

START_TEST(test_journal_replay_counts_vanished_file_as_restored) {
        _cleanup_(journal_freep) Journal *j = open_ok();
        _cleanup_(freep) char *gone = NULL;
        Reports rep = {};

        ck_assert_int_eq(journal_record(j, "gro-flush-timeout@veth1", "/sys/class/net/veth1/gro_flush_timeout", "0"), 0);
        ck_assert_int_eq(journal_replay(j, sysroot, collect, &rep), 0);
        ck_assert_uint_eq(rep.n, 1);
        ck_assert_int_eq(rep.errors[0], 0);
        ck_assert_uint_eq(journal_size(j), 0);
        ck_assert_ptr_null(gone = journal_text());
}
END_TEST

START_TEST(test_journal_replay_reports_persistence_failure) {
        _cleanup_(journal_freep) Journal *j = open_ok();
        Reports rep = {};

        ck_assert_int_eq(journal_record(j, "busy-read", BUSY_READ, "50"), 0);
        ck_assert_int_eq(journal_record(j, "napi-threaded@veth0", THREADED, "0"), 0);
        break_state_dir();
        ck_assert_int_eq(journal_replay(j, sysroot, collect, &rep), -ENOTDIR);
        /* The kernel values are back even though the file could not follow. */
        assert_text(sysroot, BUSY_READ, "50\n");
        assert_text(sysroot, THREADED, "0\n");
        ck_assert_uint_eq(rep.n, 2);
        ck_assert_int_eq(rep.errors[0], -ENOTDIR);
        ck_assert_uint_eq(journal_size(j), 2);
}
END_TEST

/* ---- loading ---- */

START_TEST(test_journal_open_missing_file_is_empty) {
        _cleanup_(journal_freep) Journal *j = open_ok();

        ck_assert_uint_eq(journal_size(j), 0);
        ck_assert_int_eq(access(state, F_OK), -1);
}
END_TEST

START_TEST(test_journal_open_passes_read_errors) {
        _cleanup_(freep) char *jp = tu_join(state, JOURNAL_FILE);
        Journal *j = NULL;

        ck_assert_int_eq(mkdir(state, 0755), 0);
        ck_assert_int_eq(mkdir(jp, 0755), 0);
        ck_assert_int_eq(journal_open(&j, state, NULL), -EISDIR);
        ck_assert_ptr_null(j);
}
END_TEST

#define HDR "netpolld-journal 1\n"
#define BAD_PATH "line 2: path must start with /proc/ or /sys/ and must not contain \"..\", or be napi:NETNS:ID:KNOB"
#define ENTRY "busy-read\t" BUSY_READ "\t50\n"

static const struct {
        const char *content, *reason;
} corrupt[] = {
        { "", "line 1: expected \"netpolld-journal 1\"" },
        { "netpolld-journal 2\nend 0\n", "line 1: expected \"netpolld-journal 1\"" },
        { HDR "busy-read\t" BUSY_READ "\nend 1\n", "line 2: expected KNOB<TAB>PATH<TAB>VALUE" },
        { HDR ENTRY "busy-poll\t/proc/sys/net/core/busy_poll\t0\tx\nend 2\n", "line 3: expected KNOB<TAB>PATH<TAB>VALUE" },
        { HDR "busy-read\t\t50\nend 1\n", "line 2: expected KNOB<TAB>PATH<TAB>VALUE" },
        { HDR "busy-read\t" BUSY_READ "\t\nend 1\n", "line 2: expected KNOB<TAB>PATH<TAB>VALUE" },
        { HDR ENTRY, "line 3: missing \"end N\" line (the file is truncated)" },
        { HDR ENTRY "end 2\n", "line 3: expected \"end 1\" (the number of entries)" },
        { HDR ENTRY "end\n", "line 3: expected \"end 1\" (the number of entries)" },
        { HDR ENTRY "end 1", "line 3: line is not terminated by a newline" },
        { HDR ENTRY "end 1\njunk\n", "line 4: unexpected content after the end line" },
        { HDR ENTRY "end 1\n\n", "line 4: unexpected content after the end line" },
        { HDR "busy-read\t../x\t50\nend 1\n", BAD_PATH },
        { HDR "busy-read\t/proc/../etc/shadow\t50\nend 1\n",
          BAD_PATH },
        { HDR ENTRY "busy-read\t" BUSY_READ "\t60\nend 2\n", "line 3: duplicate path" },
        { HDR "x\t/etc/shadow\t50\nend 1\n", BAD_PATH },
};

START_TEST(test_journal_open_refuses_corruption) {
        _cleanup_(freep) char *why = NULL, *after = NULL;
        Journal *j = NULL;

        tu_write(state, JOURNAL_FILE, corrupt[_i].content, 0644);
        ck_assert_int_eq(journal_open(&j, state, &why), -EBADMSG);
        ck_assert_ptr_null(j);
        ck_assert_str_eq(why, corrupt[_i].reason);
        after = journal_text();
        ck_assert_str_eq(after, corrupt[_i].content);
}
END_TEST

START_TEST(test_journal_open_refuses_binary_and_oversized_files) {
        _cleanup_(freep) char *why = NULL, *why2 = NULL, *jp = tu_join(state, JOURNAL_FILE);
        static const char nul[] = HDR "busy-read\t" BUSY_READ "\t5\0000\nend 1\n";
        Journal *j = NULL;
        struct stat st;
        int fd;

        ck_assert_int_eq(mkdir(state, 0755), 0);
        fd = open(jp, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
        ck_assert_int_ge(fd, 0);
        ck_assert_int_eq(write(fd, nul, sizeof(nul) - 1), (ssize_t)sizeof(nul) - 1);
        ck_assert_int_eq(close(fd), 0);
        ck_assert_int_eq(journal_open(&j, state, &why), -EBADMSG);
        ck_assert_str_eq(why, "line 2: contains a NUL byte");

        /* A valid start followed by more than 1 MiB. */
        ck_assert_int_eq(truncate(jp, 1024 * 1024 + 1), 0);
        ck_assert_int_eq(journal_open(&j, state, &why2), -EBADMSG);
        ck_assert_str_eq(why2, "file larger than 1048576 bytes");
        ck_assert_int_eq(stat(jp, &st), 0);
        ck_assert_int_eq(st.st_size, 1024 * 1024 + 1);
        ck_assert_ptr_null(j);
}
END_TEST

static Suite *journal_suite(void) {
        Suite *s = suite_create("journal");
        TCase *tc;

        tc = tcase_create("recording");
        tcase_add_checked_fixture(tc, setup, teardown);
        tcase_add_test(tc, test_journal_record_writes_exact_format);
        tcase_add_test(tc, test_journal_record_keeps_values_verbatim);
        tcase_add_test(tc, test_journal_reopen_loads_entries_in_order);
        tcase_add_test(tc, test_journal_record_keeps_first_original);
        tcase_add_test(tc, test_journal_record_refuses_unstorable_fields);
        tcase_add_test(tc, test_journal_record_leaves_no_temporary_files);
        tcase_add_test(tc, test_journal_record_failure_keeps_memory_and_disk_equal);
        tcase_add_test(tc, test_journal_record_failure_removes_temporary_file);
        suite_add_tcase(s, tc);

        tc = tcase_create("forgetting and restoring");
        tcase_add_checked_fixture(tc, setup, teardown);
        tcase_add_test(tc, test_journal_forget_drops_entries_and_file);
        tcase_add_test(tc, test_journal_forget_failure_keeps_entry);
        tcase_add_test(tc, test_journal_restore_writes_back_and_drops);
        suite_add_tcase(s, tc);

        tc = tcase_create("replay");
        tcase_add_checked_fixture(tc, setup, teardown);
        tcase_add_test(tc, test_journal_replay_restores_everything);
        tcase_add_test(tc, test_journal_replay_keeps_unwritable_entry);
        tcase_add_test(tc, test_journal_replay_counts_vanished_file_as_restored);
        tcase_add_test(tc, test_journal_replay_reports_persistence_failure);
        suite_add_tcase(s, tc);

        tc = tcase_create("loading");
        tcase_add_checked_fixture(tc, setup, teardown);
        tcase_add_test(tc, test_journal_open_missing_file_is_empty);
        tcase_add_test(tc, test_journal_open_passes_read_errors);
        tcase_add_loop_test(tc, test_journal_open_refuses_corruption, 0, (int)ELEMENTSOF(corrupt));
        tcase_add_test(tc, test_journal_open_refuses_binary_and_oversized_files);
        suite_add_tcase(s, tc);

        return s;
}

TU_MAIN(journal_suite)
