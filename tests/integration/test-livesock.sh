#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# test-livesock.sh: [adaptive] live-sockets. A python process (livesock-holder.py)
# holds blocking TCP connections on loopback whose SO_BUSY_POLL is what they
# would have copied from netpolld's busy-read (37: the profile's value), the
# application's own (20), or the floor value from before the yield (3). The
# controller is driven on a fixture sysroot (stats.sh): its yield lowers the
# live 37s to the floor and leaves the others alone; its return brings them
# back and raises a connection made during the yield (it copied the floor
# from busy-read) but not one that held the floor before; a SIGTERM during a
# yield puts the lowered ones back to 37, and so does a reload to a profile
# without live-sockets; with live-sockets = no nothing moves; without
# CAP_SYS_PTRACE (a unit without the drop-in) netpolld starts and moves nothing.
#
# busy_read itself is a fixture file, but the sockets are real and netpolld
# walks the real /proc: any socket on this host holding exactly 37 (an unusual
# value on purpose) would follow too. Run it under the host lock like the
# other tests that touch real kernel state. Speaks TAP.

# shellcheck source=tests/integration/lib.sh
. "$(dirname "$(readlink -f "$0")")/lib.sh"
# shellcheck source=tests/integration/stats.sh
. "$LIB_DIR/stats.sh"

CORE=proc/sys/net/core
MOVE_TIMEOUT=10

make_livesock_policy() {
        mkdir -p "$PROFILES"
        cat >"$PROFILES/itest-live.conf" <<'EOF2'
[profile]
description = integration test: busy-read yields reach live sockets
[knobs]
busy-read = 37us
busy-poll = 37us
[adaptive]
enabled = yes
runqueue-threshold = 0.5
hold = 2
min-dwell = 100ms
busy-poll-floor = 3us
live-sockets = yes
EOF2
        cat >"$PROFILES/itest-live-off.conf" <<'EOF2'
[profile]
description = integration test: the same without live sockets
include = itest-live
[adaptive]
live-sockets = no
EOF2
        printf '[daemon]\nprofile = itest-live\ninterval = 20ms\n' >"$CONF"
}

# The holder runs as a coprocess: holder CMD... writes a command and reads one answer into $HOLDER_OUT.
start_holder() {
        coproc HOLDER { exec python3 "$LIB_DIR/livesock-holder.py"; }
        STARTED_PIDS+=("$HOLDER_PID")
}

holder() {
        HOLDER_OUT=
        printf '%s\n' "$*" >&"${HOLDER[1]}"
        read -r -t 10 HOLDER_OUT <&"${HOLDER[0]}" || fail "livesock-holder.py did not answer '$*'"
}

sockets_are() { holder get; [ "$HOLDER_OUT" == "$1" ]; }

# expect_sockets WHAT "A=.. B=..": waits for the holder's sockets to hold these values.
expect_sockets() {
        wait_for "$MOVE_TIMEOUT" sockets_are "$2" ||
                fail "$1: the sockets hold '$HOLDER_OUT', expected '$2'; log tail:" "$(tail -n 8 "$LOG")"
}

# log_before A B: the log's first line holding A comes before its first line holding B.
log_before() {
        local a b
        a=$(grep -nF -- "$1" "$LOG" | head -n 1 | cut -d: -f1)
        b=$(grep -nF -- "$2" "$LOG" | head -n 1 | cut -d: -f1)
        [[ -n $a && -n $b ]] && ((a < b))
}

busy_read_is() { [ "$(cat "$ROOT/$CORE/busy_read")" == "$1" ]; }

expect_busy_read() { # WHAT VALUE
        wait_for "$MOVE_TIMEOUT" busy_read_is "$2" ||
                fail "$1: busy_read is $(cat "$ROOT/$CORE/busy_read"), expected $2; log tail:" "$(tail -n 8 "$LOG")"
}

# ---------------------------------------------------------------- cases

case_yield_and_return() {
        need_daemon || return
        holder open a 37 && holder open b 20 && holder open c 3
        expect_sockets "before any load" "a=37 b=20 c=3"
        stat_load psi
        expect_busy_read "under CPU pressure" 3
        expect_sockets "after the yield" "a=3 b=20 c=3"
        holder ping
        expect_eq "blocking round trip after the yield" "$HOLDER_OUT" "pong"
        # made during the yield: it copied busy-read's floor
        holder open d 3
        stat_load
        expect_busy_read "after the pressure ended" 37
        expect_sockets "after the return" "a=37 b=20 c=3 d=37"
        log_has "live sockets (yield): 1 of" || fail "no log line counting the yield's sockets:" "$(cat "$LOG")"
        log_has "live sockets (return): 2 of" || fail "no log line counting the return's sockets:" "$(cat "$LOG")"
        # busy-poll's sysctl, which epoll applications read at each wait, does not wait for the walk
        log_before "busy-poll: 37 -> 3 " "live sockets (yield)" ||
                fail "busy-poll's yield came after the socket walk:" "$(cat "$LOG")"
        log_before "busy-poll: 3 -> 37 " "live sockets (return)" ||
                fail "busy-poll's return came after the socket walk:" "$(cat "$LOG")"
        diag "$(grep -F "live sockets (" "$LOG")"
}

case_sigterm_during_yield() {
        need_daemon || return
        stat_load psi
        expect_busy_read "under CPU pressure" 3
        expect_sockets "after the yield" "a=3 b=20 c=3 d=3"
        stop_daemon TERM
        expect_eq "netpolld exit status on SIGTERM" "$DAEMON_RC" 0
        stat_load
        # a and d were lowered by netpolld; c held the floor before; b is the application's
        expect_sockets "after SIGTERM" "a=37 b=20 c=3 d=37"
        expect_file $CORE/busy_read 0
        log_has "live sockets (undo): 2 of" || fail "no log line counting the undo's sockets:" "$(cat "$LOG")"
}

case_off_touches_nothing() {
        local walks
        walks=$(log_count "live sockets (")
        write_config itest-live-off
        printf 'interval = 20ms\n' >>"$CONF"
        # shellcheck disable=SC2119  # no extra options: the configured daemon
        start_daemon || return
        expect_sockets "at start" "a=37 b=20 c=3 d=37"
        stat_load psi
        expect_busy_read "under CPU pressure" 3
        sleep 0.5
        expect_sockets "after the yield without live-sockets" "a=37 b=20 c=3 d=37"
        stat_load
        expect_busy_read "after the pressure ended" 37
        stop_daemon TERM
        expect_eq "netpolld exit status on SIGTERM" "$DAEMON_RC" 0
        expect_sockets "after SIGTERM" "a=37 b=20 c=3 d=37"
        expect_eq "socket walks logged without live-sockets" "$(log_count "live sockets (")" "$walks"
}

case_reload_off_during_yield() {
        write_config itest-live
        printf 'interval = 20ms\n' >>"$CONF"
        # shellcheck disable=SC2119  # no extra options: the configured daemon
        start_daemon || return
        stat_load psi
        expect_busy_read "under CPU pressure" 3
        expect_sockets "after the yield" "a=3 b=20 c=3 d=3"
        write_config itest-live-off
        printf 'interval = 20ms\n' >>"$CONF"
        ctl reload
        expect_rc 0
        # still yielding (the load goes on), but the sockets it lowered are back
        expect_sockets "after a reload to live-sockets = no" "a=37 b=20 c=3 d=37"
        expect_busy_read "after the reload, under CPU pressure" 3
        log_has "live sockets (undo): 2 of" || fail "no log line counting the undo's sockets:" "$(tail -n 8 "$LOG")"
        stat_load
        stop_daemon TERM
        expect_eq "netpolld exit status on SIGTERM" "$DAEMON_RC" 0
        expect_sockets "after SIGTERM" "a=37 b=20 c=3 d=37"
}

# Under a unit without the live-sockets drop-in: no CAP_SYS_PTRACE to keep. netpolld must
# still start, say why live sockets are out of reach, and leave the root-owned sockets alone
# (the holder's permitted set is not a subset of netpolld's).
case_without_ptrace_starts_and_says_why() {
        local real=$NETPOLLD
        write_config itest-live
        printf 'interval = 20ms\n' >>"$CONF"
        printf '#!/bin/sh\nexec setpriv --bounding-set=-sys_ptrace %s "$@"\n' "$real" >"$TMP/bin/netpolld-noptrace"
        chmod 0755 "$TMP/bin/netpolld-noptrace"
        NETPOLLD=$TMP/bin/netpolld-noptrace
        # shellcheck disable=SC2119  # no extra options: the configured daemon
        start_daemon
        local started=$?
        NETPOLLD=$real
        [ "$started" = 0 ] || return
        log_has "does not hold CAP_SYS_PTRACE" || fail "no log line saying CAP_SYS_PTRACE is missing:" "$(cat "$LOG")"
        stat_load psi
        expect_busy_read "under CPU pressure" 3
        # The holder's fd directory is out of reach (it stays visible: ProtectProc is systemd's).
        wait_for "$MOVE_TIMEOUT" grep -qE "live sockets \(yield\): 0 of [0-9]+ .*[1-9][0-9]* processes' descriptors out of reach" "$LOG" ||
                fail "no log line counting the processes out of reach:" "$(tail -n 8 "$LOG")"
        expect_sockets "after the yield without CAP_SYS_PTRACE" "a=37 b=20 c=3 d=37"
        stat_load
        expect_busy_read "after the pressure ended" 37
        stop_daemon TERM
        expect_eq "netpolld exit status on SIGTERM" "$DAEMON_RC" 0
}

require_root_and_tools
setup_tmp
make_livesock_policy
start_bus
make_fixture
stat_init 2
start_stat_driver
start_holder
# shellcheck disable=SC2119  # no extra options: the configured daemon
start_daemon || { echo "Bail out! netpolld did not start"; printf '%s' "$CASE_DIAG"; exit 1; }

run_case "a yield lowers live sockets holding busy-read's value and its return raises them" case_yield_and_return
run_case "SIGTERM during a yield puts the lowered sockets back" case_sigterm_during_yield
run_case "with live-sockets = no a yield leaves live sockets alone" case_off_touches_nothing
run_case "a reload to a profile without live-sockets during a yield puts the lowered sockets back" case_reload_off_during_yield
run_case "without CAP_SYS_PTRACE netpolld starts, says why and changes no socket" case_without_ptrace_starts_and_says_why
tap_done
