/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * timerfloor: what waking up every INTERVAL costs on this machine by itself.
 * An sd-event loop with one timer re-armed every INTERVAL microseconds (at a
 * hundredth of it, as netpolld's sampling timer) that does nothing else. The
 * bench's cost part measures its CPU like netpolld's: the floor any daemon
 * that samples at that interval pays before doing any work.
 *
 * Usage: timerfloor INTERVAL_US   (runs until killed)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <systemd/sd-event.h>

static uint64_t interval_us;

static int on_tick(sd_event_source *s, uint64_t usec, void *userdata) {
        int r;

        (void)usec;
        (void)userdata;
        r = sd_event_source_set_time_relative(s, interval_us);
        if (r >= 0)
                r = sd_event_source_set_enabled(s, SD_EVENT_ONESHOT);
        return r;
}

int main(int argc, char **argv) {
        sd_event_source *timer = NULL;
        sd_event *event = NULL;
        char *end;
        int r;

        if (argc != 2 || (interval_us = strtoull(argv[1], &end, 10)) == 0 || *end) {
                fprintf(stderr, "usage: timerfloor INTERVAL_US (a positive number of microseconds)\n");
                return 2;
        }
        r = sd_event_default(&event);
        if (r >= 0)
                r = sd_event_add_time_relative(event, &timer, CLOCK_MONOTONIC, interval_us,
                                               interval_us / 100 ?: 1, on_tick, NULL);
        if (r >= 0)
                r = sd_event_loop(event);
        if (r < 0)
                fprintf(stderr, "timerfloor: %s\n", strerror(-r));
        return r < 0 ? 1 : 0;
}
