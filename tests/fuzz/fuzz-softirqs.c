/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * fuzz-softirqs.c: /proc/softirqs through softirqs_parse(), under the
 * per-CPU parser contract of fuzz-proc.h.
 */
#include "fuzz-proc.h"
#include "monitor-parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        FUZZ_PER_CPU(SoftirqCpu, data, size, softirqs_parse);
        return 0;
}
