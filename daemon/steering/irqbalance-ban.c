/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * irqbalance-ban.c: the irqbalance drop-in's text and file (irqbalance-ban.h).
 *
 * Why ExecStart= is replaced rather than IRQBALANCE_ARGS extended with
 * Environment=: the unit reads /etc/default/irqbalance with EnvironmentFile=,
 * whose values override Environment= ones, so an administrator's
 * IRQBALANCE_ARGS there would silently drop the bans. The new ExecStart=
 * keeps $IRQBALANCE_ARGS (the administrator's options still apply) and puts
 * the bans after it.
 */
#include "irqbalance-ban.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "macro.h"
#include "sysroot.h"

static int cmp_int(const void *a, const void *b) {
        int x = *(const int *)a, y = *(const int *)b;
        return (x > y) - (x < y);
}

int irqbalance_dropin_format(const int *irqs, size_t n, char **ret) {
        _cleanup_(freep) int *sorted = NULL;
        _cleanup_(freep) char *text = NULL;
        size_t size = 0;
        FILE *f;

        if (n == 0)
                return -EINVAL;
        sorted = malloc(n * sizeof(int));
        if (!sorted)
                return -ENOMEM;
        memcpy(sorted, irqs, n * sizeof(int));
        qsort(sorted, n, sizeof(int), cmp_int);
        f = open_memstream(&text, &size);
        if (!f)
                return -ENOMEM;
        fputs("# Written by netpolld ([irq] irqbalance-ban = yes, netpolld.conf(5)): irqbalance leaves\n"
              "# the IRQs netpolld steers alone. netpolld removes this file when it stops.\n"
              "[Service]\n"
              "ExecStart=\n"
              "ExecStart=" IRQBALANCE_EXEC,
              f);
        for (size_t i = 0; i < n; i++) {
                if (sorted[i] < 0) {
                        fclose(f);
                        return -EINVAL;
                }
                if (i == 0 || sorted[i] != sorted[i - 1])
                        fprintf(f, " --banirq=%d", sorted[i]);
        }
        fputc('\n', f);
        if (fclose(f) != 0)
                return -ENOMEM;
        *ret = TAKE_PTR(text);
        return 0;
}

/*
 * The service runs with UMask=0077, but a unit's drop-in is readable by all
 * (systemd warns about a world-inaccessible one): modes are set explicitly.
 */
static int make_dir(const char *path) {
        if (mkdir(path, 0755) < 0)
                return errno == EEXIST ? 0 : -errno;
        return chmod(path, 0755) < 0 ? -errno : 0;
}

static int mkdir_parents(const char *root, const char *dir) {
        _cleanup_(freep) char *full = NULL;
        int r = sysroot_path(root, dir, &full);

        if (r < 0)
                return r;
        for (char *p = full + 1; *p; p++)
                if (*p == '/') {
                        *p = '\0';
                        r = make_dir(full);
                        if (r < 0)
                                return r;
                        *p = '/';
                }
        return make_dir(full);
}

static int read_all(const char *path, char **ret) {
        _cleanup_(freep) char *buf = NULL;
        size_t size = 0;
        FILE *f = fopen(path, "re");
        char chunk[1024];
        size_t k;

        if (!f)
                return -errno;
        FILE *m = open_memstream(&buf, &size);
        if (!m) {
                fclose(f);
                return -ENOMEM;
        }
        while ((k = fread(chunk, 1, sizeof(chunk), f)) > 0)
                fwrite(chunk, 1, k, m);
        fclose(f);
        if (fclose(m) != 0)
                return -ENOMEM;
        *ret = TAKE_PTR(buf);
        return 0;
}

int irqbalance_dropin_write(const char *sysroot, const char *text) {
        _cleanup_(freep) char *path = NULL, *tmp = NULL, *old = NULL;
        size_t len = strlen(text);
        int fd, r;

        r = sysroot_path(sysroot, IRQBALANCE_DROPIN, &path);
        if (r < 0)
                return r;
        if (read_all(path, &old) >= 0 && streq(old, text))
                return 0;
        r = mkdir_parents(sysroot, IRQBALANCE_DROPIN_DIR);
        if (r < 0)
                return r;
        if (asprintf(&tmp, "%s.tmp", path) < 0)
                return -ENOMEM;
        fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
        if (fd < 0)
                return -errno;
        r = fchmod(fd, 0644) < 0 ? -errno : write(fd, text, len) == (ssize_t)len ? 0 : -EIO;
        if (r == 0 && fsync(fd) < 0)
                r = -errno;
        if (close(fd) < 0 && r == 0)
                r = -errno;
        if (r == 0 && rename(tmp, path) < 0)
                r = -errno;
        if (r < 0) {
                (void)unlink(tmp);
                return r;
        }
        return 1;
}

int irqbalance_dropin_remove(const char *sysroot) {
        _cleanup_(freep) char *path = NULL, *dir = NULL;
        int r = sysroot_path(sysroot, IRQBALANCE_DROPIN, &path);

        if (r < 0)
                return r;
        if (unlink(path) < 0)
                return errno == ENOENT ? 0 : -errno;
        /* The directory goes too when netpolld's file was all it held (it made it). */
        if (sysroot_path(sysroot, IRQBALANCE_DROPIN_DIR, &dir) >= 0)
                (void)rmdir(dir);
        return 1;
}

int irqbalance_dropin_exists(const char *sysroot) {
        _cleanup_(freep) char *path = NULL;
        int r = sysroot_path(sysroot, IRQBALANCE_DROPIN, &path);

        if (r < 0)
                return r;
        return access(path, F_OK) == 0 ? 1 : errno == ENOENT ? 0 : -errno;
}
