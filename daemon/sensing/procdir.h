/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * procdir.h: /proc below the sysroot as a directory descriptor, for scans
 * that open per-process files relative to it, and whether a task was created
 * since the last look (/proc/loadavg's last PID), so they list /proc again
 * only then. Nothing here logs or allocates after proc_dir_open().
 */
#pragma once

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>

typedef struct ProcDir {
        int fd;         /* /proc, O_DIRECTORY */
        int loadavg_fd; /* -EBADF without /proc/loadavg: every look says "created" */
        uint64_t last_pid;
} ProcDir;

#define PROC_DIR_NULL ((ProcDir){ .fd = -EBADF, .loadavg_fd = -EBADF })

/* Opens sysroot's /proc (NULL or "/": the real one) and takes the first last-PID reading. */
int proc_dir_open(ProcDir *d, const char *sysroot);
void proc_dir_close(ProcDir *d);
/* True when the last PID moved since the previous call, or when that cannot be told. */
bool proc_dir_tasks_created(ProcDir *d);
