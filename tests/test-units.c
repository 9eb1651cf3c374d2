/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * test-units.c: the strict number, time and boolean parsers and the time
 * formatter. Every refusal is checked for its errno, its reason phrase and
 * for leaving the output untouched.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>

#include "macro.h"
#include "testutil.h"
#include "units.h"

/* Pre-set into outputs so a parser that writes on failure is caught. */
#define SENTINEL UINT64_C(0xdeadbeefcafe)
#define REASON_UNSET "(reason not set)"

static const char *show(const char *s) {
        return s ?: "(null)";
}

#define assert_u64_ok(str, expected)                                                               \
        do {                                                                                       \
                uint64_t _v = SENTINEL;                                                            \
                const char *_why = NULL;                                                           \
                int _r = parse_u64(str, &_v, &_why);                                               \
                ck_assert_msg(_r == 0, "parse_u64(\"%s\") = %d (%s), expected 0", show(str), _r,  \
                              show(_why));                                                         \
                ck_assert_msg(_v == (uint64_t)(expected), "parse_u64(\"%s\") gave %" PRIu64,       \
                              show(str), _v);                                                      \
        } while (0)

#define assert_u64_fails(str, err, reason)                                                         \
        do {                                                                                       \
                uint64_t _v = SENTINEL;                                                            \
                const char *_why = REASON_UNSET;                                                   \
                int _r = parse_u64(str, &_v, &_why);                                               \
                ck_assert_msg(_r == (err), "parse_u64(\"%s\") = %d, expected %d", show(str), _r,  \
                              (err));                                                              \
                ck_assert_msg(_v == SENTINEL, "parse_u64(\"%s\") wrote its output on failure",     \
                              show(str));                                                          \
                ck_assert_str_eq(_why, reason);                                                    \
        } while (0)

#define assert_range_ok(str, min, max, expected)                                                   \
        do {                                                                                       \
                uint64_t _v = SENTINEL;                                                            \
                int _r = parse_u64_range(str, min, max, &_v, NULL);                                \
                ck_assert_msg(_r == 0, "parse_u64_range(\"%s\") = %d", show(str), _r);             \
                ck_assert_uint_eq(_v, (expected));                                                 \
        } while (0)

#define assert_range_fails(str, min, max, err, reason)                                             \
        do {                                                                                       \
                uint64_t _v = SENTINEL;                                                            \
                const char *_why = REASON_UNSET;                                                   \
                int _r = parse_u64_range(str, min, max, &_v, &_why);                               \
                ck_assert_msg(_r == (err), "parse_u64_range(\"%s\") = %d, expected %d", show(str), \
                              _r, (err));                                                          \
                ck_assert_uint_eq(_v, SENTINEL);                                                   \
                ck_assert_str_eq(_why, reason);                                                    \
        } while (0)

#define assert_time_ok(str, base, expected)                                                        \
        do {                                                                                       \
                uint64_t _v = SENTINEL;                                                            \
                const char *_why = NULL;                                                           \
                int _r = parse_time(str, base, &_v, &_why);                                        \
                ck_assert_msg(_r == 0, "parse_time(\"%s\", %" PRIu64 ") = %d (%s), expected 0",    \
                              show(str), (uint64_t)(base), _r, show(_why));                        \
                ck_assert_msg(_v == (uint64_t)(expected),                                          \
                              "parse_time(\"%s\", %" PRIu64 ") gave %" PRIu64 ", expected %" PRIu64, \
                              show(str), (uint64_t)(base), _v, (uint64_t)(expected));              \
        } while (0)

#define assert_time_fails(str, base, err, reason)                                                  \
        do {                                                                                       \
                uint64_t _v = SENTINEL;                                                            \
                const char *_why = REASON_UNSET;                                                   \
                int _r = parse_time(str, base, &_v, &_why);                                        \
                ck_assert_msg(_r == (err), "parse_time(\"%s\", %" PRIu64 ") = %d, expected %d",    \
                              show(str), (uint64_t)(base), _r, (err));                             \
                ck_assert_msg(_v == SENTINEL, "parse_time(\"%s\") wrote its output on failure",    \
                              show(str));                                                          \
                ck_assert_str_eq(_why, reason);                                                    \
        } while (0)

#define US NSEC_PER_USEC
#define MS NSEC_PER_MSEC
#define SEC NSEC_PER_SEC

static const char R_EMPTY[] = "empty value; expected a number";
static const char R_NEGATIVE[] = "negative values are not allowed";
static const char R_SIGN[] = "a sign is not allowed; expected digits";
static const char R_SPACES[] = "spaces are not allowed";
static const char R_NAN[] = "not a number; expected digits";
static const char R_TRAILING[] = "trailing characters after number";
static const char R_TOO_LARGE[] = "number too large";
static const char R_UNIT[] = "unknown unit; expected ns, us, ms or s";
static const char R_BOOL[] = "expected yes or no (true/false, on/off, 1/0)";

/* parse_u64 */

START_TEST(test_parse_u64_accepts_zero_and_max) {
        assert_u64_ok("0", 0);
        assert_u64_ok("1", 1);
        assert_u64_ok("42", 42);
        assert_u64_ok("007", 7); /* leading zeros are decimal, not octal */
        assert_u64_ok("4294967296", UINT64_C(4294967296));
        assert_u64_ok("18446744073709551615", UINT64_MAX);
}
END_TEST

START_TEST(test_parse_u64_rejects_overflow) {
        assert_u64_fails("18446744073709551616", -ERANGE, R_TOO_LARGE);
        assert_u64_fails("18446744073709551620", -ERANGE, R_TOO_LARGE);
        assert_u64_fails("99999999999999999999", -ERANGE, R_TOO_LARGE);
        assert_u64_fails("184467440737095516150", -ERANGE, R_TOO_LARGE);
}
END_TEST

START_TEST(test_parse_u64_rejects_empty_and_null) {
        assert_u64_fails("", -EINVAL, R_EMPTY);
        assert_u64_fails(NULL, -EINVAL, R_EMPTY);
}
END_TEST

START_TEST(test_parse_u64_rejects_signs) {
        assert_u64_fails("-1", -EINVAL, R_NEGATIVE);
        assert_u64_fails("-0", -EINVAL, R_NEGATIVE);
        assert_u64_fails("+1", -EINVAL, R_SIGN);
}
END_TEST

START_TEST(test_parse_u64_rejects_spaces) {
        assert_u64_fails(" 1", -EINVAL, R_SPACES);
        assert_u64_fails("\t1", -EINVAL, R_SPACES);
        assert_u64_fails("1 ", -EINVAL, R_SPACES);
        assert_u64_fails("1\t", -EINVAL, R_SPACES);
        assert_u64_fails("1 2", -EINVAL, R_SPACES);
}
END_TEST

START_TEST(test_parse_u64_rejects_trailing_characters) {
        assert_u64_fails("12abc", -EINVAL, R_TRAILING);
        assert_u64_fails("0x10", -EINVAL, R_TRAILING);
        assert_u64_fails("1.5", -EINVAL, R_TRAILING);
        assert_u64_fails("1e3", -EINVAL, R_TRAILING);
        assert_u64_fails("50us", -EINVAL, R_TRAILING);
        assert_u64_fails("1\n", -EINVAL, R_TRAILING);
}
END_TEST

START_TEST(test_parse_u64_rejects_non_numbers) {
        assert_u64_fails("abc", -EINVAL, R_NAN);
        assert_u64_fails(".5", -EINVAL, R_NAN);
        assert_u64_fails("\n", -EINVAL, R_NAN);
        assert_u64_fails("x1", -EINVAL, R_NAN);
}
END_TEST

START_TEST(test_parse_u64_reason_is_optional) {
        uint64_t v = SENTINEL;
        ck_assert_int_eq(parse_u64("-1", &v, NULL), -EINVAL);
        ck_assert_int_eq(parse_u64("18446744073709551616", &v, NULL), -ERANGE);
        ck_assert_uint_eq(v, SENTINEL);
        ck_assert_int_eq(parse_u64("17", &v, NULL), 0);
        ck_assert_uint_eq(v, 17);
}
END_TEST

/* parse_u64_range */

START_TEST(test_parse_u64_range_bounds_are_inclusive) {
        assert_range_ok("10", 10, 20, 10);
        assert_range_ok("15", 10, 20, 15);
        assert_range_ok("20", 10, 20, 20);
        assert_range_ok("5", 5, 5, 5);
        assert_range_ok("0", 0, UINT64_MAX, 0);
        assert_range_ok("18446744073709551615", 0, UINT64_MAX, UINT64_MAX);
}
END_TEST

START_TEST(test_parse_u64_range_rejects_outside) {
        assert_range_fails("9", 10, 20, -ERANGE, "out of range");
        assert_range_fails("21", 10, 20, -ERANGE, "out of range");
        assert_range_fails("0", 10, 20, -ERANGE, "out of range");
        assert_range_fails("4", 5, 5, -ERANGE, "out of range");
        assert_range_fails("6", 5, 5, -ERANGE, "out of range");
        assert_range_fails("18446744073709551615", 0, UINT64_MAX - 1, -ERANGE, "out of range");
}
END_TEST

START_TEST(test_parse_u64_range_passes_syntax_errors_through) {
        assert_range_fails("", 0, 100, -EINVAL, R_EMPTY);
        assert_range_fails(NULL, 0, 100, -EINVAL, R_EMPTY);
        assert_range_fails("-1", 0, 100, -EINVAL, R_NEGATIVE);
        assert_range_fails("5 ", 0, 100, -EINVAL, R_SPACES);
        assert_range_fails("5x", 0, 100, -EINVAL, R_TRAILING);
        assert_range_fails("18446744073709551616", 0, UINT64_MAX, -ERANGE, R_TOO_LARGE);
}
END_TEST

/* parse_time */

START_TEST(test_parse_time_bare_number_is_base_unit) {
        assert_time_ok("50", US, 50);
        assert_time_ok("0", US, 0);
        assert_time_ok("50", MS, 50);
        assert_time_ok("50", 1, 50);
        assert_time_ok("2", SEC, 2);
        assert_time_ok("18446744073709551615", 1, UINT64_MAX);
        /* Times are computed in nanoseconds, so a microsecond knob tops out at UINT64_MAX / 1000. */
        assert_time_ok("18446744073709551", US, UINT64_C(18446744073709551));
        assert_time_fails("18446744073709552", US, -ERANGE, "time too large");
}
END_TEST

START_TEST(test_parse_time_converts_units) {
        assert_time_ok("50us", US, 50);
        assert_time_ok("2ms", US, 2000);
        assert_time_ok("1s", US, 1000000);
        assert_time_ok("1000ns", US, 1);
        assert_time_ok("0ns", US, 0);
        assert_time_ok("0s", US, 0);
        assert_time_ok("1s", MS, 1000);
        assert_time_ok("5ms", MS, 5);
        assert_time_ok("3000us", MS, 3);
        assert_time_ok("500ns", 1, 500);
        assert_time_ok("1us", 1, 1000);
        assert_time_ok("1ms", 1, 1000000);
        assert_time_ok("1s", 1, 1000000000);
        assert_time_ok("1s", SEC, 1);
        assert_time_ok("2000ms", SEC, 2);
}
END_TEST

START_TEST(test_parse_time_accepts_decimals) {
        assert_time_ok("1.5ms", US, 1500);
        assert_time_ok("1.000ms", US, 1000);
        assert_time_ok("0.001ms", US, 1);
        assert_time_ok("0.5s", US, 500000);
        assert_time_ok("2.0us", US, 2);
        assert_time_ok("2.0", US, 2);
        assert_time_ok("1.5s", MS, 1500);
        assert_time_ok("0.5us", 1, 500);
        assert_time_ok("1.5us", 1, 1500);
        assert_time_ok("1.000000001s", 1, 1000000001);
        assert_time_ok("1.123456789s", 1, 1123456789);
        assert_time_ok("1.000000000s", US, 1000000); /* nine places is the limit, and allowed */
}
END_TEST

START_TEST(test_parse_time_refuses_fractions_of_the_base) {
        assert_time_fails("0.5us", US, -EINVAL, "not a whole number of microseconds");
        assert_time_fails("1.5", US, -EINVAL, "not a whole number of microseconds");
        assert_time_fails("1500ns", US, -EINVAL, "not a whole number of microseconds");
        assert_time_fails("1ns", US, -EINVAL, "not a whole number of microseconds");
        assert_time_fails("1.000000001s", US, -EINVAL, "not a whole number of microseconds");
        assert_time_fails("1.5", MS, -EINVAL, "not a whole number of milliseconds");
        assert_time_fails("1500us", MS, -EINVAL, "not a whole number of milliseconds");
        assert_time_fails("0.5", SEC, -EINVAL, "not a whole number of seconds");
        assert_time_fails("1ms", SEC, -EINVAL, "not a whole number of seconds");
        assert_time_fails("1.5", 1, -EINVAL, "finer than one nanosecond");
        assert_time_fails("0.5ns", 1, -EINVAL, "finer than one nanosecond");
        assert_time_fails("0.0001us", US, -EINVAL, "finer than one nanosecond");
}
END_TEST

START_TEST(test_parse_time_decimal_point_needs_digits_on_both_sides) {
        assert_time_fails("1.ms", US, -EINVAL, "expected digits after the decimal point");
        assert_time_fails("1.", US, -EINVAL, "expected digits after the decimal point");
        assert_time_fails("1..5ms", US, -EINVAL, "expected digits after the decimal point");
        assert_time_fails(".5ms", US, -EINVAL, R_NAN);
        assert_time_fails(".5", US, -EINVAL, R_NAN);
        assert_time_fails("1.5.5ms", US, -EINVAL, R_UNIT);
}
END_TEST

START_TEST(test_parse_time_limits_decimal_places) {
        assert_time_fails("1.0000000001s", 1, -EINVAL, "too many decimal places");
        assert_time_fails("1.0000000000s", 1, -EINVAL, "too many decimal places");
        assert_time_fails("0.1234567891ms", US, -EINVAL, "too many decimal places");
        /* So many digits that the fraction itself overflows 64 bits. */
        assert_time_fails("1.99999999999999999999999999s", US, -EINVAL, "too many decimal places");
        assert_time_fails("1.00000000000000000000000000000000000000001s", US, -EINVAL,
                          "too many decimal places");
}
END_TEST

START_TEST(test_parse_time_rejects_spaces) {
        assert_time_fails("10 ms", US, -EINVAL, R_SPACES);
        assert_time_fails(" 10ms", US, -EINVAL, R_SPACES);
        assert_time_fails("10ms ", US, -EINVAL, R_SPACES);
        assert_time_fails("10 ", US, -EINVAL, R_SPACES);
        assert_time_fails("10\tus", US, -EINVAL, R_SPACES);
        assert_time_fails("1.5 ms", US, -EINVAL, R_SPACES);
}
END_TEST

START_TEST(test_parse_time_rejects_unknown_units) {
        assert_time_fails("5x", US, -EINVAL, R_UNIT);
        assert_time_fails("5m", US, -EINVAL, R_UNIT);
        assert_time_fails("5min", US, -EINVAL, R_UNIT);
        assert_time_fails("5h", US, -EINVAL, R_UNIT);
        assert_time_fails("5sec", US, -EINVAL, R_UNIT);
        assert_time_fails("5usec", US, -EINVAL, R_UNIT);
        assert_time_fails("5MS", US, -EINVAL, R_UNIT); /* units are case-sensitive */
        assert_time_fails("5µs", US, -EINVAL, R_UNIT);
        assert_time_fails("5e3", US, -EINVAL, R_UNIT);
        assert_time_fails("5\n", US, -EINVAL, R_UNIT);
}
END_TEST

START_TEST(test_parse_time_rejects_signs_and_empty) {
        assert_time_fails("-5us", US, -EINVAL, R_NEGATIVE);
        assert_time_fails("-5", US, -EINVAL, R_NEGATIVE);
        assert_time_fails("+5us", US, -EINVAL, R_SIGN);
        assert_time_fails("", US, -EINVAL, R_EMPTY);
        assert_time_fails(NULL, US, -EINVAL, R_EMPTY);
        assert_time_fails("us", US, -EINVAL, R_NAN);
}
END_TEST

START_TEST(test_parse_time_rejects_overflow) {
        assert_time_fails("18446744073709551616", 1, -ERANGE, R_TOO_LARGE);
        assert_time_fails("18446744073709551616ns", 1, -ERANGE, R_TOO_LARGE);
        assert_time_fails("18446744073709551615s", US, -ERANGE, "time too large");
        assert_time_fails("18446744073709551615us", 1, -ERANGE, "time too large");
        assert_time_fails("18446744074s", 1, -ERANGE, "time too large");
        /* The whole part fits; adding the fraction does not. */
        assert_time_fails("18446744073.709551616s", 1, -ERANGE, "time too large");
        assert_time_fails("18446744073.9s", 1, -ERANGE, "time too large");
        /* The largest time in nanoseconds, reached through a fraction. */
        assert_time_ok("18446744073.709551615s", 1, UINT64_MAX);
        assert_time_ok("18446744073709551615.000000000ns", 1, UINT64_MAX);
        assert_time_ok("18446744073s", US, UINT64_C(18446744073000000));
        assert_time_fails("18446744074s", US, -ERANGE, "time too large");
}
END_TEST

START_TEST(test_parse_time_rejects_unknown_base) {
        assert_time_fails("5", 0, -EINVAL, "internal error: unknown base unit");
        assert_time_fails("5", 7, -EINVAL, "internal error: unknown base unit");
        assert_time_fails("5us", 60 * SEC, -EINVAL, "internal error: unknown base unit");
}
END_TEST

START_TEST(test_parse_time_reason_is_optional) {
        uint64_t v = SENTINEL;
        ck_assert_int_eq(parse_time("5x", US, &v, NULL), -EINVAL);
        ck_assert_int_eq(parse_time("18446744073709551615s", US, &v, NULL), -ERANGE);
        ck_assert_uint_eq(v, SENTINEL);
}
END_TEST

/* parse_bool */

#define assert_bool_ok(str, expected)                                                              \
        do {                                                                                       \
                bool _b = !(expected);                                                             \
                ck_assert_msg(parse_bool(str, &_b, NULL) == 0, "parse_bool(\"%s\") failed", str);  \
                ck_assert_msg(_b == (expected), "parse_bool(\"%s\") gave %d", str, _b);            \
        } while (0)

#define assert_bool_fails(str)                                                                     \
        do {                                                                                       \
                bool _t = true, _f = false;                                                        \
                const char *_why = REASON_UNSET;                                                   \
                ck_assert_msg(parse_bool(str, &_t, &_why) == -EINVAL, "parse_bool(\"%s\") accepted", \
                              show(str));                                                          \
                ck_assert_str_eq(_why, R_BOOL);                                                    \
                ck_assert_int_eq(parse_bool(str, &_f, NULL), -EINVAL);                             \
                ck_assert(_t == true && _f == false);                                              \
        } while (0)

START_TEST(test_parse_bool_accepts_all_words) {
        assert_bool_ok("yes", true);
        assert_bool_ok("true", true);
        assert_bool_ok("on", true);
        assert_bool_ok("1", true);
        assert_bool_ok("no", false);
        assert_bool_ok("false", false);
        assert_bool_ok("off", false);
        assert_bool_ok("0", false);
}
END_TEST

START_TEST(test_parse_bool_is_case_sensitive) {
        assert_bool_fails("Yes");
        assert_bool_fails("YES");
        assert_bool_fails("True");
        assert_bool_fails("On");
        assert_bool_fails("NO");
        assert_bool_fails("Off");
}
END_TEST

START_TEST(test_parse_bool_rejects_other_input) {
        assert_bool_fails("");
        assert_bool_fails(NULL);
        assert_bool_fails("2");
        assert_bool_fails("01");
        assert_bool_fails("y");
        assert_bool_fails("n");
        assert_bool_fails(" yes");
        assert_bool_fails("yes ");
        assert_bool_fails("yes\n");
        assert_bool_fails("enable");
        assert_bool_fails("-1");
}
END_TEST

/* time_unit_name, format_time */

START_TEST(test_time_unit_name_knows_the_four_units) {
        ck_assert_str_eq(time_unit_name(1), "ns");
        ck_assert_str_eq(time_unit_name(US), "us");
        ck_assert_str_eq(time_unit_name(MS), "ms");
        ck_assert_str_eq(time_unit_name(SEC), "s");
        ck_assert_ptr_null(time_unit_name(0));
        ck_assert_ptr_null(time_unit_name(7));
        ck_assert_ptr_null(time_unit_name(60 * SEC));
}
END_TEST

START_TEST(test_format_time_writes_value_and_unit) {
        char buf[64];
        ck_assert_ptr_eq(format_time(buf, sizeof(buf), 50, US), buf);
        ck_assert_str_eq(buf, "50us");
        ck_assert_str_eq(format_time(buf, sizeof(buf), 0, 1), "0ns");
        ck_assert_str_eq(format_time(buf, sizeof(buf), 8000, MS), "8000ms");
        ck_assert_str_eq(format_time(buf, sizeof(buf), 3, SEC), "3s");
        ck_assert_str_eq(format_time(buf, sizeof(buf), UINT64_MAX, 1), "18446744073709551615ns");
        /* No unit name for an unknown base: the bare number. */
        ck_assert_str_eq(format_time(buf, sizeof(buf), 5, 7), "5");
}
END_TEST

START_TEST(test_format_time_truncates_to_buffer) {
        char buf[8];
        memset(buf, 'X', sizeof(buf));
        ck_assert_str_eq(format_time(buf, 4, 12345, US), "123");
        ck_assert_int_eq(buf[4], 'X');
        ck_assert_str_eq(format_time(buf, sizeof(buf), 1234567, US), "1234567");
}
END_TEST

START_TEST(test_format_time_round_trips_through_parse_time) {
        static const uint64_t bases[] = { 1, US, MS, SEC };
        static const uint64_t values[] = { 0, 1, 50, 8000, 123456789, UINT64_MAX / SEC, UINT64_MAX };
        char buf[64];

        for (size_t b = 0; b < ELEMENTSOF(bases); b++)
                for (size_t i = 0; i < ELEMENTSOF(values); i++) {
                        /* Values whose nanosecond form overflows are not times. */
                        if (values[i] > UINT64_MAX / bases[b])
                                continue;
                        format_time(buf, sizeof(buf), values[i], bases[b]);
                        assert_time_ok(buf, bases[b], values[i]);
                }
}
END_TEST

static Suite *units_suite(void) {
        Suite *s = suite_create("units");
        TCase *tc;

        tc = tcase_create("parse_u64");
        tcase_add_test(tc, test_parse_u64_accepts_zero_and_max);
        tcase_add_test(tc, test_parse_u64_rejects_overflow);
        tcase_add_test(tc, test_parse_u64_rejects_empty_and_null);
        tcase_add_test(tc, test_parse_u64_rejects_signs);
        tcase_add_test(tc, test_parse_u64_rejects_spaces);
        tcase_add_test(tc, test_parse_u64_rejects_trailing_characters);
        tcase_add_test(tc, test_parse_u64_rejects_non_numbers);
        tcase_add_test(tc, test_parse_u64_reason_is_optional);
        suite_add_tcase(s, tc);

        tc = tcase_create("parse_u64_range");
        tcase_add_test(tc, test_parse_u64_range_bounds_are_inclusive);
        tcase_add_test(tc, test_parse_u64_range_rejects_outside);
        tcase_add_test(tc, test_parse_u64_range_passes_syntax_errors_through);
        suite_add_tcase(s, tc);

        tc = tcase_create("parse_time");
        tcase_add_test(tc, test_parse_time_bare_number_is_base_unit);
        tcase_add_test(tc, test_parse_time_converts_units);
        tcase_add_test(tc, test_parse_time_accepts_decimals);
        tcase_add_test(tc, test_parse_time_refuses_fractions_of_the_base);
        tcase_add_test(tc, test_parse_time_decimal_point_needs_digits_on_both_sides);
        tcase_add_test(tc, test_parse_time_limits_decimal_places);
        tcase_add_test(tc, test_parse_time_rejects_spaces);
        tcase_add_test(tc, test_parse_time_rejects_unknown_units);
        tcase_add_test(tc, test_parse_time_rejects_signs_and_empty);
        tcase_add_test(tc, test_parse_time_rejects_overflow);
        tcase_add_test(tc, test_parse_time_rejects_unknown_base);
        tcase_add_test(tc, test_parse_time_reason_is_optional);
        suite_add_tcase(s, tc);

        tc = tcase_create("parse_bool");
        tcase_add_test(tc, test_parse_bool_accepts_all_words);
        tcase_add_test(tc, test_parse_bool_is_case_sensitive);
        tcase_add_test(tc, test_parse_bool_rejects_other_input);
        suite_add_tcase(s, tc);

        tc = tcase_create("format");
        tcase_add_test(tc, test_time_unit_name_knows_the_four_units);
        tcase_add_test(tc, test_format_time_writes_value_and_unit);
        tcase_add_test(tc, test_format_time_truncates_to_buffer);
        tcase_add_test(tc, test_format_time_round_trips_through_parse_time);
        suite_add_tcase(s, tc);

        return s;
}

TU_MAIN(units_suite)
