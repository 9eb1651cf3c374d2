/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * test-hook.c: the crash points and the fixture clock of a -Dtest-hooks=true
 * build (test-hook.h).
 * Compiled into no other build.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sysroot.h"
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

int test_clock_ns(uint64_t *ret) {
        const char *path = getenv("NETPOLLD_TEST_CLOCK");
        char *text = NULL, *end;
        uint64_t v;
        int r;

        if (!path || !*path)
                return -ENOENT;
        r = sysfs_read_value(path, &text);
        if (r < 0)
                return -EBUSY;
        errno = 0;
        v = strtoull(text, &end, 10);
        r = errno || end == text || *end ? -EBUSY : 0;
        free(text);
        if (r == 0)
                *ret = v;
        return r;
}
