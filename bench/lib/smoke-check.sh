#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# bench/lib/smoke-check.sh OUTDIR SCENARIOS CONFIGS: checks that a
# `bench/run --smoke` produced everything a full run would, with values that
# prove each part worked. It checks no timing: every number only has to exist
# and be sane (a transaction happened, a knob had the configured value).
set -uo pipefail
out=$1 nscen=$2 nconf=$3 napp=${4:-}
fails=0
fail() { echo "smoke: FAIL: $*" >&2; fails=$((fails + 1)); }
ok() { echo "smoke: ok: $*" >&2; }

# Parts not run (bench/run --parts) are not checked: SMOKE_PARTS names those that ran.
parts=" ${SMOKE_PARTS:-rr apps cost} "
if [[ $parts == *" rr "* ]]; then
for f in runs.csv summary.csv results.md meta.txt; do
        [[ -s $out/$f ]] && ok "$f written" || fail "$f missing or empty"
done
if command -v gnuplot >/dev/null; then
        for f in rr-tps.png rr-p99.png sockperf-tps.png sockperf-p99.png; do
                [[ -s $out/$f ]] && [[ $(head -c 4 "$out/$f" | od -An -c | tr -d ' ') == 211PNG ]] &&
                        ok "$f is a PNG" || fail "$f missing or not a PNG"
        done
fi

# One rr row per run, one sockperf row per single-session run.
rr_rows=$(awk -F, 'NR > 1 && $5 == "rr"' "$out/runs.csv" | wc -l)
[[ $rr_rows == $((nscen * nconf)) ]] && ok "$rr_rows rr rows" || fail "$rr_rows rr rows, expected $((nscen * nconf))"
sp_rows=$(awk -F, 'NR > 1 && $5 == "sockperf"' "$out/runs.csv" | wc -l)
((sp_rows > 0)) && ok "$sp_rows sockperf rows" || fail "no sockperf rows"

# Columns: 1 rep 2 position 3 scenario 4 config 5 client 6 sessions 7 seconds
# 8 transactions 9 tps 10..13 p50 p90 p99 max 14 napi_id 15 errors 16 antagonist
# 17 bogo_ops 18 bogo_ops_s 19 steal 20 busy 21 loadavg 22 busy_read 23 busy_poll
# 24 daemon_mode 25 adaptive_changes 26 started 27 sock_busy_read (rr only)
bad=$(awk -F, 'NR > 1 && !($8 > 0 && $9 > 0 && $12 > 0 && $15 == 0) { print $3 "/" $4 "/" $5 }' "$out/runs.csv")
[[ -z $bad ]] && ok "every client completed transactions without errors" || fail "runs without transactions: $bad"
bad=$(awk -F, 'NR > 1 && $5 == "rr" && !($14 > 0) { print $3 "/" $4 }' "$out/runs.csv")
[[ -z $bad ]] && ok "rr traffic went through a NAPI instance (SO_INCOMING_NAPI_ID != 0)" ||
        fail "no NAPI ID (GRO/TSO setup not effective): $bad"
bad=$(awk -F, 'NR > 1 && $16 != "-" && !($17 > 0) { print $3 "/" $4 "/" $5 }' "$out/runs.csv")
[[ -z $bad ]] && ok "antagonists reported bogo-ops" || fail "antagonists without bogo-ops: $bad"
bad=$(awk -F, 'NR > 1 && (($4 == "untuned" && $22 != 0) || ($4 == "static" && ($22 != 50 || $23 != 50))) { print $3 "/" $4 }' "$out/runs.csv")
[[ -z $bad ]] && ok "untuned ran with busy_read 0, static with 50" || fail "wrong busy_read/busy_poll in: $bad"
bad=$(awk -F, 'NR > 1 && $5 == "rr" && (($4 == "untuned" && $27 != 0) || ($4 == "static" && $27 != 50)) { print $3 "/" $4 }' "$out/runs.csv")
[[ -z $bad ]] && ok "rr sockets had the configured busy-read (SO_BUSY_POLL)" || fail "wrong SO_BUSY_POLL in: $bad"
bad=$(awk -F, 'NR > 1 && ($4 == "latency" || $4 == "balanced") && ($24 == "-" || $24 == "") { print $3 "/" $4 }' "$out/runs.csv")
[[ -z $bad ]] && ok "netpolld answered on the bus in its runs" || fail "netpolld mode unknown in: $bad"
# The latency profile's own busy-read value must be what the host had.
want=$(awk -F' *= *' '/^\[knobs\]/ { k = 1; next } /^\[/ { k = 0 } k && $1 == "busy-read" { v = $2; sub(/us$/, "", v); print v }' \
        "$(dirname "$0")/../../conf/profiles/latency.conf")
if [[ -n $want ]]; then
        bad=$(awk -F, -v w="$want" 'NR > 1 && $4 == "latency" && $22 != w { print $3 }' "$out/runs.csv")
        [[ -z $bad ]] && ok "netpolld latency set busy_read to the profile's $want" || fail "latency runs without busy_read $want: $bad"
fi

grep -q '^| 1 session |' "$out/results.md" && ok "results.md has the scenario table" || fail "results.md lacks the table"
fi

if [[ $parts == *" cost "* ]]; then
grep -q '^netpolld_rss_kb=[1-9]' "$out/cost.txt" && ok "netpolld cost measured" || fail "no netpolld cost"
grep -q '^timerfloor_cpu_s_per_min=' "$out/cost.txt" && ok "wake-up floor measured" || fail "no wake-up floor"
grep -qE '^(netpolld_traffic_rss_kb=[1-9]|netpolld_traffic_unavailable=)' "$out/cost.txt" &&
        ok "netpolld cost with traffic measured or explained" || fail "no netpolld cost with traffic and no reason"
grep -q '^netpolld_wakeups_per_s=[0-9]' "$out/cost.txt" && ok "netpolld wake-ups counted" || fail "no netpolld wake-ups"
grep -qE '^netpolld_cpu_wake=(CPU pressure trigger: armed while traffic flows|no CAP_SYS_RESOURCE at start|no CPU pressure trigger)' "$out/cost.txt" &&
        ok "whether a CPU pressure trigger wakes netpolld is recorded" || fail "no netpolld_cpu_wake in cost.txt"
grep -qE '^netpolld_cpu_wake=CPU pressure trigger: armed|^(netpolld_armed_traffic_rss_kb=[1-9]|netpolld_armed_traffic_unavailable=)' "$out/cost.txt" &&
        ok "netpolld cost with the trigger armed measured, or why not" || fail "no cost with the trigger armed and no reason"
if grep -q '^netpolld_armed_cpu_wake=CPU pressure trigger armed' "$out/cost.txt"; then
        grep -q '^netpolld_armed_traffic_psimon_cpu_s_per_min=' "$out/cost.txt" &&
                ok "psimon measured beside the armed netpolld" || fail "trigger armed but psimon not measured"
fi
grep -qE '^(netpolld_mild_rss_kb=[1-9]|netpolld_armed_mild_rss_kb=[1-9]|netpolld_armed_traffic_unavailable=)' "$out/cost.txt" &&
        ok "netpolld cost under mild CPU pressure measured, or why not" || fail "no cost under mild pressure and no reason"
grep -qE '^(netpolld_mild|netpolld_armed_mild)_samples_per_s=[0-9]' "$out/cost.txt" ||
        ! grep -qE '^(netpolld_mild|netpolld_armed_mild)_rss_kb=' "$out/cost.txt" &&
        ok "samples under mild pressure counted" || fail "mild pressure measured without its sample count"
grep -qE '^(tuned_rss_kb=[1-9]|tuned_unavailable=)' "$out/cost.txt" && ok "tuned cost measured or explained" ||
        fail "no tuned cost and no reason"
grep -q '^busrtt_ratio_p50=' "$out/cost.txt" && ok "SetKnob/GetId ratio measured" || fail "no SetKnob/GetId ratio"
fi
grep -q '^restore_failures=0$' "$out/meta.txt" && ok "netpolld restored every knob after each run" ||
        fail "knobs left changed after netpolld stopped ($(grep restore_failures "$out/meta.txt"))"

# ---- the app part: real servers and clients, phases, neighbours -----------------
if [[ $parts == *" apps "* ]]; then
        # Columns: 1 rep 2 position 3 scenario 4 config 5 phase_index 6 phase 7 neighbour 8 seconds
        # 9 requests 10 rate 11 p50 12 p99 13 p999 14 mean 15 latency_source 16 neighbour_bogo_ops_s
        # 17 cpu_s 18 cpu_us_per_request 19 steal 20 busy_read 21 busy_poll 22 daemon_mode
        # 23..25 client p50/p99/p999 26 preferbp
        a="$out/apps.csv"
        rows=$(awk 'NR > 1' "$a" 2>/dev/null | wc -l)
        [[ $rows == "$napp" ]] && ok "$rows app phase rows" || fail "$rows app phase rows, expected $napp"
        bad=$(awk -F, 'NR > 1 && !($9 > 0 && $10 > 0) { print $3 "/" $4 "/" $6 }' "$a" | sort -u | tr '\n' ' ')
        [[ -z $bad ]] && ok "every app answered requests in every phase" || fail "phases without requests: $bad"
        bad=$(awk -F, 'NR > 1 && $15 == "sockperf-log" && !($12 > 0 && $13 > 0) { print $3 "/" $4 "/" $6 }' "$a" | sort -u | tr '\n' ' ')
        [[ -z $bad ]] && ok "sockperf phases have p99 and p99.9" || fail "sockperf phases without percentiles: $bad"
        bad=$(awk -F, 'NR > 1 && $6 != "alone" && !($16 > 0) { print $3 "/" $4 "/" $6 }' "$a" | sort -u | tr '\n' ' ')
        [[ -z $bad ]] && ok "every neighbour reported bogo-ops" || fail "neighbours without bogo-ops: $bad"
        head -n 1 "$out/apps-yields.csv" 2>/dev/null | grep -q '^rep,scenario,config,phase_index,phase,.*,return_ms,moves$' &&
                ok "apps-yields.csv written" || fail "no apps-yields.csv"
        bad=$(awk -F, 'NR > 1 && !($18 > 0) { print $3 "/" $4 "/" $6 }' "$a" | sort -u | tr '\n' ' ')
        [[ -z $bad ]] && ok "CPU per request measured in every phase" || fail "no CPU per request: $bad"
        for k in hog percpu bursty; do
                grep -q ",$k,$k," "$a" && ok "neighbour $k ran" || fail "neighbour $k never ran"
        done
        bad=$(awk -F, 'NR > 1 && (($4 == "static0" && $20 != 0) || ($4 == "static50" && ($20 != 50 || $21 != 50))) { print $3 "/" $4 }' "$a" | sort -u)
        [[ -z $bad ]] && ok "static0 ran with busy_read 0, static50 with 50" || fail "wrong busy_read/busy_poll: $bad"
        bad=$(awk -F, 'NR > 1 && $4 == "napi-suspend" && $26 !~ /^epoll [1-9]/ { print $3 }' "$a" | sort -u)
        [[ -z $bad ]] && ok "napi-suspend apps preferred busy polling (EPIOCSPARAMS took)" ||
                fail "napi-suspend without EPIOCSPARAMS: $bad"
        # Every configuration selected (SMOKE_APP_CONFIGS) ran.
        for c in ${SMOKE_APP_CONFIGS:-}; do
                awk -F, -v c="$c" 'NR > 1 && $4 == c' "$a" | grep -q . && ok "configuration $c ran" ||
                        fail "configuration $c has no rows"
        done
        for s in $(awk -F, 'NR > 1 { print $3 }' "$a" | sort -u); do
                f="$out/apps-$s.png"
                [[ -s $f && $(head -c 4 "$f" | od -An -c | tr -d ' ') == 211PNG ]] && ok "apps-$s.png is a PNG" ||
                        fail "apps-$s.png missing or not a PNG"
        done
        grep -q '^## Targets' "$out/apps.md" 2>/dev/null && ok "apps.md has the targets table" || fail "apps.md lacks the targets table"
fi

((fails == 0)) || { echo "smoke: $fails check(s) failed" >&2; exit 1; }
echo "smoke: all checks passed" >&2
