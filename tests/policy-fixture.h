/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * policy-fixture.h: what test-policy.c and test-profile.c share: the running
 * test's fixture directory, expected messages written as templates where
 * "$D" stands for that directory, and the assertion that compares them.
 */
#pragma once

#include <check.h>

/* The running test's fixture directory, made and removed by the TCase's checked fixture. */
extern char *dir;

/* A TCase with the fixture directory, added to s. */
TCase *fixture_tcase(Suite *s, const char *name);

/* The template with every "$D" replaced by d. Caller frees. */
char *subst(const char *tmpl, const char *d);
/* Writes content to dir/rel (mode 0644), creating parent directories. */
void write_file(const char *rel, const char *content);
/* { dir, NULL }: the fixture directory as a profile search path. */
char **dirs(void);

/* Asserts that the strv errs holds exactly the given messages ("$D" templates), in order. */
#define assert_errors(errs, ...) assert_errors_impl(errs, (const char *const[]){ __VA_ARGS__, NULL })
void assert_errors_impl(char **errs, const char *const *want);
