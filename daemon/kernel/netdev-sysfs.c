/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * netdev-sysfs.c: device facts from sysfs, and the steering files' paths and reads.
 */
#include "netdev-sysfs.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "macro.h"
#include "sysroot.h"
#include "units.h"

void device_sysfs_done(DeviceSysfs *d) {
        if (!d)
                return;
        free(d->driver);
        free(d->bus_id);
        free(d->virtio);
        free(d->msi_irqs);
        *d = (DeviceSysfs){ .numa_node = -1 };
}

static bool looks_like_pci(const char *s) {
        unsigned a, b, c, f;
        int n = 0;
        /* "0000:3b:00.0" */
        return sscanf(s, "%4x:%2x:%2x.%1u%n", &a, &b, &c, &f, &n) == 4 && s[n] == 0 && strlen(s) == 12;
}

static int cmp_unsigned(const void *a, const void *b) {
        unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
        return x < y ? -1 : x > y;
}

/* The entries of dir/msi_irqs (each named by its IRQ number); -ENOENT without one. */
static int read_msi_irqs(const char *dir, unsigned **ret, size_t *ret_n) {
        _cleanup_(freep) char *path = NULL;
        _cleanup_(freep) unsigned *l = NULL;
        size_t n = 0;
        DIR *d;

        if (asprintf(&path, "%s/msi_irqs", dir) < 0)
                return -ENOMEM;
        d = opendir(path);
        if (!d)
                return negative_errno();
        for (struct dirent *de; (de = readdir(d));) {
                uint64_t v;
                unsigned *a;

                if (parse_u64_range(de->d_name, 0, UINT_MAX, &v, NULL) < 0)
                        continue;
                a = reallocarray(l, n + 1, sizeof(unsigned));
                if (!a) {
                        closedir(d);
                        return -ENOMEM;
                }
                l = a;
                l[n++] = (unsigned)v;
        }
        closedir(d);
        if (n > 1)
                qsort(l, n, sizeof(unsigned), cmp_unsigned);
        *ret = TAKE_PTR(l);
        *ret_n = n;
        return 0;
}

static int read_node(const char *dir, int *ret) {
        _cleanup_(freep) char *path = NULL, *text = NULL;
        uint64_t v;

        if (asprintf(&path, "%s/numa_node", dir) < 0)
                return -ENOMEM;
        if (sysfs_read_value(path, &text) < 0)
                return 0; /* absent or unreadable: unknown */
        if (parse_u64_range(text, 0, INT32_MAX, &v, NULL) >= 0)
                *ret = (int)v;
        return 0;
}

static char *basename_dup(const char *path) {
        const char *b = strrchr(path, '/');
        return strdup(b ? b + 1 : path);
}

int device_sysfs_read(const char *sysroot, const char *ifname, DeviceSysfs *ret) {
        _cleanup_(freep) char *rel = NULL, *netdir = NULL, *link = NULL, *real = NULL, *drv = NULL;
        _cleanup_(freep) char *parent = NULL, *b = NULL;
        DeviceSysfs d = { .numa_node = -1 };
        char target[PATH_MAX];
        const char *msi_dir, *base;
        ssize_t n;
        int r;

        if (!ifname_valid(ifname))
                return -EINVAL;
        if (asprintf(&rel, "/sys/class/net/%s", ifname) < 0)
                return -ENOMEM;
        r = sysroot_path(sysroot, rel, &netdir);
        if (r < 0)
                return r;
        if (access(netdir, F_OK) < 0)
                return errno == ENOENT ? -ENODEV : negative_errno();
        if (asprintf(&link, "%s/device", netdir) < 0)
                return -ENOMEM;
        real = realpath(link, NULL);
        if (!real) {
                if (errno != ENOENT)
                        return negative_errno();
                *ret = d; /* virtual device: no bus, no IRQs of its own */
                return 0;
        }

        if (asprintf(&drv, "%s/driver", real) < 0)
                return -ENOMEM;
        n = readlink(drv, target, sizeof(target) - 1);
        if (n > 0) {
                target[n] = 0;
                d.driver = basename_dup(target);
                if (!d.driver)
                        goto oom;
        }
        base = strrchr(real, '/');
        base = base ? base + 1 : real;
        if (startswith(base, "virtio") && !(d.virtio = strdup(base)))
                goto oom;

        /* virtio_net's device is a virtio device below the PCI function that owns the MSI IRQs. */
        parent = strdup(real);
        if (!parent)
                goto oom;
        *strrchr(parent, '/') = 0;
        msi_dir = d.virtio ? parent : real;
        r = read_msi_irqs(msi_dir, &d.msi_irqs, &d.n_msi_irqs);
        if (r == -ENOMEM)
                goto oom;
        /* Without msi_irqs (legacy INTx, fixtures), names alone identify the queues. */
        b = basename_dup(msi_dir);
        if (!b)
                goto oom;
        if (looks_like_pci(b))
                d.bus_id = TAKE_PTR(b);
        read_node(msi_dir, &d.numa_node);
        *ret = d;
        return 0;
oom:
        device_sysfs_done(&d);
        return -ENOMEM;
}

static int cmp_pq(const void *a, const void *b) {
        const PlacementQueue *x = a, *y = b;
        if (x->kind != y->kind)
                return x->kind < y->kind ? -1 : 1;
        return x->index < y->index ? -1 : x->index > y->index;
}

int device_sysfs_queues(const char *sysroot, const char *ifname, PlacementQueue **ret, size_t *ret_n) {
        _cleanup_(freep) char *rel = NULL, *full = NULL;
        _cleanup_(freep) PlacementQueue *l = NULL;
        size_t n = 0;
        DIR *d;
        int r;

        if (!ifname_valid(ifname))
                return -EINVAL;
        if (asprintf(&rel, "/sys/class/net/%s/queues", ifname) < 0)
                return -ENOMEM;
        r = sysroot_path(sysroot, rel, &full);
        if (r < 0)
                return r;
        d = opendir(full);
        if (!d)
                return errno == ENOENT ? -ENODEV : negative_errno();
        for (struct dirent *de; (de = readdir(d));) {
                PlacementQueue q;
                PlacementQueue *a;

                if (queue_name_parse(de->d_name, &q.kind, &q.index) < 0 || q.kind == QUEUE_COMBINED)
                        continue;
                a = reallocarray(l, n + 1, sizeof(PlacementQueue));
                if (!a) {
                        closedir(d);
                        return -ENOMEM;
                }
                l = a;
                l[n++] = q;
        }
        closedir(d);
        if (n > 1)
                qsort(l, n, sizeof(PlacementQueue), cmp_pq);
        *ret = TAKE_PTR(l);
        *ret_n = n;
        return 0;
}

int device_queue_irqs(const char *sysroot, const char *ifname, const DeviceSysfs *d, QueueIrq **ret, size_t *ret_n) {
        _cleanup_(interrupts_freep) Interrupts *t = NULL;
        _cleanup_(freep) char *full = NULL, *text = NULL;
        _cleanup_(fclosep) FILE *f = NULL;
        DeviceIdent id = {
                .ifname = ifname,
                .driver = d->driver,
                .bus_id = d->bus_id,
                .virtio = d->virtio,
                .msi_irqs = d->msi_irqs,
                .n_msi_irqs = d->n_msi_irqs,
        };
        size_t size = 0;
        int r;

        r = sysroot_path(sysroot, "/proc/interrupts", &full);
        if (r < 0)
                return r;
        /* Many lines: not a one-value file, so not sysfs_read_value(). */
        f = fopen(full, "re");
        if (!f)
                return negative_errno();
        if (getdelim(&text, &size, '\0', f) < 0 && !feof(f))
                return negative_errno();
        r = interrupts_parse(text ?: "", &t, NULL);
        if (r < 0)
                return r;
        return interrupts_match_device(t, &id, ret, ret_n);
}

int steer_path(SteerFile f, const char *ifname, unsigned number, char **ret) {
        int n;

        switch (f) {
        case STEER_IRQ:
                n = asprintf(ret, "/proc/irq/%u/smp_affinity_list", number);
                break;
        case STEER_RPS:
        case STEER_XPS:
                if (!ifname_valid(ifname))
                        return -EINVAL;
                n = asprintf(ret, "/sys/class/net/%s/queues/%s-%u/%s", ifname, f == STEER_RPS ? "rx" : "tx", number,
                             f == STEER_RPS ? "rps_cpus" : "xps_cpus");
                break;
        default:
                return -EINVAL;
        }
        return n < 0 ? -ENOMEM : 0;
}

static int parse_content(SteerFile f, const char *text, CpuSet *ret) {
        int r = f == STEER_IRQ ? cpuset_parse_list(text, ret, NULL) : cpuset_parse_mask(text, ret, NULL);
        return r < 0 ? -EBADMSG : 0;
}

int steer_read(const char *sysroot, SteerFile f, const char *path, CpuSet *ret) {
        _cleanup_(freep) char *text = NULL;
        int r;

        r = sysroot_read_value(sysroot, path, &text);
        if (r == -ENODATA)
                return -EBADMSG;
        if (r < 0)
                return r;
        return parse_content(f, text, ret);
}

SteerOutcome steer_classify_irq(int r) {
        switch (-r) {
        case 0:
                return STEER_OUTCOME_OK;
        case EIO:
                return STEER_OUTCOME_KERNEL_MANAGED;
        case EBUSY:
        case EINVAL:
        case ERANGE:
        case EAGAIN:
                return STEER_OUTCOME_RETRY;
        case ENOSPC:
                return STEER_OUTCOME_NO_VECTORS;
        default:
                return r > 0 ? STEER_OUTCOME_OK : STEER_OUTCOME_FAILED;
        }
}
