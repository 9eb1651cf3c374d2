/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * interrupts.h: pure parsers for finding a network device's queue IRQs
 * without the netdev netlink family: /proc/interrupts, and the names NIC
 * drivers give their queue vectors:
 *
 *   <prefix>-TxRx-N, <prefix>-rx-N, <prefix>-tx-N   igb, ixgbe, bnxt_en (prefix: the
 *                                                   interface), i40e ("i40e-PCI"),
 *                                                   ice ("ice-IFNAME")
 *   <ifname>-Tx-Rx-N                                ena
 *   mlx5_compN@pci:PCI                              mlx5_core (completion vector N)
 *   virtioK-input.N, virtioK-output.N               virtio_net
 *
 * Nothing here reads files or logs: callers pass text and device facts in.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum QueueKind {
        QUEUE_RX,
        QUEUE_TX,
        QUEUE_COMBINED, /* one vector (IRQ, NAPI) serving rx-N and tx-N */
        _QUEUE_KIND_MAX,
} QueueKind;

/* One queue of a device, as sysfs lists it and placement plans it. */
typedef struct PlacementQueue {
        QueueKind kind;
        unsigned index;
} PlacementQueue;

/* "rx", "tx", "combined". */
const char *queue_kind_to_string(QueueKind k);
/* "rx-3", "tx-0", "combined-1": -EINVAL for anything else. */
int queue_name_parse(const char *s, QueueKind *ret_kind, unsigned *ret_index);

typedef struct InterruptLine {
        unsigned irq;
        uint64_t total;  /* interrupts summed over the CPU columns */
        char *chip;      /* first field after the counts, e.g. "PCI-MSIX-0000:00:03.0" */
        char **actions;  /* handler names (strv), e.g. "eth0-TxRx-0" */
} InterruptLine;

typedef struct Interrupts {
        unsigned n_cpus; /* count columns: the CPUs online when the file was read */
        InterruptLine *lines;
        size_t n_lines;
} Interrupts;

/*
 * Parses /proc/interrupts text. Numbered lines become entries; the
 * architecture's named counters (NMI:, LOC:, ...) are skipped. -EBADMSG for a
 * missing CPU header or a numbered line without one count per CPU, with
 * *ret_reason (when not NULL, caller frees) "line N: what was expected".
 */
int interrupts_parse(const char *text, Interrupts **ret, char **ret_reason);
Interrupts *interrupts_free(Interrupts *t);
static inline void interrupts_freep(Interrupts **t) {
        if (*t)
                interrupts_free(*t);
}
const InterruptLine *interrupts_find(const Interrupts *t, unsigned irq);

typedef enum IrqNaming {
        IRQ_NAMING_NETDEV, /* <prefix>-TxRx-N / -rx-N / -tx-N */
        IRQ_NAMING_ENA,    /* <ifname>-Tx-Rx-N */
        IRQ_NAMING_MLX5,   /* mlx5_compN@pci:<PCI address> */
        IRQ_NAMING_VIRTIO, /* virtioK-input.N / virtioK-output.N */
} IrqNaming;

typedef struct IrqQueueName {
        IrqNaming naming;
        QueueKind kind;
        unsigned index;
        char owner[64]; /* the prefix, the PCI address (mlx5) or "virtioK" */
} IrqQueueName;

/*
 * Recognises one handler name as a queue vector's. -EINVAL for names that are
 * not (link, misc, async, config and control vectors; other devices).
 */
int irq_name_parse(const char *name, IrqQueueName *ret);

/* What sysfs says about a device, as far as known (NULL / 0 when not). */
typedef struct DeviceIdent {
        const char *ifname;
        const char *driver;       /* "igb", "mlx5_core", "virtio_net", "bnxt_en", ... */
        const char *bus_id;       /* PCI address "0000:3b:00.0" */
        const char *virtio;       /* "virtio2" for virtio_net */
        const unsigned *msi_irqs; /* the PCI function's MSI/MSI-X IRQs, NULL: unknown */
        size_t n_msi_irqs;
} DeviceIdent;

typedef struct QueueIrq {
        QueueKind kind;
        unsigned index;
        unsigned irq;
} QueueIrq;

/*
 * The device's queue IRQs: lines whose handler names are queue vectors of
 * this device (owner: its interface name, "DRIVER-IFNAME", "DRIVER-PCI",
 * its PCI address for mlx5, its virtio device). With msi_irqs known, only
 * those IRQs count, and interface-style names with another owner fill the
 * queues still missing (an interface renamed after its IRQs were requested
 * keeps the old names); owners with ':' never do (i40e's "PCI:fdir").
 * Sorted by kind, then index; the first IRQ wins for a queue named twice.
 * bnxt_en numbers separate tx vectors after the rx ones; they are
 * renumbered from 0.
 * *ret is NULL when none are found (caller frees).
 */
int interrupts_match_device(const Interrupts *t, const DeviceIdent *dev, QueueIrq **ret, size_t *ret_n);
