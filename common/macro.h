/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * macro.h: the small set of helpers every netpolld source uses: scope-bound
 * cleanup (_cleanup_), ownership transfer (TAKE_PTR), array sizes and string
 * comparison. Nothing here allocates or logs.
 */
#pragma once

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define _cleanup_(f) __attribute__((cleanup(f)))
#define _unused_ __attribute__((unused))
#define _printf_(a, b) __attribute__((format(printf, a, b)))
#define _noreturn_ __attribute__((noreturn))
#define _likely_(x) __builtin_expect(!!(x), 1)
#define _unlikely_(x) __builtin_expect(!!(x), 0)

#define ELEMENTSOF(a)                                                          \
        (__builtin_choose_expr(                                                \
                !__builtin_types_compatible_p(typeof(a), typeof(&*(a))),       \
                sizeof(a) / sizeof((a)[0]), (void)0))

/* Returns the pointer and sets the variable to NULL: ownership moves to the caller. */
#define TAKE_PTR(p)                                                            \
        ({                                                                     \
                typeof(p) *_pp = &(p);                                         \
                typeof(p) _p = *_pp;                                           \
                *_pp = NULL;                                                   \
                _p;                                                            \
        })

#define TAKE_FD(fd)                                                            \
        ({                                                                     \
                int *_pfd = &(fd);                                             \
                int _fd = *_pfd;                                               \
                *_pfd = -EBADF;                                                \
                _fd;                                                           \
        })

#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))

/* Defines name##p(type *p) that calls func(*p) when *p is not NULL. */
#define DEFINE_TRIVIAL_CLEANUP_FUNC(type, func)                                \
        static inline void func##p(type *p) {                                  \
                if (*p)                                                        \
                        func(*p);                                              \
        }

static inline void freep(void *p) {
        free(*(void **)p);
}

static inline void closep(int *fd) {
        if (*fd >= 0) {
                int saved = errno;
                close(*fd);
                errno = saved;
        }
}

static inline void fclosep(FILE **f) {
        if (*f)
                fclose(*f);
}

/* Frees a NULL-terminated array of strings. */
static inline char **strv_free(char **l) {
        if (!l)
                return NULL;
        for (char **i = l; *i; i++)
                free(*i);
        free(l);
        return NULL;
}
DEFINE_TRIVIAL_CLEANUP_FUNC(char **, strv_free);

static inline bool streq(const char *a, const char *b) {
        return strcmp(a, b) == 0;
}

static inline bool streq_ptr(const char *a, const char *b) {
        if (!a || !b)
                return a == b;
        return streq(a, b);
}

static inline const char *strempty(const char *s) {
        return s ?: "";
}

static inline const char *startswith(const char *s, const char *prefix) {
        size_t l = strlen(prefix);
        return strncmp(s, prefix, l) == 0 ? s + l : NULL;
}

static inline bool endswith(const char *s, const char *suffix) {
        size_t n = strlen(s), l = strlen(suffix);
        return n >= l && strcmp(s + n - l, suffix) == 0;
}

/* errno as a negative value, never 0 (for functions that follow libc calls). */
static inline int negative_errno(void) {
        return errno > 0 ? -errno : -EIO;
}
