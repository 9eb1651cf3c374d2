/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * bus-irq.h: ListIrqs and ListNapiThreads of org.netpolld1.Manager
 * (docs/dbus.md): reads open to every caller. Internal to the bus object.
 */
#pragma once

#include <systemd/sd-bus.h>

/* The D-Bus types of their replies. */
#define IRQ_ROWS_SIGNATURE "a(ssuissss)"
#define NAPI_THREAD_ROWS_SIGNATURE "a(susis)"

int method_list_irqs(sd_bus_message *message, void *userdata, sd_bus_error *error);
int method_list_napi_threads(sd_bus_message *message, void *userdata, sd_bus_error *error);
