/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * topology.h: reads the CPU topology placement needs from
 * /sys/devices/system/cpu below the sysroot: online, possible, isolated and
 * nohz_full CPUs, and per CPU its core, package, NUMA node (the cpuN/nodeM
 * entry) and position among its SMT siblings.
 */
#pragma once

#include "placement.h"

/*
 * Fills *ret (caller releases it with topology_done()). -ENOENT when the
 * online list is missing, -EBADMSG with a static *ret_reason when a file
 * holds something else than the kernel writes there.
 */
int topology_read(const char *sysroot, CpuTopology *ret, const char **ret_reason);
void topology_done(CpuTopology *t);
