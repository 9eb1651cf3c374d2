/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * policy-fixture.c: the fixture directory and message templates shared by
 * test-policy.c and test-profile.c.
 */
#include "policy-fixture.h"

#include <stdlib.h>
#include <string.h>

#include "macro.h"
#include "testutil.h"

char *dir;

static void setup(void) {
        dir = tu_mkdtemp();
}

static void teardown(void) {
        tu_rm_rf(dir);
        free(dir);
        dir = NULL;
}

TCase *fixture_tcase(Suite *s, const char *name) {
        TCase *tc = tcase_create(name);
        tcase_add_checked_fixture(tc, setup, teardown);
        suite_add_tcase(s, tc);
        return tc;
}

char *subst(const char *tmpl, const char *d) {
        size_t n = strlen(tmpl) + 1;
        char *s, *o;

        for (const char *p = strstr(tmpl, "$D"); p; p = strstr(p + 2, "$D"))
                n += strlen(d);
        o = s = malloc(n);
        ck_assert_ptr_nonnull(s);
        for (const char *p = tmpl; *p;)
                if (startswith(p, "$D")) {
                        o = stpcpy(o, d);
                        p += 2;
                } else
                        *o++ = *p++;
        *o = '\0';
        return s;
}

void write_file(const char *rel, const char *content) {
        tu_write(dir, rel, content, 0644);
}

void assert_errors_impl(char **errs, const char *const *want) {
        size_t n;

        ck_assert_ptr_nonnull(errs);
        for (n = 0; want[n]; n++) {
                _cleanup_(freep) char *w = subst(want[n], dir);
                ck_assert_msg(errs[n], "error %zu missing, expected: %s", n, w);
                ck_assert_str_eq(errs[n], w);
        }
        ck_assert_msg(!errs[n], "unexpected error: %s", errs[n]);
}

char **dirs(void) {
        static char *v[2];
        v[0] = dir;
        return v;
}
