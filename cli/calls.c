/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * calls.c: netpollctl's calls of the org.netpolld1.Manager methods that
 * several verbs share, and the reply parsing they need. Non-logging: errors
 * go into the sd_bus_error for ctl_bus_failed() to report.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "netpollctl.h"

int ctl_call(sd_bus *bus, const char *member, sd_bus_error *error, sd_bus_message **ret_reply,
             const char *types, ...) {
        va_list ap;
        int r;

        va_start(ap, types);
        r = sd_bus_call_methodv(bus, NETPOLLD_BUS_NAME, NETPOLLD_OBJECT_PATH, NETPOLLD_INTERFACE,
                                member, error, ret_reply, types, ap);
        va_end(ap);
        return r;
}

int ctl_grow(void **p, size_t *allocated, size_t need, size_t size) {
        size_t a;
        void *q;

        if (need <= *allocated)
                return 0;
        a = MAX(need, MAX(*allocated * 2, (size_t) 8));
        q = reallocarray(*p, a, size);
        if (!q)
                return -ENOMEM;
        *p = q;
        *allocated = a;
        return 0;
}

int ctl_bad_reply(sd_bus_error *error, int r, const char *method) {
        if (r >= 0)
                r = -EBADMSG;
        /* A reply we cannot read means client and daemon disagree on the API: say which call. */
        sd_bus_error_setf(error, SD_BUS_ERROR_INCONSISTENT_MESSAGE,
                          "unexpected reply from netpolld to %s: %s", method, strerror(-r));
        return r;
}

int ctl_list_knobs(sd_bus *bus, sd_bus_error *error, sd_bus_message **ret_reply,
                   KnobInfo **ret_knobs, size_t *ret_n) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        _cleanup_(freep) KnobInfo *knobs = NULL;
        size_t n = 0, allocated = 0;
        int r;

        r = ctl_call(bus, "ListKnobs", error, &reply, NULL);
        if (r < 0)
                return r;

        r = sd_bus_message_enter_container(reply, 'a', "(ssssbss)");
        if (r < 0)
                return ctl_bad_reply(error, r, "ListKnobs");
        for (;;) {
                KnobInfo k = {};
                int supported;

                r = sd_bus_message_read(reply, "(ssssbss)", &k.name, &k.value, &k.unit, &k.origin,
                                        &supported, &k.patch, &k.summary);
                if (r < 0)
                        return ctl_bad_reply(error, r, "ListKnobs");
                if (r == 0)
                        break;
                k.supported = supported;

                r = ctl_grow((void **) &knobs, &allocated, n + 1, sizeof(KnobInfo));
                if (r < 0)
                        return ctl_bad_reply(error, r, "ListKnobs");
                knobs[n++] = k;
        }
        r = sd_bus_message_exit_container(reply);
        if (r < 0)
                return ctl_bad_reply(error, r, "ListKnobs");

        *ret_reply = TAKE_PTR(reply);
        *ret_knobs = TAKE_PTR(knobs);
        *ret_n = n;
        return 0;
}
