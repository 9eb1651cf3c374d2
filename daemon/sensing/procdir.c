/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* procdir.c: see procdir.h. */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "procdir.h"

#include "macro.h"
#include "monitor-parse.h"
#include "sysroot.h"

int proc_dir_open(ProcDir *d, const char *sysroot) {
        _cleanup_(freep) char *proc = NULL;
        int r;

        *d = PROC_DIR_NULL;
        r = sysroot_path(sysroot, "/proc", &proc);
        if (r < 0)
                return r;
        d->fd = open(proc, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (d->fd < 0)
                return negative_errno();
        d->loadavg_fd = openat(d->fd, "loadavg", O_RDONLY | O_CLOEXEC | O_NOCTTY);
        if (d->loadavg_fd < 0)
                d->loadavg_fd = -EBADF;
        (void)proc_dir_tasks_created(d);
        return 0;
}

void proc_dir_close(ProcDir *d) {
        if (d->fd >= 0)
                close(d->fd);
        if (d->loadavg_fd >= 0)
                close(d->loadavg_fd);
        *d = PROC_DIR_NULL;
}

bool proc_dir_tasks_created(ProcDir *d) {
        char text[128];
        uint64_t pid;
        ssize_t n;

        if (d->loadavg_fd < 0)
                return true;
        n = pread(d->loadavg_fd, text, sizeof(text) - 1, 0);
        if (n < 0)
                return true;
        text[n] = 0;
        if (loadavg_last_pid_parse(text, &pid) < 0)
                return true;
        if (pid == d->last_pid)
                return false;
        d->last_pid = pid;
        return true;
}
