/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * check-config.c: `netpolld --check-config`: every error of netpolld.conf and
 * the selected profile, or the resolved configuration as aligned tables (what
 * would be applied, where each value was set, and whether this kernel has the
 * knob). Reads the kernel only to test for knob files; changes nothing.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* asprintf */
#endif
#include "check-config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "knob.h"
#include "macro.h"
#include "manager.h"
#include "policy.h"

#define TABLE_COLUMNS_MAX 4
#define COLUMN_GAP 2

/* Rows of cells that are printed with each column as wide as its widest cell. */
typedef struct Table {
        size_t ncols, nrows;
        char **cells; /* nrows * ncols, row by row */
} Table;

static void table_done(Table *t) {
        for (size_t i = 0; i < t->nrows * t->ncols; i++)
                free(t->cells[i]);
        free(t->cells);
        *t = (Table){};
}

/* Adds one row, taking ownership of its ncols cells (a NULL cell means an allocation failed). */
static int table_add(Table *t, char *const *row) {
        char **v = realloc(t->cells, (t->nrows + 1) * t->ncols * sizeof(char *));
        bool ok = v;

        for (size_t i = 0; i < t->ncols; i++)
                ok = ok && row[i];
        if (v)
                t->cells = v;
        if (!ok) {
                for (size_t i = 0; i < t->ncols; i++)
                        free(row[i]);
                return -ENOMEM;
        }
        memcpy(t->cells + t->nrows * t->ncols, row, t->ncols * sizeof(char *));
        t->nrows++;
        return 0;
}

static void table_print(const Table *t, FILE *out, const char *indent) {
        size_t width[TABLE_COLUMNS_MAX] = {};

        for (size_t r = 0; r < t->nrows; r++)
                for (size_t c = 0; c < t->ncols; c++)
                        width[c] = MAX(width[c], strlen(t->cells[r * t->ncols + c]));
        for (size_t r = 0; r < t->nrows; r++) {
                fputs(indent, out);
                for (size_t c = 0; c + 1 < t->ncols; c++)
                        fprintf(out, "%-*s", (int)(width[c] + COLUMN_GAP), t->cells[r * t->ncols + c]);
                fprintf(out, "%s\n", t->cells[r * t->ncols + t->ncols - 1]);
        }
}

static char *xasprintf(const char *fmt, ...) _printf_(1, 2);
static char *xasprintf(const char *fmt, ...) {
        va_list ap;
        char *s;
        int r;

        va_start(ap, fmt);
        r = vasprintf(&s, fmt, ap);
        va_end(ap);
        return r < 0 ? NULL : s;
}

/* The KERNEL column; warns on err about knobs the profile sets that cannot be applied. */
static char *kernel_column(const KnobRef *ref, const char *sysroot, bool set, FILE *err) {
        char name[64];
        int r = knob_supported(ref, sysroot);

        knob_ref_format(ref, name, sizeof(name));
        if (set && r == 0 && ref->desc->patch)
                fprintf(err, "netpolld: warning: %s is not supported by this kernel (needs kernel-patches/%s); "
                        "it will be skipped\n", name, ref->desc->patch);
        else if (set && r == 0)
                fprintf(err, "netpolld: warning: %s is not supported by this kernel; it will be skipped\n", name);
        else if (set && r == -ENODEV)
                fprintf(err, "netpolld: warning: %s: device %s does not exist; it will be skipped\n", name,
                        ref->device);
        else if (set && r < 0)
                fprintf(err, "netpolld: warning: %s: cannot check whether this kernel has it: %s\n", name,
                        strerror(-r));

        if (r > 0)
                return strdup("supported");
        if (r == 0)
                return ref->desc->patch ? xasprintf("needs kernel-patches/%s", ref->desc->patch) : strdup("absent");
        if (r == -ENODEV)
                return strdup("no such device");
        return xasprintf("unknown (%s)", strerror(-r));
}

static int knob_row(Table *t, const KnobRef *ref, const ProfileKnob *k, const char *sysroot, FILE *err) {
        char name[64];

        return table_add(t, (char *[]){
                                    strdup(knob_ref_format(ref, name, sizeof(name))),
                                    k ? knob_format_value(ref->desc, &k->value) : strdup("-"),
                                    k ? xasprintf("%s:%u", k->origin.file, k->origin.line) : strdup("-"),
                                    kernel_column(ref, sysroot, k, err),
                            });
}

static int print_knobs(const Profile *p, const char *sysroot, FILE *out, FILE *err) {
        Table t = { .ncols = 4 };
        int r;

        r = table_add(&t, (char *[]){ strdup("KNOB"), strdup("VALUE"), strdup("SET BY"), strdup("KERNEL") });
        /* Every global knob, so the table also shows what the profile leaves alone. */
        for (size_t i = 0; i < knob_catalog_size && r >= 0; i++) {
                KnobRef ref = { .desc = &knob_catalog[i] };
                if (ref.desc->scope == KNOB_GLOBAL)
                        r = knob_row(&t, &ref, profile_get_knob(p, &ref), sysroot, err);
        }
        for (size_t i = 0; i < p->n_knobs && r >= 0; i++)
                if (p->knobs[i].ref.desc->scope != KNOB_GLOBAL)
                        r = knob_row(&t, &p->knobs[i].ref, &p->knobs[i], sysroot, err);
        if (r >= 0)
                table_print(&t, out, "");
        table_done(&t);
        return r;
}

static int print_settings(const Profile *p, const char *section, const char *none, FILE *out) {
        Table t = { .ncols = 3 };
        int r = 0;

        fprintf(out, "\n[%s]\n", section);
        for (size_t i = 0; i < p->n_settings && r >= 0; i++) {
                const ProfileSetting *s = &p->settings[i];
                if (streq(s->section, section))
                        r = table_add(&t, (char *[]){ strdup(s->key), strdup(s->value),
                                                      xasprintf("%s:%u", s->origin.file, s->origin.line) });
        }
        if (r >= 0 && t.nrows == 0)
                fprintf(out, "  %s\n", none);
        else if (r >= 0)
                table_print(&t, out, "  ");
        table_done(&t);
        return r;
}

/* [rule NAME] sections in file order, which is also the order among equal priorities. */
static int print_rules(const DaemonConfig *c, FILE *out) {
        Table t = { .ncols = 4 };
        char start[32], stop[32];
        int r = 0;

        if (c->n_rules == 0)
                return 0;
        fputs("Rules:   (highest priority wins, then the first in the file)\n", out);
        r = table_add(&t, (char *[]){ strdup("RULE"), strdup("WAITS FOR"), strdup("PROFILE"),
                                      strdup("PRIORITY, DELAYS, SET BY") });
        for (size_t i = 0; i < c->n_rules && r >= 0; i++) {
                const Rule *rule = &c->rules[i];
                r = table_add(&t, (char *[]){
                                          strdup(rule->name),
                                          xasprintf("%s %s", rule_kind_to_string(rule->kind), rule->match),
                                          strdup(rule->profile),
                                          xasprintf("%u, start %s, stop %s, %s:%u", rule->priority,
                                                    policy_format_usec(start, sizeof(start), rule->start_delay_us),
                                                    policy_format_usec(stop, sizeof(stop), rule->stop_delay_us),
                                                    rule->file, rule->line),
                                  });
        }
        if (r >= 0)
                table_print(&t, out, "  ");
        table_done(&t);
        return r;
}

static int print_config(const DaemonConfig *c, const Profile *p, const char *sysroot, FILE *out, FILE *err) {
        char interval[32];
        int r;

        fprintf(out, "Config:  %s\n", c->path ?: "(built-in defaults)");
        fprintf(out, "  %-12s%s\n", "profile", c->profile);
        fprintf(out, "  %-12s%s\n", "interval", policy_format_usec(interval, sizeof(interval), c->interval_us));
        fprintf(out, "  %-12s%s\n", "rollback", rollback_to_string(c->rollback));
        fprintf(out, "  %-12s%s\n", "dry-run", c->dry_run ? "yes" : "no");
        fprintf(out, "  %-12s%s\n", "state-dir", c->state_dir);
        if (c->n_rules > 0)
                fprintf(out, "  %s  %s\n", "rule-scan-interval",
                        policy_format_usec(interval, sizeof(interval), c->rule_scan_us));
        r = print_rules(c, out);
        if (r < 0)
                return r;
        fprintf(out, "Profile: %s (%s)\n", p->name, p->path);
        if (p->description && p->description[0])
                fprintf(out, "  %s\n", p->description);
        if (p->chain && p->chain[0] && p->chain[1]) {
                fputs("  include chain:", out);
                for (size_t i = 0; p->chain[i]; i++)
                        fprintf(out, "%s%s", i ? " -> " : " ", p->chain[i]);
                fputc('\n', out);
        }
        fputc('\n', out);
        r = print_knobs(p, sysroot, out, err);
        if (r >= 0)
                r = print_settings(p, "adaptive", "(defaults)", out);
        if (r >= 0)
                r = print_settings(p, "irq", "(IRQ steering off: no devices)", out);
        if (r >= 0)
                fputs("\nConfiguration is valid.\n", out);
        return r;
}

static void print_errors(FILE *err, int r, char **errors, const char *what) {
        if (r >= 0)
                return;
        if (!errors || !errors[0])
                fprintf(err, "netpolld: %s: %s\n", what, strerror(-r));
        for (size_t i = 0; errors && errors[i]; i++)
                fprintf(err, "netpolld: %s\n", errors[i]);
}

int check_config(const char *config_path, const char *profile_override, char *const *profile_dirs,
                 const char *sysroot, FILE *out, FILE *err) {
        _cleanup_(manager_freep) Manager *m = NULL;
        _cleanup_(config_freep) DaemonConfig *c = NULL;
        _cleanup_(profile_freep) Profile *p = NULL;
        _cleanup_(strv_freep) char **config_errors = NULL, **profile_errors = NULL;
        const ManagerOptions o = {
                .config_path = config_path,
                .profile = profile_override,
                .profile_dirs = profile_dirs,
                .sysroot = sysroot,
        };
        const char *profile;
        int rc, rp = 0, r;

        /* The daemon's own steps (manager_load_policy()), each taken even when one before failed. */
        r = manager_new(&m, &o);
        if (r < 0) {
                fprintf(err, "netpolld: %s\n", strerror(-r));
                return 1;
        }
        rc = manager_load_config(m, &c, &config_errors);
        /* Each rule's profile is loaded as a switch would load it. */
        if (rc >= 0)
                rc = manager_check_rules(m, c, &config_errors);
        /* With a broken config the profile is still checked when known, so one run shows every error. */
        profile = manager_profile_name(m, NULL, c);
        if (profile)
                rp = manager_load_profile(m, profile, &p, &profile_errors);
        if (rc < 0 || rp < 0) {
                print_errors(err, rc, config_errors, config_path ?: NETPOLLD_CONF_FILE);
                print_errors(err, rp, profile_errors, profile);
                return 1;
        }
        r = print_config(c, p, sysroot, out, err);
        if (r < 0) {
                fprintf(err, "netpolld: %s\n", strerror(-r));
                return 1;
        }
        return 0;
}
