/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * profile.c: profiles. The search path (find, list); loading a file with its
 * include= chain and merging it parent-first, the child's keys winning; and
 * building the Profile from the merged keys, followed by the cross-checks of
 * [adaptive] bounds against the profile's own [knobs] values.
 */
#include "policy.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "conf-parser.h"
#include "macro.h"
#include "strv.h"
#include "units.h"

const char *const profile_default_dirs[] = { SYSCONF_PROFILE_DIR, VENDOR_PROFILE_DIR, NULL };

/* ---- finding profiles ---------------------------------------------------------- */

bool profile_name_valid(const char *name) {
        if (!name || !*name || *name == '.' || strlen(name) > 64)
                return false;
        for (const char *p = name; *p; p++)
                if (!(isascii((unsigned char)*p) && isalnum((unsigned char)*p)) && !strchr("_.-", *p))
                        return false;
        return true;
}

/* The i-th profile directory: dirs first, then the defaults; NULL after the last. */
static const char *search_dir(char *const *dirs, size_t i) {
        size_t n = strv_length(dirs);

        return i < n ? dirs[i] : profile_default_dirs[i - n];
}

/* 0 for a regular file (symlinks followed), else a negative errno. */
static int regular_file(const char *path) {
        struct stat st;

        if (stat(path, &st) < 0)
                return negative_errno();
        if (S_ISDIR(st.st_mode))
                return -EISDIR;
        return S_ISREG(st.st_mode) ? 0 : -EINVAL;
}

int profile_find(const char *name_or_path, char *const *dirs, char **ret_path) {
        const char *d;
        char *p;
        int r;

        if (!name_or_path)
                return -EINVAL;
        if (strchr(name_or_path, '/')) {
                r = regular_file(name_or_path);
                if (r < 0)
                        return r;
                p = strdup(name_or_path);
                if (!p)
                        return -ENOMEM;
                *ret_path = p;
                return 0;
        }
        if (!profile_name_valid(name_or_path))
                return -EINVAL;
        for (size_t i = 0; (d = search_dir(dirs, i)); i++) {
                if (!*d)
                        continue;
                if (asprintf(&p, "%s/%s.conf", d, name_or_path) < 0)
                        return -ENOMEM;
                if (regular_file(p) == 0) {
                        *ret_path = p;
                        return 0;
                }
                free(p);
        }
        return -ENOENT;
}

/* "dir1, dir2, ...", for not-found messages. */
static char *search_text(char *const *dirs) {
        char *s = NULL;
        const char *d;

        for (size_t i = 0; (d = search_dir(dirs, i)); i++)
                if (*d && conf_list_append(&s, d) < 0) {
                        free(s);
                        return NULL;
                }
        return s ?: strdup("");
}

static bool strv_contains(char *const *l, const char *s) {
        for (; l && *l; l++)
                if (streq(*l, s))
                        return true;
        return false;
}

static int list_dir(const char *dir, char ***names) {
        DIR *dp = opendir(dir);
        struct dirent *de;
        int r = 0;

        if (!dp)
                return errno == ENOENT || errno == ENOTDIR ? 0 : negative_errno();
        while (r >= 0 && (de = readdir(dp))) {
                size_t n = strlen(de->d_name);
                struct stat st;
                char *stem;

                if (n <= 5 || !streq(de->d_name + n - 5, ".conf"))
                        continue;
                stem = strndup(de->d_name, n - 5);
                if (!stem)
                        r = -ENOMEM;
                /* Only what profile_find() would find: valid names of regular files. */
                else if (!profile_name_valid(stem) || strv_contains(*names, stem) ||
                         fstatat(dirfd(dp), de->d_name, &st, 0) < 0 || !S_ISREG(st.st_mode))
                        free(stem);
                else if ((r = strv_push(names, stem)) < 0)
                        free(stem); /* strv_push() leaves it to us on failure */
        }
        closedir(dp);
        return r;
}

static int cmp_str(const void *a, const void *b) {
        return strcmp(*(char *const *)a, *(char *const *)b);
}

int profile_list(char *const *dirs, char ***ret) {
        _cleanup_(strv_freep) char **names = NULL;
        const char *d;
        int r = 0;

        for (size_t i = 0; r >= 0 && (d = search_dir(dirs, i)); i++)
                if (*d)
                        r = list_dir(d, &names);
        if (r >= 0 && !names && !(names = calloc(1, sizeof(char *))))
                r = -ENOMEM;
        if (r < 0)
                return r;
        qsort(names, strv_length(names), sizeof(char *), cmp_str);
        *ret = TAKE_PTR(names);
        return 0;
}

/* ---- loading with includes ------------------------------------------------------ */

/* A file with everything it includes, merged. */
typedef struct Layer {
        EntryList entries; /* [knobs], [adaptive] and [irq]; parent's first, child wins */
        char *description;
        char **chain; /* this file, then its parent's chain */
} Layer;

static void layer_done(Layer *l) {
        entry_list_done(&l->entries);
        free(l->description);
        strv_free(l->chain);
        *l = (Layer){};
}

typedef struct Loader {
        char *const *dirs;
        char ***errors;
        char **stack; /* realpath() of the files being loaded, outermost first */
        char **shown; /* the same files as found, for messages */
} Loader;

/* Enters a file: canon is its realpath() (ownership moves, also on failure), shown its name as found. */
static int loader_push(Loader *l, char *canon, const char *shown) {
        if (strv_push(&l->stack, canon) < 0) {
                free(canon);
                return -ENOMEM;
        }
        return strv_extend(&l->shown, shown);
}

static void strv_drop_last(char **l) {
        size_t n = strv_length(l);

        if (n > 0) {
                free(l[n - 1]);
                l[n - 1] = NULL;
        }
}

static void loader_pop(Loader *l) {
        strv_drop_last(l->stack);
        strv_drop_last(l->shown);
}

static int load_layer(Loader *l, const char *path, unsigned depth, Layer *ret);

static int follow_include(Loader *l, const char *from, const Entry *inc, unsigned depth, Layer *ret) {
        _cleanup_(freep) char *joined = NULL, *target = NULL, *canon = NULL, *msg = NULL;
        const char *want = inc->value, *slash;
        int r;

#define INC_ERROR(...) conf_push_error(l->errors, inc->file, inc->line, "profile", "include", __VA_ARGS__)
        if (depth >= MAX_INCLUDE_DEPTH)
                return INC_ERROR("include chain deeper than %d levels", MAX_INCLUDE_DEPTH);
        if (strchr(want, '/') && want[0] != '/') {
                /* Relative to the including file, not to wherever the daemon was started. */
                while (startswith(want, "./"))
                        want += 2;
                slash = strrchr(from, '/');
                if (asprintf(&joined, "%.*s%s", slash ? (int)(slash - from + 1) : 2, slash ? from : "./", want) < 0)
                        return -ENOMEM;
                want = joined;
        }
        r = profile_find(want, l->dirs, &target);
        if (r == -ENOENT && !strchr(want, '/')) {
                msg = search_text(l->dirs);
                return msg ? INC_ERROR("profile '%s' not found (searched: %s)", want, msg) : -ENOMEM;
        }
        if (r < 0)
                return r == -ENOMEM ? r : INC_ERROR("cannot open %s: %s", want, strerror(-r));
        canon = realpath(target, NULL);
        if (!canon)
                return errno == ENOMEM ? -ENOMEM : INC_ERROR("cannot open %s: %s", target, strerror(errno));
        for (size_t i = 0; l->stack && l->stack[i]; i++) {
                if (!streq(l->stack[i], canon))
                        continue;
                /* Name the loop from its first file: "a.conf -> b.conf -> a.conf". */
                for (size_t j = i; l->shown[j]; j++) {
                        char *n = NULL;
                        if (asprintf(&n, "%s%s -> ", strempty(msg), l->shown[j]) < 0)
                                return -ENOMEM;
                        free(msg);
                        msg = n;
                }
                return INC_ERROR("include cycle: %s%s", msg, target);
        }
        r = loader_push(l, TAKE_PTR(canon), target);
        if (r < 0)
                return r;
        r = load_layer(l, target, depth + 1, ret);
        loader_pop(l);
        if (r < 0 && r != -ENOMEM)
                return INC_ERROR("cannot open %s: %s", target, strerror(-r));
        return r;
#undef INC_ERROR
}

/* Loads path and its parents into *ret. Returns fopen()'s errno for path itself unreported, -ENOMEM or 0. */
static int load_layer(Loader *l, const char *path, unsigned depth, Layer *ret) {
        _cleanup_(profile_freep) Profile *scratch = NULL;
        const Entry *inc, *desc;
        EntryList own = {};
        Layer layer = {}, parent = {};
        int r;

        r = profile_new(&scratch);
        if (r < 0)
                return r;
        r = conf_parse_file(&profile_file_spec, path, scratch, &own, l->errors);
        if (r < 0)
                goto finish;
        inc = entry_list_find(&own, "profile", "include");
        if (inc && inc->valid && (r = follow_include(l, path, inc, depth, &parent)) < 0)
                goto finish;

        layer.entries = parent.entries;
        parent.entries = (EntryList){};
        for (size_t i = 0; i < own.n && r >= 0; i++) {
                Entry *e = &own.v[i], *old;
                if (streq(e->section, "profile"))
                        continue;
                old = entry_list_find(&layer.entries, e->section, e->key);
                if (old) {
                        /* The key keeps the position where a parent first set it. */
                        entry_done(old);
                        *old = *e;
                        *e = (Entry){};
                } else
                        r = entry_list_add(&layer.entries, e);
        }
        desc = entry_list_find(&own, "profile", "description");
        if (desc && desc->valid && desc->value[0])
                layer.description = strdup(desc->value);
        else
                layer.description = TAKE_PTR(parent.description) ?: strdup("");
        if (r >= 0 && !layer.description)
                r = -ENOMEM;
        if (r >= 0)
                r = strv_extend(&layer.chain, path);
        for (size_t i = 0; r >= 0 && parent.chain && parent.chain[i]; i++)
                r = strv_extend(&layer.chain, parent.chain[i]);
        if (r >= 0) {
                *ret = layer;
                layer = (Layer){};
        }
finish:
        entry_list_done(&own);
        layer_done(&layer);
        layer_done(&parent);
        return r;
}

static int profile_add_knob(Profile *p, const Entry *e) {
        ProfileKnob *v = realloc(p->knobs, (p->n_knobs + 1) * sizeof(ProfileKnob));
        char *file;

        if (!v)
                return -ENOMEM;
        p->knobs = v;
        file = strdup(e->file);
        if (!file)
                return -ENOMEM;
        v[p->n_knobs++] = (ProfileKnob){ .ref = e->ref, .value = e->kv, .origin = { file, e->line } };
        return 0;
}

static int profile_add_setting(Profile *p, const Entry *e) {
        ProfileSetting *v = realloc(p->settings, (p->n_settings + 1) * sizeof(ProfileSetting));
        ProfileSetting s = {
                .section = strdup(e->section),
                .key = strdup(e->key),
                .value = strdup(e->value),
                .origin = { strdup(e->file), e->line },
        };

        if (v)
                p->settings = v;
        if (!v || !s.section || !s.key || !s.value || !s.origin.file) {
                free(s.section);
                free(s.key);
                free(s.value);
                free(s.origin.file);
                return -ENOMEM;
        }
        v[p->n_settings++] = s;
        return 0;
}

/* A knob's profile value in microseconds (times) or its own unit (counts), for the cross-checks. */
static const ProfileKnob *knob_in_profile(const Profile *p, const char *name, uint64_t *ret) {
        KnobRef ref = { .desc = knob_find(name) };
        const ProfileKnob *k = ref.desc ? profile_get_knob(p, &ref) : NULL;

        if (k)
                *ret = ref.desc->type == KNOB_TIME ? k->value.num * ref.desc->unit_ns / NSEC_PER_USEC : k->value.num;
        return k;
}

/* An [adaptive] bound against the profile's static [knobs] value: below is an error (above when !is_max). */
static int check_bound(const Profile *p, const EntryList *l, const char *key, uint64_t bound, const char *knob,
                       bool is_max, char ***errors) {
        const Entry *e = entry_list_find(l, "adaptive", key);
        _cleanup_(freep) char *v = NULL;
        const ProfileKnob *k;
        uint64_t kv;

        if (!e || !(k = knob_in_profile(p, knob, &kv)) || (is_max ? bound >= kv : bound <= kv))
                return 0;
        v = knob_format_value(k->ref.desc, &k->value);
        if (!v)
                return -ENOMEM;
        return conf_push_error(errors, e->file, e->line, "adaptive", key, "%s is %s the profile's %s of %s (%s:%u); "
                          "expected at %s %s", e->value, is_max ? "below" : "above", knob, v, k->origin.file,
                          k->origin.line, is_max ? "least" : "most", v);
}

bool profile_steers_mask(const Profile *p, const KnobRef *ref) {
        IrqMaskMode mode;

        if (!p || !ref->device[0] || !p->irq.devices)
                return false;
        if (ref->desc->scope == KNOB_RX_QUEUES)
                mode = p->irq.rps;
        else if (ref->desc->scope == KNOB_TX_QUEUES)
                mode = p->irq.xps;
        else
                return false;
        if (mode == IRQ_MASK_KEEP)
                return false;
        for (char **d = p->irq.devices; *d; d++)
                if (fnmatch(*d, ref->device, 0) == 0)
                        return true;
        return false;
}

static int profile_check(const Profile *p, const EntryList *l, char ***errors) {
        const AdaptiveConfig *a = &p->adaptive;
        const Entry *strategy;
        int r = 0;

        /* One owner per file: a device's RPS/XPS masks come from [irq] or from [knobs], not both. */
        for (size_t i = 0; i < p->n_knobs && r >= 0; i++) {
                const ProfileKnob *k = &p->knobs[i];
                char key[64];
                if (profile_steers_mask(p, &k->ref))
                        r = conf_push_error(errors, k->origin.file, k->origin.line, "knobs",
                                            knob_ref_format(&k->ref, key, sizeof(key)),
                                            "%s's queues are steered by [irq]; set %s= there, or %s = keep to set "
                                            "them here", k->ref.device,
                                            k->ref.desc->scope == KNOB_RX_QUEUES ? "rps" : "xps",
                                            k->ref.desc->scope == KNOB_RX_QUEUES ? "rps" : "xps");
        }

        if (!entry_list_find(l, "irq", "devices")) {
                for (size_t i = 0; i < l->n && r >= 0; i++)
                        if (streq(l->v[i].section, "irq"))
                                r = conf_push_error(errors, l->v[i].file, l->v[i].line, "irq", l->v[i].key,
                                               "has no effect without devices=");
        } else if (p->irq.strategy == IRQ_STRATEGY_CPUS && !p->irq.cpus_set &&
                   (strategy = entry_list_find(l, "irq", "strategy")))
                r = conf_push_error(errors, strategy->file, strategy->line, "irq", "strategy",
                               "strategy cpus needs cpus= (the CPUs to place IRQs on)");
        if (r >= 0)
                r = check_bound(p, l, "netdev-budget-max", a->netdev_budget_max, "netdev-budget", true, errors);
        if (r >= 0)
                r = check_bound(p, l, "netdev-budget-time-max", a->netdev_budget_time_max_us, "netdev-budget-time",
                                true, errors);
        if (r >= 0)
                r = check_bound(p, l, "softirq-budget-max", a->softirq_budget_max_us, "softirq-budget", true, errors);
        if (r >= 0)
                r = check_bound(p, l, "busy-poll-floor", a->busy_poll_floor_us, "busy-read", false, errors);
        if (r >= 0)
                r = check_bound(p, l, "busy-poll-floor", a->busy_poll_floor_us, "busy-poll", false, errors);
        return r;
}

/* The file stem: "/x/latency.conf" -> "latency". */
static char *path_stem(const char *path) {
        const char *b = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
        size_t n = strlen(b);

        return strndup(b, n > 5 && streq(b + n - 5, ".conf") ? n - 5 : n);
}

static int profile_build(Profile **ret, const char *name_or_path, const char *path, Layer *layer,
                         char ***errors) {
        _cleanup_(profile_freep) Profile *p = NULL;
        int r;

        r = profile_new(&p);
        if (r < 0)
                return r;
        p->name = strchr(name_or_path, '/') ? path_stem(path) : strdup(name_or_path);
        p->path = strdup(path);
        p->description = TAKE_PTR(layer->description);
        p->chain = TAKE_PTR(layer->chain);
        if (!p->name || !p->path || !p->description || !p->chain)
                return -ENOMEM;
        for (size_t i = 0; i < layer->entries.n && r >= 0; i++) {
                const Entry *e = &layer->entries.v[i];
                _cleanup_(freep) char *msg = NULL;

                if (!e->item) {
                        r = profile_add_knob(p, e);
                        continue;
                }
                /* Validated when read; the table applies it again to the merged result. */
                r = e->item->parse(e->item, e->value, config_item_field(e->item, p), &msg);
                if (r == -EINVAL)
                        r = conf_push_error(errors, e->file, e->line, e->section, e->key, "%s", msg);
                if (r >= 0)
                        r = profile_add_setting(p, e);
        }
        if (r >= 0)
                r = profile_check(p, &layer->entries, errors);
        if (r >= 0 && strv_length(*errors) == 0)
                *ret = TAKE_PTR(p);
        return r;
}

int profile_load(Profile **ret, const char *name_or_path, char *const *dirs, char ***ret_errors) {
        _cleanup_(freep) char *path = NULL, *canon = NULL, *msg = NULL;
        _cleanup_(strv_freep) char **errors = NULL;
        _cleanup_(profile_freep) Profile *p = NULL;
        Loader l = { .dirs = dirs, .errors = &errors };
        Layer layer = {};
        int r;

        if (!name_or_path)
                return -EINVAL;
        r = profile_find(name_or_path, dirs, &path);
        if (r == -EINVAL && !strchr(name_or_path, '/'))
                r = strv_extendf(&errors, "invalid profile name '%s': expected letters, digits, '_', '.' or '-' (at "
                                 "most 64 characters, not starting with '.'), or a path containing '/'",
                                 name_or_path) ?: -EINVAL;
        else if (r == -ENOENT && !strchr(name_or_path, '/'))
                r = (msg = search_text(dirs)) ? strv_extendf(&errors, "profile '%s' not found (searched: %s)",
                                                             name_or_path, msg) ?: -ENOENT : -ENOMEM;
        else if (r < 0 && r != -ENOMEM)
                r = conf_push_error(&errors, name_or_path, 0, NULL, NULL, "cannot open: %s", strerror(-r)) ?: r;
        if (r < 0)
                goto finish;

        canon = realpath(path, NULL);
        if (!canon) {
                r = errno == ENOMEM ? -ENOMEM : negative_errno();
                r = r == -ENOMEM ? r
                                 : conf_push_error(&errors, path, 0, NULL, NULL, "cannot open: %s", strerror(-r)) ?: r;
                goto finish;
        }
        r = loader_push(&l, TAKE_PTR(canon), path);
        if (r < 0)
                goto finish;
        r = load_layer(&l, path, 0, &layer);
        if (r < 0 && r != -ENOMEM)
                r = conf_push_error(&errors, path, 0, NULL, NULL, "cannot open: %s", strerror(-r)) ?: r;
        if (r >= 0 && strv_length(errors) == 0)
                r = profile_build(&p, name_or_path, path, &layer, &errors);
        if (r >= 0 && strv_length(errors) > 0)
                r = -EINVAL;
finish:
        layer_done(&layer);
        strv_free(l.stack);
        strv_free(l.shown);
        r = conf_return_errors(r, TAKE_PTR(errors), ret_errors);
        if (r >= 0)
                *ret = TAKE_PTR(p);
        return r;
}

int profile_summary(const char *name, char *const *dirs, char **ret_path, char **ret_summary) {
        _cleanup_(profile_freep) Profile *p = NULL;
        _cleanup_(strv_freep) char **errors = NULL;
        _cleanup_(freep) char *path = NULL;
        char *summary;
        int r;

        r = profile_find(name, dirs, &path);
        if (r < 0)
                return r;
        /* By name and through dirs, as the daemon loads it: includes resolve exactly as they would there. */
        r = profile_load(&p, name, dirs, &errors);
        if (r == -ENOMEM)
                return r;
        if (r >= 0)
                summary = strdup(p->description);
        else if (asprintf(&summary, "invalid: %s", errors && errors[0] ? errors[0] : strerror(-r)) < 0)
                summary = NULL;
        if (!summary)
                return -ENOMEM;
        *ret_path = TAKE_PTR(path);
        *ret_summary = summary;
        return 0;
}

const ProfileKnob *profile_get_knob(const Profile *p, const KnobRef *ref) {
        if (!p || !ref)
                return NULL;
        for (size_t i = 0; i < p->n_knobs; i++)
                if (p->knobs[i].ref.desc == ref->desc && streq(p->knobs[i].ref.device, ref->device))
                        return &p->knobs[i];
        return NULL;
}
