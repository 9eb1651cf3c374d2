/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * test-table.c: netpollctl's aligned table formatter: column widths, the
 * two-space gap, capitals in the header, placeholders for empty cells, no
 * trailing blanks, UTF-8 widths, and refusal of bad arguments. Output is
 * captured in memory and compared byte for byte.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "macro.h"
#include "table.h"
#include "testutil.h"

/* Prints t into a memory buffer; caller frees. */
static char *render(const Table *t) {
        char *buf = NULL;
        size_t size = 0;
        FILE *f = open_memstream(&buf, &size);
        int r;

        ck_assert_ptr_nonnull(f);
        r = table_print(t, f);
        ck_assert_int_eq(fclose(f), 0);
        ck_assert_int_eq(r, 0);
        return buf;
}

static Table *make(size_t n, const char *const *headers) {
        Table *t = NULL;

        ck_assert_int_eq(table_new(&t, n, headers), 0);
        ck_assert_ptr_nonnull(t);
        return t;
}

START_TEST(test_table_aligns_columns_two_spaces_apart) {
        static const char *const h[] = { "KNOB", "VALUE", "ORIGIN" };
        _cleanup_(table_freep) Table *t = make(3, h);
        _cleanup_(freep) char *out = NULL;

        ck_assert_int_eq(table_add_cells(t, "busy-read", "50us", "manual"), 0);
        ck_assert_int_eq(table_add_cells(t, "netdev-budget-time", "8000us", "default"), 0);
        out = render(t);
        ck_assert_str_eq(out,
                         "KNOB                VALUE   ORIGIN\n"
                         "busy-read           50us    manual\n"
                         "netdev-budget-time  8000us  default\n");
}
END_TEST

START_TEST(test_table_header_wider_than_cells_sets_width) {
        static const char *const h[] = { "A", "DESCRIPTION", "Z" };
        _cleanup_(table_freep) Table *t = make(3, h);
        _cleanup_(freep) char *out = NULL;

        ck_assert_int_eq(table_add_cells(t, "xyz", "d", "1"), 0);
        out = render(t);
        ck_assert_str_eq(out,
                         "A    DESCRIPTION  Z\n"
                         "xyz  d            1\n");
}
END_TEST

START_TEST(test_table_header_is_printed_in_capitals) {
        static const char *const h[] = { "knob", "Kernel" };
        _cleanup_(table_freep) Table *t = make(2, h);
        _cleanup_(freep) char *out = NULL;

        ck_assert_int_eq(table_add_cells(t, "busy-poll", "needs 0001-x.patch"), 0);
        out = render(t);
        ck_assert_str_eq(out,
                         "KNOB       KERNEL\n"
                         "busy-poll  needs 0001-x.patch\n");
}
END_TEST

START_TEST(test_table_without_rows_prints_only_the_header) {
        static const char *const h[] = { "section", "key" };
        _cleanup_(table_freep) Table *t = make(2, h);
        _cleanup_(freep) char *out = NULL;

        out = render(t);
        ck_assert_str_eq(out, "SECTION  KEY\n");
        ck_assert_uint_eq(table_get_rows(t), 0);
}
END_TEST

START_TEST(test_table_keeps_many_rows_in_order) {
        static const char *const h[] = { "n", "square" };
        _cleanup_(table_freep) Table *t = make(2, h);
        _cleanup_(freep) char *out = NULL, *expected = NULL;
        size_t size = 0;
        FILE *f = open_memstream(&expected, &size);

        ck_assert_ptr_nonnull(f);
        fputs("N    SQUARE\n", f);
        /* More rows than the first allocation holds, so the table must grow. */
        for (int i = 0; i < 120; i++) {
                char a[16], b[16];

                snprintf(a, sizeof(a), "%d", i);
                snprintf(b, sizeof(b), "%d", i * i);
                ck_assert_int_eq(table_add_cells(t, a, b), 0);
                fprintf(f, "%-3d  %d\n", i, i * i);
        }
        ck_assert_int_eq(fclose(f), 0);
        ck_assert_uint_eq(table_get_rows(t), 120);
        out = render(t);
        ck_assert_str_eq(out, expected);
}
END_TEST

START_TEST(test_table_empty_cell_is_shown_as_dash) {
        static const char *const h[] = { "knob", "value", "origin" };
        _cleanup_(table_freep) Table *t = make(3, h);
        _cleanup_(freep) char *out = NULL;

        ck_assert_int_eq(table_add_cells(t, "busy-loop-threshold", "", "default"), 0);
        out = render(t);
        ck_assert_str_eq(out,
                         "KNOB                 VALUE  ORIGIN\n"
                         "busy-loop-threshold  -      default\n");
}
END_TEST

START_TEST(test_table_null_cell_is_blank_marker) {
        static const char *const h[] = { "", "name", "description" };
        _cleanup_(table_freep) Table *t = make(3, h);
        _cleanup_(freep) char *out = NULL;

        ck_assert_int_eq(table_add_cells(t, NULL, "balanced", "Default"), 0);
        ck_assert_int_eq(table_add_cells(t, "*", "latency", "Low latency"), 0);
        out = render(t);
        ck_assert_str_eq(out,
                         "   NAME      DESCRIPTION\n"
                         "   balanced  Default\n"
                         "*  latency   Low latency\n");
}
END_TEST

START_TEST(test_table_lines_never_end_in_blanks) {
        static const char *const h[] = { "name", "" };
        _cleanup_(table_freep) Table *t = make(2, h);
        _cleanup_(freep) char *out = NULL;

        ck_assert_int_eq(table_add_cells(t, "a", NULL), 0);
        ck_assert_int_eq(table_add_cells(t, "bb", "x"), 0);
        out = render(t);
        ck_assert_str_eq(out,
                         "NAME\n"
                         "a\n"
                         "bb    x\n");
}
END_TEST

START_TEST(test_table_control_characters_become_spaces) {
        static const char *const h[] = { "name", "description" };
        _cleanup_(table_freep) Table *t = make(2, h);
        _cleanup_(freep) char *out = NULL;

        ck_assert_int_eq(table_add_cells(t, "x\ty", "two\nlines\x7f" "x"), 0);
        out = render(t);
        ck_assert_str_eq(out,
                         "NAME  DESCRIPTION\n"
                         "x y   two lines x\n");
}
END_TEST

START_TEST(test_table_width_counts_utf8_characters) {
        static const char *const h[] = { "name", "unit" };
        _cleanup_(table_freep) Table *t = make(2, h);
        _cleanup_(freep) char *out = NULL;

        /* "µs—x" is 4 characters but 7 bytes: padding must follow the characters. */
        ck_assert_int_eq(table_add_cells(t, "\u00b5s\u2014x", "a"), 0);
        ck_assert_int_eq(table_add_cells(t, "abcdef", "b"), 0);
        out = render(t);
        ck_assert_str_eq(out,
                         "NAME    UNIT\n"
                         "\u00b5s\u2014x    a\n"
                         "abcdef  b\n");
}
END_TEST

START_TEST(test_table_copies_its_input) {
        char header[] = "knob", cell[] = "busy-read";
        const char *hp[] = { header };
        Table *raw = NULL;
        _cleanup_(freep) char *out = NULL;

        ck_assert_int_eq(table_new(&raw, 1, hp), 0);
        ck_assert_int_eq(table_add_cells(raw, cell), 0);
        header[0] = cell[0] = 'X';
        out = render(raw);
        ck_assert_str_eq(out, "KNOB\nbusy-read\n");
        ck_assert_ptr_null(table_free(raw));
}
END_TEST

START_TEST(test_table_new_refuses_bad_arguments) {
        static const char *const h[] = { "a", NULL };
        Table *t = (Table *) 0x1;

        ck_assert_int_eq(table_new(&t, 0, h), -EINVAL);
        ck_assert_int_eq(table_new(&t, 2, h), -EINVAL);
        ck_assert_int_eq(table_new(&t, 1, NULL), -EINVAL);
        ck_assert_int_eq(table_new(NULL, 1, h), -EINVAL);
        /* Output untouched on failure. */
        ck_assert_ptr_eq(t, (Table *) 0x1);
}
END_TEST

START_TEST(test_table_add_and_print_refuse_null) {
        static const char *const h[] = { "a" };
        _cleanup_(table_freep) Table *t = make(1, h);

        ck_assert_int_eq(table_add_row(NULL, h), -EINVAL);
        ck_assert_int_eq(table_add_row(t, NULL), -EINVAL);
        ck_assert_int_eq(table_add_cells(NULL, "x"), -EINVAL);
        ck_assert_int_eq(table_print(NULL, stdout), -EINVAL);
        ck_assert_int_eq(table_print(t, NULL), -EINVAL);
        ck_assert_uint_eq(table_get_rows(t), 0);
        ck_assert_uint_eq(table_get_rows(NULL), 0);
}
END_TEST

START_TEST(test_table_free_accepts_null) {
        ck_assert_ptr_null(table_free(NULL));
}
END_TEST

START_TEST(test_table_print_reports_write_failure) {
        static const char *const h[] = { "knob" };
        _cleanup_(table_freep) Table *t = make(1, h);
        _cleanup_(fclosep) FILE *f = fopen("/dev/null", "r");

        /* A stream opened for reading refuses every write, like a closed pipe. */
        ck_assert_ptr_nonnull(f);
        ck_assert_int_eq(table_add_cells(t, "busy-read"), 0);
        ck_assert_int_eq(table_print(t, f), -EIO);
}
END_TEST

static Suite *table_suite(void) {
        Suite *s = suite_create("table");
        TCase *tc;

        tc = tcase_create("layout");
        tcase_add_test(tc, test_table_aligns_columns_two_spaces_apart);
        tcase_add_test(tc, test_table_header_wider_than_cells_sets_width);
        tcase_add_test(tc, test_table_header_is_printed_in_capitals);
        tcase_add_test(tc, test_table_without_rows_prints_only_the_header);
        tcase_add_test(tc, test_table_keeps_many_rows_in_order);
        suite_add_tcase(s, tc);

        tc = tcase_create("cells");
        tcase_add_test(tc, test_table_empty_cell_is_shown_as_dash);
        tcase_add_test(tc, test_table_null_cell_is_blank_marker);
        tcase_add_test(tc, test_table_lines_never_end_in_blanks);
        tcase_add_test(tc, test_table_control_characters_become_spaces);
        tcase_add_test(tc, test_table_width_counts_utf8_characters);
        tcase_add_test(tc, test_table_copies_its_input);
        suite_add_tcase(s, tc);

        tc = tcase_create("errors");
        tcase_add_test(tc, test_table_new_refuses_bad_arguments);
        tcase_add_test(tc, test_table_add_and_print_refuse_null);
        tcase_add_test(tc, test_table_free_accepts_null);
        tcase_add_test(tc, test_table_print_reports_write_failure);
        suite_add_tcase(s, tc);

        return s;
}

TU_MAIN(table_suite)
