/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * fuzz.h: what the libFuzzer targets (fuzz-NAME.c) share. libFuzzer calls
 * LLVMFuzzerTestOneInput() once per input; a crash, a sanitizer report, a
 * leak or an abort() from a broken invariant is a finding. Inputs are copied
 * into exactly sized heap buffers, so reading one byte past the input is an
 * ASan report and not a silent read of libFuzzer's own memory.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The input as a NUL-terminated string (caller frees); NULL for inputs with a NUL byte inside. */
char *fuzz_text(const uint8_t *data, size_t size);

/* The input as an exactly sized heap copy (caller frees; never NULL for size > 0, aborts on ENOMEM). */
void *fuzz_copy(const uint8_t *data, size_t size);

/*
 * A private directory made on first use and removed at exit, for targets
 * whose parser reads a file (netpolld.conf, profiles, the journal).
 */
const char *fuzz_dir(void);

/* Replaces FILE in fuzz_dir() with the input; returns its full path (static). Aborts on I/O errors. */
const char *fuzz_write(const char *file, const uint8_t *data, size_t size);

/* An invariant the code under test broke: print it and abort (libFuzzer keeps the input). */
#define fuzz_assert(expr)                                                                          \
        do {                                                                                       \
                if (!(expr))                                                                       \
                        fuzz_fail(__FILE__, __LINE__, #expr);                                      \
        } while (0)
_Noreturn void fuzz_fail(const char *file, int line, const char *what);
