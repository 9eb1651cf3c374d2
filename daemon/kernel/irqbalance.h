/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * irqbalance.h: the one detector of a running irqbalance, below the
 * sysroot: its pid (a /proc/PID/comm), the IRQs it bans (--banirq=N, -i N
 * on its command line, or in IRQBALANCE_ARGS of /etc/default/irqbalance,
 * which Debian's unit passes it) and the CPUs it keeps IRQs off
 * (IRQBALANCE_BANNED_CPUS / IRQBALANCE_BANNED_CPULIST there). Steering
 * (ListIrqs' state "irqbalance") and the other-owner hint both use it.
 * Files are read with textfile.h's bounds; nothing here logs.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* The pid of a running irqbalance, 0 when none. */
int irqbalance_running(const char *sysroot);

/* The most banned IRQs kept; more are not told apart. */
#define IRQBALANCE_BANS_MAX 64

typedef struct IrqbalanceBan {
        unsigned irq;
        char where[96]; /* "its command line", "/etc/default/irqbalance:3" */
} IrqbalanceBan;

typedef struct IrqbalanceInfo {
        int pid; /* 0: not running (the rest is then empty) */
        IrqbalanceBan bans[IRQBALANCE_BANS_MAX];
        size_t n_bans;
        char banned_cpus[128];       /* "" when none */
        char banned_cpus_where[96];
        char skipped[160];           /* what of /etc/default/irqbalance could not be read ("FILE:LINE: why"), "" */
} IrqbalanceInfo;

/* Fills *ret (pid 0 when irqbalance does not run); what cannot be read is left out. */
void irqbalance_info(const char *sysroot, IrqbalanceInfo *ret);

/* The ban of irq, or NULL when irqbalance may move it. */
const IrqbalanceBan *irqbalance_ban(const IrqbalanceInfo *info, unsigned irq);

/* Adds the --banirq/-i bans of argv-like words (n of them) to info, each noted as from where. */
void irqbalance_parse_args(IrqbalanceInfo *info, char *const *words, size_t n, const char *where);
