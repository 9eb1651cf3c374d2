/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * verb-metrics.c: netpollctl metrics: prints GetMetrics' Prometheus text
 * exposition as it is (with --json: {"metrics": TEXT}).
 */
#include <errno.h>
#include <stdio.h>

#include "netpollctl.h"

CtlStatus verb_metrics(int argc, char **argv) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        _cleanup_(json_object_putp) json_object *o = NULL;
        const char *text;
        int r;

        if (ctl_open_bus(&bus) < 0)
                return CTL_FAILED;
        r = ctl_call(bus, "GetMetrics", &error, &reply, NULL);
        if (r >= 0) {
                r = sd_bus_message_read(reply, "s", &text);
                if (r < 0)
                        r = ctl_bad_reply(&error, r, "GetMetrics");
        }
        if (r < 0)
                return ctl_bus_failed(&error, r);

        if (!arg_json) {
                if (fputs(text, stdout) < 0 || fflush(stdout) != 0)
                        return ctl_failed(-EIO, "cannot print the metrics");
                return CTL_OK;
        }
        o = json_object_new_object();
        r = o ? json_add_schema(o, "metrics") : -ENOMEM;
        if (r >= 0)
                r = json_add_string(o, "metrics", text);
        if (r >= 0)
                r = ctl_print_json(o, true);
        return r < 0 ? ctl_failed(r, "cannot print the JSON output") : CTL_OK;
}
