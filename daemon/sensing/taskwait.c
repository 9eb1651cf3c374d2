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
#include <sys/syscall.h>
#include <unistd.h>

#include "macro.h"
#include "monitor-parse.h"
#include "procdir.h"

#define DENTS_SIZE 32768
#define STAT_TEXT_MAX 2048

typedef struct Task {
        int pid, tid;
        int fd; /* its schedstat, -EBADF once it ended */
        uint64_t delay_ns;
} Task;

struct TaskWait {
        ProcDir proc;
        int self_tid;
        Task *tasks, *next;
        size_t n_tasks, untracked;
        char *dents, *task_dents;
        uint64_t scans, listings;
};

static void close_tasks(Task *tasks, size_t n) {
        for (size_t i = 0; i < n; i++)
                if (tasks[i].fd >= 0)
                        close(tasks[i].fd);
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
        Task *old;
        int fd;

        if (*n_next >= TASK_WAIT_MAX) {
                t->untracked++;
                return;
        }
        old = find(t, tid);
        if (old && old->fd >= 0) {
                t->next[(*n_next)++] = *old;
                old->fd = -EBADF; /* moved: the old array no longer owns it */
                return;
        }
        snprintf(path, sizeof(path), "%d/task/%d/schedstat", pid, tid);
        fd = openat(t->proc.fd, path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
        if (fd < 0) {
                if (errno == EMFILE || errno == ENFILE)
                        t->untracked++;
                return; /* else it ended while being listed */
        }
        if (read_text(fd, text, sizeof(text)) < 0 || task_schedstat_parse(text, &ts) < 0) {
                close(fd);
                return;
        }
        t->next[(*n_next)++] = (Task){ .pid = pid, .tid = tid, .fd = fd, .delay_ns = ts.delay_ns };
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
        if (n < 0)
                return negative_errno();

        close_tasks(t->tasks, t->n_tasks); /* those that ended; moved ones were marked */
        sort_by_tid(t->next, n_next);
        swap = t->tasks;
        t->tasks = t->next;
        t->next = swap;
        t->n_tasks = n_next;
        t->listings++;
        return 0;
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
        t->tasks = calloc(TASK_WAIT_MAX, sizeof(Task));
        t->next = calloc(TASK_WAIT_MAX, sizeof(Task));
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

int task_wait_scan(TaskWait *t, uint64_t *waited_ns, size_t n) {
        size_t kept = 0;
        int r;

        if (proc_dir_tasks_created(&t->proc)) {
                r = list_tasks(t);
                if (r < 0)
                        return r;
        }
        for (size_t i = 0; i < t->n_tasks; i++) {
                Task *k = &t->tasks[i];
                char text[STAT_TEXT_MAX], path[64];
                TaskSchedstat ts;
                unsigned cpu;
                int fd;

                if (read_text(k->fd, text, 128) < 0 || task_schedstat_parse(text, &ts) < 0) {
                        close(k->fd); /* ended (ESRCH) */
                        continue;
                }
                if (ts.delay_ns > k->delay_ns) {
                        snprintf(path, sizeof(path), "%d/task/%d/stat", k->pid, k->tid);
                        fd = openat(t->proc.fd, path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
                        if (fd >= 0) {
                                if (read_text(fd, text, sizeof(text)) >= 0 && task_stat_cpu_parse(text, &cpu) >= 0 &&
                                    cpu < n)
                                        waited_ns[cpu] += ts.delay_ns - k->delay_ns;
                                close(fd);
                        }
                }
                k->delay_ns = ts.delay_ns;
                t->tasks[kept++] = *k;
        }
        t->n_tasks = kept;
        t->scans++;
        return 0;
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
