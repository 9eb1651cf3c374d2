/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * screen.c: the screen of "netpollctl monitor" (see screen.h): header,
 * per-CPU load, knob table and recent changes as text, and the repaint of
 * a terminal with it.
 */
#include "screen.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "bus-errors.h"
#include "format.h"
#include "table.h"

static void change_event_done(ChangeEvent *e) {
        free(e->name);
        free(e->old);
        free(e->new);
        free(e->reason);
        *e = (ChangeEvent) {};
}

int event_log_add(EventLog *l, const char *time, const char *name, const char *old, const char *new,
                  const char *reason) {
        ChangeEvent e = {};
        size_t slot;

        if (!l || !time || !name || !old || !new || !reason)
                return -EINVAL;

        e.name = strdup(name);
        e.old = strdup(old);
        e.new = strdup(new);
        e.reason = strdup(reason);
        if (!e.name || !e.old || !e.new || !e.reason) {
                change_event_done(&e);
                return -ENOMEM;
        }
        snprintf(e.time, sizeof(e.time), "%s", time);

        if (l->n < EVENT_LOG_SIZE)
                slot = (l->first + l->n++) % EVENT_LOG_SIZE;
        else {
                /* Full: the oldest slot takes the new change and the next one becomes the oldest. */
                slot = l->first;
                change_event_done(&l->events[slot]);
                l->first = (l->first + 1) % EVENT_LOG_SIZE;
        }
        l->events[slot] = e;
        return 0;
}

const ChangeEvent *event_log_get(const EventLog *l, size_t i) {
        if (!l || i >= l->n)
                return NULL;
        return &l->events[(l->first + l->n - 1 - i) % EVENT_LOG_SIZE];
}

size_t event_log_size(const EventLog *l) {
        return l ? l->n : 0;
}

void event_log_clear(EventLog *l) {
        if (!l)
                return;
        for (size_t i = 0; i < EVENT_LOG_SIZE; i++)
                change_event_done(&l->events[i]);
        l->first = l->n = 0;
}

int screen_load_note(const char *error_name, const char *message, char **ret) {
        char *note;

        if (!error_name || !ret)
                return -EINVAL;

        if (streq(error_name, "org.freedesktop.DBus.Error.UnknownMethod"))
                note = strdup(SCREEN_LOAD_UNSUPPORTED);
        else if (startswith(error_name, BUS_ERROR_PREFIX)) {
                if (asprintf(&note, "Per-CPU load: not available: %s",
                             message && message[0] ? message : error_name) < 0)
                        note = NULL;
        } else
                return 0;
        if (!note)
                return -ENOMEM;
        *ret = note;
        return 1;
}

static int render_cpus(const Screen *s, FILE *f) {
        static const char *const headers[] = { "cpu", "runnable", "net_rx/s", "squeeze/s", "drops/s" };
        _cleanup_(table_freep) Table *t = NULL;
        int r;

        if (s->load_note) {
                fprintf(f, "%s\n", s->load_note);
                return 0;
        }
        if (s->n_cpus == 0) {
                fputs("No per-CPU load reported.\n", f);
                return 0;
        }

        r = table_new(&t, ELEMENTSOF(headers), headers);
        for (size_t i = 0; r >= 0 && i < s->n_cpus; i++) {
                const CpuLoad *c = &s->cpus[i];
                char cpu[16], runnable[32], rx[32], squeeze[32], drops[32];

                snprintf(cpu, sizeof(cpu), "%" PRIu32, c->cpu);
                snprintf(rx, sizeof(rx), "%" PRIu64, c->net_rx);
                snprintf(squeeze, sizeof(squeeze), "%" PRIu64, c->squeeze);
                snprintf(drops, sizeof(drops), "%" PRIu64, c->drops);
                r = table_add_cells(t, cpu, format_milli(runnable, sizeof(runnable), c->runnable_milli), rx,
                                    squeeze, drops);
        }
        return r < 0 ? r : table_print(t, f);
}

static int render_knobs(const Screen *s, FILE *f) {
        static const char *const headers[] = { "knob", "value", "origin" };
        _cleanup_(table_freep) Table *t = NULL;
        int r;

        r = table_new(&t, ELEMENTSOF(headers), headers);
        for (size_t i = 0; r >= 0 && i < s->n_knobs; i++)
                if (s->knobs[i].supported)
                        r = table_add_cells(t, s->knobs[i].name, s->knobs[i].value, s->knobs[i].origin);
        if (r < 0)
                return r;
        if (table_get_rows(t) == 0) {
                fputs("No supported knobs.\n", f);
                return 0;
        }
        return table_print(t, f);
}

static int render_events(const Screen *s, FILE *f) {
        static const char *const headers[] = { "time", "knob", "change", "reason" };
        _cleanup_(table_freep) Table *t = NULL;
        int r;

        if (event_log_size(s->events) == 0) {
                fputs("No knob changes since the monitor started.\n", f);
                return 0;
        }

        /* Newest first: when the terminal is too short, the oldest changes are the ones cut. */
        fputs("Recent changes, newest first:\n", f);
        r = table_new(&t, ELEMENTSOF(headers), headers);
        for (size_t i = 0; r >= 0 && i < event_log_size(s->events); i++) {
                const ChangeEvent *e = event_log_get(s->events, i);
                _cleanup_(freep) char *change = NULL;

                if (asprintf(&change, "%s -> %s", e->old[0] ? e->old : "-", e->new[0] ? e->new : "-") < 0)
                        return -ENOMEM;
                r = table_add_cells(t, e->time, e->name, change, e->reason);
        }
        return r < 0 ? r : table_print(t, f);
}

int screen_render(const Screen *s, FILE *f) {
        char mode[256];
        int r;

        if (!s || !f)
                return -EINVAL;

        fprintf(f, "Profile: %s\n", s->profile && s->profile[0] ? s->profile : "n/a");
        fprintf(f, "Mode: %s\n", format_mode(mode, sizeof(mode), s->mode, s->source, s->pressure));
        if (s->time)
                fprintf(f, "Updated: %s\n", s->time);
        if (s->note)
                fprintf(f, "%s\n", s->note);

        fputc('\n', f);
        r = render_cpus(s, f);
        if (r < 0)
                return r;

        fputc('\n', f);
        r = render_knobs(s, f);
        if (r < 0)
                return r;

        if (s->events) {
                fputc('\n', f);
                r = render_events(s, f);
                if (r < 0)
                        return r;
        }
        return ferror(f) ? -EIO : 0;
}

/* Bytes of s that hold at most max characters (UTF-8 code points); max 0 means all of it. */
static size_t prefix_bytes(const char *s, size_t len, size_t max) {
        size_t chars = 0;

        if (max == 0)
                return len;
        for (size_t i = 0; i < len; i++)
                if (((unsigned char) s[i] & 0xC0) != 0x80 && chars++ == max)
                        return i;
        return len;
}

int screen_paint(const char *text, unsigned rows, unsigned cols, FILE *f) {
        size_t n_lines = 0, shown, width = cols > 1 ? cols - 1 : cols;
        const char *p;

        if (!text || !f)
                return -EINVAL;

        for (p = text; *p; p++)
                if (*p == '\n')
                        n_lines++;
        if (p > text && p[-1] != '\n')
                n_lines++;
        shown = rows == 0 || n_lines <= rows ? n_lines : rows - 1;

        fputs("\033[H", f);
        p = text;
        for (size_t i = 0; i < shown; i++) {
                size_t len = strcspn(p, "\n");

                fwrite(p, 1, prefix_bytes(p, len, width), f);
                /* No newline after the bottom row: it would scroll the screen by one line. */
                fputs(i + 1 < shown || shown < n_lines ? "\033[K\n" : "\033[K", f);
                p += len + (p[len] == '\n');
        }
        if (shown < n_lines) {
                char more[64];
                int len = snprintf(more, sizeof(more), "... %zu more lines: enlarge the window",
                                   n_lines - shown);

                fwrite(more, 1, prefix_bytes(more, (size_t) len, width), f);
                fputs("\033[K", f);
        }
        fputs("\033[J", f);
        return ferror(f) ? -EIO : 0;
}
