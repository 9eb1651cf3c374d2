/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * conf-values.c: the value parsers of the ConfigItem tables that are not
 * specific to one file (text, yes/no, times, counts, percentages, decimals,
 * CPU lists), and the message helpers parsers share. Each parser states in
 * its message what it expected, with the item's own range.
 */
#include "conf-parser.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpuset.h"
#include "units.h"

int conf_msgf(char **ret_msg, const char *fmt, ...) {
        va_list ap;
        int r;

        va_start(ap, fmt);
        r = vasprintf(ret_msg, fmt, ap);
        va_end(ap);
        if (r < 0) {
                *ret_msg = NULL;
                return -ENOMEM;
        }
        return -EINVAL;
}

int conf_set_string(void *field, const char *v) {
        char *s = strdup(v);

        if (!s)
                return -ENOMEM;
        free(*(char **)field);
        *(char **)field = s;
        return 0;
}

char *conf_format_usec(char *buf, size_t size, uint64_t usec) {
        if (usec > 0 && usec % 1000000 == 0)
                return format_time(buf, size, usec / 1000000, NSEC_PER_SEC);
        if (usec > 0 && usec % 1000 == 0)
                return format_time(buf, size, usec / 1000, NSEC_PER_MSEC);
        return format_time(buf, size, usec, NSEC_PER_USEC);
}

int conf_parse_text(const ConfigItem *it, const char *v, void *field, char **ret_msg) {
        if (strlen(v) > it->max)
                return conf_msgf(ret_msg, "too long (%zu characters); expected at most %" PRIu64 " characters",
                                 strlen(v), it->max);
        return conf_set_string(field, v);
}

int conf_parse_bool(const ConfigItem *it, const char *v, void *field, char **ret_msg) {
        if (parse_bool(v, field, NULL) < 0)
                return conf_msgf(ret_msg, "invalid value '%s'; expected yes or no (true/false, on/off, 1/0)", v);
        return 0;
}

/* A range bound for messages: "0ms", "10ms", "60s", "2147483647us". */
static char *format_bound(char *buf, size_t size, uint64_t usec, uint64_t bare_ns) {
        if (usec == 0)
                return format_time(buf, size, 0, bare_ns);
        return conf_format_usec(buf, size, usec);
}

/* A time in microseconds, where a bare number counts in bare_ns units. */
static int parse_time_bare(const ConfigItem *it, const char *v, void *field, uint64_t bare_ns, char **ret_msg) {
        const char *reason = NULL;
        char buf[CONF_LINE_MAX + 8], lo[32], hi[32];
        size_t n = strlen(v);
        uint64_t us;
        int r;

        /* parse_time() wants whole base units; spelling the bare unit out lets "1.5" (ms) become 1500us. */
        if (n > 0 && n < CONF_LINE_MAX && (isdigit((unsigned char)v[n - 1]) || v[n - 1] == '.')) {
                snprintf(buf, sizeof(buf), "%s%s", v, time_unit_name(bare_ns));
                r = parse_time(buf, NSEC_PER_USEC, &us, &reason);
        } else
                r = parse_time(v, NSEC_PER_USEC, &us, &reason);
        if (r >= 0 && (us < it->min || us > it->max)) {
                r = -ERANGE;
                reason = "out of range";
        }
        if (r < 0)
                return conf_msgf(ret_msg,
                                 "invalid value '%s': %s; expected a time such as %s (a bare number is %s), from %s "
                                 "to %s",
                                 v, reason, bare_ns == NSEC_PER_MSEC ? "100ms or 1s" : "50us or 2ms",
                                 time_unit_name(bare_ns), format_bound(lo, sizeof(lo), it->min, bare_ns),
                                 format_bound(hi, sizeof(hi), it->max, bare_ns));
        *(uint64_t *)field = us;
        return 0;
}

int conf_parse_time_ms(const ConfigItem *it, const char *v, void *field, char **ret_msg) {
        return parse_time_bare(it, v, field, NSEC_PER_MSEC, ret_msg);
}

int conf_parse_time_us(const ConfigItem *it, const char *v, void *field, char **ret_msg) {
        return parse_time_bare(it, v, field, NSEC_PER_USEC, ret_msg);
}

static int parse_whole(const ConfigItem *it, const char *v, uint64_t *ret, char **ret_msg) {
        const char *reason = NULL;

        if (parse_u64_range(v, it->min, it->max, ret, &reason) < 0)
                return conf_msgf(ret_msg,
                                 "invalid value '%s': %s; expected a whole number from %" PRIu64 " to %" PRIu64, v,
                                 reason, it->min, it->max);
        return 0;
}

int conf_parse_count(const ConfigItem *it, const char *v, void *field, char **ret_msg) {
        return parse_whole(it, v, field, ret_msg);
}

int conf_parse_count_uint(const ConfigItem *it, const char *v, void *field, char **ret_msg) {
        uint64_t n;
        int r = parse_whole(it, v, &n, ret_msg);

        if (r >= 0)
                *(unsigned *)field = (unsigned)n;
        return r;
}

int conf_parse_percent(const ConfigItem *it, const char *v, void *field, char **ret_msg) {
        const char *reason = NULL;
        char buf[CONF_LINE_MAX];
        size_t n = strlen(v);
        uint64_t pct;

        snprintf(buf, sizeof(buf), "%.*s", (int)(n > 0 && v[n - 1] == '%' ? n - 1 : n), v);
        if (parse_u64_range(buf, it->min, it->max, &pct, &reason) < 0)
                return conf_msgf(ret_msg, "invalid value '%s': %s; expected a percentage from %" PRIu64 " to %" PRIu64
                                 " such as 25%%", v, reason, it->min, it->max);
        *(unsigned *)field = (unsigned)pct;
        return 0;
}

/* "1.5" -> 1500: a decimal with up to 3 fractional digits, stored x1000. */
int conf_parse_milli(const ConfigItem *it, const char *v, void *field, char **ret_msg) {
        const char *reason = NULL, *p = v;
        uint64_t whole = 0, frac = 0, milli = 0;
        unsigned nfrac = 0;

        if (!isdigit((unsigned char)*p))
                reason = *p == '-' ? "negative values are not allowed" : "not a decimal number";
        for (; !reason && isdigit((unsigned char)*p); p++)
                /* Stopping early also keeps whole far from overflowing. */
                if ((whole = whole * 10 + (uint64_t)(*p - '0')) > it->max / 1000)
                        reason = "out of range";
        if (!reason && *p == '.') {
                if (!isdigit((unsigned char)*++p))
                        reason = "expected digits after the decimal point";
                for (; !reason && isdigit((unsigned char)*p); p++)
                        if (++nfrac > 3)
                                reason = "more than 3 decimal places";
                        else
                                frac = frac * 10 + (uint64_t)(*p - '0');
        }
        if (!reason && *p)
                reason = *p == ' ' ? "spaces are not allowed" : "trailing characters after number";
        if (!reason) {
                for (; nfrac < 3; nfrac++)
                        frac *= 10;
                milli = whole * 1000 + frac;
                if (milli < it->min || milli > it->max)
                        reason = "out of range";
        }
        if (reason)
                return conf_msgf(ret_msg,
                                 "invalid value '%s': %s; expected a decimal number above 0 and at most %" PRIu64
                                 " with up to 3 decimal places, such as 1.5",
                                 v, reason, it->max / 1000);
        *(uint64_t *)field = milli;
        return 0;
}

int conf_parse_cpuset(const ConfigItem *it, const char *v, void *field, char **ret_msg) {
        const char *reason = NULL;

        if (cpuset_parse_list(v, field, &reason) < 0)
                return conf_msgf(ret_msg, "invalid value '%s': %s; expected a CPU list such as 0-3,8, or none", v,
                                 reason);
        return 0;
}
