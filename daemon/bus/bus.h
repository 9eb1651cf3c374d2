/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * bus.h: the org.netpolld1.Manager D-Bus object (docs/dbus.md): vtable,
 * authorization of changes, KnobChanged and property signals. The error
 * names and their errnos are in bus-errors.h, shared with netpollctl.
 */
#pragma once

#include <linux/capability.h>
#include <stdbool.h>
#include <systemd/sd-bus.h>

#include "bus-errors.h"
#include "manager.h"

#define BUS_NAME "org.netpolld1"
#define BUS_PATH "/org/netpolld1"
#define BUS_INTERFACE "org.netpolld1.Manager"

/*
 * Who may call a method or set a writable property is said once, in its vtable
 * flags. sd-bus's own gate is off for every member (UNPRIVILEGED): it would
 * refuse before the handler, with a message that does not say what is needed.
 * A BUS_PRIVILEGED member's handler calls bus_check_privileged(); the
 * capability in its flags (sd-bus ignores it next to UNPRIVILEGED) records
 * that. The system bus policy, systemd/org.netpolld1.conf, allows every caller
 * exactly the BUS_OPEN methods of bus_objects: tests/test-bus-policy.c holds it
 * to them.
 */
#define BUS_OPEN SD_BUS_VTABLE_UNPRIVILEGED
#define BUS_PRIVILEGED (SD_BUS_VTABLE_UNPRIVILEGED | SD_BUS_VTABLE_CAPABILITY(CAP_NET_ADMIN))

/* Whether a method or writable property is BUS_OPEN (read-only properties are open to all anyway). */
static inline bool bus_member_is_open(const sd_bus_vtable *v) {
        return (v->flags & (SD_BUS_VTABLE_UNPRIVILEGED | _SD_BUS_VTABLE_CAPABILITY_MASK)) == BUS_OPEN;
}

/* An object netpolld serves. */
typedef struct BusObject {
        const char *path;
        const char *interface;
        const sd_bus_vtable *vtable;
} BusObject;

/* Every object bus_setup() registers (with the Manager as userdata). */
extern const BusObject bus_objects[];
extern const size_t bus_n_objects;

/*
 * The ManagerAttach of the daemon (manager.h), userdata the bus address (NULL:
 * the system bus): connects, registers bus_objects (the Manager and
 * org.freedesktop.LogControl1, bus-logcontrol.h), takes the name, attaches to
 * the event loop and listens to the Manager (KnobChanged, PropertiesChanged;
 * the connection is flushed and closed when the Manager goes). Logs failures.
 */
int bus_attach(Manager *m, sd_event *event, void *userdata);

/*
 * The gate of every change: 0 when the sender is uid 0 or holds CAP_NET_ADMIN,
 * on credentials the bus vouches for; else AccessDenied set in error and a
 * negative errno (return it from the handler).
 */
int bus_check_privileged(sd_bus_message *message, sd_bus_error *error);

/* Sets the D-Bus error a MANAGER_E_* errno maps to (message NULL: strerror); returns a negative errno. */
int bus_error_from_manager(sd_bus_error *error, int r, const char *message);

