#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# test-knobs.sh: integration tests of one running netpolld driven by
# netpollctl and busctl on a private bus: profile application, set/get/reset,
# error codes and messages, profile switch, reload, authorization,
# introspection, monitor and changes made behind netpolld's back. Speaks TAP.
# The cases run in order against the same daemon; each states the values it
# expects, so a failure names the first wrong value.

# shellcheck source=tests/integration/lib.sh
. "$(dirname "$(readlink -f "$0")")/lib.sh"

CORE=proc/sys/net/core
VETH=sys/class/net/veth0

case_start_applies_profile() {
        need_daemon || return
        expect_file $CORE/busy_read 50
        expect_file $CORE/busy_poll 50
        expect_file $CORE/netdev_budget 600
        expect_file $VETH/gro_flush_timeout 20000
        # knobs the profile does not set are untouched
        expect_file $CORE/netdev_budget_usecs 8000
        expect_file $CORE/dev_weight 64
        expect_file $VETH/napi_defer_hard_irqs 0
        expect_eq "get busy-read" "$(get_value_origin busy-read)" "50us profile"
        expect_eq "get gro-flush-timeout@veth0" "$(get_value_origin gro-flush-timeout@veth0)" "20000ns profile"
        expect_eq "get dev-weight" "$(get_value_origin dev-weight)" "64 default"
        busctl_ get-property org.netpolld1 /org/netpolld1 org.netpolld1.Manager ActiveProfile
        expect_eq "ActiveProfile" "$OUT" 's "itest-latency"'
        [ -e "$STATE/restore.journal" ] || fail "no restore.journal in the state dir after applying the profile"
}

case_set_get() {
        need_daemon || return
        ctl set busy-read 2ms
        expect_rc 0
        expect_eq "set output" "$OUT" "busy-read set to 2000us"
        expect_file $CORE/busy_read 2000
        expect_eq "get busy-read" "$(get_value_origin busy-read)" "2000us manual"

        ctl --json get busy-read
        expect_rc 0
        local v
        v=$(python3 -c 'import json, sys
d = json.load(sys.stdin)
print(d[0]["name"], d[0]["value"], d[0]["origin"])' <<<"$OUT" 2>&1)
        expect_eq "--json get busy-read" "$v" "busy-read 2000us manual"

        ctl set gro-flush-timeout@veth0 1.5us
        expect_rc 0
        expect_file $VETH/gro_flush_timeout 1500
        expect_eq "get gro-flush-timeout@veth0" "$(get_value_origin gro-flush-timeout@veth0)" "1500ns manual"

        ctl set busy-poll 70 netdev-budget 500
        expect_rc 0
        expect_eq "two-pair set output" "$OUT" $'busy-poll set to 70us\nnetdev-budget set to 500'
        expect_file $CORE/busy_poll 70
        expect_file $CORE/netdev_budget 500

        # a knob the profile does not set
        ctl set dev-weight 128
        expect_rc 0
        expect_file $CORE/dev_weight 128
}

case_reset() {
        need_daemon || return
        ctl reset busy-read
        expect_rc 0
        expect_eq "reset output" "$OUT" "busy-read reset to 50us"
        expect_file $CORE/busy_read 50
        expect_eq "get busy-read" "$(get_value_origin busy-read)" "50us profile"

        # not in the profile: back to the value before netpolld changed it
        ctl reset dev-weight
        expect_rc 0
        expect_file $CORE/dev_weight 64
        expect_eq "get dev-weight" "$(get_value_origin dev-weight)" "64 default"
}

# expect_refused RC NEEDLE... -- ARGS...: "netpollctl ARGS" exits RC, stderr names every NEEDLE, no file changes.
expect_refused() {
        local rc=$1 needles=() n
        shift
        while [ "$1" != "--" ]; do
                needles+=("$1")
                shift
        done
        shift
        snapshot before-refused
        ctl "$@"
        expect_rc "$rc"
        for n in "${needles[@]}"; do
                expect_contains "stderr of 'netpollctl $*'" "$ERR" "$n"
        done
        expect_tree_bytes "after 'netpollctl $*'" "$TMP/before-refused"
}

case_bad_requests() {
        need_daemon || return
        expect_refused 2 busy-read 5x expected -- set busy-read 5x
        expect_refused 2 no-such-knob "netpollctl list" -- set no-such-knob 1
        expect_refused 1 softirq-budget kernel-patches/ -- set softirq-budget 2ms
        expect_refused 1 gro-flush-timeout@veth9 veth9 -- set gro-flush-timeout@veth9 10us
        # "--": a value starting with '-' would be taken for an option
        expect_refused 2 busy-read "expected" -- set -- busy-read -5
        expect_refused 2 "busy-read@veth0" -- set busy-read@veth0 5
        expect_refused 2 no-such-knob -- get no-such-knob
        expect_refused 2 no-such-knob -- reset no-such-knob
}

case_set_all_or_nothing() {
        need_daemon || return
        expect_refused 2 "KNOB VALUE" -- set busy-read
        expect_refused 2 busy-poll -- set busy-read 10 busy-poll
        # second pair invalid: the first is not applied either
        expect_refused 2 busy-read 5x -- set busy-poll 99 busy-read 5x
        expect_refused 1 softirq-budget -- set netdev-budget 999 softirq-budget 2ms
        expect_refused 2 no-such-knob -- set busy-poll 99 no-such-knob 1
        expect_file $CORE/busy_poll 70
}

case_softirq_budget_any_hz() {
        need_daemon || return
        # A kernel with patch 0002 bounds softirq runs by its clock: softirq_budget_usecs
        # reads 2000 and takes 100..100000 at any HZ, below one jiffy too. The fixture
        # file stands in for it (it checks nothing itself): the refusals are netpolld's.
        local k=proc/sys/kernel/softirq_budget_usecs
        printf '2000\n' >"$ROOT/$k"
        ctl set softirq-budget 2ms
        expect_rc 0
        expect_eq "set output" "$OUT" "softirq-budget set to 2000us"
        expect_file $k 2000
        ctl set softirq-budget 500us
        expect_rc 0
        expect_eq "set output" "$OUT" "softirq-budget set to 500us"
        expect_file $k 500
        expect_eq "get softirq-budget" "$(get_value_origin softirq-budget)" "500us manual"
        expect_refused 2 "softirq-budget: invalid value '99us': out of range" "from 100us to 100000us" \
                -- set softirq-budget 99us
        expect_refused 2 "softirq-budget: invalid value '100001us': out of range" "from 100us to 100000us" \
                -- set softirq-budget 100001us
        ctl reset softirq-budget
        expect_rc 0
        expect_file $k 2000
        rm -f "$ROOT/$k"
}

case_set_kernel_refusal_rolls_back() {
        need_daemon || return
        # A directory where the file should be makes the write fail (EISDIR)
        # after the first pair was written: that pair must be put back.
        local f=$ROOT/$CORE/netdev_budget_usecs
        snapshot before-refusal
        rm -f "$f" && mkdir "$f"
        ctl set busy-poll 88 netdev-budget-time 9000
        expect_rc 1
        expect_contains "stderr" "$ERR" "netdev-budget-time"
        rmdir "$f" && printf '8000\n' >"$f"
        expect_file $CORE/busy_poll 70
        expect_eq "get busy-poll" "$(get_value_origin busy-poll)" "70us manual"
        expect_tree_values "after the refused set" "$TMP/before-refusal"
}

case_queue_knob_bad_queue_puts_back() {
        need_daemon || return
        # rx-1's rps_cpus is a directory: rx-0 (written first) must be put back,
        # and the error must name the file that was wrong.
        local q=$ROOT/$VETH/queues/rx-1
        mkdir -p "$q/rps_cpus"
        snapshot before-queues
        ctl set rps-cpus@veth0 1
        expect_rc 1
        expect_contains "stderr" "$ERR" "/$VETH/queues/rx-1/rps_cpus"
        expect_contains "stderr" "$ERR" "is a directory"
        expect_tree_bytes "after the failed set" "$TMP/before-queues"
        rm -rf "$q"
        expect_eq "get rps-cpus@veth0" "$(get_value_origin rps-cpus@veth0)" "none default"
}

case_profile_switch() {
        need_daemon || return
        local sig=$TMP/signals-switch
        start_gdbus_monitor "$sig"
        ctl profile set itest-budget
        expect_rc 0
        expect_file $CORE/netdev_budget 450
        if [ -n "$GMON_PID" ]; then
                expect_signal "$sig" "KnobChanged ('netdev-budget', '500', '450', 'profile')"
                expect_signal "$sig" "KnobChanged ('busy-read', '50us', '0us', 'reset')"
                expect_signal "$sig" "KnobChanged ('busy-poll', '70us', '0us', 'reset')"
                expect_signal "$sig" "KnobChanged ('gro-flush-timeout@veth0', '1500ns', '0ns', 'reset')"
                expect_signal "$sig" "'ActiveProfile': <'itest-budget'>"
                kill_and_wait "$GMON_PID"
        fi
        # everything else back to the original values, manual ones included
        local expected=$TMP/expected-budget
        rm -rf "$expected" && cp -a "$SNAP" "$expected"
        printf '450\n' >"$expected/$CORE/netdev_budget"
        expect_tree_values "after profile set itest-budget" "$expected"
        busctl_ get-property org.netpolld1 /org/netpolld1 org.netpolld1.Manager ActiveProfile
        expect_eq "ActiveProfile" "$OUT" 's "itest-budget"'
        expect_eq "get busy-poll" "$(get_value_origin busy-poll)" "0us default"
        expect_eq "get netdev-budget" "$(get_value_origin netdev-budget)" "450 profile"
        ctl profile list
        expect_rc 0
        expect_eq "active mark in profile list" "$(awk '$1 == "*" { print $2 }' <<<"$OUT")" "itest-budget"

        expect_refused 2 no-such-profile -- profile set no-such-profile
}

log_count_above() { [ "$(grep -cF -- "$1" "$LOG")" -gt "$2" ]; }

case_reload_refuses_broken_files() {
        need_daemon || return
        local good_conf good_profile
        good_conf=$(cat "$CONF")
        good_profile=$(cat "$PROFILES/itest-budget.conf")
        snapshot before-hup

        printf '[daemon]\nthis is not a key value line\n' >"$CONF"
        kill -HUP "$DAEMON_PID"
        wait_for 5 log_has "reload refused" || fail "no 'reload refused' in the log within 5 s after SIGHUP with a broken netpolld.conf"
        sleep 0.2
        daemon_alive || { fail "netpolld died on SIGHUP with a broken netpolld.conf:" "$(tail -n 20 "$LOG")"; return; }
        expect_tree_bytes "after the refused SIGHUP" "$TMP/before-hup"
        ctl reload
        expect_rc 1
        expect_contains "reload with a broken netpolld.conf" "$ERR" "$CONF:2"
        printf '%s\n' "$good_conf" >"$CONF"

        local before
        before=$(grep -c "reload refused" "$LOG")
        printf '[profile]\n[knobs]\nnetdev-budget = lots\n' >"$PROFILES/itest-budget.conf"
        kill -HUP "$DAEMON_PID"
        wait_for 5 log_count_above "reload refused" "$before" ||
                fail "no second 'reload refused' in the log after SIGHUP with a broken profile"
        daemon_alive || { fail "netpolld died on SIGHUP with a broken profile"; return; }
        expect_tree_bytes "after SIGHUP with a broken profile" "$TMP/before-hup"
        ctl reload
        expect_rc 1
        expect_contains "reload with a broken profile" "$ERR" "itest-budget.conf:3"

        # fixed, with a new value: reload applies it and keeps the profile chosen at run time
        printf '%s\n' "$good_profile" | sed 's/^netdev-budget = 450$/netdev-budget = 460/' \
                >"$PROFILES/itest-budget.conf"
        ctl reload
        expect_rc 0
        expect_file $CORE/netdev_budget 460
        busctl_ get-property org.netpolld1 /org/netpolld1 org.netpolld1.Manager ActiveProfile
        expect_eq "ActiveProfile after reload" "$OUT" 's "itest-budget"'
}

case_unprivileged_caller() {
        need_daemon || return
        local asnobody=(setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all --bounding-set=-all)
        snapshot before-unpriv
        run "${asnobody[@]}" "$NETPOLLCTL" get busy-read
        expect_rc 0
        expect_contains "unprivileged get" "$OUT" "busy-read"
        run "${asnobody[@]}" "$NETPOLLCTL" list
        expect_rc 0
        local args
        for args in "set busy-read 10" "reset netdev-budget" "profile set itest-latency" "reload"; do
                # shellcheck disable=SC2086
                run "${asnobody[@]}" "$NETPOLLCTL" $args
                expect_rc 1
                expect_contains "unprivileged $args" "$ERR" "permission denied"
        done
        run "${asnobody[@]}" busctl --address="$NETPOLLD_BUS_ADDRESS" call org.netpolld1 /org/netpolld1 \
                org.netpolld1.Manager SetKnob ss busy-read 10
        [ "$RC" != 0 ] || fail "unprivileged busctl SetKnob succeeded"
        if command -v gdbus >/dev/null; then
                run "${asnobody[@]}" gdbus call --address "$NETPOLLD_BUS_ADDRESS" --dest org.netpolld1 \
                        --object-path /org/netpolld1 --method org.netpolld1.Manager.SetKnobs "[('busy-read', '10')]"
                expect_contains "unprivileged gdbus SetKnobs" "$ERR" "org.freedesktop.DBus.Error.AccessDenied"
        else
                skip "gdbus missing: the AccessDenied error name of an unprivileged SetKnobs not checked"
        fi
        expect_tree_bytes "after unprivileged calls" "$TMP/before-unpriv"
}

case_cap_net_admin_caller() {
        need_daemon || return
        # dbus-daemon vouches for a caller's uid but transmits no capabilities, and
        # netpolld never trusts capabilities read from /proc afterwards: so on
        # this bus a non-root caller is refused even with CAP_NET_ADMIN.
        run setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all,+net_admin \
                --ambient-caps=+net_admin --bounding-set=-all,+net_admin "$NETPOLLCTL" set dev-weight 96
        expect_rc 1
        expect_contains "CAP_NET_ADMIN caller refused" "$ERR" "permission denied"
        expect_file $CORE/dev_weight 64
}

case_introspection() {
        need_daemon || return
        busctl_ introspect org.netpolld1 /org/netpolld1 org.netpolld1.Manager
        expect_rc 0
        local kind name kind_name
        for kind_name in method:ListKnobs method:GetKnob method:SetKnob method:SetKnobs method:ResetKnob \
                method:ListProfiles method:ShowProfile method:SetProfile method:Reload \
                property:Version property:ActiveProfile property:ActiveProfilePath property:Mode \
                property:DryRun property:Interval property:StateDir property:Sysroot signal:KnobChanged; do
                kind=${kind_name%%:*}
                name=${kind_name#*:}
                awk -v n=".$name" -v k="$kind" '$1 == n && $2 == k { found = 1 } END { exit !found }' <<<"$OUT" ||
                        fail "introspection lacks $kind $name"
        done
        expect_contains "SetKnob signature" "$(awk '$1 == ".SetKnob"' <<<"$OUT")" "ss"
        expect_contains "KnobChanged signature" "$(awk '$1 == ".KnobChanged"' <<<"$OUT")" "ssss"
}

case_busctl_drives_it() {
        need_daemon || return
        busctl_ call org.netpolld1 /org/netpolld1 org.netpolld1.Manager SetKnob ss busy-poll 30
        expect_rc 0
        expect_eq "SetKnob reply" "$OUT" 's "30us"'
        expect_file $CORE/busy_poll 30
        busctl_ call org.netpolld1 /org/netpolld1 org.netpolld1.Manager GetKnob s busy-poll
        expect_eq "GetKnob reply" "$OUT" 'ss "30us" "manual"'
        busctl_ call org.netpolld1 /org/netpolld1 org.netpolld1.Manager SetKnob ss busy-poll 5x
        [ "$RC" != 0 ] || fail "busctl SetKnob busy-poll 5x succeeded"
        busctl_ call org.netpolld1 /org/netpolld1 org.netpolld1.Manager SetKnobs 'a(ss)' 2 busy-poll 31 dev-weight 65
        expect_rc 0
        expect_eq "SetKnobs reply" "$OUT" 'a(ss) 2 "busy-poll" "31us" "dev-weight" "65"'
        busctl_ call org.netpolld1 /org/netpolld1 org.netpolld1.Manager ResetKnob s dev-weight
        expect_eq "ResetKnob reply" "$OUT" 's "64"'
        busctl_ call org.netpolld1 /org/netpolld1 org.netpolld1.Manager SetKnob ss busy-poll 30
        expect_file $CORE/busy_poll 30
}

# gdbus names the error, busctl does not.
case_error_names() {
        need_daemon || return
        command -v gdbus >/dev/null || { skip "gdbus missing: D-Bus error names not checked"; return; }
        local pair
        for pair in "UnknownKnob:no-such-knob 1" "InvalidValue:busy-read 5x" "Unsupported:softirq-budget 2ms" \
                "NoSuchDevice:gro-flush-timeout@veth9 1"; do
                # shellcheck disable=SC2086  # "KNOB VALUE" splits into two arguments
                set -- ${pair#*:}
                run gdbus call --address "$NETPOLLD_BUS_ADDRESS" --dest org.netpolld1 --object-path /org/netpolld1 \
                        --method org.netpolld1.Manager.SetKnob "$1" "$2"
                expect_contains "gdbus SetKnob $1 $2" "$ERR" "org.netpolld1.Error.${pair%%:*}"
        done
        run gdbus call --address "$NETPOLLD_BUS_ADDRESS" --dest org.netpolld1 --object-path /org/netpolld1 \
                --method org.netpolld1.Manager.SetProfile no-such-profile
        expect_contains "gdbus SetProfile no-such-profile" "$ERR" "org.netpolld1.Error.UnknownProfile"
}

monitor_has() { grep -qF -- "$2" "$1"; }

# json_monitor_has FILE NAME OLD NEW: a JSON line of FILE reports that change (OLD "*": any).
json_monitor_has() {
        python3 -c 'import json, sys
for line in open(sys.argv[1]):
    try:
        o = json.loads(line)
    except ValueError:
        continue
    want = sys.argv[2:5]
    if want[1] == "*":
        want[1] = o.get("old")
    if [o.get("name"), o.get("old"), o.get("new")] == want:
        sys.exit(0)
sys.exit(1)' "$@" 2>/dev/null
}

case_monitor() {
        need_daemon || return
        local text=$TMP/monitor.txt json=$TMP/monitor.json i
        "$NETPOLLCTL" monitor >"$text" 2>"$text.err" &
        local text_pid=$!
        STARTED_PIDS+=("$text_pid")
        "$NETPOLLCTL" --json monitor >"$json" 2>"$json.err" &
        local json_pid=$!
        STARTED_PIDS+=("$json_pid")

        # The text monitor prints the knob table once it is subscribed.
        wait_for 10 monitor_has "$text" "busy-poll" ||
                fail "netpollctl monitor printed no knob table:" "$(cat "$text" "$text.err")"
        # The JSON one prints nothing until a change: poke until it has seen one.
        for i in $(seq 40 60); do
                "$NETPOLLCTL" set busy-poll "$i" >/dev/null 2>&1
                wait_for 0.5 json_monitor_has "$json" busy-poll "*" "${i}us" && break
        done
        "$NETPOLLCTL" set busy-poll 30 >/dev/null 2>&1
        "$NETPOLLCTL" set busy-poll 35 >/dev/null 2>&1
        wait_for 5 monitor_has "$text" "busy-poll  30us -> 35us  (manual)" ||
                fail "no KnobChanged line in netpollctl monitor:" "$(cat "$text" "$text.err")"
        wait_for 5 json_monitor_has "$json" busy-poll 30us 35us ||
                fail "no KnobChanged object in netpollctl --json monitor:" "$(cat "$json" "$json.err")"
        local v
        v=$(python3 -c 'import json, sys
for line in sys.stdin:
    o = json.loads(line)
    if o["old"] == "30us" and o["new"] == "35us":
        print(o["name"], o["old"], o["new"], o["reason"], "time" in o)' <"$json" 2>&1)
        expect_eq "JSON monitor line" "$v" "busy-poll 30us 35us manual True"

        # a profile switch reports each change with reason profile / reset
        "$NETPOLLCTL" profile set itest-latency >/dev/null 2>&1
        wait_for 5 monitor_has "$text" "busy-read  0us -> 50us  (profile)" ||
                fail "profile switch not in netpollctl monitor:" "$(cat "$text")"
        wait_for 5 monitor_has "$text" "busy-poll  35us -> 50us  (profile)" ||
                fail "manual busy-poll replaced by the profile not in netpollctl monitor:" "$(cat "$text")"
        kill_and_wait "$text_pid"
        kill_and_wait "$json_pid"
}

value_origin_is() { [ "$(get_value_origin "$1")" == "$2" ]; }

case_external_noticed_unprompted() {
        need_daemon || return
        expect_file $CORE/busy_read 50
        # behind netpolld's back, and no client call afterwards: the periodic check must see it
        local before
        before=$(grep -c "changed outside netpolld" "$LOG")
        printf '12345\n' >"$ROOT/$CORE/busy_read"
        wait_for 5 log_count_above "changed outside netpolld" "$before" ||
                fail "netpolld did not notice the outside change of busy_read within 5 s by itself:" \
                        "$(tail -n 5 "$LOG")"
}

case_external_change() {
        need_daemon || return
        local sig=$TMP/signals-external
        ctl set dev-weight 100
        expect_rc 0
        start_gdbus_monitor "$sig"
        printf '12345\n' >"$ROOT/$CORE/busy_read" # again, in case the previous case failed early
        printf '333\n' >"$ROOT/$CORE/dev_weight"
        wait_for 5 value_origin_is busy-read "12345us external" ||
                fail "busy-read not reported external within 5 s: $(get_value_origin busy-read)"
        # Reads never decide ownership (they change no state): the owner's timer does, every 2 s.
        wait_for 5 value_origin_is dev-weight "333 external" ||
                fail "dev-weight not reported external within 5 s: $(get_value_origin dev-weight)"
        if [ -n "$GMON_PID" ]; then
                expect_signal "$sig" "KnobChanged ('dev-weight', '100', '333', 'external')"
                kill_and_wait "$GMON_PID"
        fi
        # a reload does not fight for them either
        ctl reload
        expect_rc 0
        expect_file $CORE/busy_read 12345

        stop_daemon TERM
        expect_eq "netpolld exit status on SIGTERM" "$DAEMON_RC" 0
        local expected=$TMP/expected-external
        rm -rf "$expected" && cp -a "$SNAP" "$expected"
        printf '12345\n' >"$expected/$CORE/busy_read"
        printf '333\n' >"$expected/$CORE/dev_weight"
        expect_tree_values "after SIGTERM (external values kept, the rest restored)" "$expected"
        [ -e "$STATE/restore.journal" ] && fail "restore.journal left after a clean stop:" "$(cat "$STATE/restore.journal")"
        return 0
}

require_root_and_tools
setup_tmp
make_fixture
make_policy
start_bus
# shellcheck disable=SC2119  # no extra options: the configured daemon
start_daemon || { echo "Bail out! netpolld did not start"; printf '%s' "$CASE_DIAG"; exit 1; }

run_case "start applies the profile's values" case_start_applies_profile
run_case "set and get: units, origin manual, --json, per-device knob, two pairs" case_set_get
run_case "reset hands a knob back to the profile or to its original value" case_reset
run_case "invalid value, unknown knob, unsupported knob, missing device: exit code, message, no change" case_bad_requests
run_case "set is all or nothing: odd argument count, a bad later pair changes nothing" case_set_all_or_nothing
run_case "softirq-budget takes 500us and 2ms, refuses 99us and 100001us naming its range" case_softirq_budget_any_hz
run_case "a pair the kernel refuses puts back the pairs already set" case_set_kernel_refusal_rolls_back
run_case "a queue knob whose second queue's file is odd names it and puts the first back" case_queue_knob_bad_queue_puts_back
run_case "profile set switches profile and restores knobs it does not set" case_profile_switch
run_case "SIGHUP and reload refuse broken files and keep running; fixed files reload" case_reload_refuses_broken_files
run_case "an unprivileged caller may read but not change" case_unprivileged_caller
run_case "a non-root caller with CAP_NET_ADMIN is refused (dbus-daemon carries no capabilities)" case_cap_net_admin_caller
run_case "introspection lists the documented API" case_introspection
run_case "busctl drives SetKnob, GetKnob, SetKnobs, ResetKnob" case_busctl_drives_it
run_case "errors carry the documented D-Bus names" case_error_names
run_case "monitor shows KnobChanged as text and as JSON lines" case_monitor
run_case "netpolld notices a change behind its back by itself within 5 s" case_external_noticed_unprompted
run_case "a value changed behind netpolld's back is external and kept on SIGTERM" case_external_change
tap_done
