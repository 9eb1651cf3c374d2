#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# test-other-owner.sh: netpolld names who most likely set a value it does not
# hold or one that changed behind its back, on a fixture sysroot with a
# private bus: a sysctl.d line (FILE:LINE, systemd-sysctl's masking and
# order, only when its value equals the kernel's) in the log, in netpollctl
# status and explain, their --json forms (validated against docs/schema/) and
# GetOtherOwners; odd sysctl.d files (binary, a FIFO, a huge line) give a log
# line and no crash. Then tuned: Debian's package, started for the test where
# this environment lets it run (otherwise the case says why it skips), and its
# file-based detection on the fixture (a fake process in a fake /proc).
# irqbalance is not started here: on this host it would move IRQs netpolld
# must not touch (eth0's among them). Its detection runs on fixtures in
# test-irq (a fake irqbalance) and unit netdev-sysfs/other-owner, and the real
# irqbalance.service beside netpolld in the system suite's guest
# (tests/system/guest.sh: case_irqbalance_ban, case_irqbalance_owner).
# Everything the test starts is stopped and every file it writes is below its
# temporary directory. TAP.

# shellcheck source=tests/integration/lib.sh
. "$(dirname "$(readlink -f "$0")")/lib.sh"

CORE=proc/sys/net/core

make_owner_policy() {
        mkdir -p "$PROFILES"
        cat >"$PROFILES/itest-owner.conf" <<'EOP'
[profile]
description = integration test: other owners
[knobs]
dev-weight = 128
netdev-budget = 600
EOP
        write_config itest-owner
}

# sysctl.d files below the fixture root, as a host would have them.
make_sysctl_d() {
        mkdir -p "$ROOT/etc/sysctl.d" "$ROOT/usr/lib/sysctl.d" "$ROOT/run/sysctl.d"
        # Masked by /etc's file of the same name: never named.
        printf 'net.core.dev_weight = 77\n' >"$ROOT/usr/lib/sysctl.d/60-net.conf"
        printf '# the admin\n\n-net/core/dev_weight = 77\n' >"$ROOT/etc/sysctl.d/60-net.conf"
        # Applied before 60-net.conf: 60's line wins.
        printf 'net.core.dev_weight = 12\n' >"$ROOT/run/sysctl.d/10-early.conf"
        # busy_poll is 0 in the fixture and netpolld does not hold it.
        printf 'net.core.busy_poll = 0\n' >"$ROOT/usr/lib/sysctl.d/50-poll.conf"
        # A value that is not the kernel's is not claimed.
        printf 'net.core.netdev_budget_usecs = 4000\n' >"$ROOT/usr/lib/sysctl.d/50-usecs.conf"
        # Odd files: binary, a FIFO, a line of 100 kB.
        printf 'net.core.busy_read = 1\n\0\1\2\n' >"$ROOT/etc/sysctl.d/20-binary.conf"
        mkfifo "$ROOT/etc/sysctl.d/30-fifo.conf"
        { printf 'net.core.busy_read = '; head -c 100000 /dev/zero | tr '\0' 9; printf '\n'; } \
                >"$ROOT/etc/sysctl.d/40-huge.conf"
}

valid() { # SCHEMA FILE: FILE validates against docs/schema/netpollctl-SCHEMA.v1.json
        local errors
        errors=$(python3 "$LIB_DIR/json-validate.py" "$NETPOLLD_SOURCE_ROOT/docs/schema/netpollctl-$1.v1.json" <"$2" 2>&1) ||
                fail "$1 --json does not match its schema:" "$errors" "$(cat "$2")"
}

case_outside_change_named() {
        need_daemon || return
        printf '77\n' >"$ROOT/$CORE/dev_weight"
        wait_for 6 log_has "dev-weight: most likely set by sysctl.d /etc/sysctl.d/60-net.conf:3" ||
                fail "no log line names /etc/sysctl.d/60-net.conf:3 within 6 s; the log:" "$(cat "$LOG")"
        ctl status
        expect_rc 0
        expect_contains "status" "$OUT" "Outside changes (left alone):"
        expect_contains "status" "$OUT" "dev-weight = 77, set by sysctl.d /etc/sysctl.d/60-net.conf:3 (net.core.dev_weight = 77)"
        ctl explain dev-weight
        expect_rc 0
        expect_contains "explain dev-weight" "$OUT" \
                "Set by (most likely first): dev-weight 77: sysctl.d /etc/sysctl.d/60-net.conf:3 (net.core.dev_weight = 77)"
        diag "the log, status and explain said:" "$(grep -F 'dev-weight: most likely' "$LOG")" \
                "$(ctl status; sed -n '/^Outside changes/,$p' <<<"$OUT")" "$(ctl explain dev-weight; grep -A1 '^Set by' <<<"$OUT")"
}

case_not_held_named() {
        need_daemon || return
        ctl explain busy-poll
        expect_rc 0
        expect_contains "explain busy-poll" "$OUT" "sysctl.d /usr/lib/sysctl.d/50-poll.conf:1"
        ctl explain netdev-budget-time
        expect_not_contains "explain netdev-budget-time" "$OUT" "Set by"
}

case_unknown_owner() {
        need_daemon || return
        printf '700\n' >"$ROOT/$CORE/netdev_budget"
        wait_for 6 log_has "netdev-budget: no sysctl.d line, tuned profile or irqbalance known to netpolld sets it" ||
                fail "no log line says the owner of netdev-budget is unknown; the log:" "$(cat "$LOG")"
        ctl status
        expect_contains "status" "$OUT" "netdev-budget = 700, set by unknown"
}

# A tuned "running" in the fixture's /proc, its active profile in the fixture's /etc/tuned.
make_fake_tuned() {
        mkdir -p "$ROOT/proc/4242" "$ROOT/etc/tuned/itest-net" "$ROOT/usr/lib/tuned/itest-base"
        printf 'itest-net\n' >"$ROOT/etc/tuned/active_profile"
        printf '[main]\ninclude=itest-base\n[sysctl]\nnet.core.netdev_budget = 700\n' \
                >"$ROOT/etc/tuned/itest-net/tuned.conf"
        printf '[sysctl]\nnet.core.busy_read = 0\nnet.core.dev_weight = 12\n' >"$ROOT/usr/lib/tuned/itest-base/tuned.conf"
}

case_tuned_named() {
        need_daemon || return
        # Not running yet: its profile is not claimed.
        make_fake_tuned
        ctl explain busy-read
        expect_not_contains "explain busy-read" "$OUT" "tuned"
        printf 'tuned\n' >"$ROOT/proc/4242/comm"
        ctl explain busy-read
        expect_contains "explain busy-read" "$OUT" \
                "busy-read 0us: tuned /usr/lib/tuned/itest-base/tuned.conf:2 (active profile itest-net, pid 4242: net.core.busy_read = 0)"
        ctl status
        expect_contains "status" "$OUT" \
                "netdev-budget = 700, set by tuned /etc/tuned/itest-net/tuned.conf:4 (active profile itest-net, pid 4242: net.core.netdev_budget = 700)"
        # tuned's dev_weight (12) is not the kernel's (77): only sysctl.d is named.
        ctl explain dev-weight
        expect_not_contains "explain dev-weight" "$OUT" "tuned"
        rm -rf "$ROOT/proc/4242"
}

case_odd_files_logged() {
        need_daemon || return
        daemon_alive || fail "netpolld died"
        log_has "/etc/sysctl.d/20-binary.conf:2: binary data" || fail "no log line for the binary file:" "$(cat "$LOG")"
        log_has "/etc/sysctl.d/30-fifo.conf: not a regular file" || fail "no log line for the FIFO:" "$(cat "$LOG")"
        log_has "/etc/sysctl.d/40-huge.conf:1: line too long" || fail "no log line for the huge line:" "$(cat "$LOG")"
}

case_json_and_bus() {
        need_daemon || return
        ctl --json status
        expect_rc 0
        printf '%s' "$OUT" >"$TMP/status.json"
        valid status "$TMP/status.json"
        run python3 -c 'import json,sys; o=json.load(open(sys.argv[1]))["outside_changes"]
d=[x for x in o if x["target"]=="dev-weight"][0]
print(d["value"], d["owners"][0]["kind"], d["owners"][0]["where"])' "$TMP/status.json"
        expect_eq "status --json dev-weight" "$OUT" "77 sysctl.d /etc/sysctl.d/60-net.conf:3"
        ctl --json explain dev-weight
        printf '%s' "$OUT" >"$TMP/explain.json"
        valid explain "$TMP/explain.json"
        run python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["values"][0]["owners"][0]["where"])' \
                "$TMP/explain.json"
        expect_eq "explain --json dev-weight's owner" "$OUT" "/etc/sysctl.d/60-net.conf:3"
        busctl_ call org.netpolld1 /org/netpolld1 org.netpolld1.Manager GetOtherOwners s dev-weight
        expect_rc 0
        expect_contains "GetOtherOwners(dev-weight)" "$OUT" '"sysctl.d" "/etc/sysctl.d/60-net.conf:3"'
}

case_stop_restores() {
        need_daemon || return
        stop_daemon TERM
        expect_eq "exit status on SIGTERM" "$DAEMON_RC" 0
        # Somebody else's values stay as they were found; naming the owner changed nothing.
        expect_file $CORE/dev_weight 77
        expect_file $CORE/netdev_budget 700
        expect_file $CORE/busy_poll 0
}

# ---- Debian's tuned, started for the test on the real kernel (where it can run) ----

TUNED_PID=
TUNED_BACKUP=
TUNED_RUN_MADE=
BUSY_READ_ORIG=
LIVE_PID=

# Puts back what the real-tuned case changed: tuned and netpolld stopped, busy_read, /etc/tuned, /run/tuned.
restore_host() {
        [ -n "$LIVE_PID" ] && kill_and_wait "$LIVE_PID"
        [ -n "$TUNED_PID" ] && kill_and_wait "$TUNED_PID"
        LIVE_PID=''
        TUNED_PID=
        [ -n "$BUSY_READ_ORIG" ] && printf '%s\n' "$BUSY_READ_ORIG" >/proc/sys/net/core/busy_read
        BUSY_READ_ORIG=
        if [ -n "$TUNED_BACKUP" ]; then
                rm -rf /etc/tuned
                [ -d "$TUNED_BACKUP/tuned" ] && cp -a "$TUNED_BACKUP/tuned" /etc/tuned
                TUNED_BACKUP=
        fi
        [ -n "$TUNED_RUN_MADE" ] && rm -rf /run/tuned
        TUNED_RUN_MADE=
}

# Why tuned cannot run here, or nothing when it can.
tuned_unavailable() {
        local err
        command -v tuned >/dev/null || { echo "tuned is not installed (tools/install-deps --tests does not install it)"; return; }
        err=$(tuned --version 2>&1) ||
                { echo "Debian's tuned cannot start here: tuned --version failed ($(tail -n 1 <<<"$err"))"; return; }
}

case_real_tuned() {
        local why value orig profile=itest-netpolld
        why=$(tuned_unavailable)
        if [ -n "$why" ]; then
                skip "the real-tuned part: $why; its file-based detection ran on the fixture above"
                return
        fi
        BUSY_READ_ORIG=$(cat /proc/sys/net/core/busy_read)
        value=$((BUSY_READ_ORIG == 37 ? 38 : 37))
        TUNED_BACKUP=$TMP/etc-backup
        mkdir -p "$TUNED_BACKUP"
        [ -d /etc/tuned ] && cp -a /etc/tuned "$TUNED_BACKUP/tuned"
        [ -d /run/tuned ] || TUNED_RUN_MADE=1
        mkdir -p "/etc/tuned/$profile"
        # Line 3 sets the key; nothing else is tuned, nothing is re-applied from sysctl.d.
        printf '[main]\nsummary=netpolld integration test\n[sysctl]\nnet.core.busy_read = %s\n' "$value" \
                >"/etc/tuned/$profile/tuned.conf"
        printf 'daemon = 1\ndynamic_tuning = 0\nreapply_sysctl = 0\nrecommend_command = 0\n' >/etc/tuned/tuned-main.conf
        printf '%s\n' "$profile" >/etc/tuned/active_profile
        printf 'manual\n' >/etc/tuned/profile_mode
        tuned --no-dbus --no-socket --log "$TMP/tuned.log" --pid "$TMP/tuned.pid" </dev/null >>"$TMP/tuned.log" 2>&1 &
        TUNED_PID=$!
        if ! wait_for 30 grep -qx "$value" /proc/sys/net/core/busy_read; then
                skip "the real-tuned part: tuned did not apply its profile within 30 s here: $(tail -n 3 "$TMP/tuned.log" | tr '\n' ' ')"
                restore_host
                return
        fi
        # netpolld on the real kernel, changing nothing (dry run, no knobs, no [irq]): it reads only.
        printf '[profile]\ndescription = integration test: reads only\n' >"$PROFILES/itest-none.conf"
        "$NETPOLLD" --sysroot / --state-dir "$STATE-live" --config "$CONF" --profile-dir "$PROFILES" \
                --profile itest-none --dry-run </dev/null >>"$LOG" 2>&1 &
        LIVE_PID=$!
        STARTED_PIDS+=("$LIVE_PID")
        wait_for 15 daemon_answers || { fail "netpolld on the real kernel did not answer"; restore_host; return; }
        ctl explain busy-read
        expect_contains "explain busy-read with tuned running" "$OUT" \
                "tuned /etc/tuned/$profile/tuned.conf:4 (active profile $profile, pid $TUNED_PID: net.core.busy_read = $value)"
        diag "with Debian's tuned (pid $TUNED_PID) running, netpollctl explain busy-read said:" "$(grep -A1 'Set by' <<<"$OUT")"
        orig=$BUSY_READ_ORIG
        restore_host
        expect_eq "busy_read after the test" "$(cat /proc/sys/net/core/busy_read)" "$orig"
}

require_root_and_tools
setup_tmp
trap 'restore_host; cleanup' EXIT
make_owner_policy
start_bus
make_fixture
make_sysctl_d
start_daemon || { echo "Bail out! netpolld did not start"; printf '%s' "$CASE_DIAG"; exit 1; }

run_case "an outside change is named by its sysctl.d FILE:LINE in the log, status and explain" case_outside_change_named
run_case "a value netpolld does not hold is named by its sysctl.d line when the values agree" case_not_held_named
run_case "an outside change nobody known makes says so" case_unknown_owner
run_case "a running tuned's active profile line (through include=) is named when its value is the kernel's" case_tuned_named
run_case "odd sysctl.d files are logged and skipped, the daemon lives" case_odd_files_logged
run_case "--json forms validate and GetOtherOwners answers over the bus" case_json_and_bus
run_case "SIGTERM leaves the outside values as found" case_stop_restores
run_case "Debian's tuned, started with a profile that sets net.core.busy_read, is named by explain" case_real_tuned
tap_done
