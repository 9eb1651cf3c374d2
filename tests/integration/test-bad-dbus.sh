#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# test-bad-dbus.sh: bad D-Bus input against netpolld on a fixture sysroot and
# a private bus. dbus-bad-input.py (a raw D-Bus client, rawbus.py, so that it
# can send what libraries refuse to build) calls every method with wrong
# types, empty and 1 MiB strings, unknown knobs, device names with slashes
# or 300 characters, out-of-range NAPI ids, invalid UTF-8 and malformed
# bodies, from 100 callers at once and as uid 65534, and checks that each
# gets a D-Bus error, that the fixture, the journal and what the reads say
# do not change, that netpolld keeps serving and that its VmRSS stays flat.
# Then netpolld must still stop cleanly and restore everything. Speaks TAP;
# needs root.

# shellcheck source=tests/integration/lib.sh
. "$(dirname "$(readlink -f "$0")")/lib.sh"

case_stop_restores() {
        need_daemon || return
        expect_eq "get dev-weight after the bad input" "$(get_value_origin dev-weight)" "100 manual"
        stop_and_expect_restored
        log_has "ERROR" && fail "netpolld logged an error:" "$(grep ERROR "$LOG")"
        return 0
}

require_root_and_tools
setup_tmp
make_fixture
make_policy
start_bus
# uid 65534 must be able to read the client modules
chmod -R a+rX "$TMP"
# shellcheck disable=SC2119  # no extra options: the configured daemon
if ! start_daemon; then
        echo "Bail out! netpolld did not start: $(tail -n 20 "$LOG")"
        exit 1
fi
# A manual value as well as the profile's: neither may move.
"$NETPOLLCTL" set dev-weight 100 >/dev/null || { echo "Bail out! netpollctl set dev-weight 100 failed"; exit 1; }

python3 "$LIB_DIR/dbus-bad-input.py" "$TMP/bus" "$DAEMON_PID" "$ROOT" "$STATE" >"$TMP/bad-input.tap" 2>&1
rc=$?
cat "$TMP/bad-input.tap"
CASE_N=$(grep -cE '^(not )?ok ' "$TMP/bad-input.tap")
check_driver() {
        [ "$rc" = 0 ] || fail "dbus-bad-input.py exited $rc (its output is above)"
}
run_case "the bad-input driver ran to its end" check_driver
run_case "netpolld still stops cleanly and restores every value" case_stop_restores
tap_done
