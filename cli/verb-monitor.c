/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * verb-monitor.c: netpollctl monitor: picks the form (the live screen on a
 * terminal, one screen with --once, else the change stream), and the change
 * stream itself: follows netpolld's KnobChanged signal and prints one line
 * per change (text, or one compact JSON object per line) until
 * SIGINT/SIGTERM, or until netpolld leaves the bus. Also the loop set-up and
 * subscriptions all forms share (monitor.h).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "monitor.h"
#include "netpollctl.h"

/* The signal carries no timestamp, so the time of arrival is the best we have. */
static int print_change(const char *name, const char *old, const char *new, const char *reason) {
        _cleanup_(json_object_putp) json_object *o = NULL;
        struct timespec ts;
        struct tm tm;
        char t[64];
        int r;

        if (clock_gettime(CLOCK_REALTIME, &ts) < 0)
                return negative_errno();

        if (!arg_json) {
                if (!localtime_r(&ts.tv_sec, &tm) || strftime(t, sizeof(t), "%H:%M:%S", &tm) == 0)
                        return -EINVAL;
                printf("%s.%03ld  %s  %s -> %s  (%s)\n", t, ts.tv_nsec / 1000000, name,
                       old[0] ? old : "-", new[0] ? new : "-", reason);
        } else {
                /* UTC: the same instant reads the same on every host and in every log. */
                char iso[96];

                if (!gmtime_r(&ts.tv_sec, &tm) || strftime(t, sizeof(t), "%Y-%m-%dT%H:%M:%S", &tm) == 0)
                        return -EINVAL;
                snprintf(iso, sizeof(iso), "%s.%03ldZ", t, ts.tv_nsec / 1000000);

                o = json_object_new_object();
                r = o ? json_add_schema(o, "knob-changed") : -ENOMEM;
                if (r >= 0)
                        r = json_add_string(o, "time", iso);
                if (r >= 0)
                        r = json_add_string(o, "name", name);
                if (r >= 0)
                        r = json_add_string(o, "old", old);
                if (r >= 0)
                        r = json_add_string(o, "new", new);
                if (r >= 0)
                        r = json_add_string(o, "reason", reason);
                if (r >= 0)
                        r = ctl_print_json(o, false);
                if (r < 0)
                        return r;
        }

        /* Readers are often pipes (grep, jq): each change must reach them when it happens. */
        if (fflush(stdout) != 0)
                return negative_errno();
        return 0;
}

static void before_message(MonitorHooks *h) {
        if (h->before_message)
                h->before_message(h->userdata);
}

static int on_knob_changed(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
        MonitorHooks *h = userdata;
        const char *name, *old, *new, *reason;
        int r;

        r = sd_bus_message_read(m, "ssss", &name, &old, &new, &reason);
        if (r < 0) {
                /* Not fatal, but on the live screen a message would land in the middle of it. */
                if (!h->before_message)
                        fprintf(stderr, "netpollctl: malformed KnobChanged signal: %s, ignoring\n", strerror(-r));
                return 0;
        }

        r = h->change(h->userdata, name, old, new, reason);
        if (r < 0) {
                before_message(h);
                fprintf(stderr, "netpollctl: cannot show a knob change: %s\n", strerror(-r));
                return sd_event_exit(h->event, CTL_FAILED);
        }
        return 0;
}

static int on_name_owner_changed(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
        MonitorHooks *h = userdata;
        const char *name, *old_owner, *new_owner;

        if (sd_bus_message_read(m, "sss", &name, &old_owner, &new_owner) < 0 || new_owner[0])
                return 0;

        before_message(h);
        fprintf(stderr, "netpollctl: netpolld left %s (stopped or crashed)\n", ctl_bus_description());
        return sd_event_exit(h->event, CTL_FAILED);
}

/* sd-bus delivers the loss of the connection as a local Disconnected signal. */
static int on_message(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
        MonitorHooks *h = userdata;

        if (!sd_bus_message_is_signal(m, "org.freedesktop.DBus.Local", "Disconnected"))
                return 0;

        before_message(h);
        fprintf(stderr, "netpollctl: lost the connection to %s\n", ctl_bus_description());
        return sd_event_exit(h->event, CTL_FAILED);
}

/* Subscribes before looking at the daemon, so that no change falls between the two. */
int monitor_subscribe(sd_bus *bus, MonitorHooks *h, sd_bus_error *error) {
        int r;

        r = sd_bus_add_filter(bus, NULL, on_message, h);
        if (r < 0)
                return sd_bus_error_set_errnof(error, r, "cannot watch the connection: %s", strerror(-r));

        r = sd_bus_match_signal(bus, NULL, NETPOLLD_BUS_NAME, NETPOLLD_OBJECT_PATH, NETPOLLD_INTERFACE,
                                "KnobChanged", on_knob_changed, h);
        if (r < 0)
                return sd_bus_error_set_errnof(error, r, "cannot subscribe to KnobChanged: %s", strerror(-r));

        r = sd_bus_add_match(bus, NULL,
                             "type='signal',sender='org.freedesktop.DBus',path='/org/freedesktop/DBus',"
                             "interface='org.freedesktop.DBus',member='NameOwnerChanged',"
                             "arg0='" NETPOLLD_BUS_NAME "'",
                             on_name_owner_changed, h);
        if (r < 0)
                return sd_bus_error_set_errnof(error, r, "cannot watch netpolld's bus name: %s", strerror(-r));
        return 0;
}

CtlStatus monitor_open(sd_event **ret_event, sd_bus **ret_bus) {
        _cleanup_(sd_event_unrefp) sd_event *event = NULL;
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        sigset_t mask;
        int r;

        /* sd-event takes signals through a signalfd, which needs them blocked. */
        sigemptyset(&mask);
        sigaddset(&mask, SIGINT);
        sigaddset(&mask, SIGTERM);
        if (sigprocmask(SIG_BLOCK, &mask, NULL) < 0)
                return ctl_failed(negative_errno(), "cannot block SIGINT and SIGTERM");

        r = sd_event_new(&event);
        if (r >= 0)
                r = sd_event_add_signal(event, NULL, SIGINT, NULL, NULL); /* exits the loop with 0 */
        if (r >= 0)
                r = sd_event_add_signal(event, NULL, SIGTERM, NULL, NULL);
        if (r < 0)
                return ctl_failed(r, "cannot set up the event loop");

        if (ctl_open_bus(&bus) < 0)
                return CTL_FAILED;
        r = sd_bus_attach_event(bus, event, SD_EVENT_PRIORITY_NORMAL);
        if (r < 0)
                return ctl_failed(r, "cannot attach the bus to the event loop");

        *ret_event = TAKE_PTR(event);
        *ret_bus = TAKE_PTR(bus);
        return CTL_OK;
}

static int stream_change(void *userdata, const char *name, const char *old, const char *new, const char *reason) {
        return print_change(name, old, new, reason);
}

static CtlStatus monitor_stream(void) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_(sd_event_unrefp) sd_event *event = NULL;
        /* Declared after event: the bus is closed (and leaves the loop) before the loop goes. */
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        MonitorHooks hooks = { .change = stream_change };
        CtlStatus s;
        int r;

        s = monitor_open(&event, &bus);
        if (s != CTL_OK)
                return s;
        hooks.event = event;

        r = monitor_subscribe(bus, &hooks, &error);
        if (r < 0)
                return ctl_bus_failed(&error, r);

        if (arg_json) {
                /* Fail now, not silently wait forever, when netpolld is absent (this also activates it). */
                r = sd_bus_call_method(bus, NETPOLLD_BUS_NAME, NETPOLLD_OBJECT_PATH, "org.freedesktop.DBus.Peer",
                                       "Ping", &error, NULL, NULL);
                if (r < 0)
                        return ctl_bus_failed(&error, r);
        } else {
                _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
                _cleanup_(freep) KnobInfo *knobs = NULL;
                size_t n;

                r = ctl_list_knobs(bus, &error, &reply, &knobs, &n);
                if (r < 0)
                        return ctl_bus_failed(&error, r);
                r = ctl_print_knob_table(knobs, n);
                if (r >= 0 && (putchar('\n') == EOF || fflush(stdout) != 0))
                        r = -EIO;
                if (r < 0)
                        return ctl_failed(r, "cannot print the knob table");
        }

        r = sd_event_loop(event);
        if (r < 0)
                return ctl_failed(r, "event loop failed");
        return (CtlStatus) r;
}

CtlStatus verb_monitor(int argc, char **argv) {
        if (arg_once)
                return monitor_once();
        /* A person watching gets the screen; pipes and --json keep the line-per-change stream. */
        if (!arg_json && isatty(STDOUT_FILENO))
                return monitor_live();
        return monitor_stream();
}
