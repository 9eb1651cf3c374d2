/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * strv.h: NULL-terminated string arrays (strv_free lives in macro.h).
 */
#pragma once

#include <stdarg.h>
#include <stddef.h>

#include "macro.h"

size_t strv_length(char *const *l);
/* Deep copy; NULL input gives an empty list. NULL on ENOMEM. */
char **strv_copy(char *const *l);
/* Appends a copy of s; -ENOMEM leaves *l unchanged. */
int strv_extend(char ***l, const char *s);
/* Appends a formatted string. */
int strv_extendf(char ***l, const char *fmt, ...) _printf_(2, 3);
/* Appends s itself (ownership moves on success). */
int strv_push(char ***l, char *s);
/* The strings joined with sep between them ("" for an empty or NULL list). Caller frees; NULL on ENOMEM. */
char *strv_join(char *const *l, const char *sep);
