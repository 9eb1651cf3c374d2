#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# test-lifecycle.sh: integration tests of netpolld's start and stop on a
# fixture sysroot and a private bus: --check-config, restore on SIGTERM,
# crash recovery from the restore journal after kill -9, --dry-run, and a
# corrupt journal refused at start. Speaks TAP. Each case starts (and stops)
# its own daemon on the fixture as the previous case left it.

# shellcheck source=tests/integration/lib.sh
. "$(dirname "$(readlink -f "$0")")/lib.sh"

CORE=proc/sys/net/core
VETH=sys/class/net/veth0

case_check_config() {
        run "$NETPOLLD" --check-config --sysroot "$ROOT" --config "$CONF" --profile-dir "$PROFILES"
        expect_rc 0
        expect_contains "check-config output" "$OUT$ERR" "itest-latency"
        expect_tree_bytes "after --check-config" "$SNAP"

        local bad=$TMP/bad-profiles
        mkdir -p "$bad"
        printf '[profile]\ndescription = broken\n[knobs]\nbusy-read = 5x\n' >"$bad/itest-latency.conf"
        run "$NETPOLLD" --check-config --sysroot "$ROOT" --config "$CONF" --profile-dir "$bad"
        expect_rc 1
        expect_contains "check-config on a broken profile" "$ERR$OUT" "$bad/itest-latency.conf:4"
        expect_contains "check-config on a broken profile" "$ERR$OUT" "busy-read"

        printf '[daemon]\nprofile = itest-latency\nrollback = sometimes\n' >"$TMP/bad.conf"
        run "$NETPOLLD" --check-config --sysroot "$ROOT" --config "$TMP/bad.conf" --profile-dir "$PROFILES"
        expect_rc 1
        expect_contains "check-config on a broken netpolld.conf" "$ERR$OUT" "$TMP/bad.conf:3"
        expect_tree_bytes "after the refused --check-config runs" "$SNAP"
}

case_sigterm_restores() {
        start_daemon || return
        expect_file $CORE/busy_read 50
        ctl set busy-read 3ms dev-weight 128 napi-defer-hard-irqs@veth0 2
        expect_rc 0
        expect_file $CORE/dev_weight 128
        [ -e "$STATE/restore.journal" ] || fail "no restore.journal while values are changed"
        stop_daemon TERM
        expect_eq "netpolld exit status on SIGTERM" "$DAEMON_RC" 0
        expect_tree_values "after SIGTERM" "$SNAP"
        [ -e "$STATE/restore.journal" ] && fail "restore.journal left after a clean stop:" "$(cat "$STATE/restore.journal")"
        return 0
}

case_reload_keeps_the_state_dir() {
        local other=$TMP/state-other
        printf '[daemon]\nprofile = itest-latency\nstate-dir = %s\n' "$STATE" >"$CONF"
        STATE_FROM_CONFIG=1 start_daemon || { write_config itest-latency; return; }
        ctl set dev-weight 128
        expect_rc 0
        printf '[daemon]\nprofile = itest-latency\nstate-dir = %s\n' "$other" >"$CONF"
        ctl reload
        expect_rc 0
        expect_eq "StateDir after a reload that changed state-dir" "$(get_prop StateDir)" "s \"$STATE\""
        log_has "state-dir $other takes effect at the next start: the restore journal stays in $STATE" ||
                fail "the reload did not say where the journal stays:" "$(tail -n 5 "$LOG")"
        ctl set netdev-budget 450
        expect_rc 0
        grep -q "netdev_budget" "$STATE/restore.journal" 2>/dev/null ||
                fail "the change after the reload is not journaled in $STATE:" "$(cat "$STATE/restore.journal" 2>/dev/null)"
        [ -e "$other" ] && fail "$other was created: the journal moved"
        stop_daemon TERM
        expect_eq "netpolld exit status on SIGTERM" "$DAEMON_RC" 0
        expect_tree_values "after SIGTERM" "$SNAP"
        write_config itest-latency
}

case_restore_is_byte_exact() {
        # Kernel files read back with a trailing newline whatever was written;
        # a fixture only does if netpolld writes the original bytes back.
        expect_tree_bytes "after SIGTERM" "$SNAP"
}

case_crash_recovery() {
        start_daemon || return
        ctl set busy-read 3ms dev-weight 128
        expect_rc 0
        expect_file $CORE/busy_read 3000
        expect_file $CORE/dev_weight 128
        stop_daemon KILL
        [ -e "$STATE/restore.journal" ] || { fail "no restore.journal after kill -9"; return; }
        local j
        j=$(cat "$STATE/restore.journal")
        expect_contains "journal" "$j" "/$CORE/busy_read"
        expect_contains "journal" "$j" "/$CORE/dev_weight"
        expect_contains "journal" "$j" "/$VETH/gro_flush_timeout"
        # the values stay as they were when netpolld died
        expect_file $CORE/dev_weight 128

        start_daemon || return
        log_has "did not stop cleanly" || fail "the restart did not log the crash recovery:" "$(tail -n 20 "$LOG")"
        # journal replayed first (dev-weight is not in the profile: back to 64),
        # then the profile applied again (busy-read 50, not 0 nor 3000)
        expect_file $CORE/dev_weight 64
        expect_file $CORE/busy_read 50
        expect_file $VETH/gro_flush_timeout 20000
        expect_eq "get dev-weight" "$(get_value_origin dev-weight)" "64 default"
        expect_eq "get busy-read" "$(get_value_origin busy-read)" "50us profile"
        stop_daemon TERM
        expect_eq "netpolld exit status on SIGTERM" "$DAEMON_RC" 0
        expect_tree_values "after SIGTERM following the recovery" "$SNAP"
        [ -e "$STATE/restore.journal" ] && fail "restore.journal left after a clean stop:" "$(cat "$STATE/restore.journal")"
        return 0
}

# The irqbalance-ban drop-in a crashed run left (journal entry and file)
# is removed by the replay at the next start; below a fixture sysroot
# systemd is not asked to reload (the log says so).
case_crash_replay_removes_irqbalance_dropin() {
        local dropin=run/systemd/system/irqbalance.service.d/50-netpolld.conf
        mkdir -p "$STATE" "$ROOT/${dropin%/*}"
        printf '[Service]\nExecStart=\nExecStart=/usr/sbin/irqbalance --foreground $IRQBALANCE_ARGS --banirq=99\n' \
                >"$ROOT/$dropin"
        printf 'netpolld-journal 2\ndropin\tirqbalance-ban\t-\t0\t/%s\tabsent\nend 1\n' "$dropin" \
                >"$STATE/restore.journal"
        start_daemon || { rm -rf "$ROOT/run" "$STATE/restore.journal"; return; }
        log_has "did not stop cleanly" || fail "the start did not replay the journal:" "$(tail -n 20 "$LOG")"
        [ -e "$ROOT/$dropin" ] && fail "the stale drop-in is still there after the replay"
        log_has "irqbalance-ban: removed /$dropin" || fail "the replay did not log the removal:" "$(tail -n 20 "$LOG")"
        log_has "systemd is not asked" || fail "no word that systemd was not asked:" "$(tail -n 20 "$LOG")"
        stop_daemon TERM
        expect_eq "netpolld exit status on SIGTERM" "$DAEMON_RC" 0
        [ -e "$STATE/restore.journal" ] && fail "restore.journal left after a clean stop:" "$(cat "$STATE/restore.journal")"
        rm -rf "$ROOT/run"
        return 0
}

# A device's value is journaled by the device's identity, not only its name:
# netpolld is killed, the device goes away and a new one takes its name (a
# new ifindex); the next start drops the old device's entry instead of writing
# its original onto the new device.
case_replaced_device_not_restored_onto() {
        make_fixture
        start_daemon || return
        ctl set gro-flush-timeout@veth0 7us
        expect_rc 0
        expect_file $VETH/gro_flush_timeout 7000
        stop_daemon KILL
        expect_contains "journal" "$(cat "$STATE/restore.journal" 2>/dev/null)" "/$VETH/gro_flush_timeout"
        # veth0 is deleted and a new veth0 appears, with its own value.
        printf '6\n' >"$ROOT/$VETH/ifindex"
        printf '4242\n' >"$ROOT/$VETH/gro_flush_timeout"
        start_daemon --profile itest-budget || return
        expect_file $VETH/gro_flush_timeout 4242
        log_has "veth0 is gone or was replaced" || fail "no log line for the dropped entry" "$(tail -n 10 "$LOG")"
        stop_daemon TERM
        expect_file $VETH/gro_flush_timeout 4242
        make_fixture
}

case_dry_run() {
        local before
        make_fixture # byte-exact start, whatever earlier cases wrote back
        before=$(grep -c "dry-run: would set" "$LOG")
        start_daemon --dry-run || return
        expect_tree_bytes "after start with --dry-run" "$SNAP"
        busctl_ get-property org.netpolld1 /org/netpolld1 org.netpolld1.Manager DryRun
        expect_eq "DryRun property" "$OUT" "b true"
        ctl set busy-read 2ms
        expect_rc 0
        expect_tree_bytes "after a set with --dry-run" "$SNAP"
        [ "$(grep -c "dry-run: would set" "$LOG")" -gt "$before" ] ||
                fail "no 'dry-run: would set' in the log:" "$(tail -n 20 "$LOG")"
        grep -F "dry-run: would set" "$LOG" | grep -q "busy-read" ||
                fail "the dry-run lines do not name busy-read"
        stop_daemon TERM
        expect_eq "netpolld exit status on SIGTERM" "$DAEMON_RC" 0
        expect_tree_bytes "after SIGTERM with --dry-run" "$SNAP"
        [ -e "$STATE/restore.journal" ] && fail "--dry-run left a restore.journal:" "$(cat "$STATE/restore.journal")"
        return 0
}

case_sigint_stops_and_monitor_follows() {
        start_daemon || return
        ctl set dev-weight 99
        "$NETPOLLCTL" monitor >"$TMP/monitor.txt" 2>"$TMP/monitor.err" &
        local mon=$!
        STARTED_PIDS+=("$mon")
        wait_for 10 grep -q busy-read "$TMP/monitor.txt" || fail "netpollctl monitor printed no table"
        stop_daemon INT
        expect_eq "netpolld exit status on SIGINT" "$DAEMON_RC" 0
        expect_tree_values "after SIGINT" "$SNAP"
        local i
        for i in $(seq 50); do
                kill -0 "$mon" 2>/dev/null || break
                sleep 0.1
        done
        if kill -0 "$mon" 2>/dev/null; then
                fail "netpollctl monitor still runs 5 s after netpolld stopped"
                kill_and_wait "$mon"
        else
                wait "$mon"
                expect_eq "netpollctl monitor exit status when netpolld leaves" "$?" 1
                expect_contains "netpollctl monitor" "$(cat "$TMP/monitor.err")" "netpolld left"
        fi
}

case_second_instance_refused() {
        start_daemon || return
        snapshot before-second
        cp -a "$STATE" "$TMP/state-before-second"
        echo "=== second netpolld ===" >>"$LOG"
        run "$NETPOLLD" --sysroot "$ROOT" --state-dir "$STATE" --config "$CONF" --profile-dir "$PROFILES"
        expect_rc 1
        expect_contains "second netpolld" "$ERR" "another netpolld"
        expect_tree_bytes "after the refused second instance" "$TMP/before-second"
        diff -r "$TMP/state-before-second" "$STATE" >/dev/null || fail "the second instance changed the state dir"
        daemon_alive || fail "the first netpolld died"
        stop_daemon TERM
        expect_tree_values "after SIGTERM" "$SNAP"
}

case_failed_restore_stays_in_journal() {
        start_daemon || return
        local f=$ROOT/$CORE/dev_weight
        ctl set dev-weight 99
        # a file that cannot be written back (a directory in its place)
        rm -f "$f" && mkdir "$f"
        stop_daemon TERM
        expect_eq "netpolld exit status when a value could not be restored" "$DAEMON_RC" 1
        local j
        j=$(cat "$STATE/restore.journal" 2>/dev/null)
        expect_contains "journal after the failed restore" "$j" "/$CORE/dev_weight"
        expect_not_contains "journal after the failed restore" "$j" "/$CORE/busy_read"
        expect_file $CORE/busy_read 0
        # the next start puts the remaining value back
        rmdir "$f" && printf '99\n' >"$f"
        start_daemon || return
        expect_file $CORE/dev_weight 64
        stop_daemon TERM
        expect_eq "netpolld exit status on SIGTERM" "$DAEMON_RC" 0
        expect_tree_values "after the second stop" "$SNAP"
}

case_rolled_back_set_does_not_own_knob() {
        start_daemon || return
        local f=$ROOT/$CORE/netdev_budget_usecs
        rm -f "$f" && mkdir "$f"
        ctl set dev-weight 100 netdev-budget-time 9000
        expect_rc 1
        rmdir "$f" && printf '8000\n' >"$f"
        expect_file $CORE/dev_weight 64
        # dev-weight is not netpolld's after the rollback: an admin's value must survive the stop
        printf '200\n' >"$ROOT/$CORE/dev_weight"
        stop_daemon TERM
        expect_eq "netpolld exit status on SIGTERM" "$DAEMON_RC" 0
        expect_file $CORE/dev_weight 200
        printf '64\n' >"$ROOT/$CORE/dev_weight"
        expect_tree_values "after SIGTERM" "$SNAP"
}

case_profile_option() {
        start_daemon --profile itest-budget || return
        expect_file $CORE/netdev_budget 450
        expect_file $CORE/busy_read 0
        busctl_ get-property org.netpolld1 /org/netpolld1 org.netpolld1.Manager ActiveProfile
        expect_eq "ActiveProfile with --profile NAME" "$OUT" 's "itest-budget"'
        stop_daemon TERM
        expect_tree_values "after SIGTERM" "$SNAP"

        cp "$PROFILES/itest-budget.conf" "$TMP/by-path.conf"
        start_daemon --profile "$TMP/by-path.conf" || return
        expect_file $CORE/netdev_budget 450
        busctl_ get-property org.netpolld1 /org/netpolld1 org.netpolld1.Manager ActiveProfilePath
        expect_eq "ActiveProfilePath with --profile PATH" "$OUT" "s \"$TMP/by-path.conf\""
        stop_daemon TERM
        expect_tree_values "after SIGTERM" "$SNAP"
}

case_start_refuses_bad_policy() {
        local good
        good=$(cat "$CONF")
        printf '[daemon]\nprofile = itest-latency\ninterval = soon\n' >"$CONF"
        snapshot before-bad-start
        echo "=== netpolld with a broken netpolld.conf ===" >>"$LOG"
        run "$NETPOLLD" --sysroot "$ROOT" --state-dir "$STATE" --config "$CONF" --profile-dir "$PROFILES"
        expect_rc 1
        expect_contains "netpolld with a broken netpolld.conf" "$ERR" "$CONF:3"
        printf '%s\n' "$good" >"$CONF"
        run "$NETPOLLD" --sysroot "$ROOT" --state-dir "$STATE" --config "$CONF" --profile-dir "$PROFILES" \
                --profile no-such-profile
        expect_rc 1
        expect_contains "netpolld --profile no-such-profile" "$ERR" "no-such-profile"
        expect_tree_bytes "after the refused starts" "$TMP/before-bad-start"
        [ -e "$STATE/restore.journal" ] && fail "a refused start left a restore.journal"
        return 0
}

case_profile_with_unavailable_knobs() {
        # A patched knob on an unpatched kernel and a missing device are skipped, not fatal.
        printf '[profile]\n[knobs]\nbusy-loop-threshold = 1\ngro-flush-timeout@veth9 = 10us\nnetdev-budget = 500\n' \
                >"$PROFILES/itest-partial.conf"
        start_daemon --profile itest-partial || return
        expect_file $CORE/netdev_budget 500
        [ -e "$ROOT/sys/class/net/veth9" ] && fail "netpolld created sys/class/net/veth9"
        [ -e "$ROOT/proc/sys/net/core/busy_loop_threshold" ] && fail "netpolld created busy_loop_threshold"
        stop_daemon TERM
        expect_eq "netpolld exit status on SIGTERM" "$DAEMON_RC" 0
        expect_tree_values "after SIGTERM" "$SNAP"
}

case_vendor_profiles() {
        local p
        for p in balanced latency throughput powersave dedicated; do
                run "$NETPOLLD" --check-config --sysroot "$ROOT" --config "$NETPOLLD_SOURCE_ROOT/conf/netpolld.conf" \
                        --profile-dir "$NETPOLLD_SOURCE_ROOT/conf/profiles" --profile "$p"
                expect_rc 0
        done
        # dedicated as its comments say to use it: a profile naming the device includes it.
        mkdir -p "$TMP/dedicated"
        sed -n 's/^#   //p; s/^#$//p' "$NETPOLLD_SOURCE_ROOT/conf/profiles/dedicated.conf" |
                sed 's/eth1/veth0/; s/cpus = 3/cpus = 0/' >"$TMP/dedicated/poll-veth0.conf"
        run "$NETPOLLD" --check-config --sysroot "$ROOT" --config "$NETPOLLD_SOURCE_ROOT/conf/netpolld.conf" \
                --profile-dir "$TMP/dedicated" --profile-dir "$NETPOLLD_SOURCE_ROOT/conf/profiles" --profile poll-veth0
        expect_rc 0
        expect_contains "the example profile's chain" "$OUT" "dedicated"
        expect_contains "the example profile's NAPI mode" "$OUT" "napi-threaded@veth0"
        expect_contains "the example profile's mode" "$OUT" "busy-poll"
        start_daemon --profile-dir "$NETPOLLD_SOURCE_ROOT/conf/profiles" --profile latency || return
        expect_file $CORE/busy_read 50
        expect_file $CORE/busy_poll 50
        stop_daemon TERM
        expect_eq "netpolld exit status on SIGTERM" "$DAEMON_RC" 0
        expect_tree_values "after SIGTERM" "$SNAP"
}

# list_description NAME: the description column of NAME's row in `netpollctl profile list` output on stdin.
list_description() { sed -nE "s/^[ *]  $1  +//p"; }

# json_description NAME: the description of NAME in `netpollctl --json profile list` output on stdin.
json_description() {
        python3 -c 'import json, sys
print(*[p["description"] for p in json.load(sys.stdin) if p["name"] == sys.argv[1]], sep="\n")' "$1"
}

case_profile_list_judges_like_check_config() {
        local shipped=$NETPOLLD_SOURCE_ROOT/conf/profiles bad=$TMP/broken-profiles p want first text
        mkdir -p "$bad"
        # Includes a shipped profile by name from another directory, then a bad value on line 5.
        printf '[profile]\ndescription = broken\ninclude = balanced\n[knobs]\nbusy-read = 5x\nbusy-poll = 5y\n' \
                >"$bad/itest-broken.conf"
        run "$NETPOLLD" --check-config --sysroot "$ROOT" --config "$CONF" --profile-dir "$PROFILES" \
                --profile-dir "$shipped" --profile-dir "$bad" --profile itest-broken
        expect_rc 1
        first=${ERR%%$'\n'*}
        first=${first#netpolld: }
        expect_contains "--check-config's first error" "$first" "$bad/itest-broken.conf:5: [knobs] busy-read:"

        start_daemon --profile-dir "$shipped" --profile-dir "$bad" || return
        snapshot before-list
        cp -a "$STATE" "$TMP/state-before-list"
        ctl profile list
        expect_rc 0
        text=$OUT
        expect_eq "profile list: active mark" "$(awk '$1 == "*" { print $2 }' <<<"$text")" "itest-latency"
        ctl --json profile list
        expect_rc 0
        for p in balanced dedicated latency powersave throughput itest-broken; do
                case $p in
                itest-broken) want="invalid: $first" ;;
                *) want=$(sed -n 's/^description = //p' "$shipped/$p.conf") ;;
                esac
                expect_eq "profile list: $p" "$(list_description "$p" <<<"$text")" "$want"
                expect_eq "profile list --json: $p" "$(json_description "$p" <<<"$OUT")" "$want"
        done

        # Listing is read-only: no knob, state file or daemon property changed.
        expect_tree_bytes "after profile list" "$TMP/before-list"
        diff -r "$TMP/state-before-list" "$STATE" >/dev/null || fail "profile list changed the state dir"
        busctl_ get-property org.netpolld1 /org/netpolld1 org.netpolld1.Manager ActiveProfile
        expect_eq "ActiveProfile after profile list" "$OUT" 's "itest-latency"'
        stop_daemon TERM
        expect_eq "netpolld exit status on SIGTERM" "$DAEMON_RC" 0
        expect_tree_values "after SIGTERM" "$SNAP"
}

# corrupt_journal_refused DESCRIPTION CONTENT: netpolld refuses to start on that journal.
corrupt_journal_refused() {
        local desc=$1 j=$STATE/restore.journal
        mkdir -p "$STATE"
        printf '%b' "$2" >"$j"
        cp "$j" "$TMP/journal.copy"
        snapshot before-corrupt
        echo "=== netpolld with $desc ===" >>"$LOG"
        run "$NETPOLLD" --sysroot "$ROOT" --state-dir "$STATE" --config "$CONF" --profile-dir "$PROFILES"
        expect_rc 1
        expect_contains "netpolld's message for $desc" "$ERR" "journal"
        expect_contains "netpolld's message for $desc" "$ERR" "$STATE"
        cmp -s "$j" "$TMP/journal.copy" || fail "$desc: the journal was changed or removed"
        expect_tree_bytes "after the refused start ($desc)" "$TMP/before-corrupt"
        rm -f "$j"
}

case_corrupt_journal() {
        corrupt_journal_refused "a garbage journal" 'garbage\n'
        corrupt_journal_refused "a journal without its end line" \
                'netpolld-journal 1\nbusy-read\t/proc/sys/net/core/busy_read\t0\n'
        corrupt_journal_refused "a journal with a wrong entry count" \
                'netpolld-journal 1\nbusy-read\t/proc/sys/net/core/busy_read\t0\nend 2\n'
}

require_root_and_tools
setup_tmp
make_fixture
make_policy
start_bus

run_case "--check-config accepts the test policy and names FILE:LINE of broken files" case_check_config
run_case "SIGTERM exits 0, restores every value and removes the journal" case_sigterm_restores
run_case "restored files are byte-identical to the originals" case_restore_is_byte_exact
run_case "a reload that changes state-dir keeps the journal where it is, and StateDir says so" \
        case_reload_keeps_the_state_dir
run_case "after kill -9 the journal is replayed at restart, then the profile applied" case_crash_recovery
run_case "after kill -9 a stale irqbalance-ban drop-in is removed by the journal replay" \
        case_crash_replay_removes_irqbalance_dropin
run_case "after kill -9, a device replaced under the same name does not get the old device's original" \
        case_replaced_device_not_restored_onto
run_case "--dry-run writes nothing and logs what it would set" case_dry_run
run_case "a corrupt restore journal is refused at start and left untouched" case_corrupt_journal
run_case "--profile NAME and --profile PATH override the config's profile" case_profile_option
run_case "a broken netpolld.conf or an unknown profile: start refused, nothing changed" case_start_refuses_bad_policy
run_case "unsupported knobs and missing devices in a profile are skipped at start" case_profile_with_unavailable_knobs
run_case "the shipped profiles validate and apply on the fixture" case_vendor_profiles
run_case "profile list shows what --check-config says: shipped descriptions, a broken profile's FILE:LINE" \
        case_profile_list_judges_like_check_config
run_case "SIGINT stops like SIGTERM; netpollctl monitor exits when netpolld leaves" case_sigint_stops_and_monitor_follows
run_case "a second netpolld on the same bus refuses to start and changes nothing" case_second_instance_refused
run_case "a value that cannot be restored on stop: exit 1, kept in the journal, restored at the next start" case_failed_restore_stays_in_journal
run_case "a set rolled back after a kernel refusal leaves the knob to others (no restore on stop)" case_rolled_back_set_does_not_own_knob
tap_done
