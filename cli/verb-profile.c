/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * verb-profile.c: netpollctl profile [list | show NAME | set NAME | release |
 * import-tuned NAME|PATH] and netpollctl reload: the verbs about netpolld's
 * configuration files (import-tuned, offline, is verb-import-tuned.c).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "netpollctl.h"
#include "table.h"

typedef struct ProfileInfo {
        const char *name;
        const char *path;
        const char *description;
} ProfileInfo;

/* Which listed profile is in force: by its file when the daemon's path matches one, else by name. */
static size_t find_active(const ProfileInfo *p, size_t n, const char *active, const char *active_path) {
        for (size_t i = 0; i < n; i++)
                if (active_path[0] && streq(p[i].path, active_path))
                        return i;
        for (size_t i = 0; i < n; i++)
                if (streq(p[i].name, active))
                        return i;
        return SIZE_MAX;
}

static int read_profiles(sd_bus_message *reply, ProfileInfo **ret, size_t *ret_n) {
        _cleanup_(freep) ProfileInfo *p = NULL;
        size_t n = 0, allocated = 0;
        ProfileInfo e;
        int r;

        r = sd_bus_message_enter_container(reply, 'a', "(sss)");
        while (r >= 0 && (r = sd_bus_message_read(reply, "(sss)", &e.name, &e.path, &e.description)) > 0) {
                r = ctl_grow((void **) &p, &allocated, n + 1, sizeof(ProfileInfo));
                if (r >= 0)
                        p[n++] = e;
        }
        if (r >= 0)
                r = sd_bus_message_exit_container(reply);
        if (r < 0)
                return r;

        *ret = TAKE_PTR(p);
        *ret_n = n;
        return 0;
}

static CtlStatus print_profiles(const ProfileInfo *p, size_t n, size_t active) {
        static const char *const headers[] = { "", "name", "description" };
        _cleanup_(json_object_putp) json_object *array = NULL;
        _cleanup_(table_freep) Table *t = NULL;
        int r;

        if (!arg_json) {
                r = table_new(&t, ELEMENTSOF(headers), headers);
                for (size_t i = 0; r >= 0 && i < n; i++)
                        r = table_add_cells(t, i == active ? "*" : NULL, p[i].name, p[i].description);
                if (r >= 0)
                        r = table_print(t, stdout);
                return r < 0 ? ctl_failed(r, "cannot print the profile table") : CTL_OK;
        }

        array = json_object_new_array();
        r = array ? 0 : -ENOMEM;
        for (size_t i = 0; r >= 0 && i < n; i++) {
                json_object *o = json_object_new_object();

                r = o ? json_add(array, NULL, o) : -ENOMEM;
                if (r >= 0)
                        r = json_add_string(o, "name", p[i].name);
                if (r >= 0)
                        r = json_add_string(o, "path", p[i].path);
                if (r >= 0)
                        r = json_add_string(o, "description", p[i].description);
                if (r >= 0)
                        r = json_add_bool(o, "active", i == active);
        }
        if (r >= 0)
                r = ctl_print_json(array, true);
        return r < 0 ? ctl_failed(r, "cannot print the JSON output") : CTL_OK;
}

static CtlStatus profile_list(sd_bus *bus) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        _cleanup_(freep) char *active = NULL, *active_path = NULL;
        _cleanup_(freep) ProfileInfo *profiles = NULL;
        size_t n;
        int r;

        r = ctl_call(bus, "ListProfiles", &error, &reply, NULL);
        if (r < 0)
                return ctl_bus_failed(&error, r);
        r = read_profiles(reply, &profiles, &n);
        if (r < 0)
                return ctl_bus_failed(&error, ctl_bad_reply(&error, r, "ListProfiles"));

        r = sd_bus_get_property_string(bus, NETPOLLD_BUS_NAME, NETPOLLD_OBJECT_PATH, NETPOLLD_INTERFACE,
                                       "ActiveProfile", &error, &active);
        if (r >= 0)
                r = sd_bus_get_property_string(bus, NETPOLLD_BUS_NAME, NETPOLLD_OBJECT_PATH,
                                               NETPOLLD_INTERFACE, "ActiveProfilePath", &error, &active_path);
        if (r < 0)
                return ctl_bus_failed(&error, r);

        return print_profiles(profiles, n, find_active(profiles, n, active, active_path));
}

/* The ShowProfile reply; strings borrow from the message. */
typedef struct Setting {
        const char *section;
        const char *key;
        const char *value;
        const char *origin;
} Setting;

typedef struct ProfileDetails {
        const char *path;
        const char *description;
        const char **chain;
        size_t n_chain;
        Setting *settings;
        size_t n_settings;
} ProfileDetails;

static void profile_details_done(ProfileDetails *d) {
        free(d->chain);
        free(d->settings);
}

static int read_details(sd_bus_message *reply, ProfileDetails *ret) {
        _cleanup_(profile_details_done) ProfileDetails d = {};
        size_t allocated = 0;
        const char *s;
        Setting e;
        int r;

        r = sd_bus_message_read(reply, "ss", &d.path, &d.description);
        if (r >= 0)
                r = sd_bus_message_enter_container(reply, 'a', "s");
        while (r >= 0 && (r = sd_bus_message_read(reply, "s", &s)) > 0) {
                r = ctl_grow((void **) &d.chain, &allocated, d.n_chain + 1, sizeof(char *));
                if (r >= 0)
                        d.chain[d.n_chain++] = s;
        }
        if (r >= 0)
                r = sd_bus_message_exit_container(reply);

        allocated = 0;
        if (r >= 0)
                r = sd_bus_message_enter_container(reply, 'a', "(ssss)");
        while (r >= 0 && (r = sd_bus_message_read(reply, "(ssss)", &e.section, &e.key, &e.value, &e.origin)) > 0) {
                r = ctl_grow((void **) &d.settings, &allocated, d.n_settings + 1, sizeof(Setting));
                if (r >= 0)
                        d.settings[d.n_settings++] = e;
        }
        if (r >= 0)
                r = sd_bus_message_exit_container(reply);
        if (r < 0)
                return r;

        *ret = d;
        d = (ProfileDetails) {};
        return 0;
}

static int show_json(const char *name, const ProfileDetails *d) {
        _cleanup_(json_object_putp) json_object *o = json_object_new_object();
        json_object *chain, *settings;
        int r;

        if (!o)
                return -ENOMEM;
        if ((r = json_add_schema(o, "profile-show")) < 0 ||
            (r = json_add_string(o, "name", name)) < 0 ||
            (r = json_add_string(o, "path", d->path)) < 0 ||
            (r = json_add_string(o, "description", d->description)) < 0)
                return r;

        /* Added to o first (which then owns them) and filled after, so nothing can leak. */
        chain = json_object_new_array();
        r = chain ? json_add(o, "include_chain", chain) : -ENOMEM;
        for (size_t i = 0; r >= 0 && i < d->n_chain; i++)
                r = json_add_string(chain, NULL, d->chain[i]);
        if (r < 0)
                return r;

        settings = json_object_new_array();
        r = settings ? json_add(o, "settings", settings) : -ENOMEM;
        for (size_t i = 0; r >= 0 && i < d->n_settings; i++) {
                json_object *e = json_object_new_object();

                r = e ? json_add(settings, NULL, e) : -ENOMEM;
                if (r >= 0)
                        r = json_add_string(e, "section", d->settings[i].section);
                if (r >= 0)
                        r = json_add_string(e, "key", d->settings[i].key);
                if (r >= 0)
                        r = json_add_string(e, "value", d->settings[i].value);
                if (r >= 0)
                        r = json_add_string(e, "origin", d->settings[i].origin);
        }
        if (r < 0)
                return r;

        return ctl_print_json(o, true);
}

static int show_human(const char *name, const ProfileDetails *d) {
        static const char *const headers[] = { "section", "key", "value", "origin" };
        _cleanup_(table_freep) Table *t = NULL;
        int r;

        r = table_new(&t, ELEMENTSOF(headers), headers);
        for (size_t i = 0; r >= 0 && i < d->n_settings; i++)
                r = table_add_cells(t, d->settings[i].section, d->settings[i].key,
                                    d->settings[i].value, d->settings[i].origin);
        if (r < 0)
                return r;

        printf("Profile: %s\nPath: %s\nDescription: %s\n", name, d->path, d->description);
        for (size_t i = 0; i < d->n_chain; i++)
                printf("%s%s", i == 0 ? "Include chain: " : " -> ", d->chain[i]);
        if (d->n_chain > 0)
                putchar('\n');
        putchar('\n');
        return table_print(t, stdout);
}

static CtlStatus profile_show(sd_bus *bus, const char *name) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        _cleanup_(profile_details_done) ProfileDetails d = {};
        int r;

        r = ctl_call(bus, "ShowProfile", &error, &reply, "s", name);
        if (r < 0)
                return ctl_bus_failed(&error, r);
        r = read_details(reply, &d);
        if (r < 0)
                return ctl_bus_failed(&error, ctl_bad_reply(&error, r, "ShowProfile"));

        r = arg_json ? show_json(name, &d) : show_human(name, &d);
        return r < 0 ? ctl_failed(r, "cannot print the profile") : CTL_OK;
}

static CtlStatus profile_set(sd_bus *bus, const char *name) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_(json_object_putp) json_object *o = NULL;
        _cleanup_(freep) char *active = NULL, *active_path = NULL;
        int r;

        r = ctl_call(bus, "SetProfile", &error, NULL, "s", name);
        if (r < 0)
                return ctl_bus_failed(&error, r);

        /* Say what is in force now, as the daemon names it; the switch itself already succeeded. */
        r = sd_bus_get_property_string(bus, NETPOLLD_BUS_NAME, NETPOLLD_OBJECT_PATH, NETPOLLD_INTERFACE,
                                       "ActiveProfile", NULL, &active);
        if (r >= 0)
                (void) sd_bus_get_property_string(bus, NETPOLLD_BUS_NAME, NETPOLLD_OBJECT_PATH,
                                                  NETPOLLD_INTERFACE, "ActiveProfilePath", NULL, &active_path);

        if (!arg_json) {
                printf("Active profile: %s\n", active ?: name);
                return CTL_OK;
        }

        o = json_object_new_object();
        r = o ? json_add_schema(o, "profile-set") : -ENOMEM;
        if (r >= 0)
                r = json_add_string(o, "profile", active ?: name);
        if (r >= 0)
                r = json_add_string(o, "profile_path", active_path);
        if (r >= 0)
                r = ctl_print_json(o, true);
        return r < 0 ? ctl_failed(r, "cannot print the JSON output") : CTL_OK;
}

/* Hands the choice back to the rules; prints the profile that is in force afterwards. */
static CtlStatus profile_release(sd_bus *bus) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_(json_object_putp) json_object *o = NULL;
        _cleanup_(freep) char *active = NULL, *rule = NULL;
        int r;

        r = ctl_call(bus, "ReleaseProfile", &error, NULL, NULL);
        if (r < 0)
                return ctl_bus_failed(&error, r);
        r = sd_bus_get_property_string(bus, NETPOLLD_BUS_NAME, NETPOLLD_OBJECT_PATH, NETPOLLD_INTERFACE,
                                       "ActiveProfile", NULL, &active);
        if (r >= 0)
                (void) sd_bus_get_property_string(bus, NETPOLLD_BUS_NAME, NETPOLLD_OBJECT_PATH, NETPOLLD_INTERFACE,
                                                  "ActiveRule", NULL, &rule);
        if (!arg_json) {
                if (rule && rule[0])
                        printf("Active profile: %s (rule %s)\n", strempty(active), rule);
                else
                        printf("Active profile: %s\n", active ?: "n/a");
                return CTL_OK;
        }
        o = json_object_new_object();
        r = o ? json_add_schema(o, "profile-release") : -ENOMEM;
        if (r >= 0)
                r = json_add_string(o, "profile", active);
        if (r >= 0)
                r = json_add_string(o, "active_rule", rule && rule[0] ? rule : NULL);
        if (r >= 0)
                r = ctl_print_json(o, true);
        return r < 0 ? ctl_failed(r, "cannot print the JSON output") : CTL_OK;
}

CtlStatus verb_profile(int argc, char **argv) {
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        const char *sub = argc > 1 ? argv[1] : "list";

        if (streq(sub, "list") || streq(sub, "release")) {
                if (argc > 2)
                        return ctl_usage_error("profile %s takes no arguments", sub);
        } else if (streq(sub, "show") || streq(sub, "set")) {
                if (argc != 3)
                        return ctl_usage_error("profile %s needs a profile NAME", sub);
        } else if (streq(sub, "import-tuned")) {
                if (argc != 3)
                        return ctl_usage_error("profile import-tuned needs a tuned profile NAME or PATH");
                return verb_import_tuned(argv[2]);
        } else
                return ctl_usage_error("unknown profile command '%s'; expected list, show NAME, set NAME, release "
                                       "or import-tuned NAME|PATH", sub);

        if (ctl_open_bus(&bus) < 0)
                return CTL_FAILED;

        if (streq(sub, "list"))
                return profile_list(bus);
        if (streq(sub, "show"))
                return profile_show(bus, argv[2]);
        if (streq(sub, "release"))
                return profile_release(bus);
        return profile_set(bus, argv[2]);
}

CtlStatus verb_reload(int argc, char **argv) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        int r;

        if (ctl_open_bus(&bus) < 0)
                return CTL_FAILED;

        r = ctl_call(bus, "Reload", &error, NULL, NULL);
        return r < 0 ? ctl_bus_failed(&error, r) : CTL_OK;
}
