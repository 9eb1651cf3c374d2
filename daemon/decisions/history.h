/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * history.h: the adaptive controller's last decisions, per knob, for
 * netpollctl explain. Bounded: HISTORY_KNOBS_MAX knobs of
 * HISTORY_PER_KNOB decisions each, in one fixed-size struct with no
 * allocation (sizeof(DecisionHistory) is all it ever costs); the oldest
 * decision of a knob makes room for its newest. Pure: the caller passes the
 * time.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

/* The controller moves five knobs (control.h); room for a few more. */
#define HISTORY_KNOBS_MAX 8
#define HISTORY_PER_KNOB 16
#define HISTORY_KNOB_NAME_MAX 32
/* The controller's reasons fit (CONTROL_REASON_MAX); longer ones are cut. */
#define HISTORY_REASON_MAX 160

typedef struct HistoryEntry {
        uint64_t at_ms;     /* wall clock, milliseconds since the epoch */
        uint64_t old_value; /* in the knob's base unit */
        uint64_t new_value;
        char reason[HISTORY_REASON_MAX]; /* the signals and thresholds behind it */
} HistoryEntry;

typedef struct KnobHistory {
        char knob[HISTORY_KNOB_NAME_MAX];
        unsigned next;  /* the slot the next decision goes to */
        unsigned count; /* decisions held, at most HISTORY_PER_KNOB */
        HistoryEntry entries[HISTORY_PER_KNOB];
} KnobHistory;

/* Zero-initialised is empty. */
typedef struct DecisionHistory {
        KnobHistory knobs[HISTORY_KNOBS_MAX];
        unsigned n_knobs;
} DecisionHistory;

/*
 * Records one decision on knob. -EINVAL for an empty name or one longer than
 * HISTORY_KNOB_NAME_MAX - 1, -ENOSPC when HISTORY_KNOBS_MAX other knobs hold
 * every slot (nothing recorded).
 */
int history_record(DecisionHistory *h, const char *knob, uint64_t at_ms, uint64_t old_value, uint64_t new_value,
                   const char *reason);

/* How many decisions on knob are held (0 for a knob never recorded). */
size_t history_count(const DecisionHistory *h, const char *knob);

/* The i-th decision on knob held, oldest first (i < history_count()), or NULL. */
const HistoryEntry *history_at(const DecisionHistory *h, const char *knob, size_t i);

/* Forgets everything. */
void history_clear(DecisionHistory *h);
