/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cpuset.c: CPU set arithmetic and the kernel's list and hex-mask text forms.
 */
#include "cpuset.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "macro.h"

#define NWORDS (CPUSET_MAX / 64)
#define MASK_GROUP_BITS 32

static void set_reason(const char **ret_reason, const char *reason) {
        if (ret_reason)
                *ret_reason = reason;
}

unsigned cpuset_count(const CpuSet *s) {
        unsigned n = 0;
        for (size_t i = 0; i < NWORDS; i++)
                n += (unsigned)__builtin_popcountll(s->bits[i]);
        return n;
}

bool cpuset_equal(const CpuSet *a, const CpuSet *b) {
        return memcmp(a->bits, b->bits, sizeof(a->bits)) == 0;
}

bool cpuset_is_empty(const CpuSet *s) {
        for (size_t i = 0; i < NWORDS; i++)
                if (s->bits[i])
                        return false;
        return true;
}

int cpuset_last(const CpuSet *s) {
        for (size_t i = NWORDS; i-- > 0;)
                if (s->bits[i])
                        return (int)(i * 64 + 63 - (unsigned)__builtin_clzll(s->bits[i]));
        return -1;
}

/* One CPU number: digits only, below CPUSET_MAX. */
static int parse_cpu(const char **p, unsigned *ret, const char **ret_reason) {
        const char *s = *p;
        unsigned v = 0;

        if (*s < '0' || *s > '9') {
                set_reason(ret_reason, *s == '-'   ? "negative CPU numbers are not allowed"
                                       : *s == ' ' ? "spaces are not allowed"
                                       : *s == 0 || *s == ','
                                               ? "empty element; expected a CPU number or a range such as 0-3"
                                               : "expected a CPU number or a range such as 0-3");
                return -EINVAL;
        }
        for (; *s >= '0' && *s <= '9'; s++) {
                v = v * 10 + (unsigned)(*s - '0');
                if (v >= CPUSET_MAX) {
                        set_reason(ret_reason, "CPU number above 8191");
                        return -ERANGE;
                }
        }
        *ret = v;
        *p = s;
        return 0;
}

int cpuset_parse_list(const char *s, CpuSet *ret, const char **ret_reason) {
        CpuSet set;
        const char *p = s;
        int r;

        if (!s || !*s) {
                set_reason(ret_reason, "empty CPU list; expected CPUs such as 0-3,8, or none");
                return -EINVAL;
        }
        cpuset_zero(&set);
        if (streq(s, "none")) {
                *ret = set;
                return 0;
        }
        for (;;) {
                unsigned a, b;

                r = parse_cpu(&p, &a, ret_reason);
                if (r < 0)
                        return r;
                b = a;
                if (*p == '-') {
                        p++;
                        r = parse_cpu(&p, &b, ret_reason);
                        if (r < 0)
                                return r;
                        if (b < a) {
                                set_reason(ret_reason, "range end is below its start");
                                return -EINVAL;
                        }
                }
                for (unsigned c = a; c <= b; c++)
                        cpuset_add(&set, c);
                if (*p == 0)
                        break;
                if (*p != ',') {
                        set_reason(ret_reason, *p == ' ' ? "spaces are not allowed"
                                                         : "expected ',' or '-' after a CPU number");
                        return -EINVAL;
                }
                p++;
        }
        *ret = set;
        return 0;
}

static int hexval(char c) {
        if (c >= '0' && c <= '9')
                return c - '0';
        if (c >= 'a' && c <= 'f')
                return c - 'a' + 10;
        if (c >= 'A' && c <= 'F')
                return c - 'A' + 10;
        return -1;
}

int cpuset_parse_mask(const char *s, CpuSet *ret, const char **ret_reason) {
        size_t ngroups = 1, len;
        CpuSet set;

        if (!s || !*s) {
                set_reason(ret_reason, "empty CPU mask; expected hex words such as ff,ffffffff");
                return -EINVAL;
        }
        for (const char *p = s; *p; p++)
                if (*p == ',')
                        ngroups++;
        if (ngroups > CPUSET_MAX / MASK_GROUP_BITS) {
                set_reason(ret_reason, "CPU mask wider than 8192 CPUs");
                return -ERANGE;
        }

        cpuset_zero(&set);
        len = strlen(s);
        /* Walk groups from the least significant (last) one. */
        size_t group = 0, end = len;
        for (;;) {
                size_t start = end;
                while (start > 0 && s[start - 1] != ',')
                        start--;
                if (start == end || end - start > 8) {
                        set_reason(ret_reason, start == end ? "empty word in CPU mask"
                                                            : "more than 8 hex digits in one word of the CPU mask");
                        return -EINVAL;
                }
                uint32_t w = 0;
                for (size_t i = start; i < end; i++) {
                        int h = hexval(s[i]);
                        if (h < 0) {
                                set_reason(ret_reason, "not a hex digit in CPU mask");
                                return -EINVAL;
                        }
                        w = (w << 4) | (uint32_t)h;
                }
                set.bits[group / 2] |= (uint64_t)w << (32 * (group % 2));
                group++;
                if (start == 0)
                        break;
                end = start - 1;
        }
        *ret = set;
        return 0;
}

char *cpuset_format_list(const CpuSet *s) {
        char *buf = NULL;
        size_t size = 0;
        FILE *f;
        bool first = true;
        int last = cpuset_last(s);

        if (last < 0)
                return strdup("none");
        f = open_memstream(&buf, &size);
        if (!f)
                return NULL;
        for (int c = 0; c <= last; c++) {
                if (!cpuset_has(s, (unsigned)c))
                        continue;
                int e = c;
                while (e + 1 <= last && cpuset_has(s, (unsigned)e + 1))
                        e++;
                fprintf(f, "%s%d", first ? "" : ",", c);
                if (e > c)
                        fprintf(f, "-%d", e);
                first = false;
                c = e;
        }
        if (fclose(f) != 0) {
                free(buf);
                return NULL;
        }
        return buf;
}

char *cpuset_format_mask(const CpuSet *s, unsigned nbits) {
        int last = cpuset_last(s);
        unsigned ngroups, lead_bits;
        char *buf, *p;

        if (last >= 0 && (unsigned)last + 1 > nbits)
                nbits = (unsigned)last + 1;
        if (nbits == 0)
                nbits = 1;
        if (nbits > CPUSET_MAX)
                nbits = CPUSET_MAX;
        ngroups = (nbits + MASK_GROUP_BITS - 1) / MASK_GROUP_BITS;
        lead_bits = nbits % MASK_GROUP_BITS ?: MASK_GROUP_BITS;

        buf = malloc(ngroups * 9 + 1);
        if (!buf)
                return NULL;
        p = buf;
        for (unsigned g = ngroups; g-- > 0;) {
                uint32_t w = (uint32_t)(s->bits[g / 2] >> (32 * (g % 2)));
                int width = g == ngroups - 1 ? (int)(lead_bits + 3) / 4 : 8;
                if (g == ngroups - 1 && lead_bits < 32)
                        w &= (UINT32_C(1) << lead_bits) - 1;
                p += sprintf(p, "%s%0*x", g == ngroups - 1 ? "" : ",", width, w);
        }
        return buf;
}
