/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * units.c: strict number, time and boolean parsing. strtoull() is not used on
 * purpose: it accepts leading spaces, a sign and "0x", all of which a user
 * typing "busy-read = -5" must hear about instead of getting a huge value.
 */
#include "units.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "macro.h"

static void set_reason(const char **ret_reason, const char *reason) {
        if (ret_reason)
                *ret_reason = reason;
}

/* Parses leading decimal digits; *end points after them. -ERANGE on overflow, -EINVAL when none. */
static int parse_digits(const char *s, uint64_t *ret, const char **end, unsigned *ret_ndigits) {
        uint64_t v = 0;
        unsigned n = 0;

        for (; *s >= '0' && *s <= '9'; s++, n++) {
                unsigned d = (unsigned)(*s - '0');
                if (v > (UINT64_MAX - d) / 10)
                        return -ERANGE;
                v = v * 10 + d;
        }
        if (n == 0)
                return -EINVAL;
        *ret = v;
        *end = s;
        if (ret_ndigits)
                *ret_ndigits = n;
        return 0;
}

/* Explains why s does not start like a number. */
static const char *why_not_a_number(const char *s) {
        if (!s || !*s)
                return "empty value; expected a number";
        if (*s == '-')
                return "negative values are not allowed";
        if (*s == '+')
                return "a sign is not allowed; expected digits";
        if (*s == ' ' || *s == '\t')
                return "spaces are not allowed";
        return "not a number; expected digits";
}

int parse_u64(const char *s, uint64_t *ret, const char **ret_reason) {
        const char *end;
        uint64_t v;
        int r;

        if (!s || !*s || *s < '0' || *s > '9') {
                set_reason(ret_reason, why_not_a_number(s));
                return -EINVAL;
        }
        r = parse_digits(s, &v, &end, NULL);
        if (r < 0) { /* only -ERANGE: s starts with a digit; "< 0" also lets gcc -O2 see v is set */
                set_reason(ret_reason, "number too large");
                return r;
        }
        if (*end) {
                set_reason(ret_reason, (*end == ' ' || *end == '\t') ? "spaces are not allowed"
                                                                     : "trailing characters after number");
                return -EINVAL;
        }
        *ret = v;
        return 0;
}

int parse_u64_range(const char *s, uint64_t min, uint64_t max, uint64_t *ret, const char **ret_reason) {
        uint64_t v;
        int r = parse_u64(s, &v, ret_reason);
        if (r < 0)
                return r;
        if (v < min || v > max) {
                set_reason(ret_reason, "out of range");
                return -ERANGE;
        }
        *ret = v;
        return 0;
}

static const struct {
        const char *name;
        uint64_t ns;
} time_units[] = {
        { "ns", 1 },
        { "us", NSEC_PER_USEC },
        { "ms", NSEC_PER_MSEC },
        { "s", NSEC_PER_SEC },
};

const char *time_unit_name(uint64_t base_ns) {
        for (size_t i = 0; i < ELEMENTSOF(time_units); i++)
                if (time_units[i].ns == base_ns)
                        return time_units[i].name;
        return NULL;
}

int parse_time(const char *s, uint64_t base_ns, uint64_t *ret, const char **ret_reason) {
        uint64_t whole, frac = 0, unit_ns = base_ns, frac_scale = 1, ns;
        unsigned nfrac = 0;
        const char *p;
        int r;

        if (!time_unit_name(base_ns)) {
                set_reason(ret_reason, "internal error: unknown base unit");
                return -EINVAL;
        }
        if (!s || !*s || *s < '0' || *s > '9') {
                set_reason(ret_reason, why_not_a_number(s));
                return -EINVAL;
        }
        r = parse_digits(s, &whole, &p, NULL);
        if (r < 0) { /* only -ERANGE, as in parse_u64() */
                set_reason(ret_reason, "number too large");
                return r;
        }
        if (*p == '.') {
                r = parse_digits(p + 1, &frac, &p, &nfrac);
                if (r == -EINVAL) {
                        set_reason(ret_reason, "expected digits after the decimal point");
                        return r;
                }
                if (r < 0 || nfrac > 9) {
                        set_reason(ret_reason, "too many decimal places");
                        return -EINVAL;
                }
                for (unsigned i = 0; i < nfrac; i++)
                        frac_scale *= 10;
        }
        if (*p) {
                size_t i;
                for (i = 0; i < ELEMENTSOF(time_units); i++)
                        if (streq(p, time_units[i].name))
                                break;
                if (i == ELEMENTSOF(time_units)) {
                        /* "50us " must not read as an unknown unit: the unit is fine, the space is not. */
                        set_reason(ret_reason, strpbrk(p, " \t")
                                                       ? "spaces are not allowed"
                                                       : "unknown unit; expected ns, us, ms or s");
                        return -EINVAL;
                }
                unit_ns = time_units[i].ns;
        }

        /* whole * unit_ns + frac * unit_ns / frac_scale, in ns, without overflow. */
        if (whole > UINT64_MAX / unit_ns) {
                set_reason(ret_reason, "time too large");
                return -ERANGE;
        }
        ns = whole * unit_ns;
        if (nfrac > 0) {
                /* frac < 10^9 and unit_ns <= 10^9, so the product fits in 64 bits. */
                uint64_t fns = frac * unit_ns;
                if (fns % frac_scale != 0) {
                        set_reason(ret_reason, "finer than one nanosecond");
                        return -EINVAL;
                }
                fns /= frac_scale;
                if (ns > UINT64_MAX - fns) {
                        set_reason(ret_reason, "time too large");
                        return -ERANGE;
                }
                ns += fns;
        }
        if (ns % base_ns != 0) {
                set_reason(ret_reason, base_ns == NSEC_PER_USEC   ? "not a whole number of microseconds"
                                       : base_ns == NSEC_PER_MSEC ? "not a whole number of milliseconds"
                                                                  : "not a whole number of seconds");
                return -EINVAL;
        }
        *ret = ns / base_ns;
        return 0;
}

int parse_bool(const char *s, bool *ret, const char **ret_reason) {
        static const char *const yes[] = { "yes", "true", "on", "1" };
        static const char *const no[] = { "no", "false", "off", "0" };

        if (s) {
                for (size_t i = 0; i < ELEMENTSOF(yes); i++) {
                        if (streq(s, yes[i])) {
                                *ret = true;
                                return 0;
                        }
                        if (streq(s, no[i])) {
                                *ret = false;
                                return 0;
                        }
                }
        }
        set_reason(ret_reason, "expected yes or no (true/false, on/off, 1/0)");
        return -EINVAL;
}

char *format_time(char *buf, size_t size, uint64_t value, uint64_t base_ns) {
        snprintf(buf, size, "%llu%s", (unsigned long long)value, strempty(time_unit_name(base_ns)));
        return buf;
}
