/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * manager-owners.c: names the most likely other owner of a value (see
 * other-owner.h) from the sensing layer's readers, comparing what they set
 * with the kernel's value as the owner compares values.
 */
#include "other-owner.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "explain.h"
#include "irqbalance.h"
#include "log.h"
#include "macro.h"
#include "manager-internal.h"
#include "sysctld.h"
#include "sysroot.h"
#include "tuned-active.h"

void other_owners_free(OtherOwner *v, size_t n) {
        for (size_t i = 0; i < n; i++) {
                free(v[i].where);
                free(v[i].note);
        }
        free(v);
}

char *other_owner_format(const OtherOwner *o) {
        char *s;

        if (asprintf(&s, "%s %s%s%s%s", o->kind, o->where, o->note[0] ? " (" : "", o->note, o->note[0] ? ")" : "") < 0)
                return NULL;
        return s;
}

typedef struct Owners {
        OtherOwner *v;
        size_t n;
} Owners;

/* Appends one owner; where and note are taken (freed on failure). */
static int add_owner(Owners *o, const char *kind, char *where, char *note) {
        OtherOwner *a;

        if (!where || !note) {
                free(where);
                free(note);
                return -ENOMEM;
        }
        a = realloc(o->v, (o->n + 1) * sizeof(OtherOwner));
        if (!a) {
                free(where);
                free(note);
                return -ENOMEM;
        }
        o->v = a;
        o->v[o->n++] = (OtherOwner){ .kind = kind, .where = where, .note = note };
        return 0;
}

static void on_sysctld_skip(const char *file, unsigned line, int r, void *userdata) {
        (void)userdata;
        if (line > 0)
                log_notice("%s:%u: %s, ignoring this line while looking for who set a value",
                           file, line, r == -E2BIG ? "line too long" : r == -EBADMSG ? "binary data" : strerror(-r));
        else
                log_notice("%s: %s, ignoring this file while looking for who set a value", file,
                           r == -EFBIG    ? "larger than 1 MiB"
                           : r == -ENXIO  ? "not a regular file"
                           : r == -E2BIG  ? "too many files in this directory"
                                          : strerror(-r));
}

/* "net.core.busy_read" for a sysctl target's key; caller frees. */
static char *dotted_key(const Target *t) {
        char *k = strdup(startswith(t->key, "/proc/sys/") ?: t->key);

        for (char *p = k; p && *p; p++)
                *p = *p == '/' ? '.' : *p == '.' ? '/' : *p;
        return k;
}

/* Adds an owner whose FILE:LINE sets t's key to value; context ("" or "active profile ...: ") leads the note. */
static int add_line_owner(Owners *o, const char *kind, const Target *t, const char *file, unsigned line,
                          const char *context, const char *value) {
        _cleanup_(freep) char *dotted = dotted_key(t);
        char *where, *note;

        if (!dotted || asprintf(&where, "%s:%u", file, line) < 0)
                return -ENOMEM;
        if (asprintf(&note, "%s%s = %s", context, dotted, value) < 0)
                note = NULL;
        return add_owner(o, kind, where, note);
}

static int sysctl_owners(Manager *m, const Target *t, const char *value, Owners *o) {
        _cleanup_(sysctl_setting_done) SysctlSetting s = {};
        int r;

        r = sysctld_find(m->sysroot, t->key, &s, on_sysctld_skip, NULL);
        if (r <= 0 || !owner_value_equal(t->kind, s.value, value))
                return r;
        return add_line_owner(o, "sysctl.d", t, s.file, s.line, "", s.value);
}

static void on_tuned_skip(const char *message, void *userdata) {
        (void)userdata;
        log_notice("%s, ignoring it while looking for who set a value", message);
}

/* A running tuned whose active profile's [sysctl] sets the key to value. */
static int tuned_owners(Manager *m, const Target *t, const char *value, Owners *o) {
        _cleanup_(tuned_setting_done) TunedSetting s = {};
        _cleanup_(freep) char *context = NULL;
        int pid, r;

        pid = proc_find_comm(m->sysroot, "tuned");
        if (pid <= 0)
                return 0;
        r = tuned_active_find(m->sysroot, t->key, &s, on_tuned_skip, NULL);
        if (r <= 0 || !owner_value_equal(t->kind, s.value, value))
                return r;
        if (asprintf(&context, "active profile %s, pid %d: ", s.profile, pid) < 0)
                return -ENOMEM;
        return add_line_owner(o, "tuned", t, s.file, s.line, context, s.value);
}

/* A running irqbalance for an IRQ's affinity, and whether it bans that IRQ. */
static int irq_owners(Manager *m, const Target *t, Owners *o) {
        _cleanup_(freep) IrqbalanceInfo *info = malloc(sizeof(IrqbalanceInfo));
        char bans[160] = "", cpus[256] = "", *where, *note;
        const IrqbalanceBan *ban;
        unsigned irq;

        if (!info)
                return -ENOMEM;
        if (sscanf(t->key, "/proc/irq/%u/", &irq) != 1)
                return 0;
        irqbalance_info(m->sysroot, info);
        if (info->pid <= 0)
                return 0;
        if (info->skipped[0])
                log_notice("%s, ignoring it while looking for who set a value", info->skipped);
        ban = irqbalance_ban(info, irq);
        if (asprintf(&where, "pid %d", info->pid) < 0)
                return -ENOMEM;
        if (ban)
                snprintf(bans, sizeof(bans), " (%s), so it should not move it", ban->where);
        if (info->banned_cpus[0])
                snprintf(cpus, sizeof(cpus), "; keeps IRQs off CPUs %s (%s)", info->banned_cpus,
                         info->banned_cpus_where);
        if (asprintf(&note, "%s IRQ %u%s%s", ban ? "bans" : "does not ban", irq, bans, cpus) < 0)
                note = NULL;
        return add_owner(o, "irqbalance", where, note);
}

int manager_other_owners(Manager *m, const Target *t, const char *value, OtherOwner **ret, size_t *ret_n) {
        Owners o = {};
        int r = 0;

        /* sysctl.d first: tuned (reapply_sysctl = 1, its default) applies the sysctl.d files after its own. */
        if (value && t->kind == TARGET_SYSCTL) {
                r = sysctl_owners(m, t, value, &o);
                if (r >= 0)
                        r = tuned_owners(m, t, value, &o);
        }
        else if (t->kind == TARGET_IRQ)
                r = irq_owners(m, t, &o);
        if (r < 0) {
                other_owners_free(o.v, o.n);
                return r;
        }
        *ret = o.v;
        *ret_n = o.n;
        return 0;
}

void manager_log_other_owner(Manager *m, const Target *t, const char *value) {
        OtherOwner *v = NULL;
        size_t n = 0;

        if (manager_other_owners(m, t, value, &v, &n) < 0) {
                log_oom();
                return;
        }
        if (n == 0)
                log_info("%s: no sysctl.d line, tuned profile or irqbalance known to netpolld sets it to %s; "
                         "who changed it is unknown", t->name, value ?: "this value");
        for (size_t i = 0; i < n; i++) {
                _cleanup_(freep) char *s = other_owner_format(&v[i]);
                log_notice("%s: %s set by %s", t->name, i == 0 ? "most likely" : "or", s ?: v[i].kind);
        }
        other_owners_free(v, n);
}

void other_owner_rows_free(OtherOwnerRow *v, size_t n) {
        for (size_t i = 0; i < n; i++) {
                free(v[i].target);
                free(v[i].value);
                free(v[i].owner.where);
                free(v[i].owner.note);
        }
        free(v);
}

typedef struct Rows {
        OtherOwnerRow *v;
        size_t n;
} Rows;

/* Appends a row per owner (taken), or one "unknown" row when unknown is set and there are none. */
static int add_rows(Rows *rows, const char *target, const char *value, OtherOwner *owners, size_t n, bool unknown) {
        size_t want = n > 0 ? n : unknown ? 1 : 0;
        OtherOwnerRow *a;

        if (want == 0)
                return 0;
        a = realloc(rows->v, (rows->n + want) * sizeof(OtherOwnerRow));
        if (!a)
                return -ENOMEM;
        rows->v = a;
        for (size_t i = 0; i < want; i++) {
                OtherOwnerRow *r = &rows->v[rows->n++];

                *r = (OtherOwnerRow){
                        .target = strdup(target),
                        .value = strdup(value ?: ""),
                        .owner = n > 0 ? owners[i] : (OtherOwner){ .kind = "", .where = strdup(""), .note = strdup("") },
                };
                if (n > 0)
                        owners[i] = (OtherOwner){};
                if (!r->target || !r->value || !r->owner.where || !r->owner.note)
                        return -ENOMEM;
        }
        return 0;
}

static int outside_rows(Manager *m, Rows *rows) {
        _cleanup_(freep) Target *targets = NULL;
        size_t n = 0;
        int r;

        if (!m->owner)
                return 0;
        r = owner_outside_targets(m->owner, &targets, &n);
        for (size_t i = 0; r >= 0 && i < n; i++) {
                _cleanup_(freep) char *now = NULL, *shown = NULL;
                OtherOwner *owners = NULL;
                size_t n_owners = 0;

                (void)owner_read(m->owner, &targets[i], &now);
                shown = now ? format_target_value(&targets[i], now) : strdup("");
                if (!shown)
                        return -ENOMEM;
                r = manager_other_owners(m, &targets[i], now, &owners, &n_owners);
                if (r >= 0)
                        r = add_rows(rows, targets[i].name, shown, owners, n_owners, true);
                other_owners_free(owners, n_owners);
        }
        return r;
}

int manager_other_owner_rows(Manager *m, const char *name, OtherOwnerRow **ret, size_t *ret_n, char **ret_message) {
        _cleanup_(explanation_done) Explanation e = {};
        Rows rows = {};
        int r;

        if (!name || !*name)
                r = outside_rows(m, &rows);
        else {
                r = manager_explain(m, name, &e, ret_message);
                for (size_t i = 0; r >= 0 && i < e.n_targets; i++) {
                        ExplainTarget *t = &e.targets[i];

                        r = add_rows(&rows, t->name, t->value, t->owners, t->n_owners, t->outside);
                }
        }
        if (r < 0) {
                other_owner_rows_free(rows.v, rows.n);
                return r;
        }
        *ret = rows.v;
        *ret_n = rows.n;
        return 0;
}
