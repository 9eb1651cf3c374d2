/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * workload.h: the cheap scan behind process= and cgroup= rules: the comm
 * names of live processes (/proc/PID/stat, zombies left out) and the existence of directories below
 * /sys/fs/cgroup, both under the sysroot. Reads only; never logs.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "policy.h"

/*
 * For each process= and cgroup= rule of rules (n long), whether its workload
 * is there now, into seen[i]; unit= rules' entries are left alone. Returns 0,
 * or a negative errno when /proc could not be listed (then process rules
 * keep their previous seen[] value).
 */
int workload_scan(const char *sysroot, const Rule *rules, size_t n, bool *seen);

/*
 * The comm of a live process from its /proc/PID/stat line into comm (size
 * bytes, truncated). False for a zombie or dead process, or a malformed line.
 */
bool workload_parse_stat(const char *line, char *comm, size_t size);

/* workload_parse_stat() of the sysroot's /proc/PID/stat. */
bool workload_comm(const char *sysroot, int pid, char *comm, size_t size);

/* Whether any rule of rules is of kind. */
bool rules_have_kind(const Rule *rules, size_t n, RuleKind kind);
