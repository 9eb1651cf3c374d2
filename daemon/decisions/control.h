/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * control.h: the adaptive controller. Pure: (profile bounds, one sample of
 * load, the knobs' current and home values, state) -> knob changes, each
 * with its reason. No I/O, no clock, no logging: the caller samples, writes
 * the knobs it is told to, logs each decision once and emits KnobChanged.
 *
 * Rules (AdaptiveConfig fields in brackets):
 *  - the objective of busy polling: poll while it pays and nobody waits for
 *    the CPU where it polls. runnable_milli is the waiting on the polling CPUs
 *    ([poll_cpus], chosen by the caller), never the poller itself.
 *  - busy-poll yield: runnable depth above [runqueue_threshold_milli] for
 *    [hold] samples lowers busy-read and busy-poll to [busy_poll_floor_us]
 *    (only those whose home is above it); at or below the threshold for
 *    [hold] samples brings them home (after [min_dwell_us] since the yield).
 *    With hold 2 and min-dwell 500ms at a 100 ms interval (the latency
 *    profile) that is: yield at the second sample with someone waiting, back
 *    at most 500 ms after the queue drained.
 *  - the crowd: once the app stops polling it sleeps until its packets, so
 *    the tasks it yielded to run alone and nobody waits, although they would
 *    wait again as soon as polling came back. So while yielding, the caller
 *    marks the tasks that waited (ControlState.mark_crowd: in samples with a
 *    queue, and in every sample until one CPU-bound task was found,
 *    ControlInput.crowd_found) and reports the
 *    CPU they use on the polling CPUs (crowd_milli); the yield ends only once
 *    that has stayed at or below CONTROL_CROWD_QUIET_MILLI for [hold]
 *    samples (they ended or went idle), or as a probe after
 *    CONTROL_PROBE_FIRST_US, doubled after each probe that ended in a yield
 *    again within CONTROL_PROBE_FAILED_US, up to CONTROL_PROBE_MAX_US (the
 *    crowd might be the app itself); and as a probe at once, after hold calm
 *    samples, when a part of the crowd ended (crowd_tasks below the most this
 *    yield saw) and the probe before it did not fail: what still runs may be
 *    the application's own (a load generator on its CPU waits whenever a
 *    neighbour is there). A probe that stands through its short looks
 *    (Confirmation) without a yield sets state.probe_held: the crowd's tasks
 *    that still run ran beside busy polling without making it yield, and the
 *    caller makes them companions, which never join a crowd again
 *    (monitor_crowd_to_companions()); until then state.trying asks the caller
 *    to keep the crowd. Without crowd_known the queue draining is enough, as
 *    above. A patched kernel with
 *    busy-loop-threshold on (home > 0) already yields per loop: then nothing
 *    is lowered and state.kernel_yields says so.
 *  - busy-poll pay: while busy-read or busy-poll is above the floor and
 *    busy polling delivered no packet (busy_poll_rx_packets, all network
 *    namespaces) for [pay_window_us], both go to the floor; after one window
 *    there (2, 4, then 8 windows after each further window that did not pay)
 *    they come home to try again. A packet delivered ends the back-off. Off
 *    when [pay_window_us] is 0 or the packets are not counted.
 *  - budget: time_squeeze/s above [squeeze_threshold] for [hold] samples
 *    raises netdev-budget, netdev-budget-time and softirq-budget by
 *    [budget_step_percent] of their home value per step, up to
 *    [netdev_budget_max], [netdev_budget_time_max_us], [softirq_budget_max_us]
 *    (a max of 0: never raised); after [quiet_period_us] without such a
 *    sample they step back down, never below home.
 *  - backlog drops for [hold] samples: one advice (no write) naming
 *    netdev-max-backlog.
 *  - no knob moves twice within [min_dwell_us], but for the return that the
 *    crowd's end brought (every task of a found crowd exited: crowd_tasks 0)
 *    and for a yield known to be
 *    for a neighbour: once a CPU-bound task joined its crowd (crowd_found;
 *    the dwell damps flapping against the app's own threads, which are never
 *    CPU-bound, and a CPU-bound crowd holds the yield until it is quiet or a
 *    probe), or when it begins within CONTROL_PROBE_FAILED_US of a probe (the
 *    probe failed: the back-off between probes bounds those moves). Only the
 *    knob's first move in the yield or the return: a failed write is retried
 *    after the dwell. Knobs that are unsupported or not movable are never in a decision.
 *  - [enabled] false: no decisions (and the hysteresis counters restart).
 *
 * Rest (when the caller samples): busy polling spins only inside reads that
 * wait for packets, so while fewer than CONTROL_REST_PACKETS_PER_SEC arrive on
 * the watched CPUs it can take a neighbour at most that many polls a second
 * (0.5 % of a CPU at 100/s and 50 us). After CONTROL_REST_AFTER_US of that,
 * with nothing pending (no yield, no waiting, squeeze or drop sample, no knob
 * away from home but for unpaid polling, no decision), state.resting is set
 * and control_next_step_us() spaces the samples out; the first sample with
 * traffic or anything pending ends the rest. So a yield comes within two
 * intervals of the waiting while traffic flows, and at most one rest sample
 * later when traffic and the waiting begin together after a quiet spell.
 * With wait_wakes (the kernel wakes the caller as soon as a task waits for a
 * CPU, and the caller then samples at once) traffic does not end the rest:
 * only something pending does, and the waiting no longer waits for a rest
 * sample.
 *
 * Confirmation: a sample that begins a change of busy polling's mode (the
 * first of hold samples above the threshold, or, while yielding, the first
 * at or below it with the crowd quiet, or the first after every task of the
 * crowd ended: crowd_tasks 0) is confirmed quickly: control_next_step_us()
 * asks for the next sample after a CONTROL_CONFIRM_DIVISOR-th of the
 * interval (at least CONTROL_CONFIRM_MIN_US) until the mode changed or the
 * run of agreeing samples broke; after the crowd's end, while tasks still
 * wait, for at most hold * CONTROL_CONFIRM_DIVISOR samples; after a probe
 * likewise (a probe is a try: the crowd still runs, so tasks often wait again
 * at once, and the yield then needs hold samples, not hold intervals); and
 * after a yield began that min-dwell holds back, while its crowd is not found
 * (the mark that finds a CPU-bound task lets it move at once: then it moves
 * a short sample later, not an interval). hold still counts agreeing samples, so one noisy sample
 * moves nothing, but a real change is acted on within about one interval
 * plus hold - 1 short ones instead of hold intervals. A woken sample (the
 * caller sampled because a task started waiting) is confirmed the same way
 * while busy polling does not yield, even when it read calm: its figures
 * average over the whole time since the sample before, up to a rest's, and a
 * wait that began just now hardly shows in them; the short one after it
 * measures the waiting as it is.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "policy.h"

/* The knobs the controller reads or moves, in the order decisions come out. */
typedef enum ControlKnob {
        CONTROL_BUSY_READ,
        CONTROL_BUSY_POLL,
        CONTROL_BUSY_LOOP_THRESHOLD, /* read only: tells whether the kernel yields by itself */
        CONTROL_NETDEV_BUDGET,
        CONTROL_NETDEV_BUDGET_TIME,
        CONTROL_SOFTIRQ_BUDGET,
        CONTROL_NETDEV_MAX_BACKLOG, /* advice only */
        _CONTROL_KNOB_MAX,
} ControlKnob;

/* The knob's catalog name ("busy-read"), NULL for an invalid value. */
const char *control_knob_name(ControlKnob k);

typedef struct ControlKnobInput {
        bool supported;   /* the kernel has it */
        bool movable;     /* false when a person set it or it changed outside netpolld: never touched */
        uint64_t current; /* the value now, in the catalog's base unit (us, packets, tasks) */
        uint64_t home;    /* the profile's value, or the value found at start when the profile sets none */
} ControlKnobInput;

typedef struct ControlInput {
        const AdaptiveConfig *cfg;
        uint64_t now_us;          /* monotonic; must not go backwards between steps */
        uint64_t runnable_milli;  /* busiest watched CPU (MonitorLoad.runnable_milli_max) */
        bool runnable_per_cpu;    /* runnable_milli is one CPU's, runnable_cpu (for the reasons); else system-wide */
        unsigned runnable_cpu;
        bool crowd_known;         /* the caller follows the crowd (see mark_crowd) */
        bool crowd_found;         /* a task joined the crowd in this yield (the mark found a CPU-bound one) */
        size_t crowd_tasks;       /* the crowd's tasks that have not ended: 0 with crowd_found, the crowd ended */
        uint64_t crowd_milli;     /* the crowd's CPU time on the busiest watched CPU, x1000 of the interval */
        uint64_t squeeze_per_sec; /* summed over the watched CPUs */
        uint64_t drops_per_sec;   /* summed over the watched CPUs */
        uint64_t processed_per_sec; /* packets received on the watched CPUs (softnet_stat) */
        bool wait_wakes;            /* the caller samples at once when a task starts waiting for a CPU (cpuwake.h) */
        bool woken;                 /* this sample was taken because a task started waiting (see Confirmation) */
        bool busy_poll_rx_known;       /* TcpExt BusyPollRxPackets is counted */
        uint64_t busy_poll_rx_packets; /* packets busy polling delivered since the caller last read them (0 when
                                        * it did not read them this step: read at least twice a pay window) */
        ControlKnobInput knobs[_CONTROL_KNOB_MAX];
} ControlInput;

typedef enum ControlKind {
        CONTROL_SET,    /* write value to the knob */
        CONTROL_ADVICE, /* tell the administrator; nothing to write (value = old_value) */
} ControlKind;

/* Why a decision was made, as a stable word for counters (the free-text reason is for the log). */
typedef enum ControlCause {
        CONTROL_CAUSE_CONTENTION,    /* runnable depth high: busy polling lowered */
        CONTROL_CAUSE_UNCONTENDED,   /* runnable depth low again: busy polling restored */
        CONTROL_CAUSE_KERNEL_YIELDS, /* busy-loop-threshold on: busy polling restored */
        CONTROL_CAUSE_UNPAID,        /* busy polling delivered no packet for the pay window: lowered */
        CONTROL_CAUSE_RETRY,         /* the back-off after unpaid polling is over: busy polling restored */
        CONTROL_CAUSE_PROBE,         /* the crowd still runs, but the probe back-off is over: busy polling restored */
        CONTROL_CAUSE_SQUEEZE,       /* time_squeeze high: a budget raised */
        CONTROL_CAUSE_QUIET,         /* no squeeze for the quiet period: a budget stepped down */
        CONTROL_CAUSE_BACKLOG_DROPS, /* advice only */
        _CONTROL_CAUSE_MAX,
} ControlCause;

/*
 * "contention", "uncontended", "kernel-yields", "unpaid", "retry", "probe", "squeeze", "quiet",
 * "backlog-drops";
 * NULL for an invalid value.
 */
const char *control_cause_to_string(ControlCause c);

/* The crowd uses at most a tenth of a CPU: it ended or went idle. */
#define CONTROL_CROWD_QUIET_MILLI 100
#define CONTROL_PROBE_FIRST_US (UINT64_C(2) * 1000 * 1000)
#define CONTROL_PROBE_MAX_US (UINT64_C(32) * 1000 * 1000)
#define CONTROL_PROBE_FAILED_US (UINT64_C(5) * 1000 * 1000)

/* Rest: fewer packets than this a second on the watched CPUs, for CONTROL_REST_AFTER_US. */
#define CONTROL_REST_PACKETS_PER_SEC 100
#define CONTROL_REST_AFTER_US (UINT64_C(1) * 1000 * 1000)
/* Samples while resting come every CONTROL_REST_INTERVALS intervals, at most CONTROL_REST_MAX_US apart. */
#define CONTROL_REST_INTERVALS 5
#define CONTROL_REST_MAX_US (UINT64_C(500) * 1000)
/* Samples confirming a mode change come every interval / CONTROL_CONFIRM_DIVISOR, at least CONTROL_CONFIRM_MIN_US apart. */
#define CONTROL_CONFIRM_DIVISOR 4
#define CONTROL_CONFIRM_MIN_US (UINT64_C(10) * 1000)

#define CONTROL_REASON_MAX 160
/* A step never makes more decisions than this. */
#define CONTROL_DECISIONS_MAX 8

typedef struct ControlDecision {
        ControlKind kind;
        ControlKnob knob;
        ControlCause cause;
        uint64_t old_value; /* the input's current value */
        uint64_t value;
        char reason[CONTROL_REASON_MAX]; /* "runnable 1.8 > 1.0 for 3 samples: ..." */
} ControlDecision;

/*
 * Zero-initialised (or control_state_init()) before the first step; reset it
 * when the profile changes. The first four fields are for status displays;
 * the rest is the controller's own.
 */
typedef struct ControlState {
        bool yielding;        /* runnable depth has been high for hold samples */
        bool kernel_yields;   /* busy-loop-threshold is on: busy polling is left alone */
        bool squeezing;       /* time_squeeze has been above threshold for hold samples */
        bool backlog_advised; /* the netdev-max-backlog advice was given (once per state) */
        bool unpaid;          /* busy polling delivered nothing for the pay window: held at the floor */
        bool mark_crowd;      /* after this step: add the tasks that waited to the crowd (none while false) */
        bool resting;         /* quiet for CONTROL_REST_AFTER_US: the next sample may wait (control_next_step_us) */
        bool confirming;      /* a mode change of busy polling began and awaits hold samples: the next comes soon */
        bool may_yield;       /* busy polling is on where the controller may lower it: a task waiting would count */
        bool trying;          /* a probe brought busy polling back and is looked at: the caller keeps the crowd */
        bool probe_held;      /* this step ended a probe's looks without a yield: the crowd ran beside busy polling */

        bool started;
        uint64_t last_step_us;
        unsigned load_high, load_low, squeeze_high, drops_high;
        uint64_t last_squeeze_us; /* last sample above the squeeze threshold, or the first step */
        uint64_t paid_us;         /* last step polling paid, was off, or (re)started */
        uint64_t unpaid_us;       /* when unpaid began */
        unsigned strikes;         /* windows in a row that did not pay */
        bool retrying;            /* this step ended an unpaid back-off */
        uint64_t yield_us;        /* when the current yield began */
        unsigned crowd_quiet;     /* samples in a row, while yielding, with the crowd at or below quiet */
        uint64_t crowd_milli;     /* the crowd's use at the last step, for the reasons */
        uint64_t probe_us;        /* when the last probe brought busy polling back (0: none yet) */
        unsigned failed_probes;   /* probes in a row that ended in a yield within CONTROL_PROBE_FAILED_US */
        bool probing;             /* this step ended a yield as a probe */
        bool probe_early;         /* ... because a part of the crowd ended */
        bool crowd_ended;         /* this step ended a yield because every task of its crowd exited */
        size_t crowd_peak;        /* the most crowd tasks that had not ended, in this yield */
        unsigned looks;           /* short samples left after a probe or a yield's start (see Confirmation) */
        uint64_t busy_us;         /* last step with traffic or anything pending (see resting) */
        bool moved[_CONTROL_KNOB_MAX];
        uint64_t last_move_us[_CONTROL_KNOB_MAX];
} ControlState;

void control_state_init(ControlState *s);

/*
 * One sample in, up to max decisions out (CONTROL_DECISIONS_MAX always
 * suffices). Returns the number of decisions; a decision that did not fit is
 * not recorded and comes again at a later step. The caller applies each
 * CONTROL_SET; when the write fails the knob keeps its value and the
 * controller retries after min_dwell. -EINVAL for a missing cfg or a now_us
 * before the previous step's (state untouched).
 */
int control_step(ControlState *state, const ControlInput *in, ControlDecision *out, size_t max);

/*
 * How long after a step the next sample is due, for a caller that samples
 * every interval_us: interval_us; while state.confirming interval_us /
 * CONTROL_CONFIRM_DIVISOR (at least CONTROL_CONFIRM_MIN_US, at most
 * interval_us); while state.resting CONTROL_REST_INTERVALS of them up to
 * CONTROL_REST_MAX_US (never less than one interval).
 */
uint64_t control_next_step_us(const ControlState *state, uint64_t interval_us);
