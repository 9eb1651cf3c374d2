/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "cpuwake.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <linux/magic.h>
#include <limits.h>
#include <sys/capability.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <systemd/sd-daemon.h>

#include "log.h"
#include "macro.h"
#include "strv.h"

bool cpuwake_privileged(void) {
        cap_t cur = cap_get_proc();
        cap_flag_value_t have = CAP_CLEAR;
        bool r = cur && cap_get_flag(cur, CAP_SYS_RESOURCE, CAP_EFFECTIVE, &have) >= 0 && have == CAP_SET;

        cap_free(cur);
        return r;
}

static bool arguments_valid(uint64_t threshold_us, uint64_t window_us) {
        return threshold_us > 0 && threshold_us <= window_us && window_us <= UINT32_MAX;
}

int cpuwake_arm(int fd, uint64_t threshold_us, uint64_t window_us) {
        char buf[64];
        ssize_t n;
        int len;

        if (!arguments_valid(threshold_us, window_us))
                return -EINVAL;
        len = snprintf(buf, sizeof(buf), "some %" PRIu64 " %" PRIu64, threshold_us, window_us);
        /* The kernel overwrites the last byte written with a NUL: it must be the NUL. */
        n = write(fd, buf, (size_t)len + 1);
        if (n < 0)
                return -errno;
        return n == len + 1 ? 0 : -EIO;
}

/* procfs's /proc/pressure/cpu (as seen from here): never a file whose content a write would change. */
static bool is_pressure_file(int fd) {
        char link[64], target[PATH_MAX];
        struct statfs sfs;
        ssize_t n;

        if (fstatfs(fd, &sfs) < 0 || sfs.f_type != PROC_SUPER_MAGIC)
                return false;
        /* The path as seen from netpolld's root; the manager's /proc may be another mount of procfs. */
        snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
        n = readlink(link, target, sizeof(target) - 1);
        if (n < 0)
                return false;
        target[n] = '\0';
        return endswith(target, "/pressure/cpu");
}

int cpuwake_passed(void) {
        char **names = NULL;
        int n, fd = -ENOENT;

        n = sd_listen_fds_with_names(true, &names);
        if (n < 0) {
                log_warning_errno(n, "ignoring the descriptors the service manager passed: %m");
                return -ENOENT;
        }
        for (int i = 0; i < n; i++) {
                int cur = SD_LISTEN_FDS_START + i;
                const char *name = names && names[i] ? names[i] : "unknown";

                if (fd == -ENOENT && streq(name, "cpu-pressure")) {
                        if (is_pressure_file(cur)) {
                                fd = cur;
                                continue;
                        }
                        log_warning("the descriptor passed as \"cpu-pressure\" is not /proc/pressure/cpu: closed, nothing written to it");
                        fd = -EMEDIUMTYPE;
                } else
                        log_warning("closing the descriptor passed as \"%s\": netpolld takes only \"cpu-pressure\"", name);
                close(cur);
        }
        strv_free(names);
        return fd;
}

int cpuwake_open(const char *path, uint64_t threshold_us, uint64_t window_us) {
        int fd, r;

        if (!arguments_valid(threshold_us, window_us))
                return -EINVAL;
        /* The kernel would refuse a sub-2 s window with EINVAL, which says nothing of why. */
        if (!cpuwake_privileged())
                return -EPERM;
        fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
        if (fd < 0)
                return -errno;
        r = cpuwake_arm(fd, threshold_us, window_us);
        if (r < 0) {
                close(fd);
                return r;
        }
        return fd;
}
