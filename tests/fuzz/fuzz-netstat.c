/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * fuzz-netstat.c: /proc/net/netstat and /proc/net/snmp through
 * netstat_field_parse(), asked for the fields netpolld reads and for one
 * the input itself names (so the value side gets reached on random text):
 * the first line of the input is "GROUP NAME", the rest is the file.
 */
#include <stdio.h>

#include "fuzz-proc.h"
#include "monitor-parse.h"

static void field(const char *text, const char *group, const char *name) {
        uint64_t v = 0x5a5a5a5a;
        int r = netstat_field_parse(text, group, name, &v);

        fuzz_assert(r == 0 || r == -ENOENT || r == -EBADMSG || r == -EINVAL);
        if (r < 0)
                fuzz_assert(v == 0x5a5a5a5a);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        _cleanup_(freep) char *input = fuzz_text(data, size);
        char group[64], name[64];
        char *text;

        if (!input)
                return 0;
        text = strchr(input, '\n');
        if (!text)
                return 0;
        *text++ = 0;
        field(text, "TcpExt", "BusyPollRxPackets");
        field(text, "Udp", "InDatagrams");
        if (sscanf(input, "%63s %63s", group, name) == 2)
                field(text, group, name);
        return 0;
}
