#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# test-json-schema.sh: the --json output of every netpollctl verb, from a
# real netpolld on a fixture sysroot with a private bus, validated against
# its schema in docs/schema/ (netpollctl(8), OUTPUT), with the "schema"
# key of object outputs; the schema files themselves are valid draft
# 2020-12 schemas named as their $id says, and a validator that is shown
# a broken document refuses it. Speaks TAP. Needs python3-jsonschema.

# shellcheck source=tests/integration/lib.sh
. "$(dirname "$(readlink -f "$0")")/lib.sh"
# shellcheck source=tests/integration/stats.sh
. "$LIB_DIR/stats.sh"

VALIDATE=$LIB_DIR/json-validate.py
SCHEMAS=$NETPOLLD_SOURCE_ROOT/docs/schema

# validate SCHEMA-NAME [--lines]: $OUT against docs/schema/netpollctl-NAME.v1.json.
validate() {
        local errors
        errors=$(python3 "$VALIDATE" "$SCHEMAS/netpollctl-$1.v1.json" "${@:2}" <<<"$OUT" 2>&1) ||
                fail "output does not match netpollctl-$1.v1.json:" "$errors" "--- the output:" "$OUT"
}

# json_verb SCHEMA-NAME VERB...: runs netpollctl --json VERB..., expects success, validates.
json_verb() {
        local schema=$1
        shift
        ctl --json "$@"
        expect_rc 0
        validate "$schema"
}

# schema_key: the "schema" key of the object in $OUT.
schema_key() { python3 -c 'import json, sys; print(json.load(sys.stdin).get("schema"))' <<<"$OUT" 2>&1; }

case_schema_files() {
        local errors n
        n=$(find "$SCHEMAS" -name 'netpollctl-*.v1.json' | wc -l)
        [ "$n" -ge 14 ] || fail "expected a schema per output, found $n in $SCHEMAS"
        errors=$(python3 "$VALIDATE" --check-schemas "$SCHEMAS"/*.json 2>&1) || fail "schema files:" "$errors"
}

# A validator that accepts everything would pass every case below: show it broken documents.
case_validator_refuses_broken_output() {
        need_daemon || return
        local broken errors
        ctl --json status
        broken=$(python3 -c 'import json, sys; o = json.load(sys.stdin); del o["mode"]; print(json.dumps(o))' <<<"$OUT")
        errors=$(python3 "$VALIDATE" "$SCHEMAS/netpollctl-status.v1.json" <<<"$broken" 2>&1) &&
                fail "a status without mode was accepted"
        expect_contains "the validator names the missing key" "$errors" "'mode' is a required property"
        broken=$(python3 -c 'import json, sys; o = json.load(sys.stdin); o["schema"] = "netpolld.status/2"; print(json.dumps(o))' <<<"$OUT")
        python3 "$VALIDATE" "$SCHEMAS/netpollctl-status.v1.json" <<<"$broken" >/dev/null 2>&1 &&
                fail "a status of schema version 2 was accepted by version 1"
        ctl --json list
        broken=$(python3 -c 'import json, sys; o = json.load(sys.stdin); o[0]["supported"] = "yes"; print(json.dumps(o))' <<<"$OUT")
        python3 "$VALIDATE" "$SCHEMAS/netpollctl-list.v1.json" <<<"$broken" >/dev/null 2>&1 &&
                fail "a list with a string for supported was accepted"
        # Additions keep the version: a status with a key of a newer netpolld still validates.
        ctl --json status
        OUT=$(python3 -c 'import json, sys; o = json.load(sys.stdin); o["rules"] = []; print(json.dumps(o))' <<<"$OUT")
        validate status
}

case_status() {
        need_daemon || return
        json_verb status status
        expect_eq "status schema key" "$(schema_key)" "netpolld.status/1"
}

case_list_get_set_reset() {
        need_daemon || return
        json_verb list list
        json_verb get get busy-read netdev-budget
        json_verb set set busy-read 7us netdev-budget 500
        json_verb set reset busy-read netdev-budget
}

case_explain() {
        need_daemon || return
        json_verb explain explain busy-read
        expect_eq "explain schema key" "$(schema_key)" "netpolld.explain/1"
        json_verb explain explain softirq-budget
        json_verb explain explain gro-flush-timeout@veth0
}

case_profiles() {
        need_daemon || return
        json_verb profile-list profile list
        json_verb profile-show profile show itest-latency
        expect_eq "profile show schema key" "$(schema_key)" "netpolld.profile-show/1"
        json_verb profile-set profile set itest-budget
        expect_eq "profile set schema key" "$(schema_key)" "netpolld.profile-set/1"
        json_verb profile-set profile set itest-latency
        json_verb profile-release profile release
        expect_eq "profile release schema key" "$(schema_key)" "netpolld.profile-release/1"
}

case_metrics_irq() {
        need_daemon || return
        json_verb metrics metrics
        expect_eq "metrics schema key" "$(schema_key)" "netpolld.metrics/1"
        json_verb irq irq
}

case_pause_resume() {
        need_daemon || return
        ctl profile set itest-json-adaptive
        expect_rc 0
        json_verb mode pause
        expect_eq "pause schema key" "$(schema_key)" "netpolld.mode/1"
        json_verb mode resume
        ctl profile set itest-latency
        expect_rc 0
}

case_monitor_once() {
        need_daemon || return
        json_verb monitor-once monitor --once
        expect_eq "monitor --once schema key" "$(schema_key)" "netpolld.monitor-once/1"
        python3 -c 'import json, sys; o = json.load(sys.stdin); sys.exit(not o["cpus"])' <<<"$OUT" ||
                fail "monitor --once has no CPU samples (the fixture has statistics files):" "$OUT"
}

case_monitor_lines() {
        need_daemon || return
        local json=$TMP/monitor.json i
        "$NETPOLLCTL" --json monitor >"$json" 2>"$json.err" &
        local pid=$!
        STARTED_PIDS+=("$pid")
        for i in $(seq 40 60); do
                "$NETPOLLCTL" set busy-poll "$i" >/dev/null 2>&1
                wait_for 0.5 grep -q "\"new\": *\"${i}us\"" "$json" && break
        done
        "$NETPOLLCTL" reset busy-poll >/dev/null 2>&1
        wait_for 5 grep -q '"reason": *"reset"' "$json" || fail "no reset line from netpollctl --json monitor:" "$(cat "$json" "$json.err")"
        kill_and_wait "$pid"
        OUT=$(cat "$json")
        validate knob-changed --lines
}

require_root_and_tools
if ! python3 -c 'import jsonschema' 2>/dev/null; then
        echo "1..0 # SKIP python3-jsonschema missing (Debian package python3-jsonschema)"
        exit 0
fi
setup_tmp
make_fixture
stat_init 2
make_policy
cat >"$PROFILES/itest-json-adaptive.conf" <<'EOF2'
[profile]
description = integration test: adaptive, so that pause and resume apply
[knobs]
netdev-budget = 600
[adaptive]
enabled = yes
EOF2
start_bus
# shellcheck disable=SC2119  # no extra options: the configured daemon
start_daemon || { echo "Bail out! netpolld did not start"; printf '%s' "$CASE_DIAG"; exit 1; }

run_case "the schema files are valid and named as their \$id says" case_schema_files
run_case "the validator refuses broken documents and accepts added keys" case_validator_refuses_broken_output
run_case "status" case_status
run_case "list, get, set and reset" case_list_get_set_reset
run_case "explain" case_explain
run_case "profile list, show, set and release" case_profiles
run_case "metrics and irq" case_metrics_irq
run_case "pause and resume" case_pause_resume
run_case "monitor --once" case_monitor_once
run_case "monitor: one schema-valid object per KnobChanged" case_monitor_lines
tap_done
