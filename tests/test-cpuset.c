/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * test-cpuset.c: CPU set arithmetic and the kernel's two text forms, the
 * list ("0-3,8") and the hex mask ("ff,ffffffff"), in both directions.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpuset.h"
#include "macro.h"
#include "testutil.h"

#define REASON_UNSET "(reason not set)"

static const char R_LIST_EMPTY[] = "empty CPU list; expected CPUs such as 0-3,8, or none";
static const char R_ELEMENT[] = "empty element; expected a CPU number or a range such as 0-3";
static const char R_NOT_CPU[] = "expected a CPU number or a range such as 0-3";
static const char R_AFTER[] = "expected ',' or '-' after a CPU number";
static const char R_SPACES[] = "spaces are not allowed";
static const char R_ABOVE[] = "CPU number above 8191";
static const char R_MASK_EMPTY[] = "empty CPU mask; expected hex words such as ff,ffffffff";
static const char R_WORD_EMPTY[] = "empty word in CPU mask";
static const char R_WORD_LONG[] = "more than 8 hex digits in one word of the CPU mask";
static const char R_HEX[] = "not a hex digit in CPU mask";
static const char R_WIDE[] = "CPU mask wider than 8192 CPUs";

static const char *show(const char *s) {
        return s ?: "(null)";
}

/* A set no parser returns for the inputs below, to catch writes on failure. */
static void sentinel(CpuSet *s) {
        cpuset_zero(s);
        cpuset_add(s, 7);
        cpuset_add(s, 4000);
}

static void set_range(CpuSet *s, unsigned a, unsigned b) {
        for (unsigned c = a; c <= b; c++)
                cpuset_add(s, c);
}

#define assert_list_parses_to(str, expected_fmt)                                                   \
        do {                                                                                       \
                CpuSet _s;                                                                         \
                const char *_why = NULL;                                                           \
                sentinel(&_s);                                                                     \
                int _r = cpuset_parse_list(str, &_s, &_why);                                       \
                ck_assert_msg(_r == 0, "cpuset_parse_list(\"%s\") = %d (%s)", str, _r, show(_why)); \
                _cleanup_(freep) char *_f = cpuset_format_list(&_s);                               \
                ck_assert_str_eq(_f, expected_fmt);                                                \
        } while (0)

#define assert_list_fails(str, err, reason)                                                        \
        do {                                                                                       \
                CpuSet _s, _orig;                                                                  \
                const char *_why = REASON_UNSET;                                                   \
                sentinel(&_s);                                                                     \
                sentinel(&_orig);                                                                  \
                int _r = cpuset_parse_list(str, &_s, &_why);                                       \
                ck_assert_msg(_r == (err), "cpuset_parse_list(\"%s\") = %d, expected %d", show(str), \
                              _r, (err));                                                          \
                ck_assert_msg(cpuset_equal(&_s, &_orig), "cpuset_parse_list(\"%s\") wrote on failure", \
                              show(str));                                                          \
                ck_assert_str_eq(_why, reason);                                                    \
        } while (0)

#define assert_mask_fails(str, err, reason)                                                        \
        do {                                                                                       \
                CpuSet _s, _orig;                                                                  \
                const char *_why = REASON_UNSET;                                                   \
                sentinel(&_s);                                                                     \
                sentinel(&_orig);                                                                  \
                int _r = cpuset_parse_mask(str, &_s, &_why);                                       \
                ck_assert_msg(_r == (err), "cpuset_parse_mask(\"%s\") = %d, expected %d", show(str), \
                              _r, (err));                                                          \
                ck_assert_msg(cpuset_equal(&_s, &_orig), "cpuset_parse_mask(\"%s\") wrote on failure", \
                              show(str));                                                          \
                ck_assert_str_eq(_why, reason);                                                    \
        } while (0)

/* Parses a mask that must be valid and returns its list form (caller frees). */
static char *mask_as_list(const char *mask) {
        CpuSet s;
        const char *why = NULL;
        int r = cpuset_parse_mask(mask, &s, &why);
        ck_assert_msg(r == 0, "cpuset_parse_mask(\"%.40s\") = %d (%s)", mask, r, show(why));
        char *l = cpuset_format_list(&s);
        ck_assert_ptr_nonnull(l);
        return l;
}

/* n comma-separated copies of word, the first one replaced by first (caller frees). */
static char *mask_words(const char *first, const char *word, unsigned n) {
        size_t wl = strlen(word), size = strlen(first) + n * (wl + 1) + 1;
        char *buf = malloc(size), *p = buf;
        ck_assert_ptr_nonnull(buf);
        p = stpcpy(p, first);
        for (unsigned i = 1; i < n; i++) {
                *p++ = ',';
                p = stpcpy(p, word);
        }
        return buf;
}

/* Set operations */

START_TEST(test_cpuset_count_follows_adds_and_deletes) {
        CpuSet s;
        cpuset_zero(&s);
        ck_assert_uint_eq(cpuset_count(&s), 0);
        cpuset_add(&s, 0);
        cpuset_add(&s, 63);
        cpuset_add(&s, 64);
        cpuset_add(&s, 8191);
        ck_assert_uint_eq(cpuset_count(&s), 4);
        cpuset_add(&s, 64); /* adding twice counts once */
        ck_assert_uint_eq(cpuset_count(&s), 4);
        cpuset_del(&s, 63);
        cpuset_del(&s, 62); /* deleting an absent CPU changes nothing */
        ck_assert_uint_eq(cpuset_count(&s), 3);
        ck_assert(cpuset_has(&s, 64) && !cpuset_has(&s, 63) && !cpuset_has(&s, 1));
        set_range(&s, 0, CPUSET_MAX - 1);
        ck_assert_uint_eq(cpuset_count(&s), CPUSET_MAX);
}
END_TEST

START_TEST(test_cpuset_ignores_cpus_beyond_max) {
        CpuSet s, empty;
        cpuset_zero(&s);
        cpuset_zero(&empty);
        cpuset_add(&s, CPUSET_MAX);
        cpuset_add(&s, 100000);
        ck_assert(cpuset_equal(&s, &empty));
        ck_assert(!cpuset_has(&s, CPUSET_MAX));
        cpuset_add(&s, CPUSET_MAX - 1);
        cpuset_del(&s, CPUSET_MAX);
        ck_assert(cpuset_has(&s, CPUSET_MAX - 1));
}
END_TEST

START_TEST(test_cpuset_equal_compares_every_cpu) {
        CpuSet a, b;
        cpuset_zero(&a);
        cpuset_zero(&b);
        ck_assert(cpuset_equal(&a, &b));
        cpuset_add(&b, 8191);
        ck_assert(!cpuset_equal(&a, &b));
        ck_assert(!cpuset_equal(&b, &a));
        cpuset_add(&a, 8191);
        ck_assert(cpuset_equal(&a, &b));
        cpuset_add(&a, 0);
        ck_assert(!cpuset_equal(&a, &b));
}
END_TEST

START_TEST(test_cpuset_is_empty) {
        CpuSet s;
        cpuset_zero(&s);
        ck_assert(cpuset_is_empty(&s));
        cpuset_add(&s, 8191);
        ck_assert(!cpuset_is_empty(&s));
        cpuset_del(&s, 8191);
        ck_assert(cpuset_is_empty(&s));
        cpuset_add(&s, 0);
        ck_assert(!cpuset_is_empty(&s));
}
END_TEST

START_TEST(test_cpuset_last_is_highest_cpu) {
        CpuSet s;
        cpuset_zero(&s);
        ck_assert_int_eq(cpuset_last(&s), -1);
        cpuset_add(&s, 0);
        ck_assert_int_eq(cpuset_last(&s), 0);
        cpuset_add(&s, 63);
        ck_assert_int_eq(cpuset_last(&s), 63);
        cpuset_add(&s, 64);
        ck_assert_int_eq(cpuset_last(&s), 64);
        cpuset_add(&s, 8191);
        ck_assert_int_eq(cpuset_last(&s), 8191);
        cpuset_del(&s, 8191);
        ck_assert_int_eq(cpuset_last(&s), 64);
}
END_TEST

/* cpuset_parse_list */

START_TEST(test_cpuset_parse_list_single_cpus_and_ranges) {
        CpuSet s;
        const char *why = NULL;

        ck_assert_int_eq(cpuset_parse_list("0-3,8", &s, &why), 0);
        ck_assert_uint_eq(cpuset_count(&s), 5);
        for (unsigned c = 0; c <= 3; c++)
                ck_assert(cpuset_has(&s, c));
        for (unsigned c = 4; c <= 7; c++)
                ck_assert(!cpuset_has(&s, c));
        ck_assert(cpuset_has(&s, 8));
        ck_assert_int_eq(cpuset_last(&s), 8);

        ck_assert_int_eq(cpuset_parse_list("0", &s, NULL), 0);
        ck_assert_uint_eq(cpuset_count(&s), 1);
        ck_assert(cpuset_has(&s, 0));

        assert_list_parses_to("5", "5");
        assert_list_parses_to("0-0", "0");
        assert_list_parses_to("8,0-3", "0-3,8");          /* order does not matter */
        assert_list_parses_to("1,1,1-2,2", "1-2");        /* nor do repeats */
        assert_list_parses_to("007", "7");                /* leading zeros are decimal */
        assert_list_parses_to("62-65,127-128", "62-65,127-128");
}
END_TEST

START_TEST(test_cpuset_parse_list_full_range) {
        CpuSet s;
        ck_assert_int_eq(cpuset_parse_list("0-8191", &s, NULL), 0);
        ck_assert_uint_eq(cpuset_count(&s), 8192);
        ck_assert_int_eq(cpuset_last(&s), 8191);
        assert_list_parses_to("8191", "8191");
        assert_list_parses_to("8190-8191", "8190-8191");
}
END_TEST

START_TEST(test_cpuset_parse_list_none_is_the_empty_set) {
        CpuSet s;
        sentinel(&s);
        ck_assert_int_eq(cpuset_parse_list("none", &s, NULL), 0);
        ck_assert(cpuset_is_empty(&s));
        assert_list_fails("None", -EINVAL, R_NOT_CPU); /* the keyword is case-sensitive */
        assert_list_fails("none,1", -EINVAL, R_NOT_CPU);
        assert_list_fails("1,none", -EINVAL, R_NOT_CPU);
}
END_TEST

START_TEST(test_cpuset_parse_list_rejects_cpus_above_max) {
        assert_list_fails("8192", -ERANGE, R_ABOVE);
        assert_list_fails("0-8192", -ERANGE, R_ABOVE);
        assert_list_fails("8192-8193", -ERANGE, R_ABOVE);
        assert_list_fails("1,9999", -ERANGE, R_ABOVE);
        assert_list_fails("4294967296", -ERANGE, R_ABOVE);          /* no 32-bit wrap to 0 */
        assert_list_fails("99999999999999999999999", -ERANGE, R_ABOVE);
}
END_TEST

START_TEST(test_cpuset_parse_list_rejects_reversed_range) {
        assert_list_fails("3-1", -EINVAL, "range end is below its start");
        assert_list_fails("0,8191-0", -EINVAL, "range end is below its start");
}
END_TEST

START_TEST(test_cpuset_parse_list_rejects_empty_input_and_elements) {
        assert_list_fails("", -EINVAL, R_LIST_EMPTY);
        assert_list_fails(NULL, -EINVAL, R_LIST_EMPTY);
        assert_list_fails("1,,2", -EINVAL, R_ELEMENT);
        assert_list_fails("1,", -EINVAL, R_ELEMENT);
        assert_list_fails(",1", -EINVAL, R_ELEMENT);
        assert_list_fails(",", -EINVAL, R_ELEMENT);
        assert_list_fails("1-", -EINVAL, R_ELEMENT);
        assert_list_fails("1-,2", -EINVAL, R_ELEMENT);
}
END_TEST

START_TEST(test_cpuset_parse_list_rejects_negative_and_spaces) {
        assert_list_fails("-1", -EINVAL, "negative CPU numbers are not allowed");
        assert_list_fails("-1-3", -EINVAL, "negative CPU numbers are not allowed");
        assert_list_fails("1 - 3", -EINVAL, R_SPACES);
        assert_list_fails("1- 3", -EINVAL, R_SPACES);
        assert_list_fails(" 1", -EINVAL, R_SPACES);
        assert_list_fails("1 ", -EINVAL, R_SPACES);
        assert_list_fails("1, 2", -EINVAL, R_SPACES);
}
END_TEST

START_TEST(test_cpuset_parse_list_rejects_garbage) {
        assert_list_fails("a", -EINVAL, R_NOT_CPU);
        assert_list_fails("1-a", -EINVAL, R_NOT_CPU);
        assert_list_fails("1;2", -EINVAL, R_AFTER);
        assert_list_fails("0x3", -EINVAL, R_AFTER);
        assert_list_fails("1-2-3", -EINVAL, R_AFTER);
        assert_list_fails("1\n", -EINVAL, R_AFTER);
        assert_list_fails("ff", -EINVAL, R_NOT_CPU);
}
END_TEST

START_TEST(test_cpuset_parse_list_reason_is_optional) {
        CpuSet s, orig;
        sentinel(&s);
        sentinel(&orig);
        ck_assert_int_eq(cpuset_parse_list("3-1", &s, NULL), -EINVAL);
        ck_assert_int_eq(cpuset_parse_list("8192", &s, NULL), -ERANGE);
        ck_assert(cpuset_equal(&s, &orig));
}
END_TEST

/* cpuset_format_list */

START_TEST(test_cpuset_format_list_round_trips) {
        static const char *const lists[] = {
                "0-3,8", "5", "none", "0,2,4", "8191", "0", "0-1", "0,8191", "0-8191", "63-64", "1-3,5-7,9",
        };
        for (size_t i = 0; i < ELEMENTSOF(lists); i++)
                assert_list_parses_to(lists[i], lists[i]);
}
END_TEST

START_TEST(test_cpuset_format_list_merges_adjacent_cpus) {
        CpuSet s;
        cpuset_zero(&s);
        cpuset_add(&s, 4);
        cpuset_add(&s, 2);
        cpuset_add(&s, 3);
        cpuset_add(&s, 10);
        _cleanup_(freep) char *l = cpuset_format_list(&s);
        ck_assert_str_eq(l, "2-4,10");
}
END_TEST

/* cpuset_parse_mask */

START_TEST(test_cpuset_parse_mask_kernel_forms) {
        CpuSet s;
        sentinel(&s);
        ck_assert_int_eq(cpuset_parse_mask("0", &s, NULL), 0);
        ck_assert(cpuset_is_empty(&s));

        ck_assert_int_eq(cpuset_parse_mask("3", &s, NULL), 0);
        ck_assert_uint_eq(cpuset_count(&s), 2);
        ck_assert(cpuset_has(&s, 0) && cpuset_has(&s, 1));

        ck_assert_int_eq(cpuset_parse_mask("ff,ffffffff", &s, NULL), 0);
        ck_assert_uint_eq(cpuset_count(&s), 40);
        ck_assert_int_eq(cpuset_last(&s), 39);

        _cleanup_(freep) char *a = mask_as_list("00000001,00000000");
        ck_assert_str_eq(a, "32");
        _cleanup_(freep) char *b = mask_as_list("80000000,00000000,00000000");
        ck_assert_str_eq(b, "95");
        _cleanup_(freep) char *c = mask_as_list("00000000,00000000,00000000");
        ck_assert_str_eq(c, "none");
        _cleanup_(freep) char *d = mask_as_list("f0");
        ck_assert_str_eq(d, "4-7");
        _cleanup_(freep) char *e = mask_as_list("FF,0000000A");
        ck_assert_str_eq(e, "1,3,32-39");
        _cleanup_(freep) char *f = mask_as_list("1,0"); /* short inner words are still words */
        ck_assert_str_eq(f, "32");
        _cleanup_(freep) char *g = mask_as_list("80000001,00000000,00000000,80000001");
        ck_assert_str_eq(g, "0,31,96,127");
}
END_TEST

START_TEST(test_cpuset_parse_mask_full_width) {
        _cleanup_(freep) char *high = mask_words("80000000", "00000000", 256);
        _cleanup_(freep) char *all = mask_words("ffffffff", "ffffffff", 256);
        _cleanup_(freep) char *lh = mask_as_list(high);
        _cleanup_(freep) char *la = mask_as_list(all);
        ck_assert_str_eq(lh, "8191");
        ck_assert_str_eq(la, "0-8191");
}
END_TEST

START_TEST(test_cpuset_parse_mask_rejects_bad_words) {
        assert_mask_fails("", -EINVAL, R_MASK_EMPTY);
        assert_mask_fails(NULL, -EINVAL, R_MASK_EMPTY);
        assert_mask_fails(",", -EINVAL, R_WORD_EMPTY);
        assert_mask_fails("ff,", -EINVAL, R_WORD_EMPTY);
        assert_mask_fails(",ff", -EINVAL, R_WORD_EMPTY);
        assert_mask_fails("ff,,ff", -EINVAL, R_WORD_EMPTY);
        assert_mask_fails("123456789", -EINVAL, R_WORD_LONG);
        assert_mask_fails("1,000000000", -EINVAL, R_WORD_LONG);
        assert_mask_fails("xyz", -EINVAL, R_HEX);
        assert_mask_fails("ff ff", -EINVAL, R_HEX);
        assert_mask_fails(" ff", -EINVAL, R_HEX);
        assert_mask_fails("ff\n", -EINVAL, R_HEX);
        assert_mask_fails("0x3", -EINVAL, R_HEX);
        assert_mask_fails("-1", -EINVAL, R_HEX);
        assert_mask_fails("fg", -EINVAL, R_HEX);
}
END_TEST

START_TEST(test_cpuset_parse_mask_rejects_more_than_256_words) {
        _cleanup_(freep) char *zeros = mask_words("0", "0", 257);
        _cleanup_(freep) char *full = mask_words("00000000", "ffffffff", 257);
        assert_mask_fails(zeros, -ERANGE, R_WIDE);
        assert_mask_fails(full, -ERANGE, R_WIDE);
}
END_TEST

/* cpuset_format_mask */

#define assert_format_mask(set, nbits, expected)                                                   \
        do {                                                                                       \
                _cleanup_(freep) char *_m = cpuset_format_mask(set, nbits);                        \
                ck_assert_ptr_nonnull(_m);                                                         \
                ck_assert_str_eq(_m, expected);                                                    \
        } while (0)

START_TEST(test_cpuset_format_mask_prints_like_the_kernel) {
        CpuSet s;

        cpuset_zero(&s);
        assert_format_mask(&s, 2, "0");
        assert_format_mask(&s, 1, "0");
        assert_format_mask(&s, 0, "0"); /* nbits 0 is rounded up to one CPU */
        assert_format_mask(&s, 40, "00,00000000");
        set_range(&s, 0, 1);
        assert_format_mask(&s, 2, "3");
        set_range(&s, 0, 3);
        assert_format_mask(&s, 4, "f");
        assert_format_mask(&s, 5, "0f"); /* the leading word is as wide as its bits need */
        assert_format_mask(&s, 32, "0000000f");
        set_range(&s, 0, 39);
        assert_format_mask(&s, 40, "ff,ffffffff");

        cpuset_zero(&s);
        cpuset_add(&s, 0);
        assert_format_mask(&s, 64, "00000000,00000001");
        assert_format_mask(&s, 33, "0,00000001");

        cpuset_zero(&s);
        cpuset_add(&s, 31);
        assert_format_mask(&s, 32, "80000000");
        cpuset_zero(&s);
        cpuset_add(&s, 95);
        assert_format_mask(&s, 96, "80000000,00000000,00000000");
}
END_TEST

START_TEST(test_cpuset_format_mask_widens_to_cover_the_set) {
        CpuSet s;
        cpuset_zero(&s);
        cpuset_add(&s, 9);
        assert_format_mask(&s, 4, "200");
        cpuset_add(&s, 32);
        assert_format_mask(&s, 2, "1,00000200");

        cpuset_zero(&s);
        cpuset_add(&s, 8191);
        _cleanup_(freep) char *expected = mask_words("80000000", "00000000", 256);
        assert_format_mask(&s, 1, expected);
        assert_format_mask(&s, 8192, expected);
}
END_TEST

START_TEST(test_cpuset_format_mask_clamps_nbits_to_max) {
        CpuSet s;
        cpuset_zero(&s);
        _cleanup_(freep) char *expected = mask_words("00000000", "00000000", 256);
        assert_format_mask(&s, 100000, expected);
        assert_format_mask(&s, (unsigned)-1, expected);
}
END_TEST

START_TEST(test_cpuset_mask_round_trips) {
        static const char *const lists[] = {
                "none", "0", "0-39", "8191", "0,63-64,127,4095,8191", "0-8191", "1,3,5,7,31-33,1000-1100",
        };
        static const unsigned widths[] = { 1, 2, 40, 64, 100, 8192 };

        for (size_t i = 0; i < ELEMENTSOF(lists); i++)
                for (size_t w = 0; w < ELEMENTSOF(widths); w++) {
                        CpuSet s, back;
                        ck_assert_int_eq(cpuset_parse_list(lists[i], &s, NULL), 0);
                        _cleanup_(freep) char *m = cpuset_format_mask(&s, widths[w]);
                        ck_assert_ptr_nonnull(m);
                        ck_assert_msg(cpuset_parse_mask(m, &back, NULL) == 0, "cannot parse \"%.60s\"", m);
                        ck_assert_msg(cpuset_equal(&s, &back), "\"%s\" at %u bits did not round-trip",
                                      lists[i], widths[w]);
                }
}
END_TEST

static Suite *cpuset_suite(void) {
        Suite *s = suite_create("cpuset");
        TCase *tc;

        tc = tcase_create("operations");
        tcase_add_test(tc, test_cpuset_count_follows_adds_and_deletes);
        tcase_add_test(tc, test_cpuset_ignores_cpus_beyond_max);
        tcase_add_test(tc, test_cpuset_equal_compares_every_cpu);
        tcase_add_test(tc, test_cpuset_is_empty);
        tcase_add_test(tc, test_cpuset_last_is_highest_cpu);
        suite_add_tcase(s, tc);

        tc = tcase_create("parse_list");
        tcase_add_test(tc, test_cpuset_parse_list_single_cpus_and_ranges);
        tcase_add_test(tc, test_cpuset_parse_list_full_range);
        tcase_add_test(tc, test_cpuset_parse_list_none_is_the_empty_set);
        tcase_add_test(tc, test_cpuset_parse_list_rejects_cpus_above_max);
        tcase_add_test(tc, test_cpuset_parse_list_rejects_reversed_range);
        tcase_add_test(tc, test_cpuset_parse_list_rejects_empty_input_and_elements);
        tcase_add_test(tc, test_cpuset_parse_list_rejects_negative_and_spaces);
        tcase_add_test(tc, test_cpuset_parse_list_rejects_garbage);
        tcase_add_test(tc, test_cpuset_parse_list_reason_is_optional);
        suite_add_tcase(s, tc);

        tc = tcase_create("format_list");
        tcase_add_test(tc, test_cpuset_format_list_round_trips);
        tcase_add_test(tc, test_cpuset_format_list_merges_adjacent_cpus);
        suite_add_tcase(s, tc);

        tc = tcase_create("parse_mask");
        tcase_add_test(tc, test_cpuset_parse_mask_kernel_forms);
        tcase_add_test(tc, test_cpuset_parse_mask_full_width);
        tcase_add_test(tc, test_cpuset_parse_mask_rejects_bad_words);
        tcase_add_test(tc, test_cpuset_parse_mask_rejects_more_than_256_words);
        suite_add_tcase(s, tc);

        tc = tcase_create("format_mask");
        tcase_add_test(tc, test_cpuset_format_mask_prints_like_the_kernel);
        tcase_add_test(tc, test_cpuset_format_mask_widens_to_cover_the_set);
        tcase_add_test(tc, test_cpuset_format_mask_clamps_nbits_to_max);
        tcase_add_test(tc, test_cpuset_mask_round_trips);
        suite_add_tcase(s, tc);

        return s;
}

TU_MAIN(cpuset_suite)
