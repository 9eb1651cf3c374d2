/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * sysctld.h: which sysctl.d line sets a sysctl, as systemd-sysctl (and
 * procps' sysctl --system) apply them at boot: *.conf files of
 * /etc/sysctl.d, /run/sysctl.d, /usr/local/lib/sysctl.d and
 * /usr/lib/sysctl.d (a basename in an earlier directory masks the same
 * basename in later ones), applied in basename order, then /etc/sysctl.conf
 * (unless a sysctl.d file already was that file, as Debian's
 * 99-sysctl.conf link is); a later assignment wins. Keys are compared in
 * '/' form ("net.core.busy_read" and "net/core/busy_read" are the same; a
 * key whose first separator is '/' keeps its dots); a leading '-' (ignore
 * failures) is dropped, and glob keys match as systemd-sysctl's do. Files
 * are read below a sysroot with textfile.h's bounds. Nothing here logs:
 * files and lines it could not read are reported through a callback.
 */
#pragma once

#include <stdbool.h>

/* Where the winning assignment is. */
typedef struct SysctlSetting {
        char *file;     /* as the host names it: "/etc/sysctl.d/90-net.conf" */
        unsigned line;
        char *value;    /* stripped */
} SysctlSetting;

void sysctl_setting_done(SysctlSetting *s);

/* A file or line skipped: file as the host names it, line 0 for the whole file, r the reason (negative errno). */
typedef void (*SysctldSkipFn)(const char *file, unsigned line, int r, void *userdata);

/*
 * Finds the assignment to key (dotted or '/' form, or "/proc/sys/..." path)
 * that applies last below root. Returns 1 and fills *ret when one does, 0
 * when none does, -ENOMEM. skip (may be NULL) hears of each unreadable file,
 * over-long or binary line.
 */
int sysctld_find(const char *root, const char *key, SysctlSetting *ret, SysctldSkipFn skip, void *userdata);

/* A sysctl key in '/' form ("net/core/busy_read"), as systemd normalizes it; caller frees. NULL on ENOMEM. */
char *sysctl_key_normalize(const char *key);
