/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * bus-explain.h: the Explain and GetOtherOwners methods of
 * org.netpolld1.Manager (docs/dbus.md): reads open to every caller. Internal to the bus object.
 */
#pragma once

#include <systemd/sd-bus.h>

int method_explain(sd_bus_message *message, void *userdata, sd_bus_error *error);
int method_get_other_owners(sd_bus_message *message, void *userdata, sd_bus_error *error);
