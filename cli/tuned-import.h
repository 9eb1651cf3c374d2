/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tuned-import.h: "netpollctl profile import-tuned": the mapping of what a
 * tuned profile (common/tuned.h) sets onto netpolld's knob catalog, written
 * as a netpolld profile (tuned-map.c). Pure; nothing here logs.
 */
#pragma once

#include "tuned.h"

/* One line of the netpolld profile: a knob of the catalog and the tuned option it comes from. */
typedef struct TunedKnob {
        const char *knob;       /* catalog name */
        char *value;            /* as the profile writes it ("50us") */
        char *kernel;           /* what netpolld then writes to the file, equal to what tuned writes */
        TunedOption origin;
} TunedKnob;

typedef struct TunedImport {
        TunedKnob *knobs;
        size_t n_knobs;
        TunedNote *skipped;     /* the profile's notes, then every entry not mapped */
        size_t n_skipped;
} TunedImport;

/* Maps p's entries onto the knob catalog (pure). 0 or -ENOMEM. */
int tuned_import(const TunedProfile *p, TunedImport **ret);
TunedImport *tuned_import_free(TunedImport *imp);
DEFINE_TRIVIAL_CLEANUP_FUNC(TunedImport *, tuned_import_free);

/* The netpolld profile text for imp (the report as a comment block at its end). Caller frees. */
char *tuned_import_format(const TunedImport *imp, const TunedProfile *p);
