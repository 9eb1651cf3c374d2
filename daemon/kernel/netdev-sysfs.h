/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * netdev-sysfs.h: the file side of IRQ and queue steering, below the sysroot:
 * what sysfs says about a device (driver, PCI function, MSI IRQs, NUMA node,
 * queues), its queue IRQs from /proc/interrupts names, the paths and reads of
 * /proc/irq/N/smp_affinity_list and queues/{rx,tx}-N/{rps,xps}_cpus (writes
 * go through the owner, owner.h), what a refused IRQ write means, and
 * (whether irqbalance runs: irqbalance.h).
 * Nothing here logs.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "cpuset.h"
#include "interrupts.h"

typedef struct DeviceSysfs {
        char *driver;       /* "igb"; NULL for virtual devices */
        char *bus_id;       /* PCI address, NULL when not a PCI function */
        char *virtio;       /* "virtio2" for virtio_net */
        unsigned *msi_irqs; /* NULL when the device has none listed */
        size_t n_msi_irqs;
        int numa_node;      /* -1: unknown */
} DeviceSysfs;

/* -ENODEV when /sys/class/net/IFNAME does not exist; a virtual device (no device link) is not an error. */
int device_sysfs_read(const char *sysroot, const char *ifname, DeviceSysfs *ret);
void device_sysfs_done(DeviceSysfs *d);

/* The rx-N and tx-N directories of /sys/class/net/IFNAME/queues, rx first, by number; caller frees. */
int device_sysfs_queues(const char *sysroot, const char *ifname, PlacementQueue **ret, size_t *ret_n);

/* The device's queue IRQs from /proc/interrupts (interrupts_match_device()); caller frees. */
int device_queue_irqs(const char *sysroot, const char *ifname, const DeviceSysfs *d, QueueIrq **ret, size_t *ret_n);

typedef enum SteerFile {
        STEER_IRQ, /* /proc/irq/N/smp_affinity_list: a CPU list */
        STEER_RPS, /* /sys/class/net/DEV/queues/rx-N/rps_cpus: a hex mask */
        STEER_XPS, /* /sys/class/net/DEV/queues/tx-N/xps_cpus: a hex mask */
        STEER_THREAD, /* no file: the CPUs of the NAPI instance's kernel thread (napi-backend.h), a list */
} SteerFile;

/* The file's path relative to the sysroot; number is the IRQ or the queue index. Caller frees. */
int steer_path(SteerFile f, const char *ifname, unsigned number, char **ret);

/* The CPUs the file holds. -ENOENT when absent, -EBADMSG for odd content. */
int steer_read(const char *sysroot, SteerFile f, const char *path, CpuSet *ret);

typedef enum SteerOutcome {
        STEER_OUTCOME_OK,
        STEER_OUTCOME_KERNEL_MANAGED, /* EIO: the kernel places this IRQ itself (managed affinity) */
        STEER_OUTCOME_RETRY,          /* EBUSY, EINVAL, ERANGE, EAGAIN: transient, e.g. mid-migration */
        STEER_OUTCOME_NO_VECTORS,     /* ENOSPC: no interrupt vector left on the target CPUs */
        STEER_OUTCOME_FAILED,
} SteerOutcome;

/* What the result of an IRQ affinity write means (irqbalance's activate.c reading of the same errnos). */
SteerOutcome steer_classify_irq(int r);
