#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# neuter.sh TREE [WHAT]: turns the patched kernel source TREE into one where
# the series' sysctls exist, accept and report their values, but do nothing:
# each place that reads one uses upstream's constant instead. Booting that
# kernel (run.sh --neutered) shows which checks fail when a patch has no
# effect. WHAT takes away less, to show that a part of patch 1 is tested:
#   nr-running  the count of contending tasks is rq->nr_running - 1, as a
#               helper that knows nothing of classes and delayed dequeues
#               would have it
#   class       every queued task counts whatever its class (SCHED_IDLE and
#               cpu.idle cgroup tasks too)
# Fails if a place to neuter is not found (the series changed: update this).
set -euo pipefail
tree=${1:?usage: neuter.sh TREE [nr-running|class]}
what=${2:-all}

# edit FILE FROM TO: replace the one line FROM (a fixed string) with TO
edit() {
        local file=$tree/$1
        [ "$(grep -cF -- "$2" "$file")" = 1 ] || { echo "neuter.sh: '$2' is not once in $1" >&2; exit 1; }
        FROM=$2 TO=$3 perl -0pi -e 's/\Q$ENV{FROM}\E/$ENV{TO}/' "$file"
}

# run.sh builds every variant in one build directory: each file that any of
# them edits gets a new time, so that make rebuilds it whatever it held before
(cd "$tree" && touch include/net/busy_poll.h kernel/sched/fair.c kernel/softirq.c net/core/skbuff.c)

# the idle count: h_nr_idle on 7.2, idle_h_nr_running on 6.12
idle=$(grep -o 'queued -= (long)READ_ONCE(rq->cfs\.[a-z_]*idle[a-z_]*);' "$tree/kernel/sched/fair.c" | head -n 1)
[ -n "$idle" ] || { echo "neuter.sh: sched_cpu_contended()'s idle count not found" >&2; exit 1; }

case $what in
nr-running)
        edit include/net/busy_poll.h \
                'return threshold ? threshold + sched_curr_contending() : UINT_MAX;' \
                'return threshold ? threshold + 1 : UINT_MAX;'
        edit kernel/sched/fair.c \
                'queued -= (long)READ_ONCE(rq->cfs.h_nr_queued) -' \
                'queued -= 0 * ((long)READ_ONCE(rq->cfs.h_nr_queued) -'
        edit kernel/sched/fair.c \
                '(long)READ_ONCE(rq->cfs.h_nr_runnable);' \
                '(long)READ_ONCE(rq->cfs.h_nr_runnable));'
        edit kernel/sched/fair.c "$idle" ';'
        exit 0
        ;;
class)
        edit kernel/sched/fair.c "$idle" ';'
        exit 0
        ;;
all) ;;
*) echo "neuter.sh: WHAT is nr-running or class, not '$what'" >&2; exit 2 ;;
esac

# 0001: the busy-poll loops never end for waiting tasks
edit include/net/busy_poll.h \
        'return sched_cpu_contended(limit);' \
        'return false;'
# 0002/0003: handle_softirqs() keeps 2 ms by the clock and 10 restarts
edit kernel/softirq.c \
        '(u64)READ_ONCE(softirq_budget_usecs) * NSEC_PER_USEC;' \
        'MAX_SOFTIRQ_TIME;'
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
