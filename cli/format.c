/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * format.c: small pure text formatters for netpollctl (see format.h).
 */
#include "format.h"

#include <inttypes.h>
#include <stdio.h>

const char *format_milli(char *buf, size_t size, uint64_t milli) {
        uint64_t whole = milli / 1000, hundredths = (milli % 1000 + 5) / 10;

        /* Rounding by parts: milli + 5 would overflow near UINT64_MAX. */
        if (hundredths == 100) {
                whole++;
                hundredths = 0;
        }
        snprintf(buf, size, "%" PRIu64 ".%02" PRIu64, whole, hundredths);
        return buf;
}

const char *format_mode(char *buf, size_t size, const char *mode, const char *source, int pressure) {
        const char *m = mode && mode[0] ? mode : "n/a";

        if (!source || !source[0])
                snprintf(buf, size, "%s", m);
        else if (pressure < 0)
                snprintf(buf, size, "%s (runnable depth from %s)", m, source);
        else
                snprintf(buf, size, "%s (runnable depth from %s, %s)", m, source,
                         pressure ? "PSI in use" : "PSI not in use");
        return buf;
}
