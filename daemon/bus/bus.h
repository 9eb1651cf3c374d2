/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * bus.h: the org.netpolld1.Manager D-Bus object (docs/dbus.md): vtable,
 * authorization of changes, KnobChanged and property signals. The error
 * names and their errnos are in bus-errors.h, shared with netpollctl.
 */
#pragma once

#include <systemd/sd-bus.h>

#include "bus-errors.h"
#include "manager.h"

#define BUS_NAME "org.netpolld1"
#define BUS_PATH "/org/netpolld1"
#define BUS_INTERFACE "org.netpolld1.Manager"

/*
 * Connects (address NULL: the system bus), registers the object (and
 * org.freedesktop.LogControl1, bus-logcontrol.h) and takes the name, attached
 * to the event loop.
 */
int bus_setup(sd_bus **ret, sd_event *event, Manager *m, const char *address);

/*
 * The gate of every change: 0 when the sender is uid 0 or holds CAP_NET_ADMIN,
 * on credentials the bus vouches for; else AccessDenied set in error and a
 * negative errno (return it from the handler).
 */
int bus_check_privileged(sd_bus_message *message, sd_bus_error *error);

/* Sets the D-Bus error a MANAGER_E_* errno maps to (message NULL: strerror); returns a negative errno. */
int bus_error_from_manager(sd_bus_error *error, int r, const char *message);

/* The KnobChanged signal (values as people read them, with units). */
void bus_emit_knob_changed(sd_bus *bus, const char *name, const char *old, const char *new, const char *reason);

/* PropertiesChanged for the properties a reload or profile switch can change. */
void bus_emit_state_changed(sd_bus *bus);

/* Re-reads configuration with the sd_notify protocol around it (SIGHUP and Reload()). */
int bus_reload(sd_bus *bus, Manager *m, char **ret_message);
