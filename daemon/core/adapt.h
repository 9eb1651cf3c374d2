/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * adapt.h: the adaptive loop. Each interval (each fifth while the controller
 * rests: control.h) it samples the monitor, hands the load and the knobs'
 * state to the pure controller, and applies its decisions through the manager
 * (origin "adaptive", never a knob a person set). It owns the sampling timer,
 * the controller state and the paused flag.
 */
#pragma once

#include <stdbool.h>
#include <systemd/sd-event.h>

#include "manager.h"
#include "monitor.h"

typedef struct Adapter Adapter;

int adapter_new(Adapter **ret, Manager *m, sd_event *event);
Adapter *adapter_free(Adapter *a);
static inline void adapter_freep(Adapter **a) {
        if (*a)
                adapter_free(*a);
}

/*
 * Follows the manager's active profile: starts sampling when its [adaptive]
 * section is enabled (and not paused), stops otherwise, and starts the
 * controller afresh. Call after every profile apply or reload.
 */
int adapter_update(Adapter *a);

/* Stops (true) or resumes (false) moving knobs; values stay as they are. -ENOTSUP when the profile does not adapt. */
int adapter_set_paused(Adapter *a, bool paused);
/*
 * The kernel threads of NAPI instances in busy-poll mode (pids): always
 * runnable, they are the dedicated pollers, never a task waiting for a CPU
 * that busy polling should yield to (monitor_ignore_tasks()).
 */
void adapter_set_pollers(Adapter *a, const int *pids, size_t n);

/* "adaptive", "static" or "paused". */
const char *adapter_mode(const Adapter *a);

/* The monitor without sampling (for its source name), NULL when it could not start. */
const Monitor *adapter_monitor(const Adapter *a);

/*
 * The monitor with the latest rates: the last interval's when adapting, else
 * a sample taken now (rates since the previous call; zeros the first time).
 * -ENODEV when the monitor could not start (its reason was logged).
 */
int adapter_load(Adapter *a, const Monitor **ret);

/* Knob changes the controller applied since start, for one (knob, cause) pair. */
typedef struct AdapterDecisionCount {
        const char *knob;   /* "busy-read" */
        bool up;            /* the cause raises the knob (else lowers it) */
        const char *reason; /* control_cause_to_string() */
        uint64_t count;
} AdapterDecisionCount;

/*
 * Fills ret with up to max counts, one for every (knob, cause) pair the
 * controller can apply, zeros included; returns how many pairs there are
 * (call with max 0 to size the array).
 */
size_t adapter_decisions(const Adapter *a, AdapterDecisionCount *ret, size_t max);

/* Samples the controller took and stepped on since start (GetLoad's own samples not counted). */
uint64_t adapter_samples(const Adapter *a);
/*
 * Samples asked for at once: the CPU pressure trigger fired, its watch saw
 * waiting, or every process busy polling yielded to exited.
 */
void adapter_wakeups(const Adapter *a, uint64_t *ret_trigger, uint64_t *ret_watch, uint64_t *ret_exit);
