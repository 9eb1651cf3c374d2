/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * test-hook.c: the crash points of a -Dtest-hooks=true build (test-hook.h).
 * Compiled into no other build.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test-hook.h"

void test_crash_point(const char *point) {
        static unsigned long hits;
        const char *spec = getenv("NETPOLLD_TEST_CRASH_AT"), *colon;
        unsigned long n;
        char *end;

        if (!spec || !(colon = strrchr(spec, ':')) || (size_t)(colon - spec) != strlen(point) ||
            strncmp(spec, point, (size_t)(colon - spec)) != 0)
                return;
        errno = 0;
        n = strtoul(colon + 1, &end, 10);
        if (errno || *end || n == 0)
                return;
        if (++hits < n)
                return;
        fprintf(stderr, "test hook: crashing at %s:%lu\n", point, n);
        (void)raise(SIGKILL);
        _exit(137);
}
