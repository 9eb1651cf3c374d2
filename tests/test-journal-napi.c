/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * test-journal-napi.c: the journal's entries for values that are not files
 * ("napi:NETNS:ID:KNOB", per-NAPI knobs): the path form (escaping, strict
 * parsing), recording and reloading such entries, and restoring them only
 * through the restore hook (without one they stay). Kept apart from
 * test-journal.c so each file stays small.
 */
#include <unistd.h>

#include "journal.h"
#include "macro.h"
#include "testutil.h"

#define BUSY_READ "/proc/sys/net/core/busy_read"
#define NAPI_GRO "napi:-:8193:gro-flush-timeout"
#define NAPI_LABEL "gro-flush-timeout@veth0:napi-8193"

static char *dir, *state, *sysroot;

static void setup(void) {
        dir = tu_mkdtemp();
        state = tu_join(dir, "state");
        sysroot = tu_join(dir, "root");
        tu_write(sysroot, BUSY_READ, "100\n", 0644);
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

static void assert_text(const char *root, const char *rel, const char *want) {
        _cleanup_(freep) char *c = tu_read(root, rel);
        ck_assert_msg(c, "%s/%s missing", root, rel);
        ck_assert_str_eq(c, want);
}

/* ---- the path form ---- */

START_TEST(test_journal_napi_path_formats_and_escapes_namespace) {
        _cleanup_(freep) char *own = NULL, *other = NULL, *odd = NULL;

        ck_assert_int_eq(journal_napi_path(NULL, 8193, "gro-flush-timeout", &own), 0);
        ck_assert_str_eq(own, NAPI_GRO);
        ck_assert_int_eq(journal_napi_path("/run/netns/blue", 7, "napi-defer-hard-irqs", &other), 0);
        ck_assert_str_eq(other, "napi:/run/netns/blue:7:napi-defer-hard-irqs");
        ck_assert_int_eq(journal_napi_path("/run/netns/a:b%c\td e", 4294967295u, "irq-suspend-timeout", &odd), 0);
        ck_assert_str_eq(odd, "napi:/run/netns/a%3Ab%25c%09d%20e:4294967295:irq-suspend-timeout");
}
END_TEST

START_TEST(test_journal_napi_path_parse_round_trips) {
        _cleanup_(freep) char *path = NULL, *netns = NULL, *knob = NULL, *netns2 = NULL, *knob2 = NULL;
        uint32_t id = 0;

        ck_assert_int_eq(journal_napi_path("/run/netns/a:b%c\nd", 42, "gro-flush-timeout", &path), 0);
        ck_assert_int_eq(journal_napi_path_parse(path, &netns, &id, &knob), 0);
        ck_assert_str_eq(netns, "/run/netns/a:b%c\nd");
        ck_assert_uint_eq(id, 42);
        ck_assert_str_eq(knob, "gro-flush-timeout");

        /* "-" (our own namespace) sets NULL over whatever the variable held. */
        _cleanup_(freep) char *sentinel = strdup("untouched");
        netns2 = sentinel;
        ck_assert_int_eq(journal_napi_path_parse(NAPI_GRO, &netns2, &id, &knob2), 0);
        ck_assert_ptr_null(netns2);
        ck_assert_uint_eq(id, 8193);
        ck_assert_str_eq(knob2, "gro-flush-timeout");
        ck_assert_int_eq(journal_napi_path_parse(NAPI_GRO, NULL, NULL, NULL), 0);
}
END_TEST

START_TEST(test_journal_napi_path_refuses_bad_fields) {
        char *p = NULL;

        ck_assert_int_eq(journal_napi_path(NULL, 0, "gro-flush-timeout", &p), -EINVAL);
        ck_assert_int_eq(journal_napi_path(NULL, 1, "", &p), -EINVAL);
        ck_assert_int_eq(journal_napi_path(NULL, 1, "Gro", &p), -EINVAL);
        ck_assert_int_eq(journal_napi_path(NULL, 1, "gro:x", &p), -EINVAL);
        ck_assert_int_eq(journal_napi_path(NULL, 1, NULL, &p), -EINVAL);
        ck_assert_int_eq(journal_napi_path("run/netns/x", 1, "gro-flush-timeout", &p), -EINVAL);
        ck_assert_int_eq(journal_napi_path("", 1, "gro-flush-timeout", &p), -EINVAL);
        ck_assert_ptr_null(p);
}
END_TEST

static const char *const refused[] = {
        "napi:",
        "napi:-:1",
        "napi:-:1:",
        "napi::1:k",
        "napi:-::k",
        "napi:-:0:k",
        "napi:-:01:k",
        "napi:-:+1:k",
        "napi:-: 1:k",
        "napi:-:4294967296:k",
        "napi:-:1:K",
        "napi:-:1:a:b",
        "napi:-:1:a/b",
        "napi:-x:1:k",
        "napi:run/netns/x:1:k",
        "napi:/x%3a:1:k",  /* lower-case escape: one spelling only */
        "napi:/x%41:1:k",  /* 'A' needs no escape */
        "napi:/x%3:1:k",
        "napi:/x%:1:k",
        "napi:/x%00:1:k",
        "napi:/a b:1:k",
        "napi:/a%ZZ:1:k",
        "NAPI:-:1:k",
};

START_TEST(test_journal_napi_path_parse_refuses_malformed) {
        char *netns = (char *)"untouched", *knob = (char *)"untouched";
        uint32_t id = 99;

        ck_assert_msg(journal_napi_path_parse(refused[_i], &netns, &id, &knob) == -EINVAL, "accepted \"%s\"",
                      refused[_i]);
        ck_assert_str_eq(netns, "untouched");
        ck_assert_str_eq(knob, "untouched");
        ck_assert_uint_eq(id, 99);
}
END_TEST

/* ---- entries in the journal ---- */

START_TEST(test_journal_records_and_reloads_napi_entries) {
        _cleanup_(journal_freep) Journal *j = open_ok(), *again = NULL;

        ck_assert_int_eq(journal_record(j, "busy-read", BUSY_READ, "50"), 0);
        ck_assert_int_eq(journal_record(j, NAPI_LABEL, NAPI_GRO, "0"), 0);
        ck_assert_int_eq(journal_record(j, "napi-defer-hard-irqs@p0:napi-9", "napi:/run/netns/t%3A1:9:napi-defer-hard-irqs",
                                        "2"), 0);
        /* The format version stays 1: old journals stay valid. */
        assert_text(state, JOURNAL_FILE,
                    "netpolld-journal 1\nbusy-read\t" BUSY_READ "\t50\n" NAPI_LABEL "\t" NAPI_GRO "\t0\n"
                    "napi-defer-hard-irqs@p0:napi-9\tnapi:/run/netns/t%3A1:9:napi-defer-hard-irqs\t2\nend 3\n");
        again = open_ok();
        ck_assert_uint_eq(journal_size(again), 3);
        ck_assert_str_eq(journal_path_at(again, 1), NAPI_GRO);
        ck_assert_ptr_null(journal_path_at(again, 3));
        ck_assert_str_eq(journal_original(again, NAPI_GRO), "0");
        ck_assert_str_eq(journal_original(again, "napi:/run/netns/t%3A1:9:napi-defer-hard-irqs"), "2");
}
END_TEST

START_TEST(test_journal_refuses_malformed_napi_entries) {
        _cleanup_(journal_freep) Journal *j = open_ok();
        _cleanup_(freep) char *why = NULL, *after = NULL, *gone = NULL;
        static const char text[] = "netpolld-journal 1\nx\tnapi:-:0:gro-flush-timeout\t0\nend 1\n";
        Journal *bad = NULL;

        ck_assert_int_eq(journal_record(j, NAPI_LABEL, "napi:-:0:gro-flush-timeout", "0"), -EINVAL);
        ck_assert_int_eq(journal_record(j, NAPI_LABEL, "napi:eth0:1:gro-flush-timeout", "0"), -EINVAL);
        ck_assert_uint_eq(journal_size(j), 0);
        ck_assert_ptr_null(gone = tu_read(state, JOURNAL_FILE));

        tu_write(state, JOURNAL_FILE, text, 0644);
        ck_assert_int_eq(journal_open(&bad, state, &why), -EBADMSG);
        ck_assert_ptr_null(bad);
        ck_assert_str_eq(why, "line 2: path must start with /proc/ or /sys/ and must not contain \"..\", "
                              "or be napi:NETNS:ID:KNOB");
        after = tu_read(state, JOURNAL_FILE);
        ck_assert_str_eq(after, text);
}
END_TEST

/* ---- restoring through the hook ---- */

typedef struct Calls {
        unsigned n;
        char knob[64], path[64], original[16];
        void *userdata;
        int result;
} Calls;

static int hook(const char *knob, const char *path, const char *original, void *userdata) {
        Calls *c = userdata;

        c->n++;
        snprintf(c->knob, sizeof(c->knob), "%s", knob);
        snprintf(c->path, sizeof(c->path), "%s", path);
        snprintf(c->original, sizeof(c->original), "%s", original);
        c->userdata = userdata;
        return c->result;
}

typedef struct Reports {
        unsigned n;
        int errors[4];
} Reports;

static void collect(const char *knob, const char *path, const char *original, int error, void *userdata) {
        Reports *rep = userdata;

        (void)knob, (void)path, (void)original;
        if (rep->n < 4)
                rep->errors[rep->n] = error;
        rep->n++;
}

START_TEST(test_journal_replay_calls_hook_for_napi_entries) {
        _cleanup_(journal_freep) Journal *j = open_ok(), *again = NULL;
        _cleanup_(freep) char *gone = NULL;
        Calls calls = {};
        Reports rep = {};

        ck_assert_int_eq(journal_record(j, "busy-read", BUSY_READ, "50"), 0);
        ck_assert_int_eq(journal_record(j, NAPI_LABEL, NAPI_GRO, "20000"), 0);
        again = open_ok(); /* after a crash */
        journal_set_restore_hook(again, hook, &calls);
        ck_assert_int_eq(journal_replay(again, sysroot, collect, &rep), 0);
        ck_assert_uint_eq(calls.n, 1);
        ck_assert_str_eq(calls.knob, NAPI_LABEL);
        ck_assert_str_eq(calls.path, NAPI_GRO);
        ck_assert_str_eq(calls.original, "20000");
        ck_assert_ptr_eq(calls.userdata, &calls);
        ck_assert_uint_eq(rep.n, 2);
        ck_assert_int_eq(rep.errors[0], 0);
        ck_assert_int_eq(rep.errors[1], 0);
        assert_text(sysroot, BUSY_READ, "50\n");
        ck_assert_uint_eq(journal_size(again), 0);
        ck_assert_ptr_null(gone = tu_read(state, JOURNAL_FILE));
}
END_TEST

/* A kernel that refuses the first value until the second is back, like napi_skb_cache_size vs _bulk. */
typedef struct Dependent {
        bool second_done;
        unsigned refused;
} Dependent;

static int dependent_hook(const char *knob, const char *path, const char *original, void *userdata) {
        Dependent *d = userdata;

        (void)knob, (void)original;
        if (strstr(path, ":1:")) {
                if (!d->second_done) {
                        d->refused++;
                        return -EINVAL;
                }
                return 0;
        }
        d->second_done = true;
        return 0;
}

START_TEST(test_journal_replay_retries_values_that_depend_on_later_ones) {
        _cleanup_(journal_freep) Journal *j = open_ok();
        Dependent d = {};
        Reports rep = {};

        ck_assert_int_eq(journal_record(j, "napi-defer-hard-irqs@veth0:napi-1", "napi:-:1:napi-defer-hard-irqs", "0"), 0);
        ck_assert_int_eq(journal_record(j, "napi-defer-hard-irqs@veth0:napi-2", "napi:-:2:napi-defer-hard-irqs", "0"), 0);
        journal_set_restore_hook(j, dependent_hook, &d);
        ck_assert_int_eq(journal_replay(j, sysroot, collect, &rep), 0);
        ck_assert_uint_eq(d.refused, 1);
        ck_assert_uint_eq(rep.n, 2);
        ck_assert_int_eq(rep.errors[0], 0);
        ck_assert_int_eq(rep.errors[1], 0);
        ck_assert_uint_eq(journal_size(j), 0);
}
END_TEST

START_TEST(test_journal_napi_entry_without_hook_stays) {
        _cleanup_(journal_freep) Journal *j = open_ok();
        _cleanup_(freep) char *stray = tu_join(sysroot, NAPI_GRO);
        Calls calls = {};
        Reports rep = {};

        ck_assert_int_eq(journal_record(j, "busy-read", BUSY_READ, "50"), 0);
        ck_assert_int_eq(journal_record(j, NAPI_LABEL, NAPI_GRO, "0"), 0);
        ck_assert_int_eq(journal_restore(j, sysroot, NAPI_GRO), -EOPNOTSUPP);
        /* Setting and clearing a hook leaves none. */
        journal_set_restore_hook(j, hook, &calls);
        journal_set_restore_hook(j, NULL, NULL);
        ck_assert_int_eq(journal_replay(j, sysroot, collect, &rep), 1);
        ck_assert_uint_eq(calls.n, 0);
        ck_assert_uint_eq(rep.n, 2);
        ck_assert_int_eq(rep.errors[0], 0);
        ck_assert_int_eq(rep.errors[1], -EOPNOTSUPP);
        assert_text(sysroot, BUSY_READ, "50\n");
        /* Never written as a file below the sysroot. */
        ck_assert_int_eq(access(stray, F_OK), -1);
        assert_text(state, JOURNAL_FILE, "netpolld-journal 1\n" NAPI_LABEL "\t" NAPI_GRO "\t0\nend 1\n");
}
END_TEST

START_TEST(test_journal_hook_failure_keeps_entry) {
        _cleanup_(journal_freep) Journal *j = open_ok();
        _cleanup_(freep) char *gone = NULL;
        Calls calls = { .result = -EIO };

        ck_assert_int_eq(journal_record(j, NAPI_LABEL, NAPI_GRO, "0"), 0);
        journal_set_restore_hook(j, hook, &calls);
        ck_assert_int_eq(journal_restore(j, sysroot, NAPI_GRO), -EIO);
        ck_assert_str_eq(journal_original(j, NAPI_GRO), "0");
        assert_text(state, JOURNAL_FILE, "netpolld-journal 1\n" NAPI_LABEL "\t" NAPI_GRO "\t0\nend 1\n");
        calls.result = 0;
        ck_assert_int_eq(journal_restore(j, sysroot, NAPI_GRO), 0);
        ck_assert_uint_eq(calls.n, 2);
        ck_assert_uint_eq(journal_size(j), 0);
        ck_assert_ptr_null(gone = tu_read(state, JOURNAL_FILE));
}
END_TEST

static Suite *journal_napi_suite(void) {
        Suite *s = suite_create("journal-napi");
        TCase *tc;

        tc = tcase_create("path form");
        tcase_add_test(tc, test_journal_napi_path_formats_and_escapes_namespace);
        tcase_add_test(tc, test_journal_napi_path_parse_round_trips);
        tcase_add_test(tc, test_journal_napi_path_refuses_bad_fields);
        tcase_add_loop_test(tc, test_journal_napi_path_parse_refuses_malformed, 0, (int)ELEMENTSOF(refused));
        suite_add_tcase(s, tc);

        tc = tcase_create("entries");
        tcase_add_checked_fixture(tc, setup, teardown);
        tcase_add_test(tc, test_journal_records_and_reloads_napi_entries);
        tcase_add_test(tc, test_journal_refuses_malformed_napi_entries);
        suite_add_tcase(s, tc);

        tc = tcase_create("restore hook");
        tcase_add_checked_fixture(tc, setup, teardown);
        tcase_add_test(tc, test_journal_replay_calls_hook_for_napi_entries);
        tcase_add_test(tc, test_journal_replay_retries_values_that_depend_on_later_ones);
        tcase_add_test(tc, test_journal_napi_entry_without_hook_stays);
        tcase_add_test(tc, test_journal_hook_failure_keeps_entry);
        suite_add_tcase(s, tc);

        return s;
}

TU_MAIN(journal_napi_suite)
