#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# test-ansible.sh: the fleet example (examples/ansible/netpolld.yml) run
# with `ansible-playbook -c local` against this machine, which has no
# systemd as PID 1, so the playbook takes its no-systemd path: netpolld
# must run under another supervisor and is reloaded with netpollctl.
#   1. the playbook installs the .debs tools/build-deb made from HEAD (once
#      per commit for the fleet suite, fleet-debs.sh) and the profile, then
#      stops with its message: netpolld is not running;
#   2. the test starts the installed /usr/sbin/netpolld (its default
#      /etc/netpolld/netpolld.conf, a fixture sysroot, a private bus);
#   3. the playbook adds a second profile, selects it and reloads: netpolld
#      runs it and has written its knob into the fixture;
#   4. run again, the playbook changes nothing and reloads nothing;
#   5. a profile with an error is refused by the playbook (netpolld
#      --check-config) and never reaches /etc.
# Afterwards the packages are purged (and anything apt installed with
# them), and /etc and the installed package set are compared with what
# they were. Speaks TAP; needs root, ansible-playbook (ansible-core) and a
# git checkout (or NETPOLLD_FLEET_DEBS=DIR or NETPOLLD_ANSIBLE_DEBS=DIR with netpolld_*.deb and
# netpollctl_*.deb). Skips when netpolld is already installed: it would
# replace it.

# shellcheck source=tests/integration/lib.sh
. "$(dirname "$(readlink -f "$0")")/lib.sh"
# shellcheck source=tests/integration/fleet-debs.sh
. "$LIB_DIR/fleet-debs.sh"

PLAYBOOK=$NETPOLLD_SOURCE_ROOT/examples/ansible/netpolld.yml

require_root_and_tools
for t in ansible-playbook dpkg-query apt-get; do
        command -v "$t" >/dev/null || { echo "1..0 # SKIP needs $t (Debian package ansible-core or ansible)"; exit 0; }
done
if dpkg-query -W -f '${Status}\n' netpolld netpollctl 2>/dev/null | grep -q 'installed'; then
        echo "1..0 # SKIP netpolld or netpollctl is installed: the test would replace it"
        exit 0
fi
if [ -e /etc/netpolld ]; then
        echo "1..0 # SKIP /etc/netpolld exists without the package: the test would change it"
        exit 0
fi

# /etc as "PATH TYPE MODE OWNER SHA256-or-target" lines.
etc_state() {
        find /etc -xdev \( -type f -o -type l -o -type d \) -printf '%p %y %m %u:%g %l\n' | sort >"$1.list"
        find /etc -xdev -type f -print0 | sort -z | xargs -0 sha256sum >"$1.sums" 2>/dev/null
        cat "$1.list" "$1.sums"
}
# The profile lines (commented or not) of netpolld.conf's [daemon] section.
daemon_profile_lines() {
        awk '/^\[daemon\]/ { d = 1; next } /^#?\[[a-z]/ { d = 0 } d && /^[ \t]*#?[ \t]*profile[ \t]*=/' \
                /etc/netpolld/netpolld.conf
}
installed_packages() { dpkg-query -W -f '${db:Status-Abbrev} ${Package}\n' | awk '$1 ~ /^[ih]i/ { print $2 }' | sort; }

setup_tmp
ETC_BEFORE=$(etc_state "$TMP/etc-before")
PKGS_BEFORE=$(installed_packages)
export ANSIBLE_HOME=$TMP/ansible ANSIBLE_LOCAL_TEMP=$TMP/ansible/tmp ANSIBLE_REMOTE_TEMP=$TMP/ansible/tmp \
        ANSIBLE_NOCOLOR=1 ANSIBLE_RETRY_FILES_ENABLED=0

restore_host() {
        local added
        [ -n "$DAEMON_PID" ] && stop_daemon TERM
        if dpkg-query -W -f '${Status}\n' netpolld netpollctl 2>/dev/null | grep -q 'installed\|config-files'; then
                DEBIAN_FRONTEND=noninteractive dpkg --purge netpolld netpollctl >>"$TMP/purge.log" 2>&1 ||
                        echo "# dpkg --purge failed: $(tail -5 "$TMP/purge.log")"
        fi
        added=$(comm -13 <(printf '%s\n' "$PKGS_BEFORE") <(installed_packages))
        if [ -n "$added" ]; then
                # shellcheck disable=SC2086
                DEBIAN_FRONTEND=noninteractive apt-get purge -y -qq $added >>"$TMP/purge.log" 2>&1
        fi
}
trap 'restore_host; cleanup' EXIT

# playbook NAME [ansible-playbook options]: runs the playbook against this
# machine into $TMP/NAME.log; PLAY_RC is its exit status, PLAY_OUT its output.
playbook() {
        local name=$1
        shift
        # Already root: no sudo (which this machine may not have).
        ansible-playbook -i localhost, -c local -e ansible_become=false -e "@$TMP/vars.json" "$@" "$PLAYBOOK" \
                >"$TMP/$name.log" 2>&1
        PLAY_RC=$?
        PLAY_OUT=$(cat "$TMP/$name.log")
}
recap() { grep -E '^localhost +:' <<<"$PLAY_OUT"; }
write_vars() { # PROFILE FILE...
        python3 -c 'import json, sys; print(json.dumps({"netpolld_debs": sys.argv[1].split(),
            "netpolld_bus_address": sys.argv[2], "netpolld_profile": sys.argv[3], "netpolld_profile_files": sys.argv[4:]}))' \
                "$DEBS" "$NETPOLLD_BUS_ADDRESS" "$@" >"$TMP/vars.json"
}

case_packages() {
        local start=$SECONDS
        fleet_debs "$TMP/build-deb.log" || { fail "$FLEET_DEBS_ERROR"; return; }
        diag "packages: $FLEET_DEBS ($((SECONDS - start)) s)"
        DEBS="$(ls "$FLEET_DEBS"/netpolld_*.deb) $(ls "$FLEET_DEBS"/netpollctl_*.deb)"
}

case_first_run_without_daemon() {
        local start=$SECONDS
        write_vars fleet-web "$NETPOLLD_SOURCE_ROOT/examples/ansible/profiles/fleet-web.conf"
        playbook first
        diag "first run: $((SECONDS - start)) s; $(recap)"
        [ "$PLAY_RC" != 0 ] || fail "the playbook succeeded with no netpolld running:" "$PLAY_OUT"
        expect_contains "the playbook says why it stopped" "$PLAY_OUT" "no systemd to start it"
        expect_eq "netpolld installed" "$(dpkg-query -W -f '${Status}' netpolld 2>&1)" "install ok installed"
        expect_eq "netpollctl installed" "$(dpkg-query -W -f '${Status}' netpollctl 2>&1)" "install ok installed"
        cmp -s "$NETPOLLD_SOURCE_ROOT/examples/ansible/profiles/fleet-web.conf" /etc/netpolld/profiles/fleet-web.conf ||
                fail "/etc/netpolld/profiles/fleet-web.conf is not the example profile"
        # In [daemon] exactly one profile line, the selected one; the [rule NAME] examples untouched.
        [ "$(daemon_profile_lines)" = "profile = fleet-web" ] ||
                fail "netpolld.conf's [daemon] does not select fleet-web in exactly one line:" "$(daemon_profile_lines)"
        grep -qx '#profile = latency' /etc/netpolld/netpolld.conf ||
                fail "the commented [rule redis] example lost its '#profile = latency'"
        [ -z "$(find /tmp /var/tmp -maxdepth 1 -name 'netpolld-debs.*' 2>/dev/null)" ] ||
                fail "the playbook left its copied packages behind"
}

case_reload_switches_profile() {
        local start
        make_fixture
        # The installed daemon with its default configuration, run as a supervisor would.
        NETPOLLD=/usr/sbin/netpolld CONF=/etc/netpolld/netpolld.conf
        mkdir -p "$PROFILES"
        # shellcheck disable=SC2119  # no extra options: the configured daemon
        start_daemon || return
        ctl --json status
        expect_contains "the daemon runs the profile the playbook selected" "$OUT" '"profile": "fleet-web"'
        cat >"$TMP/itest-fleet.conf" <<'EOF2'
[profile]
description = integration test: the fleet's second profile
[knobs]
busy-read = 30us
EOF2
        write_vars itest-fleet "$NETPOLLD_SOURCE_ROOT/examples/ansible/profiles/fleet-web.conf" "$TMP/itest-fleet.conf"
        start=$SECONDS
        playbook second
        diag "second run: $((SECONDS - start)) s; $(recap)"
        expect_eq "second run exit status" "$PLAY_RC" 0
        [ "$PLAY_RC" = 0 ] || { diag "$PLAY_OUT"; return; }
        expect_contains "the reload handler ran" "$PLAY_OUT" "RUNNING HANDLER [Reload netpolld]"
        expect_contains "the playbook's own check" "$PLAY_OUT" "netpolld runs profile itest-fleet from /etc/netpolld/profiles/itest-fleet.conf"
        ctl --json status
        expect_contains "status after the reload" "$OUT" '"profile": "itest-fleet"'
        expect_file proc/sys/net/core/busy_read 30
}

case_second_run_changes_nothing() {
        need_daemon || return
        playbook third
        diag "third run: $(recap)"
        expect_eq "third run exit status" "$PLAY_RC" 0
        recap | grep -q 'changed=0 ' || fail "the same playbook run again changed something:" "$(recap)"
        expect_not_contains "no reload without a change" "$PLAY_OUT" "RUNNING HANDLER [Reload netpolld]"
}

case_bad_profile_refused() {
        need_daemon || return
        printf '[profile]\ndescription = broken\n[knobs]\nbusy-read = 5x\n' >"$TMP/itest-broken.conf"
        write_vars itest-broken "$TMP/itest-broken.conf"
        playbook broken
        [ "$PLAY_RC" != 0 ] || fail "the playbook installed a broken profile"
        expect_contains "netpolld --check-config's reason is shown" "$PLAY_OUT" "busy-read"
        [ -e /etc/netpolld/profiles/itest-broken.conf ] && fail "the broken profile reached /etc/netpolld/profiles"
        grep -qx "profile = itest-fleet" /etc/netpolld/netpolld.conf ||
                fail "netpolld.conf no longer selects itest-fleet:" "$(grep -n profile /etc/netpolld/netpolld.conf)"
        ctl --json status
        expect_contains "the daemon still runs itest-fleet" "$OUT" '"profile": "itest-fleet"'
}

case_host_as_found() {
        local d
        restore_host
        d=$(diff <(printf '%s\n' "$PKGS_BEFORE") <(installed_packages))
        [ -z "$d" ] || fail "installed packages differ from before the test:" "$d"
        d=$(diff <(printf '%s\n' "$ETC_BEFORE") <(etc_state "$TMP/etc-after"))
        [ -z "$d" ] || fail "/etc differs from before the test:" "$d"
}

start_bus
run_case "packages from tools/build-deb (or NETPOLLD_FLEET_DEBS / NETPOLLD_ANSIBLE_DEBS)" case_packages
[ -n "${DEBS:-}" ] || { echo "Bail out! no packages"; exit 1; }
run_case "without systemd and no netpolld running: installed, profile dropped, a clear stop" \
        case_first_run_without_daemon
run_case "netpolld running: a new profile selected, reloaded with netpollctl, checked by --json status" \
        case_reload_switches_profile
run_case "run again: nothing changed, no reload" case_second_run_changes_nothing
run_case "a broken profile is refused before it reaches /etc" case_bad_profile_refused
run_case "packages purged; /etc and the package set as found" case_host_as_found
echo "# the whole test took $SECONDS s"
tap_done
