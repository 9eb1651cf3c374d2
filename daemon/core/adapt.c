/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * adapt.c: glue between the monitor, the pure controller and the manager.
 * Nothing here decides; it gathers input, calls control_step() and applies.
 */
#include "adapt.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

#include "adapt-crowd.h"
#include "control.h"
#include "caps.h"
#include "cpuwake.h"
#include "log.h"
#include "sysroot.h"

struct Adapter {
        Manager *manager;
        sd_event *event;
        sd_event_source *timer;
        sd_event_source *wake; /* the armed CPU pressure trigger (cpuwake.h), owning its descriptor; NULL without */
        sd_event_source *watch; /* looks at CPU pressure in the trigger's blind time (CPUWAKE_WATCH_US) */
        uint64_t wake_fired_us; /* when the trigger last fired (monotonic), 0: not yet */
        bool woken;             /* the next sample was asked for because a task started waiting */
        uint64_t wakes_trigger, wakes_watch, wakes_exit; /* samples so asked for, by whom (for the metrics) */
        AdaptCrowd crowd; /* the tasks busy polling yielded to (adapt-crowd.h) */
        bool wake_own;         /* it was opened here, not passed: removed after CPUWAKE_DISARM_AFTER_US without traffic */
        bool wake_told;        /* the first arming was logged at info level */
        int wake_passed_fd;    /* the passed file, not armed yet, or -errno */
        int wake_error;        /* why no trigger can be armed (-errno), 0 while one can */
        uint64_t traffic_us;   /* the last sample with traffic on the polling CPUs */
        bool traffic;          /* the last sample had it */
        Monitor *monitor;
        int monitor_error;
        ControlState state;
        bool paused;
        bool running;
        /* Where a knob the profile does not set returns to: its value before netpolld moved it. */
        uint64_t home[_CONTROL_KNOB_MAX];
        /* The last look at each knob: its origin and value (see knob_current()). */
        uint64_t read_at_us[_CONTROL_KNOB_MAX];
        uint64_t read_generation[_CONTROL_KNOB_MAX];
        ValueOrigin read_origin[_CONTROL_KNOB_MAX];
        uint64_t read_value[_CONTROL_KNOB_MAX];
        int read_result[_CONTROL_KNOB_MAX];
        /* Decisions applied since start, by knob and cause (for the metrics). */
        uint64_t decisions[_CONTROL_KNOB_MAX][_CONTROL_CAUSE_MAX];
        uint64_t busy_poll_read_us; /* last read of the busy-poll packet counter, 0: none yet */
        int busy_poll_error;        /* -ENODEV once the kernel was found not to count them */
        uint64_t samples;           /* samples the controller stepped on since start (for the metrics) */
};

static uint64_t now_ns(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t)ts.tv_sec * UINT64_C(1000000000) + (uint64_t)ts.tv_nsec;
}

static int on_tick(sd_event_source *s, uint64_t usec, void *userdata);
static int rearm(sd_event_source *s, uint64_t after_us);
static uint64_t interval_us(const Adapter *a);

/*
 * A task started waiting for a CPU: sample now, scanning every task and
 * listing new ones (monitor_woken()); but at most one such sample per
 * interval, as steady mild pressure asks every CPUWAKE_WATCH_US: a later
 * ask keeps the timer when it is due sooner anyway, else moves it to the
 * interval's end.
 */
static int sample_now(Adapter *a) {
        uint64_t now = now_ns(), wait_us, due_us;
        int enabled = SD_EVENT_OFF;

        wait_us = monitor_woken_wait_ns(a->monitor, now, interval_us(a) * 1000) / 1000;
        monitor_woken(a->monitor);
        a->woken = true;
        if (wait_us > 0 && sd_event_source_get_enabled(a->timer, &enabled) >= 0 && enabled != SD_EVENT_OFF &&
            sd_event_source_get_time(a->timer, &due_us) >= 0 && due_us <= now / 1000 + wait_us)
                return 0;
        return rearm(a->timer, wait_us);
}

/*
 * Whether to look at CPU pressure between samples: in the trigger's blind
 * time (CPUWAKE_WATCH_US), while a task that waits would make busy polling
 * yield, and traffic flows: without it busy polling spins only in the few
 * reads that wait for a packet (control.h, "Rest"), and a yield gains nothing
 * the next sample could not give (a kept passed trigger, idle, would
 * otherwise cost the looks).
 */
static bool watch_wanted(const Adapter *a, uint64_t now_us) {
        return a->running && a->wake && a->traffic && a->state.may_yield && a->wake_fired_us != 0 &&
               now_us - a->wake_fired_us < CPUWAKE_WINDOW_US;
}

static int on_watch(sd_event_source *s, uint64_t usec, void *userdata) {
        Adapter *a = userdata;
        uint64_t now = now_ns();
        int r;

        if (!watch_wanted(a, now / 1000))
                return 0; /* one-shot: off until the trigger fires again */
        r = monitor_watch(a->monitor, now);
        if (r > 0) {
                a->wakes_watch++;
                return sample_now(a); /* the sample restarts the watch */
        }
        if (r < 0 && r != -EINVAL) {
                log_debug_errno(r, "cannot look at CPU pressure between samples: %m");
                return 0;
        }
        return rearm(s, CPUWAKE_WATCH_US);
}

/* After a sample: the watch looks again CPUWAKE_WATCH_US after it, or stops. */
static void watch_update(Adapter *a) {
        int r;

        if (!watch_wanted(a, now_ns() / 1000)) {
                if (a->watch)
                        (void)sd_event_source_set_enabled(a->watch, SD_EVENT_OFF);
                return;
        }
        if (!a->watch) {
                r = sd_event_add_time_relative(a->event, &a->watch, CLOCK_MONOTONIC, CPUWAKE_WATCH_US,
                                               CPUWAKE_WATCH_US / 10, on_watch, a);
                if (r >= 0)
                        r = sd_event_source_set_enabled(a->watch, SD_EVENT_ONESHOT);
        } else
                r = rearm(a->watch, CPUWAKE_WATCH_US);
        if (r < 0)
                log_debug_errno(r, "cannot schedule a look at CPU pressure: %m");
}

/* A process of the crowd exited: the last one's end is the yield's, an earlier one's may begin a probe. */
static void on_crowd_exit(void *userdata) {
        Adapter *a = userdata;

        if (!a->running || !a->state.yielding)
                return;
        log_debug("a process busy polling yielded to ended: sampling now");
        a->wakes_exit++;
        (void)sample_now(a);
}

/*
 * Some task waited for a CPU: the controller samples now rather than at its
 * next rest sample or interval (the kernel fires a trigger at most once per
 * window, CPUWAKE_WINDOW_US, so this adds at most that many samples), and
 * the watch covers the rest of the window. Not while busy polling yields:
 * the waiting is known then, and a sample taken just as some task waited,
 * over the few milliseconds since the last, measures that burst, not the
 * queue the return waits to see drained.
 */
static int on_wake(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        Adapter *a = userdata;

        if (revents & (EPOLLERR | EPOLLHUP)) {
                log_warning("the CPU pressure trigger failed; samples rest only without traffic from now on");
                a->wake = sd_event_source_disable_unref(a->wake);
                a->wake_error = -EIO;
                return 0;
        }
        if (!a->running)
                return 0;
        a->wake_fired_us = now_ns() / 1000;
        if (a->state.yielding)
                return 0;
        if (a->state.resting)
                log_debug("a task waits for a CPU: sampling now");
        a->wakes_trigger++;
        return sample_now(a);
}

/* Why no trigger can be armed, once; the caller samples every interval while traffic flows. */
static void wake_unavailable(Adapter *a, int error, bool passed) {
        a->wake_error = error;
        if (passed && error == -EINVAL)
                log_info("the kernel refused a CPU pressure trigger on the file the service manager passed "
                         "(opened without CAP_SYS_RESOURCE?): samples rest only without traffic");
        else if (passed)
                log_info_errno(error, "no CPU pressure trigger on the file the service manager passed (%m): "
                                      "samples rest only without traffic");
        else if (error == -EPERM)
                log_info("no CAP_SYS_RESOURCE at start, so no CPU pressure trigger: samples rest only without traffic");
        else if (error == -ENOTSUP)
                log_info("the starting profile does not adapt, so CAP_SYS_RESOURCE went at start: "
                         "no CPU pressure trigger, samples rest only without traffic");
        else if (error == -EMEDIUMTYPE)
                log_info("no CPU pressure trigger (the file passed is not one): samples rest only without traffic");
        else
                log_info_errno(error, "no CPU pressure trigger (%m): samples rest only without traffic");
}

/*
 * Traffic flows: arm the trigger, so the controller may rest while nobody
 * waits. The passed file is armed once and kept (it cannot be had again);
 * netpolld's own is opened now, with CAP_SYS_RESOURCE effective for the open
 * alone, and removed by wake_disarm() once traffic stops, which also stops
 * the kernel's psimon thread (cpuwake.h).
 */
static void wake_arm(Adapter *a) {
        bool passed = a->wake_passed_fd >= 0;
        int fd, r;

        if (a->wake || a->wake_error < 0)
                return;
        if (passed) {
                fd = TAKE_FD(a->wake_passed_fd);
                r = cpuwake_arm(fd, CPUWAKE_THRESHOLD_US, CPUWAKE_WINDOW_US);
                if (r < 0) {
                        close(fd);
                        wake_unavailable(a, r, true);
                        return;
                }
        } else {
                _cleanup_(freep) char *path = NULL;

                r = sysroot_path(a->manager->sysroot, "/proc/pressure/cpu", &path);
                if (r >= 0)
                        r = caps_resource_effective(true);
                fd = r < 0 ? r : cpuwake_open(path, CPUWAKE_THRESHOLD_US, CPUWAKE_WINDOW_US);
                if (r >= 0 && (r = caps_resource_effective(false)) < 0)
                        log_warning_errno(r, "cannot make CAP_SYS_RESOURCE ineffective again: %m");
                if (fd < 0) {
                        wake_unavailable(a, fd, false);
                        return;
                }
        }
        r = sd_event_add_io(a->event, &a->wake, fd, EPOLLPRI, on_wake, a);
        if (r >= 0)
                r = sd_event_source_set_io_fd_own(a->wake, true);
        if (r < 0) {
                a->wake = sd_event_source_disable_unref(a->wake);
                close(fd);
                wake_unavailable(a, r, passed);
                return;
        }
        a->wake_own = !passed;
        log_internal(a->wake_told ? LOG_DEBUG : LOG_INFO, 0,
                 "traffic: CPU pressure trigger armed (some %" PRIu64 " ms within %" PRIu64 " ms%s), "
                 "samples rest while no task waits",
                 CPUWAKE_THRESHOLD_US / 1000, CPUWAKE_WINDOW_US / 1000,
                 passed ? ", on the file the service manager passed" : "");
        a->wake_told = true;
}

static void wake_disarm(Adapter *a) {
        if (!a->wake || !a->wake_own)
                return;
        a->wake = sd_event_source_disable_unref(a->wake);
        log_debug("no traffic for %" PRIu64 " s: CPU pressure trigger removed", CPUWAKE_DISARM_AFTER_US / 1000000);
}

/* What start-up could arrange (manager_run()), said once. */
static void wake_setup(Adapter *a, Manager *m) {
        a->wake_passed_fd = TAKE_FD(m->cpuwake_fd);
        if (a->wake_passed_fd >= 0)
                log_info("CPU pressure trigger: on the file the service manager passed, armed when traffic flows");
        else if (m->cpuwake_can_open)
                log_info("CPU pressure trigger: armed while traffic flows (CAP_SYS_RESOURCE stays permitted to open it)");
        else if (a->wake_passed_fd != -ENOENT)
                wake_unavailable(a, a->wake_passed_fd, false);
        else {
                a->wake_error = -ENOENT;
                log_info("no CPU pressure trigger: %s is not the running kernel (%s), samples rest only without traffic",
                         m->sysroot, m->sysroot_why_not);
        }
}

int adapter_new(Adapter **ret, Manager *m, sd_event *event) {
        Adapter *a = calloc(1, sizeof(Adapter));
        if (!a)
                return -ENOMEM;
        a->manager = m;
        a->event = sd_event_ref(event);
        a->wake_passed_fd = -ENOENT;
        control_state_init(&a->state);
        for (size_t k = 0; k < _CONTROL_KNOB_MAX; k++)
                a->home[k] = UINT64_MAX;
        a->monitor_error = monitor_new(&a->monitor, m->sysroot);
        adapt_crowd_init(&a->crowd, a->monitor, a->event, m->sysroot, m->sysroot_live, on_crowd_exit, a);
        if (a->monitor_error < 0)
                log_warning_errno(a->monitor_error,
                                  "cannot sample CPU and softnet statistics below %s: %m; adaptation is off",
                                  m->sysroot);
        else {
                log_info("run-queue depth from %s%s", monitor_source_name(a->monitor),
                         monitor_uses_psi(a->monitor) ? ", CPU pressure from PSI" : "");
                wake_setup(a, m);
                if (monitor_source(a->monitor) != MONITOR_SOURCE_TASKS)
                        log_info("crowd-exit watch: off, run-queue source %s knows no tasks",
                                 monitor_source_name(a->monitor));
                else if (m->sysroot_live)
                        log_info("crowd-exit watch: the processes busy polling yields to are watched for their exit");
                else
                        log_info("crowd-exit watch: off, the PIDs below %s are no processes of netpolld's", m->sysroot);
        }
        *ret = a;
        return 0;
}

Adapter *adapter_free(Adapter *a) {
        if (!a)
                return NULL;
        sd_event_source_disable_unref(a->timer);
        sd_event_source_disable_unref(a->watch);
        adapt_crowd_done(&a->crowd);
        sd_event_source_disable_unref(a->wake);
        if (a->wake_passed_fd >= 0)
                close(a->wake_passed_fd);
        sd_event_unref(a->event);
        monitor_free(a->monitor);
        free(a);
        return NULL;
}

static bool profile_adapts(const Adapter *a) {
        const Profile *p = a->manager->profile;
        return p && p->adaptive.enabled && a->monitor;
}

const char *adapter_mode(const Adapter *a) {
        if (!profile_adapts(a))
                return "static";
        return a->paused ? "paused" : "adaptive";
}

static uint64_t interval_us(const Adapter *a) {
        return a->manager->config ? a->manager->config->interval_us : DEFAULT_INTERVAL_USEC;
}

/*
 * How late a sample may come. sd-event's default (accuracy 0) is 250 ms, and
 * it coalesces wake-ups onto that grid: a 100 ms interval sampled 4 times a
 * second, not 10 (strace of the daemon). A hundredth of the interval keeps
 * the interval what the configuration says.
 */
static uint64_t accuracy_us(const Adapter *a) {
        return MAX(interval_us(a) / 100, UINT64_C(1));
}

int adapter_update(Adapter *a) {
        bool run = profile_adapts(a) && !a->paused;
        int r;

        /*
         * The controller starts afresh; home values stay: a knob adaptation
         * raised before a pause must still decay to where it was before.
         */
        control_state_init(&a->state);
        if (a->crowd.following)
                adapt_crowd_clear(&a->crowd);
        for (size_t k = 0; k < _CONTROL_KNOB_MAX; k++)
                a->read_at_us[k] = 0;
        if (run && !cpuset_is_empty(&a->manager->profile->adaptive.poll_cpus)) {
                const CpuSet *poll = &a->manager->profile->adaptive.poll_cpus;
                bool any = false;

                for (size_t i = 0; i < monitor_n_cpus(a->monitor) && !any; i++)
                        any = cpuset_has(poll, (unsigned)i);
                if (!any) {
                        _cleanup_(freep) char *list = cpuset_format_list(poll);
                        log_warning("[adaptive] poll-cpus = %s: none of these CPUs exists here, so no task can count "
                                    "as waiting where busy polling runs", list ?: "?");
                }
        }
        if (a->monitor)
                monitor_set_scan_threshold(a->monitor,
                                           run ? a->manager->profile->adaptive.runqueue_threshold_milli : 0);
        a->woken = false;
        if (!run) {
                a->running = false;
                wake_disarm(a);
                if (a->watch)
                        (void)sd_event_source_set_enabled(a->watch, SD_EVENT_OFF);
                return a->timer ? sd_event_source_set_enabled(a->timer, SD_EVENT_OFF) : 0;
        }
        if (!a->timer) {
                r = sd_event_add_time_relative(a->event, &a->timer, CLOCK_MONOTONIC, interval_us(a), accuracy_us(a),
                                               on_tick, a);
                if (r < 0)
                        return r;
        } else {
                r = sd_event_source_set_time_accuracy(a->timer, accuracy_us(a));
                if (r >= 0)
                        r = sd_event_source_set_time_relative(a->timer, interval_us(a));
                if (r < 0)
                        return r;
                r = sd_event_source_set_enabled(a->timer, SD_EVENT_ONESHOT);
                if (r < 0)
                        return r;
        }
        a->running = true;
        return 0;
}

void adapter_set_pollers(Adapter *a, const int *pids, size_t n) {
        int r;

        if (!a || !a->monitor)
                return;
        r = monitor_ignore_tasks(a->monitor, pids, n);
        if (r == -ENOMEM)
                log_oom();
        else if (r >= 0 && n > 0)
                log_debug("%zu busy-poll NAPI thread(s) are dedicated pollers: their CPU time is not waiting", n);
}

int adapter_set_paused(Adapter *a, bool paused) {
        if (!profile_adapts(a))
                return -ENOTSUP;
        if (a->paused == paused)
                return 0;
        a->paused = paused;
        log_info("adaptation %s", paused ? "paused: values stay as they are" : "resumed");
        return adapter_update(a);
}

const Monitor *adapter_monitor(const Adapter *a) {
        return a->monitor;
}

int adapter_load(Adapter *a, const Monitor **ret) {
        int r;

        if (!a->monitor)
                return -ENODEV;
        if (!a->running) {
                r = monitor_sample(a->monitor, now_ns());
                if (r < 0 && r != -EINVAL && r != -EAGAIN) /* too soon: the last sample stands */
                        return r;
        }
        *ret = a->monitor;
        return 0;
}

/*
 * A knob's origin and current value without looking every interval: each
 * look resolves the knob's path (a stat), asks the owner, opens and reads a
 * sysctl, and these were half of an idle tick's CPU. They are looked at
 * again when the owner's generation moved (netpolld changed something: its
 * own moves are seen at the next tick) and at least once per
 * KNOB_REREAD_USEC (somebody else's writes). Outside changes to knobs
 * netpolld holds are also caught before any move (manager_adapt checks the
 * kernel) and by the ownership timer.
 */
#define KNOB_REREAD_USEC (5 * UINT64_C(1000000))

static int knob_current(Adapter *a, ControlKnob k, const KnobRef *ref, uint64_t now_us, ValueOrigin *ret_origin,
                        uint64_t *ret) {
        uint64_t gen = owner_generation(a->manager->owner);
        KnobValue v = {};
        int r;

        if (a->read_at_us[k] == 0 || a->read_generation[k] != gen || now_us - a->read_at_us[k] >= KNOB_REREAD_USEC) {
                a->read_origin[k] = manager_knob_origin(a->manager, ref);
                r = knob_read(ref, a->manager->sysroot, &v);
                a->read_result[k] = r < 0 ? r : 0;
                a->read_value[k] = v.num;
                a->read_at_us[k] = now_us;
                a->read_generation[k] = gen;
        }
        *ret_origin = a->read_origin[k];
        if (a->read_result[k] < 0)
                return a->read_result[k];
        *ret = a->read_value[k];
        return 0;
}

/* The controller's view of one knob: support, whether it may move it, where it is and where home is. */
static void knob_input(Adapter *a, ControlKnob k, uint64_t now_us, ControlKnobInput *in) {
        Manager *m = a->manager;
        KnobRef ref = { .desc = knob_find(control_knob_name(k)) };
        ValueOrigin origin;
        const ProfileKnob *pk;
        uint64_t cur;

        *in = (ControlKnobInput){};
        if (!ref.desc || knob_current(a, k, &ref, now_us, &origin, &cur) < 0)
                return; /* unsupported or unreadable: the controller leaves it alone */
        in->supported = true;
        in->current = cur;
        in->movable = origin == ORIGIN_DEFAULT || origin == ORIGIN_PROFILE || origin == ORIGIN_ADAPTIVE;

        pk = profile_get_knob(m->profile, &ref);
        if (pk)
                in->home = pk->value.num;
        else {
                /* Not in the profile: home is what it was before adaptation first moved it. */
                if (origin != ORIGIN_ADAPTIVE || a->home[k] == UINT64_MAX)
                        a->home[k] = cur;
                in->home = a->home[k];
        }
}

/*
 * Packets busy polling delivered, for the pay rule only, and read every half
 * pay window rather than every interval (each namespace's netstat costs
 * ~28 us): a window without a packet is then seen between one and one and a
 * half windows after the last one.
 */
static void busy_poll_input(Adapter *a, const AdaptiveConfig *cfg, uint64_t now_us, ControlInput *in) {
        uint64_t packets;
        int r;

        if (cfg->pay_window_us == 0 || a->busy_poll_error < 0)
                return;
        in->busy_poll_rx_known = true;
        if (a->busy_poll_read_us != 0 && now_us - a->busy_poll_read_us < cfg->pay_window_us / 2)
                return;
        r = monitor_busy_poll_packets(a->monitor, &packets);
        if (r < 0) {
                /* No counter at all stays so; a failed listing is retried next time. */
                if (r == -ENODEV) {
                        a->busy_poll_error = r;
                        log_info("TcpExt BusyPollRxPackets is not counted: busy polling is kept whether it pays or not");
                }
                in->busy_poll_rx_known = false;
                return;
        }
        a->busy_poll_read_us = now_us;
        in->busy_poll_rx_packets = packets;
}

static int rearm(sd_event_source *s, uint64_t after_us) {
        int r;

        r = sd_event_source_set_time_relative(s, after_us);
        if (r >= 0)
                r = sd_event_source_set_enabled(s, SD_EVENT_ONESHOT);
        if (r < 0)
                return log_error_errno(r, "cannot re-arm the sampling timer: %m");
        return 0;
}

static int on_tick(sd_event_source *s, uint64_t usec, void *userdata) {
        Adapter *a = userdata;
        ControlDecision out[CONTROL_DECISIONS_MAX];
        const ControlDecision *read_move = NULL;
        const AdaptiveConfig *cfg = &a->manager->profile->adaptive;
        ControlInput in = { .cfg = cfg };
        const CpuSet *poll;
        MonitorLoad load;
        bool rested = a->state.resting;
        uint64_t t;
        int r, n;

        r = monitor_sample(a->monitor, now_ns());
        if (r <= 0) {
                if (r < 0 && r != -EAGAIN)
                        log_debug_errno(r, "sampling failed: %m, ignoring");
                return rearm(s, interval_us(a));
        }
        a->samples++;
        t = monitor_sample_ns(a->monitor);
        /* Waiting counts on the polling CPUs only (all when poll-cpus is empty); squeezes and drops everywhere. */
        poll = cpuset_is_empty(&cfg->poll_cpus) ? NULL : &cfg->poll_cpus;
        monitor_load(a->monitor, poll, &load);
        in.runnable_milli = load.runnable_milli_max;
        in.runnable_per_cpu = load.runnable_cpu >= 0;
        in.runnable_cpu = load.runnable_cpu >= 0 ? (unsigned)load.runnable_cpu : 0;
        in.processed_per_sec = load.processed_per_sec;
        a->traffic = load.processed_per_sec >= CONTROL_REST_PACKETS_PER_SEC;
        if (a->traffic) {
                a->traffic_us = t / 1000;
                wake_arm(a);
        } else if (t / 1000 - a->traffic_us >= CPUWAKE_DISARM_AFTER_US)
                wake_disarm(a);
        in.wait_wakes = a->wake != NULL;
        in.woken = a->woken;
        a->woken = false;
        in.crowd_known = monitor_source(a->monitor) == MONITOR_SOURCE_TASKS;
        in.crowd_found = a->crowd.found;
        in.crowd_tasks = monitor_crowd_tasks(a->monitor);
        in.crowd_milli = load.crowd_milli_max;
        monitor_load(a->monitor, NULL, &load);

        in.now_us = t / 1000;
        /*
         * procs_running is one system-wide count: a crowded CPU next to an idle
         * one averages out. PSI's "some" share (time some task waited for a CPU)
         * sees it, so it stands in as the busiest CPU's depth, capped at 1.0.
         */
        if (monitor_source(a->monitor) == MONITOR_SOURCE_PROCS_RUNNING && monitor_uses_psi(a->monitor) &&
            monitor_system(a->monitor)->psi_some_milli > in.runnable_milli) {
                in.runnable_milli = monitor_system(a->monitor)->psi_some_milli;
                in.runnable_per_cpu = false;
        }
        in.squeeze_per_sec = load.squeeze_per_sec;
        in.drops_per_sec = load.drops_per_sec;
        busy_poll_input(a, cfg, in.now_us, &in);
        for (size_t k = 0; k < _CONTROL_KNOB_MAX; k++)
                knob_input(a, (ControlKnob)k, in.now_us, &in.knobs[k]);

        n = control_step(&a->state, &in, out, ELEMENTSOF(out));
        if (n < 0) {
                (void)rearm(s, interval_us(a));
                return log_error_errno(n, "controller refused its input: %m");
        }
        r = rearm(s, control_next_step_us(&a->state, interval_us(a)));
        if (r < 0)
                return r;
        watch_update(a);
        if (a->state.resting != rested)
                log_debug("%s: sampling every %" PRIu64 " ms",
                          !a->state.resting ? "traffic or something pending"
                          : a->wake         ? "nothing pending"
                                            : "no traffic and nothing pending",
                          control_next_step_us(&a->state, interval_us(a)) / 1000);
        for (int i = 0; i < n; i++)
                if (out[i].cause == CONTROL_CAUSE_PROBE) {
                        adapt_crowd_log_probe(&a->crowd); /* before the return clears the crowd */
                        break;
                }
        if (a->state.probe_held && a->crowd.following)
                adapt_crowd_accept(&a->crowd);
        if (a->state.mark_crowd && in.crowd_known) {
                adapt_crowd_mark(&a->crowd, poll);
                if (!a->crowd.found)
                        monitor_woken(a->monitor); /* the next mark reads every task afresh (monitor.h) */
        } else if (!a->state.yielding && !a->state.trying && a->crowd.following)
                adapt_crowd_clear(&a->crowd); /* busy polling came back: the crowd is over */
        for (int i = 0; i < n; i++) {
                const char *name = control_knob_name(out[i].knob);
                if (out[i].kind == CONTROL_ADVICE) {
                        log_notice("%s", out[i].reason);
                        continue;
                }
                r = manager_adapt(a->manager, name, out[i].old_value, out[i].value, out[i].reason);
                if (r == -ESTALE)
                        a->read_at_us[out[i].knob] = 0; /* read it afresh next time */
                else if (r > 0) {
                        a->decisions[out[i].knob][out[i].cause]++;
                        if (out[i].knob == CONTROL_BUSY_READ)
                                read_move = &out[i];
                }
        }
        /* Last: busy-poll's sysctl must not wait for the walk over every process's sockets. */
        if (read_move)
                manager_adapt_live_sockets(a->manager, read_move->old_value, read_move->value);
        return 0;
}

/* Which causes can move which knob: busy polling yields and comes back, budgets grow and decay. */
static bool cause_moves(ControlKnob k, ControlCause c) {
        switch (c) {
        case CONTROL_CAUSE_CONTENTION:
        case CONTROL_CAUSE_UNCONTENDED:
        case CONTROL_CAUSE_KERNEL_YIELDS:
        case CONTROL_CAUSE_UNPAID:
        case CONTROL_CAUSE_RETRY:
        case CONTROL_CAUSE_PROBE:
                return k == CONTROL_BUSY_READ || k == CONTROL_BUSY_POLL;
        case CONTROL_CAUSE_SQUEEZE:
        case CONTROL_CAUSE_QUIET:
                return k == CONTROL_NETDEV_BUDGET || k == CONTROL_NETDEV_BUDGET_TIME || k == CONTROL_SOFTIRQ_BUDGET;
        default:
                return false;
        }
}

uint64_t adapter_samples(const Adapter *a) {
        return a->samples;
}

void adapter_wakeups(const Adapter *a, uint64_t *ret_trigger, uint64_t *ret_watch, uint64_t *ret_exit) {
        *ret_trigger = a->wakes_trigger;
        *ret_watch = a->wakes_watch;
        *ret_exit = a->wakes_exit;
}

size_t adapter_decisions(const Adapter *a, AdapterDecisionCount *ret, size_t max) {
        size_t n = 0;

        for (size_t k = 0; k < _CONTROL_KNOB_MAX; k++)
                for (size_t c = 0; c < _CONTROL_CAUSE_MAX; c++) {
                        if (!cause_moves((ControlKnob)k, (ControlCause)c))
                                continue;
                        if (n < max)
                                ret[n] = (AdapterDecisionCount){
                                        .knob = control_knob_name((ControlKnob)k),
                                        .up = c == CONTROL_CAUSE_UNCONTENDED || c == CONTROL_CAUSE_KERNEL_YIELDS ||
                                              c == CONTROL_CAUSE_RETRY || c == CONTROL_CAUSE_PROBE ||
                                              c == CONTROL_CAUSE_SQUEEZE,
                                        .reason = control_cause_to_string((ControlCause)c),
                                        .count = a->decisions[k][c],
                                };
                        n++;
                }
        return n;
}
