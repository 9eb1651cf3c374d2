/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * explain.h: why a knob holds its value, for the Explain method (docs/dbus.md):
 * the value read now, each layer's wish with where it comes from and which
 * one wins, per kernel value (target) the journal's original, what stop
 * writes and any outside change noticed, and the controller's last
 * decisions. Gathered by manager-explain.c, read-only: it creates no state.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "manager.h"

typedef struct ExplainWish {
        char *target;      /* the owner's target name ("busy-read", "rps-cpus@eth1:rx-0") */
        const char *layer; /* "manual", "controller", "profile" or "steering" */
        char *value;       /* formatted with units where the catalog knows them */
        char *source;      /* "netpollctl set", the controller's last reason, "FILE:LINE", "[irq] FILE:LINE" */
        bool wins;
} ExplainWish;

typedef struct ExplainTarget {
        char *name;
        char *key;        /* the file below the sysroot, or "napi:ID:KNOB" */
        char *value;      /* what the kernel holds now, "" when unreadable */
        const char *origin;
        char *original;   /* the restore journal's original, "" when there is none */
        char *at_stop;    /* what a stop writes, "" when it writes nothing */
        bool outside;     /* changed behind netpolld's back: left alone */
        char *outside_was;   /* what netpolld had left there ("" unknown) */
        char *outside_found; /* what it found instead */
        uint64_t outside_at_ms;
        struct OtherOwner *owners; /* who most likely set it, when outside or not netpolld's (other-owner.h) */
        size_t n_owners;
} ExplainTarget;

typedef struct ExplainDecision {
        uint64_t at_ms; /* wall clock, milliseconds since the epoch */
        char *old_value;
        char *new_value;
        char *reason;
} ExplainDecision;

typedef struct Explanation {
        char *name;
        char *value;         /* read now; "" when unsupported or unreadable */
        const char *unit;
        const char *origin;
        const char *summary;
        bool supported;
        const char *needs;   /* knob_needs(): the patch or Linux version, "" when supported */
        const char *rollback; /* "auto" or "not-on-exit": whether stop writes originals */
        ExplainWish *wishes;
        size_t n_wishes;
        ExplainTarget *targets;
        size_t n_targets;
        ExplainDecision *decisions;
        size_t n_decisions;
} Explanation;

void explanation_done(Explanation *e);

/*
 * Explains a knob ("busy-read", "gro-flush-timeout@eth1") or any value the
 * owner holds by its name ("irq-affinity@eth1:rx-0", "rps-cpus@eth1:rx-0"),
 * then a per-NAPI instance ("gro-flush-timeout@eth1:napi-8193",
 * manager-napi.c), and a queue of a per-queue knob by that name before
 * netpolld holds it.
 * MANAGER_E_* errors with a message as manager_get_knob(); *ret is filled on
 * success (explanation_done() frees it).
 */
int manager_explain(Manager *m, const char *name, Explanation *ret, char **ret_message);

