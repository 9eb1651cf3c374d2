/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * irqbalance-ban.h: the runtime drop-in that keeps irqbalance away from the
 * IRQs netpolld steers ([irq] irqbalance-ban = yes). It adds one --banirq=N
 * per steered IRQ to irqbalance.service's command line, below the sysroot at
 * IRQBALANCE_DROPIN. This module only formats, writes and removes the file;
 * the manager journals it and asks systemd to reload and try-restart the
 * unit (unit-watch.h). Non-logging; negative errno on failure.
 */
#pragma once

#include <stddef.h>

#define IRQBALANCE_UNIT "irqbalance.service"
#define IRQBALANCE_DROPIN_DIR "/run/systemd/system/" IRQBALANCE_UNIT ".d"
#define IRQBALANCE_DROPIN IRQBALANCE_DROPIN_DIR "/50-netpolld.conf"
/* Debian's ExecStart= (irqbalance 1.9.2-1), which the drop-in replaces with the bans appended. */
#define IRQBALANCE_EXEC "/usr/sbin/irqbalance --foreground $IRQBALANCE_ARGS"
/* What the restore journal records as the drop-in's original: there was none. */
#define IRQBALANCE_DROPIN_ABSENT "absent"
/* The journal entry's kind and name. */
#define IRQBALANCE_JOURNAL_KIND "dropin"
#define IRQBALANCE_JOURNAL_NAME "irqbalance-ban"

/*
 * The drop-in's text for these IRQs (any order, duplicates allowed; written
 * sorted and once each). n must be > 0. Caller frees.
 */
int irqbalance_dropin_format(const int *irqs, size_t n, char **ret);

/*
 * Writes text to the drop-in below sysroot (NULL: "/"), creating its
 * directory, atomically (temporary file, rename). Returns 1 when the file
 * changed, 0 when it held text already.
 */
int irqbalance_dropin_write(const char *sysroot, const char *text);

/* Removes the drop-in below sysroot: 1 when it was there, 0 when it was not. */
int irqbalance_dropin_remove(const char *sysroot);

/* Whether the drop-in is there below sysroot. */
int irqbalance_dropin_exists(const char *sysroot);
