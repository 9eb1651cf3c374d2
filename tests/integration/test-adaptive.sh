#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# test-adaptive.sh: integration tests of netpolld's adaptive control on a
# fixture sysroot whose statistics files (proc/stat, proc/pressure/cpu,
# proc/net/softnet_stat, proc/softirqs, proc/schedstat) a background driver
# rewrites in place to simulate load: busy polling yields under CPU pressure
# and comes back, netdev-budget grows under time_squeeze up to its cap and
# decays, manual values are never moved, SetMode pauses and resumes,
# backlog drops give one advice, GetLoad reports the fixture's CPUs, SIGTERM
# restores everything, and a sysroot without statistics runs static.
# Speaks TAP. Timing is never asserted: every wait polls with a generous
# deadline, and a check that nothing moves watches for a bounded while.

# shellcheck source=tests/integration/lib.sh
. "$(dirname "$(readlink -f "$0")")/lib.sh"
# shellcheck source=tests/integration/stats.sh
. "$LIB_DIR/stats.sh"

CORE=proc/sys/net/core
NCPU=4                  # not the test machine's count: rows must come from the fixture
MOVE_TIMEOUT=10         # seconds for a move the load should cause within a few intervals
DECAY_TIMEOUT=15        # seconds for the budget to decay (quiet period 1 s + 3 steps)
WATCH=50                # samples a "nothing moves" check watches (1 s of 20 ms intervals on a quiet machine)
MON=                    # output of the netpollctl monitor following the daemon

make_adaptive_policy() {
        mkdir -p "$PROFILES"
        cat >"$PROFILES/itest-adaptive.conf" <<'EOF'
[profile]
description = integration test: adaptive busy polling and budget
[knobs]
busy-read = 50us
busy-poll = 50us
netdev-budget = 600
[adaptive]
enabled = yes
# PSI's share (at most 1.0) stands in for the depth with procs_running
runqueue-threshold = 0.5
hold = 2
min-dwell = 100ms
busy-poll-floor = 0us
squeeze-threshold = 100
budget-step = 25%
netdev-budget-max = 1000
quiet-period = 1s
EOF
        cat >"$PROFILES/itest-static.conf" <<'EOF'
[profile]
description = integration test: same knobs, no adaptation
[knobs]
busy-read = 50us
busy-poll = 50us
netdev-budget = 600
EOF
        cat >"$PROFILES/itest-adaptive-time.conf" <<'EOF'
[profile]
description = integration test: itest-adaptive that may also raise netdev-budget-time
include = itest-adaptive
[adaptive]
netdev-budget-time-max = 12000us
EOF
        printf '[daemon]\nprofile = itest-adaptive\ninterval = 20ms\n' >"$CONF"
}

# A fresh sysroot at $TMP/NAME: knob files (lib.sh) plus, unless "nostats", statistics files.
new_sysroot() { # NAME [schedstat|nostats]
        ROOT=$TMP/$1
        make_fixture # snapshots the knob files alone as $SNAP
        [ "${2:-}" = nostats ] || stat_init "$NCPU" "${2:-}"
}

value_origin_is() { [ "$(get_value_origin "$1")" == "$2" ]; }

# expect_moves KNOB "VALUE ORIGIN" WHAT: waits for the knob to get there.
expect_moves() {
        wait_for "$MOVE_TIMEOUT" value_origin_is "$1" "$2" ||
                fail "$3: $1 is '$(get_value_origin "$1")', expected '$2' within ${MOVE_TIMEOUT}s; log tail:" \
                        "$(tail -n 8 "$LOG")"
}

# netpollctl monitor's text output (not a terminal): a knob table, then one line per change.
start_monitor() {
        MON=$TMP/monitor-$1.txt
        background "$NETPOLLCTL" monitor >"$MON" 2>"$MON.err"
        wait_for 10 grep -q "busy-read" "$MON" ||
                fail "netpollctl monitor printed nothing within 10 s:" "$(cat "$MON" "$MON.err")"
}

mon_lines() { wc -l <"$MON"; }

# The changes of KNOB the monitor printed after line FROM, as "OLD>NEW(REASON)" words.
mon_changes() { # FROM KNOB
        tail -n +"$(($1 + 1))" "$MON" | awk -v k="$2" '$2 == k && $4 == "->" { printf "%s%s>%s%s", sep, $3, $5, $6; sep = " " }'
}

mon_has() { tail -n +"$(($1 + 1))" "$MON" | grep -qF -- "$2"; }

# mon_last_is FROM KNOB SUFFIX: the last change of KNOB after line FROM (as
# mon_changes writes it) ends in SUFFIX, such as ">20us(manual)". The monitor
# prints a change a moment after the call that made it has returned: a case
# waits for its own last change before it counts lines from there on.
mon_last_is() {
        local c
        c=$(mon_changes "$1" "$2")
        [ -n "$c" ] && [[ ${c##* } == *"$3" ]]
}

# expect_yield_changes KNOB CHANGES: under one step of load a busy-poll knob goes to
# the floor and back, adaptively, once. Without test hooks netpolld times its
# samples by its own clock, and a stall of the load driver on a busy machine
# may look like a short end of the load: only there is back-and-forth in
# between tolerated.
expect_yield_changes() {
        local c first=${2%% *} last=${2##* }
        if [ "${NETPOLLD_TEST_HOOKS:-0}" = 1 ]; then
                expect_eq "$1 changes in netpollctl monitor (on the fixture's clock)" "$2" "50us>0us(adaptive) 0us>50us(adaptive)"
                return
        fi
        expect_eq "first $1 change in netpollctl monitor" "$first" "50us>0us(adaptive)"
        expect_eq "last $1 change in netpollctl monitor" "$last" "0us>50us(adaptive)"
        for c in $2; do
                case $c in
                50us\>0us\(adaptive\) | 0us\>50us\(adaptive\)) ;;
                *) fail "unexpected $1 change in netpollctl monitor: $c (all: $2)" ;;
                esac
        done
}

# expect_budget_changes CHANGES: netdev-budget rose 600 -> 750 -> 900 -> 1000 (25 % of
# 600 per step, capped at 1000) and came back to 600; every step is one step up or
# down within [600, 1000] (without test hooks a driver stall may cut the burst
# short in between; on the fixture's clock the steps are exactly these).
expect_budget_changes() {
        local rise
        if [ "${NETPOLLD_TEST_HOOKS:-0}" = 1 ]; then
                expect_eq "netdev-budget changes in netpollctl monitor (on the fixture's clock)" "$1" \
                        "600>750(adaptive) 750>900(adaptive) 900>1000(adaptive) 1000>850(adaptive) 850>700(adaptive) 700>600(adaptive)"
                return
        fi
        rise=$(cut -d ' ' -f 1-3 <<<"$1")
        expect_eq "first netdev-budget changes in netpollctl monitor" "$rise" \
                "600>750(adaptive) 750>900(adaptive) 900>1000(adaptive)"
        expect_eq "last netdev-budget change in netpollctl monitor" "${1##* }" "700>600(adaptive)"
        local bad
        bad=$(tr ' ' '\n' <<<"$1" | awk -F'[>(]' '
                { old = $1; new = $2; up = new - old }
                $3 != "adaptive)" || new > 1000 || new < 600 || (up > 0 && up != 150 && new != 1000) ||
                (up < 0 && up != -150 && new != 600) || up == 0 { print }')
        expect_eq "netdev-budget changes that are not one step within [600, 1000]" "$bad" ""
        diag "netdev-budget changes: $1"
}

# squeeze_seen CPU: the latest GetLoad shows time_squeeze/s above 0 on CPU.
squeeze_seen() {
        LOAD=$(get_load) || return 1
        awk -v c="$1" 'NR > 1 && $1 == c && $6 > 0 { found = 1 } END { exit !found }' <<<"$LOAD"
}

# ---------------------------------------------------------------- cases

case_start_adaptive() {
        need_daemon || return
        expect_eq "Mode" "$(get_prop Mode)" 's "adaptive"'
        expect_eq "RunqueueSource" "$(get_prop RunqueueSource)" 's "procs_running"'
        expect_eq "Pressure" "$(get_prop Pressure)" 'b true'
        expect_eq "Interval" "$(get_prop Interval)" 't 20000'
        ctl status
        expect_rc 0
        expect_contains "netpollctl status" "$OUT" "Mode: adaptive"
        expect_contains "netpollctl status" "$OUT" "procs_running"
        expect_file $CORE/busy_read 50
        expect_file $CORE/busy_poll 50
        expect_file $CORE/netdev_budget 600
        log_has "run-queue depth from procs_running, CPU pressure from PSI" ||
                fail "no log line naming the run-queue source:" "$(cat "$LOG")"
}

# The host's load never leaks into a fixture run: with every CPU of this
# machine busy (more CPU-bound tasks than CPUs, so tasks wait and the host's
# own PSI and run queues show it) while the fixture says nothing waits,
# netpolld steps on its samples and moves nothing, and GetLoad shows the
# fixture's idle CPUs.
case_host_load_not_seen() {
        need_daemon || return
        local from hogs=() i n
        from=$(mon_lines)
        n=$(($(nproc) * 2))
        for ((i = 0; i < n; i++)); do
                background bash -c 'while :; do :; done'
                hogs+=("$BG_PID")
        done
        wait_samples 100
        LOAD=$(get_load)
        expect_eq "busy-read with the host loaded" "$(get_value_origin busy-read)" "50us profile"
        expect_eq "busy-poll with the host loaded" "$(get_value_origin busy-poll)" "50us profile"
        expect_eq "changes in netpollctl monitor with the host loaded" "$(tail -n +"$((from + 1))" "$MON")" ""
        expect_eq "GetLoad rows with tasks waiting with the host loaded" "$(awk 'NR > 1 && $2 != 0' <<<"$LOAD")" ""
        expect_eq "GetLoad CPUs (the fixture's, not the host's)" "$(awk 'NR > 1 { printf "%s ", $1 }' <<<"$LOAD")" "0 1 2 3 "
        # One step of fixture load on the loaded host (the driver runs late): one yield, one return.
        stat_load psi
        expect_moves busy-poll "0us adaptive" "under fixture CPU pressure on a loaded host"
        wait_samples 25
        stat_load
        expect_moves busy-poll "50us adaptive" "after the fixture's pressure ended on a loaded host"
        diag "host: $(nproc) CPUs, $n CPU-bound tasks; load average $(cut -d ' ' -f 1 /proc/loadavg); $(head -n 1 /proc/pressure/cpu 2>/dev/null)"
        for i in "${hogs[@]}"; do kill_and_wait "$i"; done
        wait_for 5 mon_has "$from" "busy-poll  0us -> 50us  (adaptive)" ||
                fail "netpollctl monitor did not show busy-poll 0us -> 50us (adaptive):" "$(cat "$MON")"
        expect_yield_changes busy-poll "$(mon_changes "$from" busy-poll)"
}

case_step_load() {
        need_daemon || return
        local from
        from=$(mon_lines)
        stat_load psi
        expect_moves busy-read "0us adaptive" "under CPU pressure"
        expect_moves busy-poll "0us adaptive" "under CPU pressure"
        expect_file $CORE/busy_read 0
        expect_file $CORE/busy_poll 0
        stat_load
        expect_moves busy-read "50us adaptive" "after the pressure ended"
        expect_moves busy-poll "50us adaptive" "after the pressure ended"
        expect_file $CORE/busy_read 50
        local k
        for k in busy-read busy-poll; do
                wait_for 5 mon_has "$from" "$k  0us -> 50us  (adaptive)" ||
                        fail "netpollctl monitor did not show $k 0us -> 50us (adaptive):" "$(cat "$MON")"
                expect_yield_changes "$k" "$(mon_changes "$from" "$k")"
        done
        log_has "busy polling yields to the waiting tasks" || fail "no log line giving the reason to yield"
        log_has "busy polling restored" || fail "no log line giving the reason to restore"
        # not squeezed: the budget never moved
        expect_file $CORE/netdev_budget 600
}

case_squeeze_burst() {
        need_daemon || return
        local from samples=$TMP/netdev_budget.samples sampler max min
        from=$(mon_lines)
        background sample_file $CORE/netdev_budget "$samples"
        sampler=$BG_PID
        stat_load squeeze
        expect_moves netdev-budget "1000 adaptive" "under a squeeze burst"
        # the cap holds while the burst goes on
        wait_samples "$WATCH"
        expect_eq "netdev-budget at the cap" "$(get_value_origin netdev-budget)" "1000 adaptive"
        stat_load
        wait_for "$DECAY_TIMEOUT" value_origin_is netdev-budget "600 adaptive" ||
                fail "netdev-budget did not decay to 600 within ${DECAY_TIMEOUT}s: $(get_value_origin netdev-budget)"
        wait_samples 15 # a few more intervals: nothing goes below the profile value
        kill_and_wait "$sampler"
        max=$(sort -n "$samples" | tail -n 1)
        min=$(sort -n "$samples" | head -n 1)
        expect_eq "highest netdev_budget sampled" "$max" 1000
        expect_eq "lowest netdev_budget sampled" "$min" 600
        # every value the file held is one the steps lead to (a busy machine may hide one from the sampler)
        expect_eq "netdev_budget values sampled other than 600 750 900 1000 850 700" \
                "$(grep -vxE '600|750|900|1000|850|700' "$samples" | sort -u | tr '\n' ' ')" ""
        wait_for 5 mon_has "$from" "netdev-budget  700 -> 600  (adaptive)" ||
                fail "netpollctl monitor did not show the last decay step 700 -> 600:" "$(cat "$MON")"
        expect_budget_changes "$(mon_changes "$from" netdev-budget)"
        # netdev-budget-time-max is not set: that knob is never raised
        expect_file $CORE/netdev_budget_usecs 8000
        expect_file $CORE/busy_read 50
        log_has "(cap 1000)" || fail "no log line naming the cap"
}

case_manual_wins() {
        need_daemon || return
        local from samples=$TMP/busy_read.samples sampler
        from=$(mon_lines)
        ctl set busy-read 20
        expect_rc 0
        wait_for 5 mon_last_is "$from" busy-read ">20us(manual)" ||
                fail "netpollctl monitor did not show busy-read set to 20us (manual):" "$(cat "$MON")"
        from=$(mon_lines)
        background sample_file $CORE/busy_read "$samples"
        sampler=$BG_PID
        stat_load psi
        # busy-poll moving shows the controller acted on the load
        expect_moves busy-poll "0us adaptive" "under CPU pressure"
        wait_samples "$WATCH"
        expect_eq "busy-read under load" "$(get_value_origin busy-read)" "20us manual"
        stat_load
        expect_moves busy-poll "50us adaptive" "after the pressure ended"
        kill_and_wait "$sampler"
        expect_eq "busy_read values sampled" "$(sort -u "$samples" | tr '\n' ' ')" "20 "
        expect_eq "busy-read changes in netpollctl monitor" "$(mon_changes "$from" busy-read)" ""
        ctl reset busy-read
        expect_rc 0
        expect_eq "busy-read after reset" "$(get_value_origin busy-read)" "50us profile"
}

# Contract (ARCHITECTURE.md "Ownership"): a value changed behind netpolld's back is
# left alone, never fought over, until it is reset.
case_external_not_fought() {
        need_daemon || return
        local from samples=$TMP/busy_poll.samples sampler before
        expect_file $CORE/busy_poll 50
        from=$(mon_lines)
        before=$(log_count "busy-poll was changed outside netpolld")
        background sample_file $CORE/busy_poll "$samples"
        sampler=$BG_PID
        # Like an administrator's sysctl: no client call follows that could make
        # netpolld look at its knobs sooner than its own periodic check does.
        printf '33\n' >"$ROOT/$CORE/busy_poll"
        wait_for 6 log_count_is_above "busy-poll was changed outside netpolld" "$before" ||
                fail "netpolld did not log busy-poll as changed outside within 6 s; log tail:" "$(tail -n 4 "$LOG")"
        expect_eq "busy-poll after the outside change" "$(get_value_origin busy-poll)" "33us external"
        stat_load psi
        expect_moves busy-read "0us adaptive" "under CPU pressure"
        wait_samples "$WATCH"
        stat_load
        expect_moves busy-read "50us adaptive" "after the pressure ended"
        kill_and_wait "$sampler"
        expect_eq "busy_poll values sampled after the outside change" "$(sed '1,/^33$/d' "$samples" | sort -u | tr '\n' ' ')" "33 "
        expect_eq "busy-poll changes in netpollctl monitor" "$(mon_changes "$from" busy-poll)" "50us>33us(external)"
        # The administrator puts the original back and hands the knob to netpolld.
        printf '0\n' >"$ROOT/$CORE/busy_poll"
        ctl reset busy-poll
        expect_rc 0
        expect_eq "busy-poll after reset" "$(get_value_origin busy-poll)" "50us profile"
        wait_for 5 mon_last_is "$from" busy-poll ">50us(reset)" ||
                fail "netpollctl monitor did not show busy-poll reset to 50us:" "$(cat "$MON")"
}

# A knob the profile does not set (netdev-budget-time) decays to the value it had
# before netpolld raised it, also when adaptation was paused and resumed meanwhile.
case_resume_decays_to_home() {
        need_daemon || return
        ctl profile set itest-adaptive-time
        expect_rc 0
        stat_load squeeze
        expect_moves netdev-budget-time "12000us adaptive" "under a squeeze burst"
        stat_load
        wait_for "$DECAY_TIMEOUT" value_origin_is netdev-budget-time "8000us adaptive" ||
                fail "netdev-budget-time did not decay to 8000us within ${DECAY_TIMEOUT}s: $(get_value_origin netdev-budget-time)"

        stat_load squeeze
        expect_moves netdev-budget-time "12000us adaptive" "under a squeeze burst"
        expect_moves netdev-budget "1000 adaptive" "under a squeeze burst"
        set_mode paused
        expect_rc 0
        stat_load
        set_mode adaptive
        expect_rc 0
        wait_for "$DECAY_TIMEOUT" value_origin_is netdev-budget "600 adaptive" ||
                fail "netdev-budget did not decay to 600 within ${DECAY_TIMEOUT}s of resuming: $(get_value_origin netdev-budget)"
        wait_for "$DECAY_TIMEOUT" value_origin_is netdev-budget-time "8000us adaptive" ||
                fail "after pause and resume netdev-budget-time stays at '$(get_value_origin netdev-budget-time)'," \
                        "expected to decay to '8000us adaptive' (its value before netpolld raised it) like netdev-budget did"
        ctl profile set itest-adaptive
        expect_rc 0
        expect_file $CORE/netdev_budget_usecs 8000
        expect_file $CORE/netdev_budget 600
}

set_mode() { busctl_ call org.netpolld1 /org/netpolld1 org.netpolld1.Manager SetMode s "$1"; }

case_pause_resume() {
        need_daemon || return
        local from read_before budget_before
        read_before=$(get_value_origin busy-read)
        budget_before=$(get_value_origin netdev-budget)
        expect_eq "busy-read before pausing" "${read_before% *}" "50us"
        expect_eq "netdev-budget before pausing" "${budget_before% *}" "600"
        set_mode paused
        expect_rc 0
        expect_eq "Mode after SetMode paused" "$(get_prop Mode)" 's "paused"'
        ctl status
        expect_contains "netpollctl status while paused" "$OUT" "Mode: paused"
        from=$(mon_lines)
        stat_load psi squeeze
        # the daemon sees the load (GetLoad samples by itself while paused) ...
        wait_for "$MOVE_TIMEOUT" squeeze_seen 1 ||
                fail "GetLoad never showed the squeeze burst on CPU 1 while paused:" "$LOAD"
        # ... and moves nothing: the controller takes no sample while paused, so
        # the watch counts GetLoad's own samples of the load instead.
        local i
        for ((i = 0; i < 10; i++)); do
                wait_for "$MOVE_TIMEOUT" squeeze_seen 1 ||
                        { fail "GetLoad stopped showing the squeeze burst on CPU 1 while paused:" "$LOAD"; break; }
        done
        expect_eq "busy-read while paused" "$(get_value_origin busy-read)" "$read_before"
        expect_eq "netdev-budget while paused" "$(get_value_origin netdev-budget)" "$budget_before"
        expect_eq "changes while paused" "$(tail -n +"$((from + 1))" "$MON")" ""
        set_mode adaptive
        expect_rc 0
        expect_eq "Mode after SetMode adaptive" "$(get_prop Mode)" 's "adaptive"'
        expect_moves busy-read "0us adaptive" "after resuming under load"
        expect_moves netdev-budget "1000 adaptive" "after resuming under a squeeze burst"
        stat_load
        expect_moves busy-read "50us adaptive" "after the load ended"
        wait_for "$DECAY_TIMEOUT" value_origin_is netdev-budget "600 adaptive" ||
                fail "netdev-budget did not decay to 600 within ${DECAY_TIMEOUT}s: $(get_value_origin netdev-budget)"
}

case_set_mode_refused() {
        need_daemon || return
        command -v gdbus >/dev/null || { fail "gdbus missing: error names not checked"; return; }
        gdbus_call SetMode bogus
        [ "$RC" != 0 ] || fail "SetMode bogus succeeded"
        expect_contains "SetMode bogus" "$ERR" "org.netpolld1.Error.InvalidValue"
        expect_contains "SetMode bogus" "$ERR" "invalid mode 'bogus': expected paused or adaptive"
        expect_eq "Mode after SetMode bogus" "$(get_prop Mode)" 's "adaptive"'

        run setpriv --reuid=65534 --regid=65534 --clear-groups busctl --address="$NETPOLLD_BUS_ADDRESS" \
                call org.netpolld1 /org/netpolld1 org.netpolld1.Manager SetMode s paused
        [ "$RC" != 0 ] || fail "unprivileged SetMode paused succeeded"
        expect_eq "Mode after an unprivileged SetMode" "$(get_prop Mode)" 's "adaptive"'

        ctl profile set itest-static
        expect_rc 0
        expect_eq "Mode with a profile that does not adapt" "$(get_prop Mode)" 's "static"'
        local mode
        for mode in paused adaptive; do
                gdbus_call SetMode "$mode"
                [ "$RC" != 0 ] || fail "SetMode $mode succeeded with itest-static"
                expect_contains "SetMode $mode with itest-static" "$ERR" "org.netpolld1.Error.InvalidValue"
                expect_contains "SetMode $mode with itest-static" "$ERR" "itest-static does not enable adaptation"
        done
        expect_eq "Mode after the refused SetMode" "$(get_prop Mode)" 's "static"'
        ctl profile set itest-adaptive
        expect_rc 0
        expect_eq "Mode back on itest-adaptive" "$(get_prop Mode)" 's "adaptive"'
        expect_file $CORE/busy_read 50
        expect_file $CORE/netdev_budget 600
}

case_backlog_drops() {
        need_daemon || return
        local before
        before=$(log_count "netdev-max-backlog")
        stat_load drops
        wait_for "$MOVE_TIMEOUT" log_count_is_above "netdev-max-backlog" "$before" ||
                fail "no log line naming netdev-max-backlog within ${MOVE_TIMEOUT}s of backlog drops:" \
                        "$(tail -n 8 "$LOG")"
        wait_samples "$WATCH" # drops go on: the advice is not repeated
        stat_load
        expect_eq "log lines naming netdev-max-backlog" "$(log_count "netdev-max-backlog")" "$((before + 1))"
        expect_contains "the advice" "$(grep -F "netdev-max-backlog" "$LOG" | tail -n 1)" \
                "netdev-max-backlog (1000) is the knob to raise"
        expect_contains "the advice" "$(grep -F "netdev-max-backlog" "$LOG" | tail -n 1)" "backlog drops"
        cmp -s "$SNAP/$CORE/netdev_max_backlog" "$ROOT/$CORE/netdev_max_backlog" ||
                fail "netdev_max_backlog changed: $(fx $CORE/netdev_max_backlog)"
        expect_eq "netdev-max-backlog" "$(get_value_origin netdev-max-backlog)" "1000 default"
}

log_count_is_above() { [ "$(log_count "$1")" -gt "$2" ]; }

# The latest GetLoad (in LOAD) shows squeezes and packets on CPU 1 and NET_RX and NET_TX on every CPU.
burst_seen() {
        LOAD=$(get_load) || return 1
        awk 'NR > 1 { n++; if ($3 == 0 || $4 == 0) bad = 1; if ($1 == 1 && $5 > 0 && $6 > 0) sq = 1 }
                END { exit bad || !sq || n != 4 }' <<<"$LOAD"
}

case_get_load() {
        need_daemon || return
        stat_load squeeze netrx
        # one interval that saw the burst in every file (a sample may fall between two files' updates)
        wait_for "$MOVE_TIMEOUT" burst_seen ||
                fail "GetLoad never showed squeezes and packets on CPU 1 and NET_RX on every CPU:" "$LOAD"
        stat_load
        local head cpus row
        head=$(head -n 1 <<<"$LOAD")
        cpus=$(awk 'NR > 1 { printf "%s ", $1 }' <<<"$LOAD")
        expect_eq "GetLoad source and psi" "$head" "procs_running true"
        expect_eq "GetLoad CPUs" "$cpus" "0 1 2 3 "
        # squeezes and packets only where the burst was, no drops anywhere
        row=$(awk 'NR > 1 && $1 != 1 && ($5 != 0 || $6 != 0)' <<<"$LOAD")
        expect_eq "GetLoad rows of other CPUs with packets or squeezes" "$row" ""
        row=$(awk 'NR > 1 && $7 != 0' <<<"$LOAD")
        expect_eq "GetLoad rows with drops" "$row" ""
        # procs_running 1 is the sampler itself: nothing waits
        row=$(awk 'NR > 1 && $2 != 0' <<<"$LOAD")
        expect_eq "GetLoad rows with tasks waiting" "$row" ""
        diag "GetLoad during the burst:" "$LOAD"
}

case_sigterm_restores() {
        need_daemon || return
        stat_load psi squeeze
        expect_moves busy-read "0us adaptive" "under load"
        expect_moves netdev-budget "1000 adaptive" "under a squeeze burst"
        stop_daemon TERM
        stop_stat_driver
        expect_eq "netpolld exit status on SIGTERM" "$DAEMON_RC" 0
        expect_knobs_restored "after SIGTERM"
        [ -e "$STATE/restore.journal" ] && fail "restore.journal left after a clean stop:" "$(cat "$STATE/restore.journal")"
        return 0
}

runnable_about_5000() {
        LOAD=$(get_load) || return 1
        awk 'NR > 1 { n++; if ($2 < 3000 || $2 > 9000) bad = 1; v[$2] = 1 } END { exit bad || n != 4 || length(v) != 1 }' <<<"$LOAD"
}

case_schedstat_source() {
        new_sysroot root-schedstat schedstat
        start_stat_driver
        # shellcheck disable=SC2119  # no extra options: the configured daemon
        start_daemon || return
        expect_eq "RunqueueSource" "$(get_prop RunqueueSource)" 's "schedstat"'
        expect_eq "Mode" "$(get_prop Mode)" 's "adaptive"'
        ctl status
        expect_contains "netpollctl status" "$OUT" "schedstat"
        stat_load rundelay
        expect_moves busy-read "0us adaptive" "with run_delay growing 5x faster than time"
        expect_moves busy-poll "0us adaptive" "with run_delay growing 5x faster than time"
        LOAD=$(get_load)
        expect_eq "GetLoad source" "$(head -n 1 <<<"$LOAD")" "schedstat true"
        # 5 tasks waiting on every CPU: the same on each, about 5000 once an
        # interval holds one bump (a bump lands in one interval or the next).
        wait_for "$MOVE_TIMEOUT" runnable_about_5000 ||
                fail "GetLoad never showed runnable x1000 of about 5000, the same on every CPU:" "$LOAD"
        stat_load
        expect_moves busy-read "50us adaptive" "after run_delay stopped growing"
        stop_daemon TERM
        stop_stat_driver
        expect_eq "netpolld exit status on SIGTERM" "$DAEMON_RC" 0
        expect_knobs_restored "after SIGTERM"
}

# The CPU pressure file passed as systemd's OpenFile= passes it (LISTEN_FDS,
# name "cpu-pressure"; tools/pass-cpu-pressure): when traffic first flows the
# trigger is armed on it if its opener held CAP_SYS_RESOURCE, refused with a
# reason if not; a file that is not a pressure file is closed untouched at
# start. The daemon runs on in every case. The host's real
# /proc/pressure/cpu, whatever the sysroot.
PASS_CPU_PRESSURE=$NETPOLLD_SOURCE_ROOT/tools/pass-cpu-pressure
since_start_has() { tail -n "+$((LOG_MARK + 1))" "$LOG" | grep -qF -- "$1"; }
# passed_file_run WHAT EXPECTED WRAPPER...: starts the daemon through
# WRAPPER, makes traffic (the squeeze load: thousands of packets a second)
# until the log says EXPECTED, stops it and checks the restore.
passed_file_run() {
        local what=$1 expected=$2
        shift 2
        LOG_MARK=$(wc -l <"$LOG")
        DAEMON_WRAPPER=("$@")
        # shellcheck disable=SC2119  # no extra options: the configured daemon
        start_daemon || { DAEMON_WRAPPER=(); fail "netpolld did not start with $what"; return 1; }
        DAEMON_WRAPPER=()
        stat_load squeeze
        wait_for "$MOVE_TIMEOUT" since_start_has "$expected" ||
                fail "with $what: '$expected' not logged under traffic:" "$(tail -n "+$LOG_MARK" "$LOG")"
        stat_load
        daemon_alive || fail "netpolld died with $what:" "$(tail -n "+$LOG_MARK" "$LOG")"
        stop_daemon TERM
        expect_eq "netpolld exit status on SIGTERM" "$DAEMON_RC" 0
        expect_knobs_restored "after SIGTERM"
}
case_passed_cpu_pressure_file() {
        local regular=$TMP/not-pressure
        if ! [ -r /proc/pressure/cpu ]; then
                skip "no PSI in this kernel (/proc/pressure/cpu)"
                return 0
        fi
        new_sysroot root-passed
        start_stat_driver

        # Opened by a process whose bounding set lacks CAP_SYS_RESOURCE: the kernel refuses the window.
        passed_file_run "a file opened without CAP_SYS_RESOURCE" \
                "the kernel refused a CPU pressure trigger on the file the service manager passed" \
                setpriv --bounding-set=-sys_resource --inh-caps=-sys_resource -- "$PASS_CPU_PRESSURE" --

        # Not a pressure file: closed at start, never written.
        printf 'keep me\n' >"$regular"
        passed_file_run "a regular file passed" \
                'the descriptor passed as "cpu-pressure" is not /proc/pressure/cpu: closed, nothing written to it' \
                "$PASS_CPU_PRESSURE" --file "$regular" --
        expect_eq "the regular file passed" "$(cat "$regular")" "keep me"

        # Opened in a new user namespace, whose credentials carry CAP_SYS_RESOURCE: armed.
        if "$PASS_CPU_PRESSURE" --opener userns -- true 2>"$TMP/userns.err"; then
                passed_file_run "a file opened in a user namespace" \
                        "traffic: CPU pressure trigger armed (some 10 ms within 500 ms, on the file the service manager passed)" \
                        "$PASS_CPU_PRESSURE" --opener userns --
        else
                skip "no user namespace here ($(cat "$TMP/userns.err")): an accepted passed file not checked"
        fi
        stop_stat_driver
}

case_no_statistics() {
        new_sysroot root-nostats nostats
        # shellcheck disable=SC2119  # no extra options: the configured daemon
        start_daemon || return
        expect_eq "Mode" "$(get_prop Mode)" 's "static"'
        expect_eq "RunqueueSource" "$(get_prop RunqueueSource)" 's ""'
        expect_eq "Pressure" "$(get_prop Pressure)" 'b false'
        expect_eq "busy-read" "$(get_value_origin busy-read)" "50us profile"
        log_has "cannot sample CPU and softnet statistics below $ROOT" ||
                fail "no log line saying the statistics cannot be read:" "$(tail -n 8 "$LOG")"
        if command -v gdbus >/dev/null; then
                gdbus_call GetLoad
                [ "$RC" != 0 ] || fail "GetLoad succeeded without statistics: $OUT"
                expect_contains "GetLoad without statistics" "$ERR" "org.netpolld1.Error.Failed"
                expect_contains "GetLoad without statistics" "$ERR" "statistics cannot be read below $ROOT"
                gdbus_call SetMode paused
                expect_contains "SetMode paused without statistics" "$ERR" "org.netpolld1.Error.InvalidValue"
        else
                fail "gdbus missing: error names not checked"
        fi
        ctl status
        expect_contains "netpollctl status" "$OUT" "Mode: static"
        daemon_alive || fail "netpolld died:" "$(tail -n 20 "$LOG")"
        stop_daemon TERM
        expect_eq "netpolld exit status on SIGTERM" "$DAEMON_RC" 0
        expect_tree_bytes "after SIGTERM" "$SNAP"
}

require_root_and_tools
setup_tmp
make_adaptive_policy
start_bus
new_sysroot root
start_stat_driver
# shellcheck disable=SC2119  # no extra options: the configured daemon
start_daemon || { echo "Bail out! netpolld did not start"; printf '%s' "$CASE_DIAG"; exit 1; }
start_monitor main

run_case "starts adaptive with procs_running and PSI as the load source" case_start_adaptive
run_case "a loaded host while the fixture is idle: nothing moves, GetLoad shows the fixture" case_host_load_not_seen
run_case "CPU pressure lowers busy-read and busy-poll to the floor and its end restores them" case_step_load
run_case "a squeeze burst raises netdev-budget in steps to its cap, then it decays to the profile value" case_squeeze_burst
run_case "a manually set knob is never moved by adaptation" case_manual_wins
run_case "a value changed behind netpolld's back is never moved by adaptation" case_external_not_fought
run_case "SetMode paused stops moves under load, SetMode adaptive resumes them" case_pause_resume
run_case "SetMode refuses a bogus mode, an unprivileged caller and a profile that does not adapt" case_set_mode_refused
run_case "netdev-budget-time decays to its value before the burst, also after pause and resume" case_resume_decays_to_home
run_case "backlog drops give one log line naming netdev-max-backlog and change nothing" case_backlog_drops
run_case "GetLoad reports the fixture's CPUs with their squeeze and NET_RX rates" case_get_load
run_case "SIGTERM after adaptive moves restores every file byte for byte" case_sigterm_restores
run_case "proc/schedstat run_delay is the load source when present" case_schedstat_source
run_case "a CPU pressure file passed by the service manager: armed, refused with a reason, or closed untouched" \
        case_passed_cpu_pressure_file
run_case "without statistics files netpolld runs static and GetLoad fails with a message" case_no_statistics
tap_done
