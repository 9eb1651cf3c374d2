/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "strv.h"
#include "testutil.h"

START_TEST(test_strv_join_puts_sep_between_only) {
        char *l[] = { (char *)"a:1: bad", (char *)"b:2: worse", (char *)"c", NULL };
        _cleanup_(freep) char *s = strv_join(l, "\n");
        ck_assert_str_eq(s, "a:1: bad\nb:2: worse\nc");
}
END_TEST

START_TEST(test_strv_join_empty_and_null_lists) {
        char *empty[] = { NULL }, *one[] = { (char *)"x", NULL };
        _cleanup_(freep) char *a = strv_join(empty, ", "), *b = strv_join(NULL, ", "), *c = strv_join(one, ", ");
        ck_assert_str_eq(a, "");
        ck_assert_str_eq(b, "");
        ck_assert_str_eq(c, "x");
}
END_TEST

START_TEST(test_strv_extend_copy_and_length) {
        _cleanup_(strv_freep) char **l = NULL, **c = NULL;
        ck_assert_int_eq(strv_extend(&l, "one"), 0);
        ck_assert_int_eq(strv_extendf(&l, "%s-%d", "two", 2), 0);
        ck_assert_uint_eq(strv_length(l), 2);
        c = strv_copy(l);
        ck_assert_ptr_nonnull(c);
        ck_assert_ptr_ne(c[0], l[0]);
        ck_assert_str_eq(c[1], "two-2");
        ck_assert_ptr_null(c[2]);
}
END_TEST

static Suite *strv_suite(void) {
        Suite *s = suite_create("strv");
        TCase *tc = tcase_create("strv");
        tcase_add_test(tc, test_strv_join_puts_sep_between_only);
        tcase_add_test(tc, test_strv_join_empty_and_null_lists);
        tcase_add_test(tc, test_strv_extend_copy_and_length);
        suite_add_tcase(s, tc);
        return s;
}

TU_MAIN(strv_suite)
