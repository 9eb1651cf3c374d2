#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# check-count-results.sh: tools/count-results on made-up meson test logs: the
# counts, the skip reasons, and a failed TAP case's diagnostics in the summary
# (CI shows only the summary's end).
set -u
src=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bad=0
check() { # DESCRIPTION HAYSTACK NEEDLE
        [[ $2 == *"$3"* ]] || { echo "FAIL: $1: '$3' not in:"; echo "$2"; bad=1; }
}

python3 - "$tmp/log.json" <<'PY'
import json, sys
diag = "".join(f"# line {i}\n" for i in range(3, 30))
rows = [
    {"name": "s / tap", "result": "FAIL", "returncode": 1,
     "stdout": "ok 1 - a\nnot ok 2 - b\n# sanitizer report asan.1:\n# ==1==ERROR: LeakSanitizer\n" + diag +
               "ok 3 - c # SKIP no device\n1..3\n"},
    {"name": "s / check", "result": "OK", "returncode": 0,
     "stdout": "SKIP: test_x: root reads files regardless of mode\n100%: Checks: 5, Failures: 0, Errors: 0\n"},
    {"name": "s / plain", "result": "OK", "returncode": 0, "stdout": ""},
]
with open(sys.argv[1], "w") as f:
    for r in rows:
        f.write(json.dumps(r) + "\n")
PY
out=$(python3 "$src/tools/count-results" --failed "meson setup x" "$tmp/log.json")
rc=$?
[[ $rc == 1 ]] || { echo "FAIL: exit $rc, expected 1"; bad=1; }
check "totals" "$out" "6 passed, 2 failed, 2 skipped"
check "the failed step" "$out" "FAILED: meson setup x"
check "the failed case" "$out" "FAILED: s / tap: b"$'\n'"    # sanitizer report asan.1:"$'\n'"    # ==1==ERROR: LeakSanitizer"
check "diagnostics cut at 20 lines" "$out" "    # line 20"$'\n'"    # ... 9 more lines in the log"
check "a TAP skip" "$out" "skipped: s / tap: c: no device"
check "a Check skip" "$out" "skipped: s / check: test_x: root reads files regardless of mode"

printf '{"name": "s / t", "result": "OK", "stdout": "ok 1 - a\\n1..1\\n"}\n' >"$tmp/ok.json"
out=$(python3 "$src/tools/count-results" "$tmp/ok.json")
rc=$?
[[ $rc == 0 ]] || { echo "FAIL: all passed, exit $rc"; bad=1; }
check "all passed" "$out" "1 passed, 0 failed, 0 skipped"
# Suite times: per log (labelled by its build directory), first start to last end.
printf '%s\n' '{"name": "netpolld:unit / a", "result": "OK", "stdout": "", "starttime": 100.0, "duration": 2.0}' \
        '{"name": "netpolld:unit / b", "result": "OK", "stdout": "", "starttime": 101.0, "duration": 30.4}' \
        '{"name": "netpolld:fuzz / c", "result": "OK", "stdout": "", "starttime": 200.0, "duration": 5.0}' \
        >"$tmp/testlog-2-build-asan.json"
out=$(python3 "$src/tools/count-results" "$tmp/testlog-2-build-asan.json")
check "a suite's wall clock" "$out" "  build-asan   unit                          31 s wall      32 s summed"
check "another suite" "$out" "  build-asan   fuzz                           5 s wall       5 s summed"

[[ $bad == 0 ]] && echo "count-results: all checks passed"
exit $bad
