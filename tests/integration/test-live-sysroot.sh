#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# test-live-sysroot.sh: netpolld with --sysroot pointing at a directory where
# the real /proc and /sys are bind-mounted, as the Kubernetes example mounts
# the node's at /host (tier 3). The mounts are made in a private mount
# namespace that only netpolld runs in (unshare -m, propagation private), so
# nothing is mounted on the host. What the sysroot's proc and sys are, not
# its name, makes it the running kernel (sysroot_is_live()): the log says
# so, the CPU pressure trigger is armed once traffic flows, and the
# device-wide per-NAPI knob of a veth the test makes is read over netlink
# (`netpollctl list`). netpolld runs --dry-run: it writes nothing on the
# host, and only the veth pair and the namespace of its peer are made.
# Speaks TAP; needs root.

# shellcheck source=tests/integration/lib.sh
. "$(dirname "$(readlink -f "$0")")/lib.sh"

require_root_and_tools
for t in ip ethtool unshare mount findmnt; do
        if ! command -v "$t" >/dev/null; then
                echo "1..0 # SKIP needs $t"
                exit 0
        fi
done
if ! [ -r /proc/pressure/cpu ]; then
        echo "1..0 # SKIP no PSI in this kernel (/proc/pressure/cpu)"
        exit 0
fi

NS=npdls-$$
DEV=npd$$l0
PEER=npd$$l1
cleanup_devices() {
        ip link del "$DEV" 2>/dev/null
        ip netns del "$NS" 2>/dev/null
}
setup_tmp
trap 'cleanup; cleanup_devices' EXIT
HOST=$TMP/host # the sysroot: empty mount points here, /proc and /sys in netpolld's namespace
mkdir -p "$HOST/proc" "$HOST/sys"
ROOT=$HOST

mkdir -p "$PROFILES"
cat >"$PROFILES/itest-live.conf" <<EOF
[profile]
description = integration test: adapting on a bind-mounted live sysroot
[knobs]
irq-suspend-timeout@$DEV = 0
[adaptive]
enabled = yes
EOF
printf '[daemon]\nprofile = itest-live\ninterval = 100ms\n' >"$CONF"

start_bus
ip netns add "$NS" && veth_pair "$DEV" "" "$PEER" "$NS" &&
        ip addr add 10.232.0.1/24 dev "$DEV" && ip -n "$NS" addr add 10.232.0.2/24 dev "$PEER" ||
        { echo "Bail out! cannot set up the veth pair"; exit 1; }

# Runs netpolld in a mount namespace of its own with the real /proc and /sys at $HOST.
DAEMON_WRAPPER=(unshare --mount --propagation private -- sh -c
        'mount --bind /proc "$0/proc" && mount --bind /sys "$0/sys" && exec "$@"' "$HOST")

# CAP_SYS_RESOURCE is in this shell's bounding set (bit 24), so netpolld may keep it.
has_sys_resource() {
        local bnd
        bnd=$(awk '$1 == "CapBnd:" { print $2 }' /proc/self/status)
        (((0x$bnd >> 24) & 1))
}

case_start() {
        start_daemon --dry-run || return
        log_has "sysroot $HOST: the running kernel's /proc and /sys" ||
                fail "the log does not call $HOST the running kernel:" "$(cat "$LOG")"
        # The running kernel's reason, whichever it is; below a fixture nothing was said at all.
        if has_sys_resource; then
                log_has "CPU pressure trigger: armed while traffic flows (CAP_SYS_RESOURCE stays permitted to open it)" ||
                        fail "the log does not say the CPU pressure trigger will be armed:" "$(cat "$LOG")"
        else
                log_has "no CAP_SYS_RESOURCE at start, so no CPU pressure trigger" ||
                        fail "the log does not say why no CPU pressure trigger can be armed:" "$(cat "$LOG")"
        fi
        log_has "crowd-exit watch: " || fail "the log does not say whether crowd exits are watched:" "$(cat "$LOG")"
        log_has "per-NAPI device knobs (irq-suspend-timeout@DEV): from the kernel over netlink" ||
                fail "the log does not name netlink as the per-NAPI source:" "$(cat "$LOG")"
        log_has "capabilities kept: " || fail "the log does not say which capabilities were kept:" "$(cat "$LOG")"
        expect_eq "mounts on the host below $HOST" "$(findmnt -rn -o TARGET | grep -c "^$HOST")" 0
}

# Without CAP_SYS_RESOURCE in the bounding set (the development VM) netpolld
# cannot open its own trigger: the file is passed then, opened in a user
# namespace (tools/pass-cpu-pressure), as systemd's OpenFile= would.
case_trigger_armed() {
        local armed="traffic: CPU pressure trigger armed (some 10 ms within 500 ms)"
        if ! has_sys_resource; then
                # a chroot (CI's fresh root) may create no user namespace
                if ! "$NETPOLLD_SOURCE_ROOT/tools/pass-cpu-pressure" --opener userns -- true 2>"$TMP/userns.err"; then
                        skip "no CAP_SYS_RESOURCE and no user namespace here ($(cat "$TMP/userns.err")): the trigger cannot be armed"
                        return 0
                fi
                stop_daemon TERM
                DAEMON_WRAPPER=("$NETPOLLD_SOURCE_ROOT/tools/pass-cpu-pressure" --opener userns -- "${DAEMON_WRAPPER[@]}")
                start_daemon --dry-run || return
                armed="traffic: CPU pressure trigger armed (some 10 ms within 500 ms, on the file the service manager passed)"
        fi
        need_daemon || return
        # Thousands of UDP datagrams a second through the veth to its peer: traffic for the adapter.
        python3 -c '
import socket, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
end = time.monotonic() + 10
while time.monotonic() < end:
    try:
        s.sendto(b"x", ("10.232.0.2", 9))
    except OSError:
        time.sleep(0.001)
' &
        STARTED_PIDS+=("$!")
        wait_for 10 log_has "$armed" ||
                fail "no CPU pressure trigger armed under traffic:" "$(tail -n 20 "$LOG")"
}

case_napi_knob_listed() {
        need_daemon || return
        local row
        ctl list
        expect_rc 0
        row=$(grep -F "irq-suspend-timeout@$DEV " <<<"$OUT")
        [ -n "$row" ] || { fail "irq-suspend-timeout@$DEV not listed:" "$OUT"; return; }
        expect_not_contains "irq-suspend-timeout@$DEV in netpollctl list" "$row" "unsupported"
        expect_contains "irq-suspend-timeout@$DEV in netpollctl list" "$row" "0ns"
}

case_stop() {
        need_daemon || return
        stop_daemon TERM
        expect_eq "netpolld exit status on SIGTERM" "$DAEMON_RC" 0
        expect_eq "mounts on the host below $HOST" "$(findmnt -rn -o TARGET | grep -c "^$HOST")" 0
}

run_case "a bind-mounted /proc and /sys are the running kernel: trigger, crowd watch, netlink, capabilities logged" \
        case_start
run_case "under traffic the CPU pressure trigger is armed" case_trigger_armed
run_case "netpollctl list reads irq-suspend-timeout@DEV over netlink" case_napi_knob_listed
run_case "SIGTERM stops it; nothing was mounted on the host" case_stop
tap_done
