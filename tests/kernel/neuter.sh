#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# neuter.sh TREE: turns the patched kernel source TREE into one where the
# series' sysctls exist, accept and report their values, but do nothing: each
# place that reads one uses upstream's constant instead. Booting that kernel
# (run.sh --neutered) shows which checks fail when a patch has no effect.
# Fails if a place to neuter is not found (the series changed: update this).
set -euo pipefail
tree=${1:?usage: neuter.sh TREE}

# edit FILE FROM TO: replace the one line FROM (a fixed string) with TO
edit() {
        local file=$tree/$1
        [ "$(grep -cF -- "$2" "$file")" = 1 ] || { echo "neuter.sh: '$2' is not once in $1" >&2; exit 1; }
        FROM=$2 TO=$3 perl -0pi -e 's/\Q$ENV{FROM}\E/$ENV{TO}/' "$file"
}

# 0001: the busy-poll loops never end for waiting tasks
edit include/net/busy_poll.h \
        'return threshold && sched_nr_waiting_this_cpu() >= threshold;' \
        'return threshold && false;'
# 0002: handle_softirqs() keeps 2 ms and 10 restarts
edit kernel/softirq.c \
        '(u64)READ_ONCE(softirq_budget_usecs) * NSEC_PER_USEC;' \
        '(u64)MAX_SOFTIRQ_TIME_USECS * NSEC_PER_USEC;'
edit kernel/softirq.c \
        'int max_restart = READ_ONCE(softirq_max_restart);' \
        'int max_restart = MAX_SOFTIRQ_RESTART;'
# 0003: the cache keeps upstream's size and bulk (net/core/dev.h)
edit net/core/skbuff.c \
        'return min_t(u32, READ_ONCE(net_hotdata.sysctl_napi_skb_cache_size),' \
        'return min_t(u32, NAPI_SKB_CACHE_SIZE,'
edit net/core/skbuff.c \
        'return min_t(u32, READ_ONCE(net_hotdata.sysctl_napi_skb_cache_bulk),' \
        'return min_t(u32, NAPI_SKB_CACHE_BULK,'
