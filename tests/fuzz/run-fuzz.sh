#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# run-fuzz.sh FUZZER SEED_DIR: runs one libFuzzer target (tests/fuzz/meson.build) for
# NETPOLLD_FUZZ_SECONDS (default 20) from its seed corpus, every seed first (so each
# regression input is replayed on every run). New inputs go to a scratch corpus, never
# into the source tree; a crashing, leaking or hanging input is kept in
# NETPOLLD_FUZZ_ARTIFACTS (default ./fuzz-artifacts, the build directory under meson
# test) and named in the output. Ends with one line of libFuzzer's final figures:
#   fuzz-NAME: runs N, exec/s N, cov N, ft N, corpus N (seeds N), S s
# Exits non-zero on any finding (libFuzzer's exit status).
set -uo pipefail
fuzzer=${1:?usage: run-fuzz.sh FUZZER SEED_DIR}
seeds=${2:?usage: run-fuzz.sh FUZZER SEED_DIR}
seconds=${NETPOLLD_FUZZ_SECONDS:-20}
name=$(basename "$fuzzer")
artifacts=${NETPOLLD_FUZZ_ARTIFACTS:-$PWD/fuzz-artifacts}

# Targets that read files (conf, profile, journal) write one per input: tmpfs when there is one.
if [ -z "${TMPDIR:-}" ] && [ -d /dev/shm ] && [ -w /dev/shm ]; then
        export TMPDIR=/dev/shm
fi
[ -d "$seeds" ] || { echo "$name: no seed corpus $seeds" >&2; exit 1; }
mkdir -p "$artifacts" || exit 1
work=$(mktemp -d "${TMPDIR:-/tmp}/netpolld-$name.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
n_seeds=$(find "$seeds" -type f | wc -l)

mkdir "$work/corpus" || exit 1
"$fuzzer" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
        -artifact_prefix="$artifacts/$name-" "$work/corpus" "$seeds" >"$work/log" 2>&1
rc=$?
if ((rc != 0)); then
        cat "$work/log"
        echo "$name: FAILED (libFuzzer exit status $rc); the input is in $artifacts/ (see 'Test unit written to' above)"
        exit "$rc"
fi
# The last status line has the coverage; the final stats the executions and speed.
status=$(grep -E '^#[0-9]+[[:space:]]+(DONE|INITED|NEW|REDUCE|pulse)' "$work/log" | tail -n 1)
stat() { sed -n "s/^stat::$1:[[:space:]]*//p" "$work/log" | tail -n 1; }
field() { sed -n "s/.* $1: \([0-9/A-Za-z]*\).*/\1/p" <<<"$status"; }
tail -n 12 "$work/log"
printf '%s: runs %s, exec/s %s, cov %s, ft %s, corpus %s (seeds %s), %s s\n' "$name" \
        "$(stat number_of_executed_units)" "$(stat average_exec_per_sec)" "$(field cov)" "$(field ft)" \
        "$(field corp)" "$n_seeds" "$seconds"
