/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * fuzz-pressure.c: /proc/pressure/cpu through psi_parse(): 0 with the values,
 * or -EBADMSG with the output untouched.
 */
#include "fuzz-proc.h"
#include "monitor-parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        _cleanup_(freep) char *text = fuzz_text(data, size);
        Psi psi, psi0;
        int r;

        if (!text)
                return 0;
        memset(&psi, 0x5a, sizeof(psi));
        psi0 = psi;
        r = psi_parse(text, &psi);
        fuzz_assert(r == 0 || r == -EBADMSG);
        if (r < 0)
                fuzz_assert(memcmp(&psi, &psi0, sizeof(psi)) == 0);
        else
                fuzz_assert(psi.has_full == true || psi.has_full == false);
        return 0;
}
