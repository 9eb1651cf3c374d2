#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# test-explain.sh: netpollctl explain and the Explain method against netpolld
# on a fixture sysroot with a private bus: a profile value names the FILE:LINE
# that set it (through an include), a manual value wins over the profile's
# wish, an adaptive move is listed with the signals behind it, an outside
# write is shown with what netpolld had left there, the restore journal's
# original and what stop writes are shown, an unknown knob or device is
# refused with the error's name, an unsupported knob names its patch, uid
# 65534 may explain, and --json validates against docs/schema/; a profile
# path with a byte that is not UTF-8 is shown escaped (\xNN) by status and
# explain; then, on the
# real kernel in a network namespace of its own, every name KnobChanged and
# ListIrqs give a steered value (rps-cpus@DEV:rx-0) is explained, and
# napi-threaded@DEV busy-poll on a device without listed NAPI instances is
# refused naming the kernel it needs. Speaks TAP.

# shellcheck source=tests/integration/lib.sh
. "$(dirname "$(readlink -f "$0")")/lib.sh"
# shellcheck source=tests/integration/stats.sh
. "$LIB_DIR/stats.sh"

CORE=proc/sys/net/core
MOVE_TIMEOUT=10

make_explain_policy() {
        mkdir -p "$PROFILES"
        # Line numbers matter: the test expects busy-poll at line 5 of the base and busy-read at line 5 here.
        cat >"$PROFILES/itest-explain-base.conf" <<'EOP'
[profile]
description = integration test: the included profile
[knobs]
netdev-budget = 600
busy-poll = 50us
dev-weight = 128
EOP
        cat >"$PROFILES/itest-explain.conf" <<'EOP'
[profile]
description = integration test: explain
include = itest-explain-base
[knobs]
busy-read = 50us
[adaptive]
enabled = yes
runqueue-threshold = 0.5
hold = 2
min-dwell = 100ms
busy-poll-floor = 0us
EOP
        printf '[daemon]\nprofile = itest-explain\ninterval = 20ms\n' >"$CONF"
}

explain_has() { # KNOB TEXT: netpollctl explain KNOB prints TEXT
        ctl explain "$1"
        [ "$RC" = 0 ] && [[ $OUT == *"$2"* ]]
}

value_origin_is() { [ "$(get_value_origin "$1")" == "$2" ]; }

# The wish rows of explain's table in $OUT as "LAYER VALUE FROM WINS" lines (columns are 2+ spaces apart).
wish_rows() {
        awk -F '  +' '/^Wishes/ { on = 1; next } on && /^$/ { on = 0 } on && $1 != "TARGET" { print $2, $3, $4, $5 }' <<<"$OUT"
}

case_profile_file_line() {
        need_daemon || return
        ctl explain busy-poll
        expect_rc 0
        expect_contains "explain busy-poll" "$OUT" "busy-poll: 50us"
        expect_eq "busy-poll's wishes" "$(wish_rows)" "profile 50us $PROFILES/itest-explain-base.conf:5 yes"
        ctl explain busy-read
        expect_rc 0
        expect_eq "busy-read's wishes" "$(wish_rows)" "profile 50us $PROFILES/itest-explain.conf:5 yes"
        # The journal holds the fixture's 0 and stop writes it back.
        expect_contains "explain busy-read" "$OUT" "writes 0us (the original)"
        expect_contains "explain busy-read" "$OUT" "Kernel: yes"
}

case_manual_wins() {
        need_daemon || return
        ctl set busy-read 20us
        expect_rc 0
        ctl explain busy-read
        expect_rc 0
        expect_contains "explain busy-read after set" "$OUT" "busy-read: 20us"
        expect_contains "explain busy-read after set" "$OUT" "(manual)"
        expect_eq "busy-read's wishes after set" "$(wish_rows)" \
                "manual 20us netpollctl set yes"$'\n'"profile 50us $PROFILES/itest-explain.conf:5 no"
        ctl reset busy-read
        expect_rc 0
        expect_eq "busy-read's wishes after reset" "$(explain_has busy-read "" && wish_rows)" \
                "profile 50us $PROFILES/itest-explain.conf:5 yes"
}

case_adaptive_decision() {
        need_daemon || return
        stat_load psi
        wait_for "$MOVE_TIMEOUT" value_origin_is busy-poll "0us adaptive" ||
                fail "busy-poll did not yield under CPU pressure: $(get_value_origin busy-poll)" "$(tail -n 8 "$LOG")"
        stat_load
        wait_for "$MOVE_TIMEOUT" value_origin_is busy-poll "50us adaptive" ||
                fail "busy-poll did not come back: $(get_value_origin busy-poll)"
        ctl explain busy-poll
        expect_rc 0
        local yield
        yield=$(grep -E '^  busy-poll 50us -> 0us at [0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}: runnable [0-9.]+ > 0\.5 for 2 samples' <<<"$OUT")
        [ -n "$yield" ] || fail "no yield decision with its signal and threshold in explain busy-poll:" "$OUT"
        expect_contains "explain busy-poll after the load" "$OUT" "busy polling restored"
        # The controller's wish names its last reason; the profile's stays below it.
        expect_contains "controller wish" "$(wish_rows)" "controller 50us"
        expect_contains "profile wish" "$(wish_rows)" "profile 50us $PROFILES/itest-explain-base.conf:5"
        # A knob the controller never moved lists no decisions.
        ctl explain dev-weight
        expect_contains "explain dev-weight" "$OUT" "Controller decisions (the last 0 kept):"
}

case_outside_change() {
        need_daemon || return
        printf '77\n' >"$ROOT/$CORE/dev_weight"
        wait_for 6 explain_has dev-weight "Outside change: dev-weight was 128" ||
                fail "explain dev-weight shows no outside change within 6 s:" "$OUT"
        expect_contains "explain dev-weight" "$OUT" "found 77"
        expect_contains "explain dev-weight" "$OUT" "(external)"
        expect_contains "explain dev-weight" "$OUT" "leaves it (changed outside netpolld)"
        # The profile still wishes, but nobody wins over somebody else's value.
        expect_eq "dev-weight's wishes" "$(wish_rows)" "profile 128 $PROFILES/itest-explain-base.conf:6 no"
        ctl reset dev-weight
        expect_rc 0
}

case_refused() {
        need_daemon || return
        ctl explain no-such-knob
        expect_rc 2
        expect_contains "explain no-such-knob" "$ERR" "unknown knob 'no-such-knob'"
        gdbus_call Explain no-such-knob
        expect_contains "Explain(no-such-knob)" "$ERR" "org.netpolld1.Error.UnknownKnob"
        gdbus_call Explain gro-flush-timeout@nodev0
        expect_contains "Explain(gro-flush-timeout@nodev0)" "$ERR" "org.netpolld1.Error.NoSuchDevice"
        gdbus_call Explain busy-read@veth0
        [ "$RC" != 0 ] || fail "Explain(busy-read@veth0) succeeded: $OUT"
        ctl explain
        expect_rc 2
        # Unsupported: explained, with the patch that adds it.
        ctl explain softirq-budget
        expect_rc 0
        expect_contains "explain softirq-budget" "$OUT" "Kernel: no, needs "
        expect_contains "explain softirq-budget" "$OUT" ".patch"
}

case_unprivileged() {
        need_daemon || return
        run setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all --bounding-set=-all \
                "$NETPOLLCTL" explain busy-poll
        expect_rc 0
        expect_contains "explain as uid 65534" "$OUT" "busy-poll:"
}

case_json() {
        need_daemon || return
        local k errors
        for k in busy-poll busy-read softirq-budget rps-cpus@veth0; do
                ctl --json explain "$k"
                expect_rc 0
                errors=$(python3 "$LIB_DIR/json-validate.py" "$NETPOLLD_SOURCE_ROOT/docs/schema/netpollctl-explain.v1.json" \
                        <<<"$OUT" 2>&1) || fail "explain $k: output does not match netpollctl-explain.v1.json:" "$errors" "$OUT"
        done
        ctl --json explain busy-poll
        python3 -c 'import json, sys
o = json.load(sys.stdin)
assert o["schema"] == "netpolld.explain/1", o["schema"]
assert o["decisions"] and o["decisions"][0]["old"] == "50us", o["decisions"]
assert any(w["wins"] for w in o["wishes"]), o["wishes"]
assert o["values"][0]["original"] == "0us", o["values"]' <<<"$OUT" 2>&1 || fail "explain busy-poll JSON content:" "$OUT"
}

case_stop_restores() {
        need_daemon || return
        stop_daemon TERM
        expect_eq "exit status on SIGTERM" "$DAEMON_RC" 0
        expect_file $CORE/busy_read 0
        expect_file $CORE/busy_poll 0
        expect_file $CORE/netdev_budget 300
}

# A profile directory whose name has a byte that is not UTF-8 and a control
# character: sd-bus refuses such strings, so status and explain printed only
# "Invalid argument"; the daemon sends them escaped (\xNN) instead.
case_odd_profile_dir() {
        local odd=$TMP/odd$'\xff'$'\x01'dir shown=$TMP/odd'\xff\x01'dir
        mkdir -p "$odd" && cp "$PROFILES"/itest-explain*.conf "$odd"/ || { fail "cannot make $odd"; return; }
        PROFILES=$odd
        start_daemon || return
        ctl status
        expect_rc 0
        expect_contains "status" "$OUT" "Profile: itest-explain ($shown/itest-explain.conf)"
        ctl explain busy-read
        expect_rc 0
        expect_eq "busy-read's wishes" "$(wish_rows)" "profile 50us $shown/itest-explain.conf:5 yes"
        gdbus_call ShowProfile itest-explain
        expect_rc 0
        expect_contains "ShowProfile" "$OUT" "odd\\\\xff\\\\x01dir/itest-explain.conf"
        stop_daemon TERM
        expect_eq "exit status on SIGTERM" "$DAEMON_RC" 0
}

# ---------------------------------------------------------------- steered values, real kernel

# A second netpolld inside a network namespace of the test's own, on the real
# kernel (sysroot /): ip netns exec mounts a sysfs of that namespace, so it
# sees and steers only the veth pair made there. Deleting the namespace
# removes the pair.
NS=npde-$$
DEV=npde$$a
PEER=npde$$b

case_netns_daemon() {
        command -v ip >/dev/null && command -v ethtool >/dev/null || { skip "needs ip and ethtool"; return; }
        ip netns add "$NS" || { fail "cannot create network namespace $NS"; return; }
        veth_pair "$DEV" "$NS" "$PEER" "$NS" || { fail "cannot create the veth pair $DEV/$PEER in $NS"; return; }
        RPS0=$(ip netns exec "$NS" cat "/sys/class/net/$DEV/queues/rx-0/rps_cpus")
        printf '[profile]\ndescription = integration test: steer the test veth only\n[irq]\ndevices = %s\n' "$DEV" \
                >"$PROFILES/itest-explain-steer.conf"
        printf '[profile]\ndescription = integration test: nothing\n' >"$PROFILES/itest-explain-none.conf"
        printf '[daemon]\nprofile = itest-explain-none\n' >"$CONF"
        ROOT=/
        STATE=$TMP/state-netns
        DAEMON_WRAPPER=(ip netns exec "$NS")
        start_daemon
}

queues_applied() {
        "$NETPOLLCTL" irq 2>/dev/null | awk -v d="$DEV" '$1 == d && $2 == "rx-0" { print $NF }' | grep -qx applied
}

# Every name KnobChanged and ListIrqs give a steered value is one explain takes.
case_explain_steered_names() {
        need_daemon || return
        local sig=$TMP/signals-steer names= n
        start_gdbus_monitor "$sig" || true
        ctl profile set itest-explain-steer
        expect_rc 0
        wait_for 10 queues_applied || fail "$DEV was not steered:" "$("$NETPOLLCTL" irq 2>&1)"
        if [ -n "$GMON_PID" ]; then
                expect_signal "$sig" "KnobChanged ('rps-cpus@$DEV:rx-0'"
                names=$(grep -o "KnobChanged ('[^']*'" "$sig" | cut -d"'" -f2)
        fi
        # ListIrqs' rows name the device and queue that the steered values are named for.
        ctl --json irq
        names+=$'\n'$(python3 -c 'import json, sys
for r in json.load(sys.stdin):
    if r["device"] == sys.argv[1]:
        print("%s@%s:%s" % ("rps-cpus" if r["queue"].startswith("rx") else "xps-cpus", r["device"], r["queue"]))' \
                "$DEV" <<<"$OUT")
        expect_contains "names seen" "$names" "rps-cpus@$DEV:rx-0"
        expect_contains "names seen" "$names" "xps-cpus@$DEV:tx-0"
        for n in $(sort -u <<<"$names"); do
                ctl explain "$n"
                expect_rc 0
                expect_contains "explain $n" "$OUT" "$n: "
                expect_contains "explain $n" "$OUT" "steering"
        done
        # Before netpolld holds it: the queue's own value, as found.
        ctl explain "rps-cpus@$PEER:rx-0"
        expect_rc 0
        expect_contains "explain rps-cpus@$PEER:rx-0" "$OUT" "rps-cpus@$PEER:rx-0: none (default)"
        gdbus_call Explain "rps-cpus@$DEV:rx-9"
        expect_contains "Explain of a queue the device lacks" "$ERR" "org.netpolld1.Error.NoSuchDevice"
        expect_contains "Explain of a queue the device lacks" "$ERR" "has no such queue"
        [ -n "$GMON_PID" ] && kill_and_wait "$GMON_PID"
        return 0
}

# napi-threaded@DEV busy-poll where netlink lists no NAPI instance of DEV (a
# veth with GRO off: the device's threaded file is the knob's file): refused
# naming the kernel busy-poll needs, never the file's errno or the internal
# number, and nothing changes.
case_threaded_busy_poll_device_file() {
        need_daemon || return
        local dev=npde$$c before
        ip -n "$NS" link add "$dev" type veth peer name "npde$$d" && ip -n "$NS" link set "$dev" up &&
                ip -n "$NS" link set "npde$$d" up && ip netns exec "$NS" ethtool -K "$dev" gro off >/dev/null ||
                { fail "cannot create the veth pair $dev/npde$$d with GRO off in $NS"; return; }
        before=$(ip netns exec "$NS" cat "/sys/class/net/$dev/threaded")
        ctl set "napi-threaded@$dev" busy-poll
        expect_rc 1
        expect_contains "busy-poll refused" "$ERR" "busy-poll needs Linux after 6.18"
        expect_not_contains "busy-poll refused" "$ERR" "writing 2"
        expect_not_contains "busy-poll refused" "$ERR" "Operation not supported"
        expect_eq "$dev's threaded file after the refusal" \
                "$(ip netns exec "$NS" cat "/sys/class/net/$dev/threaded")" "$before"
        ctl get "napi-threaded@$dev"
        expect_contains "napi-threaded@$dev after the refusal" "$OUT" "default"
        grep -q "napi-threaded@$dev" "$STATE/restore.journal" 2>/dev/null &&
                fail "the refused value was journaled:" "$(cat "$STATE/restore.journal")"
        return 0
}

case_netns_restores() {
        need_daemon || return
        stop_daemon TERM
        expect_eq "exit status on SIGTERM" "$DAEMON_RC" 0
        expect_eq "$DEV rx-0 rps_cpus after the stop" \
                "$(ip netns exec "$NS" cat "/sys/class/net/$DEV/queues/rx-0/rps_cpus")" "$RPS0"
}

require_root_and_tools
setup_tmp
# The daemon (stopped by cleanup) first, then the namespace with the veth pair.
trap 'cleanup; ip netns del "$NS" 2>/dev/null' EXIT
make_explain_policy
start_bus
make_fixture
stat_init 2
# uid 65534 must be able to run the client
chmod -R a+rX "$TMP"
start_stat_driver
# shellcheck disable=SC2119  # no extra options: the configured daemon
start_daemon || { echo "Bail out! netpolld did not start"; printf '%s' "$CASE_DIAG"; exit 1; }

run_case "explain names the profile FILE:LINE (through an include) and the journal's original" case_profile_file_line
run_case "after netpollctl set, manual wins and the profile's wish is listed below it" case_manual_wins
run_case "an adaptive move is listed with the signal and threshold behind it" case_adaptive_decision
run_case "an outside write is shown with what netpolld had left there" case_outside_change
run_case "an unknown knob or device is refused with its error name; an unsupported knob names its patch" case_refused
run_case "uid 65534 may explain" case_unprivileged
run_case "--json validates against docs/schema/netpollctl-explain.v1.json" case_json
run_case "SIGTERM restores the fixture" case_stop_restores
run_case "a profile directory with a non-UTF-8 byte and a control character is shown escaped" case_odd_profile_dir
run_case "a netpolld in a network namespace with a veth pair of the test's own" case_netns_daemon
run_case "every name KnobChanged and ListIrqs give a steered value is explained" case_explain_steered_names
run_case "napi-threaded@DEV busy-poll on the device file is refused by the kernel it needs, changing nothing" \
        case_threaded_busy_poll_device_file
run_case "SIGTERM restores the veth's queues" case_netns_restores
tap_done
