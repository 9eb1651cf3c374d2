/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * log.h: logging for programs' edges (the daemon's main loop, bus handlers,
 * controller decisions, CLI). Library code returns errors and never logs.
 * Messages go to stderr; when stderr is connected to the journal
 * (JOURNAL_STREAM matches it) each line carries the "<N>" priority prefix that
 * journald understands, else a readable "error: " style prefix.
 */
#pragma once

#include <syslog.h>

#include "macro.h"

void log_set_max_level(int level);
int log_get_max_level(void);
/* Program name for terminal output ("netpolld: error: ..."). */
void log_set_program(const char *name);

/* Logs at level and returns -abs(error) (or 0 when error is 0) for "return log_..._errno(r, ...)". */
int log_internal(int level, int error, const char *fmt, ...) _printf_(3, 4);

#define log_debug(...) log_internal(LOG_DEBUG, 0, __VA_ARGS__)
#define log_info(...) log_internal(LOG_INFO, 0, __VA_ARGS__)
#define log_notice(...) log_internal(LOG_NOTICE, 0, __VA_ARGS__)
#define log_warning(...) log_internal(LOG_WARNING, 0, __VA_ARGS__)
#define log_error(...) log_internal(LOG_ERR, 0, __VA_ARGS__)
#define log_debug_errno(e, ...) log_internal(LOG_DEBUG, (e), __VA_ARGS__)
#define log_info_errno(e, ...) log_internal(LOG_INFO, (e), __VA_ARGS__)
#define log_warning_errno(e, ...) log_internal(LOG_WARNING, (e), __VA_ARGS__)
#define log_error_errno(e, ...) log_internal(LOG_ERR, (e), __VA_ARGS__)

#define log_oom() log_internal(LOG_ERR, -ENOMEM, "Out of memory.")
