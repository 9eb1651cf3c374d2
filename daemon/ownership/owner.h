/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * owner.h: the one owner of every kernel value netpolld changes. A value is
 * a Target: its kind (sysctl, per-device sysfs file, IRQ affinity, RPS or
 * XPS mask, per-NAPI attribute), the device it belongs to by name AND
 * ifindex, and a key (the file below the sysroot, or "napi:ID:KNOB").
 *
 * Every change goes through owner_set()/owner_unset(), which keep one path
 * for all kinds: read the value, journal the original durably before the
 * first write, write, read back, remember what the kernel holds, report the
 * change (name, old, new, reason). Several layers may ask for a value at
 * once; the highest wins:
 *
 *   manual      an administrator's netpollctl set      (reason "manual")
 *   controller  the adaptive controller                (reason "adaptive")
 *   profile     the profile's [knobs] and [irq] plan   (reason "profile")
 *
 * Unsetting a layer hands the target to the next layer down, or back to
 * its original value when no layer wants it. A value changed behind
 * netpolld's back is "external": owner_check() notices it for every target,
 * drops the journal entry (it is somebody else's now: never restored over),
 * reports it (reason "external") and leaves it alone, whatever the layers
 * ask, until the manual layer is set or unset (netpollctl set / reset).
 *
 * Journal entries carry the device's ifindex: at replay and restore an
 * entry whose device is gone, or whose name now belongs to another device,
 * is dropped with a log line and never written.
 *
 * The kernel side is a backend (file I/O below the sysroot for files; the
 * caller supplies one for per-NAPI values), so tests run the owner on
 * fixture trees and a fake netlink. The owner logs what it changes (it is
 * the daemon's one edge for kernel values); its functions return negative
 * errno on failure.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "journal.h"

typedef enum TargetKind {
        TARGET_SYSCTL, /* /proc/sys/...: a number or a whitespace-separated tuple */
        TARGET_SYSFS,  /* /sys/class/net/DEV/...: a number */
        TARGET_IRQ,    /* /proc/irq/N/smp_affinity_list: a CPU list */
        TARGET_RPS,    /* /sys/class/net/DEV/queues/rx-N/rps_cpus: a hex mask */
        TARGET_XPS,    /* /sys/class/net/DEV/queues/tx-N/xps_cpus: a hex mask */
        TARGET_NAPI,   /* a per-NAPI netlink attribute: a number */
        TARGET_THREAD, /* the CPUs of a NAPI instance's kernel thread: a CPU list, through the NAPI backend */
        _TARGET_KIND_MAX,
        _TARGET_KIND_INVALID = -1,
} TargetKind;

const char *target_kind_to_string(TargetKind k);
TargetKind target_kind_from_string(const char *s);

typedef struct Target {
        TargetKind kind;
        char name[96];   /* what logs and KnobChanged call it: "busy-read", "rps-cpus@eth1:rx-0" */
        char device[16]; /* "" when the value belongs to no device */
        int ifindex;     /* the device's ifindex when the value was first taken; 0: none */
        char key[160];   /* the file below the sysroot, or "napi:ID:KNOB" */
} Target;

typedef enum Layer {
        LAYER_PROFILE,
        LAYER_CONTROLLER,
        LAYER_MANUAL,
        _LAYER_MAX,
} Layer;

/* Where a target's value comes from, as ListKnobs and GetKnob show it. */
typedef enum ValueOrigin {
        ORIGIN_DEFAULT, /* netpolld does not hold it */
        ORIGIN_PROFILE,
        ORIGIN_ADAPTIVE,
        ORIGIN_MANUAL,
        ORIGIN_EXTERNAL,
        _ORIGIN_MAX,
} ValueOrigin;

/* "default", "profile", "adaptive", "manual", "external". */
const char *origin_to_string(ValueOrigin o);

/* How the owner reads and writes values that are not files (per-NAPI attributes). */
typedef struct TargetBackend {
        /* The current value as text; -ENOENT when the instance is gone. */
        int (*read)(void *userdata, const Target *t, char **ret);
        int (*write)(void *userdata, const Target *t, const char *value);
        /* The ifindex the instance belongs to now; -ENOENT when it is gone. */
        int (*ifindex)(void *userdata, const Target *t);
        void *userdata;
} TargetBackend;

typedef struct Owner Owner;

/* Called for every change of a target's value, with the values as the kernel shows them. */
typedef void (*owner_change_fn)(const Target *t, const char *old, const char *new, const char *reason,
                                void *userdata);

/*
 * sysroot: below which files are read and written ("/" or NULL for the real
 * ones). journal: the restore journal, owned by the caller, which must
 * outlive the owner; NULL keeps no journal (dry tests). dry_run: log what
 * would change, change nothing.
 */
int owner_new(Owner **ret, const char *sysroot, Journal *journal, bool dry_run);
Owner *owner_free(Owner *o);
static inline void owner_freep(Owner **o) {
        if (*o)
                owner_free(*o);
}

void owner_set_change_callback(Owner *o, owner_change_fn fn, void *userdata);
/* The backend for TARGET_NAPI and TARGET_THREAD; without one, such targets fail with -EOPNOTSUPP. */
void owner_set_napi_backend(Owner *o, const TargetBackend *b);

/*
 * Fills a file target: kind, name, key (the path below the sysroot) and,
 * for a device's file, its device and current ifindex (-ENODEV when the
 * device does not exist). device NULL or "": not a device's value.
 */
int owner_file_target(const Owner *o, TargetKind kind, const char *name, const char *device, const char *path,
                      Target *ret);
/* A per-NAPI target: key "napi:ID:KNOB", ifindex from the backend. */
int owner_napi_target(const Owner *o, const char *name, const char *device, uint32_t napi_id, const char *knob,
                      Target *ret);
/* The same for an instance's kernel thread: kind TARGET_THREAD, key "napi:ID:VALUE" (napi-backend.h). */
int owner_thread_target(const Owner *o, const char *name, const char *device, uint32_t napi_id, const char *value,
                        Target *ret);

/*
 * Layer asks for value (kernel text: "50", "0-3", "f"). Applies what the
 * highest layer now asks for, unless the target is external (then only a
 * manual set applies, and clears it). Returns 0 when the kernel holds the
 * wanted value or the target is left alone (external, or a lower layer than
 * the one in force), -EDOM when the kernel stored something else
 * (*ret_now says what; it is what netpolld expects there from now on),
 * -OWNER_E_NOT_JOURNALED when the original could not be saved in the
 * journal (nothing written: netpolld never changes what it could not put
 * back; owner_not_journaled_message() says why), or the write's errno when
 * the kernel refused (nothing changed, nothing journaled). *ret_now (when not NULL): the value the kernel holds, caller
 * frees. why: a free text for the log line (NULL: the reason).
 */
int owner_set(Owner *o, const Target *t, Layer layer, const char *value, const char *why, char **ret_now);

/*
 * Why the last owner_set() failed, naming the file (or NAPI key) and what
 * was wrong with it: "/proc/sys/net/core/busy_read: cannot read the current
 * value: the file is empty", "...: holds \"abc\", not a number: not changing
 * it", "...: writing 5 failed: Input/output error". NULL after a success or
 * when the failure was not the kernel file's. Owned by the owner.
 */
const char *owner_last_error(const Owner *o);

/* owner_set()'s error when the journal refused the original (disk full, read-only state directory). */
#define OWNER_E_NOT_JOURNALED ENOLCK

/* The caller's message for -OWNER_E_NOT_JOURNALED on name: the journal, its last error, nothing changed. */
char *owner_not_journaled_message(const Owner *o, const char *name);

#define LAYER_BIT(l) (1u << (l))
#define LAYERS_ALL (LAYER_BIT(_LAYER_MAX) - 1)

/*
 * The layers in the mask (LAYER_BIT(LAYER_MANUAL) | ...) no longer ask for a
 * value. What the highest remaining layer asks for is applied, in one
 * change, or, when none asks, the original goes back and the journal entry
 * is dropped. Unsetting the manual layer also takes back an external
 * target. reason: for KnobChanged ("reset", "profile").
 */
int owner_unset(Owner *o, const Target *t, unsigned layers, const char *reason, char **ret_now);

/* The target's origin; ORIGIN_DEFAULT for one the owner never saw. Never creates state. */
ValueOrigin owner_origin(const Owner *o, const Target *t);
/*
 * Moves on whenever what the owner holds, or a value it wrote, may have
 * changed (a set, an unset, an outside change noticed, a device forgotten or
 * renamed, a restore): origins and values cached under one generation are
 * still what owner_origin() and the kernel would say, but for outside writes
 * not yet noticed.
 */
uint64_t owner_generation(const Owner *o);
/* What the layer asks for, or NULL. Owned by the owner. */
const char *owner_layer_value(const Owner *o, const Target *t, Layer layer);

/* An outside change the owner noticed (see above). Strings owned by the owner; NULL when unknown. */
typedef struct OwnerOutside {
        char *was;      /* what netpolld had left there */
        char *found;    /* what it found instead */
        uint64_t at_ms; /* when it noticed, wall clock in milliseconds */
} OwnerOutside;

/* The target held under name ("irq-affinity@eth1:rx-0"); -ENOENT when the owner holds none. */
int owner_find_target(const Owner *o, const char *name, Target *ret);
/* Whether t is external now; then *ret says what changed. Never creates state. */
bool owner_outside_change(const Owner *o, const Target *t, OwnerOutside *ret);
/* Every target that is external now, in the order the owner met them (caller frees *ret). 0 or -ENOMEM. */
int owner_outside_targets(const Owner *o, Target **ret, size_t *ret_n);

/* Reads the target's value as the kernel holds it now. Never creates state. */
int owner_read(const Owner *o, const Target *t, char **ret);
/* Whether two kernel texts of this kind mean the same value ("0f" == "f" for masks, "0-1" == "0,1"). */
bool owner_value_equal(TargetKind kind, const char *a, const char *b);

/*
 * Checks every target the owner holds against what it wrote: a changed one
 * becomes external (see above); one whose device is gone or has a new
 * ifindex is forgotten. Returns how many changed.
 */
int owner_check(Owner *o);

/*
 * Forgets every target of a device that went away (its journal entries too:
 * there is nothing to restore). Returns how many.
 */
int owner_forget_device(Owner *o, const char *device);

/*
 * A device was renamed: its targets (and journal entries) follow the name,
 * keys below /sys/class/net/OLD/ and names "...@OLD..." included.
 */
int owner_rename_device(Owner *o, const char *old_name, const char *new_name);

/*
 * Puts back the original of every journal entry (crash replay at start, and
 * stop), dropping each restored one. An entry whose device is gone or was
 * replaced (ifindex differs) is dropped with a log line. Values the kernel
 * refused are tried again while a round restores something (values that
 * depend on each other). Returns the number left in the journal (each
 * logged once with its error), or a negative errno when the journal file
 * cannot be updated.
 */
int owner_restore_all(Owner *o);

/* Drops every journal entry and all layer state, writing nothing ([daemon] rollback = not-on-exit). */
int owner_discard(Owner *o);
