/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * unit-watch.c: unit= rules' source (unit-watch.h). Signals only say that
 * something happened; the state always comes from one ListUnitsByPatterns
 * call for every followed unit, which never loads a unit (ListUnitsByNames
 * would load missing ones, and their UnitNew/UnitRemoved would wake us
 * again). Queries are coalesced: a signal storm (a restart sends several)
 * costs one call after QUERY_DELAY_USEC, and one more if signals came while
 * a call was out.
 */
#include "unit-watch.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>

#include "log.h"
#include "macro.h"
#include "strv.h"

#define SYSTEMD_NAME "org.freedesktop.systemd1"
#define SYSTEMD_PATH "/org/freedesktop/systemd1"
#define SYSTEMD_MANAGER "org.freedesktop.systemd1.Manager"
#define QUERY_DELAY_USEC (20 * UINT64_C(1000))

typedef struct WatchedUnit {
        char *name;
        char *state;          /* ActiveState; "unknown" before the first answer */
        sd_bus_slot *matches[4]; /* PropertiesChanged, UnitNew, UnitRemoved, JobRemoved */
} WatchedUnit;

struct UnitWatch {
        sd_bus *bus;
        bool own_bus;             /* opened by unit_watch_new(); else the caller's shared connection */
        sd_event *event;
        sd_bus_slot *owner_match; /* NameOwnerChanged of systemd's name */
        sd_bus_slot *subscribe;
        sd_bus_slot *query;       /* the call out, if any */
        bool query_again;         /* signals came while it was out */
        sd_event_source *query_timer;
        WatchedUnit *units;
        size_t n_units;
        UnitWatchChanged changed;
        void *userdata;
};

bool unit_active_state_counts(const char *state) {
        return state && (streq(state, "active") || streq(state, "reloading") || streq(state, "activating") ||
                         streq(state, "refreshing"));
}

static void watched_unit_done(WatchedUnit *u) {
        free(u->name);
        free(u->state);
        for (size_t i = 0; i < ELEMENTSOF(u->matches); i++)
                sd_bus_slot_unref(u->matches[i]);
}

UnitWatch *unit_watch_free(UnitWatch *w) {
        if (!w)
                return NULL;
        for (size_t i = 0; i < w->n_units; i++)
                watched_unit_done(&w->units[i]);
        free(w->units);
        sd_bus_slot_unref(w->owner_match);
        sd_bus_slot_unref(w->subscribe);
        sd_bus_slot_unref(w->query);
        sd_event_source_disable_unref(w->query_timer);
        if (w->own_bus)
                sd_bus_flush_close_unref(w->bus);
        else
                sd_bus_unref(w->bus);
        sd_event_unref(w->event);
        free(w);
        return NULL;
}

static const WatchedUnit *find_unit(const UnitWatch *w, const char *name) {
        for (size_t i = 0; i < w->n_units; i++)
                if (streq(w->units[i].name, name))
                        return &w->units[i];
        return NULL;
}

bool unit_watch_is_active(const UnitWatch *w, const char *unit) {
        const WatchedUnit *u = w ? find_unit(w, unit) : NULL;
        return u && unit_active_state_counts(u->state);
}

const char *unit_watch_state(const UnitWatch *w, const char *unit) {
        const WatchedUnit *u = w ? find_unit(w, unit) : NULL;
        return u && u->state ? u->state : "unknown";
}

/* fnmatch() pattern matching exactly name: unit names may hold '\' (systemd's escapes), nothing else special. */
static char *exact_pattern(const char *name) {
        char *p = malloc(2 * strlen(name) + 1), *q = p;

        if (!p)
                return NULL;
        for (; *name; name++) {
                if (*name == '\\' || *name == '*' || *name == '?' || *name == '[')
                        *q++ = '\\';
                *q++ = *name;
        }
        *q = '\0';
        return p;
}

static int set_state(WatchedUnit *u, const char *state, bool *changed) {
        char *s;

        if (u->state && streq(u->state, state))
                return 0;
        if (unit_active_state_counts(u->state) != unit_active_state_counts(state))
                *changed = true;
        s = strdup(state);
        if (!s)
                return -ENOMEM;
        log_debug("unit %s: %s -> %s", u->name, strempty(u->state), state);
        free(u->state);
        u->state = s;
        return 0;
}

static int schedule_query(UnitWatch *w);

static int on_query_reply(sd_bus_message *reply, void *userdata, sd_bus_error *ret_error) {
        UnitWatch *w = userdata;
        const sd_bus_error *e = sd_bus_message_get_error(reply);
        const char *name, *active;
        bool changed = false, *seen = NULL;
        int r;

        w->query = sd_bus_slot_unref(w->query);
        if (e) {
                /* systemd may be restarting; its return on the bus asks again (NameOwnerChanged). */
                log_debug("ListUnitsByPatterns failed: %s", e->message ?: e->name);
                goto again;
        }
        seen = calloc(w->n_units + 1, sizeof(bool));
        if (!seen)
                return log_oom();
        r = sd_bus_message_enter_container(reply, 'a', "(ssssssouso)");
        while (r >= 0 && (r = sd_bus_message_read(reply, "(ssssssouso)", &name, NULL, NULL, &active, NULL, NULL,
                                                   NULL, NULL, NULL, NULL)) > 0)
                for (size_t i = 0; i < w->n_units; i++)
                        if (streq(w->units[i].name, name)) {
                                seen[i] = true;
                                if (set_state(&w->units[i], active, &changed) < 0)
                                        r = -ENOMEM;
                        }
        if (r < 0) {
                log_warning_errno(r, "cannot parse systemd's ListUnitsByPatterns reply: %m, ignoring");
                free(seen);
                goto again;
        }
        for (size_t i = 0; i < w->n_units; i++)
                if (!seen[i] && set_state(&w->units[i], "not-loaded", &changed) < 0) {
                        free(seen);
                        return log_oom();
                }
        free(seen);
        if (changed && w->changed)
                w->changed(w->userdata);
again:
        if (w->query_again) {
                w->query_again = false;
                (void)schedule_query(w);
        }
        return 0;
}

static int send_query(UnitWatch *w) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *msg = NULL;
        _cleanup_(strv_freep) char **patterns = NULL;
        int r;

        if (w->n_units == 0)
                return 0;
        for (size_t i = 0; i < w->n_units; i++) {
                char *p = exact_pattern(w->units[i].name);
                if (!p || strv_push(&patterns, p) < 0) {
                        free(p);
                        return -ENOMEM;
                }
        }
        r = sd_bus_message_new_method_call(w->bus, &msg, SYSTEMD_NAME, SYSTEMD_PATH, SYSTEMD_MANAGER,
                                           "ListUnitsByPatterns");
        if (r < 0)
                return r;
        r = sd_bus_message_append_strv(msg, NULL); /* every state */
        if (r >= 0)
                r = sd_bus_message_append_strv(msg, patterns);
        if (r < 0)
                return r;
        return sd_bus_call_async(w->bus, &w->query, msg, on_query_reply, w, 0);
}

static int on_query_timer(sd_event_source *s, uint64_t usec, void *userdata) {
        UnitWatch *w = userdata;
        int r;

        if (w->query) {
                w->query_again = true;
                return 0;
        }
        r = send_query(w);
        if (r < 0)
                log_warning_errno(r, "cannot ask systemd for unit states: %m, ignoring");
        return 0;
}

static int schedule_query(UnitWatch *w) {
        int r;

        if (w->query) {
                w->query_again = true;
                return 0;
        }
        if (!w->query_timer)
                return sd_event_add_time_relative(w->event, &w->query_timer, CLOCK_MONOTONIC, QUERY_DELAY_USEC, 0,
                                                  on_query_timer, w);
        r = sd_event_source_get_enabled(w->query_timer, NULL);
        if (r > 0)
                return 0; /* already due */
        r = sd_event_source_set_time_relative(w->query_timer, QUERY_DELAY_USEC);
        if (r < 0)
                return r;
        return sd_event_source_set_enabled(w->query_timer, SD_EVENT_ONESHOT);
}

static int on_unit_signal(sd_bus_message *message, void *userdata, sd_bus_error *ret_error) {
        int r = schedule_query(userdata);
        if (r < 0)
                log_warning_errno(r, "cannot ask systemd for unit states: %m, ignoring");
        return 0;
}

static int on_subscribe_reply(sd_bus_message *reply, void *userdata, sd_bus_error *ret_error) {
        UnitWatch *w = userdata;
        const sd_bus_error *e = sd_bus_message_get_error(reply);

        w->subscribe = sd_bus_slot_unref(w->subscribe);
        /* Not fatal: systemd may be on its way back, and then NameOwnerChanged subscribes again. */
        if (e)
                log_debug("systemd's Subscribe failed: %s", e->message ?: e->name);
        return 0;
}

/* Signals reach only subscribed clients; a new systemd (reexec, restart) forgot us. */
static int subscribe(UnitWatch *w) {
        w->subscribe = sd_bus_slot_unref(w->subscribe);
        return sd_bus_call_method_async(w->bus, &w->subscribe, SYSTEMD_NAME, SYSTEMD_PATH, SYSTEMD_MANAGER,
                                        "Subscribe", on_subscribe_reply, w, NULL);
}

static int on_owner_changed(sd_bus_message *message, void *userdata, sd_bus_error *ret_error) {
        UnitWatch *w = userdata;
        const char *name, *old_owner, *new_owner;
        int r;

        if (sd_bus_message_read(message, "sss", &name, &old_owner, &new_owner) < 0)
                return 0;
        if (!new_owner || !new_owner[0]) {
                log_info("systemd left the bus; unit rules keep their state until it is back");
                return 0;
        }
        log_info("systemd is on the bus again (%s): subscribing and asking for unit states", new_owner);
        r = subscribe(w);
        if (r >= 0)
                r = schedule_query(w);
        if (r < 0)
                log_warning_errno(r, "cannot follow systemd again: %m, ignoring");
        return 0;
}

int systemd_bus_open(const char *address, sd_bus **ret) {
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        int r;

        if (!address)
                return sd_bus_open_system(ret);
        r = sd_bus_new(&bus);
        if (r >= 0)
                r = sd_bus_set_address(bus, address);
        if (r >= 0)
                r = sd_bus_set_bus_client(bus, true);
        if (r >= 0)
                r = sd_bus_start(bus);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(bus);
        return 0;
}

int unit_watch_new_on_bus(UnitWatch **ret, sd_event *event, sd_bus *bus, UnitWatchChanged changed,
                          void *userdata) {
        _cleanup_(unit_watch_freep) UnitWatch *w = calloc(1, sizeof(UnitWatch));
        int r;

        if (!w)
                return -ENOMEM;
        w->changed = changed;
        w->userdata = userdata;
        w->event = sd_event_ref(event);
        w->bus = sd_bus_ref(bus);
        if (!sd_bus_get_event(bus)) {
                r = sd_bus_attach_event(w->bus, event, SD_EVENT_PRIORITY_NORMAL);
                if (r < 0)
                        return r;
        }
        r = sd_bus_add_match_async(w->bus, &w->owner_match,
                                   "type='signal',sender='org.freedesktop.DBus',path='/org/freedesktop/DBus',"
                                   "interface='org.freedesktop.DBus',member='NameOwnerChanged',"
                                   "arg0='" SYSTEMD_NAME "'",
                                   on_owner_changed, NULL, w);
        if (r < 0)
                return r;
        r = subscribe(w);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(w);
        return 0;
}

int unit_watch_new(UnitWatch **ret, sd_event *event, const char *bus_address, UnitWatchChanged changed,
                   void *userdata) {
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        UnitWatch *w;
        int r;

        r = systemd_bus_open(bus_address, &bus);
        if (r < 0)
                return r;
        r = unit_watch_new_on_bus(&w, event, bus, changed, userdata);
        if (r < 0)
                return r;
        w->own_bus = true;
        sd_bus_unref(TAKE_PTR(bus)); /* w holds its reference */
        *ret = w;
        return 0;
}

static int add_unit_matches(UnitWatch *w, WatchedUnit *u) {
        _cleanup_(freep) char *path = NULL, *m0 = NULL, *m1 = NULL, *m2 = NULL, *m3 = NULL;
        int r;

        r = sd_bus_path_encode(SYSTEMD_PATH "/unit", u->name, &path);
        if (r < 0)
                return r;
        /* Unit names are [A-Za-z0-9:_.\@-] (rules.c): nothing to quote in a match rule. */
        if (asprintf(&m0, "type='signal',sender='%s',path='%s',interface='org.freedesktop.DBus.Properties',"
                     "member='PropertiesChanged'", SYSTEMD_NAME, path) < 0 ||
            asprintf(&m1, "type='signal',sender='%s',interface='%s',member='UnitNew',arg0='%s'", SYSTEMD_NAME,
                     SYSTEMD_MANAGER, u->name) < 0 ||
            asprintf(&m2, "type='signal',sender='%s',interface='%s',member='UnitRemoved',arg0='%s'", SYSTEMD_NAME,
                     SYSTEMD_MANAGER, u->name) < 0 ||
            asprintf(&m3, "type='signal',sender='%s',interface='%s',member='JobRemoved',arg2='%s'", SYSTEMD_NAME,
                     SYSTEMD_MANAGER, u->name) < 0)
                return -ENOMEM;
        const char *matches[] = { m0, m1, m2, m3 };
        for (size_t i = 0; i < ELEMENTSOF(matches); i++) {
                r = sd_bus_add_match_async(w->bus, &u->matches[i], matches[i], on_unit_signal, NULL, w);
                if (r < 0)
                        return r;
        }
        return 0;
}

int unit_watch_set_units(UnitWatch *w, char *const *units) {
        size_t n = strv_length(units);
        WatchedUnit *v = calloc(n + 1, sizeof(WatchedUnit));
        int r = 0;

        if (!v)
                return -ENOMEM;
        for (size_t i = 0; i < n && r >= 0; i++) {
                const WatchedUnit *old = find_unit(w, units[i]);
                v[i].name = strdup(units[i]);
                v[i].state = old && old->state ? strdup(old->state) : NULL;
                if (!v[i].name || (old && old->state && !v[i].state))
                        r = -ENOMEM;
                else
                        r = add_unit_matches(w, &v[i]);
        }
        if (r < 0) {
                for (size_t i = 0; i < n; i++)
                        watched_unit_done(&v[i]);
                free(v);
                return r;
        }
        for (size_t i = 0; i < w->n_units; i++)
                watched_unit_done(&w->units[i]);
        free(w->units);
        w->units = v;
        w->n_units = n;
        return n > 0 ? schedule_query(w) : 0;
}

/* ---- reloading systemd and restarting a unit ------------------------------------------- */

static int on_try_restart_reply(sd_bus_message *reply, void *userdata, sd_bus_error *ret_error) {
        const sd_bus_error *e = sd_bus_message_get_error(reply);
        const char *unit = userdata;

        if (e)
                log_warning("cannot try-restart %s: %s, ignoring", unit, e->message ?: e->name);
        else
                log_info("%s: asked systemd to restart it if it runs", unit);
        return 0;
}

static int on_reload_reply(sd_bus_message *reply, void *userdata, sd_bus_error *ret_error) {
        const sd_bus_error *e = sd_bus_message_get_error(reply);
        const char *unit = userdata;
        int r;

        if (e) {
                log_warning("cannot make systemd reload its units for %s: %s, ignoring", unit,
                            e->message ?: e->name);
                return 0;
        }
        r = sd_bus_call_method_async(sd_bus_message_get_bus(reply), NULL, SYSTEMD_NAME, SYSTEMD_PATH,
                                     SYSTEMD_MANAGER, "TryRestartUnit", on_try_restart_reply, userdata, "ss", unit,
                                     "replace");
        if (r < 0)
                log_warning_errno(r, "cannot ask systemd to try-restart %s: %m, ignoring", unit);
        return 0;
}

int systemd_reload_try_restart(sd_bus *bus, const char *unit, bool wait) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        int r;

        if (!wait)
                return sd_bus_call_method_async(bus, NULL, SYSTEMD_NAME, SYSTEMD_PATH, SYSTEMD_MANAGER, "Reload",
                                                on_reload_reply, (void *)unit, NULL);
        r = sd_bus_call_method(bus, SYSTEMD_NAME, SYSTEMD_PATH, SYSTEMD_MANAGER, "Reload", &error, NULL, NULL);
        if (r < 0)
                return log_warning_errno(r, "cannot make systemd reload its units for %s: %s", unit,
                                         error.message ?: strerror(-r));
        r = sd_bus_call_method(bus, SYSTEMD_NAME, SYSTEMD_PATH, SYSTEMD_MANAGER, "TryRestartUnit", &error, NULL,
                               "ss", unit, "replace");
        if (r < 0)
                return log_warning_errno(r, "cannot try-restart %s: %s", unit, error.message ?: strerror(-r));
        log_info("%s: asked systemd to restart it if it runs", unit);
        return 0;
}
