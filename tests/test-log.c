/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * test-log.c: log level and target names (what --log-level,
 * NETPOLLD_LOG_LEVEL and org.freedesktop.LogControl1 accept), the level
 * filter, with stderr captured in a file, and the journal target's fields,
 * with sd_journal_sendv() replaced by a recorder.
 */
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#define SD_JOURNAL_SUPPRESS_LOCATION /* declare sd_journal_sendv() itself, not a macro */
#include <systemd/sd-journal.h>

#include "log.h"
#include "testutil.h"

static char *dir = NULL;
static char *socket_path = NULL;

/* What the last sd_journal_sendv() call sent, one field per line. */
static char journal_sent[4096];
static int journal_calls;

/* Replaces libsystemd's: the linker resolves log.c's call to this definition. */
int sd_journal_sendv(const struct iovec *iov, int n) {
        size_t len = 0;

        journal_calls++;
        journal_sent[0] = '\0';
        for (int i = 0; i < n; i++) {
                int w = snprintf(journal_sent + len, sizeof(journal_sent) - len, "%.*s\n", (int)iov[i].iov_len,
                                 (const char *)iov[i].iov_base);
                ck_assert_int_lt(w, (int)(sizeof(journal_sent) - len));
                len += (size_t)w;
        }
        return 0;
}

static void setup(void) {
        dir = tu_mkdtemp();
        /* Plain "program: level: " lines, whatever stream the test runner's stderr is. */
        unsetenv("JOURNAL_STREAM");
        log_set_program("t");
        log_set_max_level(LOG_INFO);
        log_set_target(LOG_TARGET_CONSOLE);
}

static void teardown(void) {
        log_set_journal_socket(NULL);
        free(socket_path);
        socket_path = NULL;
        tu_rm_rf(dir);
        free(dir);
        dir = NULL;
}

/* Runs fn with stderr going to a file; returns what it wrote (caller frees). */
static char *capture_stderr(void (*fn)(void)) {
        _cleanup_(freep) char *path = tu_join(dir, "stderr");
        int saved, fd;

        fflush(stderr);
        saved = dup(STDERR_FILENO);
        ck_assert_int_ge(saved, 0);
        fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        ck_assert_int_ge(fd, 0);
        ck_assert_int_ge(dup2(fd, STDERR_FILENO), 0);
        close(fd);
        fn();
        fflush(stderr);
        ck_assert_int_ge(dup2(saved, STDERR_FILENO), 0);
        close(saved);
        return tu_read(dir, "stderr");
}

START_TEST(test_log_level_takes_the_syslog_names) {
        static const struct {
                const char *name;
                int level;
        } names[] = {
                { "emerg", LOG_EMERG }, { "alert", LOG_ALERT },     { "crit", LOG_CRIT }, { "err", LOG_ERR },
                { "warning", LOG_WARNING }, { "notice", LOG_NOTICE }, { "info", LOG_INFO }, { "debug", LOG_DEBUG },
        };

        for (size_t i = 0; i < ELEMENTSOF(names); i++) {
                ck_assert_int_eq(log_level_from_string(names[i].name), names[i].level);
                ck_assert_str_eq(log_level_to_string(names[i].level), names[i].name);
        }
}
END_TEST

START_TEST(test_log_level_takes_the_numbers_0_to_7) {
        char s[2] = "";

        for (int i = 0; i <= 7; i++) {
                s[0] = (char)('0' + i);
                ck_assert_int_eq(log_level_from_string(s), i);
        }
}
END_TEST

START_TEST(test_log_level_rejects_other_words) {
        static const char *const bad[] = { "",      "8",     "-1",    "07",  "+7",   " 7",    "7 ",
                                           "debug ", " info", "DEBUG", "Info", "warn", "error", "verbose",
                                           "info\n", "0x7",   "1.0" };

        for (size_t i = 0; i < ELEMENTSOF(bad); i++)
                ck_assert_msg(log_level_from_string(bad[i]) == -EINVAL, "'%s' was accepted", bad[i]);
        ck_assert_int_eq(log_level_from_string(NULL), -EINVAL);
        ck_assert_ptr_null(log_level_to_string(-1));
        ck_assert_ptr_null(log_level_to_string(8));
}
END_TEST

START_TEST(test_log_target_takes_what_netpolld_can_do) {
        static const char *const bad[] = { "", "kmsg", "syslog", "console-prefixed", "journal-or-kmsg",
                                           "syslog-or-kmsg", "Console", "journal " };

        ck_assert_int_eq(log_target_from_string("console"), LOG_TARGET_CONSOLE);
        ck_assert_int_eq(log_target_from_string("journal"), LOG_TARGET_JOURNAL);
        ck_assert_int_eq(log_target_from_string("auto"), LOG_TARGET_AUTO);
        ck_assert_int_eq(log_target_from_string("null"), LOG_TARGET_NULL);
        for (int t = 0; t < _LOG_TARGET_MAX; t++)
                ck_assert_int_eq(log_target_from_string(log_target_to_string(t)), t);
        for (size_t i = 0; i < ELEMENTSOF(bad); i++)
                ck_assert_msg(log_target_from_string(bad[i]) == -EINVAL, "'%s' was accepted", bad[i]);
        ck_assert_int_eq(log_target_from_string(NULL), -EINVAL);
        ck_assert_ptr_null(log_target_to_string(_LOG_TARGET_MAX));
}
END_TEST

static void log_each_level(void) {
        log_debug("d");
        log_info("i");
        log_notice("n");
        log_warning("w");
        log_error("e");
}

START_TEST(test_log_default_level_drops_debug) {
        _cleanup_(freep) char *out = capture_stderr(log_each_level);
        ck_assert_str_eq(out, "t: i\nt: n\nt: warning: w\nt: error: e\n");
}
END_TEST

START_TEST(test_log_debug_level_prints_debug) {
        log_set_max_level(LOG_DEBUG);
        _cleanup_(freep) char *out = capture_stderr(log_each_level);
        ck_assert_str_eq(out, "t: debug: d\nt: i\nt: n\nt: warning: w\nt: error: e\n");
}
END_TEST

START_TEST(test_log_err_level_keeps_errors_only) {
        log_set_max_level(LOG_ERR);
        _cleanup_(freep) char *out = capture_stderr(log_each_level);
        ck_assert_str_eq(out, "t: error: e\n");
}
END_TEST

START_TEST(test_log_null_target_prints_nothing) {
        log_set_max_level(LOG_DEBUG);
        log_set_target(LOG_TARGET_NULL);
        _cleanup_(freep) char *out = capture_stderr(log_each_level);
        ck_assert_str_eq(out, "");
}
END_TEST

static int filtered_r, filtered_errno;

static void log_filtered_errno(void) {
        errno = EAGAIN;
        filtered_r = log_debug_errno(-EIO, "not shown: %m");
        filtered_errno = errno;
}

START_TEST(test_log_dropped_message_still_returns_the_error) {
        _cleanup_(freep) char *out = capture_stderr(log_filtered_errno);
        ck_assert_str_eq(out, "");
        ck_assert_int_eq(filtered_r, -EIO);
        ck_assert_int_eq(filtered_errno, EAGAIN);
}
END_TEST

static void log_error_with_errno(void) {
        log_error_errno(-ENOENT, "cannot open %s: %m", "x");
}

START_TEST(test_log_journal_target_without_journald_writes_stderr) {
        struct stat st;

        if (stat("/run/systemd/journal/socket", &st) == 0) {
                tu_skip("journald runs here");
        }
        log_set_target(LOG_TARGET_JOURNAL);
        _cleanup_(freep) char *out = capture_stderr(log_error_with_errno);
        ck_assert_str_eq(out, "t: error: cannot open x: No such file or directory\n");
}
END_TEST

/* A socket in the test's directory stands in for journald's (log.c only checks that it is one). */
static void fake_journald(void) {
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);

        socket_path = tu_join(dir, "journal.socket");
        ck_assert_int_ge(fd, 0);
        ck_assert_uint_lt(strlen(socket_path), sizeof(sa.sun_path));
        strcpy(sa.sun_path, socket_path);
        ck_assert_int_eq(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
        close(fd); /* the file stays */
        log_set_journal_socket(socket_path);
        log_set_target(LOG_TARGET_JOURNAL);
        journal_calls = 0;
        journal_sent[0] = '\0';
}

static void log_a_change(void) {
        log_fields(LOG_INFO, LOG_FIELDS("KNOB", "busy-read", "OLD", "0", "NEW", "50", "REASON", "manual"),
                   "%s: %s -> %s (%s)", "busy-read", "0", "50", "manual");
}

START_TEST(test_log_fields_reach_the_journal_after_the_standard_ones) {
        fake_journald();
        _cleanup_(freep) char *out = capture_stderr(log_a_change);
        ck_assert_str_eq(out, "");
        ck_assert_int_eq(journal_calls, 1);
        ck_assert_str_eq(journal_sent, "MESSAGE=busy-read: 0 -> 50 (manual)\n"
                                       "PRIORITY=6\n"
                                       "SYSLOG_IDENTIFIER=t\n"
                                       "KNOB=busy-read\n"
                                       "OLD=0\n"
                                       "NEW=50\n"
                                       "REASON=manual\n");
}
END_TEST

static void log_fields_with_errno_and_null(void) {
        log_fields_internal(LOG_WARNING, -ENOENT, LOG_FIELDS("KNOB", "busy-poll", "OLD", NULL), "cannot read %s: %m",
                            "x");
}

START_TEST(test_log_fields_keep_errno_and_send_null_empty) {
        fake_journald();
        _cleanup_(freep) char *out = capture_stderr(log_fields_with_errno_and_null);
        ck_assert_str_eq(out, "");
        ck_assert_str_eq(journal_sent, "MESSAGE=cannot read x: No such file or directory\n"
                                       "PRIORITY=4\n"
                                       "SYSLOG_IDENTIFIER=t\n"
                                       "ERRNO=2\n"
                                       "KNOB=busy-poll\n"
                                       "OLD=\n");
}
END_TEST

START_TEST(test_log_fields_on_the_console_print_the_message_only) {
        _cleanup_(freep) char *out = NULL;

        fake_journald();
        log_set_target(LOG_TARGET_CONSOLE);
        out = capture_stderr(log_a_change);
        ck_assert_str_eq(out, "t: busy-read: 0 -> 50 (manual)\n");
        ck_assert_int_eq(journal_calls, 0);
}
END_TEST

START_TEST(test_log_fields_below_the_level_are_dropped) {
        fake_journald();
        log_set_max_level(LOG_NOTICE);
        _cleanup_(freep) char *out = capture_stderr(log_a_change);
        ck_assert_str_eq(out, "");
        ck_assert_int_eq(journal_calls, 0);
}
END_TEST

static Suite *log_suite(void) {
        Suite *s = suite_create("log");
        TCase *tc = tcase_create("names");
        tcase_add_test(tc, test_log_level_takes_the_syslog_names);
        tcase_add_test(tc, test_log_level_takes_the_numbers_0_to_7);
        tcase_add_test(tc, test_log_level_rejects_other_words);
        tcase_add_test(tc, test_log_target_takes_what_netpolld_can_do);
        suite_add_tcase(s, tc);

        tc = tcase_create("filter");
        tcase_add_checked_fixture(tc, setup, teardown);
        tcase_add_test(tc, test_log_default_level_drops_debug);
        tcase_add_test(tc, test_log_debug_level_prints_debug);
        tcase_add_test(tc, test_log_err_level_keeps_errors_only);
        tcase_add_test(tc, test_log_null_target_prints_nothing);
        tcase_add_test(tc, test_log_dropped_message_still_returns_the_error);
        tcase_add_test(tc, test_log_journal_target_without_journald_writes_stderr);
        suite_add_tcase(s, tc);

        tc = tcase_create("fields");
        tcase_add_checked_fixture(tc, setup, teardown);
        tcase_add_test(tc, test_log_fields_reach_the_journal_after_the_standard_ones);
        tcase_add_test(tc, test_log_fields_keep_errno_and_send_null_empty);
        tcase_add_test(tc, test_log_fields_on_the_console_print_the_message_only);
        tcase_add_test(tc, test_log_fields_below_the_level_are_dropped);
        suite_add_tcase(s, tc);
        return s;
}

TU_MAIN(log_suite)
