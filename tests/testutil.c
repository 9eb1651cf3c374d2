/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "testutil.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "macro.h"

char *tu_mkdtemp(void) {
        const char *tmp = getenv("TMPDIR") ?: "/tmp";
        char *p = NULL;
        ck_assert_int_ge(asprintf(&p, "%s/netpolld-test-XXXXXX", tmp), 0);
        ck_assert_ptr_nonnull(mkdtemp(p));
        return p;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
        (void)st, (void)ftw;
        if (flag == FTW_DP)
                rmdir(path);
        else
                unlink(path);
        return 0;
}

void tu_rm_rf(const char *path) {
        if (path)
                nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

char *tu_join(const char *root, const char *rel) {
        char *p = NULL;
        ck_assert_int_ge(asprintf(&p, "%s/%s", root, rel[0] == '/' ? rel + 1 : rel), 0);
        return p;
}

static void mkdir_parents(char *path) {
        for (char *s = strchr(path + 1, '/'); s; s = strchr(s + 1, '/')) {
                *s = 0;
                if (mkdir(path, 0755) < 0)
                        ck_assert_msg(errno == EEXIST, "mkdir %s: %s", path, strerror(errno));
                *s = '/';
        }
}

void tu_write(const char *root, const char *rel, const char *content, unsigned mode) {
        _cleanup_(freep) char *p = tu_join(root, rel);
        mkdir_parents(p);
        FILE *f = fopen(p, "we");
        ck_assert_msg(f, "fopen %s: %s", p, strerror(errno));
        fputs(content, f);
        ck_assert_int_eq(fclose(f), 0);
        ck_assert_int_eq(chmod(p, mode), 0);
}

char *tu_read(const char *root, const char *rel) {
        _cleanup_(freep) char *p = tu_join(root, rel);
        _cleanup_(fclosep) FILE *f = fopen(p, "re");
        if (!f)
                return NULL;
        char *buf = NULL;
        size_t n = 0;
        if (getdelim(&buf, &n, '\0', f) < 0) {
                free(buf);
                return strdup("");
        }
        return buf;
}

char *tu_data(const char *rel) {
        const char *d = getenv("NETPOLLD_TEST_DATA");
        ck_assert_msg(d, "NETPOLLD_TEST_DATA is not set (run through meson test)");
        return tu_join(d, rel);
}

char *tu_source(const char *rel) {
        const char *d = getenv("NETPOLLD_SOURCE_ROOT");
        ck_assert_msg(d, "NETPOLLD_SOURCE_ROOT is not set (run through meson test)");
        return tu_join(d, rel);
}

int tu_run(Suite *s) {
        SRunner *sr = srunner_create(s);
        srunner_run_all(sr, CK_NORMAL);
        int failed = srunner_ntests_failed(sr);
        srunner_free(sr);
        return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

char *tu_root;

void tu_root_setup(void) {
        tu_root = tu_mkdtemp();
}

void tu_root_teardown(void) {
        tu_rm_rf(tu_root);
        free(tu_root);
        tu_root = NULL;
}
