#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# test-irq-daemon.sh: IRQ and queue steering through netpolld itself, on
# the real kernel (tier 3). netpolld runs with the real sysroot "/" (the
# host's init network namespace), a private bus, a temporary state
# directory and profiles whose [knobs] are empty and whose [irq] names only
# the veth devices this test makes (their peers live in a test namespace).
# Cases: discovery through `netpollctl irq` (table and --json), RPS/XPS
# written as planned, a veth created while netpolld runs, per-NAPI values
# set and read back (also straight from the kernel over generic netlink),
# a --dry-run daemon writing nothing, the metrics on real devices (queue
# rows, per-queue statistics where the kernel keeps them), a profile switch that hands the
# devices back, restore on SIGTERM, journal replay after kill -9 (also of
# per-NAPI values, journaled as "napi:" entries), and
# finally that nothing else on the host changed. Speaks TAP; needs root.
#
# Only devices the test creates are steered or deleted (their names carry
# the test's pid); eth0 and every other host device are only read, to
# check that they were left alone.

# shellcheck source=tests/integration/lib.sh
. "$(dirname "$(readlink -f "$0")")/lib.sh"

require_root_and_tools
for t in ip ethtool; do
        if ! command -v "$t" >/dev/null; then
                echo "1..0 # SKIP needs $t"
                exit 0
        fi
done

NS=npdi-$$              # holds the peers
DEV0=npd$$t0            # steered from the start
DEV1=npd$$t1            # created while netpolld runs
DEV2=npd$$t2            # created and deleted while netpolld runs
DEV3=npd$$t3            # created, then renamed to DEV4, in and out of a bridge
DEV4=npd$$t4
BR=npd$$b0              # a bridge, not named by [irq]
DEVU=npd$$u0            # not named by [irq]: never written
MADE_LINKS=()

cleanup_devices() {
        local d
        for d in "${MADE_LINKS[@]}"; do
                ip link del "$d" 2>/dev/null
        done
        ip netns del "$NS" 2>/dev/null
}
setup_tmp
# Stop netpolld first (it restores what it changed), then delete the devices.
trap 'cleanup; cleanup_devices' EXIT
ROOT=/ # the real kernel: never call the fixture helpers of lib.sh (make_fixture, snapshot)

# add_veth A B: A in the host namespace (steered by netpolld), its peer B in $NS.
add_veth() {
        veth_pair "$1" "" "$2" "$NS" || return 1
        MADE_LINKS+=("$1")
}

# ---------------------------------------------------------------- the kernel's view

NAPI_DUMP=$LIB_DIR/napi-dump.py # the kernel's per-NAPI values, read without netpolld's code
QSTATS_DUMP=$LIB_DIR/qstats-dump.py # the kernel's per-queue statistics, the same way


# kernel_napi DEV: the napi-dump lines of DEV's NAPI instances.
kernel_napi() {
        python3 "$NAPI_DUMP" "$(cat "/sys/class/net/$1/ifindex")"
}

# The CPUs of a sysfs mask ("00000000,00000003") or a CPU list ("0-1,3",
# "none", "" and "-" for none), as "0 1 3": the two spellings compared.
mask_cpus() {
        local hex=${1//,/} out=() bit=0 i d
        for ((i = ${#hex} - 1; i >= 0; i--)); do
                d=$((16#${hex:i:1}))
                ((d & 1)) && out+=("$bit")
                ((d & 2)) && out+=($((bit + 1)))
                ((d & 4)) && out+=($((bit + 2)))
                ((d & 8)) && out+=($((bit + 3)))
                bit=$((bit + 4))
        done
        echo "${out[*]}"
}
list_cpus() {
        local part out=() c
        case $1 in "" | - | none) echo; return ;; esac
        for part in ${1//,/ }; do
                for ((c = ${part%-*}; c <= ${part#*-}; c++)); do out+=("$c"); done
        done
        echo "${out[*]}"
}

sysq() { cat "/sys/class/net/$1/queues/$2" 2>/dev/null || echo "<unreadable>"; }

# The test devices' queue files as "PATH=VALUE" lines.
dev_files() {
        local d
        for d in "$@"; do
                printf '%s=%s\n' "$d/rx-0/rps_cpus" "$(sysq "$d" rx-0/rps_cpus)" \
                        "$d/tx-0/xps_cpus" "$(sysq "$d" tx-0/xps_cpus)"
        done
}

# What netpolld must leave alone on the host: every other device's queue
# masks and NAPI settings, every IRQ's affinity, and the NAPI instances of
# other devices. (The global knobs are not compared: other programs, such as
# a benchmark, may change them while this runs; netpolld's log shows whether
# it wrote them.)
host_state() {
        local f ours=" "
        for f in "${MADE_LINKS[@]}"; do ours+="$(cat "/sys/class/net/$f/ifindex" 2>/dev/null) "; done
        for f in /sys/class/net/*/queues/*/{rps_cpus,rps_flow_cnt,xps_cpus} \
                /sys/class/net/*/{gro_flush_timeout,napi_defer_hard_irqs,threaded} \
                /proc/irq/*/smp_affinity_list; do
                case $f in /sys/class/net/npd$$*) continue ;; esac
                [ -e "$f" ] && printf '%s=%s\n' "$f" "$(cat "$f" 2>/dev/null || echo "<unreadable>")"
        done
        python3 "$NAPI_DUMP" | while read -r id ifindex rest; do
                case "$ours" in *" $ifindex "*) continue ;; esac
                printf 'napi %s (ifindex %s)=%s\n' "$id" "$ifindex" "$rest"
        done
}

# ---------------------------------------------------------------- netpolld's view

# irq_refresh: `netpollctl --json irq` into IRQ_TSV, one tab-separated line
# per queue: device queue napi_id irq cpus rps xps state ("-" for null).
# Fails the case when the command fails or its JSON is not the documented shape.
IRQ_TSV=
irq_refresh() {
        IRQ_TSV=
        ctl --json irq
        if [ "$RC" != 0 ]; then
                fail "netpollctl --json irq exited $RC" "$ERR"
                return 1
        fi
        IRQ_TSV=$(python3 -c '
import json, sys
keys = ["device", "queue", "napi_id", "irq", "cpus", "rps", "xps", "state", "napi_mode", "napi_thread",
        "napi_thread_cpus"]
rows = json.load(sys.stdin)
assert isinstance(rows, list), "not a JSON array"
for r in rows:
    assert sorted(r) == sorted(keys), "keys %s" % sorted(r)
    print("\t".join("-" if r[k] is None else str(r[k]) for k in keys))
' <<<"$OUT" 2>&1) || {
                fail "netpollctl --json irq printed no array of queue objects:" "$IRQ_TSV" "$OUT"
                IRQ_TSV=
                return 1
        }
}

# irq_row_of_napi DEV NAPI: the first queue of DEV that NAPI serves.
irq_row_of_napi() { awk -F'\t' -v d="$1" -v n="$2" '$1 == d && $3 == n { print $2; exit }' <<<"$IRQ_TSV"; }

# thread_cpus PID: the CPUs a task may run on, as the kernel lists them.
thread_cpus() { awk '/^Cpus_allowed_list:/ { print $2 }' "/proc/$1/status"; }
thread_on() { [ "$(thread_cpus "$1" 2>/dev/null)" = "$2" ]; } # PID CPUS

# irq_row DEV QUEUE: the IRQ_TSV line of one queue, "" when not listed.
irq_row() { awk -F'\t' -v d="$1" -v q="$2" '$1 == d && $2 == q' <<<"$IRQ_TSV"; }

# irq_field DEV QUEUE N: field N (1 device, 2 queue, 3 napi_id, 4 irq, 5 cpus, 6 rps, 7 xps, 8 state).
irq_field() { irq_row "$1" "$2" | cut -f"$3"; }

# queues_in_state DEV STATE: quiet check for wait_for: DEV's rx-0 and tx-0 both listed in STATE.
queues_in_state() {
        local out rc
        out=$("$NETPOLLCTL" --json irq 2>/dev/null) || return 1
        rc=$(python3 -c '
import json, sys
rows = [r for r in json.loads(sys.argv[1]) if r["device"] == sys.argv[2] and r["queue"] in ("rx-0", "tx-0")]
print(len(rows) == 2 and all(r["state"] == sys.argv[3] for r in rows))
' "$out" "$1" "$2" 2>/dev/null)
        [ "$rc" = True ]
}

# expect_steered DEV: the kernel's masks are what `netpollctl irq` says was
# applied: RPS over every online CPU (off with one CPU), XPS on the queue's CPU.
expect_steered() {
        local d=$1 cpus rps xps
        cpus=$(irq_field "$d" rx-0 5)
        rps=$(irq_field "$d" rx-0 6)
        xps=$(irq_field "$d" tx-0 7)
        expect_eq "$d rx-0 state" "$(irq_field "$d" rx-0 8)" applied
        expect_eq "$d tx-0 state" "$(irq_field "$d" tx-0 8)" applied
        expect_eq "$d rx-0 listed RPS" "$rps" "$RPS_ALL"
        expect_eq "$d tx-0 XPS follows rx-0's CPU" "$xps" "$cpus"
        expect_eq "$d rps_cpus in sysfs (as CPUs) vs listed $rps" "$(mask_cpus "$(sysq "$d" rx-0/rps_cpus)")" \
                "$(list_cpus "$rps")"
        expect_eq "$d xps_cpus in sysfs (as CPUs) vs listed $xps" "$(mask_cpus "$(sysq "$d" tx-0/xps_cpus)")" \
                "$(list_cpus "$xps")"
        [ -n "$(list_cpus "$xps")" ] || fail "$d: XPS lists no CPU"
}

journal_has() { # PATTERN (grep -P)
        grep -qP -- "$1" "$STATE/restore.journal" 2>/dev/null
}

not_journaled() { ! journal_has "/sys/class/net/$1/"; } # DEV

ONLINE=$(cat /sys/devices/system/cpu/online)
if [ "$(nproc --all)" -gt 1 ]; then RPS_ALL=$ONLINE; else RPS_ALL=none; fi

write_profiles() {
        mkdir -p "$PROFILES"
        cat >"$PROFILES/itest-irq.conf" <<EOF
[profile]
description = integration test: steer the test's veth devices only

[irq]
devices = npd$$t*
EOF
        cat >"$PROFILES/itest-noirq.conf" <<'EOF'
[profile]
description = integration test: no steering, no knobs
EOF
        write_config itest-irq
}

# ---------------------------------------------------------------- cases

case_setup() {
        if ! ip netns add "$NS"; then
                fail "cannot create network namespace $NS"
                return
        fi
        add_veth "$DEV0" p0 || fail "cannot create the veth pair $DEV0/p0 with GRO on"
        add_veth "$DEVU" pu0 || fail "cannot create the veth pair $DEVU/pu0 with GRO on"
        write_profiles
        start_bus
        ORIG_FILES=$(dev_files "$DEV0" "$DEVU")
        ORIG_NAPI0=$(kernel_napi "$DEV0")
        HOST_BEFORE=$(host_state)
        [ -n "$ORIG_NAPI0" ] || fail "$DEV0 has no NAPI instance in the kernel (gro on should give it one)"
        read -r NAPI0 _ <<<"$ORIG_NAPI0"
        diag "CPUs online: $ONLINE; $DEV0 NAPI: $ORIG_NAPI0"
}

case_dry_run_writes_nothing() {
        start_daemon --dry-run || return
        irq_refresh || return
        expect_eq "$DEV0 rx-0 state (dry run)" "$(irq_field "$DEV0" rx-0 8)" planned
        expect_eq "$DEV0 tx-0 state (dry run)" "$(irq_field "$DEV0" tx-0 8)" planned
        expect_eq "$DEV0 planned RPS" "$(irq_field "$DEV0" rx-0 6)" "$RPS_ALL"
        PLAN_XPS=$(irq_field "$DEV0" tx-0 7)
        [ -n "$(list_cpus "$PLAN_XPS")" ] || fail "$DEV0: the plan gives XPS no CPU: $(irq_row "$DEV0" tx-0)"
        expect_eq "$DEVU state" "$(irq_field "$DEVU" rx-0 8)" unmanaged
        expect_eq "queue files during the dry run" "$(dev_files "$DEV0" "$DEVU")" "$ORIG_FILES"
        journal_has "npd$$" && fail "the dry run journaled test devices:" "$(cat "$STATE/restore.journal")"
        stop_daemon TERM
        expect_eq "netpolld --dry-run exit status on SIGTERM" "$DAEMON_RC" 0
        expect_eq "queue files after the dry run" "$(dev_files "$DEV0" "$DEVU")" "$ORIG_FILES"
}

case_discovery() {
        start_daemon || return
        ctl irq
        expect_rc 0
        expect_eq "netpollctl irq table header" "$(head -n1 <<<"$OUT" | tr -s ' ')" \
                "DEVICE QUEUE NAPI IRQ CPUS RPS XPS MODE THREAD THREAD-CPUS STATE"
        awk -v d="$DEV0" '$1 == d && $2 == "rx-0" && $11 == "applied" { f = 1 } END { exit !f }' <<<"$OUT" ||
                fail "the table has no applied rx-0 row for $DEV0:" "$OUT"
        irq_refresh || return
        local napi
        napi=$(irq_field "$DEV0" rx-0 3)
        [ "$napi" -gt 0 ] 2>/dev/null || fail "$DEV0 rx-0 has no NAPI id: $(irq_row "$DEV0" rx-0)"
        expect_eq "$DEV0 rx-0 NAPI id vs the kernel's" "$napi" "$NAPI0"
        expect_eq "$DEV0 rx-0 IRQ (veth has none)" "$(irq_field "$DEV0" rx-0 4)" -
        expect_eq "$DEV0 rx-0 state" "$(irq_field "$DEV0" rx-0 8)" applied
        expect_eq "$DEV0 tx-0 state" "$(irq_field "$DEV0" tx-0 8)" applied
        case $(irq_field "$DEV0" rx-0 9) in
        disabled | -) ;; # softirq polling, or a kernel that does not say (before 6.17)
        *) fail "$DEV0 rx-0 NAPI mode: $(irq_row "$DEV0" rx-0)" ;;
        esac
        expect_eq "$DEV0 rx-0 thread (none in softirq mode)" "$(irq_field "$DEV0" rx-0 10)" -
        expect_eq "$DEVU rx-0 state" "$(irq_field "$DEVU" rx-0 8)" unmanaged
        expect_eq "$DEVU tx-0 state" "$(irq_field "$DEVU" tx-0 8)" unmanaged
        [ -z "$(irq_row lo rx-0)" ] || fail "loopback is listed: $(irq_row lo rx-0)"
        local other
        other=$(awk -F'\t' -v p="npd$$" 'index($1, p) != 1 && $8 != "unmanaged"' <<<"$IRQ_TSV")
        [ -z "$other" ] || fail "devices the profile does not name are not unmanaged:" "$other"
        log_has "$DEV0: steering its queues" || fail "no log line for $DEV0" "$(tail -5 "$LOG")"
}

case_rps_xps_as_planned() {
        [ -n "$IRQ_TSV" ] || { fail "no listing from the previous case"; return; }
        expect_steered "$DEV0"
        expect_eq "$DEV0 XPS vs the dry run's plan" "$(irq_field "$DEV0" tx-0 7)" "$PLAN_XPS"
        local rps0 xps0
        rps0=$(grep -F "$DEV0/rx-0/rps_cpus=" <<<"$ORIG_FILES" | cut -d= -f2)
        xps0=$(grep -F "$DEV0/tx-0/xps_cpus=" <<<"$ORIG_FILES" | cut -d= -f2)
        journal_has "^rps\trps-cpus@$DEV0:rx-0\t$DEV0\t[0-9]+\t/sys/class/net/$DEV0/queues/rx-0/rps_cpus\t$rps0\$" ||
                fail "no journal entry with rx-0/rps_cpus's original $rps0" "$(cat "$STATE/restore.journal" 2>&1)"
        journal_has "^xps\txps-cpus@$DEV0:tx-0\t$DEV0\t[0-9]+\t/sys/class/net/$DEV0/queues/tx-0/xps_cpus\t$xps0\$" ||
                fail "no journal entry with tx-0/xps_cpus's original $xps0" "$(cat "$STATE/restore.journal" 2>&1)"
        expect_eq "$DEVU queue files" "$(dev_files "$DEVU")" "$(grep "^$DEVU/" <<<"$ORIG_FILES")"
        journal_has "$DEVU" && fail "$DEVU is journaled" "$(cat "$STATE/restore.journal")"
}

case_new_veth_gets_policy() {
        need_daemon || return
        # netpolld may steer it before this script can read it: its originals are
        # the kernel's defaults, which $DEV0 had when it was made the same way.
        ORIG_FILES1=$(grep "^$DEV0/" <<<"$ORIG_FILES" | sed "s|^$DEV0/|$DEV1/|")
        add_veth "$DEV1" p1 || { fail "cannot create the veth pair $DEV1/p1"; return; }
        wait_for 5 queues_in_state "$DEV1" applied || {
                irq_refresh
                fail "$DEV1 not applied within 5 s:" "$(irq_row "$DEV1" rx-0)" "$(irq_row "$DEV1" tx-0)" \
                        "$(tail -5 "$LOG")"
                return
        }
        irq_refresh || return
        expect_steered "$DEV1"
        expect_steered "$DEV0"
        log_has "$DEV1: steering its queues" || fail "no log line for $DEV1"
}

case_removed_veth_forgotten() {
        need_daemon || return
        add_veth "$DEV2" p2 || { fail "cannot create the veth pair $DEV2/p2"; return; }
        wait_for 5 queues_in_state "$DEV2" applied || { fail "$DEV2 not applied within 5 s"; return; }
        journal_has "/sys/class/net/$DEV2/" || fail "$DEV2's files are not journaled" "$(cat "$STATE/restore.journal")"
        ip link del "$DEV2" || { fail "cannot delete $DEV2"; return; }
        wait_for 5 not_journaled "$DEV2" ||
                fail "$DEV2's files still journaled 5 s after it went" "$(cat "$STATE/restore.journal")"
        irq_refresh || return
        [ -z "$(irq_row "$DEV2" rx-0)" ] || fail "$DEV2 still listed: $(irq_row "$DEV2" rx-0)"
        expect_steered "$DEV1"
}

# The device list follows rtnetlink: a rename moves the steering (and its journal
# entries) to the new name; a bridge port's own messages (AF_BRIDGE, a RTM_DELLINK
# when it leaves) are not the link's and do not drop it.
case_renamed_and_bridged_veth_followed() {
        need_daemon || return
        add_veth "$DEV3" p3 || { fail "cannot create the veth pair $DEV3/p3"; return; }
        wait_for 5 queues_in_state "$DEV3" applied || { fail "$DEV3 not applied within 5 s"; return; }
        MADE_LINKS+=("$DEV4" "$BR")
        ip link set "$DEV3" down && ip link set "$DEV3" name "$DEV4" && ip link set "$DEV4" up ||
                { fail "cannot rename $DEV3 to $DEV4"; return; }
        wait_for 5 log_has "$DEV3: renamed to $DEV4" || fail "no log line for the rename" "$(tail -5 "$LOG")"
        wait_for 5 queues_in_state "$DEV4" applied || { fail "$DEV4 not applied within 5 s"; return; }
        irq_refresh || return
        [ -z "$(irq_row "$DEV3" rx-0)" ] || fail "$DEV3 still listed: $(irq_row "$DEV3" rx-0)"
        journal_has "/sys/class/net/$DEV4/" || fail "$DEV4's files are not journaled" "$(cat "$STATE/restore.journal")"
        not_journaled "$DEV3" || fail "$DEV3's files still journaled" "$(cat "$STATE/restore.journal")"

        ip link add "$BR" type bridge && ip link set "$DEV4" master "$BR" && ip link set "$DEV4" nomaster ||
                { fail "cannot put $DEV4 in and out of bridge $BR"; return; }
        sleep 0.5
        irq_refresh || return
        expect_eq "$DEV4 rx-0 state after leaving the bridge" "$(irq_field "$DEV4" rx-0 8)" applied
        journal_has "/sys/class/net/$DEV4/" || fail "$DEV4 forgotten after leaving the bridge"
        expect_eq "bridge $BR state" "$(irq_field "$BR" rx-0 8)" unmanaged
}

case_napi_set_and_get() {
        need_daemon || return
        local ref=gro-flush-timeout@$DEV0:rx-0 k
        ctl set "$ref" 20us
        expect_rc 0
        expect_eq "set output" "$OUT" "$ref set to 20000ns"
        ctl get "$ref"
        expect_rc 0
        expect_eq "get by queue" "$(awk -v k="$ref" '$1 == k { print $2, $3 }' <<<"$OUT")" "20000ns manual"
        ctl get "gro-flush-timeout@$DEV0:napi-$NAPI0"
        expect_rc 0
        expect_eq "get by NAPI id" "$(awk 'NR > 1 { print $2, $3 }' <<<"$OUT")" "20000ns manual"
        ctl set "napi-defer-hard-irqs@$DEV0:napi-$NAPI0" 3
        expect_rc 0
        k=$(kernel_napi "$DEV0")
        expect_eq "the kernel's NAPI $NAPI0 (id ifindex defer gro suspend)" "$k" \
                "$NAPI0 $(cat "/sys/class/net/$DEV0/ifindex") 3 20000 $(awk '{ print $5 }' <<<"$ORIG_NAPI0")"
        expect_eq "$DEV0 device-wide gro_flush_timeout (napi-set does not show there)" \
                "$(cat "/sys/class/net/$DEV0/gro_flush_timeout")" 0
        ctl get "napi-defer-hard-irqs@$DEVU:rx-0"
        expect_rc 0
        expect_eq "an unchanged instance" "$(awk 'NR > 1 { print $2, $3 }' <<<"$OUT")" "0 default"
        ctl set "gro-flush-timeout@$DEV0:napi-999999" 20us
        expect_rc 1
        expect_contains "unknown NAPI id" "$ERR" "no such NAPI instance"
        ctl set "$ref" 20parsecs
        expect_rc 2
        expect_contains "bad value" "$ERR" "invalid value '20parsecs'"
}

# irq-suspend-timeout@DEV (no sysfs file): the catalog knob sets every NAPI
# instance of the device over netlink, journals each and hands them back.
case_device_irq_suspend_timeout() {
        need_daemon || return
        local ref=irq-suspend-timeout@$DEV0 k orig
        orig=$(kernel_napi "$DEV0" | awk '{ print $5 }' | sort -u)
        ctl set "$ref" 20ms
        expect_rc 0
        expect_eq "set output" "$OUT" "$ref set to 20000000ns"
        k=$(kernel_napi "$DEV0")
        [ -n "$k" ] || { fail "$DEV0 has no NAPI instance in the kernel's dump"; return; }
        expect_eq "the kernel's irq-suspend-timeout of every NAPI instance of $DEV0" \
                "$(awk '{ print $5 }' <<<"$k" | sort -u)" 20000000
        ctl get "$ref"
        expect_rc 0
        expect_eq "get" "$(awk -v k="$ref" '$1 == k { print $2, $3 }' <<<"$OUT")" "20000000ns manual"
        journal_has "^napi\tirq-suspend-timeout@$DEV0:napi-$NAPI0\t$DEV0\t[0-9]+\tnapi:$NAPI0:irq-suspend-timeout\t" ||
                fail "no napi: journal entry for irq-suspend-timeout" "$(cat "$STATE/restore.journal" 2>&1)"
        ctl reset "$ref"
        expect_rc 0
        expect_eq "the kernel's values after reset" "$(kernel_napi "$DEV0" | awk '{ print $5 }' | sort -u)" "$orig"
}

# napi-threaded@DEV: the mode of every NAPI instance over netlink on 6.17+
# (the device's threaded file stays as it was), each instance journaled and
# handed back; busy-poll either works (a kernel after 6.18) or is refused
# naming the kernel that has it, changing nothing.
case_device_napi_threaded() {
        need_daemon || return
        local ref=napi-threaded@$DEV0 ifindex orig k pid
        ifindex=$(cat "/sys/class/net/$DEV0/ifindex")
        orig=$(python3 "$NAPI_DUMP" threaded "$ifindex")
        if [ "$(awk '{ print $2 }' <<<"$orig" | sort -u)" = - ]; then
                skip "this kernel's NAPI instances have no threaded mode (before 6.17): the device file is used"
                return
        fi
        ctl set "$ref" enabled
        expect_rc 0
        expect_eq "set output" "$OUT" "$ref set to enabled"
        k=$(python3 "$NAPI_DUMP" threaded "$ifindex")
        expect_eq "the kernel's threaded mode of every NAPI instance of $DEV0" "$(awk '{ print $2 }' <<<"$k" | sort -u)" 1
        pid=$(awk 'NR == 1 { print $3 }' <<<"$k")
        [[ $(cat "/proc/$pid/comm" 2>/dev/null) == napi/* ]] ||
                fail "NAPI $NAPI0 has no napi/ kernel thread (pid '$pid')" "$k"
        expect_eq "$DEV0's device-wide threaded file (napi-set does not show there)" \
                "$(cat "/sys/class/net/$DEV0/threaded")" 0
        ctl get "$ref" "napi-threaded@$DEV0:napi-$NAPI0"
        expect_rc 0
        expect_eq "get" "$(awk 'NR > 1 { print $2, $3 }' <<<"$OUT")" "enabled manual
enabled manual"
        journal_has "^napi\tnapi-threaded@$DEV0:napi-$NAPI0\t$DEV0\t$ifindex\tnapi:$NAPI0:napi-threaded\t0$" ||
                fail "no napi: journal entry for napi-threaded" "$(cat "$STATE/restore.journal" 2>&1)"
        ctl set "$ref" busy-poll
        if [ "$RC" = 0 ]; then
                expect_eq "busy-poll in the kernel" \
                        "$(python3 "$NAPI_DUMP" threaded "$ifindex" | awk '{ print $2 }' | sort -u)" 2
        else
                expect_rc 1
                expect_contains "busy-poll refused" "$ERR" "busy-poll needs Linux after 6.18"
                expect_eq "the kernel's modes after the refusal" \
                        "$(python3 "$NAPI_DUMP" threaded "$ifindex" | awk '{ print $2 }' | sort -u)" 1
        fi
        ctl set "napi-threaded@$DEV0:napi-$NAPI0" busy-poll
        [ "$RC" = 0 ] || expect_contains "per-NAPI busy-poll refused" "$ERR" "busy-poll needs Linux after 6.18"
        ctl set "$ref" sometimes
        expect_rc 2
        expect_contains "bad mode" "$ERR" "expected one of disabled, enabled, busy-poll"
        ctl reset "$ref"
        expect_rc 0
        expect_eq "the kernel's modes after reset" \
                "$(python3 "$NAPI_DUMP" threaded "$ifindex" | awk '{ print $1, $2 }')" "$(awk '{ print $1, $2 }' <<<"$orig")"
}

# A threaded NAPI instance's kernel thread goes where steering put its queue
# (the IRQ's CPU; veth has no IRQ, so the planned CPU netpollctl irq shows),
# through the owner: journaled, shown by netpollctl irq, a thread moved by
# hand left alone, and the thread's CPUs handed back with the mode.
case_napi_thread_placed() {
        need_daemon || return
        local ref=napi-threaded@$DEV0 ifindex pid want orig k
        ifindex=$(cat "/sys/class/net/$DEV0/ifindex")
        if [ "$(python3 "$NAPI_DUMP" threaded "$ifindex" | awk 'NR == 1 { print $2 }')" = - ]; then
                skip "this kernel's NAPI instances report no threaded mode (before 6.17)"
                return
        fi
        ctl set "$ref" enabled
        expect_rc 0
        pid=$(python3 "$NAPI_DUMP" threaded "$ifindex" | awk -v id="$NAPI0" '$1 == id { print $3 }')
        [ -n "$pid" ] && [ "$pid" != - ] || { fail "NAPI $NAPI0 got no kernel thread"; return; }
        irq_refresh || return
        want=$(irq_field "$DEV0" "$(irq_row_of_napi "$DEV0" "$NAPI0")" 5)
        wait_for 10 thread_on "$pid" "$want" ||
                fail "kernel thread $pid of NAPI $NAPI0 is on CPUs $(thread_cpus "$pid"), the plan says $want"
        irq_refresh || return
        k=$(irq_row "$DEV0" "$(irq_row_of_napi "$DEV0" "$NAPI0")" | cut -f9-11)
        expect_eq "netpollctl irq: mode, thread, thread CPUs" "$k" "enabled	$pid	$want"
        journal_has "^thread\tnapi-thread-affinity@$DEV0:napi-$NAPI0\t$DEV0\t$ifindex\tnapi:$NAPI0:thread-cpus\t$ONLINE$" ||
                fail "no napi: journal entry with the thread's original CPUs" "$(cat "$STATE/restore.journal" 2>&1)"
        # Moved by hand: noticed at the next ownership check and left alone.
        orig=$(thread_cpus "$pid")
        local other=$( [ "$want" = 0 ] && echo 1 || echo 0 )
        if [ "$ONLINE" = 0-1 ]; then
                taskset -pc "$other" "$pid" >/dev/null || fail "taskset could not move kernel thread $pid"
                sleep 3
                ctl reset "$ref"
                expect_rc 0
                [ "$(thread_cpus "$pid" 2>/dev/null)" != "$want" ] ||
                        fail "the thread moved by hand was put back on CPU $want"
        else
                ctl reset "$ref"
                expect_rc 0
        fi
        expect_eq "modes after reset" "$(python3 "$NAPI_DUMP" threaded "$ifindex" | awk '{ print $2 }' | sort -u)" 0
        # The thread ended with the mode: the ownership check (every 2 s) forgets its entry.
        wait_for 10 no_thread_entry || fail "a thread entry outlived its thread" "$(cat "$STATE/restore.journal")"
}
no_thread_entry() { ! journal_has "thread-cpus"; }

case_profile_without_irq_hands_back() {
        need_daemon || return
        ctl profile set itest-noirq
        expect_rc 0
        irq_refresh || return
        expect_eq "$DEV0 rx-0 state" "$(irq_field "$DEV0" rx-0 8)" unmanaged
        expect_eq "$DEV1 tx-0 state" "$(irq_field "$DEV1" tx-0 8)" unmanaged
        expect_eq "queue files after the switch" "$(dev_files "$DEV0" "$DEVU")" "$ORIG_FILES"
        expect_eq "$DEV1 queue files after the switch" "$(dev_files "$DEV1")" "$ORIG_FILES1"
        journal_has "/sys/class/net/($DEV0|$DEV1|$DEVU)/" &&
                fail "test devices still journaled after the switch" "$(cat "$STATE/restore.journal")"
        ctl profile set itest-irq
        expect_rc 0
        irq_refresh || return
        expect_steered "$DEV0"
        expect_steered "$DEV1"
}

case_sigterm_restores() {
        need_daemon || return
        expect_eq "NAPI $NAPI0 before the stop" "$(kernel_napi "$DEV0" | awk '{ print $3, $4 }')" "3 20000"
        stop_daemon TERM
        expect_eq "netpolld exit status on SIGTERM" "$DAEMON_RC" 0
        expect_eq "queue files" "$(dev_files "$DEV0" "$DEVU")" "$ORIG_FILES"
        expect_eq "$DEV1 queue files" "$(dev_files "$DEV1")" "$ORIG_FILES1"
        expect_eq "the kernel's per-NAPI values of $DEV0" "$(kernel_napi "$DEV0")" "$ORIG_NAPI0"
        [ -e "$STATE/restore.journal" ] && fail "journal left after a clean stop" "$(cat "$STATE/restore.journal")"
        log_has "(napi:" && log_has "it stays in the journal" && fail "netpolld could not restore per-NAPI values"
        return 0
}

# kill_after_apply: a fresh netpolld steering $DEV0 and $DEV1, then kill -9.
kill_after_apply() {
        start_daemon || return 1
        irq_refresh || return 1
        expect_steered "$DEV0"
        # The --json rows of real devices against their schema (netpollctl(8), OUTPUT).
        if python3 -c 'import jsonschema' 2>/dev/null; then
                local errors
                ctl --json irq
                errors=$(python3 "$LIB_DIR/json-validate.py" "$NETPOLLD_SOURCE_ROOT/docs/schema/netpollctl-irq.v1.json" \
                        <<<"$OUT" 2>&1) || fail "netpollctl --json irq does not match its schema:" "$errors" "$OUT"
        fi
        sigkill "$DAEMON_PID"
        { wait "$DAEMON_PID"; } 2>/dev/null
        DAEMON_PID=
        if [ "$(dev_files "$DEV0")" = "$(grep "^$DEV0/" <<<"$ORIG_FILES")" ]; then
                if [ "$RPS_ALL" = none ]; then
                        skip "one CPU: $DEV0's queue files may keep their originals, steering before kill -9 not checked"
                else
                        fail "$DEV0's files are not steered after kill -9"
                fi
        fi
        [ -s "$STATE/restore.journal" ] || { fail "no journal after kill -9"; return 1; }
}

case_kill9_restart_same_profile() {
        kill_after_apply || return
        start_daemon || return
        log_has "restored" || diag "no log line mentions the restore (log tail):" "$(tail -8 "$LOG")"
        irq_refresh || return
        expect_steered "$DEV0"
        # The originals must be the files' values before the first netpolld, not what the killed one wrote.
        local rps0
        rps0=$(grep -F "$DEV0/rx-0/rps_cpus=" <<<"$ORIG_FILES" | cut -d= -f2)
        journal_has "^rps\trps-cpus@$DEV0:rx-0\t$DEV0\t[0-9]+\t/sys/class/net/$DEV0/queues/rx-0/rps_cpus\t$rps0\$" ||
                fail "the journal does not hold rps_cpus's original $rps0 after the replay" \
                        "$(cat "$STATE/restore.journal" 2>&1)"
        stop_daemon TERM
        expect_eq "netpolld exit status on SIGTERM" "$DAEMON_RC" 0
        expect_eq "queue files" "$(dev_files "$DEV0" "$DEVU")" "$ORIG_FILES"
        expect_eq "$DEV1 queue files" "$(dev_files "$DEV1")" "$ORIG_FILES1"
}

case_kill9_restart_replays_journal() {
        kill_after_apply || return
        start_daemon --profile itest-noirq || return
        expect_eq "queue files right after the restart" "$(dev_files "$DEV0" "$DEVU")" "$ORIG_FILES"
        expect_eq "$DEV1 queue files right after the restart" "$(dev_files "$DEV1")" "$ORIG_FILES1"
        [ -e "$STATE/restore.journal" ] && fail "journal left after the replay" "$(cat "$STATE/restore.journal")"
        stop_daemon TERM
        expect_eq "netpolld exit status on SIGTERM" "$DAEMON_RC" 0
        expect_eq "queue files after the stop" "$(dev_files "$DEV0" "$DEVU")" "$ORIG_FILES"
}

# kill -9 after per-NAPI changes: the journal holds "napi:" entries with the
# originals (they live in netlink, not in files), and the next start sets
# them back over netlink before anything else; a SIGTERM then leaves
# everything original.
case_kill9_restores_napi_values() {
        local defer0 gro0 k
        read -r _ _ defer0 gro0 _ <<<"$ORIG_NAPI0"
        start_daemon || return
        ctl set "gro-flush-timeout@$DEV0:napi-$NAPI0" 30us
        expect_rc 0
        ctl set "napi-defer-hard-irqs@$DEV0:rx-0" 5
        expect_rc 0
        expect_eq "NAPI $NAPI0 (defer gro) after the sets" "$(kernel_napi "$DEV0" | awk '{ print $3, $4 }')" "5 30000"
        sigkill "$DAEMON_PID"
        { wait "$DAEMON_PID"; } 2>/dev/null
        DAEMON_PID=
        expect_eq "NAPI $NAPI0 (defer gro) after kill -9" "$(kernel_napi "$DEV0" | awk '{ print $3, $4 }')" "5 30000"
        journal_has "^napi\tgro-flush-timeout@$DEV0:napi-$NAPI0\t$DEV0\t[0-9]+\tnapi:$NAPI0:gro-flush-timeout\t$gro0\$" ||
                fail "no napi: journal entry for gro-flush-timeout" "$(cat "$STATE/restore.journal" 2>&1)"
        journal_has "^napi\tnapi-defer-hard-irqs@$DEV0:napi-$NAPI0\t$DEV0\t[0-9]+\tnapi:$NAPI0:napi-defer-hard-irqs\t$defer0\$" ||
                fail "no napi: journal entry for napi-defer-hard-irqs" "$(cat "$STATE/restore.journal" 2>&1)"
        start_daemon --profile itest-irq || return
        k=$(kernel_napi "$DEV0")
        expect_eq "the kernel's per-NAPI values of $DEV0 after the restart" "$k" "$ORIG_NAPI0"
        log_has "restored gro-flush-timeout@$DEV0:napi-$NAPI0 to $gro0" ||
                fail "no log line for the per-NAPI replay" "$(tail -8 "$LOG")"
        journal_has "\tnapi:" && fail "napi: entries left after the replay" "$(cat "$STATE/restore.journal")"
        ctl get "gro-flush-timeout@$DEV0:napi-$NAPI0"
        expect_rc 0
        expect_eq "origin after the replay" "$(awk 'NR > 1 { print $3 }' <<<"$OUT")" default
        stop_daemon TERM
        expect_eq "netpolld exit status on SIGTERM" "$DAEMON_RC" 0
        expect_eq "the kernel's per-NAPI values of $DEV0 after the stop" "$(kernel_napi "$DEV0")" "$ORIG_NAPI0"
        expect_eq "queue files after the stop" "$(dev_files "$DEV0" "$DEVU")" "$ORIG_FILES"
        [ -e "$STATE/restore.journal" ] && fail "journal left after a clean stop" "$(cat "$STATE/restore.journal")"
        return 0
}

# An administrator's netpollctl set wins over [irq] steering on the same mask
# (the owner's manual layer over the profile's) until `netpollctl reset` hands
# it back to the policy; it is netpolld's to restore on stop either way.
case_manual_rps_on_steered_device_wins() {
        start_daemon || return
        local cpu=${ONLINE##*[-,]} want
        want=$(printf '%x' $((1 << cpu)))
        ctl set "rps-cpus@$DEV0" "$cpu"
        expect_rc 0
        expect_eq "$DEV0 rps_cpus after the manual set" "$(sysq "$DEV0" rx-0/rps_cpus | sed 's/^0*//; s/,//g')" "$want"
        irq_refresh || return
        expect_eq "$DEV0 rx-0 state" "$(irq_field "$DEV0" rx-0 8)" manual
        ctl get "rps-cpus@$DEV0"
        expect_eq "origin" "$(awk 'NR > 1 { print $3 }' <<<"$OUT")" manual
        ctl reset "rps-cpus@$DEV0"
        expect_rc 0
        irq_refresh || return
        expect_steered "$DEV0"
        ctl set "rps-cpus@$DEV0" "$cpu"
        expect_rc 0
        stop_daemon TERM
        expect_eq "netpolld exit status on SIGTERM" "$DAEMON_RC" 0
        expect_eq "queue files after the stop" "$(dev_files "$DEV0" "$DEVU")" "$ORIG_FILES"
}

# A queue changed behind netpolld's back is left alone (state external) until
# `netpollctl reset` hands it back. Listing is read-only: the ownership timer
# notices the change, not the list.
case_reset_takes_back_external_queue() {
        cat "$LOG" >>"$TMP/earlier.log" # log_has looks at this daemon only
        : >"$LOG"
        start_daemon || return
        echo 1 >"/sys/class/net/$DEV0/queues/rx-0/rps_cpus" || { fail "cannot write $DEV0 rps_cpus"; return; }
        wait_for 6 log_has "rps-cpus@$DEV0:rx-0 was changed outside netpolld" ||
                fail "no log line for the outside change" "$(tail -5 "$LOG")"
        irq_refresh || return
        expect_eq "$DEV0 rx-0 state after an outside write" "$(irq_field "$DEV0" rx-0 8)" external
        ctl reset "rps-cpus@$DEV0"
        expect_rc 0
        irq_refresh || return
        expect_steered "$DEV0"
        stop_daemon TERM
        expect_eq "netpolld exit status on SIGTERM" "$DAEMON_RC" 0
        grep -F "$DEV0/rx-0/rps_cpus=" <<<"$ORIG_FILES" | cut -d= -f2 >"/sys/class/net/$DEV0/queues/rx-0/rps_cpus"
}

# An administrator changes a steered mask by hand and netpolld stops before its
# timer noticed: the stop must not write the original over the administrator's
# value (it was netpolld's only while it held what netpolld wrote).
case_stop_keeps_hand_changed_mask() {
        start_daemon || return
        echo 1 >"/sys/class/net/$DEV0/queues/rx-0/rps_cpus" || { fail "cannot write $DEV0 rps_cpus"; return; }
        stop_daemon TERM
        expect_eq "netpolld exit status on SIGTERM" "$DAEMON_RC" 0
        expect_eq "$DEV0 rps_cpus after the stop" "$(sysq "$DEV0" rx-0/rps_cpus | sed 's/^0*//; s/,//g')" 1
        grep -F "$DEV0/rx-0/rps_cpus=" <<<"$ORIG_FILES" | cut -d= -f2 >"/sys/class/net/$DEV0/queues/rx-0/rps_cpus"
}

# Every kind of value reports its changes (KnobChanged), steering and per-NAPI
# values included, and a per-NAPI value changed by another tool is noticed,
# left alone and not restored on stop.
case_changes_signalled_for_every_kind() {
        local sig=$TMP/signals-kinds defer0
        read -r _ _ defer0 _ _ <<<"$ORIG_NAPI0"
        cat "$LOG" >>"$TMP/earlier.log"
        : >"$LOG"
        start_daemon --profile itest-noirq || return
        start_gdbus_monitor "$sig" || true
        ctl profile set itest-irq
        expect_rc 0
        ctl set "gro-flush-timeout@$DEV0:napi-$NAPI0" 30us
        expect_rc 0
        if [ -n "$GMON_PID" ]; then
                expect_signal "$sig" "KnobChanged ('rps-cpus@$DEV0:rx-0'"
                expect_signal "$sig" "KnobChanged ('gro-flush-timeout@$DEV0:napi-$NAPI0', '0ns', '30000ns', 'manual')"
        fi
        ctl set "napi-defer-hard-irqs@$DEV0:napi-$NAPI0" 4
        expect_rc 0
        python3 "$NAPI_DUMP" set "$NAPI0" defer 9 || { fail "napi-set from outside failed"; return; }
        wait_for 6 log_has "napi-defer-hard-irqs@$DEV0:napi-$NAPI0 was changed outside netpolld" ||
                fail "no log line for the per-NAPI outside change" "$(tail -5 "$LOG")"
        ctl get "napi-defer-hard-irqs@$DEV0:napi-$NAPI0"
        expect_eq "origin after the outside change" "$(awk 'NR > 1 { print $2, $3 }' <<<"$OUT")" "9 external"
        [ -n "$GMON_PID" ] &&
                expect_signal "$sig" "KnobChanged ('napi-defer-hard-irqs@$DEV0:napi-$NAPI0', '4', '9', 'external')"
        [ -n "$GMON_PID" ] && kill_and_wait "$GMON_PID"
        stop_daemon TERM
        expect_eq "netpolld exit status on SIGTERM" "$DAEMON_RC" 0
        expect_eq "the outside value is kept" "$(kernel_napi "$DEV0" | awk -v id="$NAPI0" '$1 == id { print $3 }')" 9
        python3 "$NAPI_DUMP" set "$NAPI0" defer "$defer0"
        expect_eq "queue files after the stop" "$(dev_files "$DEV0" "$DEVU")" "$ORIG_FILES"
}

# Reads change nothing: an unprivileged caller's list, get and irq leave the
# journal byte for byte, and a get of a knob never used does not make it listed.
case_reads_change_nothing() {
        local before after nobody=(setpriv --reuid=65534 --regid=65534 --clear-groups)
        start_daemon || return
        before=$(sha256sum "$STATE/restore.journal" 2>/dev/null)
        echo 1 >"/sys/class/net/$DEV0/queues/rx-0/rps_cpus" || { fail "cannot write $DEV0 rps_cpus"; return; }
        NETPOLLD_BUS_ADDRESS=$NETPOLLD_BUS_ADDRESS "${nobody[@]}" "$NETPOLLCTL" irq >/dev/null 2>&1 ||
                fail "unprivileged netpollctl irq failed"
        NETPOLLD_BUS_ADDRESS=$NETPOLLD_BUS_ADDRESS "${nobody[@]}" "$NETPOLLCTL" get "napi-threaded@$DEVU" >/dev/null 2>&1 ||
                fail "unprivileged netpollctl get failed"
        after=$(sha256sum "$STATE/restore.journal" 2>/dev/null)
        # The timer may have noticed the change meanwhile (every 2 s): then the journal changed by its doing.
        if ! log_has "rps-cpus@$DEV0:rx-0 was changed outside netpolld"; then
                expect_eq "journal after unprivileged reads" "$after" "$before"
        fi
        ctl list
        grep -q "napi-threaded@$DEVU" <<<"$OUT" && fail "a get made napi-threaded@$DEVU a listed knob" "$OUT"
        stop_daemon TERM
        grep -F "$DEV0/rx-0/rps_cpus=" <<<"$ORIG_FILES" | cut -d= -f2 >"/sys/class/net/$DEV0/queues/rx-0/rps_cpus"
        expect_eq "queue files after the stop" "$(dev_files "$DEV0" "$DEVU")" "$ORIG_FILES"
}

# The metrics on real devices: queue_info rows for the steered veth with the
# kernel's NAPI id; per-queue statistics exactly where the kernel keeps them
# (absent for a veth when the kernel has none for it, never zero), each
# value between two reads of the kernel's own before and after. Every other
# device is only read.
case_metrics_real_devices() {
        local ifindex0 before after line ifx type id name v lo hi got n=0 devname
        start_daemon || return
        ifindex0=$(cat "/sys/class/net/$DEV0/ifindex")
        before=$(python3 "$QSTATS_DUMP") || { fail "qstats-dump.py failed: $before"; return; }
        ctl metrics
        expect_rc 0
        local metrics=$OUT
        after=$(python3 "$QSTATS_DUMP")
        if command -v promtool >/dev/null; then
                local lint
                lint=$(promtool check metrics <<<"$metrics" 2>&1) || fail "promtool check metrics:" "$lint"
                [ -z "$lint" ] || fail "promtool check metrics:" "$lint"
        fi
        expect_contains "queue_info of $DEV0 rx-0" "$metrics" \
                "netpolld_queue_info{device=\"$DEV0\",queue=\"rx-0\",napi_id=\"$NAPI0\",irq=\"\","
        expect_contains "queue_info of $DEV0 tx-0" "$metrics" "netpolld_queue_info{device=\"$DEV0\",queue=\"tx-0\","
        grep -qE "^netpolld_queue_info\{device=\"$DEV0\",queue=\"rx-0\",.*state=\"applied\"\} 1\$" <<<"$metrics" ||
                fail "$DEV0 rx-0 is not applied in queue_info:" "$(grep "$DEV0" <<<"$metrics")"
        grep -q "^netpolld_queue_info{device=\"$DEVU\",queue=\"rx-0\",.*state=\"unmanaged\"" <<<"$metrics" ||
                fail "$DEVU (not in [irq]) has no unmanaged queue_info row:" "$(grep "$DEVU" <<<"$metrics")"

        python3 "$QSTATS_DUMP" "$ifindex0" >/dev/null
        case $? in
        3)
                diag "the kernel keeps no per-queue statistics for veth $DEV0 (EOPNOTSUPP)"
                grep -E "^netpolld_queue_[a-z_]+_total\{device=\"$DEV0\"" <<<"$metrics" &&
                        fail "statistics for $DEV0, which the kernel does not keep"
                ;;
        0) diag "the kernel keeps per-queue statistics for veth $DEV0: checked with the rest below" ;;
        *) fail "qstats-dump.py $ifindex0 failed" ;;
        esac

        # Every statistic the kernel reported, before and after, is in the metrics, in between.
        while read -r ifx type id name v; do
                hi=$(awk -v k="$ifx $type $id $name" 'index($0, k " ") == 1 { print $5 }' <<<"$after")
                [ -n "$hi" ] || continue # the queue went away meanwhile
                lo=$v
                devname=$(ip -o link show | awk -F': ' -v i="$ifx" '$1 == i { sub(/@.*/, "", $2); print $2 }')
                line="netpolld_queue_${name}_total{device=\"$devname\",ifindex=\"$ifx\",queue_type=\"$type\",queue_id=\"$id\","
                got=$(grep -F "$line" <<<"$metrics" | awk '{ print $NF }')
                if [ -z "$got" ] || [ "$(wc -l <<<"$got")" != 1 ]; then
                        fail "no single sample $line...} (kernel: $lo..$hi)" "$(grep -F "ifindex=\"$ifx\"" <<<"$metrics")"
                        continue
                fi
                if ! python3 -c 'import sys; a, g, b = map(int, sys.argv[1:]); sys.exit(not a <= g <= b)' "$lo" "$got" "$hi"; then
                        fail "$line...} is $got, the kernel said $lo before and $hi after"
                fi
                n=$((n + 1))
        done <<<"$before"
        # And nothing the kernel did not report.
        local extra
        extra=$(grep -E '^netpolld_queue_[a-z_]+_total\{' <<<"$metrics" | while read -r line; do
                name=${line#netpolld_queue_}
                name=${name%%_total\{*}
                ifx=$(sed -E 's/.*ifindex="([0-9]+)".*/\1/' <<<"$line")
                type=$(sed -E 's/.*queue_type="([a-z]+)".*/\1/' <<<"$line")
                id=$(sed -E 's/.*queue_id="([0-9]+)".*/\1/' <<<"$line")
                grep -q "^$ifx $type $id $name " <<<"$before$NL$after" || echo "$line"
        done)
        [ -z "$extra" ] || fail "samples the kernel did not report:" "$extra"
        if [ "$n" = 0 ]; then
                skip "no device in this namespace has per-queue statistics: only their absence was checked"
        else
                diag "$n per-queue statistics compared with the kernel's: $(cut -d' ' -f1 <<<"$before" | sort -u | tr '\n' ' ')"
        fi
        stop_daemon TERM
        expect_eq "netpolld exit status on SIGTERM" "$DAEMON_RC" 0
}
NL=$'\n'

case_host_untouched() {
        local now d
        [ -n "$HOST_BEFORE" ] || { fail "no record of the host's state from the setup"; return; }
        now=$(host_state)
        # Only what existed before and still does: other programs may add or remove devices and IRQs meanwhile.
        d=$(awk 'NR == FNR { i = index($0, "="); before[substr($0, 1, i - 1)] = substr($0, i + 1); next }
                 { i = index($0, "="); k = substr($0, 1, i - 1); v = substr($0, i + 1) }
                 (k in before) && before[k] != v { print k ": " before[k] " -> " v }' \
                <(printf '%s\n' "$HOST_BEFORE") <(printf '%s\n' "$now"))
        [ -z "$d" ] || fail "host values changed while the test ran:" "$d"
        diag "$(wc -l <<<"$HOST_BEFORE") host values compared"
        # Every write, restore or planned write netpolld logged concerns a test device.
        d=$(cat "$TMP/earlier.log" "$LOG" 2>/dev/null | grep -E ' -> |restored |would (set|put|restore)' |
                grep -vF "npd$$")
        [ -z "$d" ] || fail "netpolld logged changes to something other than the test devices:" "$d"
}

run_case "namespace and veth pairs with GRO, private bus" case_setup
if [ "$CASE_FAILED" != 0 ]; then
        echo "Bail out! cannot set up the devices"
        exit 1
fi
run_case "a --dry-run netpolld shows the plan and writes nothing" case_dry_run_writes_nothing
run_case "netpollctl irq lists the test devices, applied, with NAPI ids (table and --json)" case_discovery
run_case "RPS/XPS in sysfs are what netpollctl irq shows, originals journaled" case_rps_xps_as_planned
run_case "a veth created while netpolld runs gets the policy" case_new_veth_gets_policy
run_case "a steered veth that is deleted is forgotten (list and journal)" case_removed_veth_forgotten
run_case "a steered veth renamed keeps its steering under the new name, also after leaving a bridge" \
        case_renamed_and_bridged_veth_followed
run_case "per-NAPI values set and read back (netpollctl and the kernel)" case_napi_set_and_get
run_case "irq-suspend-timeout@DEV sets, journals and hands back every NAPI instance" case_device_irq_suspend_timeout
run_case "napi-threaded@DEV sets the mode of every NAPI instance, refuses busy-poll where the kernel lacks it" \
        case_device_napi_threaded
run_case "a threaded NAPI instance's kernel thread is placed with its queue, journaled, shown, handed back" \
        case_napi_thread_placed
run_case "a profile without [irq] hands the devices back; switching back steers again" \
        case_profile_without_irq_hands_back
run_case "SIGTERM restores RPS/XPS and per-NAPI values" case_sigterm_restores
run_case "kill -9, restart with the same profile: journal keeps the true originals" case_kill9_restart_same_profile
run_case "kill -9, restart without [irq]: the journal replay restores RPS/XPS" case_kill9_restart_replays_journal
run_case "kill -9 after per-NAPI sets: napi: journal entries, the restart sets the originals back" \
        case_kill9_restores_napi_values
run_case "netpollctl set rps-cpus@DEV wins over [irq] steering until reset" \
        case_manual_rps_on_steered_device_wins
run_case "netpollctl reset hands a queue changed behind netpolld's back back to the policy" \
        case_reset_takes_back_external_queue
run_case "a mask changed by hand is not written over when netpolld stops" case_stop_keeps_hand_changed_mask
run_case "steering and per-NAPI changes are signalled; a per-NAPI outside change is left alone" \
        case_changes_signalled_for_every_kind
run_case "unprivileged reads change no state" case_reads_change_nothing
run_case "metrics on real devices: queue_info of the veth, per-queue statistics as the kernel keeps them" \
        case_metrics_real_devices
run_case "nothing else on the host changed" case_host_untouched
tap_done
