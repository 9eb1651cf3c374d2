/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * fuzz-schedstat.c: the scheduler statistics the monitor reads for run queue
 * length: /proc/schedstat (schedstat_parse()) and debugfs sched/debug
 * (sched_debug_parse()), under the per-CPU parser contract of fuzz-proc.h;
 * and the per-task files of the "tasks" source: /proc/PID/task/TID/schedstat
 * (task_schedstat_parse()), the CPU and user/kernel time fields of .../stat (task_stat_parse())
 * and /proc/loadavg's last PID (loadavg_last_pid_parse()), each 0 with its
 * value or -EBADMSG with the output untouched. The first byte picks the parser.
 */
#include "fuzz-proc.h"
#include "monitor-parse.h"

/* One single-value parser: 0, or -EBADMSG leaving *out (filled with 0x5a) as it was. */
#define FUZZ_ONE(type, text, parse)                                             \
        do {                                                                    \
                type out_, out0_;                                               \
                int r_;                                                         \
                memset(&out_, 0x5a, sizeof(out_));                              \
                out0_ = out_;                                                   \
                r_ = parse(text, &out_);                                        \
                fuzz_assert(r_ == 0 || r_ == -EBADMSG);                         \
                if (r_ < 0)                                                     \
                        fuzz_assert(memcmp(&out_, &out0_, sizeof(out_)) == 0); \
        } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        _cleanup_(freep) char *text = NULL;
        unsigned version = 0;

        if (size < 1)
                return 0;
        if (data[0] % 5 >= 2) {
                text = fuzz_text(data + 1, size - 1);
                if (!text)
                        return 0;
        }
        switch (data[0] % 5) {
        case 0:
                FUZZ_PER_CPU(SchedstatCpu, data + 1, size - 1, schedstat_parse, &version);
                break;
        case 1:
                FUZZ_PER_CPU(SchedDebugCpu, data + 1, size - 1, sched_debug_parse);
                break;
        case 2:
                FUZZ_ONE(TaskSchedstat, text, task_schedstat_parse);
                break;
        case 3:
                FUZZ_ONE(TaskStat, text, task_stat_parse);
                break;
        case 4:
                FUZZ_ONE(uint64_t, text, loadavg_last_pid_parse);
                break;
        }
        return 0;
}
