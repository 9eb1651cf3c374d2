/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * fuzz-stat.c: /proc/stat through proc_stat_parse(). Like the per-CPU
 * parsers (fuzz-proc.h): outputs untouched on failure, and on success no
 * more CPUs marked online than it counted, none past the room given, and no
 * CPU counted past the highest slot.
 */
#include "fuzz-proc.h"
#include "monitor-parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        _cleanup_(freep) char *text = fuzz_text(data, size);
        static const size_t ns[] = { 0, 1, 4, FUZZ_PROC_SLOTS };

        if (!text)
                return 0;
        for (size_t k = 0; k < ELEMENTSOF(ns); k++) {
                bool online[FUZZ_PROC_SLOTS];
                ProcStat st, st0;
                size_t marked = 0;
                int r;

                memset(online, 0, sizeof(online));
                memset(&st, 0x5a, sizeof(st));
                st0 = st;
                r = proc_stat_parse(text, &st, ns[k] ? online : NULL, ns[k]);
                if (r < 0) {
                        fuzz_assert(r == -EBADMSG);
                        fuzz_assert(memcmp(&st, &st0, sizeof(st)) == 0);
                        continue;
                }
                for (size_t i = 0; i < FUZZ_PROC_SLOTS; i++) {
                        fuzz_assert(i < ns[k] || !online[i]);
                        marked += online[i];
                }
                fuzz_assert((unsigned)r == st.n_online);
                fuzz_assert(marked <= st.n_online);
                fuzz_assert(st.n_online <= st.cpu_slots);
        }
        return 0;
}
