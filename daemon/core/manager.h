/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * manager.h: the daemon's root object. A Manager owns everything the daemon
 * runs: the event loop, the policy (netpolld.conf and the
 * active profile), the restore journal and the owner of every kernel value,
 * the adaptive loop (monitor + controller) and IRQ/queue steering. main()
 * only parses options and calls manager_run(). Operations on knobs (apply a
 * profile, set, reset, adaptive moves, stop) are here and in manager-ops.c;
 * the daemon's life (start-up order, signals, timers) in manager-run.c.
 *
 * Operations that fail return a negative errno with a specific meaning (see
 * MANAGER_E_*) and a message a person can act on in *ret_message.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <systemd/sd-event.h>

#include "history.h"
#include "irqpin.h"
#include "journal.h"
#include "knob.h"
#include "livesock.h"
#include "owner.h"
#include "policy.h"

/* errno values with a fixed meaning for manager operations (mapped to D-Bus errors in bus.c). */
#define MANAGER_E_UNKNOWN_KNOB ENOENT
#define MANAGER_E_INVALID_VALUE EINVAL
#define MANAGER_E_UNSUPPORTED EOPNOTSUPP
#define MANAGER_E_NO_DEVICE ENODEV
#define MANAGER_E_KERNEL_REFUSED EREMOTEIO
#define MANAGER_E_UNKNOWN_PROFILE ESRCH
#define MANAGER_E_INVALID_PROFILE EBADMSG

/* A knob instance netpolld lists (global knobs always, per-device ones once used). Its origin is the owner's. */
typedef struct KnobState {
        KnobRef ref;
} KnobState;

typedef struct Manager Manager;
/* The Manager's client connection to systemd (manager_systemd_bus()); users of it include <systemd/sd-bus.h>. */
typedef struct sd_bus sd_bus;
typedef struct Adapter Adapter;
typedef struct IrqPin IrqPin;
typedef struct NapiBackend NapiBackend;
typedef struct RuleRunner RuleRunner;
typedef struct NetdevGenl NetdevGenl;

/*
 * Who is told about the Manager's changes: the bus (bus.h) registers one with
 * manager_listen() when manager_run() attaches it. Each callback may be NULL.
 */
typedef struct ManagerListener {
        /* A value changed (name, old, new as people read them, with units); reason: profile, manual, adaptive, external or reset. */
        void (*knob_changed)(void *userdata, const char *name, const char *old, const char *new, const char *reason);
        /* The profile, the rule in force, the mode or the interval may have changed. */
        void (*state_changed)(void *userdata);
        /* The Manager is being freed: last chance to flush what was told (manager_free()). */
        void (*gone)(void *userdata);
} ManagerListener;

typedef struct ManagerOptions {
        const char *config_path;      /* NULL: the default file */
        const char *profile;          /* overrides the config's profile when set */
        char *const *profile_dirs;    /* searched before the default directories */
        const char *sysroot;
        const char *state_dir;        /* overrides the config's state-dir when set */
        bool dry_run;                 /* forces dry-run on */
} ManagerOptions;

struct Manager {
        char *sysroot;
        bool sysroot_live;            /* the sysroot's /proc and /sys are the running kernel's (sysroot_is_live()) */
        const char *sysroot_why_not;  /* when not: why, for the log */
        char **profile_dirs;
        char *config_path;
        char *profile_override;
        char *state_dir_override;
        bool dry_run_override;
        char *profile_request;        /* chosen at run time with SetProfile or by a rule */
        bool profile_pinned;          /* SetProfile chose it: rules do not switch until ReleaseProfile */

        DaemonConfig *config;
        Profile *profile;
        Journal *journal;
        Owner *owner;                 /* every kernel value netpolld changes; made by manager_start() */
        const TargetBackend *napi_backend; /* per-NAPI values; set before manager_start() */
        NapiBackend *napi;            /* what napi_backend points into, when manager_run() made it */

        sd_event *event;              /* manager_run(): the event loop, */
        sd_event_source *ownership_timer; /* and the 2 s check for outside changes */
        const ManagerListener *listener;  /* told about changes (NULL in tools and tests) */
        void *listener_data;
        sd_event_source *metrics_timer;   /* metrics-file: rewritten every second while configured */
        int metrics_error;                /* the last metrics-file write's result, to log each new failure once */

        KnobState *knobs;
        size_t n_knobs;

        Adapter *adapter; /* the adaptive loop (adapt.h); NULL before manager_run() made it */
        IrqPin *irqpin;   /* IRQ and queue steering (irqpin.h); NULL when netlink failed */

        LiveSocks live;   /* sockets a busy-read yield moved (manager-livesock.c) */
        bool live_ptrace; /* CAP_SYS_PTRACE kept at start for live sockets */
        int cpuwake_fd;        /* the CPU pressure file the service manager passed (cpuwake_passed()), or -errno; the adapter takes it */
        bool cpuwake_can_open; /* CAP_SYS_RESOURCE stays permitted to open the trigger while traffic flows (caps.c) */
        RuleRunner *rules; /* workload rules (manager-rules.c); NULL until manager_follow_rules() */
        NetdevGenl *qstats_genl; /* per-queue statistics for the metrics, opened on first use */
        bool qstats_unavailable; /* the kernel has no netdev family: stop asking */
        DecisionHistory history; /* the controller's last moves per knob, for Explain (fixed size) */
        sd_bus *systemd;         /* the one connection to systemd (manager_systemd_bus()), opened on first use */
        bool systemd_failed;     /* no systemd to talk to: logged once */
        bool irqbalance_replayed;   /* the crash replay removed the irqbalance drop-in: systemd is to hear of it */
        bool irqbalance_dry_logged; /* dry run: the ban it would write was logged */
};

int manager_new(Manager **ret, const ManagerOptions *o);
Manager *manager_free(Manager *m);
static inline void manager_freep(Manager **m) {
        if (*m)
                manager_free(*m);
}

/*
 * Loads netpolld.conf and the profile it selects (or profile_override when
 * not NULL) into fresh objects without touching the running state. On
 * failure *ret_errors lists every problem (strv). It is the three steps
 * below in order, stopping at the first that fails; --check-config takes them
 * one by one to report every error in one run.
 */
int manager_load_policy(Manager *m, const char *profile_override, DaemonConfig **ret_config,
                        Profile **ret_profile, char ***ret_errors);
/* netpolld.conf (the Manager's path; missing: defaults). */
int manager_load_config(Manager *m, DaemonConfig **ret, char ***ret_errors);
/* Every [rule NAME]'s profile loads (it would fail at the moment it matches). */
int manager_check_rules(Manager *m, const DaemonConfig *c, char ***ret_errors);
/* The profile a start loads: profile_override, else the command line's, else c's (NULL when c is NULL too). */
const char *manager_profile_name(const Manager *m, const char *profile_override, const DaemonConfig *c);
/* A profile by name or path, looked up in the Manager's profile directories. */
int manager_load_profile(Manager *m, const char *name, Profile **ret, char ***ret_errors);

bool manager_dry_run(const Manager *m);
const char *manager_state_dir(const Manager *m);

/*
 * Start-up after the policy loaded: opens the restore journal (a corrupt one is
 * refused: -EBADMSG with the reason), replays what a previous run left
 * (crash recovery), then applies the profile.
 */
int manager_start(Manager *m, DaemonConfig *config, Profile *profile, char **ret_message);

/*
 * Swaps in a new configuration and profile (takes ownership) and applies the
 * profile. switching: a new profile was chosen (manual values are dropped);
 * otherwise a reload (manual and external values are kept).
 */
int manager_apply(Manager *m, DaemonConfig *config, Profile *profile, bool switching);
/* After a profile is applied: adaptation follows its [adaptive], steering its [irq] (once they run). */
void manager_follow_profile(Manager *m);

/* The listed knob instance, created when missing. NULL on ENOMEM. */
KnobState *manager_knob_state(Manager *m, const KnobRef *ref);
/* The listed knob instance or NULL; never creates one (read-only callers). */
KnobState *manager_find_knob(const Manager *m, const KnobRef *ref);
/* Where the knob's value comes from (the owner's origin of its first target). */
ValueOrigin manager_knob_origin(Manager *m, const KnobRef *ref);

/* Manual changes. pairs: name, value, name, value, ..., NULL. *ret_values: the values the kernel holds (strv). */
int manager_set_knobs(Manager *m, char *const *pairs, char ***ret_values, char **ret_message);
/* Hands a knob back to the profile (or its original value); *ret_value the value afterwards. */
int manager_reset_knob(Manager *m, const char *name, char **ret_value, char **ret_message);

/* Formatted current value and origin (its name: default, profile, ...) of a knob instance given by name. */
int manager_get_knob(Manager *m, const char *name, char **ret_value, const char **ret_origin, char **ret_message);

/*
 * Per-NAPI references ("KNOB@DEV:napi-ID", "KNOB@DEV:rx-N"; manager-napi.c),
 * which irqpin resolves over netlink instead of the knobs' files: any name
 * with a ':' is one. The get, set (the manual layer) and reset of one
 * instance, with the errors and messages of the knob operations above.
 */
bool manager_is_napi_ref(const char *name);
int manager_get_napi(Manager *m, const char *name, char **ret_value, const char **ret_origin, char **ret_message);
/* *ret_value: the value the kernel holds afterwards. */
int manager_set_napi(Manager *m, const char *name, const char *value, char **ret_value, char **ret_message);
/* Puts back the value below the manual layer; *ret_value: the value afterwards. */
int manager_reset_napi(Manager *m, const char *name, char **ret_value, char **ret_message);

/* Notices values changed behind netpolld's back (owner_check()): origin external, left alone, reported. */
void manager_check_external(Manager *m);

/*
 * Re-reads netpolld.conf and the active profile and applies them; an invalid
 * file changes nothing (-EBADMSG, the errors in *ret_message, one per line).
 */
int manager_reload(Manager *m, char **ret_message);
/*
 * manager_reload() with the sd_notify protocol around it (SIGHUP and
 * Reload()): RELOADING=1, the result logged, listeners told of the new state,
 * READY=1 and the status line.
 */
int manager_reload_notify(Manager *m, char **ret_message);
/* The status line systemd shows (profile, mode, dry run), after anything that changes them. */
void manager_notify_status(Manager *m);
/* Registers the one listener (replacing any before it); userdata is passed to its callbacks. */
void manager_listen(Manager *m, const ManagerListener *l, void *userdata);
/* Tells the listener the state changed (ManagerListener.state_changed). */
void manager_state_changed(Manager *m);
/*
 * Loads, validates and applies another profile and pins it (rules stop
 * switching until manager_release_profile()); -ESRCH when there is no such
 * profile.
 */
int manager_switch_profile(Manager *m, const char *name, char **ret_message);
/*
 * A switch decided by a rule (name: its profile) or its end (name NULL: the
 * configured profile): the profile alone is loaded (netpolld.conf is not
 * re-read) and applied as a reload applies it, so manual and external values
 * stay. Does not pin.
 */
int manager_switch_profile_auto(Manager *m, const char *name, char **ret_message);

/*
 * Workload rules (manager-rules.c). manager_follow_rules() (after start and
 * each reload) follows the configuration's [rule NAME] sections: the scan
 * timer, the systemd watch, and an evaluation at once; rules that did not
 * change keep their state.
 */
void manager_follow_rules(Manager *m);
void manager_rules_free(Manager *m);
/* The rule in force (its condition held long enough), or NULL; also while the profile is pinned. */
const Rule *manager_active_rule(const Manager *m);
/* Unpins the profile: the active rule's profile, or the configured one, takes over. */
int manager_release_profile(Manager *m, char **ret_message);
/* The profile name asked for at run time or on the command line, NULL for the config's. */
const char *manager_profile_request(const Manager *m);
/*
 * A change decided by the adaptive controller (origin "adaptive", KnobChanged
 * reason "adaptive", why in the log) on the grounds that the knob holds
 * `expected`. Knobs a person set or changed outside netpolld are left alone
 * (returns 0 without writing); -ESTALE when the knob no longer holds
 * `expected` (nothing written: decide again with the new value); 1 when
 * the value was written (or, in a dry run, logged).
 */
int manager_adapt(Manager *m, const char *name, uint64_t expected, uint64_t value, const char *why);
/*
 * Sockets copied busy-read when they were made: the controller's busy-read
 * move from old to new (a yield or its return) also goes to the live ones
 * when [adaptive] live-sockets is on (manager-livesock.c). Call it after the
 * step's sysctls are all written: the walk over every process takes 20-120
 * ms on a loaded machine, and epoll applications, which read busy_poll at
 * each wait, must not wait for it.
 */
void manager_adapt_live_sockets(Manager *m, uint64_t old, uint64_t new);

/*
 * The Prometheus text exposition of knobs, controller decisions, busy-poll
 * packets, queues and per-CPU load (sensing/metrics.h) in *ret (caller
 * frees). Reads only. When adaptation is not running it samples the monitor
 * (as GetLoad does). 0 or -ENOMEM; sources that cannot be read leave their
 * families empty.
 */
int manager_metrics(Manager *m, char **ret);
/* Writes manager_metrics() to path atomically (a temporary file beside it, then rename). 0 or -errno. */
int manager_write_metrics_file(Manager *m, const char *path);
/* Starts, stops or keeps the 1 s metrics-file timer as the configuration says (after start and each reload). */
void manager_follow_metrics_file(Manager *m);

/*
 * The rows of ListIrqs (irqpin_list(): every device but loopback, queues in
 * order; caller frees with irq_rows_free()). -EIO with a message when
 * netlink could not be opened at start-up.
 */
int manager_list_irqs(Manager *m, IrqRow **ret, size_t *ret_n, char **ret_message);

/* A NAPI instance and its kernel thread, for ListNapiThreads. The strings point into the IrqRow it came from. */
typedef struct NapiThread {
        const char *device;
        uint32_t napi_id;
        const char *mode;        /* napi-threaded's name; "" when the kernel does not say */
        int32_t thread;          /* its kernel thread's pid, -1: none */
        const char *thread_cpus; /* "" without a thread */
} NapiThread;
/* Each NAPI instance of rows once, in their order; caller frees *ret (not what it points into). */
int manager_napi_threads(const IrqRow *rows, size_t n, NapiThread **ret, size_t *ret_n);

/* On stop: restores every recorded original (rollback auto) or forgets them (not-on-exit). */
int manager_stop(Manager *m);

/*
 * Connects the daemon to its callers (bus_attach(), bus.h): called by
 * manager_run() once the event loop and signals exist and before the journal
 * is opened, so that what it takes (the bus name) can be the single-instance
 * lock. It registers its listener with manager_listen() and logs its own
 * failure (then manager_run() returns the negative errno).
 */
typedef int (*ManagerAttach)(Manager *m, sd_event *event, void *userdata);

/*
 * The daemon: refuses an invalid configuration before touching anything, drops
 * capabilities, attaches its callers (attach(m, event, userdata)), replays
 * a journal a crash left, applies the profile, starts adaptation, steering and
 * the ownership check, tells systemd it is ready and runs until SIGTERM/SIGINT
 * (restore) with SIGHUP as reload. 0 after a clean stop, else a negative errno
 * (logged).
 */
int manager_run(Manager *m, ManagerAttach attach, void *userdata);
