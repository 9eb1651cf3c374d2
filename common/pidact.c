/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * pidact.c: act on a pid only while it is the task meant (pidact.h).
 */
#include "pidact.h"

#include <errno.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "macro.h"

int pid_act_confirmed(int pid, int (*is_it)(int pid, void *userdata), int (*act)(int pid, void *userdata),
                      void *userdata) {
        _cleanup_(closep) int fd = -EBADF;
        int r;

        if (pid <= 0)
                return -ESRCH;
        fd = (int)syscall(SYS_pidfd_open, pid, 0);
        if (fd < 0)
                return errno == ESRCH ? -ESRCH : negative_errno();
        /* The pidfd's task holds pid now; the source naming pid now makes it the task meant. */
        r = is_it(pid, userdata);
        if (r <= 0)
                return r < 0 ? r : -ESRCH;
        r = act ? act(pid, userdata) : 0;
        /* Still alive: nobody else can have held pid meanwhile. EPERM and the like also mean alive. */
        if (syscall(SYS_pidfd_send_signal, fd, 0, NULL, 0) < 0 && errno == ESRCH)
                return -ESRCH;
        return r;
}
