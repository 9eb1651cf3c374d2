/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cpuset.h: a fixed-size CPU set (up to CPUSET_MAX CPUs) and the two text
 * forms the kernel uses for it: lists such as "0-3,8" (smp_affinity_list,
 * /sys/devices/system/cpu/isolated) and comma-separated 32-bit hex words such
 * as "ff,ffffffff" (rps_cpus, xps_cpus, smp_affinity).
 *
 * Parsers follow units.h: 0 or a negative errno, a static reason on failure,
 * output untouched on failure.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CPUSET_MAX 8192

typedef struct CpuSet {
        uint64_t bits[CPUSET_MAX / 64];
} CpuSet;

static inline void cpuset_zero(CpuSet *s) {
        for (size_t i = 0; i < CPUSET_MAX / 64; i++)
                s->bits[i] = 0;
}

static inline void cpuset_add(CpuSet *s, unsigned cpu) {
        if (cpu < CPUSET_MAX)
                s->bits[cpu / 64] |= UINT64_C(1) << (cpu % 64);
}

static inline void cpuset_del(CpuSet *s, unsigned cpu) {
        if (cpu < CPUSET_MAX)
                s->bits[cpu / 64] &= ~(UINT64_C(1) << (cpu % 64));
}

static inline bool cpuset_has(const CpuSet *s, unsigned cpu) {
        return cpu < CPUSET_MAX && (s->bits[cpu / 64] >> (cpu % 64)) & 1;
}

unsigned cpuset_count(const CpuSet *s);
bool cpuset_equal(const CpuSet *a, const CpuSet *b);
bool cpuset_is_empty(const CpuSet *s);
/* Highest CPU in the set, or -1 when empty. */
int cpuset_last(const CpuSet *s);

/*
 * "0-3,8,10-11": comma-separated CPUs and inclusive ranges. Empty input is
 * an error; "none" is the empty set (so a user can switch RPS off).
 */
int cpuset_parse_list(const char *s, CpuSet *ret, const char **ret_reason);

/* The kernel's hex mask, most significant 32-bit word first, words split by commas. */
int cpuset_parse_mask(const char *s, CpuSet *ret, const char **ret_reason);

/* "0-3,8", or "none" for the empty set. Caller frees. NULL on ENOMEM. */
char *cpuset_format_list(const CpuSet *s);

/*
 * The kernel's hex mask for nbits CPUs (nbits >= 1, rounded up to cover the
 * set's highest CPU), printed the way the kernel prints it: full words as 8
 * digits, the leading word only as wide as it needs. Caller frees.
 */
char *cpuset_format_mask(const CpuSet *s, unsigned nbits);
