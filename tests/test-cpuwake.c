/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/wait.h>
#include <unistd.h>

#include <systemd/sd-daemon.h>

#include "cpuwake.h"
#include "macro.h"
#include "testutil.h"

/* The child at pid exited 0; its other codes name the check that failed in it. */
static void expect_child_ok(pid_t pid) {
        int status;
        ck_assert_int_eq(waitpid(pid, &status, 0), pid);
        ck_assert(WIFEXITED(status));
        ck_assert_int_eq(WEXITSTATUS(status), 0);
}

START_TEST(test_cpuwake_refuses_bad_arguments) {
        ck_assert_int_eq(cpuwake_open("/proc/pressure/cpu", 0, CPUWAKE_WINDOW_US), -EINVAL);
        ck_assert_int_eq(cpuwake_open("/proc/pressure/cpu", 600000, 500000), -EINVAL);
        ck_assert_int_eq(cpuwake_open("/proc/pressure/cpu", 1, UINT64_C(1) << 33), -EINVAL);
}
END_TEST

/* Without CAP_SYS_RESOURCE the kernel would refuse a sub-2 s window with a bare EINVAL: -EPERM says why. */
START_TEST(test_cpuwake_without_the_capability_is_eperm) {
        pid_t pid = fork();
        ck_assert_int_ge(pid, 0);
        if (pid == 0) {
                cap_t c = cap_get_proc();
                const cap_value_t v = CAP_SYS_RESOURCE;
                if (!c || cap_set_flag(c, CAP_EFFECTIVE, 1, &v, CAP_CLEAR) < 0 || cap_set_proc(c) < 0)
                        _exit(2);
                _exit(cpuwake_open("/proc/pressure/cpu", CPUWAKE_THRESHOLD_US, CPUWAKE_WINDOW_US) == -EPERM ? 0 : 1);
        }
        expect_child_ok(pid);
}
END_TEST

/* The trigger goes out with its NUL: the kernel overwrites the last byte written. */
START_TEST(test_cpuwake_writes_the_trigger_with_its_nul) {
        if (!cpuwake_privileged()) {
                fprintf(stderr, "no CAP_SYS_RESOURCE: trigger text not checked\n");
                return;
        }
        _cleanup_(freep) char *dir = tu_mkdtemp(), *path = NULL;
        char buf[64] = {};
        ck_assert_int_ge(asprintf(&path, "%s/cpu", dir), 0);
        int fd = open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
        ck_assert_int_ge(fd, 0);
        close(fd);
        fd = cpuwake_open(path, 10000, 500000);
        ck_assert_int_ge(fd, 0);
        close(fd);
        fd = open(path, O_RDONLY | O_CLOEXEC);
        ck_assert_int_eq(read(fd, buf, sizeof(buf)), (ssize_t)sizeof("some 10000 500000"));
        close(fd);
        ck_assert_mem_eq(buf, "some 10000 500000", sizeof("some 10000 500000"));
        unlink(path);
        rmdir(dir);
}
END_TEST

/* On a kernel with PSI, held capability: a real trigger, quiet until someone waits. */
START_TEST(test_cpuwake_arms_a_real_trigger) {
        if (!cpuwake_privileged() || access("/proc/pressure/cpu", W_OK) < 0) {
                fprintf(stderr, "no CAP_SYS_RESOURCE or no PSI: real trigger not checked\n");
                return;
        }
        int fd = cpuwake_open("/proc/pressure/cpu", CPUWAKE_THRESHOLD_US, CPUWAKE_WINDOW_US);
        ck_assert_int_ge(fd, 0);
        struct pollfd p = { .fd = fd, .events = POLLPRI };
        ck_assert_int_ge(poll(&p, 1, 0), 0);
        ck_assert(!(p.revents & POLLERR)); /* POLLERR: no trigger on the descriptor */
        /* One trigger per descriptor: a second write is refused. */
        ck_assert_int_lt(write(fd, "some 10000 500000", 18), 0);
        ck_assert_int_eq(errno, EBUSY);
        close(fd);
}
END_TEST

/*
 * In a forked child: puts the open descriptors fds[0..n) at 3.. and says so as
 * the service manager would. No ck_assert here: Check writes each assertion's
 * place to a descriptor of its own, which this may have replaced.
 */
static void pass_fds(const int *fds, int n, const char *names) {
        char pid[32];
        for (int i = 0; i < n; i++) {
                if (dup2(fds[i], SD_LISTEN_FDS_START + i) < 0)
                        _exit(10);
                if (fds[i] != SD_LISTEN_FDS_START + i)
                        close(fds[i]);
        }
        snprintf(pid, sizeof(pid), "%d", (int)getpid());
        setenv("LISTEN_PID", pid, 1);
        snprintf(pid, sizeof(pid), "%d", n);
        setenv("LISTEN_FDS", pid, 1);
        setenv("LISTEN_FDNAMES", names, 1);
}

START_TEST(test_cpuwake_passed_none) {
        unsetenv("LISTEN_FDS");
        ck_assert_int_eq(cpuwake_passed(), -ENOENT);
}
END_TEST

/* In a child: the descriptors it passes to itself are its own. */
START_TEST(test_cpuwake_passed_takes_the_pressure_file) {
        if (access("/proc/pressure/cpu", R_OK) < 0) {
                fprintf(stderr, "no PSI: passed pressure file not checked\n");
                return;
        }
        pid_t pid = fork();
        ck_assert_int_ge(pid, 0);
        if (pid == 0) {
                int fds[2] = { open("/dev/null", O_RDONLY | O_CLOEXEC), open("/proc/pressure/cpu", O_RDONLY | O_CLOEXEC) };
                if (fds[0] < 0 || fds[1] < 0)
                        _exit(2);
                /* Descriptors from open() are the lowest free: take 3 and 4 first so dup2 moves them. */
                pass_fds(fds, 2, "other:cpu-pressure");
                int fd = cpuwake_passed();
                if (fd != SD_LISTEN_FDS_START + 1)
                        _exit(3);
                if (fcntl(SD_LISTEN_FDS_START, F_GETFD) >= 0 || errno != EBADF)
                        _exit(4); /* the other one is closed */
                if (!(fcntl(fd, F_GETFD) & FD_CLOEXEC))
                        _exit(5);
                if (getenv("LISTEN_FDS") || getenv("LISTEN_FDNAMES"))
                        _exit(6);
                _exit(0);
        }
        expect_child_ok(pid);
}
END_TEST

/* A regular file passed under the name is refused, closed and left as it was. */
START_TEST(test_cpuwake_passed_refuses_a_regular_file) {
        _cleanup_(freep) char *dir = tu_mkdtemp(), *path = NULL;
        ck_assert_int_ge(asprintf(&path, "%s/cpu", dir), 0);
        int fd = open(path, O_CREAT | O_RDWR | O_CLOEXEC, 0600);
        ck_assert_int_ge(fd, 0);
        ck_assert_int_eq(write(fd, "keep", 4), 4);
        close(fd);
        pid_t pid = fork();
        ck_assert_int_ge(pid, 0);
        if (pid == 0) {
                int f = open(path, O_RDWR | O_CLOEXEC);
                if (f < 0)
                        _exit(2);
                pass_fds(&f, 1, "cpu-pressure");
                if (cpuwake_passed() != -EMEDIUMTYPE)
                        _exit(3);
                if (fcntl(SD_LISTEN_FDS_START, F_GETFD) >= 0 || errno != EBADF)
                        _exit(4);
                _exit(0);
        }
        expect_child_ok(pid);
        char buf[64] = {};
        fd = open(path, O_RDONLY | O_CLOEXEC);
        ssize_t n = read(fd, buf, sizeof(buf) - 1);
        close(fd);
        ck_assert_msg(n == 4 && streq(buf, "keep"), "the file passed now holds %zd bytes: '%s'", n, buf);
        unlink(path);
        rmdir(dir);
}
END_TEST

static Suite *cpuwake_suite(void) {
        Suite *s = suite_create("cpuwake");
        TCase *tc = tcase_create("cpuwake");
        tcase_add_test(tc, test_cpuwake_refuses_bad_arguments);
        tcase_add_test(tc, test_cpuwake_without_the_capability_is_eperm);
        tcase_add_test(tc, test_cpuwake_writes_the_trigger_with_its_nul);
        tcase_add_test(tc, test_cpuwake_arms_a_real_trigger);
        tcase_add_test(tc, test_cpuwake_passed_none);
        tcase_add_test(tc, test_cpuwake_passed_takes_the_pressure_file);
        tcase_add_test(tc, test_cpuwake_passed_refuses_a_regular_file);
        suite_add_tcase(s, tc);
        return s;
}

TU_MAIN(cpuwake_suite)
