/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * units.h: strict parsers and formatters for the values users type: plain
 * counts, times with units (ns, us, ms, s; decimals such as 1.5ms; a bare
 * number is the caller's base unit) and booleans.
 *
 * Every parser returns 0 or a negative errno (-EINVAL for bad syntax,
 * -ERANGE for a value that does not fit) and, on failure, sets *ret_reason
 * (when not NULL) to a static English phrase saying what was expected. The
 * output parameter is untouched on failure.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define NSEC_PER_USEC UINT64_C(1000)
#define NSEC_PER_MSEC UINT64_C(1000000)
#define NSEC_PER_SEC UINT64_C(1000000000)

/* A decimal unsigned integer: digits only, no sign, no spaces, no suffix. */
int parse_u64(const char *s, uint64_t *ret, const char **ret_reason);

/* Like parse_u64 but limited to [min, max]; -ERANGE outside. */
int parse_u64_range(const char *s, uint64_t min, uint64_t max, uint64_t *ret, const char **ret_reason);

/*
 * A time: "<number>[.<fraction>]<unit>" with unit one of ns, us, ms, s, or a
 * bare number meaning base_ns (which must be one of the units' sizes).
 * The result is expressed in units of base_ns and must be a whole number of
 * them ("1500ns" is 1.5us and is refused for a microsecond knob).
 */
int parse_time(const char *s, uint64_t base_ns, uint64_t *ret, const char **ret_reason);

/* "yes/no", "true/false", "on/off", "1/0". */
int parse_bool(const char *s, bool *ret, const char **ret_reason);

/* The unit's short name for a base size ("ns", "us", "ms", "s"), NULL if not one. */
const char *time_unit_name(uint64_t base_ns);

/* Writes "<value><unit>" (value in units of base_ns) into buf; returns buf. */
char *format_time(char *buf, size_t size, uint64_t value, uint64_t base_ns);
