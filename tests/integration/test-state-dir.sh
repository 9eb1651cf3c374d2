#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# test-state-dir.sh: netpolld with a state directory it cannot write, on a
# fixture sysroot and a private bus. The state directory is a small tmpfs,
# mounted read-only or filled up, at start or while netpolld runs: netpolld
# must refuse every change whose original it cannot journal (an
# org.netpolld1.Error.Failed naming the journal and the error, the knob
# unchanged), keep serving, change knobs again once the journal can be
# written, and restore everything at stop (also while the disk is still
# full). The mounts live in a private mount namespace (unshare -m), so
# nothing reaches the host's mount table, and are unmounted on exit anyway.
# Speaks TAP; needs root.

# shellcheck source=tests/integration/lib.sh
. "$(dirname "$(readlink -f "$0")")/lib.sh"

if [ "$(id -u)" = 0 ] && [ -z "${NETPOLLD_STATE_DIR_TEST_NS:-}" ]; then
        command -v unshare >/dev/null || { echo "1..0 # SKIP needs unshare"; exit 0; }
        NETPOLLD_STATE_DIR_TEST_NS=1 exec unshare --mount --propagation private bash "$0" "$@"
fi

CORE=proc/sys/net/core
JOURNAL_ERR="cannot save its original in"

# A 256 KiB tmpfs as the state directory: ro, or rw.
mount_state() { # ro|rw
        umount_state
        mkdir -p "$STATE"
        mount -t tmpfs -o "size=256k,mode=0755,$1" netpolld-test-state "$STATE"
}

umount_state() {
        mountpoint -q "$STATE" 2>/dev/null && umount "$STATE"
        return 0
}

fill_state() {
        dd if=/dev/zero of="$STATE/filler" bs=4k 2>/dev/null
        [ "$(stat -f -c %a "$STATE")" = 0 ] || fail "$STATE is not full:" "$(df "$STATE")"
}

# The D-Bus error of SetKnob NAME VALUE: its name must be Failed and its text
# name the journal and the errno text ERR; the fixture and journal unchanged.
expect_set_refused() { # KNOB VALUE ERR
        local before_tree=$TMP/refused-before journal_before
        rm -rf "$before_tree"
        cp -a "$ROOT" "$before_tree"
        journal_before=$(cat "$STATE/restore.journal" 2>/dev/null)
        gdbus_call SetKnob "$1" "$2"
        [ "$RC" != 0 ] || fail "SetKnob $1 $2 succeeded with an unwritable journal: $OUT"
        expect_contains "SetKnob $1 error" "$ERR" "org.netpolld1.Error.Failed"
        expect_contains "SetKnob $1 error" "$ERR" "$1: $JOURNAL_ERR $STATE/restore.journal ($3); nothing was changed"
        ctl set "$1" "$2"
        expect_rc 1
        expect_contains "netpollctl set $1 message" "$ERR" "$JOURNAL_ERR"
        expect_tree_bytes "after the refused set of $1" "$before_tree"
        expect_eq "journal after the refused set of $1" "$(cat "$STATE/restore.journal" 2>/dev/null)" "$journal_before"
        ctl get busy-read
        expect_rc 0
}

case_unwritable_at_start() { # ro|full
        local err="Read-only file system"
        make_fixture
        if [ "$1" = ro ]; then
                mount_state ro
        else
                mount_state rw
                fill_state
                err="No space left on device"
        fi
        # shellcheck disable=SC2119  # no extra options: the configured daemon
        start_daemon || return
        # every knob of the profile was refused, none written
        expect_tree_bytes "after start with an unwritable state directory" "$SNAP"
        log_has "busy-read: $JOURNAL_ERR $STATE/restore.journal ($err); nothing was changed" ||
                fail "no log line for the profile's refused busy-read:" "$(tail -n 20 "$LOG")"
        expect_eq "get busy-read" "$(get_value_origin busy-read)" "0us default"
        expect_set_refused dev-weight 128 "$err"
        expect_set_refused gro-flush-timeout@veth0 9us "$err"
        ctl profile set itest-budget
        expect_tree_bytes "after a profile switch with an unwritable state directory" "$SNAP"

        # space returns: the same changes work
        if [ "$1" = ro ]; then
                mount -o remount,rw "$STATE"
        else
                rm -f "$STATE/filler"
        fi
        ctl set dev-weight 128
        expect_rc 0
        expect_file $CORE/dev_weight 128
        ctl profile set itest-latency
        expect_rc 0
        expect_file $CORE/busy_read 50
        stop_and_expect_restored
        umount_state
}

case_unwritable_mid_run() { # ro|full
        local err="Read-only file system"
        make_fixture
        mount_state rw
        # shellcheck disable=SC2119  # no extra options: the configured daemon
        start_daemon || return
        expect_file $CORE/busy_read 50
        ctl set dev-weight 128
        expect_rc 0
        if [ "$1" = ro ]; then
                mount -o remount,ro "$STATE"
        else
                fill_state
                err="No space left on device"
        fi
        expect_set_refused netdev-max-backlog 2000 "$err"
        expect_set_refused napi-defer-hard-irqs@veth0 3 "$err"
        # A knob whose original is journaled already can still change: it can be put back.
        ctl set busy-read 7us
        expect_rc 0
        expect_file $CORE/busy_read 7
        # Handing back needs no journal space: the original is written at once.
        ctl reset dev-weight
        expect_rc 0
        expect_file $CORE/dev_weight 64
        expect_eq "get dev-weight after the reset" "$(get_value_origin dev-weight)" "64 default"
        if [ "$1" = full ]; then
                # Stop while the disk is still full: all restored, the journal removed.
                stop_and_expect_restored
                rm -f "$STATE/filler"
                umount_state
                return
        fi
        mount -o remount,rw "$STATE"
        ctl set netdev-max-backlog 2000
        expect_rc 0
        expect_file $CORE/netdev_max_backlog 2000
        stop_and_expect_restored
        umount_state
}

require_root_and_tools
command -v gdbus >/dev/null || { echo "1..0 # SKIP needs gdbus (for the D-Bus error names)"; exit 0; }
setup_tmp
trap 'umount_state; cleanup' EXIT
make_fixture
make_policy
start_bus

run_case "read-only state directory at start: nothing changed, sets refused with Failed, then work after remount rw" \
        case_unwritable_at_start ro
run_case "full state directory at start: nothing changed, sets refused with Failed, then work once space returns" \
        case_unwritable_at_start full
run_case "state directory turned read-only mid-run: new changes refused, journaled ones and resets work" \
        case_unwritable_mid_run ro
run_case "state directory full mid-run: new changes refused, resets work, stop restores all and removes the journal" \
        case_unwritable_mid_run full
tap_done
