/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * conf-parser.c: one INI file through libinih. inih stops at the first bad
 * line and splits or joins lines in ways a person would not expect, so its
 * line reader is ours: it numbers lines, refuses long ones and NULs, strips
 * indentation (never a continuation) and reports every malformed line itself
 * before inih sees it. The key handler looks each key up in the FileSpec's
 * table, validates its value into the target and records it as an Entry.
 */
#include "conf-parser.h"

#include <ctype.h>
#include <errno.h>
#include <ini.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strv.h"

int conf_push_error(char ***errors, const char *file, unsigned line, const char *section, const char *key,
                    const char *fmt, ...) {
        _cleanup_(freep) char *msg = NULL;
        char where[24] = "";
        va_list ap;
        int r;

        va_start(ap, fmt);
        r = vasprintf(&msg, fmt, ap);
        va_end(ap);
        if (r < 0) {
                msg = NULL;
                return -ENOMEM;
        }
        if (line > 0)
                snprintf(where, sizeof(where), ":%u", line);
        if (section && key)
                return strv_extendf(errors, "%s%s: [%s] %s: %s", file, where, section, key, msg);
        if (section)
                return strv_extendf(errors, "%s%s: [%s]: %s", file, where, section, msg);
        if (key)
                return strv_extendf(errors, "%s%s: %s: %s", file, where, key, msg);
        return strv_extendf(errors, "%s%s: %s", file, where, msg);
}

int conf_return_errors(int r, char **errors, char ***ret_errors) {
        if (r < 0 && r != -ENOMEM && ret_errors) {
                *ret_errors = errors;
                return r;
        }
        strv_free(errors);
        if (r >= 0 && ret_errors)
                *ret_errors = NULL;
        return r;
}

int conf_list_append(char **list, const char *word) {
        char *n;

        if (asprintf(&n, "%s%s%s", strempty(*list), *list ? ", " : "", word) < 0)
                return -ENOMEM;
        free(*list);
        *list = n;
        return 0;
}

/* ---- the key table ---------------------------------------------------------- */

static const ConfigItem *find_item(const ConfigItem *items, const char *section, const char *key) {
        for (; items->section; items++)
                if (streq(items->section, section) && streq(items->key, key))
                        return items;
        return NULL;
}

/* "a, b, c": the keys a section accepts, for the unknown-key message. */
static char *item_keys(const ConfigItem *items, const char *section) {
        char *s = NULL;

        for (; items->section; items++)
                if (streq(items->section, section) && conf_list_append(&s, items->key) < 0) {
                        free(s);
                        return NULL;
                }
        return s ?: strdup("");
}

void *config_item_field(const ConfigItem *it, void *target) {
        return it->offset == CONF_NO_FIELD ? NULL : (uint8_t *)target + it->offset;
}

/* ---- entries -------------------------------------------------------------- */

void entry_done(Entry *e) {
        free(e->key);
        free(e->instance);
        free(e->value);
        free(e->file);
        *e = (Entry){};
}

void entry_list_done(EntryList *l) {
        for (size_t i = 0; i < l->n; i++)
                entry_done(&l->v[i]);
        free(l->v);
        *l = (EntryList){};
}

Entry *entry_list_find_in(const EntryList *l, const char *section, const char *instance, const char *key) {
        for (size_t i = 0; i < l->n; i++)
                if (l->v[i].key && streq(l->v[i].section, section) && streq(l->v[i].key, key) &&
                    (instance ? l->v[i].instance && streq(l->v[i].instance, instance) : !l->v[i].instance))
                        return &l->v[i];
        return NULL;
}

Entry *entry_list_find(const EntryList *l, const char *section, const char *key) {
        return entry_list_find_in(l, section, NULL, key);
}

const char *conf_named_section(const FileSpec *spec, const char *section) {
        const char *rest;

        if (!spec->named || !(rest = startswith(section, spec->named)) || (*rest != ' ' && *rest != '\t'))
                return NULL;
        return rest + strspn(rest, " \t");
}

int entry_list_add(EntryList *l, Entry *e) {
        Entry *v = realloc(l->v, (l->n + 1) * sizeof(Entry));

        if (!v) {
                entry_done(e);
                return -ENOMEM;
        }
        v[l->n++] = *e;
        l->v = v;
        *e = (Entry){};
        return 0;
}

/* ---- one file through libinih ----------------------------------------------- */

typedef struct Parser {
        const FileSpec *spec;
        const char *file;
        FILE *f;
        char *buf;
        size_t size;
        unsigned line;      /* of the line inih is working on */
        bool in_section;    /* a [header] was seen */
        bool section_known; /* ...and it named a known section (or a named one that was accepted) */
        void *target;
        void *key_target;   /* where the current key goes: target, or a named section's structure */
        EntryList *entries;
        char ***errors;
        int r; /* first read or allocation failure */
} Parser;

static bool spec_has_section(const FileSpec *spec, const char *name) {
        for (const char *const *s = spec->sections; *s; s++)
                if (streq(*s, name))
                        return true;
        return false;
}

/* Where inih's line scanner stops: at one of chars, or at a ';' comment after whitespace. */
static const char *find_chars_or_comment(const char *s, const char *chars) {
        bool was_space = false;

        for (; *s && !strchr(chars, *s) && !(was_space && *s == ';'); s++)
                was_space = isspace((unsigned char)*s);
        return s;
}

/* A "[WORD NAME]" header: the FileSpec accepts or refuses NAME. 0 or -ENOMEM (problems are pushed). */
static int open_named(Parser *p, const char *section) {
        _cleanup_(freep) char *msg = NULL;
        int r;

        r = p->spec->open_named(p->target, conf_named_section(p->spec, section), p->file, p->line, &msg);
        p->section_known = r >= 0;
        if (r == -EINVAL)
                return conf_push_error(p->errors, p->file, p->line, section, NULL, "%s", msg);
        return r < 0 ? r : 0;
}

/* Mirrors inih's view of a line to report every bad line (inih returns only the first); "" hides it from inih. */
static const char *classify_line(Parser *p, const char *s) {
        const char *end;
        char *name;
        int r;

        if (!*s || *s == ';' || *s == '#')
                return s;
        if (*s == '[') {
                end = find_chars_or_comment(s + 1, "]");
                if (*end != ']')
                        goto syntax;
                name = strndup(s + 1, (size_t)(end - s - 1));
                if (!name) {
                        p->r = -ENOMEM;
                        return "";
                }
                p->in_section = true;
                p->section_known = spec_has_section(p->spec, name);
                if (!p->section_known && conf_named_section(p->spec, name))
                        r = open_named(p, name);
                else
                        r = p->section_known ? 0
                                             : conf_push_error(p->errors, p->file, p->line, name, NULL,
                                                               "unknown section (expected %s)",
                                                               p->spec->sections_text);
                free(name);
                if (r < 0)
                        p->r = r;
                return s;
        }
        end = find_chars_or_comment(s, "=:");
        if (*end == '=' || *end == ':')
                return s;
syntax:
        r = conf_push_error(p->errors, p->file, p->line, NULL, NULL, "expected 'key = value' or '[section]'");
        if (r < 0)
                p->r = r;
        return "";
}

/* inih's fgets-style reader: counts lines, refuses long ones, and strips indentation so it is never a continuation. */
static char *reader(char *str, int num, void *stream) {
        Parser *p = stream;
        const char *s;
        ssize_t n;
        int r = 0;

        if (p->r < 0)
                return NULL;
        errno = 0;
        n = getline(&p->buf, &p->size, p->f);
        if (n < 0) {
                if (ferror(p->f))
                        p->r = negative_errno();
                return NULL;
        }
        p->line++;
        if (n > 0 && p->buf[n - 1] == '\n')
                p->buf[--n] = '\0';
        if (n > 0 && p->buf[n - 1] == '\r')
                p->buf[--n] = '\0';
        s = p->buf;
        if (p->line == 1 && startswith(s, "\xEF\xBB\xBF"))
                s += 3;
        while (isspace((unsigned char)*s))
                s++;
        if (n >= CONF_LINE_MAX || strlen(s) + 1 > (size_t)num) {
                r = conf_push_error(p->errors, p->file, p->line, NULL, NULL, "line too long (at most %d characters)",
                                    CONF_LINE_MAX - 1);
                s = "";
        } else if (strlen(p->buf) != (size_t)n) {
                r = conf_push_error(p->errors, p->file, p->line, NULL, NULL, "line contains a NUL character");
                s = "";
        } else
                s = classify_line(p, s);
        if (r < 0)
                p->r = r;
        memmove(str, s, strlen(s) + 1);
        return str;
}

/* Fills in e's key from a [knobs] name: the canonical knob reference. 0, -ENOMEM, or 1 when reported. */
static int knob_key(Parser *p, const char *section, const char *name, Entry *e) {
        const char *reason = "";
        char buf[64];
        int r;

        r = knob_ref_parse(name, &e->ref, &reason);
        if (r == -ENOENT)
                r = conf_push_error(p->errors, p->file, p->line, section, name, "unknown knob (see `netpollctl list`)");
        else if (r < 0) /* knob.c's reasons read as "<knob> is per device: ..." */
                r = conf_push_error(p->errors, p->file, p->line, section, name, "%s%s",
                                    startswith(reason, "is ") ? "knob " : "", reason);
        else {
                e->section = "knobs";
                e->key = strdup(knob_ref_format(&e->ref, buf, sizeof(buf)));
                return e->key ? 0 : -ENOMEM;
        }
        return r < 0 ? r : 1;
}

/* Fills in e's item and key from the table. 0, -ENOMEM, or 1 when reported. */
static int table_key(Parser *p, const char *section, const char *name, Entry *e) {
        _cleanup_(freep) char *keys = NULL;
        const char *instance = conf_named_section(p->spec, section), *table = instance ? p->spec->named : section;
        const ConfigItem *items = instance ? p->spec->named_items : p->spec->items;
        int r;

        p->key_target = p->target;
        if (instance) {
                p->key_target = p->spec->named_target(p->target, instance);
                if (!(e->instance = strdup(instance)))
                        return -ENOMEM;
        }
        e->item = find_item(items, table, name);
        if (!e->item) {
                keys = item_keys(items, table);
                if (!keys)
                        return -ENOMEM;
                r = conf_push_error(p->errors, p->file, p->line, section, name, "unknown key (expected one of: %s)",
                                    keys);
                return r < 0 ? r : 1;
        }
        e->section = e->item->section;
        e->key = strdup(e->item->key);
        return e->key ? 0 : -ENOMEM;
}

/* Validates value into e (and, for table keys, into the target); -EINVAL with *ret_msg. */
static int parse_value(Parser *p, Entry *e, const char *value, char **ret_msg) {
        _cleanup_(freep) char *expected = NULL;
        const char *reason = "";

        if (e->item)
                return e->item->parse(e->item, value, config_item_field(e->item, p->key_target), ret_msg);
        if (knob_parse_value(e->ref.desc, value, &e->kv, &reason) >= 0)
                return 0;
        expected = knob_expected(e->ref.desc);
        return expected ? conf_msgf(ret_msg, "invalid value '%s': %s; expected %s", value, reason, expected)
                        : -ENOMEM;
}

static int handle_key(Parser *p, const char *section, const char *name, const char *value) {
        _cleanup_(freep) char *msg = NULL;
        Entry e = { .line = p->line };
        const Entry *first;
        int r;

        if (!p->in_section)
                return conf_push_error(p->errors, p->file, p->line, NULL, name,
                                       "key before the first [section] header");
        if (!p->section_known)
                return 0; /* the header was reported already */
        r = p->spec->knobs && streq(section, "knobs") ? knob_key(p, section, name, &e)
                                                      : table_key(p, section, name, &e);
        if (r != 0) {
                entry_done(&e);
                return r < 0 ? r : 0;
        }
        first = entry_list_find_in(p->entries, e.section, e.instance, e.key);
        if (first) {
                r = conf_push_error(p->errors, p->file, p->line, section, name, "set twice (first on line %u)",
                                    first->line);
                entry_done(&e);
                return r;
        }
        r = parse_value(p, &e, value, &msg);
        if (r == -EINVAL)
                r = conf_push_error(p->errors, p->file, p->line, section, name, "%s", msg);
        else
                e.valid = r >= 0;
        e.value = strdup(value);
        e.file = strdup(p->file);
        if (r < 0 || !e.value || !e.file) {
                entry_done(&e);
                return r < 0 ? r : -ENOMEM;
        }
        return entry_list_add(p->entries, &e);
}

static int handler(void *user, const char *section, const char *name, const char *value) {
        Parser *p = user;
        int r;

        /* NULLs come only from inih build options (new-section calls, no-value keys) this code does not use. */
        if (!name || !value)
                return 1;
        if (p->r >= 0 && (r = handle_key(p, section, name, value)) < 0)
                p->r = r;
        return 1; /* every problem is collected by us; inih's own error return is for syntax only */
}

int conf_parse_file(const FileSpec *spec, const char *file, void *target, EntryList *entries, char ***errors) {
        Parser p = { .spec = spec, .file = file, .target = target, .entries = entries, .errors = errors };
        int r;

        p.f = fopen(file, "re");
        if (!p.f)
                return negative_errno();
        r = ini_parse_stream(reader, &p, handler, &p);
        fclose(p.f);
        free(p.buf);
        if (p.r == -ENOMEM || r == -2)
                return -ENOMEM;
        if (p.r < 0)
                return conf_push_error(errors, file, 0, NULL, NULL, "cannot read: %s", strerror(-p.r));
        if (r > 0) /* a line classify_line() let through; not expected, but never lose it */
                return conf_push_error(errors, file, (unsigned)r, NULL, NULL, "expected 'key = value' or '[section]'");
        return 0;
}
