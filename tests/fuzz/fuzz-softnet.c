/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * fuzz-softnet.c: /proc/net/softnet_stat through softnet_parse(), under the
 * per-CPU parser contract of fuzz-proc.h.
 */
#include "fuzz-proc.h"
#include "monitor-parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        unsigned columns = 0;
        FUZZ_PER_CPU(SoftnetCpu, data, size, softnet_parse, &columns);
        return 0;
}
