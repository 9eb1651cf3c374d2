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

/* Registers the object on bus; it lives as long as the connection. */
int bus_logcontrol_add(sd_bus *bus);
