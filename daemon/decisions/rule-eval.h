/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rule-eval.h: which [rule NAME] is in force, from what the sources saw
 * (pure: no I/O, no clock). A rule becomes active once its condition has held
 * for start-delay and stays active until the condition has been gone for
 * stop-delay, so a workload that comes and goes quickly (a restarting unit, a
 * flapping process) does not bounce the profile. Among active rules the
 * highest priority wins, then the rule first in netpolld.conf.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "policy.h"

#define RULE_NONE ((size_t)-1)
#define RULE_NO_WAKEUP UINT64_MAX

typedef struct RuleState {
        bool seen;          /* the condition as last observed */
        bool active;        /* the rule is in force (after the delays) */
        uint64_t since_usec; /* when seen last changed (CLOCK_MONOTONIC) */
} RuleState;

/*
 * Takes the observations seen[i] of rules[i] at now_usec into states[i] (all
 * n long) and returns the index of the winning active rule, or RULE_NONE.
 * *ret_wakeup_usec: the earliest time a pending delay ends (when the function
 * should run again even without a new observation), or RULE_NO_WAKEUP.
 */
size_t rules_step(const Rule *rules, RuleState *states, size_t n, const bool *seen, uint64_t now_usec,
                  uint64_t *ret_wakeup_usec);

/* The winning active rule of states, or RULE_NONE (no state changes). */
size_t rules_winner(const Rule *rules, const RuleState *states, size_t n);
