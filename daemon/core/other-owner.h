/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * other-owner.h: who most likely set a value netpolld does not hold, or
 * one it set that changed behind its back: a sysctl.d line setting that
 * key to that value (sensing/sysctld.c), a running tuned whose active
 * profile's [sysctl] sets it (sensing/tuned-active.c), or a running
 * irqbalance for an IRQ's affinity (whether it bans that IRQ is said too).
 * Best effort and read-only: nothing here blocks (only regular files are
 * read, with bounds) or changes a knob; files that cannot be read are
 * logged and skipped.
 */
#pragma once

#include <stddef.h>

#include "manager.h"

typedef struct OtherOwner {
        const char *kind; /* "sysctl.d", "tuned" or "irqbalance" */
        char *where;      /* "FILE:LINE", or "pid N" for irqbalance */
        char *note;       /* what it sets or does: "net.core.busy_read = 50", "profile net-test, pid 812" */
} OtherOwner;

void other_owners_free(OtherOwner *v, size_t n);

/*
 * The likely owners of t holding value (the kernel's text), most likely
 * first; none (*ret_n 0) when nothing known sets it to that value. 0 or
 * -ENOMEM.
 */
int manager_other_owners(Manager *m, const Target *t, const char *value, OtherOwner **ret, size_t *ret_n);

/* "sysctl.d /etc/sysctl.d/90-net.conf:3 (net.core.busy_read = 50)" for logs and text output; caller frees. */
char *other_owner_format(const OtherOwner *o);

/* Logs who most likely set t to value (after an outside change), or that nobody known does. */
void manager_log_other_owner(Manager *m, const Target *t, const char *value);

/* One answer of GetOtherOwners: a value somebody else holds and one likely owner (kind "" when unknown). */
typedef struct OtherOwnerRow {
        char *target;
        char *value; /* as people read it (units, CPU lists) */
        OtherOwner owner;
} OtherOwnerRow;

void other_owner_rows_free(OtherOwnerRow *v, size_t n);

/*
 * name "": every value netpolld found changed behind its back, each with
 * its likely owners (one row with kind "" when none is known). Else the
 * values of that knob or target (names as manager_explain() takes them)
 * that are outside changes or not netpolld's and have a known owner.
 * MANAGER_E_* errors with a message as manager_explain().
 */
int manager_other_owner_rows(Manager *m, const char *name, OtherOwnerRow **ret, size_t *ret_n, char **ret_message);
