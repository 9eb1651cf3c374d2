#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# test-rules.sh: profiles that follow the workload ([rule NAME] in
# netpolld.conf) with real processes and a real cgroup. netpolld runs on the
# real sysroot (it scans /proc and /sys/fs/cgroup) in --dry-run, so its
# profile switches are logged ("dry-run: would set ...") and no kernel value
# is written. A process rule waits for a copy of sleep with a chosen name
# (comm comes from the executable's file name), a cgroup rule for a cgroup v2
# directory this test makes and removes (restored on exit whatever happens).
# Cases: switch and switch back, the stop-delay (hysteresis) against a
# flapping process, overlap (priority, then file order), a pin by
# `profile set` released by `profile release`, and a reload that keeps the
# rule in force. Touches /sys/fs/cgroup: run under the host lock
# (flock /run/netpolld-host.lock). Speaks TAP; needs root.

# shellcheck source=tests/integration/lib.sh
. "$(dirname "$(readlink -f "$0")")/lib.sh"

require_root_and_tools

# The cgroup v2 hierarchy: /sys/fs/cgroup itself, or its "unified" part on hybrid hosts.
CG_BASE=
if [ "$(stat -f -c %T /sys/fs/cgroup 2>/dev/null)" = cgroup2fs ]; then
        CG_BASE=
elif [ "$(stat -f -c %T /sys/fs/cgroup/unified 2>/dev/null)" = cgroup2fs ]; then
        CG_BASE=unified/
else
        echo "1..0 # SKIP no cgroup v2 hierarchy at /sys/fs/cgroup or /sys/fs/cgroup/unified"
        exit 0
fi
CG_REL=${CG_BASE}npd-itest-$$
CG_DIR=/sys/fs/cgroup/$CG_REL
COMM=npdrule$$ # at most 15 characters: the kernel's comm length
COMM=${COMM:0:15}

restore_host() {
        [ -d "$CG_DIR" ] && rmdir "$CG_DIR"
        return 0
}
setup_tmp
trap 'cleanup; restore_host' EXIT
ROOT=/ # the real /proc and /sys/fs/cgroup: never call the fixture helpers of lib.sh

mkdir -p "$PROFILES"
# Each profile sets its own netdev-budget, so the log shows which one was applied.
declare -A BUDGET=([base]=310 [proc]=320 [cg]=330)
for p in base proc cg; do
        cat >"$PROFILES/itest-rule-$p.conf" <<CONF
[profile]
description = integration test: rule profile $p
[knobs]
netdev-budget = ${BUDGET[$p]}
CONF
done
# A profile that does not exist is refused when a rule names it.
write_conf() { # EXTRA-RULE-TEXT
        cat >"$CONF" <<CONF
[daemon]
profile = itest-rule-base
rule-scan-interval = 100ms

[rule proc]
profile = itest-rule-proc
process = $COMM
stop-delay = 1500ms

[rule proc-later]
# the same workload, priority and delays: [rule proc] comes first and wins
profile = itest-rule-cg
process = $COMM
stop-delay = 1500ms

[rule cg]
profile = itest-rule-cg
cgroup = /$CG_REL
priority = 10
stop-delay = 0
$1
CONF
}
write_conf ""
cp /bin/sleep "$TMP/bin/$COMM"

start_bus

status_json() { # KEY: one value of netpollctl --json status, or <failed>
        ctl --json status
        [ "$RC" = 0 ] || { echo "<failed: $ERR>"; return; }
        python3 -c 'import json, sys; v = json.load(sys.stdin).get(sys.argv[1]); print("null" if v is None else str(v).lower() if isinstance(v, bool) else v)' "$1" <<<"$OUT"
}
profile_is() { [ "$(status_json profile)" = "$1" ]; }
active_rule_is() { [ "$(status_json active_rule)" = "$1" ]; }

WORKER=
start_worker() {
        "$TMP/bin/$COMM" 600 &
        WORKER=$!
        STARTED_PIDS+=("$WORKER")
}
# Reaped at once: a zombie is not a running process (and netpolld does not count it), but it
# would make kill_and_wait poll for 5 s.
stop_worker() {
        [ -n "$WORKER" ] && kill "$WORKER" 2>/dev/null && wait "$WORKER" 2>/dev/null
        WORKER=
}

case_check_config() {
        run "$NETPOLLD" --check-config --config "$CONF" --profile-dir "$PROFILES"
        expect_rc 0
        expect_contains "check-config lists the rules" "$OUT" "proc-later"
        write_conf $'[rule broken]\nprofile = itest-rule-nonexistent\nprocess = x'
        run "$NETPOLLD" --check-config --config "$CONF" --profile-dir "$PROFILES"
        expect_rc 1
        local line
        line=$(grep -n '^\[rule broken\]' "$CONF" | cut -d: -f1)
        expect_contains "a rule's missing profile is an error at its header" "$ERR" \
                "$CONF:$line: [rule broken] profile: no profile 'itest-rule-nonexistent'"
        write_conf ""
}

case_start() {
        start_daemon --dry-run || return
        expect_eq "profile at start" "$(status_json profile)" itest-rule-base
        expect_eq "active rule at start" "$(status_json active_rule)" null
        expect_eq "pinned at start" "$(status_json profile_pinned)" false
}

case_process_switch() {
        need_daemon || return
        start_worker
        wait_for 5 profile_is itest-rule-proc || { fail "no switch to itest-rule-proc:" "$(tail -n 20 "$LOG")"; return; }
        expect_eq "active rule" "$(status_json active_rule)" proc
        expect_eq "rule profile" "$(status_json rule_profile)" itest-rule-proc
        ctl status
        expect_contains "status names the rule" "$OUT" "Rule: proc"
        grep -qE "dry-run: would set netdev-budget from [0-9]+ to ${BUDGET[proc]} " "$LOG" ||
                fail "the switch did not go through the owner:" "$(tail "$LOG")"
}

case_process_switch_back() {
        need_daemon || return
        stop_worker
        sleep 0.7 # within stop-delay (1.5 s): still the rule's profile
        expect_eq "profile within stop-delay" "$(status_json profile)" itest-rule-proc
        wait_for 5 profile_is itest-rule-base || fail "no switch back to itest-rule-base:" "$(tail -n 20 "$LOG")"
        expect_eq "active rule after" "$(status_json active_rule)" null
}

case_flapping() {
        need_daemon || return
        local on back i
        on=$(log_count "rule proc: switched to profile")
        back=$(log_count "no rule matches: back to profile")
        # Comes and goes every ~0.3 s for 3 s: gaps shorter than stop-delay never switch back.
        for i in $(seq 10); do
                start_worker
                sleep 0.3
                stop_worker
                sleep 0.2
        done
        expect_eq "profile while flapping" "$(status_json profile)" itest-rule-proc
        wait_for 5 profile_is itest-rule-base || fail "no switch back after the flapping ended:" "$(tail -n 30 "$LOG")" "$(pgrep -a "$COMM")"
        expect_eq "switches to the rule's profile" "$(log_count "rule proc: switched to profile")" $((on + 1))
        expect_eq "switches back" "$(log_count "no rule matches: back to profile")" $((back + 1))
}

case_overlap() {
        need_daemon || return
        start_worker
        wait_for 5 profile_is itest-rule-proc || { fail "no switch for the process"; return; }
        expect_eq "equal priority: the first rule in the file" "$(status_json active_rule)" proc
        mkdir "$CG_DIR" || { fail "cannot create $CG_DIR"; return; }
        wait_for 5 profile_is itest-rule-cg || fail "the higher priority cgroup rule did not win"
        expect_eq "active rule with both" "$(status_json active_rule)" cg
        rmdir "$CG_DIR"
        wait_for 5 profile_is itest-rule-proc || fail "not back to the process rule's profile"
        expect_eq "active rule after rmdir" "$(status_json active_rule)" proc
}

case_pin_release() {
        need_daemon || return
        ctl profile set itest-rule-base
        expect_rc 0
        expect_eq "pinned" "$(status_json profile_pinned)" true
        expect_eq "pinned profile" "$(status_json profile)" itest-rule-base
        expect_eq "the rule still matches" "$(status_json active_rule)" proc
        stop_worker
        start_worker
        # The cgroup rule comes into force and goes again (scans are a second apart: wait
        # for each, or the release may still find it in force) while the profile stays pinned.
        mkdir "$CG_DIR"
        wait_for 5 active_rule_is cg || fail "the cgroup rule did not come into force: $(status_json active_rule)"
        expect_eq "rules do not move a pinned profile" "$(status_json profile)" itest-rule-base
        rmdir "$CG_DIR"
        wait_for 5 active_rule_is proc || fail "the cgroup rule did not end: $(status_json active_rule)"
        expect_eq "still pinned" "$(status_json profile)" itest-rule-base
        ctl profile release
        expect_rc 0
        expect_contains "release says what is in force" "$OUT" "itest-rule-proc (rule proc)"
        expect_eq "released" "$(status_json profile_pinned)" false
        expect_eq "profile after release" "$(status_json profile)" itest-rule-proc
        ctl profile release
        expect_rc 0 # releasing twice is harmless
}

case_reload_keeps_rule() {
        need_daemon || return
        local back
        [ -n "$WORKER" ] || start_worker
        wait_for 5 profile_is itest-rule-proc || { fail "no switch for the process"; return; }
        back=$(log_count "no rule matches: back to profile")
        ctl reload
        expect_rc 0
        expect_eq "profile after reload" "$(status_json profile)" itest-rule-proc
        expect_eq "no switch back on reload" "$(log_count "no rule matches: back to profile")" "$back"
        stop_worker
        wait_for 5 profile_is itest-rule-base || fail "no switch back after the reload"
}

run_case "--check-config checks rules and their profiles" case_check_config
run_case "netpolld starts with the configured profile and no rule" case_start
run_case "a process with the rule's name switches to its profile" case_process_switch
run_case "its end switches back after stop-delay" case_process_switch_back
run_case "a flapping process switches once and back once" case_flapping
run_case "overlap: priority wins, then file order; cgroup appears and goes" case_overlap
run_case "profile set pins against rules; profile release unpins" case_pin_release
run_case "a reload keeps the rule in force" case_reload_keeps_rule
stop_daemon TERM
tap_done
