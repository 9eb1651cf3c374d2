/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * monitor.h: what the three forms of "netpollctl monitor" share: the change
 * stream (verb-monitor.c: one line or JSON object per KnobChanged), the live
 * screen on a terminal (monitor-screen.c) and the one-shot screen of --once
 * (monitor-once.c): the event loop and bus set-up and the subscriptions.
 */
#pragma once

#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>

#include "netpollctl.h"

/* How a form of monitor reacts to what the subscriptions deliver; the userdata of those handlers. */
typedef struct MonitorHooks {
        sd_event *event;
        /* A KnobChanged signal arrived; r < 0 ends the loop with CTL_FAILED (message printed here). */
        int (*change)(void *userdata, const char *name, const char *old, const char *new, const char *reason);
        /* Called before a message on stderr that ends the loop: the live screen leaves the terminal first. */
        void (*before_message)(void *userdata);
        void *userdata;
} MonitorHooks;

/*
 * Blocks SIGINT and SIGTERM, makes an event loop that they end with status
 * 0, connects to the bus and attaches it. Prints what failed.
 */
CtlStatus monitor_open(sd_event **ret_event, sd_bus **ret_bus);

/* Subscribes to KnobChanged and to netpolld leaving the bus; h must outlive the bus. */
int monitor_subscribe(sd_bus *bus, MonitorHooks *h, sd_bus_error *error);

/* The refreshing screen on a terminal, until SIGINT/SIGTERM (CTL_OK) or netpolld leaves. */
CtlStatus monitor_live(void);
/* One screen without terminal codes (or one JSON document with --json). */
CtlStatus monitor_once(void);
