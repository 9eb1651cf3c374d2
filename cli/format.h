/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * format.h: small pure text formatters shared by netpollctl's status and
 * monitor output. Each writes into the caller's buffer (truncating to size)
 * and returns it; nothing allocates, prints or logs.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

/* A value in thousandths with two decimals, rounded half up: 1250 -> "1.25", 4 -> "0.00". */
const char *format_milli(char *buf, size_t size, uint64_t milli);

/*
 * What follows "Mode: ": the mode, then where runnable depth comes from and
 * whether PSI is used when the daemon says so:
 * "adaptive (runnable depth from procs_running, PSI in use)". mode NULL or ""
 * is "n/a"; source NULL or "" leaves out the parenthesis (a daemon without
 * RunqueueSource); pressure < 0 (not reported) leaves out the PSI part.
 */
const char *format_mode(char *buf, size_t size, const char *mode, const char *source, int pressure);

/* A wall-clock time in milliseconds since the epoch as local "HH:MM:SS.mmm" (explain's decisions). */
const char *format_time_ms(char *buf, size_t size, uint64_t at_ms);

/*
 * One controller decision as explain prints it:
 * "busy-poll 50us -> 0us at 12:01:03.120: runnable 1.40 > 0.50 for 2 samples: ...".
 * NULL strings print as "?".
 */
const char *format_decision(char *buf, size_t size, const char *knob, const char *old_value, const char *new_value,
                            uint64_t at_ms, const char *reason);
