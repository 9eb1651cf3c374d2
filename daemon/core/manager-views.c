/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * manager-views.c: the rows of views.h, from the Manager's knobs, the
 * profile search path and the adapter's monitor.
 */
#include "views.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapt.h"
#include "macro.h"
#include "monitor.h"
#include "strv.h"

/* Frees the n strings given (a row's own). */
static void free_strings(size_t n, ...) {
        va_list ap;

        va_start(ap, n);
        while (n-- > 0)
                free(va_arg(ap, char *));
        va_end(ap);
}

void knob_rows_free(KnobRow *rows, size_t n) {
        for (size_t i = 0; rows && i < n; i++)
                free_strings(2, rows[i].name, rows[i].value);
        free(rows);
}

int manager_list_knobs(Manager *m, KnobRow **ret, size_t *ret_n) {
        KnobRow *rows = calloc(m->n_knobs ?: 1, sizeof(KnobRow));

        if (!rows)
                return -ENOMEM;
        for (size_t i = 0; i < m->n_knobs; i++) {
                const KnobState *k = &m->knobs[i];
                const KnobDesc *d = k->ref.desc;
                char name[64];
                KnobValue v;
                int s = knob_supported(&k->ref, m->sysroot);

                rows[i] = (KnobRow){
                        .name = strdup(knob_ref_format(&k->ref, name, sizeof(name))),
                        .unit = d->unit,
                        .origin = origin_to_string(s > 0 ? manager_knob_origin(m, &k->ref) : ORIGIN_DEFAULT),
                        .supported = s > 0,
                        .needs = s > 0 ? "" : knob_needs(d),
                        .summary = d->summary,
                };
                if (s > 0 && knob_read(&k->ref, m->sysroot, &v) >= 0)
                        rows[i].value = knob_format_value(d, &v);
                else
                        rows[i].value = strdup("");
                if (!rows[i].name || !rows[i].value) {
                        knob_rows_free(rows, i + 1);
                        return -ENOMEM;
                }
        }
        *ret = rows;
        *ret_n = m->n_knobs;
        return 0;
}

void profile_rows_free(ProfileRow *rows, size_t n) {
        for (size_t i = 0; rows && i < n; i++)
                free_strings(3, rows[i].name, rows[i].path, rows[i].summary);
        free(rows);
}

int manager_list_profiles(Manager *m, ProfileRow **ret, size_t *ret_n) {
        _cleanup_(strv_freep) char **names = NULL;
        ProfileRow *rows;
        size_t n = 0;
        int r;

        r = profile_list(m->profile_dirs, &names);
        if (r < 0)
                return r;
        rows = calloc(strv_length(names) ?: 1, sizeof(ProfileRow));
        if (!rows)
                return -ENOMEM;
        for (char **name = names; *name; name++) {
                ProfileRow *row = &rows[n];

                /* A broken profile is still listed, with its first error, so a person can find and fix it. */
                r = profile_summary(*name, m->profile_dirs, &row->path, &row->summary);
                if (r == -ENOENT)
                        continue; /* removed since it was listed */
                if (r >= 0 && !(row->name = strdup(*name)))
                        r = -ENOMEM;
                n++;
                if (r < 0) {
                        profile_rows_free(rows, n);
                        return r;
                }
        }
        *ret = rows;
        *ret_n = n;
        return 0;
}

void profile_lines_free(ProfileLine *lines, size_t n) {
        for (size_t i = 0; lines && i < n; i++)
                free_strings(3, lines[i].key, lines[i].value, lines[i].origin);
        free(lines);
}

static int line_origin(ProfileLine *l, const Origin *o) {
        return asprintf(&l->origin, "%s:%u", o->file, o->line) < 0 ? -ENOMEM : 0;
}

int manager_show_profile(Manager *m, const char *name, Profile **ret_profile, ProfileLine **ret_lines,
                         size_t *ret_n, char **ret_message) {
        _cleanup_(profile_freep) Profile *p = NULL;
        _cleanup_(strv_freep) char **errors = NULL;
        ProfileLine *lines;
        size_t n = 0;
        int r;

        r = profile_load(&p, name, m->profile_dirs, &errors);
        if (r < 0) {
                *ret_message = strv_join(errors, "\n");
                if (!*ret_message)
                        return -ENOMEM;
                return r == -ENOENT ? -MANAGER_E_UNKNOWN_PROFILE : -MANAGER_E_INVALID_PROFILE;
        }
        lines = calloc(p->n_knobs + p->n_settings ?: 1, sizeof(ProfileLine));
        if (!lines)
                return -ENOMEM;
        for (size_t i = 0; i < p->n_knobs; i++) {
                const ProfileKnob *pk = &p->knobs[i];
                ProfileLine *l = &lines[n++];
                char key[64];

                l->section = "knobs";
                l->key = strdup(knob_ref_format(&pk->ref, key, sizeof(key)));
                l->value = knob_format_value(pk->ref.desc, &pk->value);
                if (!l->key || !l->value || line_origin(l, &pk->origin) < 0)
                        goto oom;
        }
        for (size_t i = 0; i < p->n_settings; i++) {
                const ProfileSetting *s = &p->settings[i];
                ProfileLine *l = &lines[n++];

                l->section = s->section;
                l->key = strdup(s->key);
                l->value = strdup(s->value);
                if (!l->key || !l->value || line_origin(l, &s->origin) < 0)
                        goto oom;
        }
        *ret_profile = TAKE_PTR(p);
        *ret_lines = lines;
        *ret_n = n;
        return 0;
oom:
        profile_lines_free(lines, n);
        return -ENOMEM;
}

int manager_load(Manager *m, const char **ret_source, bool *ret_psi, CpuLoad **ret_cpus, size_t *ret_n,
                 char **ret_message) {
        const Monitor *mon;
        CpuLoad *cpus;
        size_t n = 0;
        int r;

        r = adapter_load(m->adapter, &mon);
        if (r == -ENODEV)
                return asprintf(ret_message, "CPU and softnet statistics cannot be read below %s", m->sysroot) < 0
                               ? -ENOMEM : -EIO;
        if (r < 0)
                return r;
        cpus = calloc(monitor_n_cpus(mon) ?: 1, sizeof(CpuLoad));
        if (!cpus)
                return -ENOMEM;
        for (size_t i = 0; i < monitor_n_cpus(mon); i++) {
                const MonitorCpu *c = monitor_cpu(mon, i);

                if (c && c->online) /* offline CPUs have no row */
                        cpus[n++] = (CpuLoad){
                                .cpu = (uint32_t)i,
                                .runnable_milli = c->runnable_milli,
                                .net_rx_per_sec = c->net_rx_per_sec,
                                .net_tx_per_sec = c->net_tx_per_sec,
                                .processed_per_sec = c->processed_per_sec,
                                .squeeze_per_sec = c->squeeze_per_sec,
                                .drops_per_sec = c->drops_per_sec,
                        };
        }
        *ret_source = monitor_source_name(mon);
        *ret_psi = monitor_uses_psi(mon);
        *ret_cpus = cpus;
        *ret_n = n;
        return 0;
}

const char *manager_runqueue_source(const Manager *m) {
        /* Never sample here: that would cut GetLoad's window short. */
        const Monitor *mon = adapter_monitor(m->adapter);
        return mon ? monitor_source_name(mon) : "";
}

bool manager_uses_pressure(const Manager *m) {
        const Monitor *mon = adapter_monitor(m->adapter);
        return mon && monitor_uses_psi(mon);
}
