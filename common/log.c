/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * log.c: the level filter and the targets: stderr (with a journald priority
 * prefix when stderr is the journal, plain "program: level: " otherwise),
 * journald's native protocol, or nothing.
 */
#include "log.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/uio.h>
/* The CODE_FILE/CODE_LINE sd-journal.h would add would always name write_journal() here. */
#define SD_JOURNAL_SUPPRESS_LOCATION
#include <systemd/sd-journal.h>

#include "strv.h"

#define JOURNAL_SOCKET "/run/systemd/journal/socket"

static int max_level = LOG_INFO;
static LogTarget target = LOG_TARGET_CONSOLE;
static const char *program = NULL;
static int stderr_journal = -1;
static const char *journal_socket = JOURNAL_SOCKET;

static const char *const level_table[] = {
        [LOG_EMERG] = "emerg",
        [LOG_ALERT] = "alert",
        [LOG_CRIT] = "crit",
        [LOG_ERR] = "err",
        [LOG_WARNING] = "warning",
        [LOG_NOTICE] = "notice",
        [LOG_INFO] = "info",
        [LOG_DEBUG] = "debug",
};

static const char *const target_table[_LOG_TARGET_MAX] = {
        [LOG_TARGET_CONSOLE] = "console",
        [LOG_TARGET_JOURNAL] = "journal",
        [LOG_TARGET_AUTO] = "auto",
        [LOG_TARGET_NULL] = "null",
};

void log_set_max_level(int level) {
        max_level = level;
}

int log_get_max_level(void) {
        return max_level;
}

void log_set_target(LogTarget t) {
        target = t;
}

LogTarget log_get_target(void) {
        return target;
}

void log_set_program(const char *name) {
        program = name;
}

void log_set_journal_socket(const char *path) {
        journal_socket = path ?: JOURNAL_SOCKET;
}

static int table_lookup(const char *const *table, size_t n, const char *s) {
        for (size_t i = 0; s && i < n; i++)
                if (streq(s, table[i]))
                        return (int)i;
        return -EINVAL;
}

int log_level_from_string(const char *s) {
        int level = table_lookup(level_table, ELEMENTSOF(level_table), s);

        /* The numbers systemd accepts too: exactly one digit, no sign, no padding. */
        if (level < 0 && s && s[0] >= '0' && s[0] <= '7' && s[1] == '\0')
                level = s[0] - '0';
        return level;
}

const char *log_level_to_string(int level) {
        return level >= 0 && (size_t)level < ELEMENTSOF(level_table) ? level_table[level] : NULL;
}

int log_target_from_string(const char *s) {
        return table_lookup(target_table, ELEMENTSOF(target_table), s);
}

const char *log_target_to_string(LogTarget t) {
        return (unsigned)t < ELEMENTSOF(target_table) ? target_table[t] : NULL;
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

static const char *level_prefix(int level) {
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

_printf_(3, 0) static void write_console(int level, int error, const char *fmt, va_list ap) {
        if (stderr_journal)
                fprintf(stderr, "<%d>", level);
        else
                fprintf(stderr, "%s%s%s", program ?: "", program ? ": " : "", level_prefix(level));
        errno = error;
        vfprintf(stderr, fmt, ap);
        fputc('\n', stderr);
}

/*
 * Negative when journald did not take the message. fields: NAME, VALUE pairs
 * ending with NULL (or NULL itself), each sent as NAME=VALUE after the
 * standard fields.
 */
_printf_(4, 0) static int write_journal(int level, int error, const char *const *fields, const char *fmt, va_list ap) {
        _cleanup_(strv_freep) char **lines = NULL;
        _cleanup_(freep) char *message = NULL;
        const char *ident = program ?: program_invocation_short_name;
        struct stat st;
        size_t n;

        /* sd_journal_sendv() reports success when journald is not running (ENOENT): ask first. */
        if (stat(journal_socket, &st) < 0 || !S_ISSOCK(st.st_mode))
                return -ENOENT;
        errno = error;
        if (vasprintf(&message, fmt, ap) < 0)
                return -ENOMEM;
        if (strv_extendf(&lines, "MESSAGE=%s", message) < 0 || strv_extendf(&lines, "PRIORITY=%i", level) < 0 ||
            strv_extendf(&lines, "SYSLOG_IDENTIFIER=%s", ident) < 0 ||
            (error > 0 && strv_extendf(&lines, "ERRNO=%i", error) < 0))
                return -ENOMEM;
        for (size_t i = 0; fields && fields[i]; i += 2)
                if (strv_extendf(&lines, "%s=%s", fields[i], fields[i + 1] ?: "") < 0)
                        return -ENOMEM;

        n = strv_length(lines);
        struct iovec iov[n];
        for (size_t i = 0; i < n; i++)
                iov[i] = (struct iovec){ .iov_base = lines[i], .iov_len = strlen(lines[i]) };
        return sd_journal_sendv(iov, (int)n);
}

_printf_(4, 0) static void log_fields_va(int level, int error, const char *const *fields, const char *fmt, va_list ap) {
        LogTarget t = target;
        va_list aq;

        if (level > max_level || t == LOG_TARGET_NULL)
                return;
        if (stderr_journal < 0)
                stderr_journal = stderr_is_journal();
        if (t == LOG_TARGET_AUTO)
                t = stderr_journal ? LOG_TARGET_JOURNAL : LOG_TARGET_CONSOLE;
        va_copy(aq, ap);
        /* Like systemd's journal target: a message journald cannot take still reaches stderr. */
        if (t != LOG_TARGET_JOURNAL || write_journal(level, error, fields, fmt, aq) < 0)
                write_console(level, error, fmt, ap);
        va_end(aq);
}

int log_internal(int level, int error, const char *fmt, ...) {
        int saved = errno;
        va_list ap;

        if (error < 0)
                error = -error;
        va_start(ap, fmt);
        log_fields_va(level, error, NULL, fmt, ap);
        va_end(ap);
        errno = saved;
        return error ? -error : 0;
}

int log_fields_internal(int level, int error, const char *const *fields, const char *fmt, ...) {
        int saved = errno;
        va_list ap;

        if (error < 0)
                error = -error;
        va_start(ap, fmt);
        log_fields_va(level, error, fields, fmt, ap);
        va_end(ap);
        errno = saved;
        return error ? -error : 0;
}
