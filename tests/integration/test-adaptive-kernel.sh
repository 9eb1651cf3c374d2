#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# test-adaptive-kernel.sh: adaptive busy polling on the real kernel (tier 3).
# Two network namespaces joined by a veth pair (GRO on, TSO off, so TCP goes
# through veth's NAPI), a 1-byte request/response client and server (bench/rr.c)
# pinned to different CPUs, netpolld on the real sysroot with a profile that
# busy-polls 50us and adapts, with the client's CPU as its polling CPU
# (poll-cpus = 0) and the pay rule on. Polling that delivers packets in the
# client's namespace must be kept; a CPU-bound task on the server's CPU must
# not make netpolld yield (nobody waits where the client polls); one started
# on the client's CPU must make netpolld lower busy-read within a few
# intervals; once it ends, busy-read must come back. The host's busy_read/busy_poll are restored
# whatever happens (netpolld restores on stop; the trap puts back the values
# read at the start as well). Time bounds are generous: this asserts what
# happens, not how fast. Speaks TAP; needs root and at least 2 CPUs.

# shellcheck source=tests/integration/lib.sh
. "$(dirname "$(readlink -f "$0")")/lib.sh"

require_root_and_tools
for t in ip ethtool taskset cc; do
        if ! command -v "$t" >/dev/null; then
                echo "1..0 # SKIP needs $t"
                exit 0
        fi
done
if [ "$(nproc)" -lt 2 ]; then
        echo "1..0 # SKIP needs 2 CPUs"
        exit 0
fi

NSC=npdak-c-$$
NSS=npdak-s-$$
CORE=/proc/sys/net/core
ORIG_BUSY_READ=$(cat $CORE/busy_read)
ORIG_BUSY_POLL=$(cat $CORE/busy_poll)

restore_host() {
        # netpolld restores on stop; this is the safety net if it could not.
        echo "$ORIG_BUSY_READ" >$CORE/busy_read
        echo "$ORIG_BUSY_POLL" >$CORE/busy_poll
        ip netns del "$NSC" 2>/dev/null
        ip netns del "$NSS" 2>/dev/null
}
setup_tmp
trap 'cleanup; restore_host' EXIT
ROOT=/ # the real kernel: never call the fixture helpers of lib.sh

RR=$TMP/rr
cc -O2 -pthread -o "$RR" "$NETPOLLD_SOURCE_ROOT/bench/rr.c" || { echo "Bail out! cannot build bench/rr.c"; exit 1; }

mkdir -p "$PROFILES"
cat >"$PROFILES/itest-adaptive-kernel.conf" <<'CONF'
[profile]
description = integration test: busy polling that yields to CPU-bound tasks
[knobs]
busy-read = 50us
busy-poll = 50us
[adaptive]
enabled = yes
runqueue-threshold = 0.5
hold = 3
min-dwell = 500ms
busy-poll-floor = 0us
poll-cpus = 0
pay-window = 2s
CONF
printf '[daemon]\nprofile = itest-adaptive-kernel\ninterval = 100ms\n' >"$CONF"

start_bus
ip netns add "$NSC" && ip netns add "$NSS" &&
        veth_pair npdak0 "$NSC" npdak1 "$NSS" &&
        ip netns exec "$NSC" ethtool -K npdak0 tso off >/dev/null &&
        ip netns exec "$NSS" ethtool -K npdak1 tso off >/dev/null &&
        ip -n "$NSC" addr add 10.231.0.1/24 dev npdak0 && ip -n "$NSS" addr add 10.231.0.2/24 dev npdak1 &&
        ip -n "$NSC" link set lo up && ip -n "$NSS" link set lo up ||
        { echo "Bail out! cannot set up the namespaces and the veth pair"; exit 1; }

busy_read() { cat $CORE/busy_read; }

# The share (in percent) of the next SECONDS during which some task waited for a
# CPU, by PSI: what netpolld sees on this kernel (no schedstat, no debugfs).
psi_some_percent() {
        local a b
        a=$(awk '/^some/ { sub("total=", "", $5); print $5 }' /proc/pressure/cpu)
        sleep "$1"
        b=$(awk '/^some/ { sub("total=", "", $5); print $5 }' /proc/pressure/cpu)
        echo $(((b - a) / ($1 * 10000)))
}
busy_read_is() { [ "$(busy_read)" = "$1" ]; }
log_matches() { grep -q -- "$1" "$LOG"; }

# ---------------------------------------------------------------- cases

case_start() {
        start_daemon || return
        wait_for 5 busy_read_is 50 || fail "busy_read after start: $(busy_read), expected 50"
        expect_eq "busy_poll after start" "$(cat $CORE/busy_poll)" 50
        local mode
        mode=$(get_prop Mode)
        expect_eq "Mode" "$mode" 's "adaptive"'
}

SERVER_PID= CLIENT_PID= HOG_PID=
case_traffic() {
        need_daemon || return
        ip netns exec "$NSS" taskset -c 1 "$RR" server --bind 10.231.0.2 --port 7777 --max-time 120 \
                >"$TMP/server.log" 2>&1 &
        SERVER_PID=$!
        STARTED_PIDS+=("$SERVER_PID")
        sleep 0.5
        ip netns exec "$NSC" taskset -c 0 "$RR" client --host 10.231.0.2 --port 7777 --duration 30 \
                >"$TMP/client.log" 2>&1 &
        CLIENT_PID=$!
        STARTED_PIDS+=("$CLIENT_PID")
        # With only the request/response pair running, nothing waits for a CPU.
        sleep 2
        # On a host busy with other work busy polling rightly yields already:
        # then the cases below cannot tell the antagonist's effect apart.
        if ! busy_read_is 50; then
                QUIET=no
                skip "the host is busy with other work (busy_read $(busy_read) before any antagonist; PSI some $(psi_some_percent 2)%)"
        fi
}

QUIET=yes
# CPU 1's runnable depth as GetLoad reports it (x1000, rounded), empty when unknown
cpu1_runnable_milli() {
        get_load | awk '$1 == 1 { printf "%d\n", $2 * 1000 + 0.5 }'
}
cpu1_waits() { local v; v=$(cpu1_runnable_milli); [ -n "$v" ] && [ "$v" -ge 500 ]; }

# A CPU-bound task on CPU 1, where the server runs: the server now waits there,
# and the per-task signal must put that waiting on CPU 1 (GetLoad). Whether
# busy polling on CPU 0 yields is not asserted here: unpinned tasks the hog
# pushes off CPU 1 (netpolld itself, this script) then wait behind the poller
# on CPU 0, which is what the objective counts (fixture tests check that
# waiting on another CPU alone does not count: tests/test-monitor.c).
case_server_cpu_waits() {
        need_daemon || return
        [ "$QUIET" = yes ] || { skip "no quiet baseline"; return; }
        local hog
        taskset -c 1 sh -c 'while :; do :; done' &
        hog=$!
        STARTED_PIDS+=("$hog")
        wait_for 5 cpu1_waits ||
                fail "GetLoad did not show tasks waiting on CPU 1 with a CPU-bound task and the server there" \
                        "$(get_load)"
        kill_and_wait "$hog"
        # The client's busy polling delivered packets in its own namespace: it paid.
        if log_has "delivered no packet"; then
                fail "netpolld judged the client's busy polling unpaid" "$(tail -n 10 "$LOG")"
        fi
}

case_antagonist_lowers() {
        need_daemon || return
        [ "$QUIET" = yes ] || { skip "no quiet baseline"; return; }
        # A CPU-bound task on the client's CPU: now a task always waits there.
        taskset -c 0 sh -c 'while :; do :; done' &
        HOG_PID=$!
        STARTED_PIDS+=("$HOG_PID")
        if wait_for 20 busy_read_is 0; then
                log_has "busy polling yields" || fail "no log line with the controller's reason"
                # The crowd is marked from the yield's sample on: it may be found a few samples later,
        # after another CPU-bound task (one of a test running beside this one).
                wait_for 5 log_matches "busy polling \(also \)\?yields to the CPU-bound tasks of .*sh\[$HOG_PID\]" ||
                        fail "no log line naming sh[$HOG_PID] among the tasks busy polling yields to" \
                                "$(grep "busy polling" "$LOG")"
                local v
                v=$(get_value_origin busy-read)
                expect_eq "busy-read origin" "$v" "0us adaptive"
        else
                fail "busy_read stayed $(busy_read) for 20 s with a CPU-bound task on the client's CPU" \
                        "$(tail -n 10 "$LOG")"
        fi
}

# Busy polling stays down while the task runs: the client waking behind it
# waits, or, once it sleeps until its packets and nobody waits, the crowd rule
# holds the yield (netpolld.conf(5), runqueue-threshold), with probes after
# 2 s, then 4 s. Without the rule it came back and yielded again every ~2 s.
case_antagonist_holds_the_yield() {
        need_daemon || return
        [ "$QUIET" = yes ] || { skip "no quiet baseline"; return; }
        [ -n "$HOG_PID" ] && busy_read_is 0 || { skip "busy polling did not yield"; return; }
        local from yields returns probes
        from=$(wc -l <"$LOG")
        sleep 7
        yields=$(tail -n +"$((from + 1))" "$LOG" | grep -c "busy.read.*busy polling yields")
        returns=$(tail -n +"$((from + 1))" "$LOG" | grep "busy.read" | grep -c "busy polling restored")
        probes=$(tail -n +"$((from + 1))" "$LOG" | grep "busy.read" | grep -c "trying busy polling again")
        echo "# in 7 s: $yields yield(s) again, $probes probe(s), $returns return(s)"
        # A probe names the crowd's processes that still run: the CPU-bound task (comm "sh") among them.
        if [ "$probes" -gt 0 ] && ! tail -n +"$((from + 1))" "$LOG" |
                grep -q "busy polling tries again beside the tasks it yielded to that still run: .*sh\[$HOG_PID\]"; then
                fail "no probe named the CPU-bound task sh[$HOG_PID] as still running" \
                        "$(tail -n +"$((from + 1))" "$LOG" | grep "busy polling")"
        fi
        if [ "$returns" -gt 0 ]; then
                fail "busy polling came back $returns time(s) while the CPU-bound task still ran" \
                        "$(tail -n +"$((from + 1))" "$LOG" | grep "busy.read")"
        fi
        # Probes at 2 s and then 4 s after each yield: at most 2 yields again in 7 s.
        [ "$yields" -le 2 ] || fail "busy polling yielded $yields times in 7 s: the probes do not back off" \
                "$(tail -n +"$((from + 1))" "$LOG" | grep "busy.read")"
}

case_antagonist_gone_restores() {
        need_daemon || return
        [ -n "$HOG_PID" ] && kill_and_wait "$HOG_PID"
        [ "$QUIET" = yes ] || { skip "no quiet baseline"; return; }
        if wait_for 20 busy_read_is 50; then
                log_has "busy polling restored" || fail "no log line for the return"
                return
        fi
        # Staying low is right while other work keeps the CPUs contended.
        local psi
        psi=$(psi_some_percent 3)
        if [ "$psi" -gt 50 ]; then
                skip "other work on the host keeps CPUs contended after the task ended (PSI some ${psi}%)"
        else
                fail "busy_read stayed $(busy_read) for 20 s after the CPU-bound task ended (PSI some ${psi}%)" \
                        "$(tail -n 10 "$LOG")"
        fi
}

client_done() { ! kill -0 "$CLIENT_PID" 2>/dev/null; }
case_traffic_completed() {
        wait_for 40 client_done || fail "the client did not finish its 30 s run"
        kill_and_wait "$SERVER_PID"
        grep -q "transactions=" "$TMP/client.log" || fail "the client reported nothing" "$(cat "$TMP/client.log")"
        grep -q "errors=0" "$TMP/client.log" || fail "the client saw errors" "$(cat "$TMP/client.log")"
}

# A paced client (rr --think-us: it spins in user mode between transactions)
# is the only task on the polling CPU: CPU-bound by what netpolld reads, yet
# all it does is drive its server. With a CPU-bound task beside it both wait,
# so both join the crowd; once that task ends, busy polling tries again at
# once (a part of the crowd ended), runs beside the client through the try,
# and the client becomes a companion, named in the log and never yielded to
# again: the next CPU-bound task's crowd is that task alone.
case_companion() {
        need_daemon || return
        [ "$QUIET" = yes ] || { skip "no quiet baseline"; return; }
        local client hog from
        ip netns exec "$NSS" taskset -c 1 "$RR" server --bind 10.231.0.2 --port 7778 --max-time 60 \
                >"$TMP/server2.log" 2>&1 &
        STARTED_PIDS+=("$!")
        sleep 0.5
        ip netns exec "$NSC" taskset -c 0 "$RR" client --host 10.231.0.2 --port 7778 --duration 40 \
                --think-us 300 >"$TMP/client2.log" 2>&1 &
        client=$!
        STARTED_PIDS+=("$client")
        wait_for 20 busy_read_is 50 || { skip "busy polling did not come back with the paced client alone"; return; }
        sleep 1
        busy_read_is 50 || { skip "the paced client alone made busy polling yield (host busy?)"; return; }

        from=$(wc -l <"$LOG")
        taskset -c 0 sh -c 'while :; do :; done' &
        hog=$!
        STARTED_PIDS+=("$hog")
        if ! wait_for 20 busy_read_is 0; then
                fail "busy_read stayed $(busy_read) with a CPU-bound task beside the client"
                kill_and_wait "$hog"
                return
        fi
        sleep 1 # the crowd is marked from the yield on: both tasks wait until busy polling stops
        kill_and_wait "$hog"
        wait_for 20 log_matches "busy polling ran beside .*rr\[$client\].* through its probe" ||
                fail "the client did not become a companion after the CPU-bound task ended" \
                        "$(tail -n +"$((from + 1))" "$LOG" | grep "busy")"
        wait_for 20 busy_read_is 50 || fail "busy_read stayed $(busy_read) after the CPU-bound task ended"
        tail -n +"$((from + 1))" "$LOG" | grep "busy" | sed 's/^/# /'

        from=$(wc -l <"$LOG")
        taskset -c 0 sh -c 'while :; do :; done' &
        hog=$!
        STARTED_PIDS+=("$hog")
        if wait_for 20 busy_read_is 0 &&
                wait_for 5 log_matches "busy polling \(also \)\?yields to the CPU-bound tasks of .*sh\[$hog\]"; then
                if tail -n +"$((from + 1))" "$LOG" | grep "yields to the CPU-bound" | grep -q "rr\[$client\]"; then
                        fail "busy polling yielded to its companion rr[$client] again" \
                                "$(tail -n +"$((from + 1))" "$LOG" | grep "busy polling")"
                fi
        else
                fail "no yield to the second CPU-bound task sh[$hog]" "$(tail -n +"$((from + 1))" "$LOG" | grep "busy")"
        fi
        kill_and_wait "$hog"
        wait_for 20 busy_read_is 50 || fail "busy_read stayed $(busy_read) after the second CPU-bound task ended"
        kill_and_wait "$client"
}

case_stop_restores() {
        need_daemon || return
        stop_daemon TERM
        expect_eq "netpolld exit status" "$DAEMON_RC" 0
        expect_eq "busy_read after stop" "$(busy_read)" "$ORIG_BUSY_READ"
        expect_eq "busy_poll after stop" "$(cat $CORE/busy_poll)" "$ORIG_BUSY_POLL"
}

run_case "netpolld applies busy-read/busy-poll 50us and adapts" case_start
run_case "request/response traffic through veth's NAPI with a quiet baseline" case_traffic
run_case "a CPU-bound task on the server's CPU shows as waiting there (GetLoad); polling that delivers pays" case_server_cpu_waits
run_case "a CPU-bound task on the client's CPU makes netpolld lower busy-read" case_antagonist_lowers
run_case "the yield holds while the task runs, probing with a growing back-off" case_antagonist_holds_the_yield
run_case "busy-read comes back after the task ends" case_antagonist_gone_restores
run_case "the traffic ran without errors" case_traffic_completed
run_case "a paced client that joined a crowd becomes a companion once busy polling ran beside it" case_companion
run_case "SIGTERM restores the host's busy_read and busy_poll" case_stop_restores
tap_done
