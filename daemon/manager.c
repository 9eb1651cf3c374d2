/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * manager.c: knob ownership. Every write goes through write_knob(), every
 * hand-back through restore_knob(), so journaling, dry-run, origin tracking
 * and change reporting happen in exactly one place each.
 */
#include "manager.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "irqpin.h"
#include "log.h"
#include "manager-internal.h"
#include "strv.h"

static const char *const origin_names[_ORIGIN_MAX] = {
        [ORIGIN_DEFAULT] = "default",   [ORIGIN_PROFILE] = "profile",   [ORIGIN_MANUAL] = "manual",
        [ORIGIN_ADAPTIVE] = "adaptive", [ORIGIN_EXTERNAL] = "external",
};

const char *knob_origin_to_string(KnobOrigin o) {
        return o < _ORIGIN_MAX ? origin_names[o] : "unknown";
}

char *ref_name(const KnobRef *r) {
        char buf[64];
        return strdup(knob_ref_format(r, buf, sizeof(buf)));
}

int manager_new(Manager **ret, const ManagerOptions *o) {
        _cleanup_(manager_freep) Manager *m = calloc(1, sizeof(Manager));
        if (!m)
                return -ENOMEM;
        m->sysroot = strdup(o->sysroot ?: "/");
        m->profile_dirs = strv_copy(o->profile_dirs);
        if (!m->sysroot || !m->profile_dirs)
                return -ENOMEM;
        if ((o->config_path && !(m->config_path = strdup(o->config_path))) ||
            (o->profile && !(m->profile_override = strdup(o->profile))) ||
            (o->state_dir && !(m->state_dir_override = strdup(o->state_dir))))
                return -ENOMEM;
        m->dry_run_override = o->dry_run;

        /* Global knobs are always listed; per-device ones appear when used. */
        for (size_t i = 0; i < knob_catalog_size; i++) {
                if (knob_catalog[i].scope != KNOB_GLOBAL)
                        continue;
                KnobRef ref = { .desc = &knob_catalog[i] };
                if (!manager_knob_state(m, &ref))
                        return -ENOMEM;
        }
        *ret = TAKE_PTR(m);
        return 0;
}

Manager *manager_free(Manager *m) {
        if (!m)
                return NULL;
        free(m->sysroot);
        strv_free(m->profile_dirs);
        free(m->config_path);
        free(m->profile_override);
        free(m->state_dir_override);
        free(m->profile_request);
        config_free(m->config);
        profile_free(m->profile);
        journal_free(m->journal);
        free(m->knobs);
        free(m);
        return NULL;
}

bool manager_dry_run(const Manager *m) {
        return m->dry_run_override || (m->config && m->config->dry_run);
}

const char *manager_state_dir(const Manager *m) {
        if (m->state_dir_override)
                return m->state_dir_override;
        return m->config ? m->config->state_dir : DEFAULT_STATE_DIR;
}

KnobState *manager_knob_state(Manager *m, const KnobRef *ref) {
        for (size_t i = 0; i < m->n_knobs; i++)
                if (m->knobs[i].ref.desc == ref->desc && streq(m->knobs[i].ref.device, ref->device))
                        return &m->knobs[i];

        KnobState *k = realloc(m->knobs, (m->n_knobs + 1) * sizeof(KnobState));
        if (!k)
                return NULL;
        m->knobs = k;
        k = &m->knobs[m->n_knobs++];
        *k = (KnobState){ .ref = *ref, .origin = ORIGIN_DEFAULT };
        return k;
}

int manager_load_policy(Manager *m, const char *profile_override, DaemonConfig **ret_config,
                        Profile **ret_profile, char ***ret_errors) {
        _cleanup_(config_freep) DaemonConfig *c = NULL;
        _cleanup_(profile_freep) Profile *p = NULL;
        int r;

        r = config_load(&c, m->config_path, ret_errors);
        if (r < 0)
                return r;
        r = profile_load(&p, profile_override ?: m->profile_override ?: c->profile, m->profile_dirs, ret_errors);
        if (r < 0)
                return r;
        *ret_config = TAKE_PTR(c);
        *ret_profile = TAKE_PTR(p);
        return 0;
}

static void report_change(Manager *m, const KnobState *k, const char *old, const char *new, const char *reason) {
        _cleanup_(freep) char *name = ref_name(&k->ref);
        if (!name || streq_ptr(old, new))
                return;
        if (m->on_change)
                m->on_change(m, name, strempty(old), strempty(new), reason, m->userdata);
}

/* Current value formatted with units, or NULL when it cannot be read. */
char *read_formatted(Manager *m, const KnobRef *ref, KnobValue *ret) {
        KnobValue v;
        if (knob_read(ref, m->sysroot, &v) < 0)
                return NULL;
        if (ret)
                *ret = v;
        return knob_format_value(ref->desc, &v);
}

int unsupported_message(const KnobRef *ref, int r, char **ret_message) {
        char name[64];
        knob_ref_format(ref, name, sizeof(name));
        if (r == -ENODEV)
                return asprintf(ret_message, "%s: no network device '%s'", name, ref->device) < 0
                               ? -ENOMEM : -MANAGER_E_NO_DEVICE;
        if (ref->desc->patch)
                return asprintf(ret_message,
                                "%s is not supported by this kernel: it needs kernel-patches/%s",
                                name, ref->desc->patch) < 0 ? -ENOMEM : -MANAGER_E_UNSUPPORTED;
        return asprintf(ret_message, "%s is not available on this kernel (its file is missing)", name) < 0
                       ? -ENOMEM : -MANAGER_E_UNSUPPORTED;
}

/*
 * The one place that changes a knob: support check, journal, write, verify,
 * origin, change report. Returns 0 or a MANAGER_E_* error with a message.
 */
int write_knob(Manager *m, KnobState *k, const KnobValue *v, KnobOrigin origin, const char *reason,
                      const char *why, char **ret_message) {
        _cleanup_(freep) char *name = ref_name(&k->ref), *old = NULL, *want = NULL, *now = NULL;
        KnobValue cur, readback;
        int r;

        if (!name)
                return -ENOMEM;
        r = knob_supported(&k->ref, m->sysroot);
        if (r <= 0)
                return unsupported_message(&k->ref, r == 0 ? -EOPNOTSUPP : r, ret_message);

        old = read_formatted(m, &k->ref, &cur);
        want = knob_format_value(k->ref.desc, v);
        if (!want)
                return -ENOMEM;

        if (manager_dry_run(m)) {
                log_info("dry-run: would set %s from %s to %s (%s)", name, old ?: "(unreadable)", want, why ?: reason);
                return 0;
        }

        if (old && knob_value_equal(k->ref.desc, &cur, v)) {
                /* Already in place: nothing to write and nothing to restore later. */
                k->origin = origin;
                k->owned = true;
                k->last = *v;
                return 0;
        }

        r = knob_write(&k->ref, m->sysroot, v, m->journal, &readback);
        if (r == -EDOM) {
                now = knob_format_value(k->ref.desc, &readback);
                log_warning("%s: the kernel stored %s instead of %s", name, strempty(now), want);
                k->last = readback;
        } else if (r < 0) {
                const char *hint = r == -EINVAL ? knob_refusal_hint(k->ref.desc) : NULL;
                if (asprintf(ret_message, "the kernel refused %s = %s: %s%s%s", name, want, strerror(-r),
                             hint ? "; " : "", strempty(hint)) < 0)
                        return -ENOMEM;
                return -MANAGER_E_KERNEL_REFUSED;
        } else {
                now = TAKE_PTR(want);
                k->last = *v;
        }

        k->origin = origin;
        k->owned = true;
        log_info("%s: %s -> %s (%s)", name, old ?: "?", strempty(now), why ?: reason);
        report_change(m, k, old, now, reason);
        return 0;
}

/* Puts back what the journal recorded for the knob's files and gives up ownership. */
void restore_knob(Manager *m, KnobState *k, const char *reason) {
        _cleanup_(strv_freep) char **paths = NULL;
        _cleanup_(freep) char *name = ref_name(&k->ref), *old = NULL, *now = NULL;
        bool restored = false;

        if (!name)
                return;
        if (manager_dry_run(m)) {
                log_info("dry-run: would restore %s to its original value (%s)", name, reason);
                return;
        }
        old = read_formatted(m, &k->ref, NULL);
        if (knob_paths(&k->ref, m->sysroot, &paths) >= 0 && m->journal)
                for (char **p = paths; *p; p++) {
                        if (!journal_original(m->journal, *p))
                                continue;
                        int r = journal_restore(m->journal, m->sysroot, *p);
                        if (r < 0)
                                log_warning_errno(r, "%s: could not restore %s: %m", name, *p);
                        else
                                restored = true;
                }
        k->origin = ORIGIN_DEFAULT;
        k->owned = false;
        if (!restored)
                return;
        now = read_formatted(m, &k->ref, NULL);
        log_info("%s: %s -> %s (%s, original value)", name, old ?: "?", now ?: "?", reason);
        report_change(m, k, old, now, reason);
}

static void apply_profile(Manager *m, bool switching) {
        const Profile *p = m->profile;

        for (size_t i = 0; i < p->n_knobs; i++) {
                const ProfileKnob *pk = &p->knobs[i];
                _cleanup_(freep) char *msg = NULL;
                char name[64];
                KnobState *k = manager_knob_state(m, &pk->ref);
                int r;

                if (!k) {
                        log_oom();
                        return;
                }
                knob_ref_format(&pk->ref, name, sizeof(name));
                if (k->origin == ORIGIN_EXTERNAL) {
                        log_notice("%s was changed outside netpolld; leaving it alone ('netpollctl reset %s' hands it back)",
                                   name, name);
                        continue;
                }
                if (k->origin == ORIGIN_MANUAL && !switching)
                        continue;
                r = write_knob(m, k, &pk->value, ORIGIN_PROFILE, "profile", NULL, &msg);
                if (r == -MANAGER_E_UNSUPPORTED || r == -MANAGER_E_NO_DEVICE)
                        log_notice("%s, skipping it", msg);
                else if (r < 0)
                        log_warning("%s, skipping it", msg ?: strerror(-r));
        }

        for (size_t i = 0; i < m->n_knobs; i++) {
                KnobState *k = &m->knobs[i];
                if (profile_get_knob(p, &k->ref))
                        continue;
                if (k->origin == ORIGIN_PROFILE || k->origin == ORIGIN_ADAPTIVE ||
                    (k->origin == ORIGIN_MANUAL && switching))
                        restore_knob(m, k, "reset");
        }
}

int manager_apply(Manager *m, DaemonConfig *config, Profile *profile, bool switching) {
        config_free(m->config);
        m->config = config;
        profile_free(m->profile);
        m->profile = profile;
        apply_profile(m, switching);
        if (m->on_applied)
                m->on_applied(m, m->applied_userdata);
        return 0;
}

static void replay_report(const char *knob, const char *path, const char *original, int error, void *userdata) {
        if (error < 0)
                log_warning_errno(error, "could not restore %s (%s) to '%s': %m; it stays in the journal", knob,
                                  path, original);
        else
                log_info("restored %s (%s) to '%s'", knob, path, original);
}

int manager_start(Manager *m, DaemonConfig *config, Profile *profile, char **ret_message) {
        _cleanup_(freep) char *reason = NULL;
        int r;

        config_free(m->config);
        m->config = config;
        profile_free(m->profile);
        m->profile = profile;

        r = journal_open(&m->journal, manager_state_dir(m), &reason);
        if (r == -EBADMSG) {
                if (asprintf(ret_message,
                             "the restore journal in %s is corrupt (%s); it was left in place: inspect it, "
                             "restore the values it lists by hand if needed, then remove it",
                             manager_state_dir(m), strempty(reason)) < 0)
                        return -ENOMEM;
                return r;
        }
        if (r < 0) {
                if (asprintf(ret_message, "cannot open the restore journal in %s: %s", manager_state_dir(m),
                             strerror(-r)) < 0)
                        return -ENOMEM;
                return r;
        }

        /*
         * Per-NAPI originals ("napi:" entries) are set over netlink, not
         * written as files: the hook does that. It is set here, before the
         * replay, because irqpin_new() only runs after manager_start(); it
         * needs no IrqPin, and the stop's replay uses it as well.
         */
        journal_set_restore_hook(m->journal, irqpin_napi_restore_entry, NULL);

        if (journal_size(m->journal) > 0) {
                if (manager_dry_run(m))
                        log_notice("dry-run: a previous run left %zu values to restore in %s; not restoring them",
                                   journal_size(m->journal), journal_path(m->journal));
                else {
                        log_notice("a previous run did not stop cleanly: restoring %zu values from %s",
                                   journal_size(m->journal), journal_path(m->journal));
                        r = journal_replay(m->journal, m->sysroot, replay_report, NULL);
                        if (r < 0)
                                log_warning_errno(r, "could not update %s: %m", journal_path(m->journal));
                }
        }

        apply_profile(m, true);
        return 0;
}

bool manager_check_knob_external(Manager *m, KnobState *k) {
        _cleanup_(strv_freep) char **paths = NULL;
        _cleanup_(freep) char *name = NULL, *was = NULL, *now = NULL;
        KnobValue v;
        int r;

        if (!k->owned)
                return false;
        r = knob_read(&k->ref, m->sysroot, &v);
        if (r >= 0 && knob_value_equal(k->ref.desc, &v, &k->last))
                return false;

        name = ref_name(&k->ref);
        was = knob_format_value(k->ref.desc, &k->last);
        if (!name || !was) {
                log_oom();
                return false;
        }
        k->owned = false;
        if (r == -ENODEV) {
                /* The device went away, and its values with it. */
                log_info("%s: device %s is gone; forgetting its values", name, k->ref.device);
                k->origin = ORIGIN_DEFAULT;
        } else {
                now = r >= 0 ? knob_format_value(k->ref.desc, &v) : NULL;
                log_warning("%s was changed outside netpolld (%s -> %s); leaving it alone until "
                            "'netpollctl reset %s'",
                            name, was, now ?: "unreadable", name);
                k->origin = ORIGIN_EXTERNAL;
                report_change(m, k, was, now ?: "", "external");
        }
        /* Never restore over somebody else's value on stop. */
        if (m->journal && knob_paths(&k->ref, m->sysroot, &paths) >= 0)
                for (char **p = paths; *p; p++)
                        if (journal_original(m->journal, *p))
                                (void)journal_forget(m->journal, *p);
        return true;
}

void manager_check_external(Manager *m) {
        for (size_t i = 0; i < m->n_knobs; i++)
                (void)manager_check_knob_external(m, &m->knobs[i]);
}

int manager_stop(Manager *m) {
        if (!m->journal || journal_size(m->journal) == 0)
                return 0;
        if (manager_dry_run(m))
                return 0;
        if (m->config && m->config->rollback == ROLLBACK_NOT_ON_EXIT) {
                log_info("rollback = not-on-exit: leaving %zu changed values in place", journal_size(m->journal));
                int r = journal_discard(m->journal);
                if (r < 0)
                        return log_error_errno(r, "could not remove %s: %m", journal_path(m->journal));
                return 0;
        }
        log_info("restoring %zu changed values", journal_size(m->journal));
        int r = journal_replay(m->journal, m->sysroot, replay_report, NULL);
        if (r < 0)
                return log_error_errno(r, "could not update %s: %m", journal_path(m->journal));
        if (r > 0)
                return log_error_errno(-EIO, "%d values could not be restored; they stay in %s", r,
                                       journal_path(m->journal));
        return 0;
}

const char *manager_profile_request(const Manager *m) {
        return m->profile_request ?: m->profile_override;
}

static int load_and_apply(Manager *m, const char *profile, bool switching, char **ret_message) {
        _cleanup_(config_freep) DaemonConfig *c = NULL;
        _cleanup_(profile_freep) Profile *p = NULL;
        _cleanup_(strv_freep) char **errors = NULL;
        int r;

        r = manager_load_policy(m, profile, &c, &p, &errors);
        if (r < 0) {
                *ret_message = errors ? strv_join(errors, "\n") : strdup(strerror(-r));
                if (!*ret_message)
                        return -ENOMEM;
                return r == -ENOENT && switching ? -MANAGER_E_UNKNOWN_PROFILE : -MANAGER_E_INVALID_PROFILE;
        }
        manager_apply(m, TAKE_PTR(c), TAKE_PTR(p), switching);
        return 0;
}

int manager_reload(Manager *m, char **ret_message) {
        return load_and_apply(m, manager_profile_request(m), false, ret_message);
}

int manager_switch_profile(Manager *m, const char *name, char **ret_message) {
        _cleanup_(freep) char *copy = strdup(name);
        int r;

        if (!copy)
                return -ENOMEM;
        if (!strchr(name, '/') && !profile_name_valid(name))
                return asprintf(ret_message, "'%s' is not a valid profile name", name) < 0
                               ? -ENOMEM : -MANAGER_E_UNKNOWN_PROFILE;
        r = load_and_apply(m, name, true, ret_message);
        if (r < 0)
                return r;
        free(m->profile_request);
        m->profile_request = TAKE_PTR(copy);
        return 0;
}
