/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * topology.h: reads the CPU topology placement needs from
 * /sys/devices/system/cpu below the sysroot: online, possible, isolated and
 * nohz_full CPUs, and per CPU its core, package, NUMA node (the cpuN/nodeM
 * entry) and position among its SMT siblings.
 */
#pragma once

#include <stddef.h>

#include "cpuset.h"

/* The CPUs placement (placement.h) plans over. */
typedef struct CpuInfo {
        unsigned id;
        int node;        /* NUMA node, -1 when unknown */
        int package;     /* physical_package_id, -1 when unknown */
        int core;        /* core_id, -1 when unknown */
        unsigned thread; /* position among its core's SMT siblings: 0 for the first */
} CpuInfo;

typedef struct CpuTopology {
        CpuInfo *cpus;   /* online CPUs in ascending order */
        size_t n_cpus;
        CpuSet isolated;
        CpuSet nohz_full;
        unsigned nr_cpu_ids; /* highest possible CPU + 1: the width of kernel masks */
} CpuTopology;

/*
 * Fills *ret (caller releases it with topology_done()). -ENOENT when the
 * online list is missing, -EBADMSG with a static *ret_reason when a file
 * holds something else than the kernel writes there.
 */
int topology_read(const char *sysroot, CpuTopology *ret, const char **ret_reason);
void topology_done(CpuTopology *t);
