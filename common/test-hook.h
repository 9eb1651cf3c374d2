/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Crash points for the crash soak test (tests/integration/test-crash-soak.sh).
 * Only a build with -Dtest-hooks=true has them: there
 * NETPOLLD_TEST_CRASH_AT=POINT:N makes the process kill itself with SIGKILL
 * the Nth time it reaches POINT (e.g. "journal-written:3": right after the
 * third original was journaled, before its kernel write). In any other build
 * test_crash_point() is an empty inline function and the environment is
 * never read.
 */

#if HAVE_TEST_HOOKS
void test_crash_point(const char *point);
#else
static inline void test_crash_point(const char *point) {
}
#endif
