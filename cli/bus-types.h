/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * bus-types.h: the plain structs netpollctl reads netpolld's replies into
 * (ListKnobs, GetLoad, the Manager's properties). Kept apart from the sd-bus
 * calls in netpollctl.h so that the pure formatters (screen.h) and their
 * tests use them without a bus.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One entry of ListKnobs; the strings belong to the reply message. */
typedef struct KnobInfo {
        const char *name;
        const char *value;
        const char *unit;
        const char *origin;
        bool supported;
        const char *patch;
        const char *summary;
} KnobInfo;

/* One CPU of GetLoad, over the daemon's last sampling interval. */
typedef struct CpuLoad {
        uint32_t cpu;
        uint64_t runnable_milli;        /* average waiting tasks x1000 */
        uint64_t net_rx;                /* NET_RX softirqs per second */
        uint64_t net_tx;                /* NET_TX softirqs per second */
        uint64_t processed;             /* packets per second (softnet_stat) */
        uint64_t squeeze;               /* time_squeeze events per second */
        uint64_t drops;                 /* backlog drops per second */
} CpuLoad;

/* GetLoad's reply: source borrows from the reply message, cpus is owned (load_info_done()). */
typedef struct LoadInfo {
        const char *source;
        bool psi;
        CpuLoad *cpus;
        size_t n_cpus;
} LoadInfo;

/* One row of GetOtherOwners: a value somebody else holds and a likely owner (kind "" unknown). Borrowed strings. */
typedef struct OwnerRow {
        const char *target, *value, *kind, *where, *note;
} OwnerRow;

/* The Manager's properties; strings borrow from the GetAll reply, NULL when the daemon lacks one. */
typedef struct Properties {
        const char *version;
        const char *profile;
        const char *profile_path;
        const char *mode;
        const char *state_dir;
        const char *sysroot;
        const char *runqueue_source;
        const char *active_rule;  /* "" when no rule is in force */
        const char *rule_profile; /* the active rule's profile */
        int dry_run;            /* -1: not reported */
        int pinned;             /* ProfilePinned; -1: not reported */
        int pressure;           /* -1: not reported */
        uint64_t interval_us;   /* UINT64_MAX: not reported */
} Properties;

#define PROPERTIES_INIT { .dry_run = -1, .pressure = -1, .pinned = -1, .interval_us = UINT64_MAX }
