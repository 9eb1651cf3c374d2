/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * caps.h: dropping privileges after start-up.
 */
#pragma once

#include <stdbool.h>

/*
 * Keeps exactly the capabilities netpolld's writes need (CAP_NET_ADMIN, and
 * CAP_SYS_PTRACE when keep_ptrace, for live sockets, if it is held at all:
 * caps_hold_ptrace() tells afterwards) and removes every other one
 * from the effective, permitted, inheritable and bounding sets; but for
 * CAP_SYS_RESOURCE when keep_resource and held, which stays permitted and
 * not effective, to open the CPU pressure trigger while traffic flows
 * (caps_resource_effective()).
 * Returns 0, or 1 when not running with capabilities to drop (an
 * unprivileged test run), or a negative errno.
 */
int caps_drop_to_minimum(bool keep_ptrace, bool keep_resource);

/* Makes CAP_SYS_RESOURCE effective (on) or not; it must be permitted for on. 0 or -errno. */
int caps_resource_effective(bool on);

/* The capability sets held now, as cap_to_text(3) writes them ("cap_net_admin=ep"); NULL on failure. Caller frees. */
char *caps_describe(void);

/* CAP_SYS_PTRACE is effective now. */
bool caps_hold_ptrace(void);

/* Gives up CAP_SYS_PTRACE for good (a profile without live sockets). 1 when it was held, 0 when not, -errno. */
int caps_drop_ptrace(void);
