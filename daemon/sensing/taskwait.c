/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * taskwait.c: the per-task delay scan. Tasks live in an array sorted by TID,
 * each with its schedstat descriptor and last delay; a listing builds the
 * next array from /proc's directories (getdents64 into a buffer made once),
 * moving over what it already follows and opening only new tasks, then the
 * two arrays swap. Paths are opened relative to the /proc descriptor.
 */
#include "taskwait.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "macro.h"
#include "monitor-parse.h"
#include "procdir.h"

/* getdents64 is called until the directory is done: a small buffer costs calls, not entries. */
#define DENTS_SIZE 4096
#define STAT_TEXT_MAX 2048

typedef struct Task {
        int pid, tid;
        int fd;      /* its schedstat, -EBADF once it ended or moved to the other array */
        int stat_fd; /* its stat, read only when its delay grew or it is in the crowd */
        uint64_t delay_ns, run_ns;
        uint64_t waited_ns; /* delay gained in the last scan that read it */
        uint64_t ran_ns;    /* run time gained in the last scan that read it */
        unsigned cpu;       /* where it last ran, as of the last read of its stat */
        bool crowd;
        bool companion; /* ran beside busy polling through a probe: never joins the crowd */
} Task;

struct TaskWait {
        ProcDir proc;
        int self_tid;
        Task *tasks, *next;
        size_t n_tasks, untracked, max_tasks;
        char *dents, *task_dents;
        uint64_t scans, listings;
        uint64_t scanned_ns, scan_dt_ns; /* the last full scan (the caller's clock) and the time it covered */
        uint64_t listed_ns; /* when /proc was last listed (the caller's clock; 0 for task_wait_new()) */
        /*
         * While a listing runs: how much of a newly found task's delay and run
         * count at its first scan (the time since the previous listing; 0 for
         * the first).
         */
        uint64_t new_delay_max_ns;
        int *ignore;        /* task_wait_ignore(), sorted */
        size_t n_ignore;
        bool list_next;     /* task_wait_list_next(): list at the next scan, however soon */
        bool listed_early;  /* the last listing came before TASK_WAIT_RELIST_NS: the next waits all of it */
};

static void task_close(Task *k) {
        if (k->fd >= 0)
                close(k->fd);
        if (k->stat_fd >= 0)
                close(k->stat_fd);
        k->fd = k->stat_fd = -EBADF;
}

static void close_tasks(Task *tasks, size_t n) {
        for (size_t i = 0; i < n; i++)
                task_close(&tasks[i]);
}

TaskWait *task_wait_free(TaskWait *t) {
        if (!t)
                return NULL;
        if (t->tasks)
                close_tasks(t->tasks, t->n_tasks);
        proc_dir_close(&t->proc);
        free(t->tasks);
        free(t->next);
        free(t->dents);
        free(t->task_dents);
        free(t->ignore);
        free(t);
        return NULL;
}

/* Reads a small /proc file from offset 0 into buf (NUL-terminated). */
static int read_text(int fd, char *buf, size_t size) {
        ssize_t n;

        do
                n = pread(fd, buf, size - 1, 0);
        while (n < 0 && errno == EINTR);
        if (n < 0)
                return negative_errno();
        buf[n] = 0;
        return 0;
}

/* A directory entry that is a PID or TID: digits only, no leading zero. */
static int entry_id(const char *name) {
        long v = 0;

        if (name[0] < '1' || name[0] > '9')
                return -1;
        for (const char *p = name; *p; p++) {
                if (*p < '0' || *p > '9' || v > (INT32_MAX - 9) / 10)
                        return -1;
                v = v * 10 + (*p - '0');
        }
        return (int)v;
}

static int cmp_tid(const void *a, const void *b) {
        int x = ((const Task *)a)->tid, y = ((const Task *)b)->tid;
        return (x > y) - (x < y);
}

/* /proc lists PIDs, and each process its TIDs, in increasing order: nearly sorted, and qsort may allocate. */
static void sort_by_tid(Task *a, size_t n) {
        for (size_t i = 1; i < n; i++) {
                Task v = a[i];
                size_t j = i;

                for (; j > 0 && a[j - 1].tid > v.tid; j--)
                        a[j] = a[j - 1];
                a[j] = v;
        }
}

static Task *find(TaskWait *t, int tid) {
        Task key = { .tid = tid };
        return bsearch(&key, t->tasks, t->n_tasks, sizeof(Task), cmp_tid);
}

/* Takes tid into t->next: the descriptor and delay it already has, else a new descriptor and baseline. */
static void take_task(TaskWait *t, size_t *n_next, int pid, int tid) {
        char path[64], text[128];
        TaskSchedstat ts;
        Task *old, k = { .pid = pid, .tid = tid };

        if (*n_next >= t->max_tasks) {
                t->untracked++;
                return;
        }
        old = find(t, tid);
        if (old && old->fd >= 0) {
                t->next[(*n_next)++] = *old;
                old->fd = old->stat_fd = -EBADF; /* moved: the old array no longer owns them */
                return;
        }
        snprintf(path, sizeof(path), "%d/task/%d/schedstat", pid, tid);
        k.fd = openat(t->proc.fd, path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
        snprintf(path, sizeof(path), "%d/task/%d/stat", pid, tid);
        k.stat_fd = k.fd < 0 ? -EBADF : openat(t->proc.fd, path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
        if (k.fd < 0 || k.stat_fd < 0) {
                if (errno == EMFILE || errno == ENFILE)
                        t->untracked++;
                task_close(&k); /* else it ended while being listed */
                return;
        }
        if (read_text(k.fd, text, sizeof(text)) < 0 || task_schedstat_parse(text, &ts) < 0) {
                task_close(&k);
                return;
        }
        /*
         * A task found by a later listing was created since the previous one (or
         * left untracked until now): the delay it gathered since then counts at
         * this scan, so a new neighbour counts as soon as it is listed rather
         * than a scan later; and so does its run, so that a CPU-bound one can
         * join the crowd at that scan (task_wait_mark_crowd() wants it to have
         * run): once busy polling yields it runs alone and hardly waits again.
         */
        k.delay_ns = ts.delay_ns - MIN(ts.delay_ns, t->new_delay_max_ns);
        k.run_ns = ts.run_ns - MIN(ts.run_ns, t->new_delay_max_ns);
        t->next[(*n_next)++] = k;
}

static int list_threads(TaskWait *t, size_t *n_next, int pid) {
        char path[32];
        long n;
        int fd;

        snprintf(path, sizeof(path), "%d/task", pid);
        fd = openat(t->proc.fd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
                return 0; /* the process ended */
        while ((n = syscall(SYS_getdents64, fd, t->task_dents, DENTS_SIZE)) > 0)
                for (long off = 0; off < n;) {
                        const struct dirent64 *d = (const struct dirent64 *)(t->task_dents + off);
                        int tid = entry_id(d->d_name);

                        off += d->d_reclen;
                        if (tid > 0 && tid != t->self_tid)
                                take_task(t, n_next, pid, tid);
                }
        close(fd);
        return 0;
}

static int list_tasks(TaskWait *t) {
        size_t n_next = 0;
        Task *swap;
        long n;
        int r;

        if (lseek(t->proc.fd, 0, SEEK_SET) < 0)
                return negative_errno();
        t->untracked = 0;
        while ((n = syscall(SYS_getdents64, t->proc.fd, t->dents, DENTS_SIZE)) > 0)
                for (long off = 0; off < n;) {
                        const struct dirent64 *d = (const struct dirent64 *)(t->dents + off);
                        int pid = entry_id(d->d_name);

                        off += d->d_reclen;
                        if (pid > 0)
                                list_threads(t, &n_next, pid);
                }
        r = n < 0 ? negative_errno() : 0;

        /* Even a listing cut short by an error swaps in: next owns the descriptors it moved over. */
        close_tasks(t->tasks, t->n_tasks); /* those that ended or were not listed; moved ones were marked */
        sort_by_tid(t->next, n_next);
        swap = t->tasks;
        t->tasks = t->next;
        t->next = swap;
        t->n_tasks = n_next;
        t->listings++;
        return r;
}

/* Two descriptors a task; 128 stay for the rest of the daemon. */
static size_t task_wait_max(size_t cap) {
        struct rlimit rl;

        if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur == RLIM_INFINITY)
                return cap;
        if (rl.rlim_cur < 128 + 2 * 16)
                return 16;
        return MIN((size_t)(rl.rlim_cur - 128) / 2, cap);
}

int task_wait_new(TaskWait **ret, const char *sysroot) {
        _cleanup_(task_wait_freep) TaskWait *t = NULL;
        int r;

        if (!ret)
                return -EINVAL;
        t = calloc(1, sizeof(*t));
        if (!t)
                return -ENOMEM;
        t->proc = PROC_DIR_NULL;
        t->self_tid = (int)gettid();
        t->max_tasks = task_wait_max(TASK_WAIT_MAX);
        t->tasks = calloc(t->max_tasks, sizeof(Task));
        t->next = calloc(t->max_tasks, sizeof(Task));
        t->dents = malloc(DENTS_SIZE);
        t->task_dents = malloc(DENTS_SIZE);
        if (!t->tasks || !t->next || !t->dents || !t->task_dents)
                return -ENOMEM;

        r = proc_dir_open(&t->proc, sysroot);
        if (r < 0)
                return r;
        r = list_tasks(t);
        if (r < 0)
                return r;
        if (t->n_tasks == 0)
                return -ENOENT;
        *ret = TAKE_PTR(t);
        return 0;
}

/*
 * Reads one task; false when it ended: gone, or exited and not yet reaped
 * (its schedstat still reads then; only the stat read for waiting or crowd
 * tasks tells). Adds its delay growth to waited_ns and, in the crowd, its run
 * growth.
 */
static bool scan_task(Task *k, uint64_t *waited_ns, uint64_t *crowd_ns, size_t n) {
        char text[STAT_TEXT_MAX];
        TaskSchedstat ts;
        TaskStat st;

        if (read_text(k->fd, text, 128) < 0 || task_schedstat_parse(text, &ts) < 0)
                return false; /* ended (ESRCH) */
        k->waited_ns = ts.delay_ns > k->delay_ns ? ts.delay_ns - k->delay_ns : 0;
        if ((k->waited_ns > 0 || k->crowd) && read_text(k->stat_fd, text, sizeof(text)) >= 0 &&
            task_stat_parse(text, &st) >= 0) {
                if (st.state == 'Z' || st.state == 'X')
                        return false;
                k->cpu = st.cpu;
                if (waited_ns && k->cpu < n)
                        waited_ns[k->cpu] += k->waited_ns;
                if (k->crowd && crowd_ns && k->cpu < n && ts.run_ns > k->run_ns)
                        crowd_ns[k->cpu] += ts.run_ns - k->run_ns;
        } else
                k->waited_ns = 0; /* where it waited is unknown: it counts nowhere, nor joins a crowd */
        k->ran_ns = ts.run_ns > k->run_ns ? ts.run_ns - k->run_ns : 0;
        k->delay_ns = ts.delay_ns;
        k->run_ns = ts.run_ns;
        return true;
}

static int cmp_int(const void *a, const void *b) {
        int x = *(const int *)a, y = *(const int *)b;
        return x < y ? -1 : x > y;
}

static bool ignored(const TaskWait *t, int tid) {
        return t->n_ignore > 0 && bsearch(&tid, t->ignore, t->n_ignore, sizeof(int), cmp_int);
}

void task_wait_list_next(TaskWait *t) {
        t->list_next = true;
}

int task_wait_ignore(TaskWait *t, const int *tids, size_t n) {
        int *copy = NULL;

        if (n > 0) {
                copy = calloc(n, sizeof(int));
                if (!copy)
                        return -ENOMEM;
                memcpy(copy, tids, n * sizeof(int));
                qsort(copy, n, sizeof(int), cmp_int);
        }
        free(t->ignore);
        t->ignore = copy;
        t->n_ignore = n;
        return 0;
}

int task_wait_scan(TaskWait *t, uint64_t now_ns, uint64_t *waited_ns, uint64_t *crowd_ns, size_t n) {
        size_t kept = 0;
        int r;

        /*
         * A created task is listed at the next scan at least TASK_WAIT_RELIST_NS after the
         * last listing, or at once when the caller knows tasks wait (task_wait_list_next());
         * but such an early listing restarts the floor: under steady waiting the caller
         * asks at every sample, and a forking host would be listed at each.
         */
        bool floor = now_ns < t->listed_ns || now_ns - t->listed_ns >= TASK_WAIT_RELIST_NS;
        bool early = !floor && t->list_next && !t->listed_early;
        if ((floor || early) && proc_dir_tasks_created(&t->proc)) {
                t->new_delay_max_ns = now_ns - t->listed_ns;
                r = list_tasks(t);
                t->new_delay_max_ns = 0;
                if (r < 0)
                        return r;
                t->listed_ns = now_ns;
                t->listed_early = early;
        }
        t->list_next = false;
        for (size_t i = 0; i < t->n_tasks; i++) {
                Task *k = &t->tasks[i];

                /* Read all the same: its baseline stays current should it leave the set. */
                if (!scan_task(k, ignored(t, k->tid) ? NULL : waited_ns, crowd_ns, n)) {
                        task_close(k);
                        continue;
                }
                t->tasks[kept++] = *k;
        }
        t->n_tasks = kept;
        t->scans++;
        t->scan_dt_ns = now_ns > t->scanned_ns && t->scanned_ns > 0 ? now_ns - t->scanned_ns : 0;
        t->scanned_ns = now_ns;
        return 0;
}

void task_wait_scan_crowd(TaskWait *t, uint64_t *crowd_ns, size_t n) {
        for (size_t i = 0; i < t->n_tasks; i++) {
                Task *k = &t->tasks[i];

                /* One that ended stays in the array, closed, until the next full scan or listing drops it. */
                if (k->crowd && k->fd >= 0 && !scan_task(k, NULL, crowd_ns, n)) {
                        task_close(k);
                        k->crowd = false;
                }
        }
}

size_t task_wait_mark_crowd(TaskWait *t, const CpuSet *cpus, unsigned min_share_milli) {
        uint64_t min_ran_ns = t->scan_dt_ns / 1000 * min_share_milli;
        char text[STAT_TEXT_MAX];
        size_t n = 0;
        TaskStat st;

        for (size_t i = 0; i < t->n_tasks; i++) {
                Task *k = &t->tasks[i];

                if (!k->crowd && !k->companion && k->fd >= 0 && k->waited_ns > 0 && k->ran_ns > min_ran_ns &&
                    (!cpus || cpuset_has(cpus, k->cpu)) && !ignored(t, k->tid) &&
                    read_text(k->stat_fd, text, sizeof(text)) >= 0 && task_stat_parse(text, &st) >= 0)
                        k->crowd = !st.kthread && st.utime > st.stime;
                n += k->crowd;
        }
        return n;
}

size_t task_wait_crowd_tasks(const TaskWait *t) {
        size_t n = 0;

        for (size_t i = 0; i < t->n_tasks; i++)
                n += t->tasks[i].crowd;
        return n;
}

size_t task_wait_crowd_pids(const TaskWait *t, int *pids, size_t max) {
        size_t n = 0;

        for (size_t i = 0; i < t->n_tasks; i++) {
                const Task *k = &t->tasks[i];
                bool seen = false;

                if (!k->crowd || k->fd < 0)
                        continue;
                for (size_t j = 0; j < MIN(n, max) && !seen; j++)
                        seen = pids[j] == k->pid;
                if (seen)
                        continue;
                if (n < max)
                        pids[n] = k->pid;
                n++;
        }
        return n;
}

void task_wait_clear_crowd(TaskWait *t) {
        for (size_t i = 0; i < t->n_tasks; i++)
                t->tasks[i].crowd = false;
}

size_t task_wait_crowd_to_companions(TaskWait *t) {
        size_t n = 0;

        for (size_t i = 0; i < t->n_tasks; i++) {
                Task *k = &t->tasks[i];

                if (k->crowd && k->fd >= 0) {
                        k->companion = true;
                        n++;
                }
                k->crowd = false;
        }
        return n;
}

size_t task_wait_tracked(const TaskWait *t) {
        return t->n_tasks;
}

size_t task_wait_untracked(const TaskWait *t) {
        return t->untracked;
}

uint64_t task_wait_scans(const TaskWait *t) {
        return t->scans;
}

uint64_t task_wait_listings(const TaskWait *t) {
        return t->listings;
}
