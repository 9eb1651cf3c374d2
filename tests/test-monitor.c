/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * test-monitor.c: the sampler on fixture sysroots whose files are rewritten
 * between samples: source selection, exact rates, counters going backwards,
 * CPUs going offline, failed reads, buffer growth, no allocation per sample,
 * per-task waiting (tasks source: who counts where, the PSI gate, listing
 * only when a task was created), and one read-only pass over the running
 * kernel's /proc.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "adapt-crowd.h"
#include "macro.h"
#include "monitor.h"
#include "taskwait.h"
#include "testutil.h"

/* Counts allocations so a test can show that sampling makes none. ASan brings its own allocator. */
#ifndef __SANITIZE_ADDRESS__
#define COUNT_ALLOCS 1
extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t size);
static size_t n_allocs;
void *malloc(size_t size) {
        n_allocs++;
        return __libc_malloc(size);
}
void *calloc(size_t n, size_t size) {
        n_allocs++;
        return __libc_calloc(n, size);
}
void *realloc(void *p, size_t size) {
        n_allocs++;
        return __libc_realloc(p, size);
}
#endif

/* ---- sampler on a fixture sysroot ---- */

/* What a 2-CPU kernel shows; world_write() renders it as /proc and debugfs files. */
typedef struct World {
        bool schedstat, sched_debug, psi, cpu1_offline;
        uint64_t procs_running;
        uint64_t run_delay[2], nr_running[2];
        uint64_t processed[2], dropped[2], squeeze[2];
        uint64_t net_rx[2], net_tx[2];
        uint64_t psi_total_us;
        /* Tasks below proc/PID/task/TID (tid 0: none); last_pid > 0 writes proc/loadavg. */
        struct {
                int pid, tid;
                unsigned cpu;
                uint64_t run_ns, delay_ns;
                uint64_t utime, stime; /* clock ticks in user mode and in the kernel */
                char state;            /* 0: 'R' */
                bool kthread;
        } task[5];
        uint64_t last_pid;
} World;

static char *root;

static void sampler_setup(void) {
        root = tu_mkdtemp();
}

static void sampler_teardown(void) {
        tu_rm_rf(root);
        free(root);
        root = NULL;
}

static void put(const char *rel, const char *fmt, ...) _printf_(2, 3);
static void put(const char *rel, const char *fmt, ...) {
        _cleanup_(freep) char *s = NULL;
        va_list ap;

        va_start(ap, fmt);
        ck_assert_int_ge(vasprintf(&s, fmt, ap), 0);
        va_end(ap);
        tu_write(root, rel, s, 0644);
}

static void world_write(const World *w) {
        unsigned n = w->cpu1_offline ? 1 : 2;
        char stat[512] = "cpu  10 0 10 100 0 0 0 0 0 0\n", line[256];
        char softnet[512] = "", sched[512] = "version 16\ntimestamp 4294967296\n";
        char dbg[1024] = "Sched Debug Version: v0.11, 6.1.0\nsysctl_sched\n  .sysctl_sched_base_slice : 3.0\n";

        for (unsigned i = 0; i < n; i++) {
                snprintf(line, sizeof(line), "cpu%u 5 0 5 50 0 0 0 0 0 0\n", i);
                strcat(stat, line);
                snprintf(line, sizeof(line),
                         "%08" PRIx64 " %08" PRIx64 " %08" PRIx64
                         " 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 %08x "
                         "00000000 00000000\n",
                         w->processed[i], w->dropped[i], w->squeeze[i], i);
                strcat(softnet, line);
                snprintf(line, sizeof(line), "cpu%u 0 0 10 5 7 3 900000 %" PRIu64 " 10\ndomain0 00000003 1 2 3\n", i,
                         w->run_delay[i]);
                strcat(sched, line);
                snprintf(line, sizeof(line), "\ncpu#%u\n  .nr_running                    : %" PRIu64
                                             "\n\ncfs_rq[%u]:/\n  .nr_running : 99\n", i, w->nr_running[i], i);
                strcat(dbg, line);
        }
        snprintf(line, sizeof(line), "ctxt 1\nprocs_running %" PRIu64 "\nprocs_blocked 0\n", w->procs_running);
        strcat(stat, line);
        tu_write(root, "proc/stat", stat, 0644);
        tu_write(root, "proc/net/softnet_stat", softnet, 0644);
        put("proc/softirqs",
            "                    CPU0       CPU1\n          HI:          0          0\n"
            "      NET_TX: %10" PRIu64 " %10" PRIu64 "\n      NET_RX: %10" PRIu64 " %10" PRIu64 "\n",
            w->net_tx[0], w->net_tx[1], w->net_rx[0], w->net_rx[1]);
        if (w->schedstat)
                tu_write(root, "proc/schedstat", sched, 0644);
        if (w->sched_debug)
                tu_write(root, "sys/kernel/debug/sched/debug", dbg, 0644);
        for (size_t i = 0; i < ELEMENTSOF(w->task); i++) {
                char rel[64];

                if (w->task[i].tid == 0)
                        continue;
                snprintf(rel, sizeof(rel), "proc/%d/task/%d/schedstat", w->task[i].pid, w->task[i].tid);
                put(rel, "%" PRIu64 " %" PRIu64 " 7\n", w->task[i].run_ns, w->task[i].delay_ns);
                snprintf(rel, sizeof(rel), "proc/%d/task/%d/stat", w->task[i].pid, w->task[i].tid);
                put(rel,
                    "%d (t %d) %c 1 1 1 0 -1 %u 97 0 0 0 %" PRIu64 " %" PRIu64 " 0 0 20 0 1 0 1281741 "
                    "3133440 366 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 %u 0 0 0 0 0\n",
                    w->task[i].tid, w->task[i].tid, w->task[i].state ?: 'R',
                    w->task[i].kthread ? 0x4208040u : 0x400000u, w->task[i].utime, w->task[i].stime, w->task[i].cpu);
        }
        if (w->last_pid > 0)
                put("proc/loadavg", "0.50 0.40 0.30 2/90 %" PRIu64 "\n", w->last_pid);
        if (w->psi)
                put("proc/pressure/cpu",
                    "some avg10=12.50 avg60=3.00 avg300=1.00 total=%" PRIu64
                    "\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=0\n",
                    w->psi_total_us);
}

static Monitor *monitor_on(const World *w) {
        Monitor *m = NULL;

        world_write(w);
        ck_assert_int_eq(monitor_new(&m, root), 0);
        return m;
}

#define MS (UINT64_C(1000000))

START_TEST(test_sampler_prefers_schedstat_then_sched_debug_then_procs_running) {
        World w = { .schedstat = true, .sched_debug = true, .procs_running = 1 };
        _cleanup_(monitor_freep) Monitor *a = monitor_on(&w);
        _cleanup_(monitor_freep) Monitor *b = NULL, *c = NULL, *d = NULL;
        _cleanup_(freep) char *p = tu_join(root, "proc/schedstat");

        ck_assert_str_eq(monitor_source_name(a), "schedstat");
        ck_assert_uint_eq(monitor_n_cpus(a), 2);
        ck_assert(!monitor_uses_psi(a));

        put("proc/schedstat", "version 14\ncpu0 0 0 0 0 0 0 0 0 0\n"); /* unknown version: not trusted */
        ck_assert_int_eq(monitor_new(&b, root), 0);
        ck_assert_str_eq(monitor_source_name(b), "sched_debug");

        ck_assert_int_eq(unlink(p), 0);
        ck_assert_int_eq(monitor_new(&c, root), 0);
        ck_assert_str_eq(monitor_source_name(c), "sched_debug");

        put("sys/kernel/debug/sched/debug", "not sched debug\n");
        ck_assert_int_eq(monitor_new(&d, root), 0);
        ck_assert_int_eq(monitor_source(d), MONITOR_SOURCE_PROCS_RUNNING);
        ck_assert_str_eq(monitor_source_name(d), "procs_running");
}
END_TEST

START_TEST(test_sampler_uses_psi_only_when_readable) {
        World w = { .psi = true, .procs_running = 1 };
        _cleanup_(monitor_freep) Monitor *a = monitor_on(&w), *b = NULL;

        ck_assert(monitor_uses_psi(a));
        put("proc/pressure/cpu", "some avg10=x\n");
        ck_assert_int_eq(monitor_new(&b, root), 0);
        ck_assert(!monitor_uses_psi(b));
}
END_TEST

START_TEST(test_sampler_needs_stat_softnet_and_softirqs) {
        World w = { .procs_running = 1 };
        Monitor *m = NULL;
        _cleanup_(freep) char *p = tu_join(root, "proc/softirqs");

        world_write(&w);
        put("proc/net/softnet_stat", "00000001 00000002\n");
        ck_assert_int_eq(monitor_new(&m, root), -EBADMSG);
        world_write(&w);
        ck_assert_int_eq(unlink(p), 0);
        ck_assert_int_eq(monitor_new(&m, root), -ENOENT);
        ck_assert_ptr_null(m);
        ck_assert_int_eq(monitor_new(&m, "/nonexistent-netpolld-root"), -ENOENT);
}
END_TEST

START_TEST(test_sampler_rates_between_two_samples) {
        World w = {
                .schedstat = true, .psi = true, .procs_running = 2,
                .run_delay = { UINT64_C(1000000000), 5 }, .processed = { 100, 0 }, .dropped = { 1, 0 },
                .squeeze = { 2, 7 }, .net_rx = { 1000, 50 }, .net_tx = { 10, 0 }, .psi_total_us = 1000,
        };
        _cleanup_(monitor_freep) Monitor *m = monitor_on(&w);
        const MonitorCpu *c0, *c1;

        ck_assert_int_eq(monitor_sample(m, 1000 * MS), 0);
        c0 = monitor_cpu(m, 0);
        ck_assert_uint_eq(c0->runnable_milli, 0); /* a baseline has no interval */
        ck_assert_uint_eq(c0->processed_per_sec, 0);
        ck_assert_uint_eq(monitor_system(m)->psi_some_avg10_centi, 1250);

        w.run_delay[0] += 150 * MS; /* 1.5 tasks waited on average over 100 ms */
        w.run_delay[1] += 20 * MS;
        w.processed[0] += 1000;
        w.dropped[0] += 5;
        w.squeeze[0] += 2;
        w.squeeze[1] += 30;
        w.net_rx[0] += 300;
        w.net_tx[0] += 10;
        w.psi_total_us += 50000;
        world_write(&w);
        ck_assert_int_eq(monitor_sample(m, 1100 * MS), 1);

        c0 = monitor_cpu(m, 0);
        c1 = monitor_cpu(m, 1);
        ck_assert(c0->online && c1->online);
        ck_assert_uint_eq(c0->runnable_milli, 1500);
        ck_assert_uint_eq(c1->runnable_milli, 200);
        ck_assert_uint_eq(c0->processed_per_sec, 10000);
        ck_assert_uint_eq(c0->drops_per_sec, 50);
        ck_assert_uint_eq(c0->squeeze_per_sec, 20);
        ck_assert_uint_eq(c1->squeeze_per_sec, 300);
        ck_assert_uint_eq(c0->net_rx_per_sec, 3000);
        ck_assert_uint_eq(c0->net_tx_per_sec, 100);
        ck_assert_uint_eq(c1->net_rx_per_sec, 0);
        ck_assert_uint_eq(monitor_system(m)->psi_some_milli, 500);
        ck_assert_uint_eq(monitor_system(m)->procs_running, 2);
        ck_assert_uint_eq(monitor_system(m)->n_online, 2);
        ck_assert_ptr_null(monitor_cpu(m, 2));
}
END_TEST

START_TEST(test_sampler_time_squeeze_totals_are_the_raw_counters) {
        World w = { .procs_running = 2, .squeeze = { 2, 7 } };
        _cleanup_(monitor_freep) Monitor *m = monitor_on(&w);
        uint64_t v = 99;

        ck_assert(!monitor_time_squeeze_total(m, 0, &v)); /* no sample yet */
        ck_assert_uint_eq(v, 99);
        ck_assert_int_eq(monitor_sample(m, 1000 * MS), 0);
        ck_assert(monitor_time_squeeze_total(m, 1, &v));
        ck_assert_uint_eq(v, 7);
        w.squeeze[0] += 40;
        world_write(&w);
        ck_assert_int_eq(monitor_sample(m, 1100 * MS), 1);
        ck_assert(monitor_time_squeeze_total(m, 0, &v));
        ck_assert_uint_eq(v, 42);
        ck_assert(!monitor_time_squeeze_total(m, 2, &v));
}
END_TEST

START_TEST(test_sampler_sched_debug_counts_waiting_tasks) {
        World w = { .sched_debug = true, .procs_running = 5, .nr_running = { 3, 1 } };
        _cleanup_(monitor_freep) Monitor *m = monitor_on(&w);

        ck_assert_str_eq(monitor_source_name(m), "sched_debug");
        ck_assert_int_eq(monitor_sample(m, 1 * MS), 0); /* an instant reading: valid on the baseline */
        ck_assert_uint_eq(monitor_cpu(m, 0)->runnable_milli, 2000);
        ck_assert_uint_eq(monitor_cpu(m, 1)->runnable_milli, 0);
}
END_TEST

START_TEST(test_sampler_procs_running_spreads_over_online_cpus) {
        World w = { .procs_running = 6 };
        _cleanup_(monitor_freep) Monitor *m = monitor_on(&w);

        ck_assert_int_eq(monitor_sample(m, 1 * MS), 0);
        /* 6 - the sampler - one running per CPU = 3 waiting over 2 CPUs */
        ck_assert_uint_eq(monitor_cpu(m, 0)->runnable_milli, 1500);
        ck_assert_uint_eq(monitor_cpu(m, 1)->runnable_milli, 1500);

        w.procs_running = 2;
        world_write(&w);
        ck_assert_int_eq(monitor_sample(m, 2 * MS), 1);
        ck_assert_uint_eq(monitor_cpu(m, 0)->runnable_milli, 0);

        w.procs_running = 4;
        w.cpu1_offline = true;
        world_write(&w);
        ck_assert_int_eq(monitor_sample(m, 3 * MS), 1);
        ck_assert_uint_eq(monitor_cpu(m, 0)->runnable_milli, 2000);
        ck_assert(!monitor_cpu(m, 1)->online);
        ck_assert_uint_eq(monitor_cpu(m, 1)->runnable_milli, 0);
}
END_TEST

START_TEST(test_sampler_counter_going_backwards_gives_zero) {
        World w = { .schedstat = true, .procs_running = 1, .run_delay = { 500 * MS, 0 },
                    .processed = { 0xfffffff0, 0 }, .squeeze = { 40, 0 }, .net_rx = { 9000, 0 } };
        _cleanup_(monitor_freep) Monitor *m = monitor_on(&w);
        const MonitorCpu *c;

        ck_assert_int_eq(monitor_sample(m, 100 * MS), 0);
        w.run_delay[0] = 1 * MS; /* hotplug reset */
        w.processed[0] = 0x10;   /* 32-bit wrap */
        w.squeeze[0] = 3;
        w.net_rx[0] = 10;
        world_write(&w);
        ck_assert_int_eq(monitor_sample(m, 200 * MS), 1);
        c = monitor_cpu(m, 0);
        ck_assert_uint_eq(c->runnable_milli, 0);
        ck_assert_uint_eq(c->processed_per_sec, 0);
        ck_assert_uint_eq(c->squeeze_per_sec, 0);
        ck_assert_uint_eq(c->net_rx_per_sec, 0);

        w.processed[0] += 100; /* and counting resumes from the new value */
        world_write(&w);
        ck_assert_int_eq(monitor_sample(m, 300 * MS), 1);
        ck_assert_uint_eq(monitor_cpu(m, 0)->processed_per_sec, 1000);
}
END_TEST

/* Samples a second apart: outside source procs_running, /proc/stat is re-read once a second. */
START_TEST(test_sampler_cpu_going_offline_and_back) {
        World w = { .schedstat = true, .procs_running = 1, .processed = { 0, 1000 } };
        _cleanup_(monitor_freep) Monitor *m = monitor_on(&w);

        ck_assert_int_eq(monitor_sample(m, 1000 * MS), 0);
        w.cpu1_offline = true;
        world_write(&w);
        ck_assert_int_eq(monitor_sample(m, 2000 * MS), 1);
        ck_assert(!monitor_cpu(m, 1)->online);
        ck_assert_uint_eq(monitor_cpu(m, 1)->processed_per_sec, 0);

        w.cpu1_offline = false;
        w.processed[1] = 5000;
        world_write(&w);
        ck_assert_int_eq(monitor_sample(m, 3000 * MS), 1);
        ck_assert(monitor_cpu(m, 1)->online);
        ck_assert_uint_eq(monitor_cpu(m, 1)->processed_per_sec, 0); /* back: a new baseline only */

        w.processed[1] += 10;
        world_write(&w);
        ck_assert_int_eq(monitor_sample(m, 4000 * MS), 1);
        ck_assert_uint_eq(monitor_cpu(m, 1)->processed_per_sec, 10);
}
END_TEST

/* Its intr line makes /proc/stat the costliest file: only source procs_running reads it every interval. */
START_TEST(test_sampler_reads_proc_stat_once_a_second_unless_it_is_the_source) {
        World w = { .schedstat = true, .procs_running = 3 };
        _cleanup_(monitor_freep) Monitor *m = monitor_on(&w);

        ck_assert_int_eq(monitor_sample(m, 1000 * MS), 0);
        w.procs_running = 7;
        w.cpu1_offline = true;
        world_write(&w);
        ck_assert_int_eq(monitor_sample(m, 1500 * MS), 1);
        ck_assert_uint_eq(monitor_system(m)->procs_running, 3); /* the last reading, carried over */
        ck_assert(monitor_cpu(m, 1)->online);
        ck_assert_int_eq(monitor_sample(m, 2000 * MS), 1);
        ck_assert_uint_eq(monitor_system(m)->procs_running, 7);
        ck_assert(!monitor_cpu(m, 1)->online);

        /* Odd content is caught at the next read, and the sample changes nothing. */
        tu_write(root, "proc/stat", "cpu  1 2 3 4\nprocs_running x\n", 0644);
        ck_assert_int_eq(monitor_sample(m, 2100 * MS), 1);
        ck_assert_int_lt(monitor_sample(m, 3000 * MS), 0);
        ck_assert_uint_eq(monitor_system(m)->procs_running, 7);
}
END_TEST

START_TEST(test_sampler_keeps_baseline_when_a_read_fails) {
        World w = { .procs_running = 1, .squeeze = { 10, 0 } };
        _cleanup_(monitor_freep) Monitor *m = monitor_on(&w);

        ck_assert_int_eq(monitor_sample(m, 100 * MS), 0);
        w.squeeze[0] = 20;
        world_write(&w);
        ck_assert_int_eq(monitor_sample(m, 200 * MS), 1);
        ck_assert_uint_eq(monitor_cpu(m, 0)->squeeze_per_sec, 100);

        put("proc/net/softnet_stat", "garbage\n");
        ck_assert_int_eq(monitor_sample(m, 300 * MS), -EBADMSG);
        ck_assert_uint_eq(monitor_cpu(m, 0)->squeeze_per_sec, 100); /* last good result kept */

        w.squeeze[0] = 60;
        world_write(&w);
        ck_assert_int_eq(monitor_sample(m, 400 * MS), 1);
        ck_assert_uint_eq(monitor_cpu(m, 0)->squeeze_per_sec, 200); /* 40 over the 200 ms since the good sample */

        ck_assert_int_eq(monitor_sample(m, 400 * MS), -EINVAL);
        ck_assert_int_eq(monitor_sample(m, 399 * MS), -EINVAL);
}
END_TEST

START_TEST(test_sampler_load_over_a_cpu_set) {
        World w = { .schedstat = true, .procs_running = 1 };
        _cleanup_(monitor_freep) Monitor *m = monitor_on(&w);
        MonitorLoad l;
        CpuSet only1;

        ck_assert_int_eq(monitor_sample(m, 100 * MS), 0);
        w.run_delay[0] += 300 * MS;
        w.run_delay[1] += 50 * MS;
        w.squeeze[0] += 10;
        w.squeeze[1] += 5;
        w.dropped[1] += 1;
        w.net_rx[1] += 100;
        w.processed[0] += 40;
        w.processed[1] += 2;
        world_write(&w);
        ck_assert_int_eq(monitor_sample(m, 200 * MS), 1);

        monitor_load(m, NULL, &l);
        ck_assert_uint_eq(l.runnable_milli_max, 3000);
        ck_assert_int_eq(l.runnable_cpu, 0);
        ck_assert_uint_eq(l.squeeze_per_sec, 150);
        ck_assert_uint_eq(l.drops_per_sec, 10);
        ck_assert_uint_eq(l.net_rx_per_sec, 1000);
        ck_assert_uint_eq(l.processed_per_sec, 420);

        cpuset_zero(&only1);
        cpuset_add(&only1, 1);
        monitor_load(m, &only1, &l);
        ck_assert_uint_eq(l.runnable_milli_max, 500);
        ck_assert_int_eq(l.runnable_cpu, 1);
        ck_assert_uint_eq(l.squeeze_per_sec, 50);
        ck_assert_uint_eq(l.processed_per_sec, 20);
}
END_TEST

START_TEST(test_sampler_allocates_nothing_per_sample) {
#ifdef COUNT_ALLOCS
        World w = { .schedstat = true, .psi = true, .procs_running = 1 };
        _cleanup_(monitor_freep) Monitor *m = monitor_on(&w);
        size_t before, after;
        int failed = 0;

        ck_assert_int_eq(monitor_sample(m, 1 * MS), 0);
        /* No Check assertion inside: passing ones allocate too (they record the line reached). */
        before = n_allocs;
        for (uint64_t i = 2; i < 50; i++)
                if (monitor_sample(m, i * MS) != 1)
                        failed++;
        after = n_allocs;
        ck_assert_int_eq(failed, 0);
        ck_assert_uint_eq(after - before, 0);
#else
        tu_skip("the sanitizer owns malloc");
#endif
}
END_TEST

START_TEST(test_sampler_follows_a_file_that_outgrows_its_buffer) {
        World w = { .procs_running = 1 };
        _cleanup_(monitor_freep) Monitor *m = monitor_on(&w);
        _cleanup_(freep) char *big = NULL;
        size_t len = 20000;
        char *p;

        ck_assert_int_eq(monitor_sample(m, 1 * MS), 0);
        /* /proc/stat's intr line is long on machines with many IRQs. */
        big = malloc(len + 200);
        ck_assert_ptr_nonnull(big);
        p = stpcpy(big, "cpu  1 2 3 4\ncpu0 1 2 3 4\ncpu1 1 2 3 4\nintr 1");
        while ((size_t)(p - big) < len)
                p = stpcpy(p, " 0");
        strcpy(p, "\nprocs_running 9\n");
        tu_write(root, "proc/stat", big, 0644);
        ck_assert_int_eq(monitor_sample(m, 2 * MS), 1);
        ck_assert_uint_eq(monitor_system(m)->procs_running, 9);
        ck_assert_uint_eq(monitor_cpu(m, 0)->runnable_milli, 3000);
}
END_TEST

/* ---- tasks: per-task delay by CPU ---- */

/* A busy poller on CPU 0, a neighbour waiting for CPU 0, a task waiting on CPU 1. */
static World tasks_world(void) {
        World w = { .psi = true, .procs_running = 3, .psi_total_us = 1000, .last_pid = 300 };

        w.task[0].pid = w.task[0].tid = 100; /* the poller */
        w.task[1].pid = w.task[1].tid = 200; /* the neighbour on the polling CPU */
        w.task[2].pid = 250;                 /* a thread of another process, on CPU 1 */
        w.task[2].tid = 251;
        w.task[2].cpu = 1;
        return w;
}

START_TEST(test_sampler_tasks_count_who_waits_where) {
        World w = tasks_world();
        _cleanup_(monitor_freep) Monitor *m = monitor_on(&w);
        MonitorLoad l;
        CpuSet poll;

        ck_assert_str_eq(monitor_source_name(m), "tasks");
        ck_assert_int_eq(monitor_sample(m, 100 * MS), 0);
        ck_assert_uint_eq(monitor_system(m)->tasks_tracked, 3);

        w.task[0].run_ns += 100 * MS; /* it ran the whole interval: never waiting */
        w.task[1].delay_ns += 60 * MS;
        w.task[2].delay_ns += 250 * MS;
        w.psi_total_us += 80000;
        world_write(&w);
        ck_assert_int_eq(monitor_sample(m, 200 * MS), 1);
        ck_assert(monitor_system(m)->tasks_scanned);
        ck_assert_uint_eq(monitor_cpu(m, 0)->runnable_milli, 600);
        ck_assert_uint_eq(monitor_cpu(m, 1)->runnable_milli, 2500);

        cpuset_zero(&poll);
        cpuset_add(&poll, 0);
        monitor_load(m, &poll, &l);
        ck_assert_uint_eq(l.runnable_milli_max, 600); /* the wait on CPU 1 is not the polling CPU's */

        /* The neighbour left: the poller alone runs, nothing waits on CPU 0. */
        w.task[0].run_ns += 100 * MS;
        w.task[2].delay_ns += 10 * MS;
        w.task[1].cpu = 1; /* it moved, and its delay did not grow */
        w.psi_total_us += 10000;
        world_write(&w);
        ck_assert_int_eq(monitor_sample(m, 300 * MS), 1);
        monitor_load(m, &poll, &l);
        ck_assert_uint_eq(l.runnable_milli_max, 0);
        ck_assert_uint_eq(monitor_cpu(m, 1)->runnable_milli, 100);
}
END_TEST

/* A busy-poll NAPI thread shares CPU 0 with a neighbour: only the neighbour's waiting counts. */
START_TEST(test_sampler_tasks_dedicated_pollers_never_wait) {
        World w = tasks_world();
        _cleanup_(monitor_freep) Monitor *m = monitor_on(&w);
        const int pollers[] = { 200 };

        ck_assert_int_eq(monitor_sample(m, 100 * MS), 0);
        ck_assert_int_eq(monitor_ignore_tasks(m, pollers, 1), 0);
        w.task[1].delay_ns += 60 * MS;  /* the poller kthread waited while the other ran */
        w.task[1].utime = 100;          /* user time, so that only the set keeps it out of the crowd */
        w.task[0].delay_ns += 30 * MS;  /* and the other waited for it */
        w.psi_total_us += 80000;
        world_write(&w);
        ck_assert_int_eq(monitor_sample(m, 200 * MS), 1);
        ck_assert_uint_eq(monitor_cpu(m, 0)->runnable_milli, 300);
        /* Never part of a crowd either. */
        ck_assert_int_eq(monitor_mark_crowd(m, NULL, 0), 0);
        monitor_clear_crowd(m);
        /* Out of the set, it counts again from its current baseline. */
        ck_assert_int_eq(monitor_ignore_tasks(m, NULL, 0), 0);
        w.task[1].delay_ns += 40 * MS;
        w.psi_total_us += 80000;
        world_write(&w);
        ck_assert_int_eq(monitor_sample(m, 300 * MS), 1);
        ck_assert_uint_eq(monitor_cpu(m, 0)->runnable_milli, 400);
}
END_TEST

START_TEST(test_sampler_tasks_psi_below_one_percent_skips_the_scan) {
        World w = tasks_world();
        _cleanup_(monitor_freep) Monitor *m = monitor_on(&w);

        ck_assert_int_eq(monitor_sample(m, 100 * MS), 0);
        ck_assert(monitor_system(m)->tasks_scanned); /* the baseline */

        /* Delay moves but PSI does not: the scan is skipped, so the fixture's delay is not even read. */
        w.task[1].delay_ns += 60 * MS;
        world_write(&w);
        ck_assert_int_eq(monitor_sample(m, 200 * MS), 1);
        ck_assert(!monitor_system(m)->tasks_scanned);
        ck_assert_uint_eq(monitor_cpu(m, 0)->runnable_milli, 0);

        /* PSI moves by less than 1 % of the 100 ms: still skipped. */
        w.psi_total_us += 999;
        world_write(&w);
        ck_assert_int_eq(monitor_sample(m, 300 * MS), 1);
        ck_assert(!monitor_system(m)->tasks_scanned);
        ck_assert_uint_eq(monitor_cpu(m, 0)->runnable_milli, 0);

        /* By 1 %: the scan sees all the delay since the last scan it made. */
        w.psi_total_us += 1000;
        world_write(&w);
        ck_assert_int_eq(monitor_sample(m, 400 * MS), 1);
        ck_assert(monitor_system(m)->tasks_scanned);
        ck_assert_uint_eq(monitor_cpu(m, 0)->runnable_milli, 600);

        /* A total that went back (a new PSI file after a hotplug, a wrap) scans rather than guesses. */
        w.psi_total_us -= 5000;
        world_write(&w);
        ck_assert_int_eq(monitor_sample(m, 500 * MS), 1);
        ck_assert(monitor_system(m)->tasks_scanned);
}
END_TEST

START_TEST(test_sampler_tasks_scan_gate_follows_the_threshold) {
        World w = tasks_world();
        _cleanup_(monitor_freep) Monitor *m = monitor_on(&w);

        /* 0.5 tasks on 2 CPUs: a CPU reaching it makes "some" grow by 12.5 % of the interval at least. */
        monitor_set_scan_threshold(m, 500);
        ck_assert_int_eq(monitor_sample(m, 100 * MS), 0);
        w.task[1].delay_ns += 60 * MS;
        w.psi_total_us += 12499;
        world_write(&w);
        ck_assert_int_eq(monitor_sample(m, 200 * MS), 1);
        ck_assert(!monitor_system(m)->tasks_scanned);
        ck_assert_uint_eq(monitor_cpu(m, 0)->runnable_milli, 0);

        w.psi_total_us += 12500;
        world_write(&w);
        ck_assert_int_eq(monitor_sample(m, 300 * MS), 1);
        ck_assert(monitor_system(m)->tasks_scanned);

        /* Without a threshold the 1 % floor is the gate again. */
        monitor_set_scan_threshold(m, 0);
        w.psi_total_us += 1000;
        world_write(&w);
        ck_assert_int_eq(monitor_sample(m, 400 * MS), 1);
        ck_assert(monitor_system(m)->tasks_scanned);
}
END_TEST

/* The watch between samples: PSI alone, the scan gate's share of the time since the last look. */
START_TEST(test_sampler_watch_looks_at_psi_growth_since_the_last_look) {
        World w = tasks_world();
        _cleanup_(monitor_freep) Monitor *m = monitor_on(&w);

        monitor_set_scan_threshold(m, 500); /* the gate: 12.5 % on 2 CPUs */
        ck_assert_int_eq(monitor_watch(m, 50 * MS), -EINVAL); /* no sample yet */
        ck_assert_int_eq(monitor_sample(m, 100 * MS), 0);
        ck_assert_int_eq(monitor_sample(m, 200 * MS), 1);
        ck_assert_int_eq(monitor_watch(m, 200 * MS), -EINVAL); /* not after the last look */

        /* 1.2 ms in 10 ms: below 12.5 %. */
        w.psi_total_us += 1200;
        world_write(&w);
        ck_assert_int_eq(monitor_watch(m, 210 * MS), 0);
        /* Measured from the last look, not the sample: 1.25 ms in the next 10 ms is enough. */
        w.psi_total_us += 1250;
        world_write(&w);
        ck_assert_int_eq(monitor_watch(m, 220 * MS), 1);
        ck_assert_int_eq(monitor_watch(m, 230 * MS), 0);

        /* A sample is the next look's baseline. */
        w.task[1].delay_ns += 5 * MS;
        w.psi_total_us += 5000;
        world_write(&w);
        ck_assert_int_eq(monitor_sample(m, 300 * MS), 1);
        ck_assert_int_eq(monitor_watch(m, 310 * MS), 0);

        /* A file that reads wrong is an error, and the next look still works. */
        tu_write(root, "proc/pressure/cpu", "some total=x\n", 0644);
        ck_assert_int_lt(monitor_watch(m, 320 * MS), 0);
        world_write(&w);
        ck_assert_int_eq(monitor_watch(m, 330 * MS), 0);
}
END_TEST

START_TEST(test_sampler_watch_needs_psi) {
        World w = tasks_world();
        w.psi = false;
        _cleanup_(monitor_freep) Monitor *m = monitor_on(&w);

        ck_assert_int_eq(monitor_sample(m, 100 * MS), 0);
        ck_assert_int_eq(monitor_watch(m, 110 * MS), -EOPNOTSUPP);
}
END_TEST

/* Woken: a wait at the end of a long rest is scanned although "some" grew little over the whole rest. */
START_TEST(test_sampler_woken_scans_past_the_gate) {
        World w = tasks_world();
        _cleanup_(monitor_freep) Monitor *m = monitor_on(&w);

        monitor_set_scan_threshold(m, 500);
        ck_assert_int_eq(monitor_sample(m, 100 * MS), 0);
        w.task[1].delay_ns += 20 * MS;
        w.psi_total_us += 10000; /* 10 ms in 500 ms: 2 %, below the gate */
        world_write(&w);
        monitor_woken(m);
        ck_assert_int_eq(monitor_sample(m, 600 * MS), 1);
        ck_assert(monitor_system(m)->tasks_scanned);
        ck_assert_uint_eq(monitor_cpu(m, 0)->runnable_milli, 40); /* 20 ms over 500 ms */

        /* Once: the next sample is gated again. */
        w.task[1].delay_ns += 20 * MS;
        w.psi_total_us += 10000;
        world_write(&w);
        ck_assert_int_eq(monitor_sample(m, 1100 * MS), 1);
        ck_assert(!monitor_system(m)->tasks_scanned);
}
END_TEST

START_TEST(test_sampler_tasks_crowd_is_the_cpu_bound_tasks_that_waited) {
        World w = tasks_world();
        _cleanup_(monitor_freep) Monitor *m = NULL;
        MonitorLoad l;
        CpuSet poll;

        w.task[3].pid = w.task[3].tid = 30; /* a kworker whose one tick landed in user mode */
        w.task[3].kthread = true;
        w.task[3].utime = 1;
        w.task[4].pid = 250; /* a thread of another process on CPU 0, its few ticks in user mode */
        w.task[4].tid = 252;
        w.task[4].utime = 3;
        w.task[4].stime = 1;
        m = monitor_on(&w);

        cpuset_zero(&poll);
        cpuset_add(&poll, 0);
        w.task[0].stime = 990; /* the poller: its time is in the kernel (busy polling, the network stack) */
        w.task[0].utime = 10;
        w.task[1].utime = 500; /* the neighbour: a CPU-bound loop */
        w.task[1].stime = 2;
        w.task[2].utime = 300; /* CPU-bound too, but it waits on CPU 1 */
        world_write(&w);
        ck_assert_int_eq(monitor_sample(m, 100 * MS), 0);

        /*
         * Everyone waited: the poller behind the neighbour, the neighbour behind
         * the poller, the kworker, and a thread of another process on CPU 0 whose
         * few ticks fell in user mode but that ran only 5 ms of the 100: quiet.
         */
        w.task[0].delay_ns += 30 * MS;
        w.task[1].delay_ns += 60 * MS;
        w.task[2].delay_ns += 250 * MS;
        w.task[3].delay_ns += 5 * MS;
        w.task[4].delay_ns += 5 * MS;
        w.task[0].run_ns += 40 * MS;
        w.task[1].run_ns += 40 * MS;
        w.task[3].run_ns += 20 * MS;
        w.task[4].run_ns += 5 * MS;
        w.psi_total_us += 80000;
        world_write(&w);
        ck_assert_int_eq(monitor_sample(m, 200 * MS), 1);
        ck_assert_int_eq(monitor_mark_crowd(m, &poll, 100), 1);
        ck_assert_int_eq(monitor_mark_crowd(m, &poll, 100), 1); /* marking again adds nobody twice */
        ck_assert_uint_eq(monitor_crowd_tasks(m), 1);
        {
                int pids[4] = {};
                ck_assert_int_eq(monitor_crowd_pids(m, pids, ELEMENTSOF(pids)), 1);
                ck_assert_int_eq(pids[0], 200);
        }

        /* Busy polling yielded: the neighbour runs alone, nobody waits, PSI spares the full scan. */
        w.task[0].run_ns += 10 * MS;
        w.task[1].run_ns += 90 * MS;
        w.task[2].run_ns += 100 * MS;
        world_write(&w);
        ck_assert_int_eq(monitor_sample(m, 300 * MS), 1);
        ck_assert(!monitor_system(m)->tasks_scanned);
        ck_assert_uint_eq(monitor_cpu(m, 0)->crowd_milli, 900);
        ck_assert_uint_eq(monitor_crowd_tasks(m), 1);
        ck_assert_uint_eq(monitor_cpu(m, 1)->crowd_milli, 0);
        monitor_load(m, &poll, &l);
        ck_assert_uint_eq(l.crowd_milli_max, 900);
        ck_assert_uint_eq(l.runnable_milli_max, 0);

        /* A full scan counts it the same way. */
        w.task[1].run_ns += 50 * MS;
        w.psi_total_us += 1000;
        world_write(&w);
        ck_assert_int_eq(monitor_sample(m, 400 * MS), 1);
        ck_assert(monitor_system(m)->tasks_scanned);
        ck_assert_uint_eq(monitor_cpu(m, 0)->crowd_milli, 500);

        /*
         * It exited and is not reaped yet: its schedstat still reads, with the
         * run of its last moments, but it is a zombie. It left the crowd, which
         * uses nothing.
         */
        w.task[1].run_ns += 40 * MS;
        w.task[1].state = 'Z';
        world_write(&w);
        ck_assert_int_eq(monitor_sample(m, 500 * MS), 1);
        ck_assert(!monitor_system(m)->tasks_scanned);
        ck_assert_uint_eq(monitor_cpu(m, 0)->crowd_milli, 0);
        ck_assert_uint_eq(monitor_crowd_tasks(m), 0);
        {
                _cleanup_(freep) char *dir = tu_join(root, "proc/200");
                tu_rm_rf(dir);
        }
        w.task[1].tid = 0;
        w.task[1].state = 0;
        ck_assert_int_eq(monitor_sample(m, 550 * MS), 1);
        ck_assert_uint_eq(monitor_cpu(m, 0)->crowd_milli, 0);

        /* Forgotten: a task that runs is no crowd. */
        w.task[1].pid = w.task[1].tid = 200;
        w.task[0].delay_ns += 30 * MS;
        w.psi_total_us += 1000;
        world_write(&w);
        monitor_clear_crowd(m);
        ck_assert_uint_eq(monitor_crowd_tasks(m), 0);
        ck_assert_int_eq(monitor_sample(m, 600 * MS), 1);
        w.task[0].run_ns += 80 * MS;
        w.psi_total_us += 1000;
        world_write(&w);
        ck_assert_int_eq(monitor_sample(m, 700 * MS), 1);
        ck_assert_uint_eq(monitor_cpu(m, 0)->crowd_milli, 0);
}
END_TEST

/* The tasks of idx (n of them) waited 60 ms and ran 40 ms since the sample 100 ms before at_ns; the one at at_ns sees it. */
static void tasks_waited(World *w, Monitor *m, uint64_t at_ns, const size_t *idx, size_t n) {
        for (size_t i = 0; i < n; i++) {
                w->task[idx[i]].delay_ns += 60 * MS;
                w->task[idx[i]].run_ns += 40 * MS;
        }
        w->psi_total_us += 80000;
        world_write(w);
        ck_assert_int_eq(monitor_sample(m, at_ns), 1);
}

/* The crowd's processes: each once, however many of its threads are in the crowd; the count past max. */
START_TEST(test_sampler_crowd_pids_are_processes) {
        World w = tasks_world();
        _cleanup_(monitor_freep) Monitor *m = NULL;
        int pids[2] = {};

        w.task[1].utime = 500; /* pid 200, CPU-bound */
        w.task[3].pid = 200;   /* a second thread of it */
        w.task[3].tid = 201;
        w.task[3].utime = 500;
        w.task[2].utime = 300; /* pid 250's thread 251, on CPU 1 */
        m = monitor_on(&w);
        ck_assert_int_eq(monitor_sample(m, 100 * MS), 0);
        tasks_waited(&w, m, 200 * MS, (const size_t[]){ 1, 2, 3 }, 3);
        ck_assert_int_eq(monitor_mark_crowd(m, NULL, 100), 3);
        ck_assert_int_eq(monitor_crowd_pids(m, pids, ELEMENTSOF(pids)), 2);
        ck_assert((pids[0] == 200 && pids[1] == 250) || (pids[0] == 250 && pids[1] == 200)); /* /proc's order */
        ck_assert_int_eq(monitor_crowd_pids(m, pids, 1), 2); /* cut: still counted */
        monitor_clear_crowd(m);
        ck_assert_int_eq(monitor_crowd_pids(m, pids, ELEMENTSOF(pids)), 0);
}
END_TEST

/* The log names the crowd's processes by their comm, or by the PID alone once the stat is gone. */
START_TEST(test_crowd_described_by_process) {
        World w = tasks_world();
        _cleanup_(monitor_freep) Monitor *m = NULL;
        AdaptCrowd c;
        char buf[128], small[12];

        w.task[1].utime = 500; /* pid 200, CPU-bound */
        w.task[2].utime = 300; /* pid 250, CPU-bound, without a process stat below */
        m = monitor_on(&w);
        tu_write(root, "proc/200/stat", "200 (stress-ng (cpu)) R 1 1 1 0 -1 4194304 97 0 0 0 500 0\n", 0644);
        adapt_crowd_init(&c, m, NULL, root, false, NULL, NULL);
        ck_assert_int_eq(adapt_crowd_describe(&c, buf, sizeof(buf)), 0);
        ck_assert_str_eq(buf, "");
        ck_assert_int_eq(monitor_sample(m, 100 * MS), 0);
        tasks_waited(&w, m, 200 * MS, (const size_t[]){ 1, 2 }, 2);
        ck_assert_int_eq(monitor_mark_crowd(m, NULL, 100), 2);
        ck_assert_int_eq(adapt_crowd_describe(&c, buf, sizeof(buf)), 2);
        ck_assert_msg(streq(buf, "stress-ng (cpu)[200], [250]") || streq(buf, "[250], stress-ng (cpu)[200]"),
                      "described as \"%s\"", buf);
        /* Cut to the buffer, always terminated. */
        ck_assert_int_eq(adapt_crowd_describe(&c, small, sizeof(small)), 2);
        ck_assert_uint_eq(strlen(small), sizeof(small) - 1);
        adapt_crowd_clear(&c);
        ck_assert_int_eq(adapt_crowd_describe(&c, buf, sizeof(buf)), 0);
        ck_assert_str_eq(buf, "");
        adapt_crowd_done(&c);
}
END_TEST

/* A CPU-bound task created since the last listing can join the crowd at the scan that lists it. */
START_TEST(test_sampler_new_task_joins_the_crowd_when_listed) {
        World w = tasks_world();
        _cleanup_(monitor_freep) Monitor *m = monitor_on(&w);

        ck_assert_int_eq(monitor_sample(m, 100 * MS), 0);
        w.task[3].pid = w.task[3].tid = 300; /* born since: it ran 40 ms and waited 30 */
        w.task[3].utime = 10;
        w.task[3].run_ns = 40 * MS;
        w.task[3].delay_ns = 30 * MS;
        w.last_pid = 301;
        w.psi_total_us += 30000;
        world_write(&w);
        monitor_woken(m);
        ck_assert_int_eq(monitor_sample(m, 200 * MS), 1);
        ck_assert_uint_eq(monitor_system(m)->tasks_tracked, 4);
        ck_assert_uint_eq(monitor_cpu(m, 0)->runnable_milli, 300);
        ck_assert_int_eq(monitor_mark_crowd(m, NULL, 100), 1);
}
END_TEST

/* What adapt_crowd_mark() logs (stderr, the console target), as a string to free. */
static char *logged_by_mark(AdaptCrowd *c) {
        _cleanup_(freep) char *path = tu_join(root, "mark.log");
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600), saved = dup(STDERR_FILENO);
        char *text;

        ck_assert_int_ge(fd, 0);
        ck_assert_int_ge(saved, 0);
        fflush(stderr);
        ck_assert_int_ge(dup2(fd, STDERR_FILENO), 0);
        adapt_crowd_mark(c, NULL);
        fflush(stderr);
        ck_assert_int_ge(dup2(saved, STDERR_FILENO), 0);
        close(saved);
        close(fd);
        text = tu_read(root, "mark.log");
        ck_assert_ptr_nonnull(text);
        return text;
}

/* The log names the crowd when it is found, then each process that joins it, each once. */
START_TEST(test_crowd_named_as_it_grows) {
        World w = tasks_world();
        _cleanup_(monitor_freep) Monitor *m = NULL;
        AdaptCrowd c;
        char *text;

        w.task[1].utime = 500; /* pid 200, CPU-bound */
        w.task[2].utime = 300; /* pid 250, CPU-bound */
        m = monitor_on(&w);
        adapt_crowd_init(&c, m, NULL, root, false, NULL, NULL);
        ck_assert_int_eq(monitor_sample(m, 100 * MS), 0);
        tasks_waited(&w, m, 200 * MS, (const size_t[]){ 1 }, 1);
        text = logged_by_mark(&c);
        ck_assert_msg(strstr(text, "busy polling yields to the CPU-bound tasks of [200]\n"), "logged: %s", text);
        free(text);
        tasks_waited(&w, m, 300 * MS, (const size_t[]){ 1, 2 }, 2);
        text = logged_by_mark(&c);
        ck_assert_msg(strstr(text, "busy polling also yields to the CPU-bound tasks of [250]\n") && !strstr(text, "[200]"),
                      "logged: %s", text);
        free(text);
        tasks_waited(&w, m, 400 * MS, (const size_t[]){ 1, 2 }, 2);
        text = logged_by_mark(&c);
        ck_assert_msg(!strstr(text, "yields"), "named again: %s", text);
        free(text);
        /* A new yield names them afresh. */
        adapt_crowd_clear(&c);
        tasks_waited(&w, m, 500 * MS, (const size_t[]){ 2 }, 1);
        text = logged_by_mark(&c);
        ck_assert_msg(strstr(text, "busy polling yields to the CPU-bound tasks of [250]\n"), "logged: %s", text);
        free(text);
        adapt_crowd_done(&c);
}
END_TEST

/*
 * The crowd's tasks that still run when a probe stood become companions
 * (adapt_crowd_accept()): they never join a crowd again (also after /proc is
 * listed again), while a new neighbour does.
 */
START_TEST(test_sampler_companions_never_join_the_crowd) {
        World w = tasks_world();
        _cleanup_(monitor_freep) Monitor *m = NULL;
        int pids[4] = {};
        AdaptCrowd c;

        w.task[1].utime = 500; /* pid 200, CPU-bound: say, a load generator beside the app */
        w.task[2].utime = 300; /* pid 250, CPU-bound: the neighbour */
        m = monitor_on(&w);
        ck_assert_int_eq(monitor_sample(m, 100 * MS), 0);
        adapt_crowd_init(&c, m, NULL, root, false, NULL, NULL);
        tasks_waited(&w, m, 200 * MS, (const size_t[]){ 1, 2 }, 2);
        adapt_crowd_mark(&c, NULL);
        ck_assert(c.found && c.following);
        ck_assert_uint_eq(monitor_crowd_tasks(m), 2);

        /* The neighbour exited (a zombie, then gone); busy polling came back beside pid 200 and stood. */
        w.task[1].run_ns += 90 * MS;
        w.task[2].state = 'Z';
        world_write(&w);
        ck_assert_int_eq(monitor_sample(m, 300 * MS), 1);
        ck_assert_uint_eq(monitor_crowd_tasks(m), 1);
        {
                _cleanup_(freep) char *dir = tu_join(root, "proc/250");
                tu_rm_rf(dir);
        }
        w.task[2].tid = 0;
        adapt_crowd_accept(&c);
        ck_assert(!c.found && !c.following);
        ck_assert_uint_eq(monitor_crowd_tasks(m), 0);
        ck_assert_int_eq(monitor_crowd_pids(m, pids, ELEMENTSOF(pids)), 0);

        /* A new neighbour: listed (a PID was created), it and pid 200 wait; only it joins. */
        w.task[3].pid = w.task[3].tid = 300;
        w.task[3].utime = 400;
        w.last_pid = 301;
        w.psi_total_us += 1000;
        world_write(&w);
        ck_assert_int_eq(monitor_sample(m, 400 * MS), 1);
        tasks_waited(&w, m, 500 * MS, (const size_t[]){ 1, 3 }, 2);
        ck_assert_uint_eq(monitor_cpu(m, 0)->runnable_milli, 1200); /* a companion's waiting still counts */
        adapt_crowd_mark(&c, NULL);
        ck_assert_uint_eq(monitor_crowd_tasks(m), 1);
        ck_assert_int_eq(monitor_crowd_pids(m, pids, ELEMENTSOF(pids)), 1);
        ck_assert_int_eq(pids[0], 300);
        ck_assert_int_eq(monitor_crowd_to_companions(m), 1);
        ck_assert_int_eq(monitor_mark_crowd(m, NULL, 100), 0);
        adapt_crowd_done(&c);
}
END_TEST

START_TEST(test_sampler_crowd_needs_the_tasks_source) {
        World w = { .schedstat = true };
        _cleanup_(monitor_freep) Monitor *m = monitor_on(&w);

        ck_assert_str_eq(monitor_source_name(m), "schedstat");
        ck_assert_int_eq(monitor_mark_crowd(m, NULL, 100), -EOPNOTSUPP);
        ck_assert_uint_eq(monitor_crowd_tasks(m), 0);
        ck_assert_int_eq(monitor_crowd_pids(m, NULL, 0), -EOPNOTSUPP);
        monitor_clear_crowd(m);
}
END_TEST

START_TEST(test_sampler_tasks_listed_again_only_when_one_was_created) {
        World w = tasks_world();
        _cleanup_(monitor_freep) Monitor *m = monitor_on(&w);

        ck_assert_int_eq(monitor_sample(m, 100 * MS), 0);

        /* A task appears but loadavg's last PID says none was created: not listed yet. */
        w.task[3].pid = w.task[3].tid = 300;
        w.task[3].delay_ns = 5 * MS;
        w.psi_total_us += 1000;
        world_write(&w);
        ck_assert_int_eq(monitor_sample(m, 200 * MS), 1);
        ck_assert_uint_eq(monitor_system(m)->tasks_tracked, 3);

        /* Now it says so: listed, and the delay it gathered as a new task counts at once. */
        w.last_pid = 301;
        w.psi_total_us += 1000;
        world_write(&w);
        ck_assert_int_eq(monitor_sample(m, 300 * MS), 1);
        ck_assert_uint_eq(monitor_system(m)->tasks_tracked, 4);
        ck_assert_uint_eq(monitor_cpu(m, 0)->runnable_milli, 50);

        w.task[3].delay_ns += 30 * MS;
        w.psi_total_us += 1000;
        world_write(&w);
        ck_assert_int_eq(monitor_sample(m, 400 * MS), 1);
        ck_assert_uint_eq(monitor_cpu(m, 0)->runnable_milli, 300);

        /* Another one 200 ms after that listing: it waits for the next one, 250 ms after the last at least. */
        w.task[4].pid = w.task[4].tid = 302;
        w.task[4].delay_ns = 900 * MS; /* more than it can have waited since that listing */
        w.last_pid = 302;
        w.psi_total_us += 1000;
        world_write(&w);
        ck_assert_int_eq(monitor_sample(m, 500 * MS), 1);
        ck_assert_uint_eq(monitor_system(m)->tasks_tracked, 4);
        w.psi_total_us += 1000;
        world_write(&w);
        ck_assert_int_eq(monitor_sample(m, 550 * MS), 1);
        ck_assert_uint_eq(monitor_system(m)->tasks_tracked, 5);
        /* Only the 250 ms since the previous listing count, over this 50 ms sample: 5 tasks' worth. */
        ck_assert_uint_eq(monitor_cpu(m, 0)->runnable_milli, 5000);

        /* From then on only its growth counts, as for every task. */
        w.task[4].delay_ns += 10 * MS;
        w.psi_total_us += 1000;
        world_write(&w);
        ck_assert_int_eq(monitor_sample(m, 650 * MS), 1);
        ck_assert_uint_eq(monitor_cpu(m, 0)->runnable_milli, 100);
}
END_TEST

/* Told that tasks wait (the CPU pressure trigger fired), the next sample lists a new task however soon. */
START_TEST(test_sampler_tasks_listed_at_once_when_told) {
        World w = tasks_world();
        _cleanup_(monitor_freep) Monitor *m = monitor_on(&w);

        ck_assert_int_eq(monitor_sample(m, 100 * MS), 0);
        /* 50 ms after the first listing a neighbour starts: the 250 ms gap keeps it unlisted ... */
        w.task[3].pid = w.task[3].tid = 300;
        w.task[3].delay_ns = 40 * MS;
        w.last_pid = 301;
        w.psi_total_us += 40000;
        world_write(&w);
        ck_assert_int_eq(monitor_sample(m, 150 * MS), 1);
        ck_assert_uint_eq(monitor_system(m)->tasks_tracked, 3);
        /* ... unless the kernel said tasks wait: then it is listed, its delay since that listing counting. */
        w.psi_total_us += 10000;
        world_write(&w);
        monitor_woken(m);
        ck_assert_int_eq(monitor_sample(m, 160 * MS), 1);
        ck_assert_uint_eq(monitor_system(m)->tasks_tracked, 4);
        ck_assert_uint_eq(monitor_cpu(m, 0)->runnable_milli, 4000); /* 40 ms over the 10 ms sample */
        /* Once: the next new task waits for the gap again. */
        w.task[4].pid = w.task[4].tid = 302;
        w.last_pid = 302;
        w.psi_total_us += 10000;
        world_write(&w);
        ck_assert_int_eq(monitor_sample(m, 170 * MS), 1);
        ck_assert_uint_eq(monitor_system(m)->tasks_tracked, 4);
}
END_TEST

/*
 * Steady mild CPU pressure on a forking host: the trigger's watch asks for a
 * sample every 10 ms (CPUWAKE_WATCH_US) for 2 s, as the adapter does
 * (sample_now(): monitor_woken(), then the sample after
 * monitor_woken_wait_ns()). At most one woken sample per interval, and no
 * listing inside the floor after one a wake brought forward.
 */
START_TEST(test_sampler_woken_samples_bounded_under_steady_pressure) {
        const uint64_t interval = 100 * MS;
        World w = tasks_world();
        _cleanup_(monitor_freep) Monitor *m = monitor_on(&w);
        uint64_t next, last_sample = 0, listed[64], listings;
        size_t n_samples = 0, n_listed = 0;

        ck_assert_int_eq(monitor_sample(m, 100 * MS), 0);
        listings = monitor_system(m)->tasks_listings;
        listed[n_listed++] = 100 * MS;
        last_sample = next = 100 * MS + interval;
        for (uint64_t t = 110 * MS; t <= 2100 * MS; t += 10 * MS) {
                uint64_t wait;

                w.last_pid++; /* a task created every 10 ms */
                w.psi_total_us += 2000;
                world_write(&w);
                monitor_woken(m);
                wait = monitor_woken_wait_ns(m, t, interval);
                next = MIN(next, t + wait);
                if (t < next)
                        continue;
                ck_assert_int_eq(monitor_sample(m, t), 1);
                ck_assert_msg(n_samples == 0 || t - last_sample >= interval,
                              "a woken sample at %" PRIu64 " ms, %" PRIu64 " ms after the last", t / MS,
                              (t - last_sample) / MS);
                n_samples++;
                last_sample = t;
                next = t + interval;
                if (monitor_system(m)->tasks_listings != listings) {
                        listings = monitor_system(m)->tasks_listings;
                        ck_assert_uint_lt(n_listed, ELEMENTSOF(listed));
                        listed[n_listed++] = t;
                }
        }
        ck_assert_uint_ge(n_samples, 15);
        ck_assert_uint_le(n_samples, 20);
        /* The floor: a listing that came early is followed by none for TASK_WAIT_RELIST_NS. */
        for (size_t i = 1; i + 1 < n_listed; i++)
                if (listed[i] - listed[i - 1] < TASK_WAIT_RELIST_NS)
                        ck_assert_msg(listed[i + 1] - listed[i] >= TASK_WAIT_RELIST_NS,
                                      "listed at %" PRIu64 ", %" PRIu64 " and %" PRIu64 " ms", listed[i - 1] / MS,
                                      listed[i] / MS, listed[i + 1] / MS);
        ck_assert_uint_le(n_listed, 2 * (2000 * MS / TASK_WAIT_RELIST_NS) + 1);
}
END_TEST

START_TEST(test_sampler_tasks_scan_and_listing_allocate_nothing) {
#ifdef COUNT_ALLOCS
        World w = tasks_world();
        _cleanup_(monitor_freep) Monitor *m = monitor_on(&w);
        size_t allocs = 0, before;
        int failed = 0;

        ck_assert_int_eq(monitor_sample(m, 300 * MS), 0);
        for (uint64_t i = 2; i < 20; i++) {
                /* Every sample scans (PSI moved 1 % of 300 ms) and lists /proc again (a PID was handed out). */
                w.psi_total_us += 3000;
                w.last_pid++;
                w.task[1].delay_ns += MS;
                world_write(&w);
                before = n_allocs;
                if (monitor_sample(m, i * 300 * MS) != 1)
                        failed++;
                allocs += n_allocs - before;
        }
        ck_assert_int_eq(failed, 0);
        ck_assert_uint_eq(allocs, 0);
        ck_assert_uint_eq(monitor_cpu(m, 0)->runnable_milli, 3); /* 1 ms of waiting in 300 ms */
#else
        tu_skip("the sanitizer owns malloc");
#endif
}
END_TEST

START_TEST(test_sampler_tasks_need_a_readable_task) {
        World w = tasks_world();
        _cleanup_(monitor_freep) Monitor *m = NULL;

        for (size_t i = 0; i < ELEMENTSOF(w.task); i++)
                w.task[i].tid = 0;
        m = monitor_on(&w);
        ck_assert_str_eq(monitor_source_name(m), "procs_running");
}
END_TEST

/* ---- busy polling's packets, all network namespaces ---- */

static void netstat_put(const char *rel, uint64_t packets) {
        put(rel, "TcpExt: SyncookiesSent BusyPollRxPackets TCPAutoCorking\nTcpExt: 0 %" PRIu64 " 3\n", packets);
}

START_TEST(test_sampler_busy_poll_packets_summed_over_namespaces) {
        World w = { .procs_running = 1, .last_pid = 30 };
        _cleanup_(freep) char *a = tu_join(root, "proc/10/net/netstat");
        _cleanup_(freep) char *link_path = tu_join(root, "proc/30/net/netstat"), *gone = tu_join(root, "proc/10");
        _cleanup_(monitor_freep) Monitor *m = NULL, *none = NULL;
        uint64_t packets, total;

        none = monitor_on(&w);
        ck_assert_int_eq(monitor_busy_poll_packets(none, &packets), -ENODEV); /* no netstat anywhere */

        netstat_put("proc/10/net/netstat", 100); /* namespace A */
        netstat_put("proc/20/net/netstat", 5);   /* namespace B */
        put("proc/30/net/dev", "\n"); /* makes the directory */
        ck_assert_int_eq(link(a, link_path), 0); /* pid 30 is in A too: same inode */
        m = monitor_on(&w);
        ck_assert_int_eq(monitor_busy_poll_packets(m, &packets), 0);
        ck_assert_uint_eq(packets, 0); /* the first call finds the namespaces: a baseline */

        netstat_put("proc/10/net/netstat", 150);
        netstat_put("proc/20/net/netstat", 12);
        ck_assert_int_eq(monitor_busy_poll_packets(m, &packets), 0);
        ck_assert_uint_eq(packets, 57); /* A once, not twice */
        ck_assert_int_eq(monitor_busy_poll_packets(m, &packets), 0);
        ck_assert_uint_eq(packets, 0);

        /*
         * Pid 10 ends: A is still reached through pid 30 and no growth is lost.
         * (When A was followed through pid 10, the growth shows one read late,
         * after the re-listing found pid 30.)
         */
        ck_assert_int_eq(unlink(a), 0);
        tu_rm_rf(gone);
        netstat_put("proc/30/net/netstat", 160);
        ck_assert_int_eq(monitor_busy_poll_packets(m, &packets), 0);
        total = packets;
        netstat_put("proc/30/net/netstat", 170);
        ck_assert_int_eq(monitor_busy_poll_packets(m, &packets), 0);
        ck_assert_uint_eq(total + packets, 20);
}
END_TEST

START_TEST(test_sampler_reads_the_running_kernel) {
        /* Read-only: real /proc (and debugfs when mounted). */
        _cleanup_(monitor_freep) Monitor *m = NULL;
        struct timespec ts;
        uint64_t t;

        ck_assert_int_eq(monitor_new(&m, NULL), 0);
        ck_assert_uint_ge(monitor_n_cpus(m), 1);
        ck_assert_ptr_nonnull(monitor_source_name(m));
        ck_assert_int_eq(clock_gettime(CLOCK_MONOTONIC, &ts), 0);
        t = (uint64_t)ts.tv_sec * 1000 * MS + (uint64_t)ts.tv_nsec;
        ck_assert_int_eq(monitor_sample(m, t), 0);
        ck_assert_int_eq(monitor_sample(m, t + 100 * MS), 1);
        ck_assert_uint_ge(monitor_system(m)->n_online, 1);
        printf("running kernel: source %s, psi %s, %zu CPUs, %zu tasks followed\n", monitor_source_name(m),
               monitor_uses_psi(m) ? "yes" : "no", monitor_n_cpus(m), monitor_system(m)->tasks_tracked);
}
END_TEST

static Suite *monitor_suite(void) {
        Suite *s = suite_create("monitor");
        TCase *tc;

        tc = tcase_create("sampler");
        tcase_add_checked_fixture(tc, sampler_setup, sampler_teardown);
        tcase_add_test(tc, test_sampler_prefers_schedstat_then_sched_debug_then_procs_running);
        tcase_add_test(tc, test_sampler_uses_psi_only_when_readable);
        tcase_add_test(tc, test_sampler_needs_stat_softnet_and_softirqs);
        tcase_add_test(tc, test_sampler_time_squeeze_totals_are_the_raw_counters);
        tcase_add_test(tc, test_sampler_rates_between_two_samples);
        tcase_add_test(tc, test_sampler_sched_debug_counts_waiting_tasks);
        tcase_add_test(tc, test_sampler_procs_running_spreads_over_online_cpus);
        tcase_add_test(tc, test_sampler_counter_going_backwards_gives_zero);
        tcase_add_test(tc, test_sampler_cpu_going_offline_and_back);
        tcase_add_test(tc, test_sampler_reads_proc_stat_once_a_second_unless_it_is_the_source);
        tcase_add_test(tc, test_sampler_keeps_baseline_when_a_read_fails);
        tcase_add_test(tc, test_sampler_load_over_a_cpu_set);
        tcase_add_test(tc, test_sampler_allocates_nothing_per_sample);
        tcase_add_test(tc, test_sampler_follows_a_file_that_outgrows_its_buffer);
        tcase_add_test(tc, test_sampler_tasks_count_who_waits_where);
        tcase_add_test(tc, test_sampler_tasks_dedicated_pollers_never_wait);
        tcase_add_test(tc, test_sampler_tasks_psi_below_one_percent_skips_the_scan);
        tcase_add_test(tc, test_sampler_tasks_scan_gate_follows_the_threshold);
        tcase_add_test(tc, test_sampler_tasks_crowd_is_the_cpu_bound_tasks_that_waited);
        tcase_add_test(tc, test_sampler_companions_never_join_the_crowd);
        tcase_add_test(tc, test_crowd_named_as_it_grows);
        tcase_add_test(tc, test_sampler_new_task_joins_the_crowd_when_listed);
        tcase_add_test(tc, test_sampler_crowd_needs_the_tasks_source);
        tcase_add_test(tc, test_sampler_tasks_listed_again_only_when_one_was_created);
        tcase_add_test(tc, test_sampler_tasks_listed_at_once_when_told);
        tcase_add_test(tc, test_sampler_woken_samples_bounded_under_steady_pressure);
        tcase_add_test(tc, test_sampler_watch_looks_at_psi_growth_since_the_last_look);
        tcase_add_test(tc, test_sampler_watch_needs_psi);
        tcase_add_test(tc, test_sampler_woken_scans_past_the_gate);
        tcase_add_test(tc, test_sampler_crowd_pids_are_processes);
        tcase_add_test(tc, test_crowd_described_by_process);
        tcase_add_test(tc, test_sampler_tasks_scan_and_listing_allocate_nothing);
        tcase_add_test(tc, test_sampler_tasks_need_a_readable_task);
        tcase_add_test(tc, test_sampler_busy_poll_packets_summed_over_namespaces);
        tcase_add_test(tc, test_sampler_reads_the_running_kernel);
        suite_add_tcase(s, tc);

        return s;
}

TU_MAIN(monitor_suite)
