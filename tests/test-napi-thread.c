/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * test-napi-thread.c: placing a NAPI instance's kernel thread
 * (napi_thread_place()) on the pid an injected napi-get reports. A pid
 * whose task ended, or one napi-get no longer names, is never handed to
 * sched_setaffinity(): that would move whatever task holds the pid now.
 * sched_setaffinity() is wrapped to count the calls (-Wl,--wrap).
 */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <sys/wait.h>
#include <unistd.h>

#include "napi-backend.h"
#include "testutil.h"

int __real_sched_setaffinity(pid_t pid, size_t size, const cpu_set_t *mask);
int __wrap_sched_setaffinity(pid_t pid, size_t size, const cpu_set_t *mask);

static int affinity_calls;
static pid_t affinity_pid;

int __wrap_sched_setaffinity(pid_t pid, size_t size, const cpu_set_t *mask) {
        affinity_calls++;
        affinity_pid = pid;
        return __real_sched_setaffinity(pid, size, mask);
}

/* The injected napi-get: the pids it reports, one per call (the last one repeats). */
typedef struct FakeNapi {
        int pids[2];
        int calls;
} FakeNapi;

static int fake_lookup(void *userdata, uint32_t napi_id, int *ret_pid) {
        FakeNapi *f = userdata;
        int pid = f->pids[f->calls < 2 ? f->calls : 1];

        ck_assert_uint_eq(napi_id, 8193);
        f->calls++;
        if (pid <= 0)
                return -ENOENT;
        *ret_pid = pid;
        return 0;
}

static pid_t sleeper(void) {
        pid_t pid = fork();

        ck_assert_int_ge(pid, 0);
        if (pid == 0) {
                pause();
                _exit(0);
        }
        return pid;
}

static void end(pid_t pid) {
        kill(pid, SIGKILL);
        ck_assert_int_eq(waitpid(pid, NULL, 0), pid);
}

START_TEST(test_thread_place_skips_an_ended_pid) {
        /* napi-get names a thread that has ended and been reaped since. */
        pid_t gone = sleeper();
        FakeNapi f;

        end(gone);
        f = (FakeNapi){ .pids = { gone, gone } };
        ck_assert_int_eq(napi_thread_place(8193, "0", fake_lookup, &f), -ENOENT);
        ck_assert_int_eq(affinity_calls, 0);
}
END_TEST

START_TEST(test_thread_place_skips_a_pid_napi_get_no_longer_names) {
        /* The first napi-get names other; by the time of the write the instance's thread is gone
         * and other (a live, unrelated task here) must not be moved. */
        pid_t other = sleeper();
        FakeNapi f = { .pids = { other, -1 } };
        int r = napi_thread_place(8193, "0", fake_lookup, &f);

        end(other);
        ck_assert_int_eq(r, -ENOENT);
        ck_assert_int_eq(affinity_calls, 0);
        ck_assert_int_ge(f.calls, 2);
}
END_TEST

START_TEST(test_thread_place_moves_the_thread_napi_get_names) {
        pid_t thread = sleeper();
        FakeNapi f = { .pids = { thread, thread } };
        cpu_set_t mask;
        int r = napi_thread_place(8193, "0", fake_lookup, &f);

        CPU_ZERO(&mask);
        ck_assert_int_eq(sched_getaffinity(thread, sizeof(mask), &mask), 0);
        end(thread);
        ck_assert_int_eq(r, 0);
        ck_assert_int_eq(affinity_calls, 1);
        ck_assert_int_eq(affinity_pid, thread);
        ck_assert_int_eq(CPU_COUNT(&mask), 1);
        ck_assert(CPU_ISSET(0, &mask));
}
END_TEST

static Suite *napi_thread_suite(void) {
        Suite *s = suite_create("napi-thread");
        TCase *tc = tcase_create("place");

        tcase_add_test(tc, test_thread_place_skips_an_ended_pid);
        tcase_add_test(tc, test_thread_place_skips_a_pid_napi_get_no_longer_names);
        tcase_add_test(tc, test_thread_place_moves_the_thread_napi_get_names);
        suite_add_tcase(s, tc);
        return s;
}

TU_MAIN(napi_thread_suite)
