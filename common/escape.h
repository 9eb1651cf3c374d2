/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * escape.h: text for D-Bus strings. sd-bus refuses a string that is not
 * valid UTF-8 (the whole reply fails with EINVAL), and paths, profile and
 * device names may hold any byte. Every string the daemon puts on the bus
 * goes through bus_text(): bytes that are not UTF-8, and control
 * characters, become a C-style \xNN; clean text passes as it is.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* s with each byte outside valid UTF-8, and each control character (but '\n' when keep_newlines), as \xNN. NULL on ENOMEM. */
char *text_escape(const char *s, bool keep_newlines);

/* The escaped copies of one reply or signal, freed together. */
typedef struct TextPool {
        char **s;
        size_t n;
} TextPool;

void text_pool_done(TextPool *p);

/*
 * s as it may go on the bus: s itself when it needs no escape, else an
 * escaped copy p owns; "" for NULL, and "?" when memory ran out (never a
 * string sd-bus refuses). keep_newlines for multi-line error messages.
 */
const char *bus_text_full(TextPool *p, const char *s, bool keep_newlines);
static inline const char *bus_text(TextPool *p, const char *s) {
        return bus_text_full(p, s, false);
}
