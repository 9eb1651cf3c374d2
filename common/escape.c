/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * escape.c: text for D-Bus strings (escape.h).
 */
#include "escape.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The length of the valid UTF-8 sequence at s (1-4), 0 when there is none (overlong, surrogate, > U+10FFFF). */
static size_t utf8_len(const unsigned char *s) {
        uint32_t c;
        size_t n;

        if (s[0] < 0x80)
                return 1;
        if (s[0] >= 0xc2 && s[0] <= 0xdf)
                n = 2, c = s[0] & 0x1f;
        else if (s[0] >= 0xe0 && s[0] <= 0xef)
                n = 3, c = s[0] & 0x0f;
        else if (s[0] >= 0xf0 && s[0] <= 0xf4)
                n = 4, c = s[0] & 0x07;
        else
                return 0;
        for (size_t i = 1; i < n; i++) {
                if ((s[i] & 0xc0) != 0x80)
                        return 0;
                c = c << 6 | (s[i] & 0x3f);
        }
        if ((n == 3 && c < 0x800) || (n == 4 && (c < 0x10000 || c > 0x10ffff)) || (c >= 0xd800 && c <= 0xdfff))
                return 0;
        return n;
}

static bool odd_byte(unsigned char c, bool keep_newlines) {
        return (c < 0x20 && !(keep_newlines && c == '\n')) || c == 0x7f;
}

/* Bytes s takes escaped (0: none to escape); *ret_odd tells whether anything needs it. */
static size_t escaped_size(const char *s, bool keep_newlines, bool *ret_odd) {
        const unsigned char *p = (const unsigned char *)s;
        size_t size = 0;

        *ret_odd = false;
        while (*p) {
                size_t n = utf8_len(p);
                if (n == 0 || (n == 1 && odd_byte(*p, keep_newlines))) {
                        *ret_odd = true;
                        size += 4;
                        p++;
                        continue;
                }
                size += n;
                p += n;
        }
        return size;
}

char *text_escape(const char *s, bool keep_newlines) {
        const unsigned char *p = (const unsigned char *)s;
        bool odd;
        char *buf, *q;

        buf = malloc(escaped_size(s, keep_newlines, &odd) + 1);
        if (!buf)
                return NULL;
        for (q = buf; *p;) {
                size_t n = utf8_len(p);
                if (n == 0 || (n == 1 && odd_byte(*p, keep_newlines))) {
                        q += sprintf(q, "\\x%02x", *p++);
                        continue;
                }
                memcpy(q, p, n);
                q += n;
                p += n;
        }
        *q = 0;
        return buf;
}

void text_pool_done(TextPool *p) {
        for (size_t i = 0; i < p->n; i++)
                free(p->s[i]);
        free(p->s);
        *p = (TextPool){};
}

const char *bus_text_full(TextPool *p, const char *s, bool keep_newlines) {
        char **a, *e;
        bool odd;

        if (!s)
                return "";
        (void)escaped_size(s, keep_newlines, &odd);
        if (!odd)
                return s;
        a = realloc(p->s, (p->n + 1) * sizeof(char *));
        if (!a)
                return "?";
        p->s = a;
        e = text_escape(s, keep_newlines);
        if (!e)
                return "?";
        p->s[p->n++] = e;
        return e;
}
