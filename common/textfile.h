/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * textfile.h: reading configuration files other programs own (sysctl.d,
 * tuned's active_profile, /etc/default/irqbalance) without trusting them:
 * only regular files are opened (a FIFO or device never blocks or floods
 * the reader), lines are bounded, and a NUL byte marks a binary file. Pure
 * but for the reads; nothing here logs.
 */
#pragma once

#include <stdio.h>

/* The longest line read, in bytes before the newline. */
#define TEXTFILE_LINE_MAX 4095
/* How much of one file is read at most, in bytes. */
#define TEXTFILE_SIZE_MAX (1024 * 1024)

/*
 * Opens root/path (sysroot_path() rules; symlinks that are absolute are
 * followed below root) for reading, O_NONBLOCK, refusing anything but a
 * regular file: -EISDIR, -ENXIO (a FIFO, socket or device), else the
 * errno of open. *ret_host_path (if given) is the path as the host names
 * it once links are followed ("/etc/sysctl.conf"), for messages.
 */
int textfile_open(const char *root, const char *path, FILE **ret, char **ret_host_path);

/* textfile_open() on a path as given (no root, no link resolution). */
int textfile_fopen(const char *path, FILE **ret);

/*
 * Reads the next line into buf (size TEXTFILE_LINE_MAX + 1, newline removed).
 * Returns 1 for a line, 0 at the end, -E2BIG for a longer line (the rest of
 * it is skipped, so the next call reads the line after), -EBADMSG for a line
 * holding a NUL byte (a binary file), -EFBIG once *total (bytes read so far,
 * the caller starts it at 0) passes TEXTFILE_SIZE_MAX, else a read errno.
 */
int textfile_line(FILE *f, char buf[static TEXTFILE_LINE_MAX + 1], size_t *total);

/* s without leading and trailing whitespace, in place. */
char *textfile_strip(char *s);
