/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * log.c: stderr logging with a journald priority prefix when stderr is the
 * journal, plain "program: level: " otherwise.
 */
#include "log.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

static int max_level = LOG_INFO;
static const char *program = NULL;
static int to_journal = -1;

void log_set_max_level(int level) {
        max_level = level;
}

int log_get_max_level(void) {
        return max_level;
}

void log_set_program(const char *name) {
        program = name;
}

/* JOURNAL_STREAM is "DEV:INODE" of the stream systemd connected; compare it with our stderr. */
static bool stderr_is_journal(void) {
        unsigned long long dev, ino;
        struct stat st;
        const char *e = getenv("JOURNAL_STREAM");

        if (!e || sscanf(e, "%llu:%llu", &dev, &ino) != 2)
                return false;
        if (fstat(STDERR_FILENO, &st) < 0)
                return false;
        return st.st_dev == dev && st.st_ino == ino;
}

static const char *level_name(int level) {
        switch (level) {
        case LOG_EMERG:
        case LOG_ALERT:
        case LOG_CRIT:
        case LOG_ERR:
                return "error: ";
        case LOG_WARNING:
                return "warning: ";
        case LOG_DEBUG:
                return "debug: ";
        default:
                return "";
        }
}

int log_internal(int level, int error, const char *fmt, ...) {
        int saved = errno;
        va_list ap;

        if (error < 0)
                error = -error;
        if (level <= max_level) {
                if (to_journal < 0)
                        to_journal = stderr_is_journal();
                if (to_journal)
                        fprintf(stderr, "<%d>", level);
                else
                        fprintf(stderr, "%s%s%s", program ?: "", program ? ": " : "", level_name(level));
                errno = error;
                va_start(ap, fmt);
                vfprintf(stderr, fmt, ap);
                va_end(ap);
                fputc('\n', stderr);
        }
        errno = saved;
        return error ? -error : 0;
}
