/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tuned-ini.c: the INI dialect of tuned profiles, read the way tuned's
 * loader reads it (Python's configparser with '=' as the only delimiter,
 * '#' inline comments and strict=False), plus the small helpers the
 * tuned-*.c files share. tuned gives up on a file with any bad line; so
 * does this, naming the first one. Lines and values are bounded
 * (TUNED_LINE_MAX, TUNED_VALUE_MAX): tuned reads any size, this refuses
 * what no profile needs rather than hold it in memory.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "textfile.h"
#include "tuned.h"

const char *const tuned_default_dirs[] = { "/etc/tuned", "/usr/lib/tuned", NULL };

int tuned_grow(void **p, size_t *allocated, size_t need, size_t size) {
        size_t n;
        void *q;

        if (need <= *allocated)
                return 0;
        n = MAX(need, *allocated * 2 + 4);
        q = reallocarray(*p, n, size);
        if (!q)
                return -ENOMEM;
        memset((char *) q + *allocated * size, 0, (n - *allocated) * size);
        *p = q;
        *allocated = n;
        return 0;
}

void tuned_option_done(TunedOption *o) {
        free(o->key);
        free(o->value);
        free(o->file);
        free(o->text);
        *o = (TunedOption) {};
}

int tuned_option_copy(const TunedOption *o, TunedOption *ret) {
        TunedOption c = {
                .key = strdup(o->key),
                .value = strdup(o->value),
                .file = o->file ? strdup(o->file) : NULL,
                .line = o->line,
                .text = o->text ? strdup(o->text) : NULL,
        };

        if (!c.key || !c.value || (o->file && !c.file) || (o->text && !c.text)) {
                tuned_option_done(&c);
                return -ENOMEM;
        }
        *ret = c;
        return 0;
}

void tuned_note_done(TunedNote *n) {
        free(n->file);
        free(n->text);
        free(n->reason);
        *n = (TunedNote) {};
}

int tuned_notes_add(TunedNote **notes, size_t *n, const TunedOption *from, const char *fmt, ...) {
        size_t allocated = *n;  /* callers keep no spare count: grow from the length */
        TunedNote note = {};
        va_list ap;
        int r;

        va_start(ap, fmt);
        r = vasprintf(&note.reason, fmt, ap);
        va_end(ap);
        if (r < 0)
                return -ENOMEM;
        if (from) {
                note.file = from->file ? strdup(from->file) : NULL;
                note.line = from->line;
                note.text = from->text ? strdup(from->text) : NULL;
                if ((from->file && !note.file) || (from->text && !note.text)) {
                        tuned_note_done(&note);
                        return -ENOMEM;
                }
        }
        r = tuned_grow((void **) notes, &allocated, *n + 1, sizeof(TunedNote));
        if (r < 0) {
                tuned_note_done(&note);
                return r;
        }
        (*notes)[(*n)++] = note;
        return 0;
}

const char *tuned_excerpt(const char *s, char buf[static TUNED_EXCERPT_SIZE]) {
        size_t n = TUNED_EXCERPT_MAX;

        if (strnlen(s, n + 1) <= n)
                return s;
        /* Cut before the first byte of a character that would be split. */
        while (n > 0 && ((unsigned char) s[n] & 0xC0) == 0x80)
                n--;
        memcpy(buf, s, n);
        strcpy(buf + n, "...");
        return buf;
}

int tuned_error(char **ret_error, int r, const char *file, unsigned line, const char *fmt, ...) {
        _cleanup_(freep) char *msg = NULL;
        va_list ap;
        int k;

        va_start(ap, fmt);
        k = vasprintf(&msg, fmt, ap);
        va_end(ap);
        if (k < 0)
                msg = NULL;
        free(*ret_error);
        *ret_error = NULL;
        if (line > 0)
                k = asprintf(ret_error, "%s:%u: %s", file, line, msg ?: strerror(-r));
        else
                k = asprintf(ret_error, "%s: %s", file, msg ?: strerror(-r));
        if (k < 0)
                *ret_error = NULL;
        return r;
}

static TunedSection *section_free_contents(TunedSection *s) {
        for (size_t i = 0; i < s->n_options; i++)
                tuned_option_done(&s->options[i]);
        free(s->options);
        free(s->name);
        return NULL;
}

TunedFile *tuned_file_free(TunedFile *f) {
        if (!f)
                return NULL;
        for (size_t i = 0; i < f->n_sections; i++)
                section_free_contents(&f->sections[i]);
        free(f->sections);
        free(f->path);
        free(f);
        return NULL;
}

TunedSection *tuned_file_section(TunedFile *f, const char *name) {
        for (size_t i = 0; i < f->n_sections; i++)
                if (streq(f->sections[i].name, name))
                        return &f->sections[i];
        return NULL;
}

/* Where an inline comment starts: the first '#' at the start or after a blank; NULL if none. */
static char *inline_comment(char *line) {
        for (char *p = strchr(line, '#'); p; p = strchr(p + 1, '#'))
                if (p == line || isspace((unsigned char) p[-1]))
                        return p;
        return NULL;
}

typedef struct Parser {
        TunedFile *file;
        size_t allocated_sections;
        size_t *allocated_options;      /* per section */
        TunedSection *section;          /* current, or NULL before the first header */
        TunedOption *option;            /* the option a continuation line extends, or NULL */
        size_t pending_blank;           /* blank lines inside a value, kept if it continues */
        size_t indent;                  /* of the last header or option line */
        bool variables;                 /* a variables file: a key without '=' is allowed (and unset) */
        char text[TUNED_LINE_MAX + 1];  /* the line being parsed, as written */
} Parser;

static int parser_section(Parser *p, const char *name) {
        TunedFile *f = p->file;
        size_t i;
        int r;

        for (i = 0; i < f->n_sections; i++)
                if (streq(f->sections[i].name, name))
                        break;
        if (i == f->n_sections) {
                size_t old = p->allocated_sections;

                r = tuned_grow((void **) &f->sections, &p->allocated_sections, i + 1, sizeof(TunedSection));
                if (r >= 0 && old != p->allocated_sections) {
                        size_t *a = reallocarray(p->allocated_options, p->allocated_sections, sizeof(size_t));
                        if (!a)
                                return -ENOMEM;
                        memset(a + old, 0, (p->allocated_sections - old) * sizeof(size_t));
                        p->allocated_options = a;
                }
                if (r < 0)
                        return r;
                f->sections[i].name = strdup(name);
                if (!f->sections[i].name)
                        return -ENOMEM;
                f->n_sections++;
        }
        p->section = &f->sections[i];
        return 0;
}

static int parser_option(Parser *p, const char *key, const char *value, unsigned line, const char *text) {
        TunedSection *s = p->section;
        size_t si = (size_t) (s - p->file->sections), i;
        TunedOption o = {
                .key = strdup(key),
                .value = strdup(value),
                .file = strdup(p->file->path),
                .line = line,
                .text = strdup(text),
        };
        int r;

        if (!o.key || !o.value || !o.file || !o.text) {
                tuned_option_done(&o);
                return -ENOMEM;
        }
        /* strict=False: a key set again takes the new value and keeps its first place. */
        for (i = 0; i < s->n_options; i++)
                if (streq(s->options[i].key, key))
                        break;
        if (i == s->n_options) {
                r = tuned_grow((void **) &s->options, &p->allocated_options[si], i + 1, sizeof(TunedOption));
                if (r < 0) {
                        tuned_option_done(&o);
                        return r;
                }
                s->n_options++;
        } else
                tuned_option_done(&s->options[i]);
        s->options[i] = o;
        p->option = &s->options[i];
        return 0;
}

/* Appends a continuation line to the open value; -E2BIG past TUNED_VALUE_MAX. */
static int parser_continue(Parser *p, const char *value) {
        TunedOption *o = p->option;
        size_t n = strlen(o->value), add = strlen(value);
        char *v;

        if (p->pending_blank > TUNED_VALUE_MAX || n + p->pending_blank + 1 + add > TUNED_VALUE_MAX)
                return -E2BIG;
        v = realloc(o->value, n + p->pending_blank + 1 + add + 1);
        if (!v)
                return -ENOMEM;
        for (size_t i = 0; i < p->pending_blank; i++)
                v[n++] = '\n';
        v[n++] = '\n';
        memcpy(v + n, value, add + 1);
        o->value = v;
        p->pending_blank = 0;
        return 0;
}

/* One line (at most TUNED_LINE_MAX bytes), newline removed. */
static int parse_line(Parser *p, char *line, unsigned lineno, char **ret_error) {
        const char *path = p->file->path;
        char *c, *value, *eq, *text, buf[TUNED_EXCERPT_SIZE];
        size_t indent;
        int r;

        text = textfile_strip(memcpy(p->text, line, strlen(line) + 1));
        c = inline_comment(line);
        if (c)
                *c = '\0';
        value = textfile_strip(line);
        if (startswith(text, "#") || startswith(text, ";"))
                return 0;       /* a comment line leaves a value open, as configparser does */
        if (!*value) {
                /* A blank line (not an inline comment alone) is part of a value that continues. */
                if (!c && p->option)
                        p->pending_blank++;
                return 0;
        }

        indent = (size_t) (value - line);
        if (p->section && p->option && indent > p->indent) {
                r = parser_continue(p, value);
                if (r == -E2BIG)
                        return tuned_error(ret_error, -EBADMSG, path, lineno,
                                           "the value of '%s' grows past %d bytes with this line",
                                           tuned_excerpt(p->option->key, buf), TUNED_VALUE_MAX);
                return r;
        }

        p->indent = indent;
        p->pending_blank = 0;
        if (value[0] == '[') {
                char *close = strrchr(value, ']');

                if (close && close > value + 1) {
                        *close = '\0';
                        if (streq(value + 1, "DEFAULT"))
                                return tuned_error(ret_error, -EBADMSG, path, lineno,
                                                   "[DEFAULT] sections are not supported by the import");
                        p->option = NULL;
                        return parser_section(p, value + 1);
                }
        }
        if (!p->section)
                return tuned_error(ret_error, -EBADMSG, path, lineno,
                                   "'%s' comes before any [section] header",
                                   tuned_excerpt(text, buf));
        eq = strchr(value, '=');
        if (!eq && p->variables) {
                p->option = NULL;
                return 0;
        }
        if (!eq)
                return tuned_error(ret_error, -EBADMSG, path, lineno,
                                   "'%s' is not a [section] header, a KEY = VALUE line or a comment",
                                   tuned_excerpt(text, buf));
        *eq = '\0';
        if (!*textfile_strip(value))
                return tuned_error(ret_error, -EBADMSG, path, lineno, "'%s' has no key before '='",
                                   tuned_excerpt(text, buf));
        return parser_option(p, textfile_strip(value), textfile_strip(eq + 1), lineno, text);
}

/* One line of f into line, newline removed: 1, 0 at the end of the file, -E2BIG past TUNED_LINE_MAX, -errno. */
static int read_line(FILE *f, char line[static TUNED_LINE_MAX + 1], size_t *ret_len) {
        size_t n = 0;
        int c;

        errno = 0;
        while ((c = getc_unlocked(f)) != EOF && c != '\n') {
                if (n == TUNED_LINE_MAX)
                        return -E2BIG;
                line[n++] = (char) c;
        }
        if (ferror(f))
                return errno > 0 ? -errno : -EIO;
        if (c == EOF && n == 0)
                return 0;
        line[n] = '\0';
        *ret_len = n;
        return 1;
}

static int parse(const char *path, FILE *f, bool variables, TunedFile **ret, char **ret_error) {
        _cleanup_(tuned_file_freep) TunedFile *file = NULL;
        _cleanup_(freep) Parser *p = NULL;
        char line[TUNED_LINE_MAX + 1];
        unsigned lineno = 0;
        size_t n;
        int r = 0;

        file = calloc(1, sizeof(TunedFile));
        p = calloc(1, sizeof(Parser));
        if (!file || !p)
                return -ENOMEM;
        file->path = strdup(path);
        if (!file->path)
                return -ENOMEM;
        p->file = file;
        p->variables = variables;
        /* tuned reads a variables file behind a section header of its own. */
        if (variables)
                r = parser_section(p, "variables");

        while (r >= 0 && (r = read_line(f, line, &n)) > 0) {
                lineno++;
                while (n > 0 && line[n - 1] == '\r')
                        line[--n] = '\0';
                if (memchr(line, '\0', n))
                        r = tuned_error(ret_error, -EBADMSG, path, lineno, "a NUL byte in the line");
                else
                        r = parse_line(p, line, lineno, ret_error);
        }
        free(p->allocated_options);
        if (r == -E2BIG)
                return tuned_error(ret_error, -EBADMSG, path, lineno + 1, "line too long (more than %d bytes)",
                                   TUNED_LINE_MAX);
        if (r == -ENOMEM || r == -EBADMSG)
                return r;
        if (r < 0)
                return tuned_error(ret_error, r, path, 0, "cannot read: %s", strerror(-r));

        *ret = TAKE_PTR(file);
        return 0;
}

int tuned_file_parse(const char *path, FILE *f, TunedFile **ret, char **ret_error) {
        return parse(path, f, false, ret, ret_error);
}

int tuned_variables_file_parse(const char *path, FILE *f, TunedFile **ret, char **ret_error) {
        return parse(path, f, true, ret, ret_error);
}
