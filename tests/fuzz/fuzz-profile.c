/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * fuzz-profile.c: a profile through profile_load(), from a file in a search
 * directory of its own (so include= can name it and must find the cycle).
 * A profile is either loaded whole or refused with problems that each name
 * a file of its include chain.
 */
#include <errno.h>
#include <string.h>

#include "fuzz.h"
#include "macro.h"
#include "policy.h"
#include "strv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        _cleanup_(profile_freep) Profile *p = NULL;
        _cleanup_(strv_freep) char **errors = NULL;
        char *dirs[] = { (char *)fuzz_dir(), NULL };
        const char *path;
        int r;

        if (size > 64 * 1024)
                return 0;
        path = fuzz_write("fuzz.conf", data, size);
        r = profile_load(&p, path, dirs, &errors);
        if (r == 0) {
                fuzz_assert(p && !errors);
                fuzz_assert(p->chain && p->chain[0]);
                for (size_t i = 0; i < p->n_knobs; i++)
                        fuzz_assert(p->knobs[i].ref.desc);
        } else {
                fuzz_assert(!p);
                if (r == -EINVAL)
                        fuzz_assert(errors && errors[0]);
        }
        return 0;
}
