# SPDX-License-Identifier: LGPL-2.1-or-later
# bench/lib/common.sh: logging, child process bookkeeping and the snapshot /
# restore of every host value the benchmark may change. Sourced by bench/run.
#
# Every value is written through host_set, which records the original the
# first time, so host_restore can put all of them back on exit, Ctrl-C or
# error, whoever changed them last (the harness, netpolld or tuned).

log() { printf 'bench: %s\n' "$*" >&2; }
die() { printf 'bench: error: %s\n' "$*" >&2; exit 1; }

# ---- host values --------------------------------------------------------

declare -A HOST_ORIG=()         # path -> value found before the first write
HOST_ORDER=()

# ---- the restore journal ----------------------------------------------------
#
# Everything to undo is also written to $WORK/restore.sh before it is changed, as
# commands bench/lib/guard.sh replays should the harness's shell die without
# cleaning up (it runs in a session of its own and waits for the run to end).

journal() { printf "$1"'\n' "${@:2}" >>"$WORK/restore.sh"; }

guard_start() {
        : >"$WORK/restore.sh"
        GUARD_WORK=$WORK GUARD_OUT=$OUT setsid bash "$BENCH/lib/guard.sh" "$$" \
                </dev/null >>"$OUT/logs/guard.log" 2>&1 &
}

# Records PATH's current value (once), so it can be restored.
host_remember() {
        local path=$1
        [[ -v HOST_ORIG[$path] ]] && return 0
        [[ -r $path ]] || return 0
        HOST_ORIG[$path]=$(<"$path")
        HOST_ORDER+=("$path")
        journal 'restore_value %q %q' "$path" "${HOST_ORIG[$path]}"
}

# host_set PATH VALUE: write a /proc/sys or /sys value, remembering the original.
host_set() {
        local path=$1 value=$2
        host_remember "$path"
        printf '%s\n' "$value" >"$path" || die "cannot write '$value' to $path"
}

host_get() { cat "$1" 2>/dev/null; }

# Whitespace-normalized form of a value, for comparisons.
words() { tr -s ' \t\n' '   ' <<<"$1" | sed 's/^ //; s/ $//'; }

# For values kept in "always [madvise] never" form: the word in brackets.
bracketed() { sed -n 's/.*\[\([^]]*\)\].*/\1/p' <<<"$1"; }

# Puts back every remembered value that differs now. Returns 1 if one failed.
host_restore() {
        local path orig now rc=0
        for path in "${HOST_ORDER[@]}"; do
                orig=${HOST_ORIG[$path]}
                now=$(host_get "$path")
                if [[ $orig == *\[*\]* ]]; then
                        orig=$(bracketed "$orig")
                        now=$(bracketed "$now")
                fi
                # Multi-field values (tab separated in /proc/sys) compare by words.
                [[ "$(words "$now")" == "$(words "$orig")" ]] && continue
                if printf '%s\n' "$orig" >"$path" 2>/dev/null; then
                        log "restored $path to '$orig' (was '$now')"
                else
                        log "could not restore $path to '$orig' (now '$now')"
                        rc=1
                fi
        done
        return $rc
}

# The global net.core knobs any configuration may change: remembered up front
# so that even a crash of netpolld leaves nothing behind.
NET_CORE_KNOBS=(busy_read busy_poll netdev_budget netdev_budget_usecs dev_weight
                dev_weight_rx_bias dev_weight_tx_bias netdev_max_backlog)
host_remember_net_core() {
        local k
        for k in "${NET_CORE_KNOBS[@]}"; do
                host_remember "/proc/sys/net/core/$k"
        done
}

# ---- files outside /proc and /sys (tuned's state files) -------------------

declare -A FILE_SAVED=()        # path -> copy in $WORK (or "absent")
file_remember() {
        local path=$1 copy
        [[ -v FILE_SAVED[$path] ]] && return 0
        if [[ -e $path ]]; then
                copy="$WORK/saved.$(tr / _ <<<"$path")"
                cp -a "$path" "$copy"
                FILE_SAVED[$path]=$copy
        else
                FILE_SAVED[$path]=absent
        fi
        journal 'restore_file %q %q' "$path" "${FILE_SAVED[$path]}"
}
file_restore() {
        local path
        for path in "${!FILE_SAVED[@]}"; do
                if [[ ${FILE_SAVED[$path]} == absent ]]; then
                        rm -f "$path"
                elif ! cmp -s "${FILE_SAVED[$path]}" "$path"; then
                        cp -a "${FILE_SAVED[$path]}" "$path" && log "restored $path"
                fi
        done
}

# ---- child processes ----------------------------------------------------

declare -A CHILDREN=()          # pid -> name, everything started in the background

child_add() { CHILDREN[$1]=$2; }
child_forget() { unset "CHILDREN[$1]"; }

# stop_pid PID [SECONDS]: SIGTERM, wait up to SECONDS (default 10) for the
# process to exit (daemons restore their values on SIGTERM), then SIGKILL.
stop_pid() {
        local pid=$1 limit=${2:-10} i
        kill -TERM "$pid" 2>/dev/null || { wait "$pid" 2>/dev/null; child_forget "$pid"; return 0; }
        for ((i = 0; i < limit * 20; i++)); do
                kill -0 "$pid" 2>/dev/null || break
                sleep 0.05
        done
        if kill -0 "$pid" 2>/dev/null; then
                log "${CHILDREN[$pid]:-process $pid} did not stop within ${limit}s; killing it"
                kill -KILL "$pid" 2>/dev/null
        fi
        wait "$pid" 2>/dev/null
        child_forget "$pid"
        return 0
}

stop_all_children() {
        local pid
        for pid in "${!CHILDREN[@]}"; do
                stop_pid "$pid" 10
        done
}

# ---- /proc/stat: steal and busy share over a window -----------------------

# Prints "total steal idle" jiffies of the all-CPU line.
cpu_sample() {
        local v
        cpu_sample_into v
        echo "$v"
}
# cpu_sample_into VAR: the same into VAR, without a fork (quiet_moment below).
cpu_sample_into() {
        local _ _us _ni _sy _id _io _irq _si _st
        read -r _ _us _ni _sy _id _io _irq _si _st _ </proc/stat
        printf -v "$1" '%s' "$((_us + _ni + _sy + _id + _io + _irq + _si + _st)) $_st $((_id + _io))"
}

# ---- quiet moments: bookkeeping that starts no process ---------------------
#
# An app's phase boundaries happen while its server and client keep both CPUs busy
# polling, and netpolld counts every task that waits for a CPU then: a date or awk the
# harness starts there waits behind them and can make netpolld yield before the
# neighbour came (it did: 0.84 tasks waiting on the server's CPU 30 ms before a hog).
# The helpers below set variables with bash builtins alone; what needs a program is
# computed after the phases. Left: the counter's query, and the sleep 0.05 of
# stop_pid while a neighbour stops.

# clock_hms VAR: the wall clock as HH:MM:SS.mmm, as `netpollctl monitor` prints it
clock_hms() {
        local _t=$EPOCHREALTIME
        printf -v "$1" '%(%H:%M:%S)T.%s' "${_t%.*}" "${_t:${#_t}-6:3}"
}
# nap SECONDS: sleep without starting sleep(1): a read that times out on a pipe
# this shell holds both ends of (opened on first use). Only where no trap must run
# at once: bash runs a trap (Ctrl-C's cleanup) only when the read has timed out,
# where a sleep(1) would die with the Ctrl-C and let it run at once.
NAP_FD=
nap() {
        [[ -n $NAP_FD ]] || exec {NAP_FD}<> <(:)
        read -rt "$1" -u "$NAP_FD" _ || :
}
# proc_cpu_raw PID VAR: "NS TICKS" for PID, the run time of its threads' schedstat and
# the tick-counted time of the children it waited for (proc_cpu_seconds below turns the
# two into seconds); false once it is gone
proc_cpu_raw() {
        # (locals named _pcr_*: VAR is set in the caller's scope, which the caller's names reach)
        local _pcr_ns=0 _pcr_t _pcr_a _pcr_stat _pcr_f
        for _pcr_t in /proc/"$1"/task/*/schedstat; do
                read -r _pcr_a _ 2>/dev/null <"$_pcr_t" && _pcr_ns=$((_pcr_ns + _pcr_a))
        done
        read -r _pcr_stat 2>/dev/null <"/proc/$1/stat" || return 1
        # Field 2 (comm) may hold spaces: count from the closing parenthesis
        # (then cutime and cstime, fields 16 and 17, are _pcr_f[13] and _pcr_f[14]).
        read -ra _pcr_f <<<"${_pcr_stat##*) }"
        printf -v "$2" '%s %s' "$_pcr_ns" "$((_pcr_f[13] + _pcr_f[14]))"
}
# raw_cpu_seconds "NS TICKS": those as seconds
raw_cpu_seconds() {
        local ns ticks
        read -r ns ticks <<<"$1"
        awk -v hz="$(getconf CLK_TCK)" -v ns="$ns" -v t="$ticks" 'BEGIN { printf "%.4f\n", ns / 1e9 + t / hz }'
}

# cpu_window "BEFORE" "AFTER": prints "steal_pct busy_pct" for the window.
cpu_window() {
        local t0 s0 i0 t1 s1 i1
        read -r t0 s0 i0 <<<"$1"
        read -r t1 s1 i1 <<<"$2"
        awk -v dt=$((t1 - t0)) -v ds=$((s1 - s0)) -v di=$((i1 - i0)) 'BEGIN {
                if (dt <= 0) { print "0.00 0.0"; exit }
                printf "%.2f %.1f\n", 100 * ds / dt, 100 * (dt - di - ds) / dt }'
}

# background_busy SECONDS: how busy the CPUs are with nothing of ours
# running (other work on a shared host), in percent of all CPUs.
background_busy() {
        local before after
        before=$(cpu_sample)
        sleep "$1"
        after=$(cpu_sample)
        cpu_window "$before" "$after" | awk '{ print $2 }'
}

# CPU seconds a process has used so far: the scheduler's nanosecond run time
# of each of its threads (/proc/PID/task/*/schedstat), plus the tick-counted
# time of the children it waited for (commands tuned runs, for one).
proc_cpu_seconds() {
        local raw
        proc_cpu_raw "$1" raw || return 1
        raw_cpu_seconds "$raw"
}

proc_status_kb() { awk -v k="$2:" '$1 == k { print $2 }' "/proc/$1/status"; }
