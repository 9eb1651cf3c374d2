# SPDX-License-Identifier: LGPL-2.1-or-later
# bench/lib/cost.sh: what the daemons themselves cost, side by side in one
# run: netpolld (latency profile, default interval) and Debian's tuned
# (network-latency profile), each alone and otherwise idle for the same
# window; and netpolld's SetKnob round trip against the bus daemon's own
# GetId on the same private bus. Results go to $OUT/cost.txt as key=value.
#
# tuned without systemd as PID 1: tuned is an ordinary Python program; the
# systemd unit only runs `tuned -l -P` as a D-Bus service. It reaches "the
# system bus" through DBUS_SYSTEM_BUS_ADDRESS, which we point at our private
# dbus-daemon, so it runs exactly as under systemd (same profile, dynamic
# tuning every update_interval) without touching a system bus. Without
# systemd it does not do a full rollback on SIGTERM, so everything it may
# change is snapshotted first and put back here: every writable sysctl, THP,
# CPU governors and its state files in /etc/tuned.

cost_put() { echo "$1=$2" >>"$OUT/cost.txt"; }

# Times the process's threads were switched in (schedstat's third field): its wake-ups.
proc_switch_ins() {
        local pid=$1 n=0 t c
        for t in /proc/"$pid"/task/*/schedstat; do
                read -r _ _ c <"$t" 2>/dev/null && n=$((n + c))
        done
        echo "$n"
}

# measure_process PREFIX PID WINDOW: CPU seconds per minute and wake-ups per
# second over WINDOW seconds, start-up CPU before it, RSS at its end.
measure_process() {
        local prefix=$1 pid=$2 window=$3 c0 c1 t0 t1 w0 w1
        c0=$(proc_cpu_seconds "$pid") t0=$(date +%s.%N) w0=$(proc_switch_ins "$pid")
        sleep "$window"
        kill -0 "$pid" 2>/dev/null || { log "$prefix exited during its measurement"; return 1; }
        c1=$(proc_cpu_seconds "$pid") t1=$(date +%s.%N) w1=$(proc_switch_ins "$pid")
        cost_put "${prefix}_startup_cpu_s" "$c0"
        cost_put "${prefix}_window_s" "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')"
        cost_put "${prefix}_cpu_s_per_min" \
                "$(awk -v c0="$c0" -v c1="$c1" -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f", (c1 - c0) * 60 / (b - a) }')"
        cost_put "${prefix}_wakeups_per_s" \
                "$(awk -v w0="$w0" -v w1="$w1" -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", (w1 - w0) / (b - a) }')"
        cost_put "${prefix}_rss_kb" "$(proc_status_kb "$pid" VmRSS)"
        cost_put "${prefix}_hwm_kb" "$(proc_status_kb "$pid" VmHWM)"
        cost_put "${prefix}_threads" "$(proc_status_kb "$pid" Threads)"
}

# psimon: the kernel thread that evaluates PSI triggers with windows under 2 s
# (kernel/sched/psi.c), started with the first such trigger. Its pid, or
# nothing when there is none.
psimon_pid() {
        local p c
        for p in /proc/[0-9]*; do
                read -r c <"$p/comm" 2>/dev/null && [[ $c == psimon ]] && { echo "${p#/proc/}"; return 0; }
        done
        return 0
}

# measure_daemon PREFIX PID WINDOW: measure_process, and the same window of
# psimon as PREFIX_psimon when it runs: a CPU pressure trigger's cost to the
# kernel belongs to the daemon that armed it.
measure_daemon() {
        local prefix=$1 pid=$2 window=$3 psimon bg=
        psimon=$(psimon_pid)
        if [[ -n $psimon ]]; then
                measure_process "${prefix}_psimon" "$psimon" "$window" &
                bg=$!
        fi
        measure_process "$prefix" "$pid" "$window"
        [[ -n $bg ]] && wait "$bg"
        return 0
}

cost_netpolld() {
        local window=$1 line wake
        log "daemon cost: netpolld --profile latency for ${window}s"
        base_apply
        netpolld_start latency "$OUT/logs/cost.netpolld.log"
        cost_put netpolld_mode "$(daemon_property Mode)"
        cost_put netpolld_interval_us "$(daemon_property Interval | sed 's/^t //')"
        cost_put netpolld_version "$(daemon_property Version)"
        sleep 1         # let start-up finish before the window opens
        # Whether a CPU pressure trigger wakes it (daemon/sensing/cpuwake.h): then it rests under traffic too.
        wake=$(grep -o -m1 -e "CPU pressure trigger: armed while traffic flows" -e "no CAP_SYS_RESOURCE at start" \
                -e "no CPU pressure trigger ([^)]*)" "$OUT/logs/cost.netpolld.log")
        cost_put netpolld_cpu_wake "${wake:-not logged}"
        measure_daemon netpolld "$NETPOLLD_PID" "$window"
        cost_traffic "$window" netpolld_traffic
        [[ $wake == "CPU pressure trigger: armed while traffic flows" ]] && cost_traffic "$window" netpolld_mild mild
        # After the CPU window, so its calls are not counted as idle cost.
        line=$("$BUSRTT" --address "$BUS_ADDR" --count "$RTT_COUNT" 2>>"$OUT/logs/cost.busrtt.log") ||
                log "busrtt failed (see $OUT/logs/cost.busrtt.log)"
        local kv
        for kv in $line; do
                cost_put "busrtt_${kv%%=*}" "${kv#*=}"
        done
        local interval
        interval=$(daemon_property Interval | sed 's/^t //')
        netpolld_stop
        base_check "netpolld (cost)"
        cost_timerfloor "$window" "$interval"
        [[ $wake == "CPU pressure trigger: armed while traffic flows" ]] || cost_netpolld_armed "$window"
}

# When netpolld cannot arm its own CPU pressure trigger (no CAP_SYS_RESOURCE
# here, as on a root whose bounding set lacks it), the traffic window again
# with the trigger on a file passed to it as systemd's OpenFile= passes one
# (tools/pass-cpu-pressure): opened in a new user namespace, whose
# credentials hold the capability bit the kernel checks. The traffic arms it
# as it would arm netpolld's own. Then an idle window: a passed trigger stays
# armed (netpolld's own is removed after 10 s without traffic, and costs then
# what the first idle window shows). psimon is measured beside both.
cost_netpolld_armed() {
        local window=$1 err line log="$OUT/logs/cost.netpolld-armed.log"
        if ! err=$("$SRC/tools/pass-cpu-pressure" --opener userns -- true 2>&1); then
                cost_put netpolld_armed_traffic_unavailable "${err:-no user namespace}"
                return 0
        fi
        log "daemon cost: netpolld --profile latency with a CPU pressure file passed to it"
        base_apply
        NETPOLLD_WRAPPER=("$SRC/tools/pass-cpu-pressure" --opener userns --)
        netpolld_start latency "$log"
        NETPOLLD_WRAPPER=()
        sleep 1
        cost_traffic "$window" netpolld_armed_traffic
        cost_traffic "$window" netpolld_armed_mild mild
        line=$(grep -o -m1 -e "CPU pressure trigger armed" -e "the kernel refused a CPU pressure trigger" \
                -e "no CPU pressure trigger on the file[^:]*" "$log")
        cost_put netpolld_armed_cpu_wake "${line:-not logged}"
        if [[ $line == "CPU pressure trigger armed" ]]; then
                measure_daemon netpolld_armed_after "$NETPOLLD_PID" "$window"
        else
                cost_put netpolld_armed_after_unavailable "not armed on the passed file: ${line:-not logged}"
        fi
        netpolld_stop
        base_check "netpolld (cost, trigger on a passed file)"
}

# Packets received so far on every CPU (softnet_stat's first column, hex).
softnet_processed() {
        local sum=0 p
        while read -r p _; do sum=$((sum + 16#$p)); done </proc/net/softnet_stat
        echo "$sum"
}

# Returns once packets arrive at 500 a second or more (sockperf takes a moment
# to start sending); 1 after 10 s without.
wait_for_traffic() {
        local i a b
        for ((i = 0; i < 50; i++)); do
                a=$(softnet_processed)
                sleep 0.2
                b=$(softnet_processed)
                ((b - a >= 100)) && return 0
        done
        return 1
}

# controller_counts: "SAMPLES TRIGGER WATCH YIELDS" from netpolld's metrics:
# samples taken, wake-ups by the CPU pressure trigger and by its watch, and
# adaptive changes that lowered a knob (busy polling yielding) so far.
controller_counts() {
        ctl metrics 2>/dev/null | awk '
                /^netpolld_controller_samples_total / { s = $2 }
                /^netpolld_controller_wakeups_total\{.*by="trigger"/ { t = $2 }
                /^netpolld_controller_wakeups_total\{.*by="watch"/ { w = $2 }
                /^netpolld_controller_decisions_total\{.*direction="down"/ { y += $2 }
                END { print s + 0, t + 0, w + 0, y + 0 }'
}

# psi_some_total: microseconds some task waited for a CPU so far (/proc/pressure/cpu).
psi_some_total() {
        awk '$1 == "some" { sub("total=", "", $5); print $5 }' /proc/pressure/cpu
}

# cost_traffic WINDOW PREFIX [mild]: the running netpolld, measured as PREFIX.
# With "mild", bench/mildpressure.c holds steady CPU pressure over netpolld's
# trigger and under its yield rule on CPU 0 during the window (the load under
# which every trigger window asks for samples): the samples, wake-ups and
# yields it caused and the pressure it made are recorded too.
COST_TRAFFIC_MPS=1000
cost_traffic() {
        local window=$1 prefix=$2 mild=${3:-} port server client gen= c0 c1 p0 p1 t0 t1
        if ! command -v sockperf >/dev/null; then
                cost_put "${prefix}_unavailable" "sockperf is not installed"
                return 0
        fi
        port=$((20000 + RANDOM % 20000))
        log "daemon cost: netpolld with ${COST_TRAFFIC_MPS} msg/s on loopback for ${window}s"
        sockperf server -i 127.0.0.1 -p "$port" >"$OUT/logs/cost.$prefix.sockperf-server.log" 2>&1 &
        server=$!
        child_add "$server" "sockperf server"
        sleep 0.5
        sockperf under-load -i 127.0.0.1 -p "$port" --mps "$COST_TRAFFIC_MPS" -t "$((${window%.*} + 3))" \
                >"$OUT/logs/cost.$prefix.sockperf-client.log" 2>&1 &
        client=$!
        child_add "$client" "sockperf under-load"
        wait_for_traffic || log "no traffic seen within 10 s of starting sockperf under-load"
        if [[ $mild ]]; then
                "$MILDPRESSURE" 0 &
                gen=$!
                child_add "$gen" mildpressure
        fi
        sleep 1         # the first samples with traffic end the rest, or arm the trigger
        read -r -a c0 < <(controller_counts)
        p0=$(psi_some_total) t0=$(date +%s.%N)
        measure_daemon "$prefix" "$NETPOLLD_PID" "$window"
        read -r -a c1 < <(controller_counts)
        p1=$(psi_some_total) t1=$(date +%s.%N)
        cost_put "${prefix}_mps" "$COST_TRAFFIC_MPS"
        cost_put "${prefix}_samples_per_s" "$(awk -v a="${c0[0]}" -v b="${c1[0]}" -v t0="$t0" -v t1="$t1" \
                'BEGIN { printf "%.1f", (b - a) / (t1 - t0) }')"
        cost_put "${prefix}_trigger_wakeups" "$((c1[1] - c0[1]))"
        cost_put "${prefix}_watch_wakeups" "$((c1[2] - c0[2]))"
        cost_put "${prefix}_yields" "$((c1[3] - c0[3]))"
        cost_put "${prefix}_psi_some_pct" "$(awk -v a="$p0" -v b="$p1" -v t0="$t0" -v t1="$t1" \
                'BEGIN { printf "%.2f", (b - a) / 1e4 / (t1 - t0) }')"
        [[ $gen ]] && stop_pid "$gen" 5
        stop_pid "$client" 5
        stop_pid "$server" 5
}

# The same window for bench/timerfloor.c: an sd-event timer at netpolld's
# interval that does nothing, what waking up that often costs here by itself.
cost_timerfloor() {
        local window=$1 interval=$2 pid
        [[ $interval =~ ^[0-9]+$ ]] || { log "no interval from netpolld ('$interval'): wake-up floor not measured"; return 0; }
        log "daemon cost: wake-up floor, an empty timer every ${interval}us for ${window}s"
        "$TIMERFLOOR" "$interval" &
        pid=$!
        child_add "$pid" timerfloor
        sleep 1
        measure_process timerfloor "$pid" "$window"
        cost_put timerfloor_interval_us "$interval"
        stop_pid "$pid" 5
}

# Every sysctl as "key<TAB>value" lines; the tabs between the fields of a
# multi-value entry (tcp_rmem, ip_local_port_range, ...) become spaces, so
# that each line has exactly two fields and a value is compared and written
# back whole. A sysctl that prints several lines (a table of counters, such as
# some kernels' fs.pipe-keep) is left out: it cannot be written back a line at
# a time.
sysctl_snapshot() {
        sysctl -a 2>/dev/null | sed 's/\t/ /g; s/ = /\t/' | sort -t $'\t' -k1,1 |
                awk -F'\t' '{ key[NR] = $1; line[NR] = $0; n[$1]++ }
                        END { for (i = 1; i <= NR; i++) if (n[key[i]] == 1) print line[i] }' >"$1"
}

TUNED_PID=""
TUNED_SNAPSHOT=""

# Puts back the sysctls that differ from the snapshot (volatile counters
# and read-only entries are skipped).
tuned_restore_sysctls() {
        [[ -n $TUNED_SNAPSHOT && -f $TUNED_SNAPSHOT ]] || return 0
        local now="$WORK/sysctl.after" key old path
        sysctl_snapshot "$now"
        while IFS=$'\t' read -r key old; do
                case $key in
                kernel.ns_last_pid | kernel.random.* | fs.dentry-state | fs.inode-* | fs.file-nr) continue ;;
                esac
                # sysctl shows "/" in names as "." and the other way round.
                path=/proc/sys/$(tr './' '/.' <<<"$key")
                [[ -w $path ]] || continue
                if printf '%s\n' "$old" >"$path" 2>/dev/null; then
                        log "restored sysctl $key = $old"
                else
                        log "could not restore sysctl $key = $old"
                fi
        done < <(join -t $'\t' -j 1 "$TUNED_SNAPSHOT" "$now" | awk -F'\t' 'NF == 3 && $2 != $3 { print $1 "\t" $2 }')
        TUNED_SNAPSHOT=""
}

tuned_stop() {
        [[ -n $TUNED_PID ]] || return 0
        stop_pid "$TUNED_PID" 20
        TUNED_PID=""
        tuned_restore_sysctls
        file_restore
}

# tuned_start LOGPREFIX: snapshots what tuned may change, then runs tuned with
# network-latency on the private bus and returns once its static tuning is
# applied (1 when it did not apply within a minute; it is stopped again then).
tuned_start() {
        local logprefix=$1 i f
        base_apply
        TUNED_SNAPSHOT="$WORK/sysctl.before"
        sysctl_snapshot "$TUNED_SNAPSHOT"
        for f in /sys/kernel/mm/transparent_hugepage/{enabled,defrag} \
                 /sys/devices/system/cpu/cpu*/cpufreq/scaling_governor \
                 /sys/devices/system/cpu/cpu*/power/energy_perf_bias \
                 /sys/devices/system/cpu/intel_pstate/{min_perf_pct,no_turbo}; do
                [[ -w $f ]] && host_remember "$f"
        done
        for f in /etc/tuned/{active_profile,profile_mode,post_loaded_profile,bootcmdline}; do
                file_remember "$f"
        done
        DBUS_SYSTEM_BUS_ADDRESS="$BUS_ADDR" tuned -l "$logprefix.log" \
                -P "$WORK/tuned.pid" --profile network-latency >"$logprefix.stderr" 2>&1 &
        TUNED_PID=$!
        child_add "$TUNED_PID" tuned
        for ((i = 0; i < 1200; i++)); do
                grep -q "static tuning from profile 'network-latency' applied" "$logprefix.log" 2>/dev/null &&
                        return 0
                kill -0 "$TUNED_PID" 2>/dev/null || break
                sleep 0.05
        done
        tuned_stop
        return 1
}

tuned_available() {
        command -v tuned >/dev/null && [[ -d /usr/lib/tuned/network-latency ]] && ! pgrep -x tuned >/dev/null
}

cost_tuned() {
        local window=$1
        if ! command -v tuned >/dev/null || [[ ! -d /usr/lib/tuned/network-latency ]]; then
                cost_put tuned_unavailable "tuned or its network-latency profile is not installed"
                return 0
        fi
        if pgrep -x tuned >/dev/null; then
                cost_put tuned_unavailable "a tuned service is already running on this host"
                return 0
        fi
        log "daemon cost: tuned --profile network-latency for ${window}s"
        cost_put tuned_version "$(tuned --version 2>&1 | awk '{ print $NF }')"
        if ! tuned_start "$OUT/logs/cost.tuned"; then
                cost_put tuned_unavailable "tuned did not apply network-latency (see logs/cost.tuned.log)"
                return 0
        fi
        cost_put tuned_busy_read "$(</proc/sys/net/core/busy_read)"
        cost_put tuned_bus_name "$(busctl --address="$BUS_ADDR" list 2>/dev/null |
                awk '$1 == "com.redhat.tuned" { print "com.redhat.tuned"; f = 1 } END { if (!f) print "none" }')"
        sleep 1
        measure_process tuned "$TUNED_PID" "$window"
        tuned_stop
        base_check "tuned"
}
