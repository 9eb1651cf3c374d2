#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# test-irq.sh: IRQ and queue steering on the real kernel (tier 3). The test
# makes two network namespaces joined by veth pairs with GRO on (which gives
# veth a NAPI instance) and runs the irqpin module (tests/irqpin-driver) in
# the first one: discovery through libnl, RPS/XPS written and read back,
# per-NAPI values through napi-set/napi-get and the owner, a veth created
# while it runs getting the policy, a value changed behind its back left
# alone, restore on quit and after kill -9. IRQ affinity, which veth lacks, runs against a fixture sysroot.
#
# Only devices the test creates, inside its own namespaces, are touched;
# the host's devices (eth0 included) and their IRQs are never written, and
# deleting the namespaces (trap handler) removes everything the test made.
# Speaks TAP.

# shellcheck source=tests/integration/lib.sh
. "$(dirname "$(readlink -f "$0")")/lib.sh"

: "${IRQPIN_DRIVER:?IRQPIN_DRIVER must name the irqpin-driver executable}"

NS1=npirq-a-$$
NS2=npirq-b-$$
DRV_PID=
REPLY_LINES=()

if [ "$(id -u)" != 0 ]; then
        echo "1..0 # SKIP needs root"
        exit 0
fi
for t in ip ethtool timeout; do
        if ! command -v "$t" >/dev/null; then
                echo "1..0 # SKIP needs $t"
                exit 0
        fi
done

cleanup_irq() {
        stop_driver
        ip netns del "$NS1" 2>/dev/null
        ip netns del "$NS2" 2>/dev/null
        [ -n "$TMP" ] && rm -rf "$TMP"
}

TMP=$(mktemp -d /tmp/netpolld-irq.XXXXXX) || exit 1
trap cleanup_irq EXIT
trap 'exit 130' INT TERM HUP
STATE=$TMP/state
LOG=$TMP/driver.log
ROOT=$TMP/root
: >"$LOG"

# ---------------------------------------------------------------- the driver

# start_driver [--sysroot DIR]: runs irqpin-driver in $NS1 and waits for "ready".
start_driver() {
        local line
        coproc DRV { exec ip netns exec "$NS1" "$IRQPIN_DRIVER" --state-dir "$STATE" "$@" 2>>"$LOG"; }
        STARTUP=()
        while read -r -t 10 -u "${DRV[0]}" line; do
                STARTUP+=("$line")
                [ "$line" = ready ] && return 0
        done
        fail "irqpin-driver did not start" "$(tail -5 "$LOG")"
        return 1
}

stop_driver() {
        if [ -n "$DRV_PID" ]; then
                kill_and_wait "$DRV_PID"
                DRV_PID=
        fi
}

# drv COMMAND...: sends one command; REPLY holds the answer line ("list": REPLY_LINES the rows).
drv() {
        local line
        REPLY=
        REPLY_LINES=()
        if [ -z "$DRV_PID" ]; then
                fail "no driver running for: $*"
                return 1
        fi
        echo "$*" >&"${DRV[1]}"
        while read -r -t 10 -u "${DRV[0]}" line; do
                if [ "$1" = list ]; then
                        [ "$line" = end ] && return 0
                        REPLY_LINES+=("$line")
                        continue
                fi
                REPLY=$line
                return 0
        done
        fail "no answer to '$*'" "$(tail -5 "$LOG")"
        return 1
}

# row DEV QUEUE: the list row of one queue ("" when absent), from a fresh list.
row() {
        local r
        drv list || return
        for r in "${REPLY_LINES[@]}"; do
                case "$r" in "row $1 $2 "*) echo "$r"; return ;; esac
        done
}

# field N of a row: 1 DEV, 2 QUEUE, 3 NAPI, 4 IRQ, 5 CPUS, 6 RPS, 7 XPS, 8 STATE
field() { awk -v n="$2" '{ print $(n + 1) }' <<<"$1"; }

row_state_is() { [ "$(field "$(row "$1" "$2")" 8)" = "$3" ]; }

nsx() { ip netns exec "$NS1" "$@"; }
sysv() { nsx cat "/sys/class/net/$1" 2>/dev/null; }

make_veth() { veth_pair "$1" "$NS1" "$2" "$NS2"; } # A B: A in $NS1, its peer B in $NS2

write_profile() { # FILE DEVICES [extra [irq] lines...]
        local f=$1 devs=$2
        shift 2
        { printf '[profile]\ndescription = irq test\n\n[irq]\ndevices = %s\n' "$devs"; printf '%s\n' "$@"; } >"$f"
}

# The CPUs an rx queue's RPS gets when it is the only queue: every online CPU (one node here).
ONLINE=$(cat /sys/devices/system/cpu/online)
FIRST_CPU=${ONLINE%%[-,]*}
if [ "$(nproc --all)" -gt 1 ]; then RPS_ALL=$ONLINE; else RPS_ALL=none; fi

# ---------------------------------------------------------------- cases

case_setup() {
        if ! { ip netns add "$NS1" && ip netns add "$NS2"; }; then
                fail "cannot create network namespaces"
                return
        fi
        make_veth nq0 nq1 || fail "cannot create the veth pair nq0/nq1 with GRO on"
        write_profile "$TMP/all.conf" "nq*"
        start_driver
}

case_discovers_veth_with_napi() {
        local r napi
        r=$(row nq0 rx-0)
        [ -n "$r" ] || { fail "nq0 rx-0 not listed" "${REPLY_LINES[@]}"; return; }
        napi=$(field "$r" 3)
        [ "$napi" -gt 0 ] 2>/dev/null || fail "nq0 rx-0 has no NAPI id: $r"
        expect_eq "nq0 rx-0 IRQ" "$(field "$r" 4)" -1
        expect_eq "nq0 rx-0 state" "$(field "$r" 8)" unmanaged
        expect_eq "nq0 tx-0 state" "$(field "$(row nq0 tx-0)" 8)" unmanaged
        expect_not_contains "loopback is not listed" "${REPLY_LINES[*]}" "row lo "
        expect_not_contains "nothing outside the namespace is listed" "${REPLY_LINES[*]}" "row eth0 "
        NQ0_NAPI=$napi
}

case_dry_run_plans_only() {
        drv apply "$TMP/all.conf" dry-run
        expect_eq "apply dry-run" "$REPLY" ok
        local r
        r=$(row nq0 rx-0)
        expect_eq "dry-run state" "$(field "$r" 8)" planned
        expect_eq "planned RPS" "$(field "$r" 6)" "$RPS_ALL"
        expect_eq "planned XPS" "$(field "$(row nq0 tx-0)" 7)" "$FIRST_CPU"
        expect_eq "rps_cpus untouched" "$(sysv nq0/queues/rx-0/rps_cpus)" 0
        [ -e "$STATE/restore.journal" ] && fail "a dry run wrote a journal" "$(cat "$STATE/restore.journal")"
}

case_apply_sets_rps_xps() {
        drv apply "$TMP/all.conf"
        expect_eq "apply" "$REPLY" ok
        local r
        r=$(row nq0 rx-0)
        expect_eq "rx-0 state" "$(field "$r" 8)" applied
        expect_eq "rx-0 RPS" "$(field "$r" 6)" "$RPS_ALL"
        expect_eq "rx-0 CPU (no IRQ: the plan's)" "$(field "$r" 5)" "$FIRST_CPU"
        r=$(row nq0 tx-0)
        expect_eq "tx-0 state" "$(field "$r" 8)" applied
        expect_eq "tx-0 XPS follows rx-0" "$(field "$r" 7)" "$FIRST_CPU"
        if [ "$RPS_ALL" != none ]; then
                [ "$(sysv nq0/queues/rx-0/rps_cpus)" != 0 ] || fail "rps_cpus of nq0 still 0 in sysfs"
        fi
        grep -qP "^rps\trps-cpus@nq0:rx-0\tnq0\t[0-9]+\t/sys/class/net/nq0/queues/rx-0/rps_cpus\t0$" "$STATE/restore.journal" ||
                fail "no journal entry for rx-0/rps_cpus" "$(cat "$STATE/restore.journal" 2>&1)"
        grep -qP "^xps\txps-cpus@nq0:tx-0\tnq0\t[0-9]+\t/sys/class/net/nq0/queues/tx-0/xps_cpus\t" "$STATE/restore.journal" ||
                fail "no journal entry for tx-0/xps_cpus"
}

case_napi_set_and_get() {
        drv napi-get gro-flush-timeout@nq0:rx-0
        expect_eq "napi-get before" "$REPLY" "ok $NQ0_NAPI 0"
        drv napi-set gro-flush-timeout@nq0:rx-0 200us
        expect_eq "napi-set gro-flush-timeout" "$REPLY" "ok $NQ0_NAPI 200000"
        drv napi-get gro-flush-timeout@nq0:napi-"$NQ0_NAPI"
        expect_eq "napi-get by id" "$REPLY" "ok $NQ0_NAPI 200000"
        drv napi-set napi-defer-hard-irqs@nq0:napi-"$NQ0_NAPI" 7
        expect_eq "napi-set napi-defer-hard-irqs" "$REPLY" "ok $NQ0_NAPI 7"
        drv napi-set irq-suspend-timeout@nq0:rx-0 1ms
        expect_eq "napi-set irq-suspend-timeout" "$REPLY" "ok $NQ0_NAPI 1000000"
        drv napi-get irq-suspend-timeout@nq0:rx-0
        expect_eq "napi-get irq-suspend-timeout" "$REPLY" "ok $NQ0_NAPI 1000000"
        # per-NAPI values do not show in the device's sysfs files
        expect_eq "device-wide gro_flush_timeout" "$(sysv nq0/gro_flush_timeout)" 0
        drv napi-set napi-defer-hard-irqs@nq0:tx-0 1
        expect_contains "tx-0 has no NAPI instance" "$REPLY" "error -2 "
        drv napi-get gro-flush-timeout@nq0:napi-999999
        expect_contains "unknown NAPI id" "$REPLY" "error -2 "
        drv napi-set napi-defer-hard-irqs@nq0:rx-0 3000000000
        expect_contains "out of range" "$REPLY" "error -34 "
}

case_new_veth_gets_policy() {
        make_veth nq2 nq3 || { fail "cannot create nq2/nq3"; return; }
        make_veth zz0 zz1 || { fail "cannot create zz0/zz1"; return; }
        wait_for 5 row_state_is nq2 rx-0 applied || fail "nq2 rx-0 never applied" "$(row nq2 rx-0)" "$(tail -5 "$LOG")"
        wait_for 5 row_state_is nq2 tx-0 applied || fail "nq2 tx-0 never applied" "$(row nq2 tx-0)"
        expect_eq "nq2 RPS" "$(field "$(row nq2 rx-0)" 6)" "$RPS_ALL"
        expect_eq "zz0 (not in devices=) state" "$(field "$(row zz0 rx-0)" 8)" unmanaged
        expect_eq "zz0 rps_cpus untouched" "$(sysv zz0/queues/rx-0/rps_cpus)" 0
        grep -q "nq2: steering its queues" "$LOG" || fail "no log line for nq2"
}

case_external_change_left_alone() {
        [ "$RPS_ALL" != none ] || { skip "one CPU: RPS stays off, nothing to change behind its back"; return; }
        nsx sh -c 'echo 1 > /sys/class/net/nq2/queues/rx-0/rps_cpus' || { fail "cannot write nq2 rps_cpus"; return; }
        # Listing is read-only: the change shows only once the owner's check ran.
        expect_eq "nq2 rx-0 state before the check" "$(field "$(row nq2 rx-0)" 8)" applied
        drv check
        expect_eq "check" "$REPLY" "changed 1"
        expect_eq "nq2 rx-0 state" "$(field "$(row nq2 rx-0)" 8)" external
        grep -q "rps-cpus@nq2:rx-0 was changed outside netpolld" "$LOG" || fail "no log line for the external change"
        grep -q "/sys/class/net/nq2/queues/rx-0/rps_cpus" "$STATE/restore.journal" &&
                fail "the journal still restores a value someone else set"
}

case_quit_restores() {
        drv quit
        expect_eq "quit" "$REPLY" "bye 0"
        wait "$DRV_PID" 2>/dev/null
        DRV_PID=
        expect_eq "nq0 rps_cpus restored" "$(sysv nq0/queues/rx-0/rps_cpus)" 0
        expect_eq "nq0 xps_cpus restored" "$(sysv nq0/queues/tx-0/xps_cpus)" 0
        [ "$RPS_ALL" != none ] && expect_eq "nq2 rps_cpus (external) kept" "$(sysv nq2/queues/rx-0/rps_cpus)" 1
        [ -e "$STATE/restore.journal" ] && fail "journal left after a clean quit" "$(cat "$STATE/restore.journal")"
        # per-NAPI originals, read through a fresh driver that changes nothing
        start_driver || return
        drv napi-get gro-flush-timeout@nq0:rx-0
        expect_eq "gro-flush-timeout restored" "$REPLY" "ok $NQ0_NAPI 0"
        drv napi-get napi-defer-hard-irqs@nq0:rx-0
        expect_eq "napi-defer-hard-irqs restored" "$REPLY" "ok $NQ0_NAPI 0"
        drv napi-get irq-suspend-timeout@nq0:rx-0
        expect_eq "irq-suspend-timeout restored" "$REPLY" "ok $NQ0_NAPI 0"
        drv quit
        stop_driver
}

# A fixture sysroot that gives nq0 an igb-like PCI function: IRQ 41 serves
# queue pair 0 ("nq0-TxRx-0"), IRQ 40 the link. 4 CPUs, CPU 0 isolated.
make_irq_fixture() {
        local pci=$ROOT/sys/devices/pci0000:00/0000:03:00.0 cpu c
        rm -rf "$ROOT"
        mkdir -p "$pci/msi_irqs" "$ROOT/sys/bus/pci/drivers/igb" "$ROOT/sys/class/net/nq0/queues/rx-0" \
                "$ROOT/sys/class/net/nq0/queues/tx-0" "$ROOT/proc/irq/40" "$ROOT/proc/irq/41"
        : >"$pci/msi_irqs/40"
        : >"$pci/msi_irqs/41"
        ln -s ../../../bus/pci/drivers/igb "$pci/driver"
        ln -s ../../../devices/pci0000:00/0000:03:00.0 "$ROOT/sys/class/net/nq0/device"
        printf '7\n' >"$ROOT/sys/class/net/nq0/ifindex"
        printf '0\n' >"$ROOT/sys/class/net/nq0/queues/rx-0/rps_cpus"
        printf '0\n' >"$ROOT/sys/class/net/nq0/queues/tx-0/xps_cpus"
        printf '0-3\n' >"$ROOT/proc/irq/40/smp_affinity_list"
        printf '0-3\n' >"$ROOT/proc/irq/41/smp_affinity_list"
        cat >"$ROOT/proc/interrupts" <<'EOF'
           CPU0       CPU1       CPU2       CPU3       
 40:          3          0          0          0  PCI-MSIX-0000:03:00.0   0-edge      nq0
 41:        120          0          0          0  PCI-MSIX-0000:03:00.0   1-edge      nq0-TxRx-0
NMI:          0          0          0          0   Non-maskable interrupts
EOF
        cpu=$ROOT/sys/devices/system/cpu
        mkdir -p "$cpu"
        printf '0-3\n' >"$cpu/online"
        printf '0-3\n' >"$cpu/possible"
        printf '0\n' >"$cpu/isolated"
        for c in 0 1 2 3; do
                mkdir -p "$cpu/cpu$c/topology" "$cpu/cpu$c/node0"
                printf '%s\n' "$c" >"$cpu/cpu$c/topology/core_id"
                printf '0\n' >"$cpu/cpu$c/topology/physical_package_id"
                printf '%s\n' "$c" >"$cpu/cpu$c/topology/thread_siblings_list"
        done
        mkdir -p "$ROOT/proc/1"
        printf 'systemd\n' >"$ROOT/proc/1/comm"
}

case_irq_affinity_on_fixture() {
        make_irq_fixture
        write_profile "$TMP/nq0.conf" nq0
        start_driver --sysroot "$ROOT" || return
        drv apply "$TMP/nq0.conf"
        expect_eq "apply" "$REPLY" ok
        local r
        r=$(row nq0 combined-0)
        [ -n "$r" ] || { fail "no combined-0 row for nq0" "${REPLY_LINES[@]}"; return; }
        [ "$(field "$r" 3)" -gt 0 ] 2>/dev/null || fail "combined-0 lost its NAPI id: $r"
        expect_eq "IRQ from /proc/interrupts names" "$(field "$r" 4)" 41
        expect_eq "IRQ CPU (CPU 0 isolated)" "$(field "$r" 5)" 1
        expect_eq "RPS (1 queue, 3 usable CPUs)" "$(field "$r" 6)" 1-3
        expect_eq "XPS" "$(field "$r" 7)" 1
        expect_eq "state" "$(field "$r" 8)" applied
        expect_file proc/irq/41/smp_affinity_list 1
        expect_file proc/irq/40/smp_affinity_list 0-3
        expect_file sys/class/net/nq0/queues/rx-0/rps_cpus e
        expect_file sys/class/net/nq0/queues/tx-0/xps_cpus 2
        grep -qP "^irq\tirq-affinity@nq0:combined-0\tnq0\t7\t/proc/irq/41/smp_affinity_list\t0-3$" "$STATE/restore.journal" ||
                fail "no journal entry for IRQ 41" "$(cat "$STATE/restore.journal" 2>&1)"
        grep -q "irq-affinity@nq0:combined-0: 0-3 -> 1 (profile)" "$LOG" || fail "no log line for IRQ 41"
        expect_eq "the real nq0 was not written" "$(sysv nq0/queues/rx-0/rps_cpus)" 0
}

case_irqbalance_reported() {
        mkdir -p "$ROOT/proc/4242"
        printf 'irqbalance\n' >"$ROOT/proc/4242/comm"
        drv apply "$TMP/nq0.conf"
        drv irqbalance
        expect_eq "irqbalance detected" "$REPLY" "irqbalance yes"
        expect_eq "state with irqbalance" "$(field "$(row nq0 combined-0)" 8)" irqbalance
        grep -q "irqbalance is running (pid 4242)" "$LOG" || fail "irqbalance not reported in the log"
        # An irqbalance that bans IRQ 41 (its command line, or IRQBALANCE_ARGS) leaves it alone.
        printf '/usr/sbin/irqbalance\0--foreground\0--banirq=41\0' >"$ROOT/proc/4242/cmdline"
        expect_eq "state with irqbalance banning IRQ 41" "$(field "$(row nq0 combined-0)" 8)" applied
        rm "$ROOT/proc/4242/cmdline"
        mkdir -p "$ROOT/etc/default"
        printf 'IRQBALANCE_ARGS="--banirq=41"\n' >"$ROOT/etc/default/irqbalance"
        expect_eq "state with IRQBALANCE_ARGS banning IRQ 41" "$(field "$(row nq0 combined-0)" 8)" applied
        rm -rf "$ROOT/proc/4242" "$ROOT/etc/default"
}

case_restore_after_kill() {
        sigkill "$DRV_PID"
        wait "$DRV_PID" 2>/dev/null
        DRV_PID=
        expect_file proc/irq/41/smp_affinity_list 1
        [ -s "$STATE/restore.journal" ] || { fail "no journal after kill -9"; return; }
        start_driver --sysroot "$ROOT" || return
        expect_eq "start-up after a crash" "${STARTUP[0]}" "replayed all"
        expect_file proc/irq/41/smp_affinity_list 0-3
        expect_file sys/class/net/nq0/queues/rx-0/rps_cpus 0
        expect_file sys/class/net/nq0/queues/tx-0/xps_cpus 0
        [ -e "$STATE/restore.journal" ] && fail "journal left after the replay"
        drv quit
        expect_eq "quit" "$REPLY" "bye 0"
        stop_driver
}

run_case "namespaces, veth pair with GRO, driver started" case_setup
run_case "libnl discovers the veth and its NAPI instance" case_discovers_veth_with_napi
run_case "dry run shows the plan and writes nothing" case_dry_run_plans_only
run_case "apply writes RPS/XPS, reads them back and journals the originals" case_apply_sets_rps_xps
run_case "per-NAPI values via napi-set, read back via napi-get" case_napi_set_and_get
run_case "a veth created while running gets the policy" case_new_veth_gets_policy
run_case "a value changed behind its back is left alone" case_external_change_left_alone
run_case "quit restores RPS/XPS and per-NAPI values" case_quit_restores
run_case "IRQ affinity on a fixture sysroot" case_irq_affinity_on_fixture
run_case "a running irqbalance is detected and reported" case_irqbalance_reported
run_case "kill -9 leaves a journal that the next start replays" case_restore_after_kill
tap_done
