/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * log.h: logging for programs' edges (the daemon's main loop, bus handlers,
 * controller decisions, CLI). Library code returns errors and never logs.
 * Messages above the maximum level (LOG_INFO unless set) are dropped. The
 * console target writes to stderr; when stderr is connected to the journal
 * (JOURNAL_STREAM matches it) each line carries the "<N>" priority prefix that
 * journald understands, else a readable "error: " style prefix. The journal
 * target sends structured entries over journald's native protocol; with
 * log_fields() an entry carries extra fields of the caller's.
 */
#pragma once

#include <syslog.h>

#include "macro.h"

/* Where messages go; the names are those of systemd's LogTarget (org.freedesktop.LogControl1(5)). */
typedef enum LogTarget {
        LOG_TARGET_CONSOLE,     /* stderr (the default) */
        LOG_TARGET_JOURNAL,     /* sd_journal_send(); stderr when journald cannot be reached */
        LOG_TARGET_AUTO,        /* the journal when stderr is connected to it, else the console */
        LOG_TARGET_NULL,        /* nothing */
        _LOG_TARGET_MAX,
} LogTarget;

/* For messages about the words log_level_from_string() and log_target_from_string() take. */
#define LOG_LEVEL_NAMES "emerg, alert, crit, err, warning, notice, info, debug"
#define LOG_TARGET_NAMES "console, journal, auto, null"

/* Messages with a level above this (LOG_EMERG 0 ... LOG_DEBUG 7) are dropped. */
void log_set_max_level(int level);
int log_get_max_level(void);
void log_set_target(LogTarget target);
LogTarget log_get_target(void);

/* A syslog level name (LOG_LEVEL_NAMES) or its number 0-7 -> LOG_EMERG...LOG_DEBUG, else -EINVAL. */
int log_level_from_string(const char *s);
/* The syslog name of a level, NULL when out of range. */
const char *log_level_to_string(int level);
/* One of LOG_TARGET_NAMES -> LogTarget, else -EINVAL. */
int log_target_from_string(const char *s);
/* NULL when out of range. */
const char *log_target_to_string(LogTarget target);

/* Program name for terminal output ("netpolld: error: ...") and the journal's SYSLOG_IDENTIFIER. */
void log_set_program(const char *name);

/*
 * The journal's socket, for tests (NULL: journald's own); the string must stay
 * valid. A path that is not a socket counts as no journald.
 */
void log_set_journal_socket(const char *path);

/* Logs at level and returns -abs(error) (or 0 when error is 0) for "return log_..._errno(r, ...)". */
int log_internal(int level, int error, const char *fmt, ...) _printf_(3, 4);
/*
 * Like log_internal(); on the journal target the entry also carries fields:
 * NAME, VALUE pairs ending with NULL (NAME: uppercase letters, digits and '_',
 * not starting with '_'; a NULL VALUE is sent empty). The console shows the
 * message only.
 */
int log_fields_internal(int level, int error, const char *const *fields, const char *fmt, ...) _printf_(4, 5);

#define log_debug(...) log_internal(LOG_DEBUG, 0, __VA_ARGS__)
#define log_info(...) log_internal(LOG_INFO, 0, __VA_ARGS__)
#define log_notice(...) log_internal(LOG_NOTICE, 0, __VA_ARGS__)
#define log_warning(...) log_internal(LOG_WARNING, 0, __VA_ARGS__)
#define log_error(...) log_internal(LOG_ERR, 0, __VA_ARGS__)
#define log_debug_errno(e, ...) log_internal(LOG_DEBUG, (e), __VA_ARGS__)
#define log_info_errno(e, ...) log_internal(LOG_INFO, (e), __VA_ARGS__)
#define log_warning_errno(e, ...) log_internal(LOG_WARNING, (e), __VA_ARGS__)
#define log_error_errno(e, ...) log_internal(LOG_ERR, (e), __VA_ARGS__)

/* log_fields(LOG_INFO, LOG_FIELDS("KNOB", name, "OLD", old), "%s: ...", ...) */
#define LOG_FIELDS(...) ((const char *const[]){ __VA_ARGS__, NULL })
#define log_fields(level, fields, ...) log_fields_internal((level), 0, (fields), __VA_ARGS__)

#define log_oom() log_internal(LOG_ERR, -ENOMEM, "Out of memory.")
