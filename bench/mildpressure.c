/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * mildpressure: steady, mild CPU pressure on one CPU. Two threads pinned to
 * CPU wake together on the same absolute PERIOD_US grid and each spins for
 * BURST_US, so at every period one of them waits for the other's burst:
 * about BURST_US of "some" waiting per PERIOD_US on that CPU, and the CPU
 * otherwise idle. With the defaults (1 ms every 20 ms: some 5 %) that is
 * above netpolld's CPU pressure trigger (10 ms within 500 ms, 2 %) and far
 * under its yield rule (half a task waiting on average), the load under
 * which each trigger window asks for samples (daemon/sensing/cpuwake.h).
 *
 * Usage: mildpressure CPU [BURST_US [PERIOD_US]]   (runs until killed)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static uint64_t burst_ns, period_ns;
static struct timespec start;

static uint64_t ts_ns(const struct timespec *ts) {
        return (uint64_t)ts->tv_sec * 1000000000u + (uint64_t)ts->tv_nsec;
}

static uint64_t now_ns(void) {
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return ts_ns(&ts);
}

/* Spins until this thread has run for burst_ns: waiting does not count. */
static void spin(void) {
        struct timespec ts;
        uint64_t end;

        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
        end = ts_ns(&ts) + burst_ns;
        do
                clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
        while (ts_ns(&ts) < end);
}

static void *burst_loop(void *arg) {
        uint64_t next = ts_ns(&start);

        (void)arg;
        for (;;) {
                uint64_t now = now_ns();
                struct timespec ts;

                next += period_ns;
                /* After a stall (the host was busy), join the grid again rather than catch up. */
                if (next <= now)
                        next = now - (now - ts_ns(&start)) % period_ns + period_ns;
                ts.tv_sec = (time_t)(next / 1000000000u);
                ts.tv_nsec = (long)(next % 1000000000u);
                while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
                        ;
                spin();
        }
        return NULL;
}

static int parse_us(const char *s, uint64_t *ret) {
        char *end;
        unsigned long long v;

        errno = 0;
        v = strtoull(s, &end, 10);
        if (errno || end == s || *end || v == 0 || v > 10ull * 1000 * 1000)
                return -EINVAL;
        *ret = v * 1000;
        return 0;
}

int main(int argc, char **argv) {
        pthread_t threads[2];
        pthread_attr_t attr;
        cpu_set_t set;
        char *end;
        long cpu;
        int r;

        burst_ns = 1000 * 1000;
        period_ns = 20 * 1000 * 1000;
        if (argc < 2 || argc > 4) {
                fprintf(stderr, "usage: mildpressure CPU [BURST_US [PERIOD_US]]\n");
                return 2;
        }
        errno = 0;
        cpu = strtol(argv[1], &end, 10);
        if (errno || end == argv[1] || *end || cpu < 0 || cpu >= CPU_SETSIZE) {
                fprintf(stderr, "mildpressure: CPU '%s' is not a CPU number\n", argv[1]);
                return 2;
        }
        if ((argc > 2 && parse_us(argv[2], &burst_ns) < 0) || (argc > 3 && parse_us(argv[3], &period_ns) < 0)) {
                fprintf(stderr, "mildpressure: BURST_US and PERIOD_US are microseconds from 1 to 10000000\n");
                return 2;
        }
        if (burst_ns * 2 > period_ns) {
                fprintf(stderr, "mildpressure: two bursts of %s us do not fit in a period of %s us\n",
                        argv[2], argc > 3 ? argv[3] : "20000");
                return 2;
        }
        CPU_ZERO(&set);
        CPU_SET(cpu, &set);
        pthread_attr_init(&attr);
        r = pthread_attr_setaffinity_np(&attr, sizeof(set), &set);
        clock_gettime(CLOCK_MONOTONIC, &start);
        for (int i = 0; r == 0 && i < 2; i++)
                r = pthread_create(&threads[i], &attr, burst_loop, NULL);
        if (r != 0) {
                fprintf(stderr, "mildpressure: cannot start a thread on CPU %ld: %s\n", cpu, strerror(r));
                return 1;
        }
        pthread_join(threads[0], NULL);
        return 0;
}
