/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * verb-mode.c: netpollctl pause and resume: stop and restart the adaptive
 * controller (SetMode "paused" / "adaptive"). The daemon decides whether
 * the active profile allows adaptation; its InvalidValue error says why not.
 */
#include <errno.h>
#include <stdio.h>

#include "netpollctl.h"

static CtlStatus set_mode(const char *mode, const char *sentence) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        _cleanup_(json_object_putp) json_object *o = NULL;
        int r;

        if (ctl_open_bus(&bus) < 0)
                return CTL_FAILED;

        r = ctl_call(bus, "SetMode", &error, NULL, "s", mode);
        if (r < 0)
                return ctl_bus_failed(&error, r);

        if (!arg_json) {
                puts(sentence);
                return CTL_OK;
        }

        /* SetMode returns nothing: on success the mode in force is the one asked for. */
        o = json_object_new_object();
        r = o ? json_add_schema(o, "mode") : -ENOMEM;
        if (r >= 0)
                r = json_add_string(o, "mode", mode);
        if (r >= 0)
                r = ctl_print_json(o, true);
        return r < 0 ? ctl_failed(r, "cannot print the JSON output") : CTL_OK;
}

CtlStatus verb_pause(int argc, char **argv) {
        return set_mode("paused", "Adaptation paused.");
}

CtlStatus verb_resume(int argc, char **argv) {
        return set_mode("adaptive", "Adaptation resumed.");
}
