/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * fuzz-tuned.c: tuned profiles through profile import-tuned's reader
 * (tuned_profile_load(), tuned_import(), tuned_import_format()). The input
 * is up to three files separated by lines "%%": the profile fuzz/tuned.conf
 * loaded by name, the profile other/tuned.conf it may include, and vars.conf
 * for a [variables] include=${i:PROFILE_DIR}/../vars.conf; a missing part
 * is a missing file. A profile is either imported, and then netpolld's own
 * profile_load() reads what the import writes, or refused with a message
 * naming a file and of bounded length (quotes are cut to 64 bytes).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz.h"
#include "macro.h"
#include "policy.h"
#include "strv.h"
#include "tuned-import.h"

static const char *const parts[] = { "fuzz/tuned.conf", "other/tuned.conf", "vars.conf" };

/* The input split at "\n%%\n" into parts[]; a part the input does not have is removed. */
static void write_parts(const uint8_t *data, size_t size) {
        static const char sep[] = "\n%%\n";
        const uint8_t *p = data, *end = data + size;

        for (size_t i = 0; i < ELEMENTSOF(parts); i++) {
                const uint8_t *next = p ? memmem(p, (size_t)(end - p), sep, strlen(sep)) : NULL;
                char path[4096];

                if (p && i < ELEMENTSOF(parts) - 1 && next) {
                        fuzz_write(parts[i], p, (size_t)(next - p));
                        p = next + strlen(sep);
                } else if (p) {
                        fuzz_write(parts[i], p, (size_t)(end - p));
                        p = NULL;
                } else {
                        snprintf(path, sizeof(path), "%s/%s", fuzz_dir(), parts[i]);
                        (void)unlink(path);
                }
        }
}

static void make_dirs(void) {
        static const char *const dirs[] = { "fuzz", "other", "out" };
        char path[4096];

        for (size_t i = 0; i < ELEMENTSOF(dirs); i++) {
                snprintf(path, sizeof(path), "%s/%s", fuzz_dir(), dirs[i]);
                if (mkdir(path, 0755) < 0 && errno != EEXIST)
                        fuzz_fail(__FILE__, __LINE__, "mkdir");
        }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        _cleanup_(tuned_profile_freep) TunedProfile *p = NULL;
        _cleanup_(tuned_import_freep) TunedImport *imp = NULL;
        _cleanup_(profile_freep) Profile *np = NULL;
        _cleanup_(strv_freep) char **errors = NULL;
        _cleanup_(freep) char *error = NULL, *text = NULL;
        char *dirs[] = { (char *)fuzz_dir(), NULL };
        const char *out;
        int r;

        if (size > 256 * 1024)
                return 0;
        make_dirs();
        write_parts(data, size);

        r = tuned_profile_load("fuzz", dirs, &p, &error);
        if (r < 0) {
                fuzz_assert(!p);
                /* Only a failed allocation may come without a message; every message starts with a file. */
                fuzz_assert(error || r == -ENOMEM);
                if (error) {
                        fuzz_assert(error[0] == '/' || startswith(error, "fuzz: "));
                        fuzz_assert(strlen(error) < 1024);
                }
                return 0;
        }
        fuzz_assert(p && p->name && streq(p->name, "fuzz") && p->files && p->files[0]);

        r = tuned_import(p, &imp);
        if (r < 0) {
                fuzz_assert(r == -ENOMEM);
                return 0;
        }
        for (size_t i = 0; i < imp->n_knobs; i++)
                fuzz_assert(imp->knobs[i].knob && imp->knobs[i].value && imp->knobs[i].kernel);
        text = tuned_import_format(imp, p);
        fuzz_assert(text);

        /* What the import writes, netpolld reads: no line too long, every knob and value valid. */
        out = fuzz_write("out/imported.conf", (const uint8_t *)text, strlen(text));
        r = profile_load(&np, out, NULL, &errors);
        if (r < 0)
                fprintf(stderr, "netpolld refuses the import (%s): %s\n", strerror(-r),
                        errors && errors[0] ? errors[0] : "-");
        fuzz_assert(r == 0);
        fuzz_assert(np->n_knobs == imp->n_knobs);
        return 0;
}
