/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * manager-run.c: the daemon's life (manager_run(), manager.h): the order of
 * start-up, the event sources (signals, the ownership check) and the stop.
 * Every object made here belongs to the Manager and goes with it.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-daemon.h>

#include "adapt.h"
#include "caps.h"
#include "cpuwake.h"
#include "irqpin.h"
#include "log.h"
#include "manager-internal.h"
#include "napi-backend.h"
#include "strv.h"
#include "sysroot.h"

/* How often values are compared with what netpolld last wrote, to notice outside changes. */
#define OWNERSHIP_CHECK_USEC (2 * UINT64_C(1000000))

static int on_terminate(sd_event_source *s, const struct signalfd_siginfo *si, void *userdata) {
        Manager *m = userdata;
        int r;

        log_info("received %s, stopping", strsignal((int)si->ssi_signo));
        sd_notify(false, "STOPPING=1\nSTATUS=Restoring knobs");
        r = manager_stop(m);
        return sd_event_exit(m->event, r < 0 ? EXIT_FAILURE : EXIT_SUCCESS);
}

static int on_reload(sd_event_source *s, const struct signalfd_siginfo *si, void *userdata) {
        Manager *m = userdata;
        _cleanup_(freep) char *msg = NULL;

        (void)manager_reload_notify(m, &msg);
        return 0;
}

void manager_notify_status(Manager *m) {
        sd_notifyf(false, "STATUS=Profile %s, %s mode%s", m->profile ? m->profile->name : "(none)", adapter_mode(m->adapter),
                   manager_dry_run(m) ? ", dry run" : "");
}

int manager_reload_notify(Manager *m, char **ret_message) {
        int r;

        sd_notify(false, "RELOADING=1\nSTATUS=Reloading configuration");
        r = manager_reload(m, ret_message);
        if (r < 0)
                log_error("reload refused, the running configuration stays in force:\n%s",
                          strempty(*ret_message));
        else {
                log_info("reloaded: profile %s", m->profile->name);
                manager_state_changed(m);
        }
        sd_notify(false, "READY=1");
        manager_notify_status(m);
        return r;
}

/* A time source is one-shot: arms it again, usec from now. */
static int timer_rearm(sd_event_source *s, uint64_t usec) {
        int r = sd_event_source_set_time_relative(s, usec);
        if (r < 0)
                return r;
        return sd_event_source_set_enabled(s, SD_EVENT_ONESHOT);
}

static int on_ownership_timer(sd_event_source *s, uint64_t usec, void *userdata) {
        manager_check_external(userdata);
        return timer_rearm(s, OWNERSHIP_CHECK_USEC);
}

#define METRICS_FILE_USEC (1 * UINT64_C(1000000))

static void metrics_file_write(Manager *m) {
        const char *path = m->config ? m->config->metrics_file : NULL;
        int r;

        if (!path)
                return;
        r = manager_write_metrics_file(m, path);
        if (r < 0 && r != m->metrics_error)
                log_warning_errno(r, "cannot write the metrics file %s: %m, retrying every second", path);
        else if (r >= 0 && m->metrics_error < 0)
                log_info("metrics file %s written again", path);
        m->metrics_error = r < 0 ? r : 0;
}

static int on_metrics_timer(sd_event_source *s, uint64_t usec, void *userdata) {
        metrics_file_write(userdata);
        return timer_rearm(s, METRICS_FILE_USEC);
}

void manager_follow_metrics_file(Manager *m) {
        bool on = m->config && m->config->metrics_file;
        int r;

        if (!m->event)
                return;
        if (!on) {
                if (m->metrics_timer)
                        (void)sd_event_source_set_enabled(m->metrics_timer, SD_EVENT_OFF);
                return;
        }
        /* Written at once (start, reload), then every second. */
        metrics_file_write(m);
        if (!m->metrics_timer)
                r = sd_event_add_time_relative(m->event, &m->metrics_timer, CLOCK_MONOTONIC, METRICS_FILE_USEC, 0,
                                               on_metrics_timer, m);
        else
                r = timer_rearm(m->metrics_timer, METRICS_FILE_USEC);
        if (r < 0)
                log_warning_errno(r, "cannot add the metrics-file timer: %m, ignoring");
}

static int setup_loop(Manager *m) {
        sigset_t mask;
        int r;

        r = sd_event_new(&m->event);
        if (r < 0)
                return log_error_errno(r, "cannot create the event loop: %m");
        r = sd_event_set_watchdog(m->event, true);
        if (r < 0)
                return log_error_errno(r, "cannot enable the watchdog: %m");
        sigemptyset(&mask);
        sigaddset(&mask, SIGTERM);
        sigaddset(&mask, SIGINT);
        sigaddset(&mask, SIGHUP);
        sigprocmask(SIG_BLOCK, &mask, NULL);
        if ((r = sd_event_add_signal(m->event, NULL, SIGTERM, on_terminate, m)) < 0 ||
            (r = sd_event_add_signal(m->event, NULL, SIGINT, on_terminate, m)) < 0 ||
            (r = sd_event_add_signal(m->event, NULL, SIGHUP, on_reload, m)) < 0)
                return log_error_errno(r, "cannot watch signals: %m");
        return 0;
}

/* After each steering pass: the busy-poll NAPI threads are the adaptive monitor's dedicated pollers. */
static void on_steering_pass(void *userdata) {
        Manager *m = userdata;
        _cleanup_(freep) int *pids = NULL;
        size_t n = 0;

        if (m->irqpin && m->adapter && irqpin_busy_poll_threads(m->irqpin, &pids, &n) >= 0)
                adapter_set_pollers(m->adapter, pids, n);
        /* Devices came or went: the irqbalance drop-in follows the steered IRQs. */
        manager_follow_irqbalance(m);
}

int manager_run(Manager *m, ManagerAttach attach, void *userdata) {
        _cleanup_(config_freep) DaemonConfig *config = NULL;
        _cleanup_(profile_freep) Profile *profile = NULL;
        _cleanup_(strv_freep) char **errors = NULL;
        _cleanup_(freep) char *msg = NULL;
        int r;

        /* Refuse a bad configuration before touching anything. */
        r = manager_load_policy(m, NULL, &config, &profile, &errors);
        if (r < 0) {
                for (char **e = errors; e && *e; e++)
                        log_error("%s", *e);
                return log_error_errno(r, "refusing to start with an invalid configuration");
        }

        /*
         * What the sysroot's /proc and /sys are, not what its name is: "/"
         * and a bind mount of the real ones (/host in the Kubernetes
         * example) are the running kernel; a fixture tree is not.
         */
        m->sysroot_live = sysroot_is_live(m->sysroot, &m->sysroot_why_not);
        if (m->sysroot_live)
                log_info("sysroot %s: the running kernel's /proc and /sys", m->sysroot);
        else
                log_info("sysroot %s: not the running kernel (%s)", m->sysroot, m->sysroot_why_not);

        /*
         * The kernel takes a sub-2 s CPU pressure trigger only on a file
         * opened with CAP_SYS_RESOURCE (cpuwake.h): the one the service
         * manager passed, whatever the sysroot (it is the real kernel's);
         * else netpolld's own, opened while traffic flows (adapt.c), for
         * which the capability stays permitted when the starting profile
         * adapts on a live sysroot (a fixture has no PSI to trigger on).
         */
        m->cpuwake_fd = cpuwake_passed();
        if (m->cpuwake_fd == -ENOENT && m->sysroot_live) {
                if (!profile->adaptive.enabled)
                        m->cpuwake_fd = -ENOTSUP;
                else if (!cpuwake_privileged())
                        m->cpuwake_fd = -EPERM;
                else
                        m->cpuwake_can_open = true;
        }

        /* CAP_SYS_PTRACE stays only for a starting profile with live sockets (manager-livesock.c). */
        r = caps_drop_to_minimum(profile->adaptive.enabled && profile->adaptive.live_sockets, m->cpuwake_can_open);
        if (r < 0)
                return log_error_errno(r, "cannot drop capabilities: %m");
        if (r > 0)
                log_info("capabilities: none held, none to drop");
        else {
                _cleanup_(freep) char *kept = caps_describe();
                log_info("capabilities kept: %s", kept ?: "?");
        }
        m->live_ptrace = r == 0 && profile->adaptive.enabled && profile->adaptive.live_sockets && caps_hold_ptrace();

        r = setup_loop(m);
        if (r < 0)
                return r;

        /* The bus name is also the single-instance lock: take it before touching the journal. */
        r = attach(m, m->event, userdata);
        if (r < 0)
                return r;

        /* Per-NAPI values are restored over netlink, already in the crash replay of manager_start(). */
        r = napi_backend_new(&m->napi);
        if (r < 0)
                return log_oom();
        m->napi_backend = napi_backend_ops(m->napi);
        /* Device-wide per-NAPI knobs (irq-suspend-timeout@DEV) read netlink: the devices a live sysroot's /sys shows. */
        if (m->sysroot_live) {
                knob_set_napi_source(napi_backend_knob_source(m->napi));
                log_info("per-NAPI device knobs (irq-suspend-timeout@DEV): from the kernel over netlink");
        } else
                log_info("per-NAPI device knobs (irq-suspend-timeout@DEV): unsupported below %s", m->sysroot);

        r = manager_start(m, TAKE_PTR(config), TAKE_PTR(profile), &msg);
        if (r < 0)
                return log_error_errno(r, "%s", msg ?: strerror(-r));

        r = adapter_new(&m->adapter, m, m->event);
        if (r < 0)
                return log_error_errno(r, "cannot set up adaptation: %m");
        /* Writes through the owner, which manager_start() made. */
        r = irqpin_new(&m->irqpin, m->event, m->sysroot, m->owner);
        if (r < 0)
                log_warning_errno(r, "cannot follow network devices over netlink: %m; IRQ and queue steering is off");
        irqpin_set_pass_callback(m->irqpin, on_steering_pass, m);
        manager_follow_profile(m);
        on_steering_pass(m); /* the profile's NAPI modes, set before steering existed */
        manager_follow_rules(m);

        r = sd_event_add_time_relative(m->event, &m->ownership_timer, CLOCK_MONOTONIC, OWNERSHIP_CHECK_USEC, 0,
                                       on_ownership_timer, m);
        if (r < 0)
                return log_error_errno(r, "cannot add a timer: %m");

        log_info("running with profile %s (%s)%s", m->profile->name, m->profile->path,
                 manager_dry_run(m) ? " in dry-run mode" : "");
        sd_notifyf(false, "READY=1\nSTATUS=Profile %s, %s mode%s", m->profile->name, adapter_mode(m->adapter),
                   manager_dry_run(m) ? ", dry run" : "");

        r = sd_event_loop(m->event);
        if (r < 0)
                return log_error_errno(r, "event loop failed: %m");
        return r == EXIT_SUCCESS ? 0 : -EIO;
}
