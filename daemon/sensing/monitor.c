/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * monitor.c: the sampler. Files are opened once and re-read with pread at
 * offset 0 (seq_file regenerates the content for each read from the start);
 * two readings alternate as "previous" and "current", so a sample is a
 * pread + parse into preallocated arrays and a subtraction per counter.
 */
#include "monitor.h"

#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "macro.h"
#include "busypoll.h"
#include "monitor-parse.h"
#include "sysroot.h"
#include "taskwait.h"
#include "test-hook.h"
#include "units.h"

/* No statistics file read here gets this large; beyond it something is wrong. */
#define STAT_FILE_MAX (UINT32_C(16) << 20)
#define STAT_FILE_INITIAL 4096

typedef struct StatFile {
        int fd;
        char *buf; /* NUL-terminated content of the last read */
        size_t size;
} StatFile;

/* The raw counters of one sample. */
typedef struct Reading {
        uint64_t now_ns;
        ProcStat stat;
        bool *online;
        SchedstatCpu *schedstat;    /* source schedstat only */
        SchedDebugCpu *sched_debug; /* source sched_debug only */
        SoftnetCpu *softnet;
        SoftirqCpu *softirqs;
        Psi psi;
} Reading;

struct Monitor {
        MonitorSource source;
        bool psi;
        size_t n_cpus;
        StatFile stat, runnable, softnet, softirqs, pressure;
        Reading readings[2];
        Reading *prev, *cur;
        bool have_prev;
        MonitorCpu *cpus;
        MonitorSystem system;
        TaskWait *tasks;     /* source tasks only */
        uint64_t *waited_ns; /* per CPU, the last task scan's delay growth */
        uint64_t *crowd_ns;  /* per CPU, the crowd's run time growth in the last sample */
        size_t crowd;        /* the crowd's size at the last mark (some may have ended since) */
        bool scanned;        /* the last sample scanned tasks (else PSI said nobody waited) */
        bool woken;          /* monitor_woken(): the next sample scans whatever PSI's growth */
        uint64_t woken_ns;   /* the last woken sample's time (the caller's clock), 0: none yet */
        uint64_t scan_threshold_milli; /* see monitor_set_scan_threshold() */
        uint64_t stat_read_ns; /* when /proc/stat was last read (see read_all()) */
        uint64_t watch_ns, watch_some_us; /* monitor_watch()'s baseline: its last look or the last sample */
        char *sysroot;              /* for the busy-poll counter, made on first use */
        BusyPollCounter *busy_poll;
        int busy_poll_error;        /* set once the counter could not be made */
};

static void stat_file_close(StatFile *f) {
        if (f->fd >= 0)
                close(f->fd);
        f->fd = -EBADF;
        free(f->buf);
        f->buf = NULL;
        f->size = 0;
}

static int stat_file_open(StatFile *f, const char *sysroot, const char *path) {
        _cleanup_(freep) char *full = NULL;
        int r;

        r = sysroot_path(sysroot, path, &full);
        if (r < 0)
                return r;
        f->fd = open(full, O_RDONLY | O_CLOEXEC | O_NOCTTY);
        if (f->fd < 0)
                return negative_errno();
        f->buf = malloc(STAT_FILE_INITIAL);
        if (!f->buf)
                return -ENOMEM;
        f->size = STAT_FILE_INITIAL;
        return 0;
}

/*
 * Reads the whole file into f->buf; grows the buffer only when the file no
 * longer fits. A short read is the end: these /proc files are seq_files,
 * which fill the buffer unless the text ends (as do the regular files of a
 * test's sysroot), and a pread past offset 0 only to see 0 would make the
 * kernel generate the whole text again to find the offset.
 */
static int stat_file_read(StatFile *f) {
        for (;;) {
                size_t len = 0;
                char *nbuf;

                while (len < f->size - 1) {
                        size_t want = f->size - 1 - len;
                        ssize_t n = pread(f->fd, f->buf + len, want, (off_t)len);
                        if (n < 0) {
                                if (errno == EINTR)
                                        continue;
                                return negative_errno();
                        }
                        len += (size_t)n;
                        if ((size_t)n < want)
                                break;
                }
                if (len < f->size - 1) {
                        f->buf[len] = 0;
                        /* A NUL inside would silently cut the text short for the parsers. */
                        return memchr(f->buf, 0, len) ? -EBADMSG : 0;
                }
                if (f->size >= STAT_FILE_MAX)
                        return -EFBIG;
                nbuf = realloc(f->buf, f->size * 2);
                if (!nbuf)
                        return -ENOMEM;
                f->buf = nbuf;
                f->size *= 2;
        }
}

static int stat_file_open_read(StatFile *f, const char *sysroot, const char *path) {
        int r = stat_file_open(f, sysroot, path);
        if (r >= 0)
                r = stat_file_read(f);
        if (r < 0)
                stat_file_close(f);
        return r;
}

static void reading_free(Reading *r) {
        free(r->online);
        free(r->schedstat);
        free(r->sched_debug);
        free(r->softnet);
        free(r->softirqs);
        *r = (Reading){};
}

static int reading_alloc(Reading *r, size_t n, MonitorSource source) {
        r->online = calloc(n, sizeof(*r->online));
        r->softnet = calloc(n, sizeof(*r->softnet));
        r->softirqs = calloc(n, sizeof(*r->softirqs));
        if (source == MONITOR_SOURCE_SCHEDSTAT)
                r->schedstat = calloc(n, sizeof(*r->schedstat));
        else if (source == MONITOR_SOURCE_SCHED_DEBUG)
                r->sched_debug = calloc(n, sizeof(*r->sched_debug));
        if (!r->online || !r->softnet || !r->softirqs || (source == MONITOR_SOURCE_SCHEDSTAT && !r->schedstat) ||
            (source == MONITOR_SOURCE_SCHED_DEBUG && !r->sched_debug))
                return -ENOMEM;
        return 0;
}

Monitor *monitor_free(Monitor *m) {
        if (!m)
                return NULL;
        stat_file_close(&m->stat);
        stat_file_close(&m->runnable);
        stat_file_close(&m->softnet);
        stat_file_close(&m->softirqs);
        stat_file_close(&m->pressure);
        reading_free(&m->readings[0]);
        reading_free(&m->readings[1]);
        free(m->cpus);
        task_wait_free(m->tasks);
        busy_poll_counter_free(m->busy_poll);
        free(m->sysroot);
        free(m->waited_ns);
        free(m->crowd_ns);
        free(m);
        return NULL;
}

/* The best runnable source that is present and readable; procs_running (in /proc/stat) always is. */
static MonitorSource pick_source(Monitor *m, const char *sysroot) {
        if (stat_file_open_read(&m->runnable, sysroot, "/proc/schedstat") >= 0) {
                if (schedstat_parse(m->runnable.buf, NULL, 0, NULL) >= 0)
                        return MONITOR_SOURCE_SCHEDSTAT;
                /* An unknown version or odd content: fall back rather than guess. */
                stat_file_close(&m->runnable);
        }
        if (task_wait_new(&m->tasks, sysroot) >= 0)
                return MONITOR_SOURCE_TASKS;
        if (stat_file_open_read(&m->runnable, sysroot, "/sys/kernel/debug/sched/debug") >= 0) {
                if (sched_debug_parse(m->runnable.buf, NULL, 0) >= 0)
                        return MONITOR_SOURCE_SCHED_DEBUG;
                stat_file_close(&m->runnable);
        }
        return MONITOR_SOURCE_PROCS_RUNNING;
}

int monitor_new(Monitor **ret, const char *sysroot) {
        _cleanup_(monitor_freep) Monitor *m = NULL;
        ProcStat st;
        Psi psi;
        int r;

        if (!ret)
                return -EINVAL;
        m = calloc(1, sizeof(*m));
        if (!m)
                return -ENOMEM;
        m->stat.fd = m->runnable.fd = m->softnet.fd = m->softirqs.fd = m->pressure.fd = -EBADF;

        r = stat_file_open_read(&m->stat, sysroot, "/proc/stat");
        if (r < 0)
                return r;
        r = proc_stat_parse(m->stat.buf, &st, NULL, 0);
        if (r < 0)
                return r;
        m->n_cpus = st.cpu_slots;

        r = stat_file_open_read(&m->softnet, sysroot, "/proc/net/softnet_stat");
        if (r < 0)
                return r;
        r = softnet_parse(m->softnet.buf, NULL, 0, NULL);
        if (r < 0)
                return r;
        r = stat_file_open_read(&m->softirqs, sysroot, "/proc/softirqs");
        if (r < 0)
                return r;
        r = softirqs_parse(m->softirqs.buf, NULL, 0);
        if (r < 0)
                return r;

        m->source = pick_source(m, sysroot);
        /* Without PSI (kernel built without it, or booted with psi=0) the file is absent or unreadable. */
        if (stat_file_open_read(&m->pressure, sysroot, "/proc/pressure/cpu") >= 0) {
                if (psi_parse(m->pressure.buf, &psi) >= 0)
                        m->psi = true;
                else
                        stat_file_close(&m->pressure);
        }

        m->sysroot = strdup(sysroot ?: "/");
        if (!m->sysroot)
                return -ENOMEM;

        for (size_t i = 0; i < ELEMENTSOF(m->readings); i++) {
                r = reading_alloc(&m->readings[i], m->n_cpus, m->source);
                if (r < 0)
                        return r;
        }
        m->prev = &m->readings[0];
        m->cur = &m->readings[1];
        m->cpus = calloc(m->n_cpus, sizeof(*m->cpus));
        m->waited_ns = calloc(m->n_cpus, sizeof(*m->waited_ns));
        m->crowd_ns = calloc(m->n_cpus, sizeof(*m->crowd_ns));
        if (!m->cpus || !m->waited_ns || !m->crowd_ns)
                return -ENOMEM;

        *ret = TAKE_PTR(m);
        return 0;
}

void monitor_set_scan_threshold(Monitor *m, uint64_t runnable_milli) {
        m->scan_threshold_milli = runnable_milli;
}

/*
 * Whether PSI's "some" grew from some_before to some_after by the scan gate's
 * share of elapsed_us (monitor_set_scan_threshold()), or went back.
 */
static bool psi_grew(const Monitor *m, uint64_t some_before, uint64_t some_after, uint64_t elapsed_us,
                     unsigned n_online) {
        uint64_t permille = MONITOR_SCAN_WAIT_PERMILLE;

        if (some_after < some_before)
                return true;
        if (n_online > 0)
                permille = MAX(permille, MIN(m->scan_threshold_milli / (2 * n_online), UINT64_C(1000)));
        return some_after - some_before >= elapsed_us * permille / 1000;
}

static bool psi_waited(const Monitor *m, const Reading *prev, const Reading *cur) {
        return psi_grew(m, prev->psi.some_total_us, cur->psi.some_total_us, (cur->now_ns - prev->now_ns) / 1000,
                        cur->stat.n_online);
}

/* Reads and parses every file into rd; rd is scratch until the whole sample succeeded. */
static int read_all(Monitor *m, Reading *rd) {
        size_t n = m->n_cpus;
        int r;

        /*
         * /proc/stat gives the online CPUs and procs_running; its intr line
         * (every IRQ's count) makes it the costliest file. Only source
         * procs_running needs it every interval: the others re-read it once
         * per MONITOR_STAT_REFRESH_NS (a CPU going offline is seen within it)
         * and carry the last reading over in between.
         */
        if (m->source == MONITOR_SOURCE_PROCS_RUNNING || !m->have_prev || rd->now_ns < m->stat_read_ns ||
            rd->now_ns - m->stat_read_ns >= MONITOR_STAT_REFRESH_NS) {
                r = stat_file_read(&m->stat);
                if (r < 0)
                        return r;
                r = proc_stat_parse(m->stat.buf, &rd->stat, rd->online, n);
                if (r < 0)
                        return r;
                m->stat_read_ns = rd->now_ns;
        } else {
                rd->stat = m->prev->stat;
                memcpy(rd->online, m->prev->online, n * sizeof(*rd->online));
        }
        r = stat_file_read(&m->softnet);
        if (r < 0)
                return r;
        r = softnet_parse(m->softnet.buf, rd->softnet, n, NULL);
        if (r < 0)
                return r;
        r = stat_file_read(&m->softirqs);
        if (r < 0)
                return r;
        r = softirqs_parse(m->softirqs.buf, rd->softirqs, n);
        if (r < 0)
                return r;
        if (m->source == MONITOR_SOURCE_SCHEDSTAT || m->source == MONITOR_SOURCE_SCHED_DEBUG) {
                r = stat_file_read(&m->runnable);
                if (r < 0)
                        return r;
                if (m->source == MONITOR_SOURCE_SCHEDSTAT)
                        r = schedstat_parse(m->runnable.buf, rd->schedstat, n, NULL);
                else
                        r = sched_debug_parse(m->runnable.buf, rd->sched_debug, n);
                if (r < 0)
                        return r;
        }
        if (m->psi) {
                r = stat_file_read(&m->pressure);
                if (r < 0)
                        return r;
                r = psi_parse(m->pressure.buf, &rd->psi);
                if (r < 0)
                        return r;
        }
        if (m->source == MONITOR_SOURCE_TASKS) {
                /* Last, as it moves the tasks' baselines. */
                memset(m->waited_ns, 0, m->n_cpus * sizeof(*m->waited_ns));
                memset(m->crowd_ns, 0, m->n_cpus * sizeof(*m->crowd_ns));
                m->scanned = !m->psi || !m->have_prev || m->woken || psi_waited(m, m->prev, rd);
                if (m->scanned) {
                        r = task_wait_scan(m->tasks, rd->now_ns, m->waited_ns, m->crowd_ns, n);
                        if (r < 0)
                                return r;
                } else if (m->crowd > 0)
                        task_wait_scan_crowd(m->tasks, m->crowd_ns, n); /* it runs alone: nobody waits */
        }
        return 0;
}

/* (after - before) * scale / dt_ns; 0 for a counter that went backwards (hotplug, wrap). */
static uint64_t rate(uint64_t before, uint64_t after, uint64_t scale, uint64_t dt_ns) {
        unsigned __int128 v;

        if (after < before || dt_ns == 0)
                return 0;
        v = (unsigned __int128)(after - before) * scale / dt_ns;
        return v > UINT64_MAX ? UINT64_MAX : (uint64_t)v;
}

static void compute(Monitor *m, const Reading *cur, const Reading *prev) {
        uint64_t dt = prev ? cur->now_ns - prev->now_ns : 0, global_milli = 0;
        unsigned online = cur->stat.n_online;

        /* The sampler itself is running while it reads procs_running; what exceeds one task per CPU waits. */
        if (cur->stat.procs_running > (uint64_t)online + 1)
                global_milli = MIN(cur->stat.procs_running - 1 - online, UINT64_MAX / 1000) * 1000 / online;

        for (size_t i = 0; i < m->n_cpus; i++) {
                MonitorCpu c = { .online = cur->online[i] };

                if (m->source == MONITOR_SOURCE_SCHEDSTAT) {
                        if (prev && prev->schedstat[i].present && cur->schedstat[i].present)
                                c.runnable_milli = rate(prev->schedstat[i].run_delay_ns,
                                                        cur->schedstat[i].run_delay_ns, 1000, dt);
                } else if (m->source == MONITOR_SOURCE_TASKS) {
                        if (prev) {
                                c.runnable_milli = rate(0, m->waited_ns[i], 1000, dt);
                                c.crowd_milli = rate(0, m->crowd_ns[i], 1000, dt);
                        }
                } else if (m->source == MONITOR_SOURCE_SCHED_DEBUG) {
                        if (cur->sched_debug[i].present && cur->sched_debug[i].nr_running > 1)
                                c.runnable_milli = MIN(cur->sched_debug[i].nr_running - 1, UINT64_MAX / 1000) * 1000;
                } else if (c.online)
                        c.runnable_milli = global_milli;

                /* A CPU missing from either reading (offline, just back) has no interval to measure. */
                if (prev && prev->softnet[i].present && cur->softnet[i].present) {
                        const SoftnetCpu *a = &prev->softnet[i], *b = &cur->softnet[i];
                        c.processed_per_sec = rate(a->processed, b->processed, NSEC_PER_SEC, dt);
                        c.drops_per_sec = rate(a->dropped, b->dropped, NSEC_PER_SEC, dt);
                        c.squeeze_per_sec = rate(a->time_squeeze, b->time_squeeze, NSEC_PER_SEC, dt);
                }
                if (prev && prev->softirqs[i].present && cur->softirqs[i].present) {
                        const SoftirqCpu *a = &prev->softirqs[i], *b = &cur->softirqs[i];
                        c.net_rx_per_sec = rate(a->net_rx, b->net_rx, NSEC_PER_SEC, dt);
                        c.net_tx_per_sec = rate(a->net_tx, b->net_tx, NSEC_PER_SEC, dt);
                }
                m->cpus[i] = c;
        }

        m->system = (MonitorSystem){
                .procs_running = cur->stat.procs_running,
                .n_online = online,
        };
        if (m->source == MONITOR_SOURCE_TASKS) {
                m->system.tasks_scanned = m->scanned;
                m->system.tasks_tracked = task_wait_tracked(m->tasks);
                m->system.tasks_untracked = task_wait_untracked(m->tasks);
                m->system.tasks_listings = task_wait_listings(m->tasks);
        }
        if (m->psi) {
                m->system.psi_some_avg10_centi = cur->psi.some_avg10_centi;
                /* total is in us: x1000 to ns, x1000 for milli. Timer jitter can push it past 1000. */
                if (prev)
                        m->system.psi_some_milli = MIN(
                                rate(prev->psi.some_total_us, cur->psi.some_total_us, UINT64_C(1000000), dt),
                                UINT64_C(1000));
        }
}

int monitor_sample(Monitor *m, uint64_t now_ns) {
        Reading *swap;
        uint64_t fixture_ns, after_ns, real_ns = now_ns;
        bool had_prev, fixture;
        int r;

        if (!m)
                return -EINVAL;
        /* A test fixture's clock, when it has one, times the sample (test-hook.h). */
        r = test_clock_ns(&fixture_ns);
        fixture = r != -ENOENT;
        if (fixture) {
                if (r < 0 || (m->have_prev && fixture_ns <= m->prev->now_ns))
                        return -EAGAIN;
                now_ns = fixture_ns;
        }
        if (m->have_prev && now_ns <= m->prev->now_ns)
                return -EINVAL;

        m->cur->now_ns = now_ns; /* read_all() passes it on to the task scan */
        r = read_all(m, m->cur);
        if (r < 0)
                return r;
        if (fixture && (test_clock_ns(&after_ns) < 0 || after_ns != fixture_ns))
                return -EAGAIN; /* the fixture rewrote its files meanwhile */
        had_prev = m->have_prev;
        compute(m, m->cur, had_prev ? m->prev : NULL);

        swap = m->prev;
        m->prev = m->cur;
        m->cur = swap;
        m->have_prev = true;
        if (m->woken)
                m->woken_ns = real_ns;
        m->woken = false;
        m->watch_ns = real_ns;
        m->watch_some_us = m->prev->psi.some_total_us;
        return had_prev ? 1 : 0;
}

int monitor_watch(Monitor *m, uint64_t now_ns) {
        uint64_t before_ns, before_us;
        Psi psi;
        int r;

        if (!m->psi)
                return -EOPNOTSUPP;
        if (!m->have_prev || now_ns <= m->watch_ns)
                return -EINVAL;
        r = stat_file_read(&m->pressure);
        if (r < 0)
                return r;
        r = psi_parse(m->pressure.buf, &psi);
        if (r < 0)
                return r;
        before_ns = m->watch_ns;
        before_us = m->watch_some_us;
        m->watch_ns = now_ns;
        m->watch_some_us = psi.some_total_us;
        return psi_grew(m, before_us, psi.some_total_us, (now_ns - before_ns) / 1000, m->prev->stat.n_online);
}

uint64_t monitor_sample_ns(const Monitor *m) {
        /* After a sample, prev holds it (the readings swap). */
        return m->have_prev ? m->prev->now_ns : 0;
}

MonitorSource monitor_source(const Monitor *m) {
        return m->source;
}

const char *monitor_source_to_string(MonitorSource s) {
        switch (s) {
        case MONITOR_SOURCE_SCHEDSTAT:
                return "schedstat";
        case MONITOR_SOURCE_TASKS:
                return "tasks";
        case MONITOR_SOURCE_SCHED_DEBUG:
                return "sched_debug";
        case MONITOR_SOURCE_PROCS_RUNNING:
                return "procs_running";
        }
        return NULL;
}

bool monitor_time_squeeze_total(const Monitor *m, size_t cpu, uint64_t *ret) {
        /* After a sample, prev holds it (the readings swap). */
        if (!m->have_prev || cpu >= m->n_cpus || !m->prev->softnet[cpu].present)
                return false;
        *ret = m->prev->softnet[cpu].time_squeeze;
        return true;
}

int monitor_mark_crowd(Monitor *m, const CpuSet *cpus, unsigned min_share_milli) {
        if (m->source != MONITOR_SOURCE_TASKS)
                return -EOPNOTSUPP;
        m->crowd = task_wait_mark_crowd(m->tasks, cpus, min_share_milli);
        return (int)MIN(m->crowd, (size_t)INT_MAX);
}

int monitor_crowd_pids(const Monitor *m, int *pids, size_t max) {
        if (m->source != MONITOR_SOURCE_TASKS)
                return -EOPNOTSUPP;
        return (int)MIN(task_wait_crowd_pids(m->tasks, pids, max), (size_t)INT_MAX);
}

void monitor_woken(Monitor *m) {
        m->woken = true;
        if (m->tasks)
                task_wait_list_next(m->tasks);
}

uint64_t monitor_woken_wait_ns(const Monitor *m, uint64_t now_ns, uint64_t interval_ns) {
        if (m->woken_ns == 0 || now_ns < m->woken_ns || now_ns - m->woken_ns >= interval_ns)
                return 0;
        return m->woken_ns + interval_ns - now_ns;
}

int monitor_ignore_tasks(Monitor *m, const int *tids, size_t n) {
        return m->tasks ? task_wait_ignore(m->tasks, tids, n) : -EOPNOTSUPP;
}

size_t monitor_crowd_tasks(const Monitor *m) {
        return m->source == MONITOR_SOURCE_TASKS && m->crowd > 0 ? task_wait_crowd_tasks(m->tasks) : 0;
}

void monitor_clear_crowd(Monitor *m) {
        if (m->source == MONITOR_SOURCE_TASKS)
                task_wait_clear_crowd(m->tasks);
        m->crowd = 0;
}

int monitor_crowd_to_companions(Monitor *m) {
        size_t n;

        if (m->source != MONITOR_SOURCE_TASKS)
                return -EOPNOTSUPP;
        n = task_wait_crowd_to_companions(m->tasks);
        m->crowd = 0;
        return (int)MIN(n, (size_t)INT_MAX);
}

int monitor_busy_poll_packets(Monitor *m, uint64_t *ret) {
        int r;

        if (m->busy_poll_error < 0)
                return m->busy_poll_error;
        if (!m->busy_poll) {
                /* Made on first use: only profiles with a pay window pay for its buffers and listings. */
                r = busy_poll_counter_new(&m->busy_poll, m->sysroot);
                if (r < 0) {
                        m->busy_poll_error = r == -ENOENT ? -ENODEV : r;
                        return m->busy_poll_error;
                }
        }
        return busy_poll_counter_read(m->busy_poll, ret);
}

bool monitor_uses_psi(const Monitor *m) {
        return m->psi;
}

size_t monitor_n_cpus(const Monitor *m) {
        return m->n_cpus;
}

const MonitorCpu *monitor_cpu(const Monitor *m, size_t cpu) {
        return cpu < m->n_cpus ? &m->cpus[cpu] : NULL;
}

const MonitorSystem *monitor_system(const Monitor *m) {
        return &m->system;
}

void monitor_load(const Monitor *m, const CpuSet *cpus, MonitorLoad *ret) {
        MonitorLoad l = { .runnable_cpu = -1 };

        for (size_t i = 0; i < m->n_cpus; i++) {
                const MonitorCpu *c = &m->cpus[i];

                if ((cpus && !cpuset_has(cpus, (unsigned)i)) || !c->online)
                        continue;
                if (l.runnable_cpu < 0 || c->runnable_milli > l.runnable_milli_max) {
                        l.runnable_milli_max = c->runnable_milli;
                        l.runnable_cpu = (int)i;
                }
                l.crowd_milli_max = MAX(l.crowd_milli_max, c->crowd_milli);
                l.squeeze_per_sec += c->squeeze_per_sec;
                l.drops_per_sec += c->drops_per_sec;
                l.net_rx_per_sec += c->net_rx_per_sec;
                l.processed_per_sec += c->processed_per_sec;
        }
        *ret = l;
}
