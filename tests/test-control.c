/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * test-control.c: the adaptive controller on scripted sample sequences. A
 * small simulator plays the daemon: one sample every 100 ms, each CONTROL_SET
 * applied to the knob's current value, and every decision checked against
 * the invariants (movable knobs only, dwell respected, bounds kept).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "control.h"
#include "macro.h"
#include "testutil.h"

#define INTERVAL_US UINT64_C(100000)
#define MAX_RECORDED 64

typedef struct Sim {
        AdaptiveConfig cfg;
        ControlState st;
        ControlInput in;
        unsigned step;             /* index of the next step */
        bool apply;                /* apply CONTROL_SET like a successful write */
        unsigned moves[_CONTROL_KNOB_MAX];
        uint64_t values[_CONTROL_KNOB_MAX][MAX_RECORDED]; /* values written, in order */
        unsigned at[_CONTROL_KNOB_MAX][MAX_RECORDED];     /* step of each write */
        ControlCause cause[_CONTROL_KNOB_MAX];            /* of the last write */
        unsigned advices;
        ControlDecision last[CONTROL_DECISIONS_MAX];
        int n_last;
} Sim;

static void sim_init(Sim *s) {
        *s = (Sim){
                .cfg = {
                        .enabled = true,
                        .runqueue_threshold_milli = 1000,
                        .hold = 3,
                        .min_dwell_us = 1000000,
                        .busy_poll_floor_us = 0,
                        .squeeze_threshold = 100,
                        .budget_step_percent = 25,
                        .netdev_budget_max = 600,
                        .netdev_budget_time_max_us = 14000,
                        .softirq_budget_max_us = 0,
                        .quiet_period_us = 10000000,
                },
                .apply = true,
        };
        control_state_init(&s->st);
        s->in.cfg = &s->cfg;
        s->in.knobs[CONTROL_BUSY_READ] = (ControlKnobInput){ true, true, 50, 50 };
        s->in.knobs[CONTROL_BUSY_POLL] = (ControlKnobInput){ true, true, 50, 50 };
        s->in.knobs[CONTROL_BUSY_LOOP_THRESHOLD] = (ControlKnobInput){ false, true, 0, 0 };
        s->in.knobs[CONTROL_NETDEV_BUDGET] = (ControlKnobInput){ true, true, 300, 300 };
        s->in.knobs[CONTROL_NETDEV_BUDGET_TIME] = (ControlKnobInput){ true, true, 8000, 8000 };
        s->in.knobs[CONTROL_SOFTIRQ_BUDGET] = (ControlKnobInput){ false, true, 0, 0 };
        s->in.knobs[CONTROL_NETDEV_MAX_BACKLOG] = (ControlKnobInput){ true, true, 1000, 1000 };
}

static uint64_t cap_of(const Sim *s, ControlKnob k) {
        return k == CONTROL_NETDEV_BUDGET        ? s->cfg.netdev_budget_max
               : k == CONTROL_NETDEV_BUDGET_TIME ? s->cfg.netdev_budget_time_max_us
               : k == CONTROL_SOFTIRQ_BUDGET     ? s->cfg.softirq_budget_max_us
                                                 : 0;
}

/* One sample; returns the number of decisions after checking each against the rules. */
static int sim_step(Sim *s, uint64_t runnable_milli, uint64_t squeeze, uint64_t drops) {
        s->in.now_us = UINT64_C(5000000) + s->step * INTERVAL_US;
        s->in.runnable_milli = runnable_milli;
        s->in.squeeze_per_sec = squeeze;
        s->in.drops_per_sec = drops;
        s->n_last = control_step(&s->st, &s->in, s->last, ELEMENTSOF(s->last));
        ck_assert_int_ge(s->n_last, 0);

        for (int i = 0; i < s->n_last; i++) {
                const ControlDecision *d = &s->last[i];
                ControlKnobInput *k = &s->in.knobs[d->knob];

                ck_assert_msg(d->reason[0] != 0, "decision without a reason");
                ck_assert_uint_eq(d->old_value, k->current);
                if (d->kind == CONTROL_ADVICE) {
                        s->advices++;
                        continue;
                }
                ck_assert_msg(k->supported && k->movable, "%s moved though not movable", control_knob_name(d->knob));
                ck_assert_uint_ne(d->value, k->current);
                /* The dwell holds for every move but a yield's first for a neighbour (right after a probe,
                 * the probe failed, or once a CPU-bound task joined the crowd), and the return its end brought. */
                if (s->moves[d->knob] > 0 &&
                    !(d->cause == CONTROL_CAUSE_CONTENTION && s->cause[d->knob] != CONTROL_CAUSE_CONTENTION &&
                      (s->cause[d->knob] == CONTROL_CAUSE_PROBE || (s->in.crowd_known && s->in.crowd_found))) &&
                    !(d->cause == CONTROL_CAUSE_UNCONTENDED && s->cause[d->knob] == CONTROL_CAUSE_CONTENTION &&
                      s->in.crowd_known && s->in.crowd_found && s->in.crowd_tasks == 0))
                        ck_assert_msg((s->step - s->at[d->knob][s->moves[d->knob] - 1]) * INTERVAL_US >=
                                              s->cfg.min_dwell_us,
                                      "%s moved twice within the dwell time", control_knob_name(d->knob));
                s->cause[d->knob] = d->cause;
                if (cap_of(s, d->knob) > 0) {
                        ck_assert_uint_le(d->value, MAX(cap_of(s, d->knob), k->home));
                        ck_assert_uint_ge(d->value, k->home);
                }
                if (s->moves[d->knob] < MAX_RECORDED) {
                        s->values[d->knob][s->moves[d->knob]] = d->value;
                        s->at[d->knob][s->moves[d->knob]] = s->step;
                }
                s->moves[d->knob]++;
                if (s->apply)
                        k->current = d->value;
        }
        s->step++;
        return s->n_last;
}

static void sim_steps(Sim *s, unsigned n, uint64_t runnable_milli, uint64_t squeeze, uint64_t drops) {
        for (unsigned i = 0; i < n; i++)
                sim_step(s, runnable_milli, squeeze, drops);
}

/* ---- busy-poll yield ---- */

/* The first sample of a change of mode asks for the next one soon; a settled mode samples every interval. */
START_TEST(test_control_confirms_a_change_quickly) {
        Sim s;

        sim_init(&s);
        ck_assert_uint_eq(control_next_step_us(&s.st, INTERVAL_US), INTERVAL_US);
        sim_step(&s, 1800, 0, 0); /* 1 of hold 3 above the threshold */
        ck_assert(s.st.confirming);
        ck_assert_uint_eq(control_next_step_us(&s.st, INTERVAL_US), INTERVAL_US / CONTROL_CONFIRM_DIVISOR);
        ck_assert_uint_eq(control_next_step_us(&s.st, 20000), CONTROL_CONFIRM_MIN_US);
        ck_assert_uint_eq(control_next_step_us(&s.st, 5000), 5000); /* never later than the interval */
        sim_step(&s, 500, 0, 0); /* the run broke: nothing to confirm */
        ck_assert(!s.st.confirming);
        ck_assert_uint_eq(control_next_step_us(&s.st, INTERVAL_US), INTERVAL_US);
        sim_steps(&s, 2, 1800, 0, 0);
        ck_assert(s.st.confirming);
        ck_assert_int_eq(sim_step(&s, 1800, 0, 0), 2); /* yields */
        ck_assert(s.st.yielding && !s.st.confirming);
        ck_assert_uint_eq(control_next_step_us(&s.st, INTERVAL_US), INTERVAL_US);

        /* Calm, but the crowd it yielded to still runs: the crowd rule holds the yield, nothing pending. */
        s.in.crowd_known = s.in.crowd_found = true;
        s.in.crowd_milli = 900;
        sim_steps(&s, 3, 200, 0, 0);
        ck_assert(s.st.yielding && !s.st.confirming);
        ck_assert_uint_eq(control_next_step_us(&s.st, INTERVAL_US), INTERVAL_US);
        /* The crowd stops: the return is confirmed quickly. */
        s.in.crowd_milli = 0;
        sim_step(&s, 200, 0, 0);
        ck_assert(s.st.yielding && s.st.confirming);
        ck_assert_uint_eq(control_next_step_us(&s.st, INTERVAL_US), INTERVAL_US / CONTROL_CONFIRM_DIVISOR);
}
END_TEST

/*
 * Once the crowd ended, tasks still waiting are looked at again soon (the
 * burst as a crowd ends), for at most hold intervals' worth of short samples.
 * A crowd that is quiet but has not ended (a bursty neighbour's idle slice)
 * begins nothing while tasks wait. Without a crowd the queue draining begins it.
 */
START_TEST(test_control_confirms_a_return_while_tasks_still_wait) {
        unsigned hold, i;
        Sim s;

        sim_init(&s);
        hold = s.cfg.hold;
        s.in.crowd_known = s.in.crowd_found = true;
        s.in.crowd_tasks = 1;
        s.in.crowd_milli = 900;
        sim_steps(&s, hold, 1800, 0, 0);
        ck_assert(s.st.yielding);
        sim_step(&s, 1800, 0, 0);
        ck_assert(s.st.yielding && !s.st.confirming); /* the crowd still runs */

        s.in.crowd_milli = 0; /* it sleeps; others wait */
        sim_steps(&s, 3, 1800, 0, 0);
        ck_assert(s.st.yielding && !s.st.confirming);
        s.in.crowd_milli = 900;
        sim_step(&s, 1800, 0, 0);

        s.in.crowd_milli = 0; /* it ended; a burst still waits */
        s.in.crowd_tasks = 0;
        for (i = 1; i <= hold * CONTROL_CONFIRM_DIVISOR; i++) {
                sim_step(&s, 1800, 0, 0);
                ck_assert_msg(s.st.yielding && s.st.confirming, "sample %u after the end not confirmed", i);
        }
        sim_step(&s, 1800, 0, 0); /* the waiting is steady: back to the interval */
        ck_assert(s.st.yielding && !s.st.confirming);
        ck_assert_uint_eq(control_next_step_us(&s.st, INTERVAL_US), INTERVAL_US);

        s.in.crowd_milli = 900; /* a new crowd task runs, then ends: confirmed again */
        s.in.crowd_tasks = 1;
        sim_step(&s, 1800, 0, 0);
        ck_assert(!s.st.confirming);
        s.in.crowd_milli = 0;
        s.in.crowd_tasks = 0;
        sim_step(&s, 1800, 0, 0);
        ck_assert(s.st.confirming);
        for (i = 0; i < hold - 1; i++) {
                sim_step(&s, 200, 0, 0); /* the burst is over */
                ck_assert(s.st.yielding && s.st.confirming);
        }
        ck_assert_int_eq(sim_step(&s, 200, 0, 0), 2); /* hold calm samples: back */
        ck_assert(!s.st.yielding && !s.st.confirming);

        /*
         * Without a crowd (none followed, or none found: only tasks that are not
         * CPU-bound waited), tasks waiting while yielding begin nothing; the
         * queue draining does.
         */
        for (int found = 0; found < 2; found++) {
                sim_init(&s);
                s.in.crowd_known = found;
                sim_steps(&s, hold + 4, 1800, 0, 0);
                ck_assert(s.st.yielding && !s.st.confirming);
                sim_step(&s, 200, 0, 0);
                ck_assert(s.st.yielding && s.st.confirming);
        }
}
END_TEST

/*
 * A woken sample (a task started waiting) is confirmed soon even when it read
 * calm, while busy polling could yield; may_yield tells the caller when that is.
 */
START_TEST(test_control_confirms_a_woken_sample) {
        Sim s;

        sim_init(&s);
        sim_steps(&s, 3, 0, 0, 0);
        ck_assert(s.st.may_yield && !s.st.confirming);
        s.in.woken = true;
        sim_step(&s, 100, 0, 0); /* calm: the wait began just before it */
        ck_assert(s.st.confirming);
        ck_assert_uint_eq(control_next_step_us(&s.st, INTERVAL_US), INTERVAL_US / CONTROL_CONFIRM_DIVISOR);
        s.in.woken = false;
        sim_step(&s, 100, 0, 0); /* calm again: nothing to confirm */
        ck_assert(!s.st.confirming);
        ck_assert_uint_eq(s.moves[CONTROL_BUSY_POLL], 0);

        /* hold still counts: woken samples above the threshold yield after hold of them, not sooner. */
        s.in.woken = true;
        sim_steps(&s, 2, 1800, 0, 0);
        ck_assert(!s.st.yielding && s.st.confirming);
        ck_assert_int_eq(sim_step(&s, 1800, 0, 0), 2);
        /* Yielding: nothing more to lower, a wake confirms nothing. */
        ck_assert(s.st.yielding && !s.st.may_yield && !s.st.confirming);
        s.in.crowd_known = true;
        s.in.crowd_milli = 900;
        sim_step(&s, 1800, 0, 0);
        ck_assert(!s.st.confirming);
}
END_TEST

/* Nothing to lower: at the floor, not movable, or the kernel yields by itself. */
START_TEST(test_control_may_yield_only_where_it_could) {
        Sim s;

        sim_init(&s);
        s.in.woken = true;
        s.in.knobs[CONTROL_BUSY_READ].current = 0;
        s.in.knobs[CONTROL_BUSY_POLL].movable = false;
        sim_step(&s, 0, 0, 0);
        ck_assert(!s.st.may_yield && !s.st.confirming);

        sim_init(&s);
        s.in.woken = true;
        s.in.knobs[CONTROL_BUSY_LOOP_THRESHOLD] = (ControlKnobInput){ true, true, 1, 1 };
        sim_step(&s, 0, 0, 0);
        ck_assert(s.st.kernel_yields && !s.st.may_yield && !s.st.confirming);

        sim_init(&s);
        s.in.knobs[CONTROL_BUSY_READ].current = 0;
        sim_step(&s, 0, 0, 0);
        ck_assert(s.st.may_yield); /* busy-poll alone is enough */
}
END_TEST

/* A per-CPU source names the busiest watched CPU in the reasons; PSI (system-wide) names none. */
START_TEST(test_control_reason_names_the_busiest_cpu) {
        Sim s;

        sim_init(&s);
        s.in.runnable_per_cpu = true;
        s.in.runnable_cpu = 3;
        sim_steps(&s, 2, 1400, 0, 0);
        ck_assert_int_eq(sim_step(&s, 1400, 0, 0), 2);
        ck_assert_str_eq(s.last[0].reason,
                         "runnable 1.4 on CPU 3 > 1.0 for 3 samples: busy polling yields to the waiting tasks");
}
END_TEST

START_TEST(test_control_step_load_yields_after_hold_and_returns_after_dwell) {
        Sim s;

        sim_init(&s);
        ck_assert_int_eq(sim_step(&s, 1800, 0, 0), 0);
        ck_assert_int_eq(sim_step(&s, 1800, 0, 0), 0);
        ck_assert_int_eq(sim_step(&s, 1800, 0, 0), 2); /* third sample above the threshold */
        ck_assert(s.st.yielding);
        ck_assert_int_eq(s.last[0].kind, CONTROL_SET);
        ck_assert_int_eq(s.last[0].knob, CONTROL_BUSY_READ);
        ck_assert_str_eq(control_knob_name(s.last[0].knob), "busy-read");
        ck_assert_uint_eq(s.last[0].old_value, 50);
        ck_assert_uint_eq(s.last[0].value, 0);
        ck_assert_str_eq(s.last[0].reason, "runnable 1.8 > 1.0 for 3 samples: busy polling yields to the waiting tasks");
        ck_assert_int_eq(s.last[0].cause, CONTROL_CAUSE_CONTENTION);
        ck_assert_int_eq(s.last[1].knob, CONTROL_BUSY_POLL);
        ck_assert_uint_eq(s.last[1].value, 0);

        /* Quiet from step 3: the mode flips at step 5, but the knobs moved at step 2 wait for the 1 s dwell. */
        for (unsigned i = 3; i < 12; i++)
                ck_assert_msg(sim_step(&s, 500, 0, 0) == 0, "moved at step %u", i);
        ck_assert(!s.st.yielding);
        ck_assert_int_eq(sim_step(&s, 500, 0, 0), 2);
        ck_assert_uint_eq(s.last[0].value, 50);
        ck_assert_uint_eq(s.last[1].value, 50);
        ck_assert_str_eq(s.last[0].reason, "runnable 0.5 <= 1.0 for 10 samples: busy polling restored");
        ck_assert_int_eq(s.last[0].cause, CONTROL_CAUSE_UNCONTENDED);
        sim_steps(&s, 50, 500, 0, 0);
        ck_assert_uint_eq(s.moves[CONTROL_BUSY_READ], 2);
        ck_assert_uint_eq(s.moves[CONTROL_BUSY_POLL], 2);
}
END_TEST

START_TEST(test_control_spike_shorter_than_hold_moves_nothing) {
        Sim s;

        sim_init(&s);
        for (unsigned i = 0; i < 30; i++) {
                sim_step(&s, 2500, 0, 0);
                sim_step(&s, 2500, 0, 0);
                sim_step(&s, 0, 0, 0);
        }
        ck_assert_uint_eq(s.moves[CONTROL_BUSY_READ], 0);
        ck_assert(!s.st.yielding);
}
END_TEST

START_TEST(test_control_load_flapping_at_threshold_is_held_by_hysteresis) {
        Sim s;

        sim_init(&s);
        for (unsigned i = 0; i < 100; i++)
                sim_step(&s, i % 2 ? 1000 : 1001, 0, 0); /* above, then exactly at the threshold */
        ck_assert_uint_eq(s.moves[CONTROL_BUSY_READ], 0);
        ck_assert_uint_eq(s.moves[CONTROL_BUSY_POLL], 0);
}
END_TEST

START_TEST(test_control_load_flapping_with_hold_1_moves_once_per_dwell) {
        Sim s;

        sim_init(&s);
        s.cfg.hold = 1;
        for (unsigned i = 0; i < 100; i++)
                sim_step(&s, i % 2 ? 1000 : 1001, 0, 0);
        /* Lowered at step 0, then each move waits 1 s and for a sample of the other kind: 11, 22, ... 99. */
        ck_assert_uint_eq(s.moves[CONTROL_BUSY_READ], 10);
        ck_assert_uint_eq(s.moves[CONTROL_BUSY_POLL], 10);
        for (unsigned i = 0; i < 10; i++) {
                ck_assert_uint_eq(s.at[CONTROL_BUSY_READ][i], 11 * i);
                ck_assert_uint_eq(s.values[CONTROL_BUSY_READ][i], i % 2 ? 50 : 0);
        }
}
END_TEST

START_TEST(test_control_patched_kernel_yields_by_itself) {
        Sim s;

        sim_init(&s);
        s.in.knobs[CONTROL_BUSY_LOOP_THRESHOLD] = (ControlKnobInput){ true, true, 1, 1 };
        sim_steps(&s, 30, 3000, 0, 0);
        ck_assert(s.st.yielding);
        ck_assert(s.st.kernel_yields);
        ck_assert_uint_eq(s.moves[CONTROL_BUSY_READ], 0);
        ck_assert_uint_eq(s.moves[CONTROL_BUSY_POLL], 0);
        ck_assert_uint_eq(s.in.knobs[CONTROL_BUSY_READ].current, 50);

        /* Patched but switched off (0): netpolld does the yielding. */
        sim_init(&s);
        s.in.knobs[CONTROL_BUSY_LOOP_THRESHOLD] = (ControlKnobInput){ true, true, 0, 0 };
        sim_steps(&s, 3, 3000, 0, 0);
        ck_assert(!s.st.kernel_yields);
        ck_assert_uint_eq(s.in.knobs[CONTROL_BUSY_READ].current, 0);
}
END_TEST

START_TEST(test_control_floor_lowers_only_knobs_above_it) {
        Sim s;

        sim_init(&s);
        s.cfg.busy_poll_floor_us = 20;
        s.in.knobs[CONTROL_BUSY_POLL] = (ControlKnobInput){ true, true, 10, 10 };
        sim_steps(&s, 3, 3000, 0, 0);
        ck_assert_int_eq(s.n_last, 1);
        ck_assert_int_eq(s.last[0].knob, CONTROL_BUSY_READ);
        ck_assert_uint_eq(s.last[0].value, 20);
        ck_assert_uint_eq(s.moves[CONTROL_BUSY_POLL], 0);
}
END_TEST

/* ---- the latency objective: yield within two intervals, back within a second ---- */

/* The latency profile's [adaptive] timing (conf/profiles/latency.conf). */
static void sim_latency(Sim *s) {
        sim_init(s);
        s->cfg.runqueue_threshold_milli = 500;
        s->cfg.hold = 2;
        s->cfg.min_dwell_us = 500000;
}

START_TEST(test_control_latency_yields_at_second_interval_and_returns_within_a_second) {
        /* How long the neighbour waits (samples), and the latest step busy polling may come back after it left. */
        for (unsigned waits = 2; waits <= 30; waits++) {
                Sim s;
                unsigned yield_at, back_at = 0;

                sim_latency(&s);
                sim_steps(&s, 5, 0, 0, 0); /* the poller alone: nothing waits on its CPU */
                ck_assert_uint_eq(s.moves[CONTROL_BUSY_POLL], 0);
                sim_steps(&s, waits, 1000, 0, 0);
                ck_assert_uint_eq(s.moves[CONTROL_BUSY_POLL], 1);
                yield_at = s.at[CONTROL_BUSY_POLL][0];
                ck_assert_uint_eq(yield_at, 5 + 1); /* the second interval with someone waiting */
                ck_assert_int_eq(s.last[0].cause, CONTROL_CAUSE_CONTENTION);

                for (unsigned i = 0; i < 10 && !back_at; i++) { /* a second of samples after the queue drained */
                        sim_step(&s, 0, 0, 0);
                        if (s.moves[CONTROL_BUSY_POLL] == 2)
                                back_at = s.at[CONTROL_BUSY_POLL][1];
                }
                ck_assert_msg(back_at, "still yielding a second after the neighbour left (waited %u)", waits);
                /* Two quiet samples (hysteresis), then the 500 ms dwell since the yield if not over yet. */
                ck_assert_uint_eq(back_at, MAX(5 + waits + 1, yield_at + 5));
                ck_assert_uint_eq(s.in.knobs[CONTROL_BUSY_POLL].current, 50);
        }
}
END_TEST

/* Each reason is true of the sample it comes with. */
START_TEST(test_control_reasons_are_true_of_their_sample) {
        Sim s;

        /* Started afresh (a profile switch) with polling at the floor and someone waiting: it stays there. */
        sim_latency(&s);
        s.in.knobs[CONTROL_BUSY_READ].current = 0;
        s.in.knobs[CONTROL_BUSY_POLL].current = 0;
        sim_step(&s, 600, 0, 0);
        sim_step(&s, 0, 0, 0); /* one calm sample is not hold of them */
        ck_assert_uint_eq(s.moves[CONTROL_BUSY_POLL], 0);
        sim_step(&s, 0, 0, 0);
        ck_assert_uint_eq(s.moves[CONTROL_BUSY_POLL], 1);
        ck_assert_int_eq(s.last[0].cause, CONTROL_CAUSE_UNCONTENDED);
        ck_assert_msg(strstr(s.last[0].reason, "runnable 0.0 <= 0.5 for 2 samples"), "%s", s.last[0].reason);

        /* A yield that waited for min-dwell and lands on a calm sample says when the waiting was. */
        sim_steps(&s, 4, 1000, 0, 0); /* yields at the second, held back by the dwell */
        ck_assert_uint_eq(s.moves[CONTROL_BUSY_POLL], 1);
        sim_step(&s, 100, 0, 0); /* 500 ms after the restore */
        ck_assert_uint_eq(s.moves[CONTROL_BUSY_POLL], 2);
        ck_assert_int_eq(s.last[0].cause, CONTROL_CAUSE_CONTENTION);
        ck_assert_msg(strstr(s.last[0].reason, "yields to the tasks that waited 300ms ago (runnable now 0.1)"), "%s",
                      s.last[0].reason);
}
END_TEST

START_TEST(test_control_latency_single_waiting_sample_moves_nothing) {
        Sim s;

        sim_latency(&s);
        for (unsigned i = 0; i < 40; i++)
                sim_step(&s, i % 2 ? 0 : 3000, 0, 0); /* a waiting task every other sample only */
        ck_assert_uint_eq(s.moves[CONTROL_BUSY_READ], 0);
        ck_assert_uint_eq(s.moves[CONTROL_BUSY_POLL], 0);
        sim_steps(&s, 1, 500, 0, 0); /* exactly at the threshold is not above it */
        sim_steps(&s, 1, 500, 0, 0);
        ck_assert_uint_eq(s.moves[CONTROL_BUSY_POLL], 0);
}
END_TEST

/* ---- the crowd: the tasks busy polling yielded to ---- */

/* Calm samples while busy polling yields to a crowd that keeps running: until the probe brings it back. */
static void sim_until_probe(Sim *s) {
        while (s->st.yielding && s->step < 10000)
                sim_step(s, 0, 0, 0);
        ck_assert_int_eq(s->last[0].cause, CONTROL_CAUSE_PROBE);
}

/* The latency profile, yielded at step 6 to a crowd that waited from step 5 on. */
static void sim_crowd_yield(Sim *s) {
        sim_latency(s);
        s->in.crowd_known = true;
        sim_steps(s, 5, 0, 0, 0);
        sim_steps(s, 2, 1000, 0, 0);
        ck_assert_uint_eq(s->moves[CONTROL_BUSY_POLL], 1);
        ck_assert(s->st.yielding);
        ck_assert_msg(s->st.mark_crowd, "the tasks waiting as the yield begins are not marked");
        s->in.crowd_found = true; /* the neighbour was among them */
}

START_TEST(test_control_crowd_holds_the_yield_until_it_leaves) {
        Sim s;
        unsigned left;

        sim_crowd_yield(&s);
        /* Busy polling stopped: the neighbour runs alone (0.98 of the CPU) and nobody waits. */
        s.in.crowd_milli = 980;
        sim_steps(&s, 15, 0, 0, 0);
        ck_assert_uint_eq(s.moves[CONTROL_BUSY_POLL], 1);
        ck_assert(s.st.yielding);
        ck_assert_msg(!s.st.mark_crowd, "marked while nobody waited");
        /* It ends: back after hold quiet samples. */
        s.in.crowd_milli = 0;
        left = s.step;
        sim_steps(&s, 2, 0, 0, 0);
        ck_assert_uint_eq(s.moves[CONTROL_BUSY_POLL], 2);
        ck_assert_uint_eq(s.at[CONTROL_BUSY_POLL][1], left + 1);
        ck_assert_int_eq(s.last[0].cause, CONTROL_CAUSE_UNCONTENDED);
        ck_assert(!s.st.yielding);

        /* A crowd using at most a tenth of a CPU is quiet; one sample above it starts the count over. */
        sim_crowd_yield(&s);
        for (unsigned i = 0; i < 15; i++) {
                s.in.crowd_milli = i % 2 ? 100 : 101;
                sim_step(&s, 0, 0, 0);
        }
        ck_assert_uint_eq(s.moves[CONTROL_BUSY_POLL], 1);
        s.in.crowd_milli = 100;
        sim_steps(&s, 2, 0, 0, 0);
        ck_assert_uint_eq(s.moves[CONTROL_BUSY_POLL], 2);

        /* Until a CPU-bound task is found, calm samples mark the crowd too; then only those with a queue. */
        sim_crowd_yield(&s);
        s.in.crowd_found = false;
        s.in.crowd_milli = 980;
        sim_step(&s, 0, 0, 0);
        ck_assert_msg(s.st.mark_crowd, "a calm sample does not look for the crowd before one is found");
        s.in.crowd_found = true;
        sim_step(&s, 0, 0, 0);
        ck_assert(!s.st.mark_crowd);
        sim_step(&s, 1000, 0, 0);
        ck_assert(s.st.mark_crowd);
        s.in.crowd_known = false;
        s.in.crowd_found = false;
        sim_step(&s, 0, 0, 0);
        ck_assert_msg(!s.st.mark_crowd, "marked a crowd nobody follows");

        /* An empty crowd (only servers waited) and an unknown one: the queue draining is enough. */
        for (int known = 0; known <= 1; known++) {
                sim_crowd_yield(&s);
                s.in.crowd_known = known;
                s.in.crowd_found = false;
                s.in.crowd_milli = known ? 0 : 980;
                sim_steps(&s, 5, 0, 0, 0);
                ck_assert_uint_eq(s.moves[CONTROL_BUSY_POLL], 2);
                ck_assert_uint_eq(s.at[CONTROL_BUSY_POLL][1], 6 + 5); /* the 500 ms dwell after the yield */
        }
}
END_TEST

START_TEST(test_control_crowd_that_stays_is_probed_with_growing_back_off) {
        Sim s;
        uint64_t expect_us = CONTROL_PROBE_FIRST_US;
        unsigned yield_at; /* the step the yield began (the knob may follow later, after the dwell) */

        sim_crowd_yield(&s);
        s.in.crowd_milli = 990;
        yield_at = s.at[CONTROL_BUSY_POLL][0];
        for (unsigned round = 0; round < 6; round++) {
                unsigned moves = s.moves[CONTROL_BUSY_POLL], back_at;

                while (s.moves[CONTROL_BUSY_POLL] == moves && s.step < 2000)
                        sim_step(&s, 0, 0, 0);
                back_at = s.at[CONTROL_BUSY_POLL][moves];
                ck_assert_int_eq(s.last[0].cause, CONTROL_CAUSE_PROBE);
                ck_assert_msg((back_at - yield_at) * INTERVAL_US == expect_us, "round %u: probe after %u steps",
                              round, back_at - yield_at);
                /* The neighbour waits again at once: the yield begins after hold samples, and the knob
                 * moves with it, without waiting for the dwell since the probe (the probe failed). */
                while (!s.st.yielding)
                        sim_step(&s, 1000, 0, 0);
                yield_at = s.step - 1;
                ck_assert_uint_eq(yield_at, back_at + 2);
                ck_assert_uint_eq(s.moves[CONTROL_BUSY_POLL], moves + 2);
                ck_assert_uint_eq(s.at[CONTROL_BUSY_POLL][moves + 1], yield_at);
                ck_assert_int_eq(s.last[0].cause, CONTROL_CAUSE_CONTENTION);
                sim_steps(&s, 3, 1000, 0, 0);
                ck_assert_uint_eq(s.moves[CONTROL_BUSY_POLL], moves + 2);
                expect_us = MIN(expect_us * 2, CONTROL_PROBE_MAX_US);
        }
        ck_assert_uint_eq(expect_us, CONTROL_PROBE_MAX_US);

        /* A probe that holds for CONTROL_PROBE_FAILED_US: the next yield starts over at the first back-off. */
        while (s.st.yielding)
                sim_step(&s, 0, 0, 0);
        sim_steps(&s, (unsigned)(CONTROL_PROBE_FAILED_US / INTERVAL_US), 0, 0, 0);
        sim_steps(&s, 2, 1000, 0, 0);
        ck_assert(s.st.yielding);
        yield_at = s.step - 1;
        while (s.st.yielding)
                sim_step(&s, 0, 0, 0);
        ck_assert_uint_eq((s.step - 1 - yield_at) * INTERVAL_US, CONTROL_PROBE_FIRST_US);

        /* Someone waiting holds the yield however long the back-off. */
        sim_crowd_yield(&s);
        sim_steps(&s, 40, 1000, 0, 0);
        ck_assert(s.st.yielding);
        ck_assert(s.st.mark_crowd);
}
END_TEST

/*
 * A part of the crowd ended while a part still runs (a load generator beside
 * the app waits whenever a neighbour is there): a probe once the calm run is
 * hold samples long, looked at soon, not after the back-off. While its looks
 * last the caller keeps the crowd (trying); when they end without a yield,
 * probe_held. After a probe that failed, a part's end waits for the back-off.
 */
START_TEST(test_control_crowd_that_shrinks_is_probed_at_once) {
        unsigned moves, i;
        Sim s;

        sim_crowd_yield(&s);
        s.in.crowd_tasks = 2; /* the neighbour and the load generator: they wait for each other */
        s.in.crowd_milli = 990;
        sim_steps(&s, 5, 1000, 0, 0);
        ck_assert(s.st.yielding && !s.st.confirming);
        moves = s.moves[CONTROL_BUSY_POLL];

        s.in.crowd_tasks = 1; /* the neighbour exited */
        sim_step(&s, 0, 0, 0);
        ck_assert(s.st.yielding && s.st.confirming);
        ck_assert_uint_eq(control_next_step_us(&s.st, INTERVAL_US), INTERVAL_US / CONTROL_CONFIRM_DIVISOR);
        sim_step(&s, 0, 0, 0);
        ck_assert(!s.st.yielding);
        ck_assert_uint_eq(s.moves[CONTROL_BUSY_POLL], moves + 1);
        ck_assert_int_eq(s.last[0].cause, CONTROL_CAUSE_PROBE);
        ck_assert_msg(strstr(s.last[0].reason, "a part of the tasks it yielded to ended (1 of 2 still run)"), "%s",
                      s.last[0].reason);
        for (i = 1; s.st.trying && i < 100; i++) {
                ck_assert(!s.st.probe_held && s.st.confirming);
                sim_step(&s, 0, 0, 0);
        }
        ck_assert_uint_eq(i, 2 * CONTROL_CONFIRM_DIVISOR);
        ck_assert(s.st.probe_held && !s.st.trying);
        sim_step(&s, 0, 0, 0);
        ck_assert(!s.st.probe_held);

        /* A yield within CONTROL_PROBE_FAILED_US of that probe: a part's end now waits for the back-off. */
        s.in.crowd_found = false;
        s.in.crowd_tasks = 0;
        sim_steps(&s, 2, 1000, 0, 0);
        ck_assert(s.st.yielding);
        ck_assert_uint_eq(s.st.failed_probes, 1);
        s.in.crowd_found = true;
        s.in.crowd_tasks = 2;
        sim_steps(&s, 3, 1000, 0, 0);
        s.in.crowd_tasks = 1;
        sim_steps(&s, 10, 0, 0, 0);
        ck_assert(s.st.yielding);

        /* A probe that fails within its looks: no probe_held, and the caller no longer keeps the crowd. */
        sim_until_probe(&s);
        ck_assert(s.st.trying);
        sim_steps(&s, 2, 1000, 0, 0);
        ck_assert(s.st.yielding && !s.st.trying && !s.st.probe_held);
        for (i = 0; i < 3 * CONTROL_CONFIRM_DIVISOR; i++) {
                sim_step(&s, 1000, 0, 0);
                ck_assert(!s.st.probe_held);
        }
}
END_TEST

/* A probe is a try: the samples after it come a quarter interval apart for hold intervals' worth. */
START_TEST(test_control_probe_is_looked_at_soon) {
        Sim s;
        unsigned moves;

        sim_crowd_yield(&s);
        s.in.crowd_milli = 990;
        moves = s.moves[CONTROL_BUSY_POLL];
        while (s.moves[CONTROL_BUSY_POLL] == moves && s.step < 2000)
                sim_step(&s, 0, 0, 0);
        ck_assert_int_eq(s.last[0].cause, CONTROL_CAUSE_PROBE);
        for (unsigned i = 0; i < 2 * CONTROL_CONFIRM_DIVISOR; i++) {
                ck_assert_msg(control_next_step_us(&s.st, INTERVAL_US) == INTERVAL_US / CONTROL_CONFIRM_DIVISOR,
                              "look %u after the probe is not a short one", i);
                sim_step(&s, 0, 0, 0);
        }
        ck_assert_uint_eq(control_next_step_us(&s.st, INTERVAL_US), INTERVAL_US);
        ck_assert(!s.st.yielding);

        /* Tasks wait again right after the next probe: the yield at hold samples ends the short looks. */
        s.in.crowd_milli = 990;
        sim_steps(&s, 2, 1000, 0, 0);
        ck_assert(s.st.yielding);
        sim_until_probe(&s);
        sim_steps(&s, 2, 1000, 0, 0);
        ck_assert(s.st.yielding);
        ck_assert_int_eq(s.last[0].cause, CONTROL_CAUSE_CONTENTION);
        ck_assert(!s.st.confirming); /* moved at once: nothing held */

        /* A yield after a probe whose writes fail: tried at once, again only after the dwell (5 samples). */
        sim_until_probe(&s);
        moves = s.moves[CONTROL_BUSY_POLL];
        s.apply = false;
        sim_steps(&s, 2, 1000, 0, 0);
        ck_assert_uint_eq(s.moves[CONTROL_BUSY_POLL], moves + 1);
        sim_steps(&s, 4, 1000, 0, 0);
        ck_assert_uint_eq(s.moves[CONTROL_BUSY_POLL], moves + 1);
        sim_step(&s, 1000, 0, 0);
        ck_assert_uint_eq(s.moves[CONTROL_BUSY_POLL], moves + 2);
}
END_TEST

/*
 * min-dwell damps busy polling's flapping against the app's own threads,
 * which never join the crowd: a yield to them waits for it. Once a CPU-bound
 * task joins the crowd of a yield the dwell holds back, the yield moves at
 * once, and the samples until then are short ones. A failed write of that
 * move is retried after the dwell.
 */
START_TEST(test_control_yield_for_a_cpu_bound_neighbour_skips_the_dwell) {
        for (int found = 0; found <= 1; found++) {
                unsigned back_at, i;
                Sim s;

                /* A yield to the app's own threads (nothing CPU-bound found), back once they are calm. */
                sim_latency(&s);
                s.in.crowd_known = true;
                sim_steps(&s, 5, 0, 0, 0);
                sim_steps(&s, 2, 1000, 0, 0);
                ck_assert_uint_eq(s.moves[CONTROL_BUSY_POLL], 1);
                while (s.moves[CONTROL_BUSY_POLL] == 1 && s.step < 100)
                        sim_step(&s, 0, 0, 0);
                ck_assert_int_eq(s.last[0].cause, CONTROL_CAUSE_UNCONTENDED);
                back_at = s.step - 1;

                /* A neighbour at once: the yield begins after hold samples, within the dwell. */
                sim_steps(&s, 2, 1000, 0, 0);
                ck_assert(s.st.yielding && s.st.mark_crowd);
                ck_assert_uint_eq(s.moves[CONTROL_BUSY_POLL], 2);
                ck_assert_msg(s.st.confirming, "a yield the dwell holds is not looked at soon");
                /* The mark after that sample found the neighbour (running), or nothing CPU-bound. */
                s.in.crowd_found = found;
                s.in.crowd_tasks = found;
                s.in.crowd_milli = found ? 900 : 0;
                for (i = 0; s.moves[CONTROL_BUSY_POLL] == 2 && i < 10; i++) {
                        if (i > 0)
                                ck_assert(s.st.confirming);
                        sim_step(&s, 1000, 0, 0);
                }
                ck_assert_int_eq(s.last[0].cause, CONTROL_CAUSE_CONTENTION);
                ck_assert_uint_eq(s.at[CONTROL_BUSY_POLL][2], found ? back_at + 3 : back_at + 5);
                ck_assert_uint_eq(s.at[CONTROL_BUSY_READ][2], s.at[CONTROL_BUSY_POLL][2]);
                sim_step(&s, 1000, 0, 0);
                ck_assert(!s.st.confirming); /* yielded: back to the interval */
        }

        /* Found, but the write fails: tried at once, again only after the dwell. */
        {
                Sim s;

                sim_latency(&s);
                s.in.crowd_known = true;
                sim_steps(&s, 5, 0, 0, 0);
                sim_steps(&s, 2, 1000, 0, 0);
                while (s.moves[CONTROL_BUSY_POLL] == 1 && s.step < 100)
                        sim_step(&s, 0, 0, 0);
                sim_steps(&s, 2, 1000, 0, 0);
                s.in.crowd_found = true;
                s.apply = false;
                sim_step(&s, 1000, 0, 0);
                ck_assert_uint_eq(s.moves[CONTROL_BUSY_POLL], 3);
                sim_steps(&s, 4, 1000, 0, 0);
                ck_assert_uint_eq(s.moves[CONTROL_BUSY_POLL], 3);
                sim_step(&s, 1000, 0, 0);
                ck_assert_uint_eq(s.moves[CONTROL_BUSY_POLL], 4);
        }
}
END_TEST

/*
 * The return that the crowd's end brought (every task of a found crowd
 * exited) does not wait for min-dwell; one whose crowd merely went quiet (a
 * neighbour that sleeps) does, and so does a failed write of that return.
 */
/* A yield to one running neighbour, which then exits (or sleeps); returns the step of the yield. */
static unsigned sim_neighbour_leaves(Sim *s, bool exited) {
        unsigned yield_at;

        sim_crowd_yield(s);
        yield_at = s->at[CONTROL_BUSY_POLL][0];
        s->in.crowd_tasks = 1;
        s->in.crowd_milli = 900;
        sim_step(s, 1000, 0, 0);
        s->in.crowd_tasks = exited ? 0 : 1;
        s->in.crowd_milli = 0;
        return yield_at;
}

START_TEST(test_control_return_after_the_crowd_ended_skips_the_dwell) {
        for (int exited = 0; exited <= 1; exited++) {
                Sim s;
                unsigned yield_at = sim_neighbour_leaves(&s, exited);

                while (s.moves[CONTROL_BUSY_POLL] == 1 && s.step < 100)
                        sim_step(&s, 0, 0, 0);
                ck_assert_int_eq(s.last[0].cause, CONTROL_CAUSE_UNCONTENDED);
                ck_assert_uint_eq(s.at[CONTROL_BUSY_POLL][1], exited ? yield_at + 3 : yield_at + 5);
                ck_assert_uint_eq(s.at[CONTROL_BUSY_READ][1], s.at[CONTROL_BUSY_POLL][1]);
        }

        /* The write of that return fails: tried at once, again after the dwell. */
        {
                Sim s;
                unsigned yield_at = sim_neighbour_leaves(&s, true);

                s.apply = false;
                sim_steps(&s, 2, 0, 0, 0);
                ck_assert_uint_eq(s.moves[CONTROL_BUSY_POLL], 2);
                ck_assert_uint_eq(s.at[CONTROL_BUSY_POLL][1], yield_at + 3);
                s.in.crowd_found = false; /* the caller forgets the crowd once busy polling came back */
                sim_steps(&s, 4, 0, 0, 0);
                ck_assert_uint_eq(s.moves[CONTROL_BUSY_POLL], 2);
                sim_step(&s, 0, 0, 0);
                ck_assert_uint_eq(s.moves[CONTROL_BUSY_POLL], 3);
        }
}
END_TEST

/* ---- busy polling pays ---- */

static void sim_pay(Sim *s) {
        sim_latency(s);
        s->cfg.pay_window_us = 1000000;
        s->in.busy_poll_rx_known = true;
}

START_TEST(test_control_polling_without_packets_for_a_window_stops) {
        Sim s;

        sim_pay(&s);
        s.in.busy_poll_rx_packets = 3;
        sim_steps(&s, 20, 0, 0, 0);
        ck_assert_uint_eq(s.moves[CONTROL_BUSY_POLL], 0); /* it pays */

        s.in.busy_poll_rx_packets = 0;
        sim_steps(&s, 9, 0, 0, 0); /* 0.9 s without a packet: still within the window */
        ck_assert_uint_eq(s.moves[CONTROL_BUSY_POLL], 0);
        ck_assert_int_eq(sim_step(&s, 0, 0, 0), 2); /* 1 s since the last packet */
        ck_assert(s.st.unpaid);
        ck_assert_int_eq(s.last[0].cause, CONTROL_CAUSE_UNPAID);
        ck_assert_uint_eq(s.last[1].value, 0);
        ck_assert_str_eq(s.last[0].reason, "busy polling delivered no packet in 1s: stopped for 1s");
}
END_TEST

START_TEST(test_control_unpaid_polling_retries_with_growing_back_off) {
        /* Windows at the floor before each retry: 1, 2, 4, 8, 8 (s); each retry polls one window again. */
        static const unsigned off_s[] = { 1, 2, 4, 8, 8 };
        Sim s;
        unsigned at;

        sim_pay(&s);
        sim_steps(&s, 11, 0, 0, 0); /* the window starts at the first step */
        ck_assert_uint_eq(s.moves[CONTROL_BUSY_POLL], 1);
        for (unsigned i = 0; i < ELEMENTSOF(off_s); i++) {
                at = s.at[CONTROL_BUSY_POLL][2 * i];
                while (s.moves[CONTROL_BUSY_POLL] == 2 * i + 1)
                        sim_step(&s, 0, 0, 0);
                ck_assert_uint_eq(s.at[CONTROL_BUSY_POLL][2 * i + 1] - at, off_s[i] * 10);
                ck_assert_uint_eq(s.values[CONTROL_BUSY_POLL][2 * i + 1], 50);
                ck_assert_int_eq(s.last[0].cause, CONTROL_CAUSE_RETRY);
                at = s.at[CONTROL_BUSY_POLL][2 * i + 1];
                while (s.moves[CONTROL_BUSY_POLL] == 2 * i + 2)
                        sim_step(&s, 0, 0, 0);
                ck_assert_uint_eq(s.at[CONTROL_BUSY_POLL][2 * i + 2] - at, 10); /* one window polling again */
                ck_assert_int_eq(s.last[0].cause, CONTROL_CAUSE_UNPAID);
        }

        /* A retry that delivers: polling stays, and the back-off starts over at one window. */
        while (s.st.unpaid)
                sim_step(&s, 0, 0, 0);
        s.in.busy_poll_rx_packets = 1;
        sim_steps(&s, 30, 0, 0, 0);
        ck_assert_uint_eq(s.in.knobs[CONTROL_BUSY_POLL].current, 50);
        ck_assert_uint_eq(s.st.strikes, 0);
        s.in.busy_poll_rx_packets = 0;
        at = s.step;
        while (!s.st.unpaid)
                sim_step(&s, 0, 0, 0);
        ck_assert_uint_eq(s.step - at, 10);
        while (s.st.unpaid)
                sim_step(&s, 0, 0, 0);
        ck_assert_uint_eq(s.step - at, 20);
}
END_TEST

START_TEST(test_control_yielding_time_is_not_unpaid) {
        Sim s;

        sim_pay(&s);
        s.in.busy_poll_rx_packets = 5;
        sim_steps(&s, 2, 2000, 0, 0); /* yield: polling is off from here */
        ck_assert_uint_eq(s.in.knobs[CONTROL_BUSY_POLL].current, 0);
        s.in.busy_poll_rx_packets = 0; /* nothing can be delivered while it yields */
        sim_steps(&s, 30, 2000, 0, 0);
        ck_assert(!s.st.unpaid);
        sim_steps(&s, 2, 0, 0, 0); /* the queue drained: back, and the window starts now */
        ck_assert_uint_eq(s.in.knobs[CONTROL_BUSY_POLL].current, 50);
        ck_assert_int_eq(s.last[0].cause, CONTROL_CAUSE_UNCONTENDED);
        sim_steps(&s, 9, 0, 0, 0);
        ck_assert(!s.st.unpaid);
        sim_steps(&s, 1, 0, 0, 0);
        ck_assert(s.st.unpaid);
}
END_TEST

START_TEST(test_control_pay_rule_off_without_window_or_counter) {
        Sim s;

        sim_latency(&s); /* pay_window 0 */
        s.in.busy_poll_rx_known = true;
        sim_steps(&s, 100, 0, 0, 0);
        ck_assert_uint_eq(s.moves[CONTROL_BUSY_POLL], 0);

        sim_pay(&s);
        s.in.busy_poll_rx_known = false; /* no netstat: nothing to judge by */
        sim_steps(&s, 100, 0, 0, 0);
        ck_assert_uint_eq(s.moves[CONTROL_BUSY_POLL], 0);
        ck_assert(!s.st.unpaid);
}
END_TEST

/* ---- budget ---- */

START_TEST(test_control_squeeze_burst_raises_to_cap_and_decays_to_home) {
        static const uint64_t budget_up[] = { 375, 450, 525, 600 }, budget_down[] = { 525, 450, 375, 300 };
        static const uint64_t time_up[] = { 10000, 12000, 14000 }, time_down[] = { 12000, 10000, 8000 };
        Sim s;

        sim_init(&s);
        sim_steps(&s, 3, 0, 500, 0);
        ck_assert(s.st.squeezing);
        ck_assert_int_eq(s.n_last, 2);
        ck_assert_int_eq(s.last[0].knob, CONTROL_NETDEV_BUDGET);
        ck_assert_str_eq(s.last[0].reason, "time_squeeze 500/s > 100/s for 3 samples: +75 (cap 600)");
        ck_assert_int_eq(s.last[0].cause, CONTROL_CAUSE_SQUEEZE);
        ck_assert_int_eq(s.last[1].knob, CONTROL_NETDEV_BUDGET_TIME);

        sim_steps(&s, 57, 0, 500, 0); /* squeezing through step 59 */
        ck_assert_uint_eq(s.moves[CONTROL_NETDEV_BUDGET], ELEMENTSOF(budget_up));
        ck_assert_uint_eq(s.moves[CONTROL_NETDEV_BUDGET_TIME], ELEMENTSOF(time_up));
        for (size_t i = 0; i < ELEMENTSOF(budget_up); i++) {
                ck_assert_uint_eq(s.values[CONTROL_NETDEV_BUDGET][i], budget_up[i]);
                ck_assert_uint_eq(s.at[CONTROL_NETDEV_BUDGET][i], 2 + 10 * i); /* one step per dwell */
        }
        for (size_t i = 0; i < ELEMENTSOF(time_up); i++)
                ck_assert_uint_eq(s.values[CONTROL_NETDEV_BUDGET_TIME][i], time_up[i]);

        /* Quiet from step 60: nothing until 10 s after the last squeeze (step 159), then a step per dwell. */
        sim_steps(&s, 99, 0, 50, 0);
        ck_assert_uint_eq(s.moves[CONTROL_NETDEV_BUDGET], 4);
        ck_assert_int_eq(sim_step(&s, 0, 0, 0), 2);
        ck_assert_str_eq(s.last[0].reason, "no time_squeeze above 100/s for 10s: -75 toward 300");
        ck_assert_int_eq(s.last[0].cause, CONTROL_CAUSE_QUIET);
        sim_steps(&s, 200, 0, 0, 0);
        ck_assert_uint_eq(s.moves[CONTROL_NETDEV_BUDGET], 8);
        ck_assert_uint_eq(s.moves[CONTROL_NETDEV_BUDGET_TIME], 6);
        for (size_t i = 0; i < ELEMENTSOF(budget_down); i++) {
                ck_assert_uint_eq(s.values[CONTROL_NETDEV_BUDGET][4 + i], budget_down[i]);
                ck_assert_uint_eq(s.at[CONTROL_NETDEV_BUDGET][4 + i], 159 + 10 * i);
        }
        for (size_t i = 0; i < ELEMENTSOF(time_down); i++)
                ck_assert_uint_eq(s.values[CONTROL_NETDEV_BUDGET_TIME][3 + i], time_down[i]);
        ck_assert_uint_eq(s.in.knobs[CONTROL_NETDEV_BUDGET].current, 300);
}
END_TEST

START_TEST(test_control_budget_steps_clip_at_cap_and_home) {
        static const uint64_t expect[] = { 375, 450, 525, 600, 610, 535, 460, 385, 310, 300 };
        Sim s;

        sim_init(&s);
        s.cfg.netdev_budget_max = 610; /* not on the 75-packet grid */
        sim_steps(&s, 60, 0, 1000, 0);
        sim_steps(&s, 300, 0, 0, 0);
        ck_assert_uint_eq(s.moves[CONTROL_NETDEV_BUDGET], ELEMENTSOF(expect));
        for (size_t i = 0; i < ELEMENTSOF(expect); i++)
                ck_assert_uint_eq(s.values[CONTROL_NETDEV_BUDGET][i], expect[i]);
}
END_TEST

START_TEST(test_control_max_zero_never_raises) {
        Sim s;

        sim_init(&s);
        s.in.knobs[CONTROL_SOFTIRQ_BUDGET] = (ControlKnobInput){ true, true, 2000, 2000 };
        s.cfg.softirq_budget_max_us = 0;
        s.cfg.netdev_budget_time_max_us = 0;
        sim_steps(&s, 100, 0, 5000, 0);
        ck_assert_uint_eq(s.moves[CONTROL_SOFTIRQ_BUDGET], 0);
        ck_assert_uint_eq(s.moves[CONTROL_NETDEV_BUDGET_TIME], 0);
        ck_assert_uint_eq(s.moves[CONTROL_NETDEV_BUDGET], 4);

        /* The patched softirq budget with a cap is raised like the others. */
        sim_init(&s);
        s.in.knobs[CONTROL_SOFTIRQ_BUDGET] = (ControlKnobInput){ true, true, 2000, 2000 };
        s.cfg.softirq_budget_max_us = 3000;
        sim_steps(&s, 100, 0, 5000, 0);
        ck_assert_uint_eq(s.moves[CONTROL_SOFTIRQ_BUDGET], 2);
        ck_assert_uint_eq(s.in.knobs[CONTROL_SOFTIRQ_BUDGET].current, 3000);
}
END_TEST

/* ---- who may be moved ---- */

START_TEST(test_control_manual_and_unsupported_knobs_are_never_moved) {
        Sim s;

        sim_init(&s);
        s.in.knobs[CONTROL_BUSY_READ].movable = false; /* set by a person */
        s.in.knobs[CONTROL_NETDEV_BUDGET].movable = false;
        s.in.knobs[CONTROL_NETDEV_BUDGET_TIME].supported = false;
        for (unsigned i = 0; i < 300; i++)
                sim_step(&s, i < 150 ? 4000 : 0, i < 150 ? 900 : 0, 0); /* sim_step fails on any such decision */
        ck_assert_uint_eq(s.moves[CONTROL_BUSY_READ], 0);
        ck_assert_uint_eq(s.moves[CONTROL_NETDEV_BUDGET], 0);
        ck_assert_uint_eq(s.moves[CONTROL_NETDEV_BUDGET_TIME], 0);
        ck_assert_uint_eq(s.moves[CONTROL_BUSY_POLL], 2);
}
END_TEST

START_TEST(test_control_failed_write_is_retried_after_dwell) {
        Sim s;

        sim_init(&s);
        s.apply = false; /* every write fails: the knob keeps its value */
        sim_steps(&s, 25, 3000, 0, 0);
        ck_assert_uint_eq(s.moves[CONTROL_BUSY_READ], 3);
        ck_assert_uint_eq(s.at[CONTROL_BUSY_READ][1], 12);
        ck_assert_uint_eq(s.at[CONTROL_BUSY_READ][2], 22);
}
END_TEST

START_TEST(test_control_decision_that_does_not_fit_comes_next_step) {
        ControlDecision one[1];
        Sim s;

        sim_init(&s);
        sim_steps(&s, 2, 3000, 0, 0);
        s.in.now_us += INTERVAL_US;
        s.in.runnable_milli = 3000;
        ck_assert_int_eq(control_step(&s.st, &s.in, one, 1), 1);
        ck_assert_int_eq(one[0].knob, CONTROL_BUSY_READ);
        s.in.knobs[CONTROL_BUSY_READ].current = one[0].value;
        s.in.now_us += INTERVAL_US;
        ck_assert_int_eq(control_step(&s.st, &s.in, one, 1), 1);
        ck_assert_int_eq(one[0].knob, CONTROL_BUSY_POLL);
        ck_assert_int_eq(control_step(&s.st, &s.in, NULL, 0), 0);
}
END_TEST

/* ---- advice, disabled, bad input ---- */

START_TEST(test_control_drops_advise_backlog_once) {
        Sim s;

        sim_init(&s);
        ck_assert_int_eq(sim_step(&s, 0, 0, 5), 0);
        ck_assert_int_eq(sim_step(&s, 0, 0, 5), 0);
        ck_assert_int_eq(sim_step(&s, 0, 0, 5), 1);
        ck_assert_int_eq(s.last[0].kind, CONTROL_ADVICE);
        ck_assert_int_eq(s.last[0].knob, CONTROL_NETDEV_MAX_BACKLOG);
        ck_assert_uint_eq(s.last[0].value, 1000);
        ck_assert_str_eq(s.last[0].reason,
                         "backlog drops 5/s for 3 samples: netdev-max-backlog (1000) is the knob to raise");
        ck_assert(s.st.backlog_advised);
        sim_steps(&s, 100, 0, 0, 80);
        ck_assert_uint_eq(s.advices, 1);
        ck_assert_uint_eq(s.moves[CONTROL_NETDEV_MAX_BACKLOG], 0);
}
END_TEST

START_TEST(test_control_disabled_decides_nothing) {
        Sim s;

        sim_init(&s);
        s.cfg.enabled = false;
        sim_steps(&s, 100, 5000, 5000, 100);
        ck_assert_uint_eq(s.moves[CONTROL_BUSY_READ] + s.moves[CONTROL_NETDEV_BUDGET] + s.advices, 0);

        /* Enabled again (e.g. a pause ended with load building up): a full hold first. */
        sim_steps(&s, 2, 5000, 0, 0);
        s.cfg.enabled = true;
        ck_assert_int_eq(sim_step(&s, 5000, 0, 0), 0);
        ck_assert_int_eq(sim_step(&s, 5000, 0, 0), 0);
        ck_assert_int_eq(sim_step(&s, 5000, 0, 0), 2);
}
END_TEST

START_TEST(test_control_rejects_bad_input) {
        ControlDecision out[CONTROL_DECISIONS_MAX];
        Sim s;

        sim_init(&s);
        sim_steps(&s, 2, 3000, 0, 0);
        s.in.now_us -= 1; /* before the previous step */
        ck_assert_int_eq(control_step(&s.st, &s.in, out, ELEMENTSOF(out)), -EINVAL);
        ck_assert_uint_eq(s.st.load_high, 2);
        s.in.cfg = NULL;
        ck_assert_int_eq(control_step(&s.st, &s.in, out, ELEMENTSOF(out)), -EINVAL);
        s.in.cfg = &s.cfg;
        ck_assert_int_eq(control_step(&s.st, &s.in, NULL, 1), -EINVAL);
        ck_assert_ptr_null(control_knob_name(_CONTROL_KNOB_MAX));
        ck_assert_str_eq(control_knob_name(CONTROL_NETDEV_BUDGET_TIME), "netdev-budget-time");
}
END_TEST

/* ---- rest: fewer samples while no traffic arrives and nothing is pending ---- */

/* The latency profile after two quiet seconds: resting. */
static void sim_resting(Sim *s) {
        sim_latency(s);
        sim_steps(s, 20, 0, 0, 0);
        ck_assert(s->st.resting);
}

START_TEST(test_control_rests_after_a_second_without_traffic) {
        Sim s;

        sim_latency(&s);
        s.in.processed_per_sec = 5000;
        sim_steps(&s, 30, 0, 0, 0);
        ck_assert(!s.st.resting);
        ck_assert_uint_eq(control_next_step_us(&s.st, INTERVAL_US), INTERVAL_US);

        s.in.processed_per_sec = CONTROL_REST_PACKETS_PER_SEC - 1; /* heartbeats only */
        sim_steps(&s, 9, 0, 0, 0);                                   /* 0.9 s since the last traffic */
        ck_assert(!s.st.resting);
        sim_step(&s, 0, 0, 0); /* 1 s */
        ck_assert(s.st.resting);
        ck_assert_uint_eq(control_next_step_us(&s.st, INTERVAL_US), 5 * INTERVAL_US);
        /* Never more than CONTROL_REST_MAX_US apart, never less than one interval. */
        ck_assert_uint_eq(control_next_step_us(&s.st, 200000), CONTROL_REST_MAX_US);
        ck_assert_uint_eq(control_next_step_us(&s.st, 2000000), 2000000);
        ck_assert_uint_eq(s.moves[CONTROL_BUSY_POLL], 0); /* resting moves nothing */

        s.in.processed_per_sec = CONTROL_REST_PACKETS_PER_SEC; /* traffic is back */
        sim_step(&s, 0, 0, 0);
        ck_assert(!s.st.resting);
        ck_assert_uint_eq(control_next_step_us(&s.st, INTERVAL_US), INTERVAL_US);
}
END_TEST

START_TEST(test_control_waiting_ends_the_rest_and_yields_two_intervals_later) {
        Sim s;

        sim_resting(&s);
        /* Traffic and a waiting neighbour arrive together: the rest sample sees both. */
        s.in.processed_per_sec = 20000;
        sim_step(&s, 1000, 0, 0);
        ck_assert(!s.st.resting);
        ck_assert_uint_eq(s.moves[CONTROL_BUSY_POLL], 0);
        sim_step(&s, 1000, 0, 0); /* the next sample, one interval later: the second with someone waiting */
        ck_assert_uint_eq(s.moves[CONTROL_BUSY_POLL], 1);
        ck_assert_int_eq(s.last[0].cause, CONTROL_CAUSE_CONTENTION);

        /* Waiting alone, without traffic, also keeps the samples every interval. */
        sim_resting(&s);
        sim_step(&s, 1000, 0, 0);
        ck_assert(!s.st.resting);
}
END_TEST

START_TEST(test_control_no_rest_while_anything_is_pending) {
        Sim s;

        /* Yielding: the drain must be seen within a second. */
        sim_latency(&s);
        sim_steps(&s, 3, 1000, 0, 0);
        ck_assert(s.st.yielding);
        s.in.processed_per_sec = 0;
        for (unsigned i = 0; i < 3; i++) {
                sim_step(&s, 1000, 0, 0);
                ck_assert(!s.st.resting);
        }

        /* A budget above home steps back down on time. */
        sim_init(&s);
        sim_steps(&s, 5, 0, 1000, 0);
        ck_assert_uint_gt(s.in.knobs[CONTROL_NETDEV_BUDGET].current, 300);
        sim_steps(&s, 30, 0, 0, 0);
        ck_assert(!s.st.resting);

        /* Squeezes and drops are traffic even when few packets were counted. */
        sim_init(&s);
        sim_steps(&s, 20, 0, 0, 0);
        ck_assert(s.st.resting);
        sim_step(&s, 0, 1000, 0);
        ck_assert(!s.st.resting);
        sim_steps(&s, 2, 0, 1000, 0); /* hold samples: the budget goes up */
        ck_assert_uint_gt(s.in.knobs[CONTROL_NETDEV_BUDGET].current, 300);
        sim_steps(&s, 20, 0, 0, 0);
        ck_assert(!s.st.resting); /* the budget it raised is not home yet */

        sim_init(&s);
        sim_steps(&s, 20, 0, 0, 0);
        sim_step(&s, 0, 0, 5);
        ck_assert(!s.st.resting);

        /* A knob whose write failed is retried after the dwell, not a rest later. */
        sim_latency(&s);
        s.apply = false;
        sim_steps(&s, 2, 1000, 0, 0);
        ck_assert_uint_eq(s.moves[CONTROL_BUSY_POLL], 1);
        s.in.knobs[CONTROL_BUSY_POLL].current = 0; /* another path lowered it */
        sim_steps(&s, 30, 0, 0, 0);
        ck_assert(!s.st.resting || s.in.knobs[CONTROL_BUSY_POLL].current == 50);
}
END_TEST

START_TEST(test_control_unpaid_polling_may_rest) {
        Sim s;

        sim_pay(&s);
        s.in.busy_poll_rx_packets = 0;
        sim_steps(&s, 12, 0, 0, 0);
        ck_assert(s.st.unpaid);
        ck_assert_uint_eq(s.in.knobs[CONTROL_BUSY_POLL].current, 0);
        /* Each retry is a decision (not a rest); the back-off doubles until a second at the floor is quiet. */
        for (unsigned i = 0; i < 80 && !s.st.resting; i++)
                sim_step(&s, 0, 0, 0);
        ck_assert(s.st.resting); /* held at the floor for not paying is not pending */
        ck_assert(s.st.unpaid);
}
END_TEST

START_TEST(test_control_rests_with_traffic_when_waiting_wakes_it) {
        Sim s;

        /* Without the kernel's wake-up, traffic keeps every sample. */
        sim_latency(&s);
        s.in.processed_per_sec = 20000;
        sim_steps(&s, 30, 0, 0, 0);
        ck_assert(!s.st.resting);

        /* With it, a second of traffic and nothing pending is a rest: the wake-up stands in for the samples. */
        s.in.wait_wakes = true;
        sim_steps(&s, 9, 0, 0, 0);
        ck_assert(!s.st.resting);
        sim_step(&s, 0, 0, 0);
        ck_assert(s.st.resting);
        ck_assert_uint_eq(control_next_step_us(&s.st, INTERVAL_US), 5 * INTERVAL_US);

        /* Woken by a waiting task: that sample ends the rest, the next one yields. */
        sim_step(&s, 1000, 0, 0);
        ck_assert(!s.st.resting);
        ck_assert_uint_eq(s.moves[CONTROL_BUSY_POLL], 0);
        sim_step(&s, 1000, 0, 0);
        ck_assert_uint_eq(s.moves[CONTROL_BUSY_POLL], 1);
        ck_assert_int_eq(s.last[0].cause, CONTROL_CAUSE_CONTENTION);

        /* Squeezes still end it: they are pending, whatever wakes the caller. */
        sim_latency(&s);
        s.in.wait_wakes = true;
        s.in.processed_per_sec = 20000;
        sim_steps(&s, 20, 0, 0, 0);
        ck_assert(s.st.resting);
        sim_step(&s, 0, 1000, 0);
        ck_assert(!s.st.resting);
}
END_TEST

START_TEST(test_control_disabled_does_not_rest) {
        Sim s;

        sim_resting(&s);
        s.cfg.enabled = false;
        sim_step(&s, 0, 0, 0);
        ck_assert(!s.st.resting);
        ck_assert_uint_eq(control_next_step_us(&s.st, INTERVAL_US), INTERVAL_US);
}
END_TEST

static Suite *control_suite(void) {
        Suite *s = suite_create("control");
        TCase *tc;

        tc = tcase_create("yield");
        tcase_add_test(tc, test_control_confirms_a_change_quickly);
        tcase_add_test(tc, test_control_confirms_a_return_while_tasks_still_wait);
        tcase_add_test(tc, test_control_confirms_a_woken_sample);
        tcase_add_test(tc, test_control_may_yield_only_where_it_could);
        tcase_add_test(tc, test_control_reason_names_the_busiest_cpu);
        tcase_add_test(tc, test_control_step_load_yields_after_hold_and_returns_after_dwell);
        tcase_add_test(tc, test_control_spike_shorter_than_hold_moves_nothing);
        tcase_add_test(tc, test_control_load_flapping_at_threshold_is_held_by_hysteresis);
        tcase_add_test(tc, test_control_load_flapping_with_hold_1_moves_once_per_dwell);
        tcase_add_test(tc, test_control_patched_kernel_yields_by_itself);
        tcase_add_test(tc, test_control_floor_lowers_only_knobs_above_it);
        tcase_add_test(tc, test_control_latency_yields_at_second_interval_and_returns_within_a_second);
        tcase_add_test(tc, test_control_latency_single_waiting_sample_moves_nothing);
        tcase_add_test(tc, test_control_reasons_are_true_of_their_sample);
        tcase_add_test(tc, test_control_crowd_holds_the_yield_until_it_leaves);
        tcase_add_test(tc, test_control_crowd_that_stays_is_probed_with_growing_back_off);
        tcase_add_test(tc, test_control_probe_is_looked_at_soon);
        tcase_add_test(tc, test_control_crowd_that_shrinks_is_probed_at_once);
        tcase_add_test(tc, test_control_yield_for_a_cpu_bound_neighbour_skips_the_dwell);
        tcase_add_test(tc, test_control_return_after_the_crowd_ended_skips_the_dwell);
        tcase_add_test(tc, test_control_polling_without_packets_for_a_window_stops);
        tcase_add_test(tc, test_control_unpaid_polling_retries_with_growing_back_off);
        tcase_add_test(tc, test_control_yielding_time_is_not_unpaid);
        tcase_add_test(tc, test_control_pay_rule_off_without_window_or_counter);
        suite_add_tcase(s, tc);

        tc = tcase_create("rest");
        tcase_add_test(tc, test_control_rests_after_a_second_without_traffic);
        tcase_add_test(tc, test_control_waiting_ends_the_rest_and_yields_two_intervals_later);
        tcase_add_test(tc, test_control_no_rest_while_anything_is_pending);
        tcase_add_test(tc, test_control_unpaid_polling_may_rest);
        tcase_add_test(tc, test_control_rests_with_traffic_when_waiting_wakes_it);
        tcase_add_test(tc, test_control_disabled_does_not_rest);
        suite_add_tcase(s, tc);

        tc = tcase_create("budget");
        tcase_add_test(tc, test_control_squeeze_burst_raises_to_cap_and_decays_to_home);
        tcase_add_test(tc, test_control_budget_steps_clip_at_cap_and_home);
        tcase_add_test(tc, test_control_max_zero_never_raises);
        suite_add_tcase(s, tc);

        tc = tcase_create("ownership");
        tcase_add_test(tc, test_control_manual_and_unsupported_knobs_are_never_moved);
        tcase_add_test(tc, test_control_failed_write_is_retried_after_dwell);
        tcase_add_test(tc, test_control_decision_that_does_not_fit_comes_next_step);
        suite_add_tcase(s, tc);

        tc = tcase_create("advice_and_input");
        tcase_add_test(tc, test_control_drops_advise_backlog_once);
        tcase_add_test(tc, test_control_disabled_decides_nothing);
        tcase_add_test(tc, test_control_rejects_bad_input);
        suite_add_tcase(s, tc);

        return s;
}

TU_MAIN(control_suite)
