/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * u64-array.h: growable arrays of uint64_t (socket inode lists), sorted with
 * u64_cmp for bsearch(3).
 */
#pragma once

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

/* Appends x to *v (*n used of *cap, both updated; *v realloc'd, caller frees). 0 or -ENOMEM. */
static inline int u64_push(uint64_t **v, size_t *n, size_t *cap, uint64_t x) {
        if (*n == *cap) {
                size_t c = *cap ? *cap * 2 : 64;
                uint64_t *nv = realloc(*v, c * sizeof(**v));
                if (!nv)
                        return -ENOMEM;
                *v = nv;
                *cap = c;
        }
        (*v)[(*n)++] = x;
        return 0;
}

static inline int u64_cmp(const void *a, const void *b) {
        uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
        return x < y ? -1 : x > y;
}
