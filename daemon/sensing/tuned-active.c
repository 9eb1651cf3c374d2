/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tuned-active.c: the active tuned profile's line for a sysctl (see
 * tuned-active.h).
 */
#include "tuned-active.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "macro.h"
#include "strv.h"
#include "sysctld.h"
#include "sysroot.h"
#include "textfile.h"
#include "tuned.h"

#define ACTIVE_PROFILE "/etc/tuned/active_profile"

void tuned_setting_done(TunedSetting *s) {
        free(s->profile);
        free(s->file);
        free(s->value);
        *s = (TunedSetting){};
}

_printf_(3, 4) static void skipped(TunedSkipFn skip, void *userdata, const char *fmt, ...) {
        char msg[512];
        va_list ap;

        if (!skip)
                return;
        va_start(ap, fmt);
        vsnprintf(msg, sizeof(msg), fmt, ap);
        va_end(ap);
        skip(msg, userdata);
}

/* The host's name of a path below root. */
static const char *host_name(const char *root, const char *path) {
        const char *rel = root && !streq(root, "/") ? startswith(path, root) : NULL;

        return rel && rel[0] == '/' ? rel : path;
}

/* The last enabled [sysctl] entry of p for key (normalized); NULL when none. */
static const TunedOption *find_option(const TunedProfile *p, const char *key, int *ret_r) {
        const TunedOption *found = NULL;

        *ret_r = 0;
        for (size_t i = 0; i < p->n_units; i++) {
                const TunedUnit *u = &p->units[i];

                if (!u->enabled || !streq(u->type, "sysctl"))
                        continue;
                for (size_t j = 0; j < u->n_options; j++) {
                        _cleanup_(freep) char *k = sysctl_key_normalize(u->options[j].key);

                        if (!k) {
                                *ret_r = -ENOMEM;
                                return NULL;
                        }
                        if (streq(k, key))
                                found = &u->options[j];
                }
        }
        return found;
}

static int search_profile(const char *root, char *const *dirs, const char *name, const char *key,
                          TunedSetting *found, TunedSkipFn skip, void *userdata) {
        _cleanup_(tuned_profile_freep) TunedProfile *p = NULL;
        _cleanup_(freep) char *error = NULL, *raw = NULL, *value = NULL, *reason = NULL;
        const TunedOption *o;
        int r;

        r = tuned_profile_load(name, dirs, &p, &error);
        if (r == -ENOMEM)
                return r;
        if (r < 0) {
                skipped(skip, userdata, "tuned profile %s: %s", name, error ? host_name(root, error) : strerror(-r));
                return 0;
        }
        o = find_option(p, key, &r);
        if (!o)
                return r;
        raw = tuned_unquote(o->value);
        if (!raw)
                return -ENOMEM;
        r = tuned_expand(&p->vars, raw, &value, &reason);
        if (r == -ENOMEM)
                return r;
        if (r < 0) {
                skipped(skip, userdata, "%s: its value cannot be known here (%s)", host_name(root, o->file),
                        reason ?: "too long");
                return 0;
        }
        tuned_setting_done(found);
        *found = (TunedSetting){
                .profile = strdup(name),
                .file = strdup(host_name(root, o->file)),
                .line = o->line,
                .value = TAKE_PTR(value),
        };
        return found->profile && found->file ? 1 : -ENOMEM;
}

int tuned_active_find(const char *root, const char *key, TunedSetting *ret, TunedSkipFn skip, void *userdata) {
        _cleanup_(strv_freep) char **dirs = NULL;
        _cleanup_(freep) char *normal = sysctl_key_normalize(key);
        _cleanup_(fclosep) FILE *f = NULL;
        _cleanup_(tuned_setting_done) TunedSetting found = {};
        char line[TEXTFILE_LINE_MAX + 1], *save = NULL;
        size_t total = 0;
        int r;

        if (!normal)
                return -ENOMEM;
        r = textfile_open(root, ACTIVE_PROFILE, &f, NULL);
        if (r == -ENOENT)
                return 0;
        if (r < 0) {
                skipped(skip, userdata, "%s: %s", ACTIVE_PROFILE, strerror(-r));
                return r == -ENOMEM ? r : 0;
        }
        r = textfile_line(f, line, &total);
        if (r <= 0) {
                if (r < 0)
                        skipped(skip, userdata, "%s: %s", ACTIVE_PROFILE,
                                r == -E2BIG ? "line too long" : r == -EBADMSG ? "binary data" : strerror(-r));
                return 0;
        }
        for (size_t i = 0; tuned_default_dirs[i]; i++) {
                r = strv_extendf(&dirs, "%s%s", root && !streq(root, "/") ? root : "", tuned_default_dirs[i]);
                if (r < 0)
                        return r;
        }
        /* tuned merges several active profiles in order: a later one's entry wins. */
        for (char *name = strtok_r(line, " \t", &save); name; name = strtok_r(NULL, " \t", &save)) {
                r = search_profile(root, dirs, name, normal, &found, skip, userdata);
                if (r < 0)
                        return r;
        }
        if (!found.file)
                return 0;
        *ret = found;
        found = (TunedSetting){};
        return 1;
}
