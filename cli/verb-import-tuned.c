/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * verb-import-tuned.c: netpollctl profile import-tuned NAME|PATH [--output
 * FILE]: a tuned profile converted offline (no bus, no daemon) into a
 * netpolld profile, written atomically; what did not convert is listed on
 * stderr and in a comment block at the end of the profile.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "netpollctl.h"
#include "strv.h"
#include "tuned-import.h"

const char *arg_output = NULL;
char **arg_tuned_dirs = NULL;

static int write_all(int fd, const char *s, size_t n) {
        while (n > 0) {
                ssize_t k = write(fd, s, n);

                if (k < 0 && errno == EINTR)
                        continue;
                if (k < 0)
                        return -errno;
                s += k;
                n -= (size_t) k;
        }
        return 0;
}

/* text into path by a temporary file beside it and rename(2): a reader sees the old file or all of the new one. */
static int write_atomic(const char *path, const char *text) {
        _cleanup_(freep) char *tmp = NULL;
        _cleanup_(closep) int fd = -EBADF;
        const char *slash = strrchr(path, '/');
        int r;

        if (asprintf(&tmp, "%.*s.%s.XXXXXX", slash ? (int) (slash - path + 1) : 0, path,
                     slash ? slash + 1 : path) < 0)
                return -ENOMEM;
        fd = mkostemp(tmp, O_CLOEXEC);
        if (fd < 0)
                return -errno;
        r = write_all(fd, text, strlen(text));
        if (r >= 0 && fchmod(fd, 0644) < 0)
                r = -errno;
        if (r >= 0 && fsync(fd) < 0)
                r = -errno;
        if (r >= 0 && close(TAKE_FD(fd)) < 0)
                r = -errno;
        if (r >= 0 && rename(tmp, path) < 0)
                r = -errno;
        if (r < 0)
                (void) unlink(tmp);
        return r;
}

/* --tuned-dir, else $NETPOLLD_TUNED_PATH (colon-separated), else tuned's own directories. */
static int search_dirs(char ***ret) {
        const char *e = getenv("NETPOLLD_TUNED_PATH");
        _cleanup_(strv_freep) char **l = NULL;
        _cleanup_(freep) char *copy = NULL;
        char *save = NULL;

        if (arg_tuned_dirs) {
                l = strv_copy(arg_tuned_dirs);
        } else if (e && e[0]) {
                copy = strdup(e);
                if (!copy)
                        return -ENOMEM;
                for (char *d = strtok_r(copy, ":", &save); d; d = strtok_r(NULL, ":", &save))
                        if (strv_extend(&l, d) < 0)
                                return -ENOMEM;
        } else
                l = strv_copy((char *const *) tuned_default_dirs);
        if (!l)
                return -ENOMEM;
        *ret = TAKE_PTR(l);
        return 0;
}

static void print_report(const TunedImport *imp, const TunedProfile *p) {
        fprintf(stderr, "Imported %zu knob%s from tuned profile %s; %zu entr%s not imported%s\n", imp->n_knobs,
                imp->n_knobs == 1 ? "" : "s", p->name, imp->n_skipped, imp->n_skipped == 1 ? "y" : "ies",
                imp->n_skipped > 0 ? ":" : ".");
        for (size_t i = 0; i < imp->n_skipped; i++) {
                const TunedNote *n = &imp->skipped[i];

                if (n->file)
                        fprintf(stderr, "  %s:%u: %s\n      %s\n", n->file, n->line, strempty(n->text), n->reason);
                else
                        fprintf(stderr, "  %s\n", n->reason);
        }
}

CtlStatus verb_import_tuned(const char *source) {
        _cleanup_(tuned_profile_freep) TunedProfile *p = NULL;
        _cleanup_(tuned_import_freep) TunedImport *imp = NULL;
        _cleanup_(strv_freep) char **dirs = NULL;
        _cleanup_(freep) char *error = NULL, *text = NULL;
        int r;

        if (arg_json)
                return ctl_usage_error("profile import-tuned writes a profile, not JSON; drop --json");
        if (arg_output && !arg_output[0])
                return ctl_usage_error("--output needs a file name");

        r = search_dirs(&dirs);
        if (r < 0)
                return ctl_failed(r, "cannot build the tuned search path");
        r = tuned_profile_load(source, dirs, &p, &error);
        if (r == -EINVAL && error)
                return ctl_usage_error("%s", error);
        if (r < 0 && error) {
                fprintf(stderr, "netpollctl: %s\n", error);
                return CTL_FAILED;
        }
        if (r < 0)
                return ctl_failed(r, "cannot read the tuned profile %s", source);

        r = tuned_import(p, &imp);
        if (r >= 0) {
                text = tuned_import_format(imp, p);
                if (!text)
                        r = -ENOMEM;
        }
        if (r < 0)
                return ctl_failed(r, "cannot convert the tuned profile %s", source);

        if (arg_output) {
                r = write_atomic(arg_output, text);
                if (r < 0)
                        return ctl_failed(r, "cannot write %s", arg_output);
        } else if (fputs(text, stdout) < 0)
                return ctl_failed(-EIO, "cannot write the profile");

        print_report(imp, p);
        if (arg_output)
                fprintf(stderr, "Wrote %s\n", arg_output);
        return CTL_OK;
}
