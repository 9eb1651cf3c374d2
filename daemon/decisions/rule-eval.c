/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rule-eval.c: the hysteresis and precedence of workload rules (rule-eval.h).
 */
#include "rule-eval.h"

size_t rules_winner(const Rule *rules, const RuleState *states, size_t n) {
        size_t best = RULE_NONE;

        for (size_t i = 0; i < n; i++)
                if (states[i].active && (best == RULE_NONE || rules[i].priority > rules[best].priority))
                        best = i; /* strictly greater: on equal priority the earlier rule stays */
        return best;
}

static uint64_t sat_add(uint64_t a, uint64_t b) {
        return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

size_t rules_step(const Rule *rules, RuleState *states, size_t n, const bool *seen, uint64_t now_usec,
                  uint64_t *ret_wakeup_usec) {
        uint64_t wakeup = RULE_NO_WAKEUP;

        for (size_t i = 0; i < n; i++) {
                RuleState *s = &states[i];
                uint64_t delay, due;

                if (seen[i] != s->seen) {
                        s->seen = seen[i];
                        s->since_usec = now_usec;
                }
                if (s->seen == s->active)
                        continue; /* nothing pending */
                delay = s->seen ? rules[i].start_delay_us : rules[i].stop_delay_us;
                due = sat_add(s->since_usec, delay);
                if (now_usec >= due)
                        s->active = s->seen;
                else if (due < wakeup)
                        wakeup = due;
        }
        if (ret_wakeup_usec)
                *ret_wakeup_usec = wakeup;
        return rules_winner(rules, states, n);
}
