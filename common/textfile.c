/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * textfile.c: bounded reads of other programs' configuration files (see
 * textfile.h).
 */
#include "textfile.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "macro.h"
#include "sysroot.h"

/* How many absolute symlinks are followed below the root before giving up. */
#define LINKS_MAX 8

/* Resolves absolute symlinks of the last component below root (relative ones the kernel follows). */
static int host_path(const char *root, const char *path, char **ret) {
        _cleanup_(freep) char *p = strdup(path);

        if (!p)
                return -ENOMEM;
        for (int i = 0; i < LINKS_MAX; i++) {
                _cleanup_(freep) char *full = NULL;
                char target[PATH_MAX];
                ssize_t n;
                int r;

                r = sysroot_path(root, p, &full);
                if (r < 0)
                        return r;
                n = readlink(full, target, sizeof(target) - 1);
                if (n < 0 || target[0] != '/') {
                        *ret = TAKE_PTR(p);
                        return 0;
                }
                target[n] = '\0';
                free(p);
                p = strdup(target);
                if (!p)
                        return -ENOMEM;
        }
        return -ELOOP;
}

int textfile_open(const char *root, const char *path, FILE **ret, char **ret_host_path) {
        _cleanup_(freep) char *host = NULL, *full = NULL;
        int r;

        r = host_path(root, path, &host);
        if (r < 0)
                return r;
        r = sysroot_path(root, host, &full);
        if (r < 0)
                return r;
        r = textfile_fopen(full, ret);
        if (r < 0)
                return r;
        if (ret_host_path)
                *ret_host_path = TAKE_PTR(host);
        return 0;
}

int textfile_fopen(const char *full, FILE **ret) {
        struct stat st;
        FILE *f;
        int fd, r;

        fd = open(full, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
        if (fd < 0)
                return -errno;
        if (fstat(fd, &st) < 0) {
                r = -errno;
                close(fd);
                return r;
        }
        if (!S_ISREG(st.st_mode)) {
                close(fd);
                return S_ISDIR(st.st_mode) ? -EISDIR : -ENXIO;
        }
        f = fdopen(fd, "re");
        if (!f) {
                r = -errno;
                close(fd);
                return r;
        }
        *ret = f;
        return 0;
}

int textfile_line(FILE *f, char buf[static TEXTFILE_LINE_MAX + 1], size_t *total) {
        size_t n = 0;
        bool nul = false, long_line = false;
        int c;

        while ((c = getc(f)) != EOF) {
                if (++*total > TEXTFILE_SIZE_MAX)
                        return -EFBIG;
                if (c == '\n')
                        break;
                if (c == '\0')
                        nul = true;
                if (n < TEXTFILE_LINE_MAX)
                        buf[n++] = (char)c;
                else
                        long_line = true;
        }
        if (c == EOF) {
                if (ferror(f))
                        return errno > 0 ? -errno : -EIO;
                if (n == 0 && !long_line)
                        return 0;
        }
        buf[n] = '\0';
        if (nul)
                return -EBADMSG;
        if (long_line)
                return -E2BIG;
        return 1;
}

char *textfile_strip(char *s) {
        size_t n;

        while (isspace((unsigned char)*s))
                s++;
        n = strlen(s);
        while (n > 0 && isspace((unsigned char)s[n - 1]))
                s[--n] = '\0';
        return s;
}
