# SPDX-License-Identifier: LGPL-2.1-or-later
# bench/lib/configs.sh: the four configurations compared, and netpolld on a
# private D-Bus daemon. Sourced by bench/run.
#
#   untuned   busy_read = busy_poll = 0 (kernel defaults)
#   static    busy_read = busy_poll = 50, written directly, as tuned's
#             network-latency profile does
#   latency   netpolld --profile latency  (whatever that profile does: its
#             static values today, its adaptive control once that is wired in)
#   balanced  netpolld --profile balanced
#
# Every configuration starts from the same base (busy_read = busy_poll = 0,
# every other net.core knob as found at start) and is checked to leave it
# behind; netpolld must restore what it changed when it stops.

CONFIGS=(untuned static latency balanced)
declare -A CONFIG_TITLE=([untuned]="untuned" [static]="static 50us"
                         [latency]="netpolld latency" [balanced]="netpolld balanced")
declare -A CONFIG_LETTER=([untuned]=A [static]=B [latency]=C [balanced]=D)

BUS_PID=""
BUS_ADDR=""
NETPOLLD_PID=""
MONITOR_PID=""
declare -A BASE=()              # net.core knob -> value every configuration starts from
RESTORE_FAILURES=0

bus_start() {
        mkdir -p "$WORK/bus"
        cat >"$WORK/bus/bus.conf" <<CONF
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <listen>unix:path=$WORK/bus/socket</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="root"/>
    <allow own="*"/>
    <allow send_destination="*"/>
    <allow receive_sender="*"/>
  </policy>
</busconfig>
CONF
        dbus-daemon --config-file="$WORK/bus/bus.conf" --nofork --nopidfile 2>"$OUT/logs/dbus-daemon.log" &
        BUS_PID=$!
        child_add "$BUS_PID" dbus-daemon
        BUS_ADDR="unix:path=$WORK/bus/socket"
        local i
        for ((i = 0; i < 200; i++)); do
                [[ -S $WORK/bus/socket ]] && return 0
                kill -0 "$BUS_PID" 2>/dev/null || break
                sleep 0.05
        done
        die "the private dbus-daemon did not start (see $OUT/logs/dbus-daemon.log)"
}

# Base values: kernel defaults for the two busy-poll knobs, the rest as found.
base_init() {
        local k
        host_remember_net_core
        for k in "${NET_CORE_KNOBS[@]}"; do
                [[ -r /proc/sys/net/core/$k ]] && BASE[$k]=$(</proc/sys/net/core/$k)
        done
        BASE[busy_read]=0
        BASE[busy_poll]=0
        base_apply
}

base_apply() {
        local k
        for k in "${!BASE[@]}"; do
                [[ $(</proc/sys/net/core/$k) == "${BASE[$k]}" ]] || host_set "/proc/sys/net/core/$k" "${BASE[$k]}"
        done
}

# After a configuration: every knob must be back at its base value. netpolld
# is expected to have restored them; anything it left is counted and fixed.
base_check() {
        local who=$1 k now
        for k in "${!BASE[@]}"; do
                now=$(</proc/sys/net/core/$k)
                if [[ $now != "${BASE[$k]}" ]]; then
                        log "after $who: net.core.$k is $now, expected ${BASE[$k]}; restoring it"
                        RESTORE_FAILURES=$((RESTORE_FAILURES + 1))
                        host_set "/proc/sys/net/core/$k" "${BASE[$k]}"
                fi
        done
}

ctl() { "$NETPOLLCTL" --bus-address="$BUS_ADDR" "$@"; }

daemon_property() {
        busctl --address="$BUS_ADDR" get-property org.netpolld1 /org/netpolld1 \
                org.netpolld1.Manager "$1" 2>/dev/null | sed 's/^[a-z]* //; s/^"//; s/"$//'
}

# netpolld_start PROFILE LOG: runs netpolld on the real host (sysroot /) and
# returns once it answers on the bus. Profiles come from $PROFILE_DIR when
# set, else conf/profiles.
# NETPOLLD_WRAPPER: a command (array) netpolld runs through, one that execs it
# in its own process (tools/pass-cpu-pressure); empty by default.
NETPOLLD_WRAPPER=()
netpolld_start() {
        local profile=$1 logfile=$2
        mkdir -p "$WORK/state"
        "${NETPOLLD_WRAPPER[@]}" "$NETPOLLD" --config "$SRC/conf/netpolld.conf" --profile-dir "${PROFILE_DIR:-$SRC/conf/profiles}" \
                --profile "$profile" --state-dir "$WORK/state" --bus-address "$BUS_ADDR" \
                >>"$logfile" 2>&1 &
        NETPOLLD_PID=$!
        child_add "$NETPOLLD_PID" netpolld
        netpolld_wait "$BUS_ADDR" "$NETPOLLD_PID" "$logfile" "netpolld --profile $profile"
}

# netpolld_wait BUSADDR PID LOG WHAT: returns once the netpolld at PID answers
# on BUSADDR; dies, naming WHAT and showing the end of LOG, if it exits first
# or takes more than 10 s.
netpolld_wait() {
        local i
        for ((i = 0; i < 200; i++)); do
                "$NETPOLLCTL" --bus-address="$1" status >/dev/null 2>&1 && return 0
                kill -0 "$2" 2>/dev/null || break
                sleep 0.05
        done
        tail -n 5 "$3" >&2
        die "$4 did not come up (log: $3)"
}

netpolld_stop() {
        [[ -n $NETPOLLD_PID ]] || return 0
        stop_pid "$NETPOLLD_PID" 15
        NETPOLLD_PID=""
}

monitor_start() {
        ctl monitor >"$1" 2>&1 &
        MONITOR_PID=$!
        child_add "$MONITOR_PID" "netpollctl monitor"
}

monitor_stop() {
        [[ -n $MONITOR_PID ]] || return 0
        stop_pid "$MONITOR_PID" 2
        MONITOR_PID=""
}

# config_apply CONFIG LOGPREFIX: puts the host into CONFIG. Sets CONFIG_MODE
# (the daemon's Mode property, or "-").
config_apply() {
        local config=$1 logprefix=$2
        CONFIG_MODE="-"
        base_apply
        case $config in
        untuned) ;;
        static)
                host_set /proc/sys/net/core/busy_read 50
                host_set /proc/sys/net/core/busy_poll 50
                ;;
        latency | balanced)
                netpolld_start "$config" "$logprefix.netpolld.log"
                CONFIG_MODE=$(daemon_property Mode)
                monitor_start "$logprefix.knobchanges.log"
                ;;
        *) die "unknown configuration '$config'" ;;
        esac
}

config_release() {
        local config=$1
        case $config in
        latency | balanced)
                monitor_stop
                netpolld_stop
                base_check "netpolld ($config)"
                ;;
        *)
                base_apply
                ;;
        esac
}
