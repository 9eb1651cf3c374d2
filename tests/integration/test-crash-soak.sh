#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# test-crash-soak.sh: netpolld killed with SIGKILL at random moments on a
# fixture sysroot and a private bus. Each cycle starts netpolld, drives it
# with random sets, resets and profile switches through netpollctl, kills it
# (at a random time, at a crash point of a -Dtest-hooks=true build such as
# right after an original was journaled and before the knob was written, or
# in the middle of its SIGTERM restore), checks that every changed file is in
# the restore journal with its original, restarts it (the journal replay),
# drives it a little more and stops it: then every file of the fixture must
# equal its original byte for byte and no journal may be left.
#
# NETPOLLD_SOAK_CYCLES (default 20, the CI run) sets the number of cycles;
# NETPOLLD_SOAK_SEED makes a run repeatable (the seed is printed). One TAP
# line per cycle, then the totals. Speaks TAP; needs root (for the private
# bus set-up shared with the other integration tests).
#
# NETPOLLD_SOAK_HOST_CYCLES=N (default 0) adds N cycles against the real
# kernel (--sysroot /), with the global net.core knobs only (no device, no
# IRQ): run it under the host lock (flock /run/netpolld-host.lock). The
# script puts the host's values back itself on exit, whatever happened.

# shellcheck source=tests/integration/lib.sh
. "$(dirname "$(readlink -f "$0")")/lib.sh"

CYCLES=${NETPOLLD_SOAK_CYCLES:-20}
SEED=${NETPOLLD_SOAK_SEED:-$(( $(date +%s) % 100000 ))}
RANDOM=$SEED

HOST_CYCLES=${NETPOLLD_SOAK_HOST_CYCLES:-0}
KNOBS=(busy-read busy-poll netdev-budget netdev-budget-time dev-weight netdev-max-backlog
        napi-defer-hard-irqs@veth0 gro-flush-timeout@veth0 napi-threaded@veth0 rps-cpus@veth0 xps-cpus@veth0)
GLOBAL_KNOBS=(busy-read busy-poll netdev-budget netdev-budget-time dev-weight netdev-max-backlog)
HOST_FILES=(busy_read busy_poll netdev_budget netdev_budget_usecs dev_weight netdev_max_backlog)
PROFILE_A=itest-latency
PROFILE_B=itest-budget

# Totals for the summary.
N_OPS=0
N_OPS_OK=0
N_CRASHED_AT_HOOK=0
N_CRASHED_IN_START=0
N_CHANGED_AT_CRASH=0
N_LOST=0
declare -A MODES=()

random_value() { # KNOB
        case $1 in
        busy-read | busy-poll) echo "$((RANDOM % 200))us" ;;
        netdev-budget) echo $((1 + RANDOM % 1000)) ;;
        netdev-budget-time) echo "$((8000 + RANDOM % 20000))us" ;; # at least 2 jiffies at HZ=250
        dev-weight) echo $((1 + RANDOM % 512)) ;;
        netdev-max-backlog) echo $((100 + RANDOM % 5000)) ;;
        napi-defer-hard-irqs@*) echo $((RANDOM % 10)) ;;
        gro-flush-timeout@*) echo "$((RANDOM % 100))us" ;;
        napi-threaded@*) echo $((RANDOM % 2)) ;;
        rps-cpus@* | xps-cpus@*)
                local sets=(0 1 0-1 none)
                echo "${sets[RANDOM % 4]}"
                ;;
        esac
}

random_knob() { echo "${KNOBS[RANDOM % ${#KNOBS[@]}]}"; }

# One random netpollctl operation; its outcome is not judged here (the
# daemon may be killed under it): what counts is the fixture afterwards.
random_op() {
        local args=() k n i
        case $((RANDOM % 10)) in
        0 | 1 | 2 | 3 | 4)
                n=$((1 + RANDOM % 3))
                for ((i = 0; i < n; i++)); do
                        k=$(random_knob)
                        args+=("$k" "$(random_value "$k")")
                done
                "$NETPOLLCTL" set "${args[@]}"
                ;;
        5 | 6) "$NETPOLLCTL" reset "$(random_knob)" ;;
        7) "$NETPOLLCTL" reset --all ;;
        8) "$NETPOLLCTL" profile set "$PROFILE_B" ;;
        9) "$NETPOLLCTL" profile set "$PROFILE_A" ;;
        esac
}

# launch [VAR=VALUE...]: spawn_daemon with that environment; 0 when netpolld
# answers, 1 when it died first (DAEMON_RC), 2 (and the case fails) on a timeout.
launch() {
        local r
        DAEMON_ENV=("$@")
        spawn_daemon
        r=$?
        DAEMON_ENV=()
        [ "$r" = 2 ] && fail "netpolld did not answer within ${READY_TIMEOUT}s" "$(tail -n 20 "$LOG")"
        return $r
}

# Runs up to N random operations while netpolld lives; counts them in N_OPS.
drive() { # N
        local i
        for ((i = 0; i < $1; i++)); do
                daemon_alive || return 0
                random_op >/dev/null 2>&1 && N_OPS_OK=$((N_OPS_OK + 1))
                N_OPS=$((N_OPS + 1))
        done
}

# The crash invariant: what differs from the originals is journaled with them.
check_journal_covers() { # WHEN
        local changed
        if ! changed=$(python3 "$LIB_DIR/journal-covers.py" "$ROOT" "$SNAP" "$STATE/restore.journal" 2>"$TMP/covers.err"); then
                fail "$1: a changed value is not journaled with its original:" "$(cat "$TMP/covers.err")" \
                        "journal:" "$(cat "$STATE/restore.journal" 2>/dev/null)"
                return
        fi
        N_CHANGED_AT_CRASH=$((N_CHANGED_AT_CRASH + changed))
}

kill9() {
        [ -n "$DAEMON_PID" ] || return 0
        sigkill "$DAEMON_PID"
        { wait "$DAEMON_PID"; } 2>/dev/null
        DAEMON_PID=
}

soak_cycle() { # I
        local mode point k lost d
        # Every kind of kill in turn; where and when it strikes is random.
        if [ "${NETPOLLD_TEST_HOOKS:-0}" = 1 ]; then
                mode=$(($1 % 4))
        else
                mode=$(($1 % 2 * 3))  # the random-time kill or the kill while stopping
        fi
        case $mode in
        0)
                MODES[random-time]=$((${MODES[random-time]:-0} + 1))
                launch || { fail "netpolld died at start (rc $DAEMON_RC):" "$(tail -n 20 "$LOG")"; return; }
                drive $((RANDOM % 6))
                # keep operations going while the kill comes at a random moment
                (while :; do random_op >/dev/null 2>&1; done) &
                local load=$!
                sleep "0.$(printf '%03d' $((RANDOM % 400)))"
                kill9
                kill "$load" 2>/dev/null
                wait "$load" 2>/dev/null
                diag "cycle $1: kill -9 at a random time"
                ;;
        1 | 2)
                point=journal-written
                [ "$mode" = 2 ] && point=knob-written
                k=$((1 + RANDOM % 12))
                MODES[$point]=$((${MODES[$point]:-0} + 1))
                if launch NETPOLLD_TEST_CRASH_AT="$point:$k"; then
                        drive 40
                else
                        N_CRASHED_IN_START=$((N_CRASHED_IN_START + 1))
                fi
                if daemon_alive; then
                        diag "cycle $1: crash point $point:$k not reached in 40 operations; kill -9"
                        kill9
                else
                        { [ -n "$DAEMON_PID" ] && wait "$DAEMON_PID"; } 2>/dev/null
                        DAEMON_PID=
                        if tail -n 5 "$LOG" | grep -qF "test hook: crashing at $point:$k"; then
                                N_CRASHED_AT_HOOK=$((N_CRASHED_AT_HOOK + 1))
                                diag "cycle $1: killed itself at $point:$k"
                        else
                                fail "netpolld died, but not at the crash point $point:$k:" "$(tail -n 20 "$LOG")"
                        fi
                fi
                ;;
        3)
                MODES[during-restore]=$((${MODES[during-restore]:-0} + 1))
                launch || { fail "netpolld died at start (rc $DAEMON_RC):" "$(tail -n 20 "$LOG")"; return; }
                drive $((1 + RANDOM % 8))
                kill -TERM "$DAEMON_PID"
                sleep "0.0$(printf '%02d' $((RANDOM % 50)))"
                kill9
                diag "cycle $1: kill -9 while stopping"
                ;;
        esac
        check_journal_covers "after the kill"

        # The restart replays the journal, then applies the profile again.
        launch || { fail "the restart after the crash failed (rc $DAEMON_RC):" "$(tail -n 20 "$LOG")"; return; }
        drive $((RANDOM % 4))
        stop_daemon TERM
        expect_eq "exit status on SIGTERM" "$DAEMON_RC" 0
        d=$(differing_files)
        lost=$(grep -c . <<<"$d")
        N_LOST=$((N_LOST + lost))
        [ -z "$d" ] || fail "after the stop, $lost values differ from the originals:" "$d"
        [ -e "$STATE/restore.journal" ] && fail "restore.journal left after a clean stop:" "$(cat "$STATE/restore.journal")"
        if [ "$CASE_FAILED" = 1 ]; then
                # the next cycle starts from the originals again
                rm -f "$STATE/restore.journal"
                put_back_originals
        fi
        return 0
}

# Each file of $SNAP whose bytes differ below $ROOT: "PATH: ORIGINAL -> NOW".
differing_files() {
        local f
        (cd "$SNAP" && find . -type f | LC_ALL=C sort) | while read -r f; do
                f=${f#./}
                # through a pipe: cmp takes a size difference as the answer, and /proc files say 0
                cmp -s "$SNAP/$f" <(cat "$ROOT/$f" 2>/dev/null) ||
                        echo "/$f: $(od -An -c "$SNAP/$f" | tr -s ' ') -> $(od -An -c "$ROOT/$f" 2>/dev/null | tr -s ' ')"
        done
}

# Writes every original of $SNAP back below $ROOT (file by file: ROOT may be /).
put_back_originals() {
        local f
        (cd "$SNAP" && find . -type f) | while read -r f; do
                f=${f#./}
                cmp -s "$SNAP/$f" <(cat "$ROOT/$f" 2>/dev/null) || cat "$SNAP/$f" >"$ROOT/$f"
        done
}

# The real kernel from here on: global net.core knobs only, host profiles, a
# snapshot of their files, and a trap that writes them back whatever happens.
switch_to_host() {
        local f
        ROOT=/
        SNAP=$TMP/host-originals
        mkdir -p "$SNAP/proc/sys/net/core"
        for f in "${HOST_FILES[@]}"; do
                cat "/proc/sys/net/core/$f" >"$SNAP/proc/sys/net/core/$f" || return 1
        done
        trap 'cleanup_host' EXIT
        KNOBS=("${GLOBAL_KNOBS[@]}")
        PROFILE_A=itest-host-a
        PROFILE_B=itest-host-b
        printf '[profile]\ndescription = soak on the host\n[knobs]\nbusy-read = 50us\nbusy-poll = 50us\nnetdev-budget = 600\n' \
                >"$PROFILES/itest-host-a.conf"
        printf '[profile]\ndescription = soak on the host\n[knobs]\nnetdev-budget = 450\ndev-weight = 128\n' \
                >"$PROFILES/itest-host-b.conf"
        write_config itest-host-a
        rm -f "$STATE/restore.journal"
}

cleanup_host() {
        cleanup_daemons_only
        [ "$ROOT" = / ] && [ -d "$SNAP" ] && put_back_originals
        cleanup
}

# The daemon first (it must not write after the originals are back), then the rest in cleanup().
cleanup_daemons_only() {
        [ -n "$DAEMON_PID" ] && sigkill "$DAEMON_PID" && { wait "$DAEMON_PID"; } 2>/dev/null
        DAEMON_PID=
}

require_root_and_tools
setup_tmp
make_fixture
make_policy
start_bus
mkdir -p "$STATE"

echo "# seed $SEED, $CYCLES cycles, test hooks: ${NETPOLLD_TEST_HOOKS:-0}"
[ "${NETPOLLD_TEST_HOOKS:-0}" = 1 ] ||
        echo "# netpolld built without -Dtest-hooks=true: no crash-point cycles, only random-time kills and kills while stopping"
for ((c = 1; c <= CYCLES; c++)); do
        run_case "soak cycle $c: crash, restart, stop: every fixture file equals its original" soak_cycle "$c"
done
reset_totals() {
        N_OPS=0 N_OPS_OK=0 N_CRASHED_AT_HOOK=0 N_CRASHED_IN_START=0 N_CHANGED_AT_CRASH=0 N_LOST=0
        MODES=()
}

summary() { # CYCLES
        local m modes=
        for m in "${!MODES[@]}"; do
                modes+=" $m=${MODES[$m]}"
        done
        diag "seed $SEED: $1 cycles ($modes ), $N_OPS netpollctl operations ($N_OPS_OK succeeded; more ran under the random-time kills), $N_CRASHED_AT_HOOK crashes at a crash point ($N_CRASHED_IN_START during start-up), $N_CHANGED_AT_CRASH changed values journaled at the crashes, $N_LOST values lost"
        expect_eq "values lost" "$N_LOST" 0
        [ "${NETPOLLD_TEST_HOOKS:-0}" = 1 ] && [ "$1" -ge 10 ] && [ "$N_CRASHED_AT_HOOK" = 0 ] &&
                fail "no cycle reached its crash point: the hook does not work"
        return 0
}
run_case "soak totals" summary "$CYCLES"

if [ "$HOST_CYCLES" -gt 0 ]; then
        if ! switch_to_host; then
                echo "Bail out! cannot read the host's net.core values"
                exit 1
        fi
        echo "# $HOST_CYCLES cycles against the real kernel (net.core: ${HOST_FILES[*]})"
        reset_totals
        for ((c = 1; c <= HOST_CYCLES; c++)); do
                run_case "host cycle $c: crash, restart, stop: every net.core value equals its original" soak_cycle "$c"
        done
        run_case "host totals" summary "$HOST_CYCLES"
fi
tap_done
