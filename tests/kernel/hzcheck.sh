#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# hzcheck.sh KERNEL_TREE: for every HZ that Kconfig offers on any architecture,
# replays the kernel's jiffies conversions (include/linux/jiffies.h,
# kernel/time/time.c, 64-bit) with the constants kernel/time/timeconst.bc
# generates, and checks what kernel-patches/0002 relies on: the minimum of
# kernel.softirq_budget_usecs, jiffies_to_usecs(1), converts back to exactly
# one jiffy; its default, jiffies_to_usecs(msecs_to_jiffies(2)), back to
# exactly msecs_to_jiffies(2); and usecs_to_jiffies() of every accepted value
# up to 100000 is the exact ceiling of usecs * HZ / 10^6. Prints one line per
# HZ; exits non-zero on a failed check. Not run by the test suite (needs bc).
set -euo pipefail
tree=${1:?usage: hzcheck.sh KERNEL_TREE}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/check.c" <<'C'
#include <stdint.h>
#include <stdio.h>
#define U64_C(x) ((uint64_t)(x##ULL))
#include "timeconst.h"
#define MSEC_PER_SEC 1000UL
#define USEC_PER_SEC 1000000UL
typedef uint64_t u64;

static unsigned long msecs_to_jiffies(unsigned int m)
{
#if HZ <= MSEC_PER_SEC && !(MSEC_PER_SEC % HZ)
	return (m + (MSEC_PER_SEC / HZ) - 1) / (MSEC_PER_SEC / HZ);
#elif HZ > MSEC_PER_SEC && !(HZ % MSEC_PER_SEC)
	return m * (HZ / MSEC_PER_SEC);
#else
	return (MSEC_TO_HZ_MUL32 * m + MSEC_TO_HZ_ADJ32) >> MSEC_TO_HZ_SHR32;
#endif
}

static unsigned long usecs_to_jiffies(unsigned int u)
{
#if !(USEC_PER_SEC % HZ)
	return (u + (USEC_PER_SEC / HZ) - 1) / (USEC_PER_SEC / HZ);
#else
	return (USEC_TO_HZ_MUL32 * u + USEC_TO_HZ_ADJ32) >> USEC_TO_HZ_SHR32;
#endif
}

static unsigned int jiffies_to_usecs(unsigned long j)
{
#if !(USEC_PER_SEC % HZ)
	return (USEC_PER_SEC / HZ) * j;
#else
	return (j * HZ_TO_USEC_NUM) / HZ_TO_USEC_DEN;
#endif
}

int main(void)
{
	unsigned int min = jiffies_to_usecs(1), def, u;
	unsigned long defj = msecs_to_jiffies(2);
	int bad = 0;

	def = jiffies_to_usecs(defj);
	if (usecs_to_jiffies(min) != 1)
		bad = printf("HZ=%d: the minimum %u us is not one jiffy\n", HZ, min);
	if (usecs_to_jiffies(def) != defj)
		bad = printf("HZ=%d: the default %u us is not msecs_to_jiffies(2)\n", HZ, def);
	if (def < min || def > 100000)
		bad = printf("HZ=%d: the default %u us is out of range\n", HZ, def);
	for (u = min; u <= 100000; u++)
		if (usecs_to_jiffies(u) != ((u64)u * HZ + USEC_PER_SEC - 1) / USEC_PER_SEC) {
			bad = printf("HZ=%d: %u us is not rounded up\n", HZ, u);
			break;
		}
	printf("HZ=%-4d minimum %6u us  default %6u us = %lu jiffies = msecs_to_jiffies(2)%s\n",
	       HZ, min, def, defj, bad ? "  FAILED" : "");
	return !!bad;
}
C
rc=0
for hz in 24 32 48 64 100 128 200 250 256 300 500 1000 1024 1200; do
        echo "$hz" | bc -q "$tree/kernel/time/timeconst.bc" >"$tmp/timeconst.h"
        gcc -DHZ="$hz" -O2 -Wall -o "$tmp/check" "$tmp/check.c"
        "$tmp/check" || rc=1
done
exit $rc
