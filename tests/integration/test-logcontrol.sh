#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# test-logcontrol.sh: integration tests of netpolld's log control on a
# fixture sysroot and a private bus: --log-level and NETPOLLD_LOG_LEVEL
# (bad values refused before anything starts, the option winning), and the
# org.freedesktop.LogControl1 object: reading as anyone, setting LogLevel and
# LogTarget as root with PropertiesChanged, refusal for an unprivileged
# caller, bad values, the read-only SyslogIdentifier. Speaks TAP.

# shellcheck source=tests/integration/lib.sh
. "$(dirname "$(readlink -f "$0")")/lib.sh"

LC=(org.netpolld1 /org/freedesktop/LogControl1 org.freedesktop.LogControl1)
ASNOBODY=(setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all --bounding-set=-all)
LEVELS="emerg, alert, crit, err, warning, notice, info, debug"
DEBUG_LINE="netpolld: debug: "

# lc_get PROPERTY: busctl's rendering ('s "info"'), or "<failed: ...>".
lc_get() {
        busctl_ get-property "${LC[@]}" "$1"
        if [ "$RC" != 0 ]; then
                echo "<failed: rc $RC: $ERR>"
                return
        fi
        printf '%s' "$OUT"
}

lc_set() { busctl_ set-property "${LC[@]}" "$1" s "$2"; }

# gdbus_set PROPERTY VALUE: Properties.Set with gdbus, which prints the D-Bus error name.
gdbus_set() {
        run "$@" gdbus call --address "$NETPOLLD_BUS_ADDRESS" --dest org.netpolld1 \
                --object-path /org/freedesktop/LogControl1 --method org.freedesktop.DBus.Properties.Set \
                org.freedesktop.LogControl1 "$GSET_PROPERTY" "<'$GSET_VALUE'>"
}

# Lines netpolld logged since "mark_log" was last called.
LOG_MARK=0
mark_log() { LOG_MARK=$(wc -l <"$LOG"); }
log_since_mark() { tail -n "+$((LOG_MARK + 1))" "$LOG"; }
debug_since_mark() { log_since_mark | grep -qF -- "$DEBUG_LINE"; }

# Reload makes netpolld apply the profile again, which logs at debug level.
reload_and_settle() {
        ctl reload
        expect_rc 0
        sleep 0.3
}

# expect_usage_error NEEDLE... -- [VAR=VALUE...] NETPOLLD [OPTION...]: that command, with the test's
# paths added, exits 2 naming every NEEDLE and has started nothing.
expect_usage_error() {
        local needles=() n
        while [ "$1" != "--" ]; do
                needles+=("$1")
                shift
        done
        shift
        run env "$@" --sysroot "$ROOT" --state-dir "$STATE" --config "$CONF" --profile-dir "$PROFILES"
        expect_rc 2
        for n in "${needles[@]}"; do
                expect_contains "stderr of '$*'" "$ERR" "$n"
        done
        expect_tree_bytes "after '$*'" "$SNAP"
        [ -e "$STATE/restore.journal" ] && fail "'$*' left a restore journal"
        daemon_answers && fail "'$*' answers on the bus"
        return 0
}

case_bad_level_at_start() {
        expect_usage_error "invalid --log-level value 'loud'" "$LEVELS" "0-7" -- "$NETPOLLD" --log-level=loud
        expect_usage_error "invalid --log-level value '8'" -- "$NETPOLLD" --log-level 8 --check-config
        expect_usage_error "invalid NETPOLLD_LOG_LEVEL value 'verbose'" "$LEVELS" -- \
                NETPOLLD_LOG_LEVEL=verbose "$NETPOLLD"
        expect_usage_error "invalid NETPOLLD_LOG_LEVEL value 'DEBUG'" -- NETPOLLD_LOG_LEVEL=DEBUG "$NETPOLLD"
}

case_option_wins_over_environment() {
        # a bad NETPOLLD_LOG_LEVEL is not even looked at when --log-level is given
        run env NETPOLLD_LOG_LEVEL=loud "$NETPOLLD" --log-level=debug --check-config --sysroot "$ROOT" \
                --config "$CONF" --profile-dir "$PROFILES"
        expect_rc 0
        mark_log
        export NETPOLLD_LOG_LEVEL=debug
        start_daemon --log-level=warning
        unset NETPOLLD_LOG_LEVEL
        daemon_alive || return
        expect_eq "LogLevel with --log-level=warning and NETPOLLD_LOG_LEVEL=debug" "$(lc_get LogLevel)" 's "warning"'
        expect_not_contains "log at warning" "$(log_since_mark)" "running with profile"
        stop_daemon TERM
        expect_eq "exit status on SIGTERM" "$DAEMON_RC" 0
}

case_level_from_environment_and_numbers() {
        mark_log
        export NETPOLLD_LOG_LEVEL=debug
        start_daemon
        unset NETPOLLD_LOG_LEVEL
        daemon_alive || return
        expect_eq "LogLevel with NETPOLLD_LOG_LEVEL=debug" "$(lc_get LogLevel)" 's "debug"'
        debug_since_mark || fail "no '$DEBUG_LINE' line at start with NETPOLLD_LOG_LEVEL=debug:" "$(log_since_mark)"
        stop_daemon TERM
        start_daemon --log-level=5
        expect_eq "LogLevel with --log-level=5" "$(lc_get LogLevel)" 's "notice"'
        stop_daemon TERM
        expect_eq "exit status on SIGTERM" "$DAEMON_RC" 0
        expect_tree_values "after the runs" "$SNAP"
}

case_read_by_anyone() {
        need_daemon || return
        expect_eq "LogLevel" "$(lc_get LogLevel)" 's "info"'
        expect_eq "LogTarget" "$(lc_get LogTarget)" 's "auto"'
        expect_eq "SyslogIdentifier" "$(lc_get SyslogIdentifier)" 's "netpolld"'
        run "${ASNOBODY[@]}" busctl --address="$NETPOLLD_BUS_ADDRESS" get-property "${LC[@]}" LogLevel
        expect_rc 0
        expect_eq "LogLevel read by uid 65534" "$OUT" 's "info"'
        busctl_ introspect "${LC[@]}"
        expect_rc 0
        local p
        for p in LogLevel LogTarget; do
                awk -v n=".$p" '$1 == n && $2 == "property" && $3 == "s" && /writable/ { f = 1 } END { exit !f }' \
                        <<<"$OUT" || fail "introspection does not show $p as a writable string property:" "$OUT"
        done
        awk '$1 == ".SyslogIdentifier" && $2 == "property" && !/writable/ { f = 1 } END { exit !f }' <<<"$OUT" ||
                fail "introspection does not show SyslogIdentifier as read-only:" "$OUT"
}

case_no_debug_by_default() {
        need_daemon || return
        mark_log
        reload_and_settle
        debug_since_mark && fail "debug lines logged at level info:" "$(log_since_mark)"
        return 0
}

case_root_sets_debug() {
        need_daemon || return
        local sig=$TMP/signals-level
        gdbus monitor --address "$NETPOLLD_BUS_ADDRESS" --dest org.netpolld1 >"$sig" 2>&1 &
        STARTED_PIDS+=("$!")
        wait_for 10 grep -q "is owned by" "$sig" || fail "gdbus monitor did not start:" "$(cat "$sig")"
        mark_log
        lc_set LogLevel debug
        expect_rc 0
        expect_eq "LogLevel after set-property debug" "$(lc_get LogLevel)" 's "debug"'
        wait_for 5 grep -qF "{'LogLevel': <'debug'>}" "$sig" ||
                fail "no PropertiesChanged for LogLevel; gdbus monitor saw:" "$(cat "$sig")"
        wait_for 5 log_has "log level set to debug (was info)" || fail "the change is not logged:" "$(log_since_mark)"
        reload_and_settle
        wait_for 5 debug_since_mark || fail "no '$DEBUG_LINE' line after LogLevel debug and a reload:" \
                "$(log_since_mark)"
        kill_and_wait "${STARTED_PIDS[-1]}"
}

case_unprivileged_refused() {
        need_daemon || return
        run "${ASNOBODY[@]}" busctl --address="$NETPOLLD_BUS_ADDRESS" set-property "${LC[@]}" LogLevel s err
        [ "$RC" != 0 ] || fail "uid 65534 set LogLevel"
        expect_contains "uid 65534 setting LogLevel" "$ERR" "Access denied"
        GSET_PROPERTY=LogTarget GSET_VALUE=null gdbus_set "${ASNOBODY[@]}"
        [ "$RC" != 0 ] || fail "uid 65534 set LogTarget"
        expect_contains "uid 65534 setting LogTarget" "$ERR" "org.freedesktop.DBus.Error.AccessDenied"
        expect_contains "uid 65534 setting LogTarget" "$ERR" "needs root or CAP_NET_ADMIN"
        # like the Manager's changes: CAP_NET_ADMIN does not travel over dbus-daemon
        run setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all,+net_admin \
                --ambient-caps=+net_admin --bounding-set=-all,+net_admin \
                busctl --address="$NETPOLLD_BUS_ADDRESS" set-property "${LC[@]}" LogLevel s err
        [ "$RC" != 0 ] || fail "uid 65534 with CAP_NET_ADMIN set LogLevel over dbus-daemon"
        expect_eq "LogLevel after the refused calls" "$(lc_get LogLevel)" 's "debug"'
        expect_eq "LogTarget after the refused calls" "$(lc_get LogTarget)" 's "auto"'
}

case_bad_values_refused() {
        need_daemon || return
        lc_set LogLevel loud
        [ "$RC" != 0 ] || fail "LogLevel loud accepted"
        expect_contains "LogLevel loud" "$ERR" "invalid log level 'loud': expected one of $LEVELS"
        GSET_PROPERTY=LogLevel GSET_VALUE=8 gdbus_set
        expect_contains "LogLevel 8" "$ERR" "org.freedesktop.DBus.Error.InvalidArgs"
        busctl_ set-property "${LC[@]}" LogLevel u 7
        [ "$RC" != 0 ] || fail "LogLevel with signature u accepted"
        GSET_PROPERTY=LogTarget GSET_VALUE=kmsg gdbus_set
        expect_contains "LogTarget kmsg" "$ERR" "org.freedesktop.DBus.Error.InvalidArgs"
        expect_contains "LogTarget kmsg" "$ERR" "netpolld cannot log to 'kmsg': expected one of console, journal, auto, null"
        lc_set SyslogIdentifier other
        [ "$RC" != 0 ] || fail "SyslogIdentifier is writable"
        expect_eq "LogLevel after bad values" "$(lc_get LogLevel)" 's "debug"'
        expect_eq "LogTarget after bad values" "$(lc_get LogTarget)" 's "auto"'
        expect_eq "SyslogIdentifier after a set" "$(lc_get SyslogIdentifier)" 's "netpolld"'

        # numbers are levels too; reading gives the name
        lc_set LogLevel 6
        expect_rc 0
        expect_eq "LogLevel after set 6" "$(lc_get LogLevel)" 's "info"'
        lc_set LogLevel debug
}

case_log_target() {
        need_daemon || return
        lc_set LogTarget null
        expect_rc 0
        expect_eq "LogTarget" "$(lc_get LogTarget)" 's "null"'
        mark_log
        reload_and_settle
        [ -z "$(log_since_mark)" ] || fail "netpolld logged with LogTarget null:" "$(log_since_mark)"

        lc_set LogTarget console
        expect_rc 0
        expect_eq "LogTarget" "$(lc_get LogTarget)" 's "console"'
        mark_log
        reload_and_settle
        debug_since_mark || fail "no '$DEBUG_LINE' line with LogTarget console:" "$(log_since_mark)"

        if [ -S /run/systemd/journal/socket ]; then
                skip "journald runs here: the journal target's fallback to stderr is not checked"
        else
                lc_set LogTarget journal
                expect_rc 0
                mark_log
                reload_and_settle
                debug_since_mark || fail "LogTarget journal without journald lost the messages:" "$(log_since_mark)"
        fi
        lc_set LogTarget auto
        expect_rc 0
        expect_eq "LogTarget" "$(lc_get LogTarget)" 's "auto"'
}

case_stop() {
        need_daemon || return
        stop_daemon TERM
        expect_eq "exit status on SIGTERM" "$DAEMON_RC" 0
        expect_tree_values "after SIGTERM" "$SNAP"
}

require_root_and_tools
command -v gdbus >/dev/null || { echo "1..0 # SKIP needs gdbus"; exit 0; }
setup_tmp
make_fixture
make_policy
start_bus

run_case "--log-level and NETPOLLD_LOG_LEVEL with a bad value: exit 2, the accepted values, nothing started" \
        case_bad_level_at_start
run_case "--log-level wins over NETPOLLD_LOG_LEVEL" case_option_wins_over_environment
run_case "NETPOLLD_LOG_LEVEL=debug logs debug lines; --log-level takes 0-7" case_level_from_environment_and_numbers
# shellcheck disable=SC2119  # no extra options: the configured daemon
start_daemon || { echo "Bail out! netpolld did not start"; printf '%s' "$CASE_DIAG"; exit 1; }
run_case "LogControl1 properties are readable by anyone and introspectable" case_read_by_anyone
run_case "no debug lines at the default level" case_no_debug_by_default
run_case "root sets LogLevel debug: PropertiesChanged, debug lines appear" case_root_sets_debug
run_case "an unprivileged caller may not set LogLevel or LogTarget" case_unprivileged_refused
run_case "bad levels and targets are InvalidArgs; SyslogIdentifier is read-only" case_bad_values_refused
run_case "LogTarget null silences netpolld, console and journal bring it back" case_log_target
run_case "netpolld stops cleanly and restores the fixture" case_stop
tap_done
