/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * testutil.h: fixture helpers shared by the Check suites: temporary trees
 * that look like /proc and /sys (removed again by the test), small file
 * helpers, and a main() that runs one suite.
 */
#pragma once

#include <check.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* Creates a fresh directory under $TMPDIR (or /tmp); caller frees and removes with tu_rm_rf. */
char *tu_mkdtemp(void);
/*
 * A fresh fixture root per test, for tcase_add_checked_fixture(tc,
 * tu_root_setup, tu_root_teardown): made before each test, removed after.
 */
extern char *tu_root;
void tu_root_setup(void);
void tu_root_teardown(void);
/* Removes a tree (no symlink following). */
void tu_rm_rf(const char *path);
/* Writes content to root/rel, creating parent directories; mode applied after writing. */
void tu_write(const char *root, const char *rel, const char *content, unsigned mode);
/* Content of root/rel (caller frees), NULL if it cannot be read. */
char *tu_read(const char *root, const char *rel);
/* root/rel joined, caller frees. */
char *tu_join(const char *root, const char *rel);
/* Path of a file in tests/data (caller frees). */
char *tu_data(const char *rel);
/* Path of a file in the source tree (caller frees). */
char *tu_source(const char *rel);

/* The length of a test function's name without Check's "_fn" suffix. */
static inline int tu_name_len(const char *fn) {
        size_t n = strlen(fn);
        return (int)(n > 3 && strcmp(fn + n - 3, "_fn") == 0 ? n - 3 : n);
}

/*
 * Skips the rest of the current test, saying why, on a line of its own:
 * "SKIP: test_name: reason". tools/count-results counts each such line as a
 * skipped case instead of a passed one.
 */
#define tu_skip(fmt, ...)                                                      \
        do {                                                                   \
                printf("SKIP: %.*s: " fmt "\n", tu_name_len(__func__), __func__, \
                       ##__VA_ARGS__);                                         \
                fflush(stdout);                                                \
                return;                                                        \
        } while (0)

/* Runs a suite with CK_NORMAL output and returns the process exit code. */
int tu_run(Suite *s);

#define TU_MAIN(suite_fn)                                                      \
        int main(void) {                                                       \
                return tu_run(suite_fn());                                     \
        }
