/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tuned-active.h: which line of tuned's active profile sets a sysctl, below
 * a sysroot: the profile names in /etc/tuned/active_profile (several,
 * blank-separated, merge in order as tuned merges them), each loaded from
 * /etc/tuned/NAME then /usr/lib/tuned/NAME with its include= chain by the
 * shared reader (common/tuned.h, bounded), and the last enabled [sysctl]
 * entry for the key, its value unquoted and expanded as tuned does. Whether
 * tuned runs is the caller's to ask. Nothing here logs: what cannot be read
 * is reported through a callback.
 */
#pragma once

typedef struct TunedSetting {
        char *profile; /* the active_profile line: "net-test" */
        char *file;    /* as the host names it: "/etc/tuned/net-test/tuned.conf" */
        unsigned line;
        char *value;   /* unquoted and expanded */
} TunedSetting;

void tuned_setting_done(TunedSetting *s);

/* A message about a file that could not be read ("FILE:LINE: what"). */
typedef void (*TunedSkipFn)(const char *message, void *userdata);

/*
 * Finds the entry of the active profile that sets key (dotted or '/' form,
 * or "/proc/sys/..."). 1 and *ret filled when one does, 0 when none does
 * (also with no active profile), -ENOMEM.
 */
int tuned_active_find(const char *root, const char *key, TunedSetting *ret, TunedSkipFn skip, void *userdata);
