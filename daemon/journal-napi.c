/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * journal-napi.c: the journal's path form for values that are not files,
 * "napi:NETNS:ID:KNOB" (journal.h). Escaping keeps NETNS free of ':', TAB
 * and newline so the path splits one way only and fits a journal line.
 */
#include "journal.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "macro.h"

#define NAPI_PREFIX "napi:"

/* Bytes a NETNS field never holds as themselves. */
static bool needs_escape(unsigned char c) {
        return c == '%' || c == ':' || c <= 0x20 || c >= 0x7f;
}

static bool knob_name_ok(const char *s, size_t len) {
        if (len == 0)
                return false;
        for (size_t i = 0; i < len; i++)
                if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '-'))
                        return false;
        return true;
}

int journal_napi_path(const char *netns, uint32_t napi_id, const char *knob, char **ret) {
        _cleanup_(freep) char *buf = NULL;
        size_t size = 0;
        FILE *f;

        /* A namespace is named by its file, so it is an absolute path. */
        if (!ret || napi_id == 0 || !knob || !knob_name_ok(knob, strlen(knob)) || (netns && netns[0] != '/'))
                return -EINVAL;
        f = open_memstream(&buf, &size);
        if (!f)
                return -ENOMEM;
        fputs(NAPI_PREFIX, f);
        if (!netns)
                fputc('-', f);
        for (const char *c = netns; c && *c; c++)
                if (needs_escape((unsigned char)*c))
                        fprintf(f, "%%%02X", (unsigned char)*c);
                else
                        fputc(*c, f);
        fprintf(f, ":%" PRIu32 ":%s", napi_id, knob);
        if (fclose(f) != 0)
                return -ENOMEM;
        *ret = TAKE_PTR(buf);
        return 0;
}

static int hex_digit(char c) {
        if (c >= '0' && c <= '9')
                return c - '0';
        if (c >= 'A' && c <= 'F')
                return c - 'A' + 10;
        return -1; /* lower case is refused: one spelling per path, so equal paths are equal strings */
}

/* Unescapes the NETNS field s[0..len); refuses anything journal_napi_path() would not write. */
static int parse_netns(const char *s, size_t len, char **ret) {
        _cleanup_(freep) char *out = NULL;
        size_t n = 0;

        if (len == 1 && s[0] == '-') {
                *ret = NULL;
                return 0;
        }
        if (len == 0 || s[0] != '/')
                return -EINVAL;
        out = malloc(len + 1);
        if (!out)
                return -ENOMEM;
        for (size_t i = 0; i < len; i++) {
                int hi, lo;

                if (s[i] != '%') {
                        if (needs_escape((unsigned char)s[i]))
                                return -EINVAL;
                        out[n++] = s[i];
                        continue;
                }
                if (i + 2 >= len)
                        return -EINVAL;
                hi = hex_digit(s[i + 1]);
                lo = hex_digit(s[i + 2]);
                if (hi < 0 || lo < 0 || (hi == 0 && lo == 0) || !needs_escape((unsigned char)(hi * 16 + lo)))
                        return -EINVAL;
                out[n++] = (char)(hi * 16 + lo);
                i += 2;
        }
        out[n] = 0;
        *ret = TAKE_PTR(out);
        return 0;
}

/* Decimal 1..UINT32_MAX without sign, spaces or leading zeros (again one spelling per path). */
static int parse_id(const char *s, size_t len, uint32_t *ret) {
        uint64_t v = 0;

        if (len == 0 || len > 10 || s[0] == '0')
                return -EINVAL;
        for (size_t i = 0; i < len; i++) {
                if (s[i] < '0' || s[i] > '9')
                        return -EINVAL;
                v = v * 10 + (uint64_t)(s[i] - '0');
        }
        if (v > UINT32_MAX)
                return -EINVAL;
        *ret = (uint32_t)v;
        return 0;
}

int journal_napi_path_parse(const char *path, char **ret_netns, uint32_t *ret_napi_id, char **ret_knob) {
        _cleanup_(freep) char *netns = NULL, *knob = NULL;
        const char *s, *c1, *c2;
        uint32_t id;
        int r;

        s = path ? startswith(path, NAPI_PREFIX) : NULL;
        if (!s)
                return -EINVAL;
        c1 = strchr(s, ':');
        c2 = c1 ? strchr(c1 + 1, ':') : NULL;
        if (!c2)
                return -EINVAL;
        r = parse_netns(s, (size_t)(c1 - s), &netns);
        if (r < 0)
                return r;
        r = parse_id(c1 + 1, (size_t)(c2 - c1 - 1), &id);
        if (r < 0)
                return r;
        if (!knob_name_ok(c2 + 1, strlen(c2 + 1)))
                return -EINVAL;
        if (ret_knob && !(knob = strdup(c2 + 1)))
                return -ENOMEM;
        if (ret_netns)
                *ret_netns = TAKE_PTR(netns);
        if (ret_napi_id)
                *ret_napi_id = id;
        if (ret_knob)
                *ret_knob = TAKE_PTR(knob);
        return 0;
}
