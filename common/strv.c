/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "strv.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t strv_length(char *const *l) {
        size_t n = 0;
        while (l && l[n])
                n++;
        return n;
}

char **strv_copy(char *const *l) {
        size_t n = strv_length(l);
        char **c = calloc(n + 1, sizeof(char *));
        if (!c)
                return NULL;
        for (size_t i = 0; i < n; i++) {
                c[i] = strdup(l[i]);
                if (!c[i])
                        return strv_free(c);
        }
        return c;
}

int strv_push(char ***l, char *s) {
        size_t n = strv_length(*l);
        char **c = realloc(*l, (n + 2) * sizeof(char *));
        if (!c)
                return -ENOMEM;
        c[n] = s;
        c[n + 1] = NULL;
        *l = c;
        return 0;
}

int strv_extend(char ***l, const char *s) {
        char *d = strdup(s);
        if (!d || strv_push(l, d) < 0) {
                free(d);
                return -ENOMEM;
        }
        return 0;
}

int strv_extendf(char ***l, const char *fmt, ...) {
        char *s;
        va_list ap;
        int r;

        va_start(ap, fmt);
        r = vasprintf(&s, fmt, ap);
        va_end(ap);
        if (r < 0)
                return -ENOMEM;
        if (strv_push(l, s) < 0) {
                free(s);
                return -ENOMEM;
        }
        return 0;
}

char *strv_join(char *const *l, const char *sep) {
        size_t n = 0, seplen = strlen(sep);
        char *s, *p;

        for (char *const *i = l; i && *i; i++)
                n += strlen(*i) + (i == l ? 0 : seplen);
        s = malloc(n + 1);
        if (!s)
                return NULL;
        p = s;
        for (char *const *i = l; i && *i; i++) {
                if (i != l)
                        p = stpcpy(p, sep);
                p = stpcpy(p, *i);
        }
        *p = 0;
        return s;
}
