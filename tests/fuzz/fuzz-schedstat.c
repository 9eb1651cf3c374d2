/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * fuzz-schedstat.c: the scheduler statistics the monitor reads for run queue
 * length: /proc/schedstat (schedstat_parse()) and debugfs sched/debug
 * (sched_debug_parse()), under the per-CPU parser contract of fuzz-proc.h.
 * The first byte picks the parser. More scheduler parsers (per-task
 * /proc/PID/schedstat, ...) join here as further cases.
 */
#include "fuzz-proc.h"
#include "monitor-parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        unsigned version = 0;

        if (size < 1)
                return 0;
        switch (data[0] % 2) {
        case 0:
                FUZZ_PER_CPU(SchedstatCpu, data + 1, size - 1, schedstat_parse, &version);
                break;
        case 1:
                FUZZ_PER_CPU(SchedDebugCpu, data + 1, size - 1, sched_debug_parse);
                break;
        }
        return 0;
}
