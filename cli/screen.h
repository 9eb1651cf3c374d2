/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * screen.h: the screen of "netpollctl monitor": the last knob changes
 * (EventLog), the screen's text from plain data (screen_render), and the
 * repaint of a terminal with that text (screen_paint). Pure: no bus, no
 * clock; it writes into a FILE and never logs.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "bus-types.h"
#include "macro.h"

#define EVENT_LOG_SIZE 10

typedef struct ChangeEvent {
        char time[16];          /* as given, e.g. "14:03:07" (truncated to fit) */
        char *name;
        char *old;
        char *new;
        char *reason;
} ChangeEvent;

/* The last EVENT_LOG_SIZE changes; zero-initialized is empty. */
typedef struct EventLog {
        ChangeEvent events[EVENT_LOG_SIZE];
        size_t first;           /* index of the oldest */
        size_t n;
} EventLog;

/* Appends copies of the strings, dropping the oldest change when full. 0, or -ENOMEM with l unchanged. */
int event_log_add(EventLog *l, const char *time, const char *name, const char *old, const char *new,
                  const char *reason);
/* The i-th change, 0 being the newest; NULL when there are not that many. */
const ChangeEvent *event_log_get(const EventLog *l, size_t i);
size_t event_log_size(const EventLog *l);
/* Frees the copies; l is empty afterwards. */
void event_log_clear(EventLog *l);

/* What one screen shows. Every pointer may be NULL unless said otherwise. */
typedef struct Screen {
        const char *profile;
        const char *mode;
        const char *source;             /* runnable-depth source */
        int pressure;                   /* PSI in use; -1 not reported */
        const char *time;               /* "Updated:" line; none when NULL */
        const char *note;               /* a problem with the data, shown under the header */
        const CpuLoad *cpus;
        size_t n_cpus;
        const char *load_note;          /* shown instead of the CPU table when set */
        const KnobInfo *knobs;          /* unsupported ones are left out */
        size_t n_knobs;
        const EventLog *events;         /* "Recent changes" section; none when NULL */
} Screen;

/* Writes the screen as plain text lines (no terminal codes). 0, -ENOMEM, or -EIO when f fails. */
int screen_render(const Screen *s, FILE *f);

/*
 * Repaints a terminal with text (lines ending in '\n'): cursor home, each
 * line cut to cols - 1 characters (a full-width line would make the
 * erase-to-end-of-line that follows it erase its last character) and
 * erased to its end, the rest of the screen erased. More lines than rows:
 * the last row says how many were left out. rows or cols 0: no limit.
 * 0, or -EIO when f fails.
 */
int screen_paint(const char *text, unsigned rows, unsigned cols, FILE *f);

#define SCREEN_LOAD_UNSUPPORTED "Per-CPU load: this netpolld does not report it (it has no GetLoad method)."

/*
 * The load_note for a GetLoad call that failed with this D-Bus error: 1 and
 * *ret (free()) when the daemon says it cannot report the load (it predates
 * GetLoad, or it cannot read the statistics: a BUS_ERROR_PREFIX name), so the
 * screen says so and shows the rest; 0 and *ret untouched for other failures
 * (a timeout, a lost connection), which are the caller's to report; -ENOMEM.
 */
int screen_load_note(const char *error_name, const char *message, char **ret);

/* Alternate screen with a hidden cursor, and back; what the live monitor wraps itself in. */
#define SCREEN_ENTER "\033[?1049h\033[?25l"
#define SCREEN_LEAVE "\033[?25h\033[?1049l"
