/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * control.c: the adaptive controller. Each step updates hysteresis counters
 * from the sample, derives a mode (yielding, squeezing), and then, knob by
 * knob, the value the knob should have now. A decision comes out only when
 * that target differs from the knob's current value and the knob may move
 * (supported, movable, dwell elapsed), so a failed or skipped write is simply
 * retried later and the controller never needs to know what the caller did.
 */
#include "control.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>

#include "knob.h"
#include "macro.h"

/* The catalog entry behind each controller knob: its name is the one the catalog gives it. */
static const KnobId catalog_ids[_CONTROL_KNOB_MAX] = {
        [CONTROL_BUSY_READ] = KNOB_ID_BUSY_READ,
        [CONTROL_BUSY_POLL] = KNOB_ID_BUSY_POLL,
        [CONTROL_BUSY_LOOP_THRESHOLD] = KNOB_ID_BUSY_LOOP_THRESHOLD,
        [CONTROL_NETDEV_BUDGET] = KNOB_ID_NETDEV_BUDGET,
        [CONTROL_NETDEV_BUDGET_TIME] = KNOB_ID_NETDEV_BUDGET_TIME,
        [CONTROL_SOFTIRQ_BUDGET] = KNOB_ID_SOFTIRQ_BUDGET,
        [CONTROL_NETDEV_MAX_BACKLOG] = KNOB_ID_NETDEV_MAX_BACKLOG,
};

const char *control_knob_name(ControlKnob k) {
        return (unsigned)k < _CONTROL_KNOB_MAX ? knob_catalog[catalog_ids[k]].name : NULL;
}

void control_state_init(ControlState *s) {
        *s = (ControlState){};
}

/* The decisions of one step being built. */
typedef struct Step {
        ControlState *s;
        const ControlInput *in;
        ControlDecision *out;
        size_t max, n;
} Step;

static unsigned inc(unsigned v) {
        return v < UINT32_MAX ? v + 1 : v;
}

static uint64_t add_sat(uint64_t a, uint64_t b) {
        return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* 1800 -> "1.8", 1000 -> "1.0", 1250 -> "1.25": how a person reads a task count. */
static const char *milli(char *buf, size_t size, uint64_t v) {
        char frac[4];
        int len;

        snprintf(frac, sizeof(frac), "%03u", (unsigned)(v % 1000));
        len = frac[2] != '0' ? 3 : frac[1] != '0' ? 2 : 1;
        snprintf(buf, size, "%" PRIu64 ".%.*s", v / 1000, len, frac);
        return buf;
}

const char *control_cause_to_string(ControlCause c) {
        static const char *const names[] = {
                [CONTROL_CAUSE_CONTENTION] = "contention",
                [CONTROL_CAUSE_UNCONTENDED] = "uncontended",
                [CONTROL_CAUSE_KERNEL_YIELDS] = "kernel-yields",
                [CONTROL_CAUSE_UNPAID] = "unpaid",
                [CONTROL_CAUSE_RETRY] = "retry",
                [CONTROL_CAUSE_PROBE] = "probe",
                [CONTROL_CAUSE_SQUEEZE] = "squeeze",
                [CONTROL_CAUSE_QUIET] = "quiet",
                [CONTROL_CAUSE_BACKLOG_DROPS] = "backlog-drops",
        };
        return (unsigned)c < ELEMENTSOF(names) ? names[c] : NULL;
}

/* Whether k may move now: supported, movable, and min-dwell after its last move unless dwell is false. */
static bool may_move(const ControlState *s, const ControlInput *in, ControlKnob k, bool dwell) {
        const ControlKnobInput *ki = &in->knobs[k];

        if (!ki->supported || !ki->movable)
                return false;
        return !dwell || !s->moved[k] || in->now_us - s->last_move_us[k] >= in->cfg->min_dwell_us;
}

/*
 * A move known to be about a neighbour does not wait for min-dwell; a
 * failed write of it is retried after the dwell. The return that the
 * crowd's end brought (every task of a found crowd exited, so the yield was
 * for CPU-bound work, not the app's own threads) comes at once: with the
 * dwell, a neighbour whose yield came soon after a return (below) held busy
 * polling down for the rest of it after it exited (237-367 ms after the
 * neighbour's end in the 3-repetition run of c4d7068). A yield's first move
 * of k comes at once when
 *  - a CPU-bound task joined its crowd (crowd_found): the dwell damps busy
 *    polling's flapping against the app's own threads (servers woken by
 *    their packets, never CPU-bound: taskwait.h), while a CPU-bound crowd
 *    holds the yield until it is quiet or a probe, so the neighbours' coming
 *    and going bounds the moves. With the dwell, a neighbour that came soon
 *    after a return waited for the rest of it (up to 500 ms in the latency
 *    profile);
 *  - or the yield begins soon after a probe (the probe failed: its crowd
 *    still runs and waits again), found or not yet: the back-off between
 *    probes bounds those moves.
 * (Waiving the dwell for every yield after a return was measured too: 8 of
 * 45 closed-loop phases then moved more than twice, 3 with it.)
 */
static bool dwell_waived(const ControlState *s, const ControlInput *in, ControlKnob k) {
        bool first, probe_failed;

        if (s->crowd_ended) /* set only in the step that ended the yield */
                return !s->unpaid;
        first = s->yielding && !s->kernel_yields && (!s->moved[k] || s->last_move_us[k] < s->yield_us);
        probe_failed = s->probe_us != 0 && in->now_us - s->probe_us < CONTROL_PROBE_FAILED_US && s->moved[k] &&
                       s->last_move_us[k] == s->probe_us;
        return first && (probe_failed || (in->crowd_known && in->crowd_found));
}

/*
 * Whether the dwell holds back a yield of busy-read or busy-poll whose crowd
 * is not found yet: the samples then come soon (see Confirmation), so that
 * the move follows within a short sample of the mark that finds it.
 */
static bool yield_held(const ControlState *s, const ControlInput *in) {
        if (!s->yielding || s->kernel_yields || !in->crowd_known || in->crowd_found)
                return false;
        for (ControlKnob k = CONTROL_BUSY_READ; k <= CONTROL_BUSY_POLL; k++)
                if (in->knobs[k].current > MIN(in->knobs[k].home, in->cfg->busy_poll_floor_us) &&
                    may_move(s, in, k, false) && !may_move(s, in, k, true))
                        return true;
        return false;
}

_printf_(6, 7) static void emit(Step *st, ControlKind kind, ControlKnob k, ControlCause cause, uint64_t value,
                                const char *fmt, ...) {
        ControlDecision *d;
        va_list ap;

        if (st->n >= st->max)
                return;
        d = &st->out[st->n++];
        *d = (ControlDecision){
                .kind = kind,
                .knob = k,
                .cause = cause,
                .old_value = st->in->knobs[k].current,
                .value = value,
        };
        va_start(ap, fmt);
        vsnprintf(d->reason, sizeof(d->reason), fmt, ap);
        va_end(ap);
        if (kind == CONTROL_SET) {
                st->s->moved[k] = true;
                st->s->last_move_us[k] = st->in->now_us;
        }
}

/* How long unpaid polling stays at the floor: one window, doubled per further strike, at most 8. */
static uint64_t unpaid_backoff_us(const ControlState *s, const AdaptiveConfig *cfg) {
        unsigned shift = s->strikes > 1 ? MIN(s->strikes - 1, 3u) : 0;
        return cfg->pay_window_us > UINT64_MAX >> shift ? UINT64_MAX : cfg->pay_window_us << shift;
}

/* How long a yield the crowd still holds lasts before a probe: doubled per failed probe, at most the max. */
static uint64_t probe_after_us(const ControlState *s) {
        uint64_t v = CONTROL_PROBE_FIRST_US;

        for (unsigned i = 0; i < s->failed_probes && v < CONTROL_PROBE_MAX_US; i++)
                v *= 2;
        return MIN(v, CONTROL_PROBE_MAX_US);
}

/*
 * Whether a part of the crowd ended in this yield while a part still runs,
 * and no probe failed just before it: then a probe need not wait for its
 * back-off. What still runs may be the application's own (a load generator
 * on its CPU waits whenever a neighbour is there, and so joins the crowd
 * with it), and if it runs beside busy polling through the probe it becomes
 * a companion (ControlState.probe_held). A neighbour of several tasks that
 * lost one fails that probe, and the next part's end waits for the back-off.
 */
static bool crowd_shrank(const ControlState *s, const ControlInput *in) {
        return s->yielding && in->crowd_known && in->crowd_found && in->crowd_tasks > 0 &&
               in->crowd_tasks < s->crowd_peak && s->failed_probes == 0;
}

/*
 * The yield's hysteresis. It begins after hold samples with someone waiting;
 * it ends after hold samples without, and once the crowd (the tasks it
 * yielded to) has been quiet for hold samples, or as a probe: after the
 * back-off, or once a part of the crowd ended (crowd_shrank()).
 */
static void update_yield(ControlState *s, const ControlInput *in, unsigned hold) {
        bool high = in->runnable_milli > in->cfg->runqueue_threshold_milli;

        if (high) {
                s->load_high = inc(s->load_high);
                s->load_low = 0;
        } else {
                s->load_low = inc(s->load_low);
                s->load_high = 0;
        }
        s->probing = s->probe_early = s->crowd_ended = false;
        s->crowd_milli = in->crowd_known ? in->crowd_milli : 0;
        if (!s->yielding) {
                if (s->load_high < hold)
                        return;
                s->yielding = true;
                s->yield_us = in->now_us;
                s->looks = hold * CONTROL_CONFIRM_DIVISOR;
                s->crowd_peak = 0;
                s->crowd_quiet = 0; /* the crowd is marked after this step: its use counts from the next */
                /* A yield soon after a probe: the probe failed, the next waits twice as long. */
                if (s->probe_us != 0 && in->now_us - s->probe_us < CONTROL_PROBE_FAILED_US)
                        s->failed_probes = inc(s->failed_probes);
                else
                        s->failed_probes = 0;
        } else {
                if (s->crowd_milli <= CONTROL_CROWD_QUIET_MILLI)
                        s->crowd_quiet = inc(s->crowd_quiet);
                else
                        s->crowd_quiet = 0;
                if (s->load_low >= hold && s->crowd_quiet >= hold) {
                        s->yielding = false;
                        s->looks = 0;
                        s->crowd_ended = in->crowd_known && in->crowd_found && in->crowd_tasks == 0;
                } else if (s->load_low >= hold &&
                           (in->now_us - s->yield_us >= probe_after_us(s) || crowd_shrank(s, in))) {
                        s->probe_early = in->now_us - s->yield_us < probe_after_us(s);
                        s->yielding = false;
                        s->probing = true;
                        s->probe_us = in->now_us;
                        s->looks = hold * CONTROL_CONFIRM_DIVISOR;
                }
                if (s->yielding && in->crowd_known && in->crowd_found)
                        s->crowd_peak = MAX(s->crowd_peak, in->crowd_tasks);
        }
        /*
         * Whoever waits while busy polling yields is who it yields to; nobody
         * once it has ended. Until a CPU-bound task is found among them (a
         * neighbour started just now has hardly run, and once busy polling
         * stops it runs alone, so the samples with a queue are few), calm
         * samples mark too: a task that waited at all is one it yields to.
         */
        s->mark_crowd = s->yielding && (high || (in->crowd_known && !in->crowd_found));
}

/*
 * A change of busy polling's mode began: confirm it soon (control_next_step_us()).
 * A return needs both runs, the calm and the crowd's quiet, so while the
 * crowd still runs nothing is pending; it begins with the first sample that
 * has both. Once the crowd ended (every task of it exited, not one that
 * merely sleeps: a bursty neighbour's idle slice is no end), tasks still
 * waiting (a burst as it ends) are looked at again soon rather than an
 * interval later, for at most hold intervals' worth of short samples (then
 * the waiting is steady, and a yield of its own). A probe is looked at the
 * same way for hold intervals' worth of short samples (ControlState.looks):
 * its crowd still runs; the step where they end without a yield says so
 * (probe_held). So is a yield's start while min-dwell holds its move back
 * and its crowd is not found yet (yield_held()). Once a part of the crowd
 * ended (crowd_shrank()), the calm run alone begins the probe.
 */
static void update_confirming(ControlState *s, const ControlInput *in, unsigned hold) {
        bool ended = in->crowd_known && in->crowd_found && in->crowd_tasks == 0;
        unsigned begun = ended ? s->crowd_quiet : crowd_shrank(s, in) ? s->load_low : MIN(s->load_low, s->crowd_quiet);
        bool look = s->looks > 0;

        if (look)
                s->looks--;
        /* Not yielding, the looks are a probe's (a return without one ends them). */
        s->trying = !s->yielding && s->looks > 0;
        s->probe_held = !s->yielding && look && s->looks == 0;
        s->confirming = s->yielding ? (begun > 0 && begun <= hold * CONTROL_CONFIRM_DIVISOR &&
                                       (s->load_low < hold || s->crowd_quiet < hold)) ||
                                              (look && yield_held(s, in))
                                    : (s->load_high > 0 && s->load_high < hold) || (in->woken && s->may_yield) ||
                                              look;
}

/* Whether busy-read or busy-poll is above the floor, and the controller may move it. */
static bool polling_movable(const ControlInput *in) {
        for (ControlKnob k = CONTROL_BUSY_READ; k <= CONTROL_BUSY_POLL; k++) {
                const ControlKnobInput *ki = &in->knobs[k];
                if (ki->supported && ki->movable && ki->current > in->cfg->busy_poll_floor_us)
                        return true;
        }
        return false;
}

/*
 * Whether polling pays. "Polling" means busy-read or busy-poll is above the
 * floor now; while neither is, nothing can be delivered and the window
 * restarts, so time spent yielding to waiting tasks never counts as unpaid.
 */
static void update_pay(ControlState *s, const ControlInput *in) {
        const AdaptiveConfig *cfg = in->cfg;
        const ControlKnobInput *br = &in->knobs[CONTROL_BUSY_READ], *bp = &in->knobs[CONTROL_BUSY_POLL];
        bool polling = (br->supported && br->current > cfg->busy_poll_floor_us) ||
                       (bp->supported && bp->current > cfg->busy_poll_floor_us);

        s->retrying = false;
        if (cfg->pay_window_us == 0 || !in->busy_poll_rx_known) {
                s->unpaid = false;
                s->strikes = 0;
                s->paid_us = in->now_us;
                return;
        }
        if (in->busy_poll_rx_packets > 0)
                s->strikes = 0;
        if (s->unpaid) {
                if (in->now_us - s->unpaid_us >= unpaid_backoff_us(s, cfg)) {
                        s->unpaid = false;
                        s->retrying = true;
                        s->paid_us = in->now_us;
                }
                return;
        }
        if (!polling || in->busy_poll_rx_packets > 0)
                s->paid_us = in->now_us;
        else if (in->now_us - s->paid_us >= cfg->pay_window_us) {
                s->unpaid = true;
                s->unpaid_us = in->now_us;
                s->strikes = inc(s->strikes);
        }
}

/* "1.4 on CPU 1": the busiest watched CPU's depth and where it is; the depth alone when system-wide. */
static const char *runnable_text(char *buf, size_t size, const ControlInput *in) {
        char v[32];

        milli(v, sizeof(v), in->runnable_milli);
        if (in->runnable_per_cpu)
                snprintf(buf, size, "%s on CPU %u", v, in->runnable_cpu);
        else
                snprintf(buf, size, "%s", v);
        return buf;
}

static void step_yield(Step *st, ControlKnob k) {
        const ControlKnobInput *ki = &st->in->knobs[k];
        const AdaptiveConfig *cfg = st->in->cfg;
        char now[64], thr[32], win[32], off[32];
        uint64_t target;
        bool contended = st->s->yielding && !st->s->kernel_yields;

        target = contended || st->s->unpaid ? MIN(ki->home, cfg->busy_poll_floor_us) : ki->home;
        if (target == ki->current || !may_move(st->s, st->in, k, !dwell_waived(st->s, st->in, k)))
                return;
        runnable_text(now, sizeof(now), st->in);
        milli(thr, sizeof(thr), cfg->runqueue_threshold_milli);
        policy_format_usec(win, sizeof(win), cfg->pay_window_us);
        if (contended && st->s->load_high > 0)
                emit(st, CONTROL_SET, k, CONTROL_CAUSE_CONTENTION, target,
                     "runnable %s > %s for %u samples: busy polling yields to the waiting tasks", now, thr,
                     st->s->load_high);
        else if (contended) /* the move waited for min-dwell, and this sample is calm */
                emit(st, CONTROL_SET, k, CONTROL_CAUSE_CONTENTION, target,
                     "busy polling yields to the tasks that waited %s ago (runnable now %s)",
                     policy_format_usec(win, sizeof(win), st->in->now_us - st->s->yield_us), now);
        else if (st->s->unpaid)
                emit(st, CONTROL_SET, k, CONTROL_CAUSE_UNPAID, target,
                     "busy polling delivered no packet in %s: stopped for %s", win,
                     policy_format_usec(off, sizeof(off), unpaid_backoff_us(st->s, cfg)));
        else if (st->s->yielding)
                emit(st, CONTROL_SET, k, CONTROL_CAUSE_KERNEL_YIELDS, target,
                     "%s is on: the kernel yields by itself, busy polling restored",
                     control_knob_name(CONTROL_BUSY_LOOP_THRESHOLD));
        else if (st->s->retrying)
                emit(st, CONTROL_SET, k, CONTROL_CAUSE_RETRY, target,
                     "busy polling stopped for %s without packets: trying it again",
                     policy_format_usec(off, sizeof(off), unpaid_backoff_us(st->s, cfg)));
        else if (st->s->probing && st->s->probe_early)
                emit(st, CONTROL_SET, k, CONTROL_CAUSE_PROBE, target,
                     "runnable %s <= %s, a part of the tasks it yielded to ended (%zu of %zu still run): trying "
                     "busy polling again",
                     now, thr, st->in->crowd_tasks, st->s->crowd_peak);
        else if (st->s->probing)
                emit(st, CONTROL_SET, k, CONTROL_CAUSE_PROBE, target,
                     "runnable %s <= %s, the tasks it yielded to still use %s CPU after %s: trying busy polling again",
                     now, thr, milli(off, sizeof(off), st->s->crowd_milli),
                     policy_format_usec(win, sizeof(win), st->in->now_us - st->s->yield_us));
        else if (st->s->load_low >= MAX(cfg->hold, 1u))
                /* Not before hold calm samples, also when the controller started afresh with polling low. */
                emit(st, CONTROL_SET, k, CONTROL_CAUSE_UNCONTENDED, target,
                     "runnable %s <= %s for %u samples: busy polling restored", now, thr, st->s->load_low);
}

static void step_budget(Step *st, ControlKnob k, uint64_t cap) {
        const ControlKnobInput *ki = &st->in->knobs[k];
        const AdaptiveConfig *cfg = st->in->cfg;
        uint64_t step, next;
        char quiet[32];

        if (!may_move(st->s, st->in, k, true))
                return;
        step = ki->home * cfg->budget_step_percent / 100;
        if (step == 0 && cfg->budget_step_percent > 0)
                step = 1;

        if (st->s->squeezing) {
                if (cap == 0) /* the profile does not let this knob grow */
                        return;
                next = MIN(add_sat(MAX(ki->current, ki->home), step), cap);
                if (next > ki->current)
                        emit(st, CONTROL_SET, k, CONTROL_CAUSE_SQUEEZE, next,
                             "time_squeeze %" PRIu64 "/s > %" PRIu64 "/s for %u samples: +%" PRIu64
                             " (cap %" PRIu64 ")",
                             st->in->squeeze_per_sec, cfg->squeeze_threshold, st->s->squeeze_high,
                             next - ki->current, cap);
                return;
        }
        if (ki->current <= ki->home || st->in->now_us - st->s->last_squeeze_us < cfg->quiet_period_us)
                return;
        next = ki->current - ki->home > step ? ki->current - step : ki->home;
        emit(st, CONTROL_SET, k, CONTROL_CAUSE_QUIET, next,
             "no time_squeeze above %" PRIu64 "/s for %s: -%" PRIu64 " toward %" PRIu64, cfg->squeeze_threshold,
             policy_format_usec(quiet, sizeof(quiet), cfg->quiet_period_us), ki->current - next, ki->home);
}

static void step_backlog(Step *st) {
        const ControlKnobInput *ki = &st->in->knobs[CONTROL_NETDEV_MAX_BACKLOG];
        const char *name = control_knob_name(CONTROL_NETDEV_MAX_BACKLOG);
        size_t before = st->n;

        if (st->s->backlog_advised || st->s->drops_high < MAX(st->in->cfg->hold, 1u))
                return;
        if (ki->supported)
                emit(st, CONTROL_ADVICE, CONTROL_NETDEV_MAX_BACKLOG, CONTROL_CAUSE_BACKLOG_DROPS, ki->current,
                     "backlog drops %" PRIu64 "/s for %u samples: %s (%" PRIu64 ") is the knob to raise",
                     st->in->drops_per_sec, st->s->drops_high, name, ki->current);
        else
                emit(st, CONTROL_ADVICE, CONTROL_NETDEV_MAX_BACKLOG, CONTROL_CAUSE_BACKLOG_DROPS, ki->current,
                     "backlog drops %" PRIu64 "/s for %u samples: %s is the knob to raise",
                     st->in->drops_per_sec, st->s->drops_high, name);
        st->s->backlog_advised = st->n > before;
}

/* Whether a knob the controller moves is away from home for a reason other than unpaid polling. */
static bool knob_away(const ControlState *s, const ControlInput *in, ControlKnob k) {
        const ControlKnobInput *ki = &in->knobs[k];

        if (!ki->supported || !ki->movable || ki->current == ki->home)
                return false;
        return !(s->unpaid && (k == CONTROL_BUSY_READ || k == CONTROL_BUSY_POLL));
}

/* See "Rest" in control.h. */
static void update_rest(Step *st) {
        ControlState *s = st->s;
        const ControlInput *in = st->in;
        bool quiet = (in->wait_wakes || in->processed_per_sec < CONTROL_REST_PACKETS_PER_SEC) && st->n == 0 &&
                     !s->yielding && s->load_high == 0 && s->squeeze_high == 0 && s->drops_high == 0;

        for (size_t k = 0; quiet && k < _CONTROL_KNOB_MAX; k++)
                if (k != CONTROL_BUSY_LOOP_THRESHOLD && k != CONTROL_NETDEV_MAX_BACKLOG)
                        quiet = !knob_away(s, in, (ControlKnob)k);
        if (!quiet)
                s->busy_us = in->now_us;
        s->resting = quiet && in->now_us - s->busy_us >= CONTROL_REST_AFTER_US;
}

uint64_t control_next_step_us(const ControlState *state, uint64_t interval_us) {
        if (state->confirming)
                return MIN(interval_us, MAX(interval_us / CONTROL_CONFIRM_DIVISOR, CONTROL_CONFIRM_MIN_US));
        if (!state->resting || interval_us >= CONTROL_REST_MAX_US)
                return interval_us;
        return MIN(interval_us * CONTROL_REST_INTERVALS, CONTROL_REST_MAX_US);
}

int control_step(ControlState *state, const ControlInput *in, ControlDecision *out, size_t max) {
        const AdaptiveConfig *cfg;
        const ControlKnobInput *blt;
        Step st;
        unsigned hold;

        if (!state || !in || !in->cfg || (!out && max > 0))
                return -EINVAL;
        if (state->started && in->now_us < state->last_step_us)
                return -EINVAL;
        cfg = in->cfg;

        if (!cfg->enabled) {
                /* Counters from before a pause must not trigger a move the moment adaptation resumes. */
                bool advised = state->backlog_advised;
                control_state_init(state);
                state->backlog_advised = advised;
                return 0;
        }

        hold = MAX(cfg->hold, 1u);
        if (!state->started) {
                state->started = true;
                state->last_squeeze_us = in->now_us;
                state->paid_us = in->now_us;
                state->busy_us = in->now_us;
        }
        state->last_step_us = in->now_us;

        /* Hysteresis: a mode changes only after hold agreeing samples, so one noisy sample moves nothing. */
        update_yield(state, in, hold);
        blt = &in->knobs[CONTROL_BUSY_LOOP_THRESHOLD];
        state->kernel_yields = blt->supported && blt->home > 0;
        state->may_yield = !state->yielding && !state->kernel_yields && polling_movable(in);
        update_confirming(state, in, hold);

        if (in->squeeze_per_sec > cfg->squeeze_threshold) {
                state->squeeze_high = inc(state->squeeze_high);
                state->last_squeeze_us = in->now_us;
        } else
                state->squeeze_high = 0;
        state->squeezing = state->squeeze_high >= hold;

        state->drops_high = in->drops_per_sec > 0 ? inc(state->drops_high) : 0;

        update_pay(state, in);

        st = (Step){ .s = state, .in = in, .out = out, .max = max };
        step_yield(&st, CONTROL_BUSY_READ);
        step_yield(&st, CONTROL_BUSY_POLL);
        step_budget(&st, CONTROL_NETDEV_BUDGET, cfg->netdev_budget_max);
        step_budget(&st, CONTROL_NETDEV_BUDGET_TIME, cfg->netdev_budget_time_max_us);
        step_budget(&st, CONTROL_SOFTIRQ_BUDGET, cfg->softirq_budget_max_us);
        step_backlog(&st);
        update_rest(&st);
        return (int)st.n;
}
