/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * check-config.h: `netpolld --check-config`. Loads netpolld.conf and the
 * profile it selects exactly as the daemon would, and shows what the daemon
 * would apply and which knobs this kernel lacks, without changing anything.
 */
#pragma once

#include <stdio.h>

/*
 * config_path NULL reads the default netpolld.conf (missing: defaults);
 * profile_override NULL uses the config's profile. On any error every error
 * line goes to err as "netpolld: LINE" and 1 is returned with nothing written
 * to out; else the resolved configuration goes to out, warnings about knobs
 * the kernel under sysroot lacks go to err, and 0 is returned.
 */
int check_config(const char *config_path, const char *profile_override, char *const *profile_dirs,
                 const char *sysroot, FILE *out, FILE *err);
