# SPDX-License-Identifier: LGPL-2.1-or-later
# shellcheck shell=bash disable=SC2034  # variables are used by the scripts that source this
# lib.sh: shared harness of the integration tests (sourced, not run). It
# provides TAP output (one "ok"/"not ok" line per case, diagnostics on "# "
# lines), a temporary directory removed on exit with every process the test
# started, a private dbus-daemon, the fixture sysroot, and helpers to start
# and stop netpolld and to run netpollctl/busctl with captured output.
#
# Nothing here touches the real /proc or /sys by itself: netpolld runs with
# --sysroot $ROOT, the fixture tree below $TMP, except in the real-kernel
# tests that set ROOT=/ and steer only the veth pairs they make (veth_pair).

: "${NETPOLLD_BINARY:?NETPOLLD_BINARY must name the netpolld executable}"
: "${NETPOLLCTL_BINARY:?NETPOLLCTL_BINARY must name the netpollctl executable}"
: "${NETPOLLD_SOURCE_ROOT:?NETPOLLD_SOURCE_ROOT must name the source tree}"

LIB_DIR=$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")
CMD_TIMEOUT=20          # seconds for one client command; sd-bus's own is 25
READY_TIMEOUT=10        # seconds for netpolld to answer on the bus

TMP=
ROOT=                   # fixture sysroot
SNAP=                   # the fixture right after creation
STATE=                  # --state-dir
PROFILES=               # --profile-dir
CONF=                   # --config
LOG=                    # netpolld's stderr, appended across runs
BUS_PID=
DAEMON_PID=
DAEMON_RC=
declare -a STARTED_PIDS=()

# ---------------------------------------------------------------- TAP

CASE_N=0
CASE_FAILED=0
CASE_DIAG=
CASE_SKIP=

diag() {
        CASE_DIAG+=$(printf '%s\n' "$@" | sed 's/^/# /')$'\n'
}

# fail MESSAGE [DETAIL...]: the current case fails; the details become diagnostics.
fail() {
        CASE_FAILED=1
        diag "$@"
}

# skip REASON: the current case cannot decide on this machine (TAP "# SKIP").
skip() {
        CASE_SKIP=$1
}

# run_case DESCRIPTION FUNCTION [ARGS...]: one TAP line for what FUNCTION checked.
run_case() {
        local desc=$1
        shift
        CASE_FAILED=0
        CASE_DIAG=
        CASE_SKIP=
        "$@"
        CASE_N=$((CASE_N + 1))
        if [ "$CASE_FAILED" = 0 ] && [ -n "$CASE_SKIP" ]; then
                echo "ok $CASE_N - $desc # SKIP $CASE_SKIP"
        elif [ "$CASE_FAILED" = 0 ]; then
                echo "ok $CASE_N - $desc"
        else
                echo "not ok $CASE_N - $desc"
        fi
        [ -n "$CASE_DIAG" ] && printf '%s' "$CASE_DIAG"
        return 0
}

tap_done() {
        [ -n "${SANITIZER_LOGS:-}" ] && run_case "no sanitizer report (ASan, LeakSanitizer, UBSan) from any program of the script" case_no_sanitizer_report
        echo "1..$CASE_N"
}

# In a -Db_sanitize build (tests/meson.build sets ASAN_OPTIONS), reports go to files below $TMP
# as well, so that a leak found when netpolld exits at cleanup fails a case instead of vanishing.
sanitizer_logs_setup() {
        [ -n "${ASAN_OPTIONS:-}${UBSAN_OPTIONS:-}" ] || return 0
        SANITIZER_LOGS=$TMP/sanitizer
        mkdir -p "$SANITIZER_LOGS" && chmod 1777 "$SANITIZER_LOGS" # unprivileged clients report too
        export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}log_path=$SANITIZER_LOGS/asan"
        export UBSAN_OPTIONS="${UBSAN_OPTIONS:+$UBSAN_OPTIONS:}log_path=$SANITIZER_LOGS/ubsan"
}

case_no_sanitizer_report() {
        local f i
        # Every program started stops now, so that exit-time leak checks have run.
        for ((i = ${#STARTED_PIDS[@]} - 1; i >= 0; i--)); do
                kill_and_wait "${STARTED_PIDS[i]}"
        done
        STARTED_PIDS=()
        [ -n "${DAEMON_PID:-}" ] && kill_and_wait "$DAEMON_PID"
        for f in "$SANITIZER_LOGS"/*; do
                [ -e "$f" ] || continue
                # LeakSanitizer stops the exiting process's threads to scan them; when
                # our SIGKILL takes a thread away first, its tracer says only this.
                if [ -n "${SIGKILLED[${f##*.}]:-}" ] &&
                        ! grep -qv '^==[0-9]*==Unable to get registers from thread [0-9]*\.$' "$f"; then
                        diag "$(basename "$f"): LeakSanitizer's exit-time check cut short by our SIGKILL of ${f##*.}, not a finding"
                        continue
                fi
                fail "sanitizer report $(basename "$f"):" "$(head -n 40 "$f")"
        done
}

# ---------------------------------------------------------------- assertions

# Content of a fixture file without its trailing newline (the kernel's files end in one).
fx() {
        local v
        v=$(cat "$ROOT/$1" 2>/dev/null) || { echo "<missing>"; return; }
        printf '%s' "$v"
}

expect_eq() { # DESCRIPTION ACTUAL EXPECTED
        [ "$2" == "$3" ] || fail "$1: got '$2', expected '$3'"
}

expect_rc() { # EXPECTED: the exit code of the last run()
        [ "$RC" == "$1" ] || fail "'${RUN_CMD}' exited $RC, expected $1" "stdout: $OUT" "stderr: $ERR"
}

expect_file() { # RELPATH EXPECTED (without newline)
        local v
        v=$(fx "$1")
        [ "$v" == "$2" ] || fail "$1 holds '$v', expected '$2'"
}

expect_contains() { # DESCRIPTION HAYSTACK NEEDLE
        case "$2" in
        *"$3"*) ;;
        *) fail "$1: '$3' not found in:" "$2" ;;
        esac
}

expect_not_contains() { # DESCRIPTION HAYSTACK NEEDLE
        case "$2" in
        *"$3"*) fail "$1: '$3' unexpectedly found in:" "$2" ;;
        esac
}

# One "relpath=value" line per file of a tree, trailing newline of each value dropped.
tree_values() {
        (cd "$1" && find . -type f | LC_ALL=C sort | while read -r f; do
                printf '%s=%s\n' "${f#./}" "$(cat "$f")"
        done)
}

# expect_tree_values DESCRIPTION DIR: $ROOT holds the same values as DIR.
expect_tree_values() {
        local d
        d=$(diff <(tree_values "$2") <(tree_values "$ROOT")) ||
                fail "$1: fixture values differ from $(basename "$2") (< expected, > actual):" "$d"
}

# expect_tree_bytes DESCRIPTION DIR: $ROOT equals DIR byte for byte.
expect_tree_bytes() {
        local d
        d=$(diff -r "$2" "$ROOT" 2>&1) || {
                fail "$1: fixture differs from $(basename "$2") byte for byte:" "$d"
                local f
                for f in $(cd "$2" && find . -type f); do
                        cmp -s "$2/$f" "$ROOT/$f" ||
                                diag "  ${f#./}: expected $(od -An -c "$2/$f" | tr -s ' ') got $(od -An -c "$ROOT/$f" 2>/dev/null | tr -s ' ')"
                done
        }
}

snapshot() { # NAME: copies the fixture to $TMP/NAME
        rm -rf "${TMP:?}/$1"
        cp -a "$ROOT" "$TMP/$1"
}

# run CMD...: runs with a timeout, sets RC, OUT, ERR.
run() {
        RUN_CMD="$*"
        timeout "$CMD_TIMEOUT" "$@" >"$TMP/.out" 2>"$TMP/.err"
        RC=$?
        OUT=$(cat "$TMP/.out")
        ERR=$(cat "$TMP/.err")
}

ctl() { run "$NETPOLLCTL" "$@"; }

busctl_() { run busctl --address="$NETPOLLD_BUS_ADDRESS" "$@"; }

# The value and origin columns of "netpollctl get KNOB" as "VALUE ORIGIN".
get_value_origin() {
        ctl get "$1"
        if [ "$RC" != 0 ]; then
                echo "<get failed: rc $RC: $ERR>"
                return
        fi
        awk -v k="$1" '$1 == k { print $2, $3 }' <<<"$OUT"
}

# wait_for SECONDS COMMAND...: polls COMMAND every 0.1 s until it succeeds or SECONDS
# (may be a fraction) have passed.
wait_for() {
        local deadline
        deadline=$(awk -v now="$(date +%s%N)" -v s="$1" 'BEGIN { printf "%.0f", now + s * 1e9 }')
        shift
        while :; do
                "$@" && return 0
                [ "$(date +%s%N)" -ge "$deadline" ] && return 1
                sleep 0.1
        done
}

log_has() { grep -qF -- "$1" "$LOG"; }

# ---------------------------------------------------------------- setup and cleanup

# sigkill PID: SIGKILL, remembered: a SIGKILL that lands in LeakSanitizer's exit-time
# check (netpolld stopping on SIGTERM, then killed) leaves a report that is not a finding.
declare -A SIGKILLED=()
sigkill() {
        SIGKILLED[$1]=1
        kill -KILL "$1" 2>/dev/null
}

kill_and_wait() { # PID
        local pid=$1 i
        kill -0 "$pid" 2>/dev/null || return 0
        kill -TERM "$pid" 2>/dev/null
        for i in $(seq 50); do
                kill -0 "$pid" 2>/dev/null || break
                sleep 0.1
        done
        sigkill "$pid"
        wait "$pid" 2>/dev/null
        return 0
}

cleanup() {
        local pid
        # Newest first: clients before the daemon, the daemon before its bus.
        for ((i = ${#STARTED_PIDS[@]} - 1; i >= 0; i--)); do
                kill_and_wait "${STARTED_PIDS[i]}"
        done
        [ -n "$TMP" ] && rm -rf "$TMP"
}

# Skips the whole script (TAP "1..0 # SKIP") unless root with the tools needed.
require_root_and_tools() {
        local t
        if [ "$(id -u)" != 0 ]; then
                echo "1..0 # SKIP needs root"
                exit 0
        fi
        for t in dbus-daemon busctl python3 setpriv timeout; do
                if ! command -v "$t" >/dev/null; then
                        echo "1..0 # SKIP needs $t"
                        exit 0
                fi
        done
}

setup_tmp() {
        TMP=$(mktemp -d /tmp/netpolld-integration.XXXXXX) || exit 1
        trap cleanup EXIT
        # A signal exits through the EXIT trap, so that cleanup (and a test's own restore) runs.
        trap 'exit 130' INT TERM HUP
        # uid 65534 must reach the bus socket and the client binary.
        chmod 0755 "$TMP"
        sanitizer_logs_setup
        ROOT=$TMP/root
        STATE=$TMP/state
        PROFILES=$TMP/profiles
        CONF=$TMP/netpolld.conf
        LOG=$TMP/netpolld.log
        : >"$LOG"
        mkdir -p "$TMP/bin"
        install -m 0755 "$NETPOLLCTL_BINARY" "$TMP/bin/netpollctl"
        NETPOLLCTL=$TMP/bin/netpollctl
        NETPOLLD=$NETPOLLD_BINARY
        # Only the private bus: never reach a system bus or service manager.
        unset NOTIFY_SOCKET WATCHDOG_USEC WATCHDOG_PID DBUS_SYSTEM_BUS_ADDRESS NETPOLLD_SYSROOT
}

# The fixture sysroot: files as the kernel shows them (values end in a newline).
make_fixture() {
        local core=$ROOT/proc/sys/net/core dev=$ROOT/sys/class/net/veth0
        rm -rf "$ROOT"
        mkdir -p "$core" "$ROOT/proc/sys/kernel" "$dev/queues/rx-0" "$dev/queues/tx-0"
        printf '0\n' >"$core/busy_read"
        printf '0\n' >"$core/busy_poll"
        printf '300\n' >"$core/netdev_budget"
        printf '8000\n' >"$core/netdev_budget_usecs"
        printf '64\n' >"$core/dev_weight"
        printf '1000\n' >"$core/netdev_max_backlog"
        printf '5\n' >"$dev/ifindex"
        printf '0\n' >"$dev/napi_defer_hard_irqs"
        printf '0\n' >"$dev/gro_flush_timeout"
        printf '0\n' >"$dev/threaded"
        printf '0\n' >"$dev/queues/rx-0/rps_cpus"
        printf '0\n' >"$dev/queues/tx-0/xps_cpus"
        # proc/sys/kernel has none of the patched files: those knobs are unsupported.
        snapshot initial
        SNAP=$TMP/initial
}

# The test profiles and netpolld.conf.
make_policy() {
        mkdir -p "$PROFILES"
        cat >"$PROFILES/itest-latency.conf" <<'EOF'
[profile]
description = integration test: busy polling
[knobs]
busy-read = 50us
busy-poll = 50us
netdev-budget = 600
gro-flush-timeout@veth0 = 20us
EOF
        cat >"$PROFILES/itest-budget.conf" <<'EOF'
[profile]
description = integration test: budget only
[knobs]
netdev-budget = 450
EOF
        write_config itest-latency
}

write_config() { # PROFILE
        printf '[daemon]\nprofile = %s\n' "$1" >"$CONF"
}

# start_bus [system]: a private dbus-daemon at $TMP/bus. Its policy lets everyone do
# everything (dbus.conf.in), so that the tests see netpolld's own authorization; with
# "system" it decides as the system bus does with the shipped systemd/org.netpolld1.conf
# installed (dbus-system.conf.in).
start_bus() {
        local policy=$NETPOLLD_SOURCE_ROOT/systemd/org.netpolld1.conf template=$LIB_DIR/dbus.conf.in
        [ "${1:-}" = system ] && template=$LIB_DIR/dbus-system.conf.in
        sed -e "s|@TMP@|$TMP|g" -e "s|@POLICY@|$policy|g" "$template" >"$TMP/bus.conf"
        dbus-daemon --config-file="$TMP/bus.conf" --nofork --nopidfile >"$TMP/dbus.log" 2>&1 &
        BUS_PID=$!
        STARTED_PIDS+=("$BUS_PID")
        if ! wait_for 10 test -S "$TMP/bus"; then
                echo "Bail out! dbus-daemon did not create $TMP/bus: $(cat "$TMP/dbus.log")"
                exit 1
        fi
        chmod 0666 "$TMP/bus"
        export NETPOLLD_BUS_ADDRESS="unix:path=$TMP/bus"
}

daemon_answers() {
        busctl --address="$NETPOLLD_BUS_ADDRESS" get-property org.netpolld1 /org/netpolld1 \
                org.netpolld1.Manager Version >/dev/null 2>&1
}

# spawn_daemon [EXTRA ARGS...]: starts netpolld in the background, with the
# VAR=VALUE words of the array DAEMON_ENV in its environment, through the
# command in the array DAEMON_WRAPPER (one that execs the rest in its own
# process, keeping the pid) when set, and waits until
# it answers a method call (it only does after applying the profile). Returns
# 0 then; 1 when it exited first (DAEMON_RC is its status), 2 when it did not
# answer within READY_TIMEOUT seconds.
DAEMON_ENV=()
DAEMON_WRAPPER=()
spawn_daemon() {
        local state=(--state-dir "$STATE")
        [ -n "${STATE_FROM_CONFIG:-}" ] && state=() # netpolld.conf's state-dir, not the option
        echo "=== ${DAEMON_WRAPPER[*]} netpolld $* ${DAEMON_ENV[*]} ===" >>"$LOG"
        "${DAEMON_WRAPPER[@]}" env "${DAEMON_ENV[@]}" "$NETPOLLD" --sysroot "$ROOT" "${state[@]}" --config "$CONF" \
                --profile-dir "$PROFILES" "$@" </dev/null >>"$LOG" 2>&1 &
        DAEMON_PID=$!
        DAEMON_RC=
        STARTED_PIDS+=("$DAEMON_PID")
        local deadline=$((SECONDS + READY_TIMEOUT))
        while ! daemon_answers; do
                if ! kill -0 "$DAEMON_PID" 2>/dev/null; then
                        { wait "$DAEMON_PID"; } 2>/dev/null
                        DAEMON_RC=$?
                        DAEMON_PID=
                        return 1
                fi
                [ "$SECONDS" -ge "$deadline" ] && return 2
                sleep 0.05
        done
        return 0
}

# start_daemon [EXTRA ARGS...]: spawn_daemon; returns 1, with the log as
# diagnostics, when netpolld dies or does not answer in time.
start_daemon() {
        spawn_daemon "$@"
        case $? in
        0) return 0 ;;
        1) fail "netpolld exited $DAEMON_RC before answering on the bus; its log:" "$(cat "$LOG")" ;;
        *) fail "netpolld did not answer on the bus within ${READY_TIMEOUT}s; its log:" "$(cat "$LOG")" ;;
        esac
        return 1
}

daemon_alive() { [ -n "$DAEMON_PID" ] && kill -0 "$DAEMON_PID" 2>/dev/null; }

# Fails the case (and returns 1) when netpolld is not running, so dependent checks are skipped.
need_daemon() {
        daemon_alive && return 0
        fail "netpolld is not running (an earlier case stopped or lost it); log tail:" "$(tail -n 20 "$LOG")"
        return 1
}

# stop_daemon SIGNAL: sends SIGNAL and waits (up to 10 s) for the exit; DAEMON_RC is its status.
stop_daemon() {
        local sig=$1 i
        DAEMON_RC=
        [ -n "$DAEMON_PID" ] || return 1
        kill "-$sig" "$DAEMON_PID" 2>/dev/null
        for i in $(seq 100); do
                kill -0 "$DAEMON_PID" 2>/dev/null || break
                sleep 0.1
        done
        if kill -0 "$DAEMON_PID" 2>/dev/null; then
                fail "netpolld did not exit within 10 s of SIG$sig; killing it"
                sigkill "$DAEMON_PID"
        fi
        { wait "$DAEMON_PID"; } 2>/dev/null
        DAEMON_RC=$?
        DAEMON_PID=
        return 0
}

# SIGTERM: exit status 0, the fixture byte for byte as $SNAP, no journal left.
stop_and_expect_restored() {
        stop_daemon TERM
        expect_eq "exit status on SIGTERM" "$DAEMON_RC" 0
        expect_tree_bytes "after the stop" "$SNAP"
        [ -e "$STATE/restore.journal" ] && fail "restore.journal left after a clean stop:" "$(cat "$STATE/restore.journal")"
        return 0
}

# ---------------------------------------------------------------- small helpers

# background CMD...: starts CMD in the background, killed with the rest on exit; BG_PID is its pid.
background() {
        "$@" &
        BG_PID=$!
        STARTED_PIDS+=("$BG_PID")
}

# How many lines of the log contain STRING.
log_count() { grep -cF -- "$1" "$LOG"; }

# get_prop NAME: busctl's rendering of a Manager property ('s "adaptive"', 'b true'), or "<failed: ...>".
get_prop() {
        busctl_ get-property org.netpolld1 /org/netpolld1 org.netpolld1.Manager "$1"
        if [ "$RC" != 0 ]; then
                echo "<failed: rc $RC: $ERR>"
                return
        fi
        printf '%s' "$OUT"
}

prop_is() { [ "$(get_prop "$1")" == "$2" ]; }

# gdbus_call METHOD ARGS...: calls a Manager method with gdbus (which, unlike busctl,
# prints the D-Bus error name: "GDBus.Error:org.netpolld1.Error.X: message"); sets RC, OUT, ERR.
gdbus_call() {
        local method=$1
        shift
        run gdbus call --address "$NETPOLLD_BUS_ADDRESS" --dest org.netpolld1 --object-path /org/netpolld1 \
                --method "org.netpolld1.Manager.$method" "$@"
}

# sample_file RELPATH OUT: records the file's value every 5 ms into OUT until stopped.
sample_file() {
        local f=$ROOT/$1 out=$2 v
        : >"$out"
        while :; do
                v=
                read -r v <"$f"
                [ -n "$v" ] && printf '%s\n' "$v" >>"$out"
                sleep 0.005
        done
}

# GetLoad as plain lines: "source psi" then "cpu runnable rx tx processed squeeze drops" per row.
get_load() {
        busctl_ --json=short call org.netpolld1 /org/netpolld1 org.netpolld1.Manager GetLoad
        [ "$RC" = 0 ] || return 1
        python3 -c 'import json, sys
d = json.load(sys.stdin)["data"]
print(d[0], str(d[1]).lower())
for row in d[2]:
    print(*row)' <<<"$OUT"
}

# ---------------------------------------------------------------- veth pairs (real kernel)

# in_netns NS CMD...: runs CMD in network namespace NS, or here when NS is "".
in_netns() {
        local ns=$1
        shift
        if [ -n "$ns" ]; then
                ip netns exec "$ns" "$@"
        else
                "$@"
        fi
}

# veth_pair A NS_A B NS_B: a veth pair, A in network namespace NS_A and its peer
# B in NS_B ("" for the caller's own), both up with GRO on (which gives veth a
# NAPI instance). The namespaces must exist.
veth_pair() {
        local a=$1 nsa=$2 b=$3 nsb=$4
        ip ${nsa:+-n "$nsa"} link add "$a" type veth peer name "$b" ${nsb:+netns "$nsb"} &&
                ip ${nsa:+-n "$nsa"} link set "$a" up && ip ${nsb:+-n "$nsb"} link set "$b" up &&
                in_netns "$nsa" ethtool -K "$a" gro on >/dev/null &&
                in_netns "$nsb" ethtool -K "$b" gro on >/dev/null
}

# Starts "gdbus monitor" on netpolld's signals into FILE and waits until it
# watches; GMON_PID is its pid. Without gdbus GMON_PID is empty and the case
# is skipped (TAP "# SKIP") unless another of its checks fails.
start_gdbus_monitor() {
        GMON_PID=
        command -v gdbus >/dev/null || { skip "gdbus missing: KnobChanged signals not checked"; return 1; }
        gdbus monitor --address "$NETPOLLD_BUS_ADDRESS" --dest org.netpolld1 >"$1" 2>&1 &
        GMON_PID=$!
        STARTED_PIDS+=("$GMON_PID")
        wait_for 10 grep -q "is owned by" "$1" || { fail "gdbus monitor did not start:" "$(cat "$1")"; return 1; }
}

# expect_signal FILE TEXT: gdbus monitor's FILE shows TEXT within 5 s.
expect_signal() {
        wait_for 5 grep -qF -- "$2" "$1" || fail "no signal with \"$2\" seen; gdbus monitor saw:" "$(cat "$1")"
}
