/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * manager-internal.h: the manager's single write and hand-back paths,
 * shared by manager.c (profiles, start, stop) and manager-ops.c (get, set,
 * reset, adaptive moves). Not for other modules.
 */
#pragma once

#include "manager.h"

/* "NAME" or "NAME@DEV", caller frees; NULL on ENOMEM. */
char *ref_name(const KnobRef *r);
/* Current value formatted with units (and parsed into *ret when not NULL), or NULL when unreadable. */
/* A target's kernel text as people read it: with the knob's unit, CPU masks as lists. Caller frees. */
char *format_target_value(const Target *t, const char *text);
char *read_formatted(Manager *m, const KnobRef *ref, KnobValue *ret);
/* The MANAGER_E_UNSUPPORTED / MANAGER_E_NO_DEVICE error for a knob, with its message. */
int unsupported_message(const KnobRef *ref, int r, char **ret_message);
/* The owner's targets of a knob instance: one per kernel file (per queue for RPS/XPS). Caller frees. */
int knob_targets(Manager *m, const KnobRef *ref, Target **ret, size_t *ret_n);
/* The owner's layer for an origin (default and external count as profile). */
Layer origin_layer(ValueOrigin origin);
/*
 * The one place that changes a knob: support check, then each target through
 * owner_set() with origin's layer. why: for the log line (NULL: the layer's
 * reason). 0 or a MANAGER_E_* error with a message.
 */
int write_knob(Manager *m, const KnobRef *ref, const KnobValue *v, ValueOrigin origin, const char *why,
               char **ret_message);
/* The layers (LAYER_BIT()s) no longer ask for the knob: the next layer down, or the original, takes over. */
void release_knob(Manager *m, const KnobRef *ref, unsigned layers, const char *reason);
/* The owner's target of a per-NAPI reference, its catalog entry and its value now (GetKnob, Explain). */
int manager_napi_resolve(Manager *m, const char *name, Target *ret, const KnobDesc **ret_desc, uint64_t *ret_value,
                         char **ret_message);
/* [adaptive] live-sockets (and enabled) is on in the active profile. */
bool manager_live_sockets(const Manager *m);
/*
 * One pass over the processes' TCP/UDP sockets for a busy-read move from old
 * to new (ignored for LIVESOCK_UNDO), by livesock.h's rules. Logs what it did;
 * returns the number of sockets changed (0 when the feature is off or in
 * dry-run) or a negative errno when the sockets could not be walked.
 */
int manager_livesock_pass(Manager *m, LiveSockPassKind kind, uint64_t old, uint64_t new);
/* After a profile is applied: undo and give up CAP_SYS_PTRACE when live-sockets is off. */
void manager_follow_live_sockets(Manager *m);

/*
 * manager-irqbalance.c. The connection to systemd on the system bus, opened
 * and attached to the loop on first use; NULL (logged once) when systemd is
 * not the service manager or cannot be reached.
 */
sd_bus *manager_systemd_bus(Manager *m);
/* After each steering pass and profile change: the irqbalance drop-in lists exactly the steered IRQs. */
void manager_follow_irqbalance(Manager *m);
/* Whether the restore journal holds the irqbalance drop-in. */
bool manager_irqbalance_journaled(const Manager *m);
/* After a restore at stop: when it removed the drop-in, systemd reloads and restarts irqbalance (waiting). */
void manager_irqbalance_restored(Manager *m, bool was_journaled);
