/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * unit-watch.h: whether named systemd units are active, from systemd itself
 * over the system bus (for unit= rules). It subscribes to the manager's
 * signals, listens to the units' PropertiesChanged, UnitNew, UnitRemoved and
 * JobRemoved and to systemd leaving and coming back on the bus (daemon-reexec,
 * a restart), and after each such signal asks ListUnitsByPatterns for the
 * units' ActiveState; units that are not loaded are inactive. It tells its
 * owner through a callback when a unit's state changed. Logs on the edges only.
 *
 * The connection to systemd is the daemon's one (systemd_bus_open()): the
 * manager opens it once and hands it to the watch and to
 * systemd_reload_try_restart() (the irqbalance drop-in, irqbalance-ban.h).
 */
#pragma once

#include <stdbool.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>

typedef struct UnitWatch UnitWatch;

/* Called (from the event loop) after a query found some unit's activity changed. */
typedef void (*UnitWatchChanged)(void *userdata);

/*
 * Connects to the bus at bus_address (NULL: the system bus, where systemd is;
 * tests give a private one) and attaches to event. -errno when there is no
 * bus (then nothing to follow).
 */
int unit_watch_new(UnitWatch **ret, sd_event *event, const char *bus_address, UnitWatchChanged changed,
                   void *userdata);
/* The same on a connection the caller opened with systemd_bus_open() (referenced; attached to event if not yet). */
int unit_watch_new_on_bus(UnitWatch **ret, sd_event *event, sd_bus *bus, UnitWatchChanged changed,
                          void *userdata);
UnitWatch *unit_watch_free(UnitWatch *w);
static inline void unit_watch_freep(UnitWatch **w) {
        if (*w)
                unit_watch_free(*w);
}

/* Follows exactly these unit names (strv, copied) and asks systemd for their state. */
int unit_watch_set_units(UnitWatch *w, char *const *units);

/* The unit is in ActiveState active, reloading, activating or refreshing as last seen. */
bool unit_watch_is_active(const UnitWatch *w, const char *unit);

/* "active", "inactive", ... as systemd last said; "unknown" before the first answer, "not-loaded". */
const char *unit_watch_state(const UnitWatch *w, const char *unit);

/* Whether an ActiveState counts as the unit being there. */
bool unit_active_state_counts(const char *state);

/* A client connection to the bus at address (NULL: the system bus, where systemd is). */
int systemd_bus_open(const char *address, sd_bus **ret);

/*
 * Asks systemd to reload its unit files (Reload) and then to restart unit if
 * it is active (TryRestartUnit, mode "replace"). unit must be a string that
 * outlives the calls (a literal). wait: both calls done before returning
 * (at stop, when the event loop no longer runs; failures logged and
 * returned); else sent asynchronously and their failures logged.
 */
int systemd_reload_try_restart(sd_bus *bus, const char *unit, bool wait);
