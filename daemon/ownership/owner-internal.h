/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * owner-internal.h: the owner's state and the helpers its files share
 * (owner.c: the write path, outside changes, the restore; owner-target.c:
 * targets and their kernel I/O). Nothing outside daemon/ownership/ includes it.
 */
#pragma once

#include <stdbool.h>

#include "owner.h"

typedef struct Held {
        Target t;
        char *layer[_LAYER_MAX];
        char *expected; /* what the kernel holds by netpolld's doing; NULL: netpolld holds nothing */
        bool external;
        OwnerOutside outside; /* the outside change that made it external (owner_outside_change()) */
} Held;

struct Owner {
        char *sysroot;
        Journal *journal;
        bool dry_run;
        Held *held;
        size_t n_held;
        owner_change_fn on_change;
        void *userdata;
        TargetBackend napi;
        bool have_napi;
        char *error; /* owner_last_error() */
        int journal_error; /* the last failed journal update's errno, for owner_not_journaled_message() */
        uint64_t generation; /* owner_generation() */
};

/* Values of a NAPI instance (key "napi:ID:..."), read and written by the backend, not in a file. */
bool per_napi(TargetKind kind);
/* The ifindex the target's device or NAPI instance has now (-ENODEV: gone), 0 for a value of no device. */
int current_ifindex(const Owner *o, TargetKind kind, const char *device, const char *key);
int fill_target(Target *t, TargetKind kind, const char *name, const char *device, const char *key);
/* fill_target() and the identity the device or NAPI instance has now. */
int make_target(const Owner *o, TargetKind kind, const char *name, const char *device, const char *key, Target *ret);
int kernel_write(const Owner *o, const Target *t, const char *value);
/* Whether text is what the kernel shows for this kind; nothing else is journaled or compared. */
bool kernel_text_valid(TargetKind kind, const char *s);
/* "a CPU list", "a hex CPU mask", "a number". */
const char *kind_expects(TargetKind kind);
/* What a failed read or write of a kernel file means, in words. */
const char *io_error_text(int r);
