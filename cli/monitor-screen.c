/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * monitor-screen.c: the screens of netpollctl monitor. Live on a terminal:
 * an sd-event loop where a 1 s timer sends GetAll, GetLoad and ListKnobs
 * asynchronously (so that SIGINT, knob changes and a slow daemon never wait
 * on each other), KnobChanged signals fill the list of recent changes, and
 * every refresh, change or window resize repaints the alternate screen.
 * With --once: one screen (or JSON document) from synchronous calls.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "monitor.h"
#include "screen.h"

#define REFRESH_USEC 1000000ULL

/*
 * The calls of one refresh, in the order they are sent (and, from one
 * daemon, answered). GetLoad first: without the controller running the
 * daemon samples whenever it is asked about the load, reading the
 * RunqueueSource property included, and GetLoad reports the rates since
 * that previous sample. Sent right after GetAll it would cover
 * microseconds; sent first it covers the second since the last refresh.
 */
enum {
        CALL_LOAD,
        CALL_PROPERTIES,
        CALL_KNOBS,
        _CALL_MAX,
};

static const char *const call_names[_CALL_MAX] = { "GetLoad", "GetAll", "ListKnobs" };

typedef struct Live {
        sd_event *event;
        sd_bus *bus;
        MonitorHooks hooks;
        EventLog log;

        sd_bus_slot *slots[_CALL_MAX];
        unsigned pending;               /* replies still awaited in this refresh */

        /* The latest good replies, kept because what was read from them borrows their strings. */
        sd_bus_message *replies[_CALL_MAX];
        Properties props;
        LoadInfo load;
        KnobInfo *knobs;
        size_t n_knobs;
        char *load_note;                /* the daemon cannot report the load: why */
        unsigned n_loads;               /* GetLoad replies so far */

        char *note;                     /* what went wrong in the last refresh */
        char *next_note;                /* ... in the one under way */
        char updated[16];

        bool screen_active;
        bool termios_saved;
        struct termios termios;
} Live;

static int local_time(char *buf, size_t size) {
        struct tm tm;
        time_t t = time(NULL);

        if (!localtime_r(&t, &tm) || strftime(buf, size, "%H:%M:%S", &tm) == 0)
                return -EINVAL;
        return 0;
}

static void live_enter_screen(Live *l) {
        struct termios t;

        /* Typed keys would be echoed into the screen; only the foreground job may change the terminal. */
        if (isatty(STDIN_FILENO) && tcgetpgrp(STDIN_FILENO) == getpgrp() &&
            tcgetattr(STDIN_FILENO, &l->termios) >= 0) {
                t = l->termios;
                t.c_lflag &= ~(tcflag_t) ECHO;
                l->termios_saved = tcsetattr(STDIN_FILENO, TCSANOW, &t) >= 0;
        }
        fputs(SCREEN_ENTER, stdout);
        fflush(stdout);
        l->screen_active = true;
}

/* Idempotent: runs before every message on stderr and once more at the end. */
static void live_leave_screen(void *userdata) {
        Live *l = userdata;

        if (l->screen_active) {
                fputs(SCREEN_LEAVE, stdout);
                fflush(stdout);
                l->screen_active = false;
        }
        if (l->termios_saved) {
                /* TCSAFLUSH: what was typed while the screen was up does not reach the shell. */
                (void) tcsetattr(STDIN_FILENO, TCSAFLUSH, &l->termios);
                l->termios_saved = false;
        }
}

static void live_done(Live *l) {
        live_leave_screen(l);
        for (size_t i = 0; i < _CALL_MAX; i++) {
                sd_bus_slot_unref(l->slots[i]);
                sd_bus_message_unref(l->replies[i]);
        }
        load_info_done(&l->load);
        free(l->knobs);
        free(l->load_note);
        free(l->note);
        free(l->next_note);
        event_log_clear(&l->log);
        /* The bus before the loop it is attached to. */
        sd_bus_flush_close_unref(l->bus);
        sd_event_unref(l->event);
}

static int live_render(Live *l) {
        const char *load_note = l->load_note;
        _cleanup_(freep) char *text = NULL;
        struct winsize ws = {};
        size_t size = 0;
        FILE *f;
        int r;

        if (!load_note && !l->replies[CALL_LOAD])
                load_note = "Per-CPU load: waiting for the first sample.";

        Screen s = {
                .profile = l->props.profile,
                .mode = l->props.mode,
                .source = l->props.runqueue_source ?: l->load.source,
                .pressure = l->props.pressure >= 0 || !l->replies[CALL_LOAD] ? l->props.pressure : l->load.psi,
                .time = l->updated[0] ? l->updated : NULL,
                .note = l->note,
                .cpus = l->load.cpus,
                .n_cpus = l->load.n_cpus,
                .load_note = load_note,
                .knobs = l->knobs,
                .n_knobs = l->n_knobs,
                .events = &l->log,
        };

        f = open_memstream(&text, &size);
        if (!f)
                return -ENOMEM;
        r = screen_render(&s, f);
        if (fclose(f) != 0 && r >= 0)
                r = -ENOMEM;
        if (r < 0)
                return r;

        /* Unknown size (0): paint it all and let the terminal scroll. */
        (void) ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws);
        r = screen_paint(text, ws.ws_row, ws.ws_col, stdout);
        if (r >= 0 && fflush(stdout) != 0)
                r = -EIO;
        return r;
}

/* Ends the loop after a failed repaint, with the message on the restored terminal. */
static int live_render_or_exit(Live *l) {
        int r = live_render(l);

        if (r < 0) {
                live_leave_screen(l);
                fprintf(stderr, "netpollctl: cannot draw the monitor screen: %s\n", strerror(-r));
                return sd_event_exit(l->event, CTL_FAILED);
        }
        return 0;
}

static void live_note(Live *l, const char *call, const char *what) {
        /* The first problem of a refresh is the one to show; later ones usually follow from it. */
        if (!l->next_note && asprintf(&l->next_note, "Refresh failed: %s: %s (older data shown)", call, what) < 0)
                l->next_note = NULL;
}

/* Reads a reply and keeps it; what it replaces stays when it cannot be read. */
static int live_store(Live *l, unsigned call, sd_bus_message *reply) {
        int r;

        switch (call) {
        case CALL_PROPERTIES: {
                Properties p;

                r = ctl_parse_properties(reply, &p);
                if (r < 0)
                        return r;
                l->props = p;
                break;
        }
        case CALL_LOAD: {
                LoadInfo load;

                r = ctl_parse_load(reply, &load);
                if (r < 0)
                        return r;
                load_info_done(&l->load);
                l->load = load;
                free(l->load_note);
                l->load_note = NULL;
                l->n_loads++;
                break;
        }
        case CALL_KNOBS: {
                KnobInfo *knobs;
                size_t n;

                r = ctl_parse_knobs(reply, &knobs, &n);
                if (r < 0)
                        return r;
                free(l->knobs);
                l->knobs = knobs;
                l->n_knobs = n;
                break;
        }
        default:
                return -EINVAL;
        }

        sd_bus_message_unref(l->replies[call]);
        l->replies[call] = sd_bus_message_ref(reply);
        return 0;
}

static int live_finish_refresh(Live *l) {
        free(l->note);
        l->note = TAKE_PTR(l->next_note);

        /*
         * Without the controller running, the daemon samples when asked: the
         * first GetLoad only starts the interval and reports zeros. Show
         * "waiting" rather than zeros that look like an idle machine.
         */
        if (l->n_loads == 1 && !streq_ptr(l->props.mode, "adaptive")) {
                load_info_done(&l->load);
                l->replies[CALL_LOAD] = sd_bus_message_unref(l->replies[CALL_LOAD]);
        }

        if (local_time(l->updated, sizeof(l->updated)) < 0)
                l->updated[0] = 0;
        return live_render_or_exit(l);
}

static int live_on_reply(Live *l, unsigned call, sd_bus_message *reply) {
        const sd_bus_error *e = sd_bus_message_get_error(reply);
        int r;

        if (e) {
                char *load_note = NULL;

                r = call == CALL_LOAD ? screen_load_note(e->name, e->message, &load_note) : 0;
                if (r > 0) {
                        free(l->load_note);
                        l->load_note = load_note;
                        load_info_done(&l->load);
                        l->replies[CALL_LOAD] = sd_bus_message_unref(l->replies[CALL_LOAD]);
                } else
                        live_note(l, call_names[call], r < 0 ? strerror(-r)
                                  : e->message && e->message[0] ? e->message : e->name);
        } else {
                r = live_store(l, call, reply);
                if (r < 0)
                        live_note(l, call_names[call], strerror(-r));
        }

        if (--l->pending == 0)
                return live_finish_refresh(l);
        return 0;
}

static int on_properties_reply(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
        return live_on_reply(userdata, CALL_PROPERTIES, m);
}

static int on_load_reply(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
        return live_on_reply(userdata, CALL_LOAD, m);
}

static int on_knobs_reply(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
        return live_on_reply(userdata, CALL_KNOBS, m);
}

static int live_refresh(Live *l) {
        static const sd_bus_message_handler_t handlers[_CALL_MAX] = {
                on_load_reply, on_properties_reply, on_knobs_reply,
        };
        int r;

        /* A daemon slower than a second: let the calls under way finish instead of piling up more. */
        if (l->pending > 0)
                return 0;

        for (unsigned i = 0; i < _CALL_MAX; i++) {
                l->slots[i] = sd_bus_slot_unref(l->slots[i]);
                if (i == CALL_PROPERTIES)
                        r = sd_bus_call_method_async(l->bus, &l->slots[i], NETPOLLD_BUS_NAME, NETPOLLD_OBJECT_PATH,
                                                     "org.freedesktop.DBus.Properties", "GetAll", handlers[i], l,
                                                     "s", NETPOLLD_INTERFACE);
                else
                        r = sd_bus_call_method_async(l->bus, &l->slots[i], NETPOLLD_BUS_NAME, NETPOLLD_OBJECT_PATH,
                                                     NETPOLLD_INTERFACE, call_names[i], handlers[i], l, NULL);
                if (r < 0)
                        live_note(l, call_names[i], strerror(-r));
                else
                        l->pending++;
        }
        return l->pending == 0 ? live_finish_refresh(l) : 0;
}

static int on_timer(sd_event_source *s, uint64_t usec, void *userdata) {
        Live *l = userdata;
        int r;

        r = sd_event_source_set_time_relative(s, REFRESH_USEC);
        if (r >= 0)
                r = sd_event_source_set_enabled(s, SD_EVENT_ONESHOT);
        if (r < 0) {
                live_leave_screen(l);
                fprintf(stderr, "netpollctl: cannot re-arm the refresh timer: %s\n", strerror(-r));
                return sd_event_exit(l->event, CTL_FAILED);
        }
        return live_refresh(l);
}

static int on_winch(sd_event_source *s, const struct signalfd_siginfo *si, void *userdata) {
        return live_render_or_exit(userdata);
}

static int live_change(void *userdata, const char *name, const char *old, const char *new, const char *reason) {
        Live *l = userdata;
        char t[16];
        int r;

        /* The signal carries no timestamp, so the time of arrival is the best we have. */
        r = local_time(t, sizeof(t));
        if (r >= 0)
                r = event_log_add(&l->log, t, name, old, new, reason);
        if (r >= 0)
                r = live_render(l);
        return r;
}

CtlStatus monitor_live(void) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_(live_done) Live l = { .props = PROPERTIES_INIT };
        sigset_t mask;
        CtlStatus s;
        int r;

        s = monitor_open(&l.event, &l.bus);
        if (s != CTL_OK)
                return s;
        l.hooks = (MonitorHooks) {
                .event = l.event,
                .change = live_change,
                .before_message = live_leave_screen,
                .userdata = &l,
        };

        r = monitor_subscribe(l.bus, &l.hooks, &error);
        if (r < 0)
                return ctl_bus_failed(&error, r);

        /* Fail before the screen appears when netpolld is absent (this also activates it). */
        r = sd_bus_call_method(l.bus, NETPOLLD_BUS_NAME, NETPOLLD_OBJECT_PATH, "org.freedesktop.DBus.Peer",
                               "Ping", &error, NULL, NULL);
        if (r < 0)
                return ctl_bus_failed(&error, r);

        sigemptyset(&mask);
        sigaddset(&mask, SIGWINCH);
        if (sigprocmask(SIG_BLOCK, &mask, NULL) < 0)
                return ctl_failed(negative_errno(), "cannot block SIGWINCH");
        r = sd_event_add_signal(l.event, NULL, SIGWINCH, on_winch, &l);
        if (r >= 0)
                /* The first refresh at once, then one a second. */
                r = sd_event_add_time_relative(l.event, NULL, CLOCK_MONOTONIC, 0, REFRESH_USEC / 20, on_timer, &l);
        if (r < 0)
                return ctl_failed(r, "cannot set up the event loop");

        live_enter_screen(&l);
        r = sd_event_loop(l.event);
        live_leave_screen(&l);
        if (r < 0)
                return ctl_failed(r, "event loop failed");
        return (CtlStatus) r;
}
