/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tuned-expand.c: tuned's ${VAR} and ${f:FUNC:ARGS} expansion, in the order
 * tuned does it (variables in one pass, "\${VAR}" unescaped, then functions
 * innermost first, "\${f:...}" unescaped). Only what gives the value tuned
 * itself would compute on any host is expanded; functions that ask the
 * host (CPUs online, virtualization, commands) are refused with a reason,
 * never guessed.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "strv.h"
#include "tuned.h"

void tuned_vars_done(TunedVars *v) {
        for (size_t i = 0; i < v->n; i++) {
                free(v->names[i]);
                free(v->values[i]);
                free(v->reasons[i]);
        }
        free(v->names);
        free(v->values);
        free(v->reasons);
        *v = (TunedVars) {};
}

static bool is_word(char c) {
        return isalnum((unsigned char) c) || c == '_';
}

bool tuned_var_name_valid(const char *s) {
        if (!*s)
                return false;
        for (; *s; s++)
                if (!is_word(*s))
                        return false;
        return true;
}

static size_t var_size(const TunedVars *v, size_t i) {
        return strlen(v->names[i]) + strlen(strempty(v->values[i])) + strlen(strempty(v->reasons[i]));
}

int tuned_vars_set(TunedVars *v, const char *name, const char *value, const char *reason) {
        size_t i, old = 0;

        for (i = 0; i < v->n; i++)
                if (streq(v->names[i], name))
                        break;
        if (i < v->n)
                old = var_size(v, i);
        if (v->size - old + strlen(name) + strlen(strempty(value)) + strlen(strempty(reason)) > TUNED_VALUE_MAX)
                return -E2BIG;
        if (i == v->n) {
                char **n = reallocarray(v->names, i + 1, sizeof(char *));
                if (!n)
                        return -ENOMEM;
                v->names = n;
                n = reallocarray(v->values, i + 1, sizeof(char *));
                if (!n)
                        return -ENOMEM;
                v->values = n;
                n = reallocarray(v->reasons, i + 1, sizeof(char *));
                if (!n)
                        return -ENOMEM;
                v->reasons = n;
                v->names[i] = strdup(name);
                if (!v->names[i])
                        return -ENOMEM;
                v->values[i] = v->reasons[i] = NULL;
                v->n++;
        }
        v->size -= var_size(v, i);
        free(v->values[i]);
        free(v->reasons[i]);
        v->values[i] = value ? strdup(value) : NULL;
        v->reasons[i] = reason ? strdup(reason) : NULL;
        v->size += var_size(v, i);
        if ((value && !v->values[i]) || (reason && !v->reasons[i]))
                return -ENOMEM;
        return 0;
}

/* A growing string of at most TUNED_VALUE_MAX bytes; on failure the caller frees it. */
typedef struct Buf {
        char *s;
        size_t n, allocated;
} Buf;

static int buf_add(Buf *b, const char *s, size_t n) {
        if (n > TUNED_VALUE_MAX - b->n)
                return -E2BIG;
        if (b->n + n + 1 > b->allocated) {
                size_t a = MAX(b->allocated * 2, b->n + n + 64);
                char *p = realloc(b->s, a);
                if (!p)
                        return -ENOMEM;
                b->s = p;
                b->allocated = a;
        }
        memcpy(b->s + b->n, s, n);
        b->n += n;
        b->s[b->n] = '\0';
        return 0;
}

/* "${NAME}" at s (NAME a word): its length, else 0. */
static size_t var_ref_len(const char *s, size_t *ret_name_len) {
        size_t n = 0;

        if (!startswith(s, "${"))
                return 0;
        while (is_word(s[2 + n]))
                n++;
        if (n == 0 || s[2 + n] != '}')
                return 0;
        *ret_name_len = n;
        return n + 3;
}

static int fail(char **ret_reason, int r, const char *fmt, ...) _printf_(3, 4);
static int fail(char **ret_reason, int r, const char *fmt, ...) {
        va_list ap;
        int k;

        va_start(ap, fmt);
        k = vasprintf(ret_reason, fmt, ap);
        va_end(ap);
        if (k < 0) {
                *ret_reason = NULL;
                return -ENOMEM;
        }
        return r;
}

/* Pass 1: every defined ${NAME} not preceded by '\' once; then "\${NAME}" -> "${NAME}". */
static int expand_static(const TunedVars *v, const char *value, char **ret, char **ret_reason) {
        _cleanup_(freep) char *pass = NULL;
        Buf b = {};
        size_t len, name_len;
        int r = 0;

        for (const char *p = value; r >= 0 && *p; p += len) {
                size_t i = v->n;

                len = var_ref_len(p, &name_len);
                if (len > 0 && (p == value || p[-1] != '\\'))
                        for (i = 0; i < v->n; i++)
                                if (strlen(v->names[i]) == name_len && strncmp(v->names[i], p + 2, name_len) == 0)
                                        break;
                if (len == 0 || i == v->n) {
                        len = len ?: 1;
                        r = buf_add(&b, p, len);
                } else if (!v->values[i]) {
                        free(b.s);
                        return fail(ret_reason, -EOPNOTSUPP, "%s", v->reasons[i]);
                } else
                        r = buf_add(&b, v->values[i], strlen(v->values[i]));
        }
        if (r < 0) {
                free(b.s);
                return r;
        }
        pass = b.s ?: strdup("");
        if (!pass)
                return -ENOMEM;

        b = (Buf) {};
        for (const char *p = pass; r >= 0 && *p; p++)
                if (!(p[0] == '\\' && var_ref_len(p + 1, &name_len) > 0))
                        r = buf_add(&b, p, 1);
        if (r < 0) {
                free(b.s);
                return r;
        }
        *ret = b.s ?: strdup("");
        return *ret ? 0 : -ENOMEM;
}

/* Python's int() of a decimal with blanks and a sign around; false for anything else. */
static bool parse_py_int(const char *s, int64_t *ret) {
        char *end;
        long long x;

        while (isspace((unsigned char) *s))
                s++;
        if (!*s || !(isdigit((unsigned char) *s) || ((*s == '-' || *s == '+') && isdigit((unsigned char) s[1]))))
                return false;
        errno = 0;
        x = strtoll(s, &end, 10);
        if (errno != 0 || x > (1LL << 52) || x < -(1LL << 52))
                return false;
        while (isspace((unsigned char) *end))
                end++;
        if (*end)
                return false;
        *ret = x;
        return true;
}

/* The functions reproduced: their result from the arguments alone. */
static int call_function(char **args, size_t n, char **ret, char **ret_reason) {
        const char *name = args[0];
        char buf[TUNED_EXCERPT_SIZE];
        int64_t x;

        if (streq(name, "strip")) {
                Buf b = {};
                size_t start, end;
                int r;

                for (size_t i = 1; i < n; i++) {
                        r = buf_add(&b, args[i], strlen(args[i]));
                        if (r < 0) {
                                free(b.s);
                                return r;
                        }
                }
                if (!b.s) {
                        *ret = strdup("");
                        return *ret ? 0 : -ENOMEM;
                }
                for (start = 0; isspace((unsigned char) b.s[start]); start++)
                        ;
                for (end = b.n; end > start && isspace((unsigned char) b.s[end - 1]); end--)
                        ;
                b.s[end] = '\0';
                memmove(b.s, b.s + start, end - start + 1);
                *ret = b.s;
                return 0;
        }
        if (streq(name, "kb2s") || streq(name, "s2kb")) {
                if (n != 2 || !parse_py_int(args[1], &x))
                        return fail(ret_reason, -EOPNOTSUPP, "${f:%s} needs one whole number",
                                    tuned_excerpt(name, buf));
                if (streq(name, "kb2s"))
                        x *= 2;
                else if (x % 2 == 0)
                        x /= 2;
                else {
                        /* Python's round(x / 2): a half goes to the even neighbour. */
                        int64_t lo = (x - 1) / 2; /* floor(x / 2) for odd x of either sign */
                        x = lo % 2 == 0 ? lo : lo + 1;
                }
                if (asprintf(ret, "%" PRId64, x) < 0)
                        return -ENOMEM;
                return 0;
        }
        return fail(ret_reason, -EOPNOTSUPP,
                    "${f:%s} depends on the host or is not reproduced by netpollctl; not guessed",
                    tuned_excerpt(name, buf));
}

/* Splits "${f:a:b\:c" (no closing brace) at ':' not preceded by '\', unescaping "\:". */
static int split_call(const char *s, size_t len, char ***ret, size_t *ret_n) {
        _cleanup_(strv_freep) char **l = NULL;
        size_t n = 0, start = 0;

        for (size_t i = 0; i <= len; i++) {
                char *arg, *w;

                if (i < len && !(s[i] == ':' && (i == 0 || s[i - 1] != '\\')))
                        continue;
                arg = strndup(s + start, i - start);
                if (!arg)
                        return -ENOMEM;
                for (char *q = w = arg; *q; q++)
                        if (!(q[0] == '\\' && q[1] == ':'))
                                *w++ = *q;
                *w = '\0';
                char **nl = reallocarray(l, n + 2, sizeof(char *));
                if (!nl) {
                        free(arg);
                        return -ENOMEM;
                }
                l = nl;
                l[n++] = arg;
                l[n] = NULL;
                start = i + 1;
        }
        *ret = TAKE_PTR(l);
        *ret_n = n;
        return 0;
}

/* Pass 2: ${f:...} innermost first, as tuned's scanner does; then "\${f:" -> "${f:". */
static int expand_functions(char **s, char **ret_reason) {
        size_t stack[64], depth = 0, len = strlen(*s);
        bool esc = false, escs[64];
        ssize_t i = 0;
        int r;

        /* A call's result is never longer than the call, so the value stays within TUNED_VALUE_MAX. */
        while ((size_t) i < len) {
                const char *str = *s;

                if (str[i] == '}') {
                        _cleanup_(strv_freep) char **args = NULL;
                        _cleanup_(freep) char *out = NULL;
                        size_t from, n;
                        char *joined;

                        if (depth == 0)
                                break;  /* tuned gives up on an unpaired '}' and keeps the rest */
                        from = stack[--depth];
                        if (!escs[depth] && startswith(str + from, "${f:")) {
                                r = split_call(str + from, (size_t) i - from, &args, &n);
                                if (r < 0)
                                        return r;
                                if (n < 2 || !tuned_var_name_valid(args[1]))
                                        return fail(ret_reason, -EOPNOTSUPP, "%s", "a ${f:...} without a valid function name");
                                r = call_function(args + 1, n - 1, &out, ret_reason);
                                if (r < 0)
                                        return r;
                                if (asprintf(&joined, "%.*s%s%s", (int) from, str, out, str + i + 1) < 0)
                                        return -ENOMEM;
                                free(*s);
                                *s = joined;
                                len = strlen(joined);
                                i = MAX((ssize_t) (from + strlen(out)) - 1, 0);
                        }
                } else if (startswith(str + i, "${")) {
                        if (depth == ELEMENTSOF(stack))
                                return fail(ret_reason, -EOPNOTSUPP, "%s", "${...} nested too deeply");
                        escs[depth] = esc;
                        stack[depth++] = (size_t) i;
                }
                esc = (*s)[i] == '\\';
                i++;
        }

        /* "\${f:...}" -> "${f:...}" */
        for (char *p = *s; (p = strstr(p, "\\${f:")); p++)
                memmove(p, p + 1, strlen(p));
        return 0;
}

int tuned_expand(const TunedVars *v, const char *value, char **ret, char **ret_reason) {
        _cleanup_(freep) char *s = NULL;
        char buf[TUNED_EXCERPT_SIZE];
        const char *left;
        int r;

        r = expand_static(v, value, &s, ret_reason);
        if (r < 0)
                return r;
        r = expand_functions(&s, ret_reason);
        if (r < 0)
                return r;
        left = strstr(s, "${");
        if (left) {
                size_t n = strcspn(left, "}");
                _cleanup_(freep) char *ref = strndup(left, left[n] ? n + 1 : n);

                if (!ref)
                        return -ENOMEM;
                return fail(ret_reason, -EOPNOTSUPP,
                            "%s stays unexpanded (no such variable, or escaped): tuned would write it literally",
                            tuned_excerpt(ref, buf));
        }
        *ret = TAKE_PTR(s);
        return 0;
}

char *tuned_unquote(const char *v) {
        size_t n = strlen(v);

        if (n >= 2 && v[0] == '"' && v[n - 1] == '"' && !memchr(v, '\n', n))
                return strndup(v + 1, n - 2);
        return strdup(v);
}
