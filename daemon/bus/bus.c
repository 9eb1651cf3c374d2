/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * bus.c: method handlers translate between D-Bus and manager calls; they
 * authorize, call, and map the manager's errno to one error name each
 * (bus_error_from_manager). Reads need no privilege, changes do.
 */
#include "bus.h"

#include <errno.h>
#include <linux/capability.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "adapt.h"
#include "bus-explain.h"
#include "bus-irq.h"
#include "bus-logcontrol.h"
#include "escape.h"
#include "log.h"
#include "strv.h"
#include "views.h"

int bus_error_from_manager(sd_bus_error *error, int r, const char *message) {
        /* The manager's MANAGER_E_* codes are the errnos bus_error_map gives the names. */
        const char *name = bus_error_name_from_errno(r);
        _cleanup_(text_pool_done) TextPool t = {};

        if (r == -ENOMEM)
                return -ENOMEM;
        /* Messages name paths and devices; sd_bus_error_set() copies the text. */
        if (message)
                return sd_bus_error_set(error, name, bus_text_full(&t, message, true));
        return sd_bus_error_setf(error, name, "%s", strerror(-r));
}

/*
 * Changes need uid 0 or CAP_NET_ADMIN. Only credentials the bus itself vouches
 * for count: anything sd-bus had to read from /proc afterwards ("augmented")
 * could belong to a different process by then. dbus-daemon (and dbus-broker)
 * vouch for the uid but transmit no capabilities, so on them only uid 0 can
 * make changes; CAP_NET_ADMIN counts where the transport carries it.
 *
 * This is the daemon's only gate: the vtable turns sd-bus's own capability
 * gate off for every member (BUS_OPEN and BUS_PRIVILEGED, bus.h), because it
 * would refuse first with a message that does not say what is needed.
 */
int bus_check_privileged(sd_bus_message *message, sd_bus_error *error) {
        _cleanup_(sd_bus_creds_unrefp) sd_bus_creds *creds = NULL;
        uint64_t augmented;
        uid_t uid;
        int r;

        r = sd_bus_query_sender_creds(message, SD_BUS_CREDS_EUID | SD_BUS_CREDS_EFFECTIVE_CAPS, &creds);
        if (r < 0)
                return r;
        augmented = sd_bus_creds_get_augmented_mask(creds);

        if (!(augmented & SD_BUS_CREDS_EUID) && sd_bus_creds_get_euid(creds, &uid) >= 0 && uid == 0)
                return 0;
        if (!(augmented & SD_BUS_CREDS_EFFECTIVE_CAPS) && sd_bus_creds_has_effective_cap(creds, CAP_NET_ADMIN) > 0)
                return 0;
        return sd_bus_error_set(error, SD_BUS_ERROR_ACCESS_DENIED,
                                "Changing netpolld's knobs, profile, mode or logging needs root or CAP_NET_ADMIN.");
}

static void bus_emit_knob_changed(sd_bus *bus, const char *name, const char *old, const char *new, const char *reason) {
        _cleanup_(text_pool_done) TextPool t = {};
        int r = sd_bus_emit_signal(bus, BUS_PATH, BUS_INTERFACE, "KnobChanged", "ssss", bus_text(&t, name),
                                   bus_text(&t, old), bus_text(&t, new), bus_text(&t, reason));
        if (r < 0)
                log_warning_errno(r, "could not emit KnobChanged for %s: %m, ignoring", name);
}

static void bus_emit_state_changed(sd_bus *bus) {
        int r = sd_bus_emit_properties_changed(bus, BUS_PATH, BUS_INTERFACE, "ActiveProfile", "ActiveProfilePath",
                                               "Mode", "DryRun", "Interval", "ActiveRule", "RuleProfile",
                                               "ProfilePinned", NULL);
        if (r < 0)
                log_warning_errno(r, "could not emit PropertiesChanged: %m, ignoring");
}

static int method_list_knobs(sd_bus_message *message, void *userdata, sd_bus_error *error) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        _cleanup_(text_pool_done) TextPool t = {};
        KnobRow *rows = NULL;
        size_t n = 0;
        int r;

        r = manager_list_knobs(userdata, &rows, &n);
        if (r < 0)
                return r;
        r = sd_bus_message_new_method_return(message, &reply);
        if (r >= 0)
                r = sd_bus_message_open_container(reply, 'a', "(ssssbss)");
        for (size_t i = 0; r >= 0 && i < n; i++)
                r = sd_bus_message_append(reply, "(ssssbss)", bus_text(&t, rows[i].name), rows[i].value, rows[i].unit,
                                          rows[i].origin, rows[i].supported, rows[i].needs, rows[i].summary);
        if (r >= 0)
                r = sd_bus_message_close_container(reply);
        knob_rows_free(rows, n);
        if (r < 0)
                return r;
        return sd_bus_send(NULL, reply, NULL);
}

static int method_get_knob(sd_bus_message *message, void *userdata, sd_bus_error *error) {
        _cleanup_(freep) char *value = NULL, *msg = NULL;
        Manager *m = userdata;
        const char *name, *origin;
        int r;

        /* Read-only: outside changes are the ownership timer's to notice, not a reader's. */
        r = sd_bus_message_read(message, "s", &name);
        if (r < 0)
                return r;
        if (manager_is_napi_ref(name))
                r = manager_get_napi(m, name, &value, &origin, &msg);
        else
                r = manager_get_knob(m, name, &value, &origin, &msg);
        if (r < 0)
                return bus_error_from_manager(error, r, msg);
        return sd_bus_reply_method_return(message, "ss", value, origin);
}

static int reply_pairs(sd_bus_message *message, char **names, char **values) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        int r;

        r = sd_bus_message_new_method_return(message, &reply);
        if (r < 0)
                return r;
        r = sd_bus_message_open_container(reply, 'a', "(ss)");
        if (r < 0)
                return r;
        for (size_t i = 0; names[i] && values[i]; i++) {
                r = sd_bus_message_append(reply, "(ss)", names[i], values[i]);
                if (r < 0)
                        return r;
        }
        r = sd_bus_message_close_container(reply);
        if (r < 0)
                return r;
        return sd_bus_send(NULL, reply, NULL);
}

static int method_set_knob(sd_bus_message *message, void *userdata, sd_bus_error *error) {
        _cleanup_(strv_freep) char **values = NULL;
        _cleanup_(freep) char *msg = NULL;
        Manager *m = userdata;
        const char *name, *value;
        int r;

        r = bus_check_privileged(message, error);
        if (r < 0)
                return r;
        r = sd_bus_message_read(message, "ss", &name, &value);
        if (r < 0)
                return r;
        if (manager_is_napi_ref(name)) {
                _cleanup_(freep) char *now = NULL;
                r = manager_set_napi(m, name, value, &now, &msg);
                if (r < 0)
                        return bus_error_from_manager(error, r, msg);
                return sd_bus_reply_method_return(message, "s", now);
        }
        manager_check_external(m);
        char *pairs[] = { (char *)name, (char *)value, NULL };
        r = manager_set_knobs(m, pairs, &values, &msg);
        if (r < 0)
                return bus_error_from_manager(error, r, msg);
        return sd_bus_reply_method_return(message, "s", values[0]);
}

static int method_set_knobs(sd_bus_message *message, void *userdata, sd_bus_error *error) {
        _cleanup_(strv_freep) char **pairs = NULL, **names = NULL, **values = NULL;
        _cleanup_(freep) char *msg = NULL;
        Manager *m = userdata;
        const char *name, *value;
        int r;

        r = bus_check_privileged(message, error);
        if (r < 0)
                return r;
        r = sd_bus_message_enter_container(message, 'a', "(ss)");
        if (r < 0)
                return r;
        while ((r = sd_bus_message_read(message, "(ss)", &name, &value)) > 0)
                if (strv_extend(&pairs, name) < 0 || strv_extend(&pairs, value) < 0 || strv_extend(&names, name) < 0)
                        return -ENOMEM;
        if (r < 0)
                return r;
        r = sd_bus_message_exit_container(message);
        if (r < 0)
                return r;
        for (char **n = names; n && *n; n++)
                if (manager_is_napi_ref(*n) && strv_length(names) > 1)
                        return sd_bus_error_setf(error, BUS_ERROR_INVALID_VALUE,
                                                 "%s: per-NAPI knobs are set one at a time, not with other knobs",
                                                 *n);
        if (names && manager_is_napi_ref(names[0])) {
                values = calloc(2, sizeof(char *));
                if (!values)
                        return -ENOMEM;
                r = manager_set_napi(m, pairs[0], pairs[1], &values[0], &msg);
        } else {
                manager_check_external(m);
                r = manager_set_knobs(m, pairs, &values, &msg);
        }
        if (r < 0)
                return bus_error_from_manager(error, r, msg);
        return reply_pairs(message, names, values);
}

static int method_reset_knob(sd_bus_message *message, void *userdata, sd_bus_error *error) {
        _cleanup_(freep) char *value = NULL, *msg = NULL;
        Manager *m = userdata;
        const char *name;
        int r;

        r = bus_check_privileged(message, error);
        if (r < 0)
                return r;
        r = sd_bus_message_read(message, "s", &name);
        if (r < 0)
                return r;
        if (manager_is_napi_ref(name))
                r = manager_reset_napi(m, name, &value, &msg);
        else {
                manager_check_external(m);
                r = manager_reset_knob(m, name, &value, &msg);
        }
        if (r < 0)
                return bus_error_from_manager(error, r, msg);
        return sd_bus_reply_method_return(message, "s", value);
}

static int method_list_profiles(sd_bus_message *message, void *userdata, sd_bus_error *error) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        _cleanup_(text_pool_done) TextPool t = {};
        ProfileRow *rows = NULL;
        size_t n = 0;
        int r;

        r = manager_list_profiles(userdata, &rows, &n);
        if (r < 0)
                return r;
        r = sd_bus_message_new_method_return(message, &reply);
        if (r >= 0)
                r = sd_bus_message_open_container(reply, 'a', "(sss)");
        for (size_t i = 0; r >= 0 && i < n; i++)
                r = sd_bus_message_append(reply, "(sss)", bus_text(&t, rows[i].name), bus_text(&t, rows[i].path),
                                          bus_text(&t, rows[i].summary));
        if (r >= 0)
                r = sd_bus_message_close_container(reply);
        profile_rows_free(rows, n);
        if (r < 0)
                return r;
        return sd_bus_send(NULL, reply, NULL);
}

static int append_profile(sd_bus_message *reply, const Profile *p, const ProfileLine *lines, size_t n) {
        _cleanup_(text_pool_done) TextPool t = {};
        int r;

        r = sd_bus_message_append(reply, "ss", bus_text(&t, p->path), bus_text(&t, p->description));
        if (r >= 0)
                r = sd_bus_message_open_container(reply, 'a', "s");
        for (char **c = p->chain; r >= 0 && c && *c; c++)
                r = sd_bus_message_append(reply, "s", bus_text(&t, *c));
        if (r >= 0)
                r = sd_bus_message_close_container(reply);
        if (r >= 0)
                r = sd_bus_message_open_container(reply, 'a', "(ssss)");
        for (size_t i = 0; r >= 0 && i < n; i++)
                r = sd_bus_message_append(reply, "(ssss)", bus_text(&t, lines[i].section), bus_text(&t, lines[i].key),
                                          bus_text(&t, lines[i].value), bus_text(&t, lines[i].origin));
        if (r >= 0)
                r = sd_bus_message_close_container(reply);
        return r;
}

static int method_show_profile(sd_bus_message *message, void *userdata, sd_bus_error *error) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        _cleanup_(profile_freep) Profile *p = NULL;
        _cleanup_(freep) char *msg = NULL;
        ProfileLine *lines = NULL;
        const char *name;
        size_t n = 0;
        int r;

        r = sd_bus_message_read(message, "s", &name);
        if (r < 0)
                return r;
        /*
         * A path makes netpolld (root) read any file and echo parts of it in its
         * errors: only for those who may change the profile. Anyone may show one
         * by name (the profile directories).
         */
        if (strchr(name, '/')) {
                r = bus_check_privileged(message, error);
                if (r < 0)
                        return r;
        }
        r = manager_show_profile(userdata, name, &p, &lines, &n, &msg);
        if (r < 0)
                return bus_error_from_manager(error, r, msg);
        r = sd_bus_message_new_method_return(message, &reply);
        if (r >= 0)
                r = append_profile(reply, p, lines, n);
        profile_lines_free(lines, n);
        if (r < 0)
                return r;
        return sd_bus_send(NULL, reply, NULL);
}

static int method_set_profile(sd_bus_message *message, void *userdata, sd_bus_error *error) {
        _cleanup_(freep) char *msg = NULL;
        Manager *m = userdata;
        const char *name;
        int r;

        r = bus_check_privileged(message, error);
        if (r < 0)
                return r;
        r = sd_bus_message_read(message, "s", &name);
        if (r < 0)
                return r;
        manager_check_external(m);
        r = manager_switch_profile(m, name, &msg);
        if (r < 0)
                return bus_error_from_manager(error, r, msg);
        log_info("switched to profile %s (%s)", m->profile->name, m->profile->path);
        bus_emit_state_changed(sd_bus_message_get_bus(message));
        manager_notify_status(m);
        return sd_bus_reply_method_return(message, NULL);
}

static int method_release_profile(sd_bus_message *message, void *userdata, sd_bus_error *error) {
        _cleanup_(freep) char *msg = NULL;
        Manager *m = userdata;
        int r;

        r = bus_check_privileged(message, error);
        if (r < 0)
                return r;
        manager_check_external(m);
        r = manager_release_profile(m, &msg);
        if (r < 0)
                return bus_error_from_manager(error, r, msg);
        bus_emit_state_changed(sd_bus_message_get_bus(message));
        manager_notify_status(m);
        return sd_bus_reply_method_return(message, NULL);
}

static int method_reload(sd_bus_message *message, void *userdata, sd_bus_error *error) {
        _cleanup_(freep) char *msg = NULL;
        Manager *m = userdata;
        int r;

        r = bus_check_privileged(message, error);
        if (r < 0)
                return r;
        r = manager_reload_notify(m, &msg);
        if (r < 0)
                return bus_error_from_manager(error, r, msg);
        return sd_bus_reply_method_return(message, NULL);
}

static int method_set_mode(sd_bus_message *message, void *userdata, sd_bus_error *error) {
        Manager *m = userdata;
        const char *mode;
        int r;

        r = bus_check_privileged(message, error);
        if (r < 0)
                return r;
        r = sd_bus_message_read(message, "s", &mode);
        if (r < 0)
                return r;
        if (!streq(mode, "paused") && !streq(mode, "adaptive"))
                return sd_bus_error_setf(error, BUS_ERROR_INVALID_VALUE,
                                         "invalid mode '%s': expected paused or adaptive", mode);
        r = adapter_set_paused(m->adapter, streq(mode, "paused"));
        if (r == -ENOTSUP)
                return sd_bus_error_setf(error, BUS_ERROR_INVALID_VALUE,
                                         "profile %s does not enable adaptation ([adaptive] enabled = no), "
                                         "or CPU statistics cannot be read: there is nothing to %s",
                                         m->profile->name, streq(mode, "paused") ? "pause" : "resume");
        if (r < 0)
                return r;
        sd_bus_emit_properties_changed(sd_bus_message_get_bus(message), BUS_PATH, BUS_INTERFACE, "Mode", NULL);
        manager_notify_status(m);
        return sd_bus_reply_method_return(message, NULL);
}

static int method_get_load(sd_bus_message *message, void *userdata, sd_bus_error *error) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        _cleanup_(freep) CpuLoad *cpus = NULL;
        _cleanup_(freep) char *msg = NULL;
        const char *source;
        size_t n = 0;
        bool psi;
        int r;

        r = manager_load(userdata, &source, &psi, &cpus, &n, &msg);
        if (r < 0)
                return msg ? bus_error_from_manager(error, r, msg) : r;
        r = sd_bus_message_new_method_return(message, &reply);
        if (r >= 0)
                r = sd_bus_message_append(reply, "sb", source, psi);
        if (r >= 0)
                r = sd_bus_message_open_container(reply, 'a', "(utttttt)");
        for (size_t i = 0; r >= 0 && i < n; i++)
                r = sd_bus_message_append(reply, "(utttttt)", cpus[i].cpu, cpus[i].runnable_milli,
                                          cpus[i].net_rx_per_sec, cpus[i].net_tx_per_sec, cpus[i].processed_per_sec,
                                          cpus[i].squeeze_per_sec, cpus[i].drops_per_sec);
        if (r >= 0)
                r = sd_bus_message_close_container(reply);
        if (r < 0)
                return r;
        return sd_bus_send(NULL, reply, NULL);
}

static int method_get_metrics(sd_bus_message *message, void *userdata, sd_bus_error *error) {
        _cleanup_(freep) char *text = NULL;
        int r;

        r = manager_metrics(userdata, &text);
        if (r < 0)
                return r;
        return sd_bus_reply_method_return(message, "s", text);
}

static int property_get_string(sd_bus *bus, const char *path, const char *interface, const char *property,
                               sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        _cleanup_(text_pool_done) TextPool t = {};
        Manager *m = userdata;
        const char *s = "";

        if (streq(property, "Version"))
                s = PACKAGE_VERSION;
        else if (streq(property, "ActiveProfile"))
                s = m->profile ? m->profile->name : "";
        else if (streq(property, "ActiveProfilePath"))
                s = m->profile ? m->profile->path : "";
        else if (streq(property, "Mode"))
                s = adapter_mode(m->adapter);
        else if (streq(property, "StateDir"))
                s = manager_state_dir(m);
        else if (streq(property, "Sysroot"))
                s = m->sysroot;
        else if (streq(property, "ActiveRule"))
                s = manager_active_rule(m) ? manager_active_rule(m)->name : "";
        else if (streq(property, "RuleProfile"))
                s = manager_active_rule(m) ? manager_active_rule(m)->profile : "";
        else if (streq(property, "RunqueueSource"))
                s = manager_runqueue_source(m);
        /* Paths (ActiveProfilePath, StateDir, Sysroot) and names may hold any byte. */
        return sd_bus_message_append(reply, "s", bus_text(&t, s));
}

static int property_get_dry_run(sd_bus *bus, const char *path, const char *interface, const char *property,
                                sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        return sd_bus_message_append(reply, "b", manager_dry_run(userdata));
}

static int property_get_pinned(sd_bus *bus, const char *path, const char *interface, const char *property,
                               sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        Manager *m = userdata;
        return sd_bus_message_append(reply, "b", m->profile_pinned);
}

static int property_get_pressure(sd_bus *bus, const char *path, const char *interface, const char *property,
                                 sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        return sd_bus_message_append(reply, "b", manager_uses_pressure(userdata));
}

static int property_get_interval(sd_bus *bus, const char *path, const char *interface, const char *property,
                                 sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        Manager *m = userdata;
        return sd_bus_message_append(reply, "t", m->config ? m->config->interval_us : DEFAULT_INTERVAL_USEC);
}

/* BUS_OPEN or BUS_PRIVILEGED on every method (bus.h); the policy file follows these flags. */
static const sd_bus_vtable manager_vtable[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_PROPERTY("Version", "s", property_get_string, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("ActiveProfile", "s", property_get_string, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("ActiveProfilePath", "s", property_get_string, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("Mode", "s", property_get_string, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("DryRun", "b", property_get_dry_run, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("Interval", "t", property_get_interval, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("StateDir", "s", property_get_string, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("Sysroot", "s", property_get_string, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("RunqueueSource", "s", property_get_string, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("Pressure", "b", property_get_pressure, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("ActiveRule", "s", property_get_string, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("RuleProfile", "s", property_get_string, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("ProfilePinned", "b", property_get_pinned, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),

        SD_BUS_METHOD_WITH_ARGS("ListKnobs", SD_BUS_NO_ARGS, SD_BUS_RESULT("a(ssssbss)", knobs),
                                method_list_knobs, BUS_OPEN),
        SD_BUS_METHOD_WITH_ARGS("GetKnob", SD_BUS_ARGS("s", name), SD_BUS_RESULT("s", value, "s", origin),
                                method_get_knob, BUS_OPEN),
        SD_BUS_METHOD_WITH_ARGS("Explain", SD_BUS_ARGS("s", name),
                                SD_BUS_RESULT("s", name, "s", value, "s", unit, "s", origin, "b", supported, "s", needs,
                                              "s", summary, "s", rollback, "a(ssssb)", wishes,
                                              "a(ssssssbsst)", targets, "a(tsss)", decisions),
                                method_explain, BUS_OPEN),
        SD_BUS_METHOD_WITH_ARGS("GetOtherOwners", SD_BUS_ARGS("s", name), SD_BUS_RESULT("a(sssss)", owners),
                                method_get_other_owners, BUS_OPEN),
        SD_BUS_METHOD_WITH_ARGS("SetKnob", SD_BUS_ARGS("s", name, "s", value), SD_BUS_RESULT("s", value),
                                method_set_knob, BUS_PRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("SetKnobs", SD_BUS_ARGS("a(ss)", pairs), SD_BUS_RESULT("a(ss)", set),
                                method_set_knobs, BUS_PRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("ResetKnob", SD_BUS_ARGS("s", name), SD_BUS_RESULT("s", value),
                                method_reset_knob, BUS_PRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("ListProfiles", SD_BUS_NO_ARGS, SD_BUS_RESULT("a(sss)", profiles),
                                method_list_profiles, BUS_OPEN),
        SD_BUS_METHOD_WITH_ARGS("ShowProfile", SD_BUS_ARGS("s", name),
                                SD_BUS_RESULT("s", path, "s", description, "as", include_chain, "a(ssss)", settings),
                                method_show_profile, BUS_OPEN),
        SD_BUS_METHOD_WITH_ARGS("SetProfile", SD_BUS_ARGS("s", name), SD_BUS_NO_RESULT, method_set_profile,
                                BUS_PRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("ReleaseProfile", SD_BUS_NO_ARGS, SD_BUS_NO_RESULT, method_release_profile,
                                BUS_PRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("Reload", SD_BUS_NO_ARGS, SD_BUS_NO_RESULT, method_reload, BUS_PRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("ListIrqs", SD_BUS_NO_ARGS, SD_BUS_RESULT(IRQ_ROWS_SIGNATURE, irqs),
                                method_list_irqs, BUS_OPEN),
        SD_BUS_METHOD_WITH_ARGS("ListNapiThreads", SD_BUS_NO_ARGS,
                                SD_BUS_RESULT(NAPI_THREAD_ROWS_SIGNATURE, napis), method_list_napi_threads,
                                BUS_OPEN),
        SD_BUS_METHOD_WITH_ARGS("SetMode", SD_BUS_ARGS("s", mode), SD_BUS_NO_RESULT, method_set_mode, BUS_PRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("GetLoad", SD_BUS_NO_ARGS,
                                SD_BUS_RESULT("s", source, "b", psi, "a(utttttt)", cpus), method_get_load,
                                BUS_OPEN),
        SD_BUS_METHOD_WITH_ARGS("GetMetrics", SD_BUS_NO_ARGS, SD_BUS_RESULT("s", text), method_get_metrics,
                                BUS_OPEN),

        SD_BUS_SIGNAL_WITH_ARGS("KnobChanged", SD_BUS_ARGS("s", name, "s", old, "s", new, "s", reason), 0),
        SD_BUS_VTABLE_END,
};

const BusObject bus_objects[] = {
        { BUS_PATH, BUS_INTERFACE, manager_vtable },
        { LOG_CONTROL_PATH, LOG_CONTROL_INTERFACE, bus_log_control_vtable },
};
const size_t bus_n_objects = ELEMENTSOF(bus_objects);

static int bus_setup(sd_bus **ret, sd_event *event, Manager *m, const char *address) {
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        int r;

        if (address) {
                r = sd_bus_new(&bus);
                if (r < 0)
                        return r;
                r = sd_bus_set_address(bus, address);
                if (r < 0)
                        return r;
                r = sd_bus_set_bus_client(bus, true);
                if (r < 0)
                        return r;
                r = sd_bus_start(bus);
        } else
                r = sd_bus_open_system(&bus);
        if (r < 0)
                return r;

        for (size_t i = 0; i < bus_n_objects; i++) {
                const BusObject *o = &bus_objects[i];

                r = sd_bus_add_object_vtable(bus, NULL, o->path, o->interface, o->vtable, m);
                if (r < 0)
                        return r;
        }
        r = sd_bus_request_name(bus, BUS_NAME, 0);
        if (r < 0)
                return r;
        r = sd_bus_attach_event(bus, event, SD_EVENT_PRIORITY_NORMAL);
        if (r < 0)
                return r;

        *ret = TAKE_PTR(bus);
        return 0;
}

/* The Manager's listener: its userdata is the connection. */
static void on_knob_changed(void *userdata, const char *name, const char *old, const char *new, const char *reason) {
        bus_emit_knob_changed(userdata, name, old, new, reason);
}

static void on_state_changed(void *userdata) {
        bus_emit_state_changed(userdata);
}

static void on_manager_gone(void *userdata) {
        sd_bus_flush_close_unref(userdata);
}

static const ManagerListener bus_listener = {
        .knob_changed = on_knob_changed,
        .state_changed = on_state_changed,
        .gone = on_manager_gone,
};

int bus_attach(Manager *m, sd_event *event, void *userdata) {
        const char *address = userdata;
        sd_bus *bus;
        int r;

        r = bus_setup(&bus, event, m, address);
        if (r == -EEXIST)
                return log_error_errno(r, "another netpolld already owns %s on this bus", BUS_NAME);
        if (r < 0)
                return log_error_errno(r, "cannot connect to %s: %m", address ?: "the system bus");
        manager_listen(m, &bus_listener, bus);
        return 0;
}
