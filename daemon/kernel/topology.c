/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * topology.c: the sysfs side of placement. Missing per-CPU files (containers,
 * fixtures, old kernels) leave the field unknown (-1) rather than failing:
 * placement then simply has less to prefer.
 */
#include "topology.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "macro.h"
#include "sysroot.h"
#include "units.h"

#define CPU_DIR "/sys/devices/system/cpu"

/* A CPU list file; absent, empty or "(null)" (nohz_full without the boot option) is the empty set. */
static int read_list(const char *sysroot, const char *rel, bool required, CpuSet *ret) {
        _cleanup_(freep) char *text = NULL;
        int r;

        cpuset_zero(ret);
        r = sysroot_read_value(sysroot, rel, &text);
        if (r == -ENODATA || (!required && r == -ENOENT))
                return 0;
        if (r < 0)
                return r;
        if (streq(text, "(null)"))
                return 0;
        return cpuset_parse_list(text, ret, NULL) < 0 ? -EBADMSG : 0;
}

static int read_int(const char *sysroot, unsigned cpu, const char *file, int *ret) {
        _cleanup_(freep) char *rel = NULL, *text = NULL;
        uint64_t v;
        int r;

        *ret = -1;
        if (asprintf(&rel, CPU_DIR "/cpu%u/topology/%s", cpu, file) < 0)
                return -ENOMEM;
        r = sysroot_read_value(sysroot, rel, &text);
        if (r == -ENOENT || r == -ENODATA)
                return 0;
        if (r < 0)
                return r;
        /* core_id is -1 on some architectures for CPUs without the information. */
        if (streq(text, "-1"))
                return 0;
        if (parse_u64_range(text, 0, INT32_MAX, &v, NULL) < 0)
                return -EBADMSG;
        *ret = (int)v;
        return 0;
}

/* Position of cpu in its thread_siblings_list: 0 for the lowest-numbered sibling. */
static int read_thread(const char *sysroot, unsigned cpu, unsigned *ret) {
        _cleanup_(freep) char *rel = NULL;
        CpuSet sib;
        unsigned pos = 0;
        int r;

        *ret = 0;
        if (asprintf(&rel, CPU_DIR "/cpu%u/topology/thread_siblings_list", cpu) < 0)
                return -ENOMEM;
        r = read_list(sysroot, rel, false, &sib);
        if (r < 0)
                return r;
        for (unsigned c = 0; c < cpu; c++)
                if (cpuset_has(&sib, c))
                        pos++;
        *ret = pos;
        return 0;
}

/* The "nodeM" entry sysfs puts in every CPU directory on NUMA kernels; -1 without one. */
static int read_node(const char *sysroot, unsigned cpu, int *ret) {
        _cleanup_(freep) char *rel = NULL, *full = NULL;
        DIR *d;
        int r;

        *ret = -1;
        if (asprintf(&rel, CPU_DIR "/cpu%u", cpu) < 0)
                return -ENOMEM;
        r = sysroot_path(sysroot, rel, &full);
        if (r < 0)
                return r;
        d = opendir(full);
        if (!d)
                return errno == ENOENT ? 0 : negative_errno();
        for (struct dirent *de; (de = readdir(d));) {
                const char *p = startswith(de->d_name, "node");
                uint64_t v;

                if (p && parse_u64_range(p, 0, INT32_MAX, &v, NULL) >= 0) {
                        *ret = (int)v;
                        break;
                }
        }
        closedir(d);
        return 0;
}

void topology_done(CpuTopology *t) {
        if (!t)
                return;
        free(t->cpus);
        t->cpus = NULL;
        t->n_cpus = 0;
}

int topology_read(const char *sysroot, CpuTopology *ret, const char **ret_reason) {
        _cleanup_(freep) CpuInfo *cpus = NULL;
        CpuTopology t = {};
        CpuSet online, possible;
        size_t n = 0;
        int r, last;

        r = read_list(sysroot, CPU_DIR "/online", true, &online);
        if (r == -EBADMSG && ret_reason)
                *ret_reason = "cannot parse " CPU_DIR "/online";
        if (r >= 0 && cpuset_is_empty(&online)) {
                r = -EBADMSG;
                if (ret_reason)
                        *ret_reason = CPU_DIR "/online lists no CPU";
        }
        if (r < 0)
                return r;
        r = read_list(sysroot, CPU_DIR "/possible", false, &possible);
        if (r >= 0)
                r = read_list(sysroot, CPU_DIR "/isolated", false, &t.isolated);
        if (r >= 0)
                r = read_list(sysroot, CPU_DIR "/nohz_full", false, &t.nohz_full);
        if (r == -EBADMSG && ret_reason)
                *ret_reason = "cannot parse a CPU list in " CPU_DIR " (possible, isolated or nohz_full)";
        if (r < 0)
                return r;

        last = MAX(cpuset_last(&online), cpuset_last(&possible));
        t.nr_cpu_ids = (unsigned)last + 1;
        cpus = calloc(cpuset_count(&online), sizeof(CpuInfo));
        if (!cpus)
                return -ENOMEM;
        for (unsigned c = 0; c <= (unsigned)last; c++) {
                CpuInfo *ci;

                if (!cpuset_has(&online, c))
                        continue;
                ci = &cpus[n++];
                ci->id = c;
                r = read_int(sysroot, c, "core_id", &ci->core);
                if (r >= 0)
                        r = read_int(sysroot, c, "physical_package_id", &ci->package);
                if (r >= 0)
                        r = read_thread(sysroot, c, &ci->thread);
                if (r >= 0)
                        r = read_node(sysroot, c, &ci->node);
                if (r == -EBADMSG && ret_reason)
                        *ret_reason = "cannot parse a file in " CPU_DIR "/cpuN/topology";
                if (r < 0)
                        return r;
        }
        t.cpus = TAKE_PTR(cpus);
        t.n_cpus = n;
        *ret = t;
        return 0;
}
