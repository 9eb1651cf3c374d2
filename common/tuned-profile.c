/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tuned-profile.c: a tuned profile as tuned 2.20's loader builds it: the
 * file found by name in the search directories, its include= chain loaded
 * first (depth first, in order), each profile merged over the ones before
 * it (a unit's options updated, or replaced with replace=1, drop= removing
 * inherited keys), then [variables] defined and ${i:PROFILE_DIR} expanded.
 * Where tuned would silently skip something (a missing optional include,
 * an include it cannot expand) the profile gets a note instead.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "strv.h"
#include "textfile.h"
#include "tuned.h"

typedef struct Loader {
        char *const *dirs;
        char **processed;       /* files loaded, as tuned's processed_files */
        char **stack;           /* the include chain being loaded, for loops */
        TunedProfile *p;
        size_t allocated_units;
        char **ret_error;
} Loader;

static void unit_done(TunedUnit *u) {
        for (size_t i = 0; i < u->n_options; i++)
                tuned_option_done(&u->options[i]);
        free(u->options);
        if (u->condition) {
                tuned_option_done(u->condition);
                free(u->condition);
        }
        free(u->name);
        free(u->type);
        free(u->drop);
        *u = (TunedUnit) {};
}

TunedProfile *tuned_profile_free(TunedProfile *p) {
        if (!p)
                return NULL;
        for (size_t i = 0; i < p->n_units; i++)
                unit_done(&p->units[i]);
        free(p->units);
        for (size_t i = 0; i < p->n_notes; i++)
                tuned_note_done(&p->notes[i]);
        free(p->notes);
        tuned_vars_done(&p->vars);
        strv_free(p->files);
        free(p->summary);
        free(p->name);
        free(p);
        return NULL;
}

/* Lexical clean-up of a path like os.path.normpath for what matters here: "//" and "/./". */
static char *normpath(const char *path) {
        char *s = strdup(path), *w = s;

        if (!s)
                return NULL;
        for (const char *r = path; *r; r++) {
                if (*r == '/' && (r[1] == '/' || (r[1] == '.' && (r[2] == '/' || !r[2])))) {
                        if (r[1] == '.')
                                r++;
                        continue;
                }
                *w++ = *r;
        }
        *w = '\0';
        if (w > s + 1 && w[-1] == '/')
                w[-1] = '\0';
        return s;
}

static bool is_file(const char *path) {
        struct stat st;
        return stat(path, &st) >= 0 && S_ISREG(st.st_mode);
}

/* Replaces every ${i:PROFILE_DIR} not preceded by '\' with dir, in place. */
static int expand_profile_dir(char **value, const char *dir) {
        static const char ref[] = "${i:PROFILE_DIR}";
        char *p = *value;

        while ((p = strstr(p, ref))) {
                size_t at = (size_t) (p - *value);
                char *n;

                if (at > 0 && p[-1] == '\\') {
                        p++;
                        continue;
                }
                if (asprintf(&n, "%.*s%s%s", (int) at, *value, dir, p + strlen(ref)) < 0)
                        return -ENOMEM;
                free(*value);
                *value = n;
                p = n + at + strlen(dir);
        }
        return 0;
}

/* Takes key out of s's options (tuned pops the unit's own keys); *ret NULL when absent. */
static void pop_option(TunedSection *s, const char *key, TunedOption *ret) {
        *ret = (TunedOption) {};
        for (size_t i = 0; i < s->n_options; i++)
                if (streq(s->options[i].key, key)) {
                        *ret = s->options[i];
                        memmove(s->options + i, s->options + i + 1, (s->n_options - i - 1) * sizeof(TunedOption));
                        s->n_options--;
                        return;
                }
}

static bool py_true(const TunedOption *o, bool dflt) {
        if (!o->key)
                return dflt;
        return streq(o->value, "True") || streq(o->value, "true") || streq(o->value, "1");
}

/* A unit from a section; the section's options move into it. *ret untouched on failure. */
static int unit_from_section(TunedSection *s, TunedUnit *ret) {
        static const char *const dropped[] = { "devices", "devices_udev_regex", "script_pre", "script_post" };
        TunedOption type, enabled, replace, drop, cond, other;
        TunedUnit u = {};
        int r = 0;

        pop_option(s, "type", &type);
        pop_option(s, "enabled", &enabled);
        pop_option(s, "replace", &replace);
        pop_option(s, "drop", &drop);
        u.name = strdup(s->name);
        u.type = strdup(type.key ? type.value : s->name);
        u.enabled = py_true(&enabled, true);
        u.replace = py_true(&replace, false);
        u.drop = drop.key ? strdup(drop.value) : NULL;
        if (!u.name || !u.type || (drop.key && !u.drop))
                r = -ENOMEM;
        tuned_option_done(&type);
        tuned_option_done(&enabled);
        tuned_option_done(&replace);
        tuned_option_done(&drop);
        for (size_t i = 0; i < 2; i++) {
                pop_option(s, i == 0 ? "cpuinfo_regex" : "uname_regex", &cond);
                if (cond.key && !u.condition) {
                        u.condition = malloc(sizeof(TunedOption));
                        if (!u.condition) {
                                tuned_option_done(&cond);
                                r = -ENOMEM;
                                continue;
                        }
                        *u.condition = cond;
                } else
                        tuned_option_done(&cond);
        }
        for (size_t i = 0; i < ELEMENTSOF(dropped); i++) {
                pop_option(s, dropped[i], &other);
                tuned_option_done(&other);
        }
        u.options = TAKE_PTR(s->options);
        u.n_options = s->n_options;
        s->n_options = 0;
        if (r < 0) {
                unit_done(&u);
                return r;
        }
        *ret = u;
        return 0;
}

static TunedUnit *find_unit(TunedProfile *p, const char *name) {
        for (size_t i = 0; i < p->n_units; i++)
                if (streq(p->units[i].name, name))
                        return &p->units[i];
        return NULL;
}

static void unit_remove_option(TunedUnit *u, const char *key) {
        for (size_t i = 0; i < u->n_options; i++)
                if (streq(u->options[i].key, key)) {
                        tuned_option_done(&u->options[i]);
                        memmove(u->options + i, u->options + i + 1, (u->n_options - i - 1) * sizeof(TunedOption));
                        u->n_options--;
                        return;
                }
}

/* drop= names, split at ',' or ';' with blanks around, as tuned splits them. 0 or -ENOMEM. */
static int unit_drop(TunedUnit *into, const char *drop) {
        _cleanup_(freep) char *copy = strdup(drop);
        char *save = NULL;

        if (!copy)
                return -ENOMEM;
        for (char *k = strtok_r(copy, ",;", &save); k; k = strtok_r(NULL, ",;", &save)) {
                k += strspn(k, " \t");
                k[strcspn(k, " \t")] = '\0';
                unit_remove_option(into, k);
        }
        return 0;
}

/* Merges u (taken) over the profile's units, as tuned's merger does for the next profile. */
static int merge_unit(Loader *l, TunedUnit *u) {
        TunedProfile *p = l->p;
        TunedUnit *into = find_unit(p, u->name);
        size_t allocated;
        int r;

        if (!into || u->replace) {
                if (into)
                        unit_done(into);
                else {
                        r = tuned_grow((void **) &p->units, &l->allocated_units, p->n_units + 1, sizeof(TunedUnit));
                        if (r < 0)
                                return r;
                        into = &p->units[p->n_units++];
                }
                *into = *u;
                *u = (TunedUnit) {};
                return 0;
        }

        free(into->type);
        into->type = TAKE_PTR(u->type);
        into->enabled = u->enabled;
        if (u->condition) {
                if (into->condition) {
                        tuned_option_done(into->condition);
                        free(into->condition);
                }
                into->condition = TAKE_PTR(u->condition);
        }
        if (u->drop) {
                r = unit_drop(into, u->drop);
                if (r < 0)
                        return r;
        }

        allocated = into->n_options;
        for (size_t i = 0; i < u->n_options; i++) {
                TunedOption *o = NULL;

                for (size_t j = 0; j < into->n_options && !o; j++)
                        if (streq(into->options[j].key, u->options[i].key))
                                o = &into->options[j];
                if (!o) {
                        r = tuned_grow((void **) &into->options, &allocated, into->n_options + 1, sizeof(TunedOption));
                        if (r < 0)
                                return r;
                        o = &into->options[into->n_options++];
                } else
                        tuned_option_done(o);
                *o = u->options[i];
                u->options[i] = (TunedOption) {};
        }
        unit_done(u);
        return 0;
}

static int load_name(Loader *l, const char *name, const TunedOption *from);

/* include= of one file: expanded like tuned (no variables are defined yet), split, each loaded in order. */
static int load_includes(Loader *l, const TunedOption *inc) {
        _cleanup_(freep) char *value = NULL, *reason = NULL;
        TunedVars none = {};
        char *save = NULL;
        int r;

        r = tuned_expand(&none, inc->value, &value, &reason);
        if (r == -EOPNOTSUPP)
                return tuned_notes_add(&l->p->notes, &l->p->n_notes, inc,
                                       "include not followed: %s; its settings are missing from the import", reason);
        if (r == -E2BIG)
                return tuned_error(l->ret_error, r, inc->file, inc->line, "include= expands to more than %d bytes",
                                   TUNED_VALUE_MAX);
        if (r < 0)
                return r;
        for (char *n = strtok_r(value, ",;", &save); n; n = strtok_r(NULL, ",;", &save)) {
                n += strspn(n, " \t\n");
                for (size_t k = strlen(n); k > 0 && strchr(" \t\n", n[k - 1]); k--)
                        n[k - 1] = '\0';
                r = load_name(l, n, inc);
                if (r < 0)
                        return r;
        }
        return 0;
}

static int load_file(Loader *l, const char *path, const TunedOption *from) {
        _cleanup_(tuned_file_freep) TunedFile *f = NULL;
        _cleanup_(fclosep) FILE *file = NULL;
        _cleanup_(freep) char *dir = NULL;
        TunedOption inc = {}, summary = {};
        TunedSection *main_section;
        char *slash;
        int r;

        /* Regular files only: a FIFO named tuned.conf must not block the reader (the daemon reads these too). */
        r = textfile_fopen(path, &file);
        if (r < 0) {
                if (from)
                        return tuned_error(l->ret_error, r, from->file, from->line, "include: cannot open %s: %s",
                                           path, strerror(-r));
                return tuned_error(l->ret_error, r, path, 0, "cannot open: %s", strerror(-r));
        }
        r = tuned_file_parse(path, file, &f, l->ret_error);
        if (r < 0)
                return r;

        dir = strdup(path);
        if (!dir)
                return -ENOMEM;
        slash = strrchr(dir, '/');
        if (slash)
                *slash = '\0';
        for (size_t i = 0; i < f->n_sections; i++)
                for (size_t j = 0; j < f->sections[i].n_options; j++) {
                        r = expand_profile_dir(&f->sections[i].options[j].value, slash ? dir : ".");
                        if (r < 0)
                                return r;
                }

        if (strv_extend(&l->processed, path) < 0 || strv_extend(&l->stack, path) < 0 ||
            strv_extend(&l->p->files, path) < 0)
                return -ENOMEM;

        main_section = tuned_file_section(f, "main");
        if (main_section) {
                pop_option(main_section, "include", &inc);
                pop_option(main_section, "summary", &summary);
                if (inc.key) {
                        r = load_includes(l, &inc);
                        tuned_option_done(&inc);
                        if (r < 0) {
                                tuned_option_done(&summary);
                                return r;
                        }
                }
                if (summary.key) {
                        free(l->p->summary);
                        l->p->summary = TAKE_PTR(summary.value);
                        tuned_option_done(&summary);
                }
        }

        for (size_t i = 0; i < f->n_sections; i++) {
                /* unit_from_section() leaves u as it is on failure: zeroed, unit_done() frees nothing. */
                TunedUnit u = {};

                if (streq(f->sections[i].name, "main"))
                        continue;
                r = unit_from_section(&f->sections[i], &u);
                if (r >= 0)
                        r = merge_unit(l, &u);
                if (r < 0) {
                        unit_done(&u);
                        return r;
                }
        }
        free(l->stack[strv_length(l->stack) - 1]);
        l->stack[strv_length(l->stack) - 1] = NULL;
        return 0;
}

static bool strv_contains(char *const *l, const char *s) {
        for (size_t i = 0; l && l[i]; i++)
                if (streq(l[i], s))
                        return true;
        return false;
}

static int load_name(Loader *l, const char *name, const TunedOption *from) {
        _cleanup_(freep) char *skipped = NULL, *dirs = NULL;
        bool optional = name[0] == '-';
        char buf[TUNED_EXCERPT_SIZE];
        const char *base;

        if (optional)
                name++;
        base = strrchr(name, '/') ? strrchr(name, '/') + 1 : name;
        for (size_t i = 0; l->dirs[i]; i++) {
                _cleanup_(freep) char *raw = NULL, *path = NULL;

                if (asprintf(&raw, "%s/%s/tuned.conf", l->dirs[i], base) < 0 || !(path = normpath(raw)))
                        return -ENOMEM;
                if (strv_contains(l->processed, path)) {
                        /* tuned loads a file once and looks for the name further down the path. */
                        if (!skipped)
                                skipped = TAKE_PTR(path);
                        continue;
                }
                if (is_file(path))
                        return load_file(l, path, from);
        }

        if (skipped && strv_contains(l->stack, skipped)) {
                _cleanup_(freep) char *chain = strv_join(l->stack, " -> ");
                return tuned_error(l->ret_error, -ELOOP, from->file, from->line,
                                   "include loop: %s includes %s again (%s)", from->file, skipped, strempty(chain));
        }
        if (skipped)
                return 0;       /* loaded already through another include: tuned does not load it twice */
        if (optional)
                return tuned_notes_add(&l->p->notes, &l->p->n_notes, from,
                                       "optional include '-%s' not found; skipped, as tuned skips it",
                                       tuned_excerpt(name, buf));
        dirs = strv_join(l->dirs, ", ");
        if (from)
                return tuned_error(l->ret_error, -ENOENT, from->file, from->line,
                                   "include: no tuned profile '%s' in %s", tuned_excerpt(name, buf), strempty(dirs));
        return tuned_error(l->ret_error, -ENOENT, name, 0, "no tuned profile of that name in %s (NAME/tuned.conf)",
                           strempty(dirs));
}

/* A profile's name from its file: the directory of a tuned.conf, else the file's own name. */
static char *profile_name_of(const char *path) {
        const char *end = path + strlen(path), *start;

        if (endswith(path, "/tuned.conf") && end - strlen("/tuned.conf") > path)
                end -= strlen("/tuned.conf");
        for (start = end; start > path && start[-1] != '/'; start--)
                ;
        return strndup(start, (size_t) (end - start));
}

/* Defines o's variable; -E2BIG with *ret_error past TUNED_VALUE_MAX. */
static int add_variable(TunedProfile *p, const TunedOption *o, char **ret_error) {
        _cleanup_(freep) char *value = NULL, *reason = NULL, *why = NULL;
        char buf[TUNED_EXCERPT_SIZE];
        int r;

        if (!tuned_var_name_valid(o->key))
                return tuned_notes_add(&p->notes, &p->n_notes, o,
                                       "variable name '%s' has characters other than letters, digits and '_'; "
                                       "tuned ignores it too", tuned_excerpt(o->key, buf));
        r = tuned_expand(&p->vars, o->value, &value, &reason);
        if (r == -E2BIG)
                return tuned_error(ret_error, r, o->file, o->line, "variable '%s' expands to more than %d bytes",
                                   tuned_excerpt(o->key, buf), TUNED_VALUE_MAX);
        if (r == -EOPNOTSUPP) {
                if (asprintf(&why, "${%s} (%s:%u) is not known here: %s", o->key, o->file, o->line, reason) < 0)
                        return -ENOMEM;
                r = tuned_vars_set(&p->vars, o->key, NULL, why);
        } else if (r >= 0)
                r = tuned_vars_set(&p->vars, o->key, value, NULL);
        if (r == -E2BIG)
                return tuned_error(ret_error, r, o->file, o->line,
                                   "the [variables] together hold more than %d bytes with '%s'", TUNED_VALUE_MAX,
                                   tuned_excerpt(o->key, buf));
        return r;
}

/* A variables file (include= in [variables]): key = value lines, sections optional. */
static int read_variables_file(TunedProfile *p, const TunedOption *inc, char **ret_error) {
        _cleanup_(tuned_file_freep) TunedFile *f = NULL;
        _cleanup_(fclosep) FILE *file = NULL;
        _cleanup_(freep) char *path = normpath(inc->value);
        char buf[TUNED_EXCERPT_SIZE];
        int r;

        if (!path)
                return -ENOMEM;
        r = textfile_fopen(path, &file);
        if (r == -ENOENT)
                return tuned_notes_add(&p->notes, &p->n_notes, inc,
                                       "variables file %s not found (tuned skips it too): the variables it would "
                                       "define are unknown here", tuned_excerpt(path, buf));
        if (r < 0)
                return tuned_error(ret_error, r, inc->file, inc->line, "cannot open variables file %s: %s",
                                   tuned_excerpt(path, buf), strerror(-r));
        r = tuned_variables_file_parse(path, file, &f, ret_error);
        if (r < 0)
                return r;
        for (size_t i = 0; i < f->n_sections; i++)
                for (size_t j = 0; j < f->sections[i].n_options; j++) {
                        r = add_variable(p, &f->sections[i].options[j], ret_error);
                        if (r < 0)
                                return r;
                }
        return 0;
}

/* [variables]: each key defined in order, its value expanded with those before it; include= reads a file. */
static int define_variables(TunedProfile *p, char **ret_error) {
        TunedUnit *u = find_unit(p, "variables");
        TunedUnit vars;
        int r = 0;

        if (!u)
                return 0;
        /* tuned takes the unit out of the profile: it sets nothing itself. */
        vars = *u;
        memmove(u, u + 1, (size_t) (p->units + p->n_units - u - 1) * sizeof(TunedUnit));
        p->n_units--;
        for (size_t i = 0; r >= 0 && i < vars.n_options; i++)
                r = streq(vars.options[i].key, "include") ? read_variables_file(p, &vars.options[i], ret_error)
                                                          : add_variable(p, &vars.options[i], ret_error);
        unit_done(&vars);
        return r;
}

/* -EINVAL with *ret_error for a name the netpolld profile has no room for. */
static int check_name_length(const char *name, const char *name_or_path, char **ret_error) {
        char buf[TUNED_EXCERPT_SIZE];

        if (strlen(name) <= TUNED_NAME_MAX)
                return 0;
        return tuned_error(ret_error, -EINVAL, tuned_excerpt(name_or_path, buf), 0,
                           "the profile name%s is %zu bytes long; at most %d fit the lines of the netpolld profile "
                           "it goes into", streq(name, name_or_path) ? "" : " (the directory's name)", strlen(name),
                           TUNED_NAME_MAX);
}

int tuned_profile_load(const char *name_or_path, char *const *dirs, TunedProfile **ret, char **ret_error) {
        _cleanup_(tuned_profile_freep) TunedProfile *p = NULL;
        Loader l = { .dirs = dirs ?: (char *const *) tuned_default_dirs, .ret_error = ret_error };
        char buf[TUNED_EXCERPT_SIZE];
        int r;

        p = calloc(1, sizeof(TunedProfile));
        if (!p)
                return -ENOMEM;
        l.p = p;

        if (strchr(name_or_path, '/')) {
                _cleanup_(freep) char *path = NULL, *raw = NULL;
                struct stat st;

                if (stat(name_or_path, &st) >= 0 && S_ISDIR(st.st_mode)) {
                        if (asprintf(&raw, "%s/tuned.conf", name_or_path) < 0)
                                return -ENOMEM;
                } else if (!(raw = strdup(name_or_path)))
                        return -ENOMEM;
                path = normpath(raw);
                p->name = path ? profile_name_of(path) : NULL;
                if (!p->name)
                        return -ENOMEM;
                r = check_name_length(p->name, name_or_path, ret_error);
                if (r < 0)
                        return r;
                r = load_file(&l, path, NULL);
        } else {
                if (!*name_or_path || strspn(name_or_path, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                                           "0123456789_.-") != strlen(name_or_path))
                        return tuned_error(ret_error, -EINVAL, tuned_excerpt(name_or_path, buf), 0,
                                           "not a tuned profile name (letters, digits, '_', '.', '-')");
                r = check_name_length(name_or_path, name_or_path, ret_error);
                if (r < 0)
                        return r;
                p->name = strdup(name_or_path);
                if (!p->name)
                        return -ENOMEM;
                r = load_name(&l, name_or_path, NULL);
        }
        strv_free(l.processed);
        strv_free(l.stack);
        if (r >= 0)
                r = define_variables(p, ret_error);
        if (r < 0)
                return r;

        *ret = TAKE_PTR(p);
        return 0;
}
