/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tuned-map.c: what of a merged tuned profile netpolld can set, and the
 * netpolld profile that sets it. A tuned [sysctl] key maps when a global
 * knob of the catalog (daemon/kernel/knob.c, the one table of knobs) has
 * exactly its /proc/sys file, and only with a value netpolld writes as the
 * same text tuned writes; everything else is a note for the report.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "conf-parser.h"
#include "knob.h"
#include "strv.h"
#include "tuned-import.h"

/* Every line of the output is one netpolld reads (CONF_LINE_MAX): comments wrap, the name is bounded. */
#define COMMENT_WIDTH 160
#define COMMENT_INDENT "#     "
#define HEADER_FMT "# Imported from the tuned profile \"%s\" by netpollctl profile import-tuned.\n"
#define DESCRIPTION_FMT "description = Imported from tuned profile %s\n"
/* The length of a one-"%s" format's line (its "%s" and newline left out) with a name of n bytes. */
#define LINE_LEN(fmt, n) (sizeof(fmt) - 1 - 3 + (n))
_Static_assert(sizeof(COMMENT_INDENT) - 1 + COMMENT_WIDTH < CONF_LINE_MAX, "comment lines too long for netpolld");
_Static_assert(LINE_LEN(HEADER_FMT, TUNED_NAME_MAX) < CONF_LINE_MAX, "TUNED_NAME_MAX too long for netpolld");
_Static_assert(LINE_LEN(DESCRIPTION_FMT, TUNED_NAME_MAX) < CONF_LINE_MAX, "TUNED_NAME_MAX too long for netpolld");

TunedImport *tuned_import_free(TunedImport *imp) {
        if (!imp)
                return NULL;
        for (size_t i = 0; i < imp->n_knobs; i++) {
                free(imp->knobs[i].value);
                free(imp->knobs[i].kernel);
                tuned_option_done(&imp->knobs[i].origin);
        }
        free(imp->knobs);
        for (size_t i = 0; i < imp->n_skipped; i++)
                tuned_note_done(&imp->skipped[i]);
        free(imp->skipped);
        free(imp);
        return NULL;
}

/* The file tuned writes for a sysctl KEY: /proc/sys/ + KEY with '.' as '/'. Caller frees. */
static char *sysctl_path(const char *key) {
        char *path;

        if (asprintf(&path, "/proc/sys/%s", key) < 0)
                return NULL;
        for (char *p = path; *p; p++)
                if (*p == '.')
                        *p = '/';
        return path;
}

/* The global knob of the catalog whose kernel file is path, or NULL. */
static const KnobDesc *knob_of_path(const char *path) {
        for (size_t i = 0; i < knob_catalog_size; i++)
                if (knob_catalog[i].scope == KNOB_GLOBAL && streq(knob_catalog[i].path, path))
                        return &knob_catalog[i];
        return NULL;
}

/* A decimal the kernel reads as netpolld writes it: no sign, no leading zero (octal to the kernel), no inner blank. */
static bool plain_decimal(const char *s) {
        size_t n = strlen(s);

        return n > 0 && strspn(s, "0123456789") == n && (s[0] != '0' || n == 1);
}

/* A tuned entry that is not imported, and why. */
#define note(imp, o, ...) tuned_notes_add(&(imp)->skipped, &(imp)->n_skipped, (o), __VA_ARGS__)

/* Sets d to value (kernel: what netpolld writes) from o; takes value and kernel only on success. */
static int add_knob(TunedImport *imp, const KnobDesc *d, char *value, char *kernel, const TunedOption *o) {
        size_t allocated = imp->n_knobs;
        TunedOption origin;
        TunedKnob *k = NULL;
        int r;

        r = tuned_option_copy(o, &origin);
        if (r < 0)
                return r;
        for (size_t i = 0; i < imp->n_knobs && !k; i++)
                if (imp->knobs[i].knob == d->name)
                        k = &imp->knobs[i];
        if (k) {
                /* Two keys for one file (net.core.x and net/core/x): tuned writes both, the later stays. */
                r = note(imp, &k->origin, "overridden by %s:%u, which writes the same file", o->file, o->line);
                if (r < 0) {
                        tuned_option_done(&origin);
                        return r;
                }
                free(k->value);
                free(k->kernel);
                tuned_option_done(&k->origin);
        } else {
                r = tuned_grow((void **) &imp->knobs, &allocated, imp->n_knobs + 1, sizeof(TunedKnob));
                if (r < 0) {
                        tuned_option_done(&origin);
                        return r;
                }
                k = &imp->knobs[imp->n_knobs++];
        }
        *k = (TunedKnob) { .knob = d->name, .value = value, .kernel = kernel, .origin = origin };
        return 0;
}

static int map_sysctl(TunedImport *imp, const TunedProfile *p, const TunedOption *o) {
        _cleanup_(freep) char *raw = NULL, *value = NULL, *reason = NULL, *text = NULL, *kernel = NULL,
                              *expected = NULL, *path = sysctl_path(o->key);
        const KnobDesc *d = path ? knob_of_path(path) : NULL;
        const char *why = NULL;
        char buf[TUNED_EXCERPT_SIZE];
        KnobValue v, again;
        size_t n;
        char *t;
        int r;

        if (!path)
                return -ENOMEM;
        if (!d)
                return note(imp, o, "no netpolld knob writes %s", path);

        raw = tuned_unquote(o->value);
        if (!raw)
                return -ENOMEM;
        r = tuned_expand(&p->vars, raw, &value, &reason);
        if (r == -EOPNOTSUPP)
                return note(imp, o, "%s: %s", d->name, reason);
        if (r == -E2BIG)
                return note(imp, o, "%s: the value expands to more than %d bytes", d->name, TUNED_VALUE_MAX);
        if (r < 0)
                return r;
        if (strlen(value) > 1 && (value[0] == '<' || value[0] == '>'))
                return note(imp, o, "%s: tuned writes %s only when it is %s than the value the kernel holds; "
                            "netpolld sets values unconditionally", d->name, tuned_excerpt(value + 1, buf),
                            value[0] == '>' ? "greater" : "less");

        /* The kernel skips blanks around the number, so they change nothing. */
        t = value;
        while (isspace((unsigned char) *t))
                t++;
        for (n = strlen(t); n > 0 && isspace((unsigned char) t[n - 1]); n--)
                t[n - 1] = '\0';
        if (!plain_decimal(t))
                return note(imp, o, "%s: '%s' is not one plain decimal number, which is all netpolld writes "
                            "to %s", d->name, tuned_excerpt(value, buf), d->path);

        if (knob_parse_kernel(d, t, &v) < 0)
                return note(imp, o, "%s: '%s' cannot be read as the kernel's value", d->name,
                            tuned_excerpt(t, buf));
        text = knob_format_value(d, &v);
        if (!text)
                return -ENOMEM;
        if (knob_parse_value(d, text, &again, &why) < 0) {
                expected = knob_expected(d);
                return note(imp, o, "%s: %s is %s for netpolld (expected %s)", d->name, t, strempty(why),
                            strempty(expected));
        }
        kernel = knob_format_kernel(d, &again);
        if (!kernel)
                return -ENOMEM;
        if (!streq(kernel, t))
                return note(imp, o, "%s: netpolld would write %s where tuned writes %s", d->name, kernel, t);

        r = add_knob(imp, d, text, kernel, o);
        if (r >= 0)
                text = kernel = NULL;
        return r;
}

static int map_unit(TunedImport *imp, const TunedProfile *p, const TunedUnit *u) {
        int r = 0;

        for (size_t i = 0; r >= 0 && i < u->n_options; i++) {
                const TunedOption *o = &u->options[i];

                if (!u->enabled)
                        r = note(imp, o, "[%s] has enabled=%s: tuned does not apply it either", u->name, "false");
                else if (!streq(u->type, "sysctl"))
                        r = note(imp, o, "tuned's %s plugin ([%s]): netpolld has no equivalent", u->type, u->name);
                else if (u->condition)
                        r = note(imp, o, "[%s] applies only where %s matches the host (%s:%u); not decided offline",
                                 u->name, u->condition->key, u->condition->file, u->condition->line);
                else
                        r = map_sysctl(imp, p, o);
        }
        return r;
}

int tuned_import(const TunedProfile *p, TunedImport **ret) {
        _cleanup_(tuned_import_freep) TunedImport *imp = calloc(1, sizeof(TunedImport));
        int r = 0;

        if (!imp)
                return -ENOMEM;
        for (size_t i = 0; r >= 0 && i < p->n_notes; i++) {
                TunedOption from = { .file = p->notes[i].file, .line = p->notes[i].line, .text = p->notes[i].text };
                r = tuned_notes_add(&imp->skipped, &imp->n_skipped, p->notes[i].file ? &from : NULL, "%s",
                                    p->notes[i].reason);
        }
        for (size_t i = 0; r >= 0 && i < p->n_units; i++)
                r = map_unit(imp, p, &p->units[i]);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(imp);
        return 0;
}

/* "# PREFIXTEXT" wrapped so that no line is longer than netpolld reads; continuation lines indented. */
static void comment(FILE *f, const char *prefix, const char *text) {
        _cleanup_(freep) char *full = NULL;
        size_t n;

        if (asprintf(&full, "%s%s", prefix, text) < 0)
                return;
        n = strlen(full);
        fputs("# ", f);
        for (size_t i = 0; i < n; i++) {
                if (i > 0 && i % COMMENT_WIDTH == 0)
                        fputs("\n" COMMENT_INDENT, f);
                fputc(full[i] == '\n' || full[i] == '\r' ? ' ' : full[i], f);
        }
        fputc('\n', f);
}

static void comment_origin(FILE *f, const char *file, unsigned line, const char *text) {
        _cleanup_(freep) char *where = NULL;

        if (!file) {
                comment(f, "", text ?: "");
                return;
        }
        if (asprintf(&where, "%s:%u: ", file, line) < 0)
                where = NULL;
        comment(f, where ?: "", text ?: "");
}

char *tuned_import_format(const TunedImport *imp, const TunedProfile *p) {
        /* tuned_profile_load() refuses longer names; cut all the same, so no line is one netpolld refuses. */
        _cleanup_(freep) char *files = strv_join(p->files, ", "), *name = strndup(p->name, TUNED_NAME_MAX);
        char *buf = NULL;
        size_t size = 0;
        FILE *f;

        if (!files || !name)
                return NULL;
        /* The description is one INI value: keep it to characters that cannot end or comment it. */
        for (char *c = name; *c; c++)
                if (!isalnum((unsigned char) *c) && !strchr("_.-", *c))
                        *c = '_';

        f = open_memstream(&buf, &size);
        if (!f)
                return NULL;
        fprintf(f, HEADER_FMT, name);
        comment(f, "tuned files read: ", files);
        if (p->summary)
                comment(f, "tuned summary: ", p->summary);
        fputs("# Each knob below sets the kernel file to the number tuned writes; the line above it\n"
              "# names the tuned line it comes from. Adaptive control is off (netpolld's default),\n"
              "# so netpolld holds these values as tuned does.\n\n", f);
        fprintf(f, "[profile]\n" DESCRIPTION_FMT, name);
        if (imp->n_knobs > 0)
                fputs("\n[knobs]\n", f);
        for (size_t i = 0; i < imp->n_knobs; i++) {
                const TunedKnob *k = &imp->knobs[i];

                comment_origin(f, k->origin.file, k->origin.line, k->origin.text);
                fprintf(f, "%s = %s\n", k->knob, k->value);
        }
        fprintf(f, "\n# Not imported: %zu tuned entr%s without a netpolld equivalent or not reproducible offline.\n",
                imp->n_skipped, imp->n_skipped == 1 ? "y" : "ies");
        for (size_t i = 0; i < imp->n_skipped; i++) {
                const TunedNote *n = &imp->skipped[i];

                comment_origin(f, n->file, n->line, n->text);
                comment(f, "    ", n->reason);
        }
        if (fclose(f) != 0) {
                free(buf);
                return NULL;
        }
        return buf;
}
