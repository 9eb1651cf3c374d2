#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# test-metrics.sh: integration tests of netpolld's Prometheus metrics on a
# fixture sysroot with a private bus: `netpollctl metrics` (GetMetrics) is
# valid for promtool, agrees with `netpollctl list`, carries the load and
# busy-poll counters of the fixture's statistics files, and is open to
# unprivileged callers. Speaks TAP. promtool (Debian package prometheus)
# is optional: without it the format case is skipped.

# shellcheck source=tests/integration/lib.sh
. "$(dirname "$(readlink -f "$0")")/lib.sh"
# shellcheck source=tests/integration/stats.sh
. "$LIB_DIR/stats.sh"

CHECK=$LIB_DIR/metrics-check.py

# TcpExt as the kernel prints it (abridged), with BusyPollRxPackets.
write_netstat() { # PACKETS
        printf 'TcpExt: SyncookiesSent BusyPollRxPackets TCPAutoCorking\nTcpExt: 0 %s 7\nIpExt: InNoRoutes\nIpExt: 0\n' \
                "$1" >"$ROOT/proc/net/netstat"
}

# metrics: runs `netpollctl metrics` into $OUT, failing the case on an error.
metrics() {
        ctl metrics
        expect_rc 0
}

# sample_of NAME{LABELS}: the value of that exact sample line in $OUT.
sample_of() {
        awk -v k="$1" 'index($0, k " ") == 1 { print substr($0, length(k) + 2) }' <<<"$OUT"
}

case_promtool_accepts() {
        need_daemon || return
        metrics
        if ! command -v promtool >/dev/null; then
                skip "promtool missing (Debian package prometheus)"
                return
        fi
        local lint
        lint=$(promtool check metrics <<<"$OUT" 2>&1)
        # shellcheck disable=SC2181
        [ $? = 0 ] && [ -z "$lint" ] || fail "promtool check metrics:" "$lint" "--- the metrics:" "$OUT"
}

case_every_family_documented() {
        need_daemon || return
        metrics
        local f
        for f in knob_supported:gauge knob_seconds:gauge knob_value:gauge knob_cpus:gauge \
                controller_decisions_total:counter controller_samples_total:counter controller_wakeups_total:counter \
                busy_poll_rx_packets_total:counter queue_info:gauge \
                cpu_runnable_tasks:gauge cpu_pressure_some_ratio:gauge cpu_time_squeeze_total:counter \
                queue_packets_total:counter queue_bytes_total:counter queue_hw_drops_total:counter \
                queue_stop_total:counter queue_wake_total:counter; do
                expect_contains "HELP of ${f%%:*}" "$OUT" "# HELP netpolld_${f%%:*} "
                expect_contains "TYPE of ${f%%:*}" "$OUT" "# TYPE netpolld_${f%%:*} ${f#*:}"
        done
        local other
        other=$(grep -v '^#' <<<"$OUT" | grep -v '^netpolld_' || true)
        [ -z "$other" ] || fail "samples without the netpolld_ prefix:" "$other"
}

case_knobs_match_list() {
        need_daemon || return
        ctl set busy-read 2ms dev-weight 128
        expect_rc 0
        ctl --json list
        expect_rc 0
        printf '%s\n' "$OUT" >"$TMP/list.json"
        metrics
        printf '%s\n' "$OUT" >"$TMP/metrics.txt"
        local diff
        diff=$(python3 "$CHECK" "$TMP/list.json" "$TMP/metrics.txt" 2>&1) ||
                fail "metrics and list differ:" "$diff"
        expect_eq "busy-read in seconds" "$(sample_of 'netpolld_knob_seconds{knob="busy-read",origin="manual"}')" 0.002
        expect_eq "gro-flush-timeout@veth0 in seconds" \
                "$(sample_of 'netpolld_knob_seconds{knob="gro-flush-timeout@veth0",origin="profile"}')" 0.00002
        expect_eq "netdev-budget" "$(sample_of 'netpolld_knob_value{knob="netdev-budget",origin="profile"}')" 600
        expect_eq "softirq-budget unsupported" "$(sample_of 'netpolld_knob_supported{knob="softirq-budget"}')" 0
        expect_not_contains "no value for an unsupported knob" "$OUT" 'knob="softirq-budget",origin'
        ctl reset busy-read dev-weight
        expect_rc 0
}

case_load_and_counters() {
        need_daemon || return
        metrics
        expect_eq "busy-poll packets" "$(sample_of netpolld_busy_poll_rx_packets_total)" 123456
        expect_eq "cpu 0 time_squeeze" "$(sample_of 'netpolld_cpu_time_squeeze_total{cpu="0"}')" "${STAT_SQUEEZE[0]}"
        expect_eq "cpu 1 time_squeeze" "$(sample_of 'netpolld_cpu_time_squeeze_total{cpu="1"}')" "${STAT_SQUEEZE[1]}"
        [ -n "$(sample_of 'netpolld_cpu_runnable_tasks{cpu="1"}')" ] || fail "no runnable sample for cpu 1:" "$OUT"
        [ -n "$(sample_of netpolld_cpu_pressure_some_ratio)" ] || fail "no PSI sample:" "$OUT"

        STAT_SQUEEZE[1]=$((STAT_SQUEEZE[1] + 40))
        write_stat_files
        write_netstat 123999
        metrics
        expect_eq "cpu 1 time_squeeze after 40 more" "$(sample_of 'netpolld_cpu_time_squeeze_total{cpu="1"}')" \
                "${STAT_SQUEEZE[1]}"
        expect_eq "busy-poll packets later" "$(sample_of netpolld_busy_poll_rx_packets_total)" 123999
}

case_unprivileged_reads() {
        need_daemon || return
        run setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all --bounding-set=-all \
                "$NETPOLLCTL" metrics
        expect_rc 0
        expect_contains "unprivileged metrics" "$OUT" "netpolld_knob_supported{knob=\"busy-read\"} 1"
        ctl --json metrics
        expect_rc 0
        local v
        v=$(python3 -c 'import json, sys; print(json.load(sys.stdin)["metrics"].splitlines()[0])' <<<"$OUT" 2>&1)
        expect_eq "--json metrics first line" "$v" "# HELP netpolld_knob_supported Whether this kernel has the knob (1) or lacks it (0)."
}

# The controller's decisions are counted: a squeeze burst raises netdev-budget once, to its cap.
case_decisions_counted() {
        need_daemon || return
        metrics
        expect_eq "no squeeze decision yet" \
                "$(sample_of 'netpolld_controller_decisions_total{knob="netdev-budget",direction="up",reason="squeeze"}')" 0
        expect_eq "busy-read contention counter present at 0" \
                "$(sample_of 'netpolld_controller_decisions_total{knob="busy-read",direction="down",reason="contention"}')" 0
        ctl profile set itest-metrics-adaptive
        expect_rc 0
        start_stat_driver
        stat_load squeeze
        wait_for 10 value_origin_is netdev-budget "750 adaptive" ||
                fail "netdev-budget did not reach 750 under squeeze: $(get_value_origin netdev-budget)"
        stat_load
        stop_stat_driver
        metrics
        [ "$(sample_of netpolld_controller_samples_total)" -gt 0 ] 2>/dev/null ||
                fail "netpolld_controller_samples_total is '$(sample_of netpolld_controller_samples_total)' after a decision"
        expect_eq "one squeeze decision on netdev-budget" \
                "$(sample_of 'netpolld_controller_decisions_total{knob="netdev-budget",direction="up",reason="squeeze"}')" 1
        expect_eq "netdev-budget adaptive" "$(sample_of 'netpolld_knob_value{knob="netdev-budget",origin="adaptive"}')" 750
        ctl profile set itest-latency
        expect_rc 0
}

# The metrics file: there from the start, valid, replaced whole (never seen partial) and fresh.
case_metrics_file() {
        need_daemon || return
        local f=$TEXTFILE/netpolld.prom i text ino1 ino2 age
        wait_for 5 test -s "$f" || { fail "metrics-file $f not written"; return; }
        # The file is rewritten every second: the one there may predate the previous case's reset.
        wait_for 3 grep -qF 'netpolld_knob_seconds{knob="busy-read",origin="profile"} 0.00005' "$f" ||
                fail "metrics file: busy-read 50us from the profile not shown within 3 s:" "$(cat "$f")"
        if command -v promtool >/dev/null; then
                local lint
                lint=$(promtool check metrics <"$f" 2>&1) || fail "promtool check metrics on the file:" "$lint"
                [ -z "$lint" ] || fail "promtool check metrics on the file:" "$lint"
        fi
        ino1=$(stat -c %i "$f")
        # Read it in a loop across several rewrites: every read is a whole exposition.
        for ((i = 0; i < 150; i++)); do
                text=$(cat "$f")
                case $text in
                "# HELP netpolld_knob_supported "*'# TYPE netpolld_queue_wake_total counter'*) ;;
                *) fail "a partial metrics file was read:" "$text"; break ;;
                esac
                sleep 0.02
        done
        ino2=$(stat -c %i "$f")
        [ "$ino1" != "$ino2" ] || fail "the metrics file was not replaced (same inode $ino1 after 3 s)"
        age=$(($(date +%s) - $(stat -c %Y "$f")))
        [ "$age" -le 2 ] || fail "the metrics file is $age s old"
        local leftovers
        leftovers=$(find "$TEXTFILE" -name 'netpolld.prom.*')
        [ -z "$leftovers" ] || fail "temporary files left:" "$leftovers"
        ctl set busy-read 7us
        expect_rc 0
        wait_for 3 grep -qF 'netpolld_knob_seconds{knob="busy-read",origin="manual"} 0.000007' "$f" ||
                fail "the metrics file did not show busy-read 7us within 3 s:" "$(grep busy-read "$f")"
        ctl reset busy-read
        expect_rc 0
}

# A real node exporter serves the file through its textfile collector.
case_node_exporter_serves_file() {
        need_daemon || return
        local ne port out
        ne=$(command -v prometheus-node-exporter || command -v node_exporter) ||
                { skip "prometheus-node-exporter missing (Debian package prometheus-node-exporter)"; return; }
        command -v curl >/dev/null || { skip "curl missing"; return; }
        port=$((20000 + RANDOM % 20000))
        background "$ne" --web.listen-address="127.0.0.1:$port" --collector.disable-defaults \
                --collector.textfile --collector.textfile.directory="$TEXTFILE" >"$TMP/node-exporter.log" 2>&1
        if ! wait_for 10 curl -sf -o /dev/null "http://127.0.0.1:$port/metrics"; then
                fail "node exporter did not answer on port $port:" "$(cat "$TMP/node-exporter.log")"
                return
        fi
        out=$(curl -sf "http://127.0.0.1:$port/metrics")
        expect_contains "node exporter /metrics" "$out" 'netpolld_knob_seconds{knob="busy-poll",origin="profile"} 5e-05'
        expect_contains "node exporter /metrics" "$out" 'netpolld_knob_value{knob="netdev-budget",origin="profile"} 600'
        expect_contains "node exporter /metrics" "$out" '# TYPE netpolld_cpu_time_squeeze_total counter'
        expect_contains "node exporter read the file without error" "$out" \
                'node_textfile_scrape_error 0'
        kill_and_wait "$BG_PID"
}

value_origin_is() { [ "$(get_value_origin "$1")" == "$2" ]; }

require_root_and_tools
setup_tmp
make_fixture
stat_init 2
write_netstat 123456
make_policy
cat >"$PROFILES/itest-metrics-adaptive.conf" <<'EOF2'
[profile]
description = integration test: budgets raised under squeeze, once
[knobs]
netdev-budget = 600
[adaptive]
enabled = yes
hold = 2
min-dwell = 100ms
squeeze-threshold = 100
budget-step = 25%
netdev-budget-max = 750
quiet-period = 3600s
EOF2
TEXTFILE=$TMP/textfile
mkdir -p "$TEXTFILE"
printf '[daemon]\nprofile = itest-latency\ninterval = 20ms\nmetrics-file = %s/netpolld.prom\n' "$TEXTFILE" >"$CONF"
start_bus
# shellcheck disable=SC2119  # no extra options: the configured daemon
start_daemon || { echo "Bail out! netpolld did not start"; printf '%s' "$CASE_DIAG"; exit 1; }

run_case "netpollctl metrics passes promtool check metrics" case_promtool_accepts
run_case "every family has HELP and TYPE, every sample the netpolld_ prefix" case_every_family_documented
run_case "knob values (base units) and origins match netpollctl list" case_knobs_match_list
run_case "time_squeeze, runnable, PSI and busy-poll packets from the statistics files" case_load_and_counters
run_case "an unprivileged caller reads the metrics; --json wraps them" case_unprivileged_reads
run_case "metrics-file appears, is replaced whole every second and stays fresh" case_metrics_file
run_case "prometheus-node-exporter's textfile collector serves the file" case_node_exporter_serves_file
run_case "controller decisions are counted by knob, direction and reason" case_decisions_counted
tap_done
