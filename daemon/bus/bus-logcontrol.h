/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * bus-logcontrol.h: systemd's org.freedesktop.LogControl1 interface
 * (org.freedesktop.LogControl1(5)) on netpolld's bus connection, which
 * `systemctl service-log-level netpolld debug` and `busctl set-property`
 * use to change the log level and target of the running daemon.
 */
#pragma once

#include <systemd/sd-bus.h>

#define LOG_CONTROL_PATH "/org/freedesktop/LogControl1"
#define LOG_CONTROL_INTERFACE "org.freedesktop.LogControl1"

/* The object's vtable, served at LOG_CONTROL_PATH (bus.c's bus_objects); its userdata is unused. */
extern const sd_bus_vtable bus_log_control_vtable[];
