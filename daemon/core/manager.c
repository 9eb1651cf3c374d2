/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * manager.c: the knob side of the daemon. A knob instance is one or more
 * kernel values (owner.h targets: one per file, one per queue for RPS/XPS);
 * every change goes through the owner with the layer that asks for it
 * (profile, controller, manual), so journaling, verification, outside
 * changes and change reports are the owner's, the same for every kind.
 */
#include "manager.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>
#include <unistd.h>

#include "adapt.h"
#include "conf-parser.h"
#include "irqpin.h"
#include "napi-backend.h"
#include "netdev-genl.h"
#include "log.h"
#include "manager-internal.h"
#include "other-owner.h"
#include "strv.h"

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
        m->cpuwake_fd = -ENOENT; /* taken by manager_run() */

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
        manager_rules_free(m); /* its sources hold the loop */
        config_free(m->config);
        profile_free(m->profile);
        /* Steering and adaptation use the owner and the loop: they go first. */
        irqpin_free(m->irqpin);
        adapter_free(m->adapter);
        owner_free(m->owner);
        journal_free(m->journal);
        if (m->napi)
                knob_set_napi_source(NULL);
        napi_backend_free(m->napi);
        netdev_genl_free(m->qstats_genl);
        if (m->cpuwake_fd >= 0)
                close(m->cpuwake_fd);
        sd_event_source_disable_unref(m->ownership_timer);
        sd_event_source_disable_unref(m->metrics_timer);
        if (m->listener && m->listener->gone)
                m->listener->gone(m->listener_data);
        sd_bus_flush_close_unref(m->systemd);
        sd_event_unref(m->event);
        free(m->knobs);
        livesock_clear(&m->live);
        free(m);
        return NULL;
}

void manager_listen(Manager *m, const ManagerListener *l, void *userdata) {
        m->listener = l;
        m->listener_data = userdata;
}

void manager_state_changed(Manager *m) {
        if (m->listener && m->listener->state_changed)
                m->listener->state_changed(m->listener_data);
}

bool manager_dry_run(const Manager *m) {
        return m->dry_run_override || (m->config && m->config->dry_run);
}

const char *manager_state_dir(const Manager *m) {
        if (m->journal) /* where the journal is: a reload does not move it */
                return journal_dir(m->journal);
        if (m->state_dir_override)
                return m->state_dir_override;
        return m->config ? m->config->state_dir : DEFAULT_STATE_DIR;
}

KnobState *manager_find_knob(const Manager *m, const KnobRef *ref) {
        for (size_t i = 0; i < m->n_knobs; i++)
                if (m->knobs[i].ref.desc == ref->desc && streq(m->knobs[i].ref.device, ref->device))
                        return &m->knobs[i];
        return NULL;
}

KnobState *manager_knob_state(Manager *m, const KnobRef *ref) {
        KnobState *found = manager_find_knob(m, ref);
        if (found)
                return found;

        KnobState *k = realloc(m->knobs, (m->n_knobs + 1) * sizeof(KnobState));
        if (!k)
                return NULL;
        m->knobs = k;
        k = &m->knobs[m->n_knobs++];
        *k = (KnobState){ .ref = *ref };
        return k;
}

int manager_load_config(Manager *m, DaemonConfig **ret, char ***ret_errors) {
        return config_load(ret, m->config_path, ret_errors);
}

int manager_check_rules(Manager *m, const DaemonConfig *c, char ***ret_errors) {
        _cleanup_(strv_freep) char **errors = NULL;
        int r = rules_check_profiles(c, m->profile_dirs, &errors);

        return r < 0 ? conf_return_errors(r, TAKE_PTR(errors), ret_errors) : 0;
}

const char *manager_profile_name(const Manager *m, const char *profile_override, const DaemonConfig *c) {
        return profile_override ?: m->profile_override ?: c ? c->profile : NULL;
}

int manager_load_profile(Manager *m, const char *name, Profile **ret, char ***ret_errors) {
        return profile_load(ret, name, m->profile_dirs, ret_errors);
}

int manager_load_policy(Manager *m, const char *profile_override, DaemonConfig **ret_config,
                        Profile **ret_profile, char ***ret_errors) {
        _cleanup_(config_freep) DaemonConfig *c = NULL;
        _cleanup_(profile_freep) Profile *p = NULL;
        int r;

        r = manager_load_config(m, &c, ret_errors);
        if (r < 0)
                return r;
        /* A rule whose profile cannot load would fail at the moment it matches: refuse it now. */
        r = manager_check_rules(m, c, ret_errors);
        if (r < 0)
                return r;
        r = manager_load_profile(m, manager_profile_name(m, profile_override, c), &p, ret_errors);
        if (r < 0)
                return r;
        *ret_config = TAKE_PTR(c);
        *ret_profile = TAKE_PTR(p);
        return 0;
}

/* A target's kernel text as people read it: with the knob's unit, CPU masks as lists. */
char *format_target_value(const Target *t, const char *text) {
        char name[sizeof(t->name)];
        KnobValue v;
        KnobRef ref;

        /* "rps-cpus@eth1:rx-0" and "napi-defer-hard-irqs@eth1:napi-8193" belong to the knob before ':'. */
        snprintf(name, sizeof(name), "%s", t->name);
        name[strcspn(name, ":")] = 0;
        if (t->kind == TARGET_NAPI) {
                NapiKnob k;
                const char *key = strrchr(t->key, ':');
                if (key && napi_knob_from_string(key + 1, &k) >= 0 &&
                    knob_parse_kernel(napi_knob_desc(k), text, &v) >= 0)
                        return knob_format_value(napi_knob_desc(k), &v);
        } else if (knob_ref_parse(name, &ref, NULL) >= 0 && knob_parse_kernel(ref.desc, text, &v) >= 0)
                return knob_format_value(ref.desc, &v);
        return strdup(text);
}

static void on_owner_change(const Target *t, const char *old, const char *new, const char *reason, void *userdata) {
        Manager *m = userdata;
        _cleanup_(freep) char *o = format_target_value(t, old), *n = format_target_value(t, new);

        if (!o || !n) {
                log_oom();
                return;
        }
        if (m->listener && m->listener->knob_changed && !streq(o, n))
                m->listener->knob_changed(m->listener_data, t->name, o, n, reason);
        if (streq(reason, "external"))
                manager_log_other_owner(m, t, new);
        /* A NAPI instance netpolld made threaded has a new kernel thread: steering places it. */
        if (m->irqpin && startswith(t->name, "napi-threaded@") && !streq(reason, "external"))
                (void)irqpin_schedule_refresh(m->irqpin);
}

/* Current value formatted with units (and parsed into *ret when not NULL), or NULL when it cannot be read. */
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
        if (ref->desc->kernel)
                return asprintf(ret_message, "%s is not supported by this kernel: it needs %s", name,
                                ref->desc->kernel) < 0 ? -ENOMEM : -MANAGER_E_UNSUPPORTED;
        return asprintf(ret_message, "%s is not available on this kernel (its file is missing)", name) < 0
                       ? -ENOMEM : -MANAGER_E_UNSUPPORTED;
}

static TargetKind knob_target_kind(const KnobDesc *d, const char *path) {
        switch (d->scope) {
        case KNOB_RX_QUEUES:
                return TARGET_RPS;
        case KNOB_TX_QUEUES:
                return TARGET_XPS;
        default:
                return startswith(path, "/sys/") ? TARGET_SYSFS : TARGET_SYSCTL;
        }
}

int knob_targets(Manager *m, const KnobRef *ref, Target **ret, size_t *ret_n) {
        _cleanup_(strv_freep) char **paths = NULL;
        _cleanup_(freep) Target *t = NULL;
        char name[64];
        size_t n;
        int r;

        r = knob_paths(ref, m->sysroot, &paths);
        if (r < 0)
                return r;
        n = strv_length(paths);
        t = calloc(n + 1, sizeof(Target));
        if (!t)
                return -ENOMEM;
        knob_ref_format(ref, name, sizeof(name));
        for (size_t i = 0; i < n; i++) {
                char tname[sizeof(t->name)];
                if (knob_path_is_napi(paths[i])) {
                        /* "napi-8193": the instance's own target, restored over netlink like a per-NAPI value. */
                        unsigned long id = strtoul(paths[i] + strlen("napi-"), NULL, 10);
                        snprintf(tname, sizeof(tname), "%s:%s", name, paths[i]);
                        r = owner_napi_target(m->owner, tname, ref->device, (uint32_t)id, ref->desc->path, &t[i]);
                        if (r < 0)
                                return r;
                        continue;
                }
                if (ref->desc->scope == KNOB_RX_QUEUES || ref->desc->scope == KNOB_TX_QUEUES) {
                        /* ".../queues/rx-3/rps_cpus": one target per queue, named for it. */
                        const char *q = strstr(paths[i], "/queues/");
                        int len = q ? (int)strcspn(q + 8, "/") : 0;
                        snprintf(tname, sizeof(tname), "%s:%.*s", name, len, q ? q + 8 : "");
                } else
                        snprintf(tname, sizeof(tname), "%s", name);
                r = owner_file_target(m->owner, knob_target_kind(ref->desc, paths[i]), tname, ref->device, paths[i], &t[i]);
                if (r < 0)
                        return r;
        }
        *ret = TAKE_PTR(t);
        *ret_n = n;
        return 0;
}

Layer origin_layer(ValueOrigin origin) {
        return origin == ORIGIN_MANUAL ? LAYER_MANUAL : origin == ORIGIN_ADAPTIVE ? LAYER_CONTROLLER : LAYER_PROFILE;
}

ValueOrigin manager_knob_origin(Manager *m, const KnobRef *ref) {
        _cleanup_(freep) Target *t = NULL;
        size_t n;

        if (!m->owner || knob_targets(m, ref, &t, &n) < 0 || n == 0)
                return ORIGIN_DEFAULT;
        return owner_origin(m->owner, &t[0]);
}

/* What a layer asked of each of n targets before write_knob() changed them (v[i] NULL: nothing). */
typedef struct PrevValues {
        char **v;
        size_t n;
} PrevValues;

static void prev_values_done(PrevValues *p) {
        for (size_t i = 0; p->v && i < p->n; i++)
                free(p->v[i]);
        free(p->v);
}

/* Gives back the first n targets' layer as it was before write_knob() set them (prev[i]: NULL, none). */
static void undo_targets(Manager *m, const Target *t, size_t n, Layer layer, char **prev) {
        for (size_t i = 0; i < n; i++) {
                int r = prev[i] ? owner_set(m->owner, &t[i], layer, prev[i], "undo", NULL)
                                : owner_unset(m->owner, &t[i], LAYER_BIT(layer), "reset", NULL);
                if (r < 0 && r != -EDOM)
                        log_warning("%s: could not undo a partial change: %s", t[i].name, strerror(-r));
        }
}

/*
 * The one place that changes a knob: support check, then every target of the
 * instance through the owner with the layer that asks. Returns 0 or a
 * MANAGER_E_* error with a message.
 */
int write_knob(Manager *m, const KnobRef *ref, const KnobValue *v, ValueOrigin origin, const char *why,
               char **ret_message) {
        _cleanup_(freep) char *name = ref_name(ref), *text = NULL;
        _cleanup_(freep) Target *t = NULL;
        _cleanup_(prev_values_done) PrevValues prev = {};
        size_t n = 0;
        int r;

        if (!name)
                return -ENOMEM;
        r = knob_supported(ref, m->sysroot);
        if (r <= 0)
                return unsupported_message(ref, r == 0 ? -EOPNOTSUPP : r, ret_message);
        if (!m->owner)
                return asprintf(ret_message, "%s: netpolld has not started", name) < 0 ? -ENOMEM : -EAGAIN;
        r = knob_targets(m, ref, &t, &n);
        if (r < 0)
                return unsupported_message(ref, r == -ENODEV ? r : -EOPNOTSUPP, ret_message);
        /* A device file that never takes the value (napi-threaded@DEV's busy-poll): refused before any
         * write, by what the kernel needs, never by the file's errno and the internal number. */
        for (size_t i = 0; i < n; i++)
                if (knob_device_file_refuses(ref->desc, t[i].key, v)) {
                        _cleanup_(freep) char *want = knob_format_value(ref->desc, v);
                        return asprintf(ret_message,
                                        "cannot set %s = %s: %s; netlink lists no NAPI instance of %s with this "
                                        "value, and %s takes it on no kernel", name, strempty(want),
                                        strempty(knob_refusal_hint(ref->desc)), ref->device, t[i].key) < 0
                                       ? -ENOMEM : -MANAGER_E_KERNEL_REFUSED;
                }
        text = knob_format_kernel(ref->desc, v);
        if (!text)
                return -ENOMEM;
        /* What the layer asked of each target before, to undo a partial change. */
        prev.v = calloc(n ?: 1, sizeof(char *));
        if (!prev.v)
                return -ENOMEM;
        prev.n = n;
        for (size_t i = 0; i < n; i++) {
                const char *p = owner_layer_value(m->owner, &t[i], origin_layer(origin));
                if (p && !(prev.v[i] = strdup(p)))
                        return -ENOMEM;
        }

        for (size_t i = 0; i < n; i++) {
                _cleanup_(freep) char *now = NULL;

                r = owner_set(m->owner, &t[i], origin_layer(origin), text, why, &now);
                if (r == -EDOM) {
                        _cleanup_(freep) char *f = format_target_value(&t[i], strempty(now)),
                                              *w = knob_format_value(ref->desc, v);
                        log_warning("%s: the kernel stored %s instead of %s", t[i].name, strempty(f), strempty(w));
                        continue;
                }
                if (r >= 0)
                        continue;
                /* One file of a queue knob failed: the queues before it go back to what they were. */
                _cleanup_(freep) char *want = knob_format_value(ref->desc, v);
                _cleanup_(freep) char *cause = strdup(strempty(owner_last_error(m->owner)));
                _cleanup_(freep) char *not_journaled =
                        r == -OWNER_E_NOT_JOURNALED ? owner_not_journaled_message(m->owner, t[i].name) : NULL;
                const char *hint = r == -EINVAL || r == -ERANGE ? knob_refusal_hint(ref->desc) : NULL;
                undo_targets(m, t, i, origin_layer(origin), prev.v);
                if (r == -ENODEV)
                        return unsupported_message(ref, r, ret_message);
                if (r == -OWNER_E_NOT_JOURNALED) {
                        *ret_message = TAKE_PTR(not_journaled);
                        return *ret_message ? -EIO : -ENOMEM;
                }
                if (cause && *cause)
                        r = asprintf(ret_message, "cannot set %s = %s: %s%s%s", name, strempty(want), cause,
                                     hint ? "; " : "", strempty(hint));
                else
                        r = asprintf(ret_message, "the kernel refused %s = %s: %s%s%s", name, strempty(want),
                                     strerror(-r), hint ? "; " : "", strempty(hint));
                return r < 0 ? -ENOMEM : -MANAGER_E_KERNEL_REFUSED;
        }
        return 0;
}

/* The layers (LAYER_BIT()s) no longer ask for the knob: the next one down, or the original, takes over. */
void release_knob(Manager *m, const KnobRef *ref, unsigned layers, const char *reason) {
        _cleanup_(freep) Target *t = NULL;
        size_t n;

        if (!m->owner || knob_targets(m, ref, &t, &n) < 0)
                return;
        for (size_t i = 0; i < n; i++) {
                int r = owner_unset(m->owner, &t[i], layers, reason, NULL);
                if (r < 0)
                        log_warning_errno(r, "%s: could not hand back: %m", t[i].name);
        }
}

static void apply_profile(Manager *m, bool switching) {
        const Profile *p = m->profile;

        for (size_t i = 0; i < p->n_knobs; i++) {
                const ProfileKnob *pk = &p->knobs[i];
                _cleanup_(freep) char *msg = NULL;
                int r;

                if (!manager_knob_state(m, &pk->ref)) {
                        log_oom();
                        return;
                }
                r = write_knob(m, &pk->ref, &pk->value, ORIGIN_PROFILE, NULL, &msg);
                /* A new profile starts from what it says: manual values give way (a reload keeps them). */
                if (r >= 0 && switching)
                        release_knob(m, &pk->ref, LAYER_BIT(LAYER_MANUAL), "profile");
                if (r == -MANAGER_E_UNSUPPORTED || r == -MANAGER_E_NO_DEVICE)
                        log_notice("%s, skipping it", msg);
                else if (r < 0)
                        log_warning("%s, skipping it", msg ?: strerror(-r));
        }

        for (size_t i = 0; i < m->n_knobs; i++) {
                KnobState *k = &m->knobs[i];
                if (profile_get_knob(p, &k->ref))
                        continue;
                /* Not in the profile: back to its original (a reload keeps manual values). */
                release_knob(m, &k->ref,
                             switching ? LAYERS_ALL : LAYER_BIT(LAYER_PROFILE) | LAYER_BIT(LAYER_CONTROLLER), "reset");
        }
}

/* Adaptation follows the profile's [adaptive], steering its [irq] (once they run). */
void manager_follow_profile(Manager *m) {
        int r;

        if (m->adapter) {
                r = adapter_update(m->adapter);
                if (r < 0)
                        log_warning_errno(r, "cannot start adaptation: %m, ignoring");
        }
        if (m->irqpin) {
                r = irqpin_apply(m->irqpin, &m->profile->irq, manager_dry_run(m));
                if (r < 0)
                        log_warning_errno(r, "IRQ and queue steering failed: %m, ignoring");
        }
        manager_follow_irqbalance(m);
        manager_follow_metrics_file(m);
        manager_follow_live_sockets(m);
}

int manager_apply(Manager *m, DaemonConfig *config, Profile *profile, bool switching) {
        if (m->journal && !m->state_dir_override && !streq(config->state_dir, journal_dir(m->journal)))
                log_notice("state-dir %s takes effect at the next start: the restore journal stays in %s",
                           config->state_dir, journal_dir(m->journal));
        config_free(m->config);
        m->config = config;
        profile_free(m->profile);
        m->profile = profile;
        apply_profile(m, switching);
        manager_follow_profile(m);
        return 0;
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
        r = owner_new(&m->owner, m->sysroot, m->journal, manager_dry_run(m));
        if (r < 0)
                return r;
        owner_set_change_callback(m->owner, on_owner_change, m);
        if (m->napi_backend)
                owner_set_napi_backend(m->owner, m->napi_backend);

        if (journal_size(m->journal) > 0) {
                log_notice("a previous run did not stop cleanly: restoring %zu values from %s",
                           journal_size(m->journal), journal_path(m->journal));
                bool dropin = manager_irqbalance_journaled(m);
                r = owner_restore_all(m->owner);
                /* systemd hears of a removed irqbalance drop-in once the loop runs (manager_follow_irqbalance()). */
                m->irqbalance_replayed = dropin && !manager_irqbalance_journaled(m);
                if (r < 0)
                        log_warning_errno(r, "could not update %s: %m", journal_path(m->journal));
        }

        apply_profile(m, true);
        return 0;
}

void manager_check_external(Manager *m) {
        if (m->owner)
                (void)owner_check(m->owner);
}

int manager_stop(Manager *m) {
        /* Live sockets a yield lowered go back first (not-on-exit leaves them, like the knobs). */
        if (!(m->config && m->config->rollback == ROLLBACK_NOT_ON_EXIT))
                (void)manager_livesock_pass(m, LIVESOCK_UNDO, 0, 0);
        if (!m->owner || !m->journal || journal_size(m->journal) == 0)
                return 0;
        if (manager_dry_run(m))
                return 0;
        if (m->config && m->config->rollback == ROLLBACK_NOT_ON_EXIT) {
                log_info("rollback = not-on-exit: leaving %zu changed values in place", journal_size(m->journal));
                int r = owner_discard(m->owner);
                if (r < 0)
                        return log_error_errno(r, "could not remove %s: %m", journal_path(m->journal));
                return 0;
        }
        log_info("restoring %zu changed values", journal_size(m->journal));
        bool dropin = manager_irqbalance_journaled(m);
        int r = owner_restore_all(m->owner);
        manager_irqbalance_restored(m, dropin);
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
        int r = load_and_apply(m, manager_profile_request(m), false, ret_message);
        if (r >= 0)
                manager_follow_rules(m); /* the rules may have changed */
        return r;
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
        m->profile_pinned = true;
        manager_follow_rules(m); /* netpolld.conf was read again */
        return 0;
}

int manager_switch_profile_auto(Manager *m, const char *name, char **ret_message) {
        _cleanup_(profile_freep) Profile *p = NULL;
        _cleanup_(strv_freep) char **errors = NULL;
        _cleanup_(freep) char *copy = NULL;
        int r;

        if (name && !(copy = strdup(name)))
                return -ENOMEM;
        r = profile_load(&p, name ?: m->profile_override ?: m->config->profile, m->profile_dirs, &errors);
        if (r < 0) {
                *ret_message = errors ? strv_join(errors, "\n") : strdup(strerror(-r));
                if (!*ret_message)
                        return -ENOMEM;
                return r == -ENOENT ? -MANAGER_E_UNKNOWN_PROFILE : -MANAGER_E_INVALID_PROFILE;
        }
        profile_free(m->profile);
        m->profile = TAKE_PTR(p);
        apply_profile(m, false);
        manager_follow_profile(m);
        free(m->profile_request);
        m->profile_request = TAKE_PTR(copy);
        return 0;
}
