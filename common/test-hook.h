/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <errno.h>
#include <stdint.h>

/*
 * Test hooks: only a build with -Dtest-hooks=true has them; in any other build
 * they are empty inline functions and the environment is never read.
 *
 * Crash points for the crash soak test (tests/integration/test-crash-soak.sh):
 * NETPOLLD_TEST_CRASH_AT=POINT:N makes the process kill itself with SIGKILL
 * the Nth time it reaches POINT (e.g. "journal-written:3": right after the
 * third original was journaled, before its kernel write).
 *
 * The fixture clock of the adaptive tests (tests/integration/stats.sh):
 * NETPOLLD_TEST_CLOCK=FILE makes the monitor time its samples by the number
 * of nanoseconds FILE holds instead of CLOCK_MONOTONIC, so that the rates
 * it computes from a fixture's statistics files depend on what the fixture
 * wrote, not on how late a busy machine ran the process writing them. The
 * writer marks FILE "busy" (any text that is not a number) before it
 * rewrites the statistics and writes the new time after; a sample that saw
 * the mark, or the time change while it read, is not taken.
 * test_clock_ns() returns -ENOENT without NETPOLLD_TEST_CLOCK, -EBUSY while
 * FILE is marked or unreadable, else 0 and the time.
 */

#if HAVE_TEST_HOOKS
void test_crash_point(const char *point);
int test_clock_ns(uint64_t *ret);
#else
static inline void test_crash_point(const char *point) {
}
static inline int test_clock_ns(uint64_t *ret) {
        return -ENOENT;
}
#endif
