/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * fuzz-conf.c: netpolld.conf through config_load(), from a file as the
 * daemon reads it. A file is either loaded or refused with a list of
 * problems that each name the file.
 */
#include <errno.h>
#include <string.h>

#include "fuzz.h"
#include "macro.h"
#include "policy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        _cleanup_(config_freep) DaemonConfig *c = NULL;
        _cleanup_(strv_freep) char **errors = NULL;
        const char *path;
        int r;

        if (size > 64 * 1024)
                return 0;
        path = fuzz_write("netpolld.conf", data, size);
        r = config_load(&c, path, &errors);
        if (r == 0) {
                fuzz_assert(c && !errors);
                fuzz_assert(c->profile && c->state_dir);
                fuzz_assert(c->interval_us >= 10000 && c->interval_us <= 60000000);
        } else {
                fuzz_assert(!c);
                if (r == -EINVAL) {
                        fuzz_assert(errors && errors[0]);
                        for (char **e = errors; *e; e++)
                                fuzz_assert(strstr(*e, path));
                }
        }
        return 0;
}
