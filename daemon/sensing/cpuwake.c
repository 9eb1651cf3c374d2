/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "cpuwake.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/capability.h>
#include <unistd.h>

#include "macro.h"

bool cpuwake_privileged(void) {
        cap_t cur = cap_get_proc();
        cap_flag_value_t have = CAP_CLEAR;
        bool r = cur && cap_get_flag(cur, CAP_SYS_RESOURCE, CAP_EFFECTIVE, &have) >= 0 && have == CAP_SET;

        cap_free(cur);
        return r;
}

int cpuwake_open(const char *path, uint64_t threshold_us, uint64_t window_us) {
        char buf[64];
        ssize_t n;
        int fd, len;

        if (threshold_us == 0 || threshold_us > window_us || window_us > UINT32_MAX)
                return -EINVAL;
        /* The kernel would refuse a sub-2 s window with EINVAL, which says nothing of why. */
        if (!cpuwake_privileged())
                return -EPERM;
        fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
        if (fd < 0)
                return -errno;
        len = snprintf(buf, sizeof(buf), "some %" PRIu64 " %" PRIu64, threshold_us, window_us);
        /* The kernel overwrites the last byte written with a NUL: it must be the NUL. */
        n = write(fd, buf, (size_t)len + 1);
        if (n != len + 1) {
                int e = n < 0 ? -errno : -EIO;
                close(fd);
                return e;
        }
        return fd;
}
