/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * views.h: what the daemon shows its callers, as plain rows made from the
 * Manager's state (manager-views.c): the knobs as ListKnobs lists them, the
 * profiles and one profile's settings, the per-CPU load. Reads only; each
 * array is the caller's, freed with the function beside it.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "manager.h"

/* A listed knob instance. name and value belong to the row; the rest are the catalog's or static. */
typedef struct KnobRow {
        char *name;          /* "busy-read", "gro-flush-timeout@eth1" */
        char *value;         /* with units; "" when unsupported or unreadable */
        const char *unit;
        const char *origin;  /* origin_to_string(): default for an unsupported knob */
        bool supported;
        const char *needs;   /* knob_needs() when unsupported, else "" */
        const char *summary;
} KnobRow;
/* Every listed knob instance (manager_knob_state()), in their order. */
int manager_list_knobs(Manager *m, KnobRow **ret, size_t *ret_n);
void knob_rows_free(KnobRow *rows, size_t n);

/* A profile found in the search path; its strings belong to the row. */
typedef struct ProfileRow {
        char *name;
        char *path;
        char *summary; /* its description, or "invalid: " and its first error */
} ProfileRow;
/* Every profile of the Manager's search path by name (a broken one too, with its first error). */
int manager_list_profiles(Manager *m, ProfileRow **ret, size_t *ret_n);
void profile_rows_free(ProfileRow *rows, size_t n);

/* One setting of a shown profile: its section, key, value and FILE:LINE (owned but the section). */
typedef struct ProfileLine {
        const char *section;
        char *key;
        char *value;
        char *origin;
} ProfileLine;
/*
 * Loads the profile NAME (or path) as a switch would and lists its [knobs]
 * then its other settings. MANAGER_E_UNKNOWN_PROFILE or
 * MANAGER_E_INVALID_PROFILE with every error in *ret_message, one per line.
 */
int manager_show_profile(Manager *m, const char *name, Profile **ret_profile, ProfileLine **ret_lines,
                         size_t *ret_n, char **ret_message);
void profile_lines_free(ProfileLine *lines, size_t n);

/* One online CPU's load, as GetLoad gives it. */
typedef struct CpuLoad {
        uint32_t cpu;
        uint64_t runnable_milli, net_rx_per_sec, net_tx_per_sec, processed_per_sec, squeeze_per_sec, drops_per_sec;
} CpuLoad;
/*
 * The latest rates (adapter_load()): the run-queue source's name, whether
 * CPU pressure counts, a row per online CPU (caller frees *ret_cpus). -EIO
 * with a message when the statistics cannot be read.
 */
int manager_load(Manager *m, const char **ret_source, bool *ret_psi, CpuLoad **ret_cpus, size_t *ret_n,
                 char **ret_message);
/* The run-queue source's name without sampling ("" when the monitor is not running). */
const char *manager_runqueue_source(const Manager *m);
/* Whether the running monitor reads CPU pressure. */
bool manager_uses_pressure(const Manager *m);
