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

#include "cpuwake.h"
#include "macro.h"
#include "testutil.h"

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
        int status;
        ck_assert_int_eq(waitpid(pid, &status, 0), pid);
        ck_assert(WIFEXITED(status));
        ck_assert_int_eq(WEXITSTATUS(status), 0);
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

static Suite *cpuwake_suite(void) {
        Suite *s = suite_create("cpuwake");
        TCase *tc = tcase_create("cpuwake");
        tcase_add_test(tc, test_cpuwake_refuses_bad_arguments);
        tcase_add_test(tc, test_cpuwake_without_the_capability_is_eperm);
        tcase_add_test(tc, test_cpuwake_writes_the_trigger_with_its_nul);
        tcase_add_test(tc, test_cpuwake_arms_a_real_trigger);
        suite_add_tcase(s, tc);
        return s;
}

TU_MAIN(cpuwake_suite)
