/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* fuzz-util.c: helpers of fuzz.h. */
#include "fuzz.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

_Noreturn void fuzz_fail(const char *file, int line, const char *what) {
        fprintf(stderr, "%s:%d: invariant broken: %s\n", file, line, what);
        abort();
}

char *fuzz_text(const uint8_t *data, size_t size) {
        char *s;

        if (memchr(data, 0, size))
                return NULL;
        s = malloc(size + 1);
        if (!s)
                fuzz_fail(__FILE__, __LINE__, "malloc");
        memcpy(s, data, size);
        s[size] = 0;
        return s;
}

void *fuzz_copy(const uint8_t *data, size_t size) {
        void *p = malloc(size ? size : 1);

        if (!p)
                fuzz_fail(__FILE__, __LINE__, "malloc");
        memcpy(p, data, size);
        return p;
}

static char dir[PATH_MAX];

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
        (void)st, (void)flag, (void)ftw;
        remove(path);
        return 0;
}

static void remove_dir(void) {
        if (dir[0])
                nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

const char *fuzz_dir(void) {
        if (!dir[0]) {
                const char *tmp = getenv("TMPDIR");
                snprintf(dir, sizeof(dir), "%s/netpolld-fuzz.XXXXXX", tmp && *tmp ? tmp : "/tmp");
                if (!mkdtemp(dir))
                        fuzz_fail(__FILE__, __LINE__, "mkdtemp");
                atexit(remove_dir);
        }
        return dir;
}

const char *fuzz_write(const char *file, const uint8_t *data, size_t size) {
        static char path[PATH_MAX + 64];
        int fd;

        snprintf(path, sizeof(path), "%s/%s", fuzz_dir(), file);
        fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        if (fd < 0)
                fuzz_fail(__FILE__, __LINE__, "open");
        for (size_t done = 0; done < size;) {
                ssize_t n = write(fd, data + done, size - done);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n <= 0)
                        fuzz_fail(__FILE__, __LINE__, "write");
                done += (size_t)n;
        }
        close(fd);
        return path;
}
