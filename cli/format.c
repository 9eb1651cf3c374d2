/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * format.c: small pure text formatters for netpollctl (see format.h).
 */
#include "format.h"

#include <inttypes.h>
#include <stdio.h>
#include <time.h>

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

const char *format_time_ms(char *buf, size_t size, uint64_t at_ms) {
        time_t sec = (time_t)(at_ms / 1000);
        struct tm tm;

        if (!localtime_r(&sec, &tm))
                snprintf(buf, size, "?");
        else
                snprintf(buf, size, "%02d:%02d:%02d.%03u", tm.tm_hour, tm.tm_min, tm.tm_sec,
                         (unsigned)(at_ms % 1000));
        return buf;
}

const char *format_decision(char *buf, size_t size, const char *knob, const char *old_value, const char *new_value,
                            uint64_t at_ms, const char *reason) {
        char when[32];

        snprintf(buf, size, "%s %s -> %s at %s: %s", knob ?: "?", old_value ?: "?", new_value ?: "?",
                 format_time_ms(when, sizeof(when), at_ms), reason ?: "?");
        return buf;
}
