#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# bench/lib/smoke-check.sh OUTDIR SCENARIOS CONFIGS: checks that a
# `bench/run --smoke` produced everything a full run would, with values that
# prove each part worked. It checks no timing: every number only has to exist
# and be sane (a transaction happened, a knob had the configured value).
set -uo pipefail
out=$1 nscen=$2 nconf=$3
fails=0
fail() { echo "smoke: FAIL: $*" >&2; fails=$((fails + 1)); }
ok() { echo "smoke: ok: $*" >&2; }

for f in runs.csv summary.csv results.md cost.txt meta.txt; do
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

grep -q '^netpolld_rss_kb=[1-9]' "$out/cost.txt" && ok "netpolld cost measured" || fail "no netpolld cost"
grep -qE '^(tuned_rss_kb=[1-9]|tuned_unavailable=)' "$out/cost.txt" && ok "tuned cost measured or explained" ||
        fail "no tuned cost and no reason"
grep -q '^busrtt_ratio_p50=' "$out/cost.txt" && ok "SetKnob/GetId ratio measured" || fail "no SetKnob/GetId ratio"
grep -q '^restore_failures=0$' "$out/meta.txt" && ok "netpolld restored every knob after each run" ||
        fail "knobs left changed after netpolld stopped ($(grep restore_failures "$out/meta.txt"))"
grep -q '^| 1 session |' "$out/results.md" && ok "results.md has the scenario table" || fail "results.md lacks the table"

((fails == 0)) || { echo "smoke: $fails check(s) failed" >&2; exit 1; }
echo "smoke: all checks passed" >&2
