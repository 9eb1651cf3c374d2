#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# test-bus-policy.sh: netpollctl as root and as uid 65534 on a private bus
# that decides as the system bus does (dbus-system.conf.in: method calls
# denied unless a policy allows them) with the shipped
# systemd/org.netpolld1.conf installed, netpolld on a fixture sysroot. As
# 65534 every reading verb works, monitor receives KnobChanged, and every
# changing verb is refused with "permission denied" and changes nothing, the
# bus itself refusing the privileged methods; as root every verb works. The
# other integration tests run on a bus that allows everything, so this is the
# one that holds the policy file to what netpollctl needs. Speaks TAP.

# shellcheck source=tests/integration/lib.sh
. "$(dirname "$(readlink -f "$0")")/lib.sh"
# shellcheck source=tests/integration/stats.sh
. "$LIB_DIR/stats.sh"

CORE=proc/sys/net/core
DENIED="permission denied: this command needs root or CAP_NET_ADMIN"

# as_nobody CMD...: run CMD as uid 65534 without groups or capabilities.
as_nobody() {
        run setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all --bounding-set=-all "$@"
}

# lib.sh's profiles, and one that adds adaptation to itest-latency, so that pause
# and resume have something to do; the fixture's statistics stand still, so the
# controller keeps the profile's values.
make_bus_policy_profiles() {
        make_policy
        printf '[profile]\ninclude = itest-latency\n[adaptive]\nenabled = yes\n' >"$PROFILES/itest-bus.conf"
        write_config itest-bus
}

# The verbs that only read, one per line (word-split: no argument has blanks).
read_verbs() {
        cat <<EOF
status
--json status
list
get busy-read
get busy-read netdev-budget
explain busy-poll
irq
--json irq
monitor --once
--json monitor --once
metrics
profile
profile list
profile show itest-bus
EOF
}

# read_verbs_work WHO RUNNER...: each read verb, run through RUNNER, exits 0 with output.
read_verbs_work() {
        local who=$1 args
        shift
        while read -r args; do
                # shellcheck disable=SC2086
                "$@" "$NETPOLLCTL" $args
                if [ "$RC" != 0 ] || [ -z "$OUT" ]; then
                        fail "netpollctl $args as $who: exit $RC" "stdout: $OUT" "stderr: $ERR"
                fi
        done < <(read_verbs)
}

case_nobody_reads() {
        need_daemon || return
        read_verbs_work "uid 65534" as_nobody
        # The load itself came through (GetLoad), not a note in its place.
        as_nobody "$NETPOLLCTL" --json monitor --once
        if [ "$RC" = 0 ]; then
                local load_error
                load_error=$(python3 -c 'import json, sys; print(json.load(sys.stdin)["load_error"])' <<<"$OUT" 2>&1)
                expect_eq "monitor --once as uid 65534: load_error" "$load_error" None
        fi
        # Properties of both objects and introspection, as busctl and gdbus use them.
        as_nobody busctl --address="$NETPOLLD_BUS_ADDRESS" get-property org.netpolld1 \
                /org/freedesktop/LogControl1 org.freedesktop.LogControl1 LogLevel
        expect_rc 0
        as_nobody busctl --address="$NETPOLLD_BUS_ADDRESS" introspect org.netpolld1 /org/netpolld1
        expect_rc 0
}

case_nobody_monitor_sees_changes() {
        need_daemon || return
        local text=$TMP/monitor-nobody.txt pid
        setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all --bounding-set=-all \
                "$NETPOLLCTL" monitor >"$text" 2>&1 &
        pid=$!
        STARTED_PIDS+=("$pid")
        wait_for 10 grep -q "busy-poll" "$text" ||
                fail "netpollctl monitor as uid 65534 printed no knob table:" "$(cat "$text")"
        ctl set dev-weight 96
        expect_rc 0
        wait_for 5 grep -qF "dev-weight  64 -> 96  (manual)" "$text" ||
                fail "KnobChanged did not reach netpollctl monitor as uid 65534:" "$(cat "$text")"
        kill_and_wait "$pid"
        ctl reset dev-weight
        expect_rc 0
}

# The verbs that change something; "profile show PATH" has netpolld read a file as root.
change_verbs() {
        cat <<EOF
set busy-read 10
set busy-read 10 netdev-budget 500
reset busy-read
reset --all
profile set itest-budget
profile release
pause
resume
reload
profile show $PROFILES/itest-budget.conf
EOF
}

# nobody_call_refused METHOD ARGS...: gdbus call of METHOD on $OBJECT (default /org/netpolld1)
# as uid 65534 is refused by the bus policy.
nobody_call_refused() {
        as_nobody gdbus call --address "$NETPOLLD_BUS_ADDRESS" --dest org.netpolld1 \
                --object-path "${OBJECT:-/org/netpolld1}" --method "$@"
        [ "$RC" != 0 ] || fail "$1 as uid 65534 succeeded: $OUT"
        expect_contains "$1 as uid 65534" "$ERR" "org.freedesktop.DBus.Error.AccessDenied: Rejected send message"
}

props() {
        local p
        for p in ActiveProfile Mode ProfilePinned; do
                printf '%s=%s\n' "$p" "$(get_prop "$p")"
        done
}

case_nobody_changes_refused() {
        need_daemon || return
        local args props_before
        # A pinned profile and then (a switch ends manual values) a manual value,
        # so that profile release and reset --all would have something to undo.
        ctl profile set itest-bus
        expect_rc 0
        ctl set dev-weight 96
        expect_rc 0
        snapshot before-nobody
        props_before=$(props)
        while read -r args; do
                # shellcheck disable=SC2086
                as_nobody "$NETPOLLCTL" $args
                [ "$RC" = 1 ] || fail "netpollctl $args as uid 65534: exit $RC, expected 1" "stdout: $OUT" "stderr: $ERR"
                expect_contains "netpollctl $args as uid 65534" "$ERR" "$DENIED"
        done < <(change_verbs)
        # Every privileged method, whatever its client: the bus refuses it first
        # (its message, not netpolld's, which is the gate behind it).
        if command -v gdbus >/dev/null; then
                nobody_call_refused org.netpolld1.Manager.SetKnob busy-read 10
                nobody_call_refused org.netpolld1.Manager.SetKnobs "[('busy-read', '10')]"
                nobody_call_refused org.netpolld1.Manager.ResetKnob busy-read
                nobody_call_refused org.netpolld1.Manager.SetProfile itest-budget
                nobody_call_refused org.netpolld1.Manager.ReleaseProfile
                nobody_call_refused org.netpolld1.Manager.Reload
                nobody_call_refused org.netpolld1.Manager.SetMode paused
                OBJECT=/org/freedesktop/LogControl1 nobody_call_refused org.freedesktop.DBus.Properties.Set \
                        org.freedesktop.LogControl1 LogLevel "<'debug'>"
        else
                skip "gdbus missing: that the bus refuses the privileged methods by itself not checked"
        fi

        expect_tree_bytes "after uid 65534's changes" "$TMP/before-nobody"
        expect_eq "properties after uid 65534's changes" "$(props)" "$props_before"
        busctl_ get-property org.netpolld1 /org/freedesktop/LogControl1 org.freedesktop.LogControl1 LogLevel
        expect_eq "LogLevel after uid 65534's set" "$OUT" 's "info"'
}

case_root_everything() {
        need_daemon || return
        read_verbs_work root run
        local args
        while read -r args; do
                # shellcheck disable=SC2086
                ctl $args
                [ "$RC" = 0 ] || fail "netpollctl $args as root: exit $RC" "stdout: $OUT" "stderr: $ERR"
        done < <(change_verbs)
        # What the last ones left: release handed the choice back to the configured
        # itest-bus (its values hold again), resume restarted adaptation.
        expect_eq "ActiveProfile after root's verbs" "$(get_prop ActiveProfile)" 's "itest-bus"'
        expect_eq "Mode after root's verbs" "$(get_prop Mode)" 's "adaptive"'
        expect_file $CORE/busy_read 50
        expect_file $CORE/netdev_budget 600
        busctl_ set-property org.netpolld1 /org/freedesktop/LogControl1 org.freedesktop.LogControl1 LogLevel s debug
        expect_rc 0
        busctl_ set-property org.netpolld1 /org/freedesktop/LogControl1 org.freedesktop.LogControl1 LogLevel s info
        expect_rc 0
}

require_root_and_tools
setup_tmp
make_fixture
stat_init 2
# The statistics files are part of the tree that must come back as found.
snapshot initial
make_bus_policy_profiles
start_bus system
# uid 65534 must be able to run the client
chmod -R a+rX "$TMP"
# shellcheck disable=SC2119  # no extra options: the configured daemon
start_daemon || { echo "Bail out! netpolld did not start"; printf '%s' "$CASE_DIAG"; exit 1; }

run_case "uid 65534 may run every reading verb (status, list, get, explain, irq, monitor --once, metrics, profile list/show)" case_nobody_reads
run_case "uid 65534's netpollctl monitor receives KnobChanged" case_nobody_monitor_sees_changes
run_case "uid 65534's changes are refused with 'permission denied', by the bus first, and change nothing" case_nobody_changes_refused
run_case "root may run every verb" case_root_everything
run_case "SIGTERM restores the fixture" stop_and_expect_restored
tap_done
