/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * history.c: the per-knob rings of the controller's decisions (history.h).
 */
#include "history.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static const KnobHistory *find(const DecisionHistory *h, const char *knob) {
        for (unsigned i = 0; i < h->n_knobs; i++)
                if (strcmp(h->knobs[i].knob, knob) == 0)
                        return &h->knobs[i];
        return NULL;
}

int history_record(DecisionHistory *h, const char *knob, uint64_t at_ms, uint64_t old_value, uint64_t new_value,
                   const char *reason) {
        KnobHistory *k;
        HistoryEntry *e;

        if (!knob || !knob[0] || strlen(knob) >= HISTORY_KNOB_NAME_MAX)
                return -EINVAL;
        k = (KnobHistory *)find(h, knob);
        if (!k) {
                if (h->n_knobs >= HISTORY_KNOBS_MAX)
                        return -ENOSPC;
                k = &h->knobs[h->n_knobs++];
                *k = (KnobHistory){};
                snprintf(k->knob, sizeof(k->knob), "%s", knob);
        }
        e = &k->entries[k->next];
        *e = (HistoryEntry){ .at_ms = at_ms, .old_value = old_value, .new_value = new_value };
        snprintf(e->reason, sizeof(e->reason), "%s", reason ? reason : "");
        k->next = (k->next + 1) % HISTORY_PER_KNOB;
        if (k->count < HISTORY_PER_KNOB)
                k->count++;
        return 0;
}

size_t history_count(const DecisionHistory *h, const char *knob) {
        const KnobHistory *k = knob ? find(h, knob) : NULL;
        return k ? k->count : 0;
}

const HistoryEntry *history_at(const DecisionHistory *h, const char *knob, size_t i) {
        const KnobHistory *k = knob ? find(h, knob) : NULL;

        if (!k || i >= k->count)
                return NULL;
        /* The oldest sits at next once the ring is full, at 0 before. */
        return &k->entries[(k->next + HISTORY_PER_KNOB - k->count + i) % HISTORY_PER_KNOB];
}

void history_clear(DecisionHistory *h) {
        *h = (DecisionHistory){};
}
