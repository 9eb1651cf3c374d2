/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * test-history.c: the controller's decision rings (daemon/decisions/history.c):
 * order, wrap at HISTORY_PER_KNOB, the knob bound, bad names, and what a
 * full history costs in memory (printed for docs/ARCHITECTURE.md).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "history.h"
#include "macro.h"
#include "testutil.h"

START_TEST(test_history_keeps_order_oldest_first) {
        DecisionHistory h = {};

        ck_assert_int_eq(history_count(&h, "busy-poll"), 0);
        ck_assert_ptr_null(history_at(&h, "busy-poll", 0));
        ck_assert_int_eq(history_record(&h, "busy-poll", 1000, 50, 0, "runnable 1.4 > 0.5 for 2 samples"), 0);
        ck_assert_int_eq(history_record(&h, "busy-read", 1001, 50, 0, "other knob"), 0);
        ck_assert_int_eq(history_record(&h, "busy-poll", 2000, 0, 50, "runnable 0.0 <= 0.5 for 2 samples"), 0);
        ck_assert_int_eq(history_count(&h, "busy-poll"), 2);
        ck_assert_int_eq(history_count(&h, "busy-read"), 1);
        ck_assert_int_eq(history_at(&h, "busy-poll", 0)->at_ms, 1000);
        ck_assert_int_eq(history_at(&h, "busy-poll", 0)->old_value, 50);
        ck_assert_int_eq(history_at(&h, "busy-poll", 0)->new_value, 0);
        ck_assert_str_eq(history_at(&h, "busy-poll", 0)->reason, "runnable 1.4 > 0.5 for 2 samples");
        ck_assert_int_eq(history_at(&h, "busy-poll", 1)->at_ms, 2000);
        ck_assert_ptr_null(history_at(&h, "busy-poll", 2));
        ck_assert_str_eq(history_at(&h, "busy-read", 0)->reason, "other knob");
        ck_assert_ptr_null(history_at(&h, "netdev-budget", 0));
}
END_TEST

START_TEST(test_history_wraps_at_the_bound_dropping_the_oldest) {
        DecisionHistory h = {};
        char reason[32];

        for (unsigned i = 0; i < 3 * HISTORY_PER_KNOB + 5; i++) {
                snprintf(reason, sizeof(reason), "decision %u", i);
                ck_assert_int_eq(history_record(&h, "netdev-budget", 100 + i, i, i + 1, reason), 0);
                ck_assert_int_eq(history_count(&h, "netdev-budget"), i + 1 < HISTORY_PER_KNOB ? i + 1 : HISTORY_PER_KNOB);
        }
        /* The last HISTORY_PER_KNOB, oldest first. */
        for (unsigned i = 0; i < HISTORY_PER_KNOB; i++) {
                const HistoryEntry *e = history_at(&h, "netdev-budget", i);
                unsigned want = 2 * HISTORY_PER_KNOB + 5 + i;

                ck_assert_ptr_nonnull(e);
                snprintf(reason, sizeof(reason), "decision %u", want);
                ck_assert_str_eq(e->reason, reason);
                ck_assert_int_eq(e->at_ms, 100 + want);
                ck_assert_int_eq(e->old_value, want);
        }
        ck_assert_ptr_null(history_at(&h, "netdev-budget", HISTORY_PER_KNOB));
}
END_TEST

START_TEST(test_history_bounds_knobs_and_refuses_bad_names) {
        DecisionHistory h = {};
        char name[HISTORY_KNOB_NAME_MAX + 8];

        for (unsigned i = 0; i < HISTORY_KNOBS_MAX; i++) {
                snprintf(name, sizeof(name), "knob-%u", i);
                ck_assert_int_eq(history_record(&h, name, i, 0, 1, "x"), 0);
        }
        ck_assert_int_eq(history_record(&h, "one-too-many", 1, 0, 1, "x"), -ENOSPC);
        ck_assert_int_eq(history_count(&h, "one-too-many"), 0);
        /* A knob already held still records. */
        ck_assert_int_eq(history_record(&h, "knob-3", 9, 1, 2, "again"), 0);
        ck_assert_int_eq(history_count(&h, "knob-3"), 2);

        ck_assert_int_eq(history_record(&h, "", 1, 0, 1, "x"), -EINVAL);
        ck_assert_int_eq(history_record(&h, NULL, 1, 0, 1, "x"), -EINVAL);
        memset(name, 'k', HISTORY_KNOB_NAME_MAX);
        name[HISTORY_KNOB_NAME_MAX] = '\0';
        ck_assert_int_eq(history_record(&h, name, 1, 0, 1, "x"), -EINVAL);
        history_clear(&h);
        ck_assert_int_eq(history_count(&h, "knob-3"), 0);
        ck_assert_int_eq(history_record(&h, "one-too-many", 1, 0, 1, "x"), 0);
}
END_TEST

START_TEST(test_history_cuts_long_reasons) {
        DecisionHistory h = {};
        char reason[HISTORY_REASON_MAX * 2];

        memset(reason, 'r', sizeof(reason) - 1);
        reason[sizeof(reason) - 1] = '\0';
        ck_assert_int_eq(history_record(&h, "busy-read", 1, 0, 1, reason), 0);
        ck_assert_int_eq(strlen(history_at(&h, "busy-read", 0)->reason), HISTORY_REASON_MAX - 1);
        ck_assert_int_eq(history_record(&h, "busy-read", 1, 0, 1, NULL), 0);
        ck_assert_str_eq(history_at(&h, "busy-read", 1)->reason, "");
}
END_TEST

static long vm_rss_kib(void) {
        FILE *f = fopen("/proc/self/status", "re");
        char line[256];
        long v = -1;

        if (!f)
                return -1;
        while (fgets(line, sizeof(line), f))
                if (sscanf(line, "VmRSS: %ld kB", &v) == 1)
                        break;
        fclose(f);
        return v;
}

/* Pages of [p, p + size) in memory now (mincore(2)): what a mapping costs in RSS, whatever else the process touches. */
static long resident_pages(void *p, size_t size) {
        size_t page = (size_t)sysconf(_SC_PAGESIZE), n = (size + page - 1) / page;
        _cleanup_(freep) unsigned char *vec = calloc(n, 1);
        long resident = 0;

        if (!vec || mincore(p, size, vec) < 0)
                return -1;
        for (size_t i = 0; i < n; i++)
                resident += vec[i] & 1;
        return resident;
}

/*
 * What a full history costs: its size is fixed, so filling it (every knob
 * slot, each ring wrapped) makes at most sizeof(DecisionHistory) of it
 * resident. Counted with mincore() on a mapping of its own (VmRSS also
 * moves with whatever else the process touches: stack, libc, a
 * sanitizer's shadow), and printed for the docs.
 */
START_TEST(test_history_full_costs_its_size) {
        /* A mapping of its own, untouched until filled (calloc could hand out pages touched before). */
        DecisionHistory *h = mmap(NULL, sizeof(DecisionHistory), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                                  -1, 0);
        char name[HISTORY_KNOB_NAME_MAX], reason[HISTORY_REASON_MAX];
        long page = sysconf(_SC_PAGESIZE), before, after, rss_before, rss_after;

        ck_assert_ptr_ne(h, MAP_FAILED);
        before = resident_pages(h, sizeof(DecisionHistory));
        rss_before = vm_rss_kib();
        memset(reason, 'r', sizeof(reason) - 1);
        reason[sizeof(reason) - 1] = '\0';
        for (unsigned k = 0; k < HISTORY_KNOBS_MAX; k++)
                for (unsigned i = 0; i < 2 * HISTORY_PER_KNOB; i++) {
                        snprintf(name, sizeof(name), "knob-%u", k);
                        ck_assert_int_eq(history_record(h, name, i, i, i + 1, reason), 0);
                }
        after = resident_pages(h, sizeof(DecisionHistory));
        rss_after = vm_rss_kib();
        printf("history: %d knobs x %d decisions, sizeof(HistoryEntry) %zu, sizeof(DecisionHistory) %zu bytes; "
               "resident %ld of its pages before filling, %ld after (%ld kB); VmRSS %ld kB -> %ld kB\n",
               HISTORY_KNOBS_MAX, HISTORY_PER_KNOB, sizeof(HistoryEntry), sizeof(DecisionHistory), before, after,
               after * page / 1024, rss_before, rss_after);
        ck_assert_int_eq(before, 0);
        ck_assert_int_gt(after, 0);
        ck_assert_int_le(after * page, (long)sizeof(DecisionHistory) + page - 1);
        ck_assert_int_eq(history_count(h, "knob-7"), HISTORY_PER_KNOB);
        munmap(h, sizeof(DecisionHistory));
}
END_TEST

static Suite *history_suite(void) {
        Suite *s = suite_create("history");
        TCase *tc = tcase_create("ring");

        tcase_add_test(tc, test_history_keeps_order_oldest_first);
        tcase_add_test(tc, test_history_wraps_at_the_bound_dropping_the_oldest);
        tcase_add_test(tc, test_history_bounds_knobs_and_refuses_bad_names);
        tcase_add_test(tc, test_history_cuts_long_reasons);
        tcase_add_test(tc, test_history_full_costs_its_size);
        suite_add_tcase(s, tc);
        return s;
}

TU_MAIN(history_suite)
