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
char *read_formatted(Manager *m, const KnobRef *ref, KnobValue *ret);
/* The MANAGER_E_UNSUPPORTED / MANAGER_E_NO_DEVICE error for a knob, with its message. */
int unsupported_message(const KnobRef *ref, int r, char **ret_message);
/*
 * The one place that changes a knob: support check, journal, write, verify,
 * origin, change report (reason), log line (why, or reason). 0 or a
 * MANAGER_E_* error with a message.
 */
int write_knob(Manager *m, KnobState *k, const KnobValue *v, KnobOrigin origin, const char *reason,
               const char *why, char **ret_message);
/* Puts back what the journal recorded for the knob's files and gives up ownership. */
void restore_knob(Manager *m, KnobState *k, const char *reason);
