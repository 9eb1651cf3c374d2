#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# init.sh: /init of the initramfs that tests/kernel/run.sh boots on the
# patched kernel. Runs under busybox sh as PID 1, checks the sysctls of
# kernel-patches/, moves traffic over veth and virtio-net while changing
# them, runs netpolld against the real kernel, then powers the VM off.
#
# Results go to the second serial port (/dev/ttyS1), one per line, apart from
# the kernel's console on ttyS0:
#   KTEST ok DESCRIPTION | KTEST fail DESCRIPTION | KTEST skip DESCRIPTION # REASON
#   | KTEST diag TEXT | KTEST done
# run.sh turns them into TAP and also scans the console for kernel warnings.

export PATH=/usr/sbin:/usr/bin:/sbin:/bin

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t tmpfs tmpfs /tmp
mount -t tmpfs tmpfs /run
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null

stty -F /dev/ttyS1 raw -echo 2>/dev/null
exec 3>/dev/ttyS1

CORE=/proc/sys/net/core
KERN=/proc/sys/kernel
# kernel.config builds with HZ=250: one jiffy is 4000 us, the least
# softirq_budget_usecs accepts, and the default (2 ms rounded up to whole
# jiffies, msecs_to_jiffies(2)) is one jiffy too.
JIFFY_US=4000
NS_PID=
SERVER_PID=
CASE_FAILED=0
CASE_SKIP=

say() { echo "KTEST $*" >&3; echo "KTEST $*"; }
diag() { say "diag $*"; }
fail() { CASE_FAILED=1; diag "$@"; }
# skip REASON: part of the current case cannot be checked here; unless it fails, it is reported skipped.
skip() { CASE_SKIP=$*; }

# run_case DESCRIPTION FUNCTION: one result line for what FUNCTION checked.
run_case() {
        CASE_FAILED=0
        CASE_SKIP=
        "$2"
        if [ "$CASE_FAILED" != 0 ]; then
                say "fail $1"
        elif [ -n "$CASE_SKIP" ]; then
                say "skip $1 # $CASE_SKIP"
        else
                say "ok $1"
        fi
}

expect_eq() { # WHAT ACTUAL EXPECTED
        [ "$2" = "$3" ] || fail "$1: got '$2', expected '$3'"
}

# put FILE VALUE: a write that must succeed and read back.
put() {
        r=$(vmtool write "$1" "$2")
        [ "$r" = ok ] || { fail "writing '$2' to $1: $r, expected success"; return 1; }
        expect_eq "$1 after writing '$2'" "$(cat "$1")" "$2"
}

# refuse FILE VALUE: a write that must fail with EINVAL and change nothing.
refuse() {
        before=$(cat "$1")
        r=$(vmtool write "$1" "$2")
        expect_eq "writing '$2' to $1" "$r" EINVAL
        expect_eq "$1 after the refused '$2'" "$(cat "$1")" "$before"
}

# ------------------------------------------------------------ sysctls

case_defaults() {
        expect_eq busy_loop_threshold "$(cat $CORE/busy_loop_threshold)" 0
        expect_eq softirq_budget_usecs "$(cat $KERN/softirq_budget_usecs)" $JIFFY_US
        expect_eq softirq_max_restart "$(cat $KERN/softirq_max_restart)" 10
        expect_eq napi_skb_cache_size "$(cat $CORE/napi_skb_cache_size)" 64
        expect_eq napi_skb_cache_bulk "$(cat $CORE/napi_skb_cache_bulk)" 16
}

# check_range FILE DEFAULT MIN MAX BAD...: the bounds hold, other values fail.
check_range() {
        f=$1 def=$2 min=$3 max=$4
        shift 4
        put "$f" "$min"
        put "$f" "$max"
        for bad in "$@" abc 12abc; do
                refuse "$f" "$bad"
        done
        # the usual way to write a sysctl, with a newline
        echo "$def" >"$f" || fail "echo $def > $f failed"
        expect_eq "$f restored" "$(cat "$f")" "$def"
}

case_busy_loop_threshold_range() {
        check_range $CORE/busy_loop_threshold 0 0 2147483647 -1 2147483648 99999999999
}

# Below one jiffy the budget cannot be honoured: 100 and 2000 (v1's minimum
# and default) are refused like 0.
case_softirq_budget_range() {
        check_range $KERN/softirq_budget_usecs $JIFFY_US $JIFFY_US 100000 \
                $((JIFFY_US - 1)) 2000 100 100001 0 -$JIFFY_US
}

case_softirq_restart_range() {
        check_range $KERN/softirq_max_restart 10 1 1000 0 1001 -1
}

# Each has its own static range and is accepted whatever the other holds:
# the cache clamps the bulk to half of the size where it uses it.
case_napi_cache_range() {
        s=$CORE/napi_skb_cache_size b=$CORE/napi_skb_cache_bulk
        check_range $s 64 2 256 1 0 257 -1
        check_range $b 16 1 128 0 129 -1
        # no cross-check: a bulk above half the size is kept as written
        put $s 2
        put $b 128
        put $s 256
        put $b 1
        put $s 64
        put $b 16
}

# ------------------------------------------------------------ traffic

# An isolated network namespace (held by a sleeping process) with one end of
# a veth pair and, when qemu provides them, the second virtio-net device. No
# address here is reachable from outside the VM: qemu joins the two
# virtio-net devices to each other only (a hub with no other port).
setup_network() {
        unshare -n sleep 100000 &
        NS_PID=$!
        sleep 1
        before=$(ls /sys/class/net)
        ip link add name kt0 type veth peer name kt1 || { fail "cannot create a veth pair"; return 1; }
        # busybox ip ignores the peer name: find the device that appeared
        peer=
        for d in $(ls /sys/class/net); do
                case " $(echo $before) kt0 " in *" $d "*) ;; *) peer=$d ;; esac
        done
        [ -n "$peer" ] || { fail "veth peer not found in: $(ls /sys/class/net)"; return 1; }
        ip link set "$peer" netns "$NS_PID"
        ip addr add 198.18.0.1/24 dev kt0
        ip link set kt0 up
        vmtool feature kt0 gro on && vmtool feature kt0 tso off || fail "cannot set kt0 offloads"
        nsenter -t "$NS_PID" -n sh -c "
                ip link set lo up
                ip addr add 198.18.0.2/24 dev $peer
                ip link set $peer up
                vmtool feature $peer gro on && vmtool feature $peer tso off" ||
                fail "cannot set up $peer in the namespace"

        set -- $(cd /sys/class/net && ls -d eth* 2>/dev/null)
        if [ $# -ge 2 ]; then
                ip link set "$2" netns "$NS_PID"
                ip addr add 198.19.0.1/24 dev "$1"
                ip link set "$1" up
                nsenter -t "$NS_PID" -n sh -c "ip addr add 198.19.0.2/24 dev $2 && ip link set $2 up" ||
                        fail "cannot set up $2 in the namespace"
                VIRTIO=1
        else
                skip "no virtio-net pair, only veth is set up; devices: $(cd /sys/class/net && echo *)"
                VIRTIO=0
        fi
        # the server runs on CPU 0, the clients on CPU 1
        nsenter -t "$NS_PID" -n taskset 1 vmtool server 7000 &
        SERVER_PID=$!
        sleep 1
        vmtool rr 198.18.0.2 7000 10 0 30 >/dev/null || fail "no connection over veth"
        if [ "$VIRTIO" = 1 ]; then
                vmtool rr 198.19.0.2 7000 10 0 30 >/dev/null || fail "no connection over virtio-net"
        fi
}

busy_poll_rx() {
        awk '/^TcpExt:/ { if (!h) { for (i = 1; i <= NF; i++) n[$i] = i; h = 1 } else print $n["BusyPollRxPackets"] }' /proc/net/netstat
}

# field NAME LINE: the value of NAME=value in LINE
field() { echo "$2" | tr ' ' '\n' | sed -n "s/^$1=//p"; }

# Threshold 1 with nothing else to run on the client's CPU must not end the
# busy-poll loop: the caller itself, the idle task and the fair server are
# not tasks waiting for the CPU. With busy_read=100000 and replies after
# 50 ms the client spins through each wait and busy polls its reply, so its
# CPU time is about its wall time and BusyPollRxPackets grows by about one
# per transaction. (Back-to-back transactions would leave the replies to
# the softirq on the server's CPU, which busy polling rarely beats under
# TCG, and never with KASAN: too few packets to tell.)
case_busy_poll_uncrowded() {
        put $CORE/busy_read 100000
        put $CORE/busy_loop_threshold 1
        b0=$(busy_poll_rx)
        out=$(taskset 2 vmtool rr 198.18.0.2 7000 20 50000 120) || fail "rr failed: $out"
        b1=$(busy_poll_rx)
        put $CORE/busy_read 0
        put $CORE/busy_loop_threshold 0
        diag "threshold=1, CPU to itself, 50 ms replies: $out, BusyPollRxPackets +$((b1 - b0))"
        [ $((b1 - b0)) -ge 10 ] ||
                fail "BusyPollRxPackets grew by $((b1 - b0)) ($b0 -> $b1) for 20 replies: hardly any busy polling"
        cpu=$(field cpu_us "$out") wall=$(field wall_us "$out")
        [ -n "$cpu" ] && [ $((cpu * 2)) -ge "$wall" ] ||
                fail "the client used ${cpu}us of CPU in ${wall}us: it slept instead of busy polling"
}

# With a CPU-bound task runnable next to it, threshold 1 ends every busy-poll
# loop after its first NAPI poll, so BusyPollRxPackets only grows when a reply
# happens to be there already: the count is reported, not asserted. What must
# hold is that the traffic completes and nothing hangs.
case_busy_poll_crowded() {
        put $CORE/busy_read 50
        put $CORE/busy_loop_threshold 1
        taskset 2 vmtool spin 60 >/dev/null &
        spin=$!
        b0=$(busy_poll_rx)
        out=$(taskset 2 vmtool rr 198.18.0.2 7000 3000 0 120) || fail "rr failed: $out"
        b1=$(busy_poll_rx)
        kill $spin 2>/dev/null
        wait $spin 2>/dev/null
        diag "threshold=1, CPU-bound task on the client's CPU: $out, BusyPollRxPackets +$((b1 - b0))"
}

# The client waits 50 ms for each reply with busy_read=100ms while a
# CPU-bound task shares its CPU. Threshold 0 spins through the wait whenever
# the scheduler lets it (about half of it); threshold 1 gives the CPU away and
# sleeps, so the client's own CPU time collapses to its syscalls. A ratio, not
# a speed: robust under TCG and tick-based CPU accounting.
client_cpu_us() { # THRESHOLD
        put $CORE/busy_loop_threshold "$1"
        taskset 2 vmtool spin 60 >/dev/null &
        spin=$!
        sleep 1
        out=$(taskset 2 vmtool rr 198.18.0.2 7000 20 50000 120) || fail "rr failed: $out"
        kill $spin 2>/dev/null
        wait $spin 2>/dev/null
        diag "busy_read=100000 threshold=$1, CPU-bound neighbour: $out"
        CPU_US=$(field cpu_us "$out")
}

case_busy_loop_threshold_yields() {
        put $CORE/busy_read 100000
        client_cpu_us 0
        spun=$CPU_US
        client_cpu_us 1
        yielded=$CPU_US
        put $CORE/busy_read 0
        put $CORE/busy_loop_threshold 0
        [ -n "$spun" ] && [ -n "$yielded" ] || { fail "no CPU times measured"; return; }
        [ "$spun" -ge 100000 ] ||
                fail "threshold 0: the client used only ${spun}us of CPU; it should spin through most waits"
        [ $((yielded * 3)) -lt "$spun" ] ||
                fail "threshold 1: the client used ${yielded}us of CPU vs ${spun}us with threshold 0; it should yield"
}

# The same for io_uring: the client waits for each reply in io_uring_enter()
# calls of at most 10 ms, with NAPI busy polling registered on its ring (10
# ms, io_uring's cap), the server answering after 50 ms, a CPU-bound task on
# the client's CPU. Over veth alone the ring busy polls one NAPI id
# (__napi_busy_loop() with io_uring's loop_end); over veth and virtio-net
# two, in io_uring's own loop.
urr_cpu_us() { # THRESHOLD ADDR PORT [ADDR PORT]
        t=$1
        shift
        put $CORE/busy_loop_threshold "$t"
        taskset 2 vmtool spin 60 >/dev/null &
        spin=$!
        sleep 1
        out=$(taskset 2 vmtool urr 20 50000 120 "$@") || fail "urr failed: $out"
        kill $spin 2>/dev/null
        wait $spin 2>/dev/null
        diag "io_uring threshold=$t over $*, CPU-bound neighbour: $out"
        CPU_US=$(field cpu_us "$out")
}

# urr_yields LABEL ADDR PORT [ADDR PORT]: threshold 1 must cut the client's CPU time
urr_yields() {
        label=$1
        shift
        urr_cpu_us 0 "$@"
        spun=$CPU_US
        urr_cpu_us 1 "$@"
        yielded=$CPU_US
        put $CORE/busy_loop_threshold 0
        [ -n "$spun" ] && [ -n "$yielded" ] || { fail "$label: no CPU times measured"; return; }
        [ "$spun" -ge 40000 ] ||
                fail "$label, threshold 0: the client used only ${spun}us of CPU; it should busy poll"
        [ $((yielded * 3)) -lt "$spun" ] ||
                fail "$label, threshold 1: the client used ${yielded}us of CPU vs ${spun}us with threshold 0; it should yield"
}

case_io_uring_yields() {
        urr_yields "one NAPI id (veth)" 198.18.0.2 7000
        if [ "$VIRTIO" = 1 ]; then
                urr_yields "two NAPI ids (veth, virtio-net)" 198.18.0.2 7000 198.19.0.2 7000
        else
                skip "no virtio-net pair: io_uring was checked with one NAPI id only"
        fi
}

# Cycle size and bulk across their whole ranges while bulk TCP traffic flows
# over veth (GRO frees skb heads into the cache) and virtio-net (its RX path
# allocates from the cache, TX completion frees into it), and with the
# softirq limits at their extremes. Half of the writes leave the bulk above
# half of the size, which the cache must clamp where it refills: every
# refill then stays within the array and leaves room for frees.
cycle_napi_cache() {
        s=$CORE/napi_skb_cache_size b=$CORE/napi_skb_cache_bulk
        n=0 i=2
        while [ $i -le 256 ]; do
                echo $i >$s && echo $((i / 2)) >$b && echo 128 >$b && echo $((1 + i % (i / 2))) >$b ||
                        n=$((n + 1))
                i=$((i + 1))
        done
        # drop straight from a full 256 to 2 with the bulk at its maximum:
        # caches hold more than the new size, refills are clamped to 1
        echo 128 >$b && sleep 1 && echo 2 >$s && sleep 1 || n=$((n + 1))
        while [ $i -gt 2 ]; do
                i=$((i - 1))
                echo $i >$s && echo $((i / 2)) >$b && echo 128 >$b || n=$((n + 1))
        done
        echo 64 >$s && echo 16 >$b || n=$((n + 1))
        return $n
}

# The cache clamps its refill to half of its size where it refills, so a
# bulk above half of the size is harmless. A kprobe event on the slab
# allocator's bulk entry records the count and the caller of every bulk
# allocation while TCP traffic crosses virtio-net, whose RX path takes skbs
# from the cache; the refills (callers in skbuff.c, the only one that names
# skb) must each ask for min(bulk, size / 2). A cache refills only once it
# is empty, so each measurement starts from caches run down at size 2.
TRACE=/sys/kernel/tracing

# refill_counts SIZE BULK: the distinct counts the cache's refills asked for
refill_counts() {
        echo 2 >$CORE/napi_skb_cache_size || return 1
        vmtool rr 198.19.0.2 7000 200 0 30 >/dev/null 2>&1
        echo "$1" >$CORE/napi_skb_cache_size && echo "$2" >$CORE/napi_skb_cache_bulk || return 1
        echo >$TRACE/trace
        echo 1 >$TRACE/events/kt/bulk/enable
        vmtool stream 198.19.0.2 7000 2 >/dev/null 2>&1
        vmtool rr 198.19.0.2 7000 200 0 30 >/dev/null 2>&1
        echo 0 >$TRACE/events/kt/bulk/enable
        grep -o 'n=[0-9]* caller=[^ ]*' $TRACE/trace | grep 'caller=[^ ]*skb' |
                sed 's/^n=\([0-9]*\) .*/\1/' | sort -un | tr '\n' ' '
}

case_napi_cache_clamp() {
        if [ "$VIRTIO" != 1 ]; then
                skip "no virtio-net pair: nothing allocates from the cache under veth traffic alone"
                return
        fi
        [ -d $TRACE/events ] || mount -t tracefs tracefs $TRACE 2>/dev/null
        echo 'p:kt/bulk kmem_cache_alloc_bulk_noprof n=%dx:u64 caller=+0($stack):symbol' \
                >>$TRACE/kprobe_events 2>/dev/null || {
                skip "no kprobe events in this kernel"
                return
        }
        # SIZE BULK EXPECTED: the defaults, bulk at and above half of the size
        for t in "64 16 16" "256 16 16" "8 128 4" "2 128 1" "64 128 32" "256 128 128" "64 16 16"; do
                set -- $t
                got=$(refill_counts "$1" "$2")
                diag "size=$1 bulk=$2: refills asked for $got"
                [ -n "$got" ] || fail "size=$1 bulk=$2: no refill of the NAPI skb cache seen"
                [ -z "$got" ] || [ "$got" = "$3 " ] ||
                        fail "size=$1 bulk=$2: refills asked for $got, expected only $3"
        done
        echo '-:kt/bulk' >>$TRACE/kprobe_events
        expect_eq "napi_skb_cache_size after the clamp check" "$(cat $CORE/napi_skb_cache_size)" 64
        expect_eq "napi_skb_cache_bulk after the clamp check" "$(cat $CORE/napi_skb_cache_bulk)" 16
}

case_napi_cache_stress() {
        secs=20
        taskset 2 vmtool stream 198.18.0.2 7000 $secs >/tmp/stream-veth 2>&1 &
        p1=$!
        p2=
        if [ "$VIRTIO" = 1 ]; then
                taskset 2 vmtool stream 198.19.0.2 7000 $secs >/tmp/stream-virtio 2>&1 &
                p2=$!
        fi
        taskset 1 vmtool rr 198.18.0.2 7000 1000000 0 $((secs + 60)) >/tmp/rr-stress 2>&1 &
        p3=$!
        rounds=0 errors=0
        end=$(($(date +%s) + secs - 2))
        while [ "$(date +%s)" -lt "$end" ]; do
                if [ $((rounds % 2)) = 0 ]; then
                        echo $JIFFY_US >$KERN/softirq_budget_usecs && echo 1 >$KERN/softirq_max_restart
                else
                        echo 100000 >$KERN/softirq_budget_usecs && echo 1000 >$KERN/softirq_max_restart
                fi
                cycle_napi_cache || errors=$((errors + $?))
                rounds=$((rounds + 1))
        done
        echo $JIFFY_US >$KERN/softirq_budget_usecs
        echo 10 >$KERN/softirq_max_restart
        wait $p1 || fail "veth stream failed: $(cat /tmp/stream-veth)"
        diag "veth stream: $(cat /tmp/stream-veth)"
        if [ -n "$p2" ]; then
                wait $p2 || fail "virtio-net stream failed: $(cat /tmp/stream-virtio)"
                diag "virtio-net stream: $(cat /tmp/stream-virtio)"
        else
                skip "no virtio-net pair: the cache was cycled under veth traffic only"
        fi
        kill $p3 2>/dev/null
        wait $p3 2>/dev/null
        diag "$rounds rounds over every size and bulk, $errors refused writes"
        [ "$rounds" -gt 0 ] || fail "no round completed"
        [ "$errors" = 0 ] || fail "$errors writes were refused"
        expect_eq "napi_skb_cache_size after the stress" "$(cat $s)" 64
        expect_eq "napi_skb_cache_bulk after the stress" "$(cat $b)" 16
        vmtool rr 198.18.0.2 7000 100 0 30 >/dev/null || fail "veth traffic broken after the stress"
}

# ------------------------------------------------------------ netpolld

BUS=unix:path=/run/ktest-bus
NETPOLLD_PID=

ctl() { NETPOLLD_BUS_ADDRESS=$BUS timeout 30 netpollctl "$@"; }

case_netpolld() {
        dbus-daemon --config-file=/etc/ktest/dbus.conf --nofork --nopidfile 2>/tmp/dbus.log &
        i=0
        while [ ! -S /run/ktest-bus ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
        [ -S /run/ktest-bus ] || { fail "dbus-daemon did not start: $(cat /tmp/dbus.log)"; return; }

        # originals that differ from both the defaults and what netpolld sets
        put $CORE/busy_read 0
        put $CORE/busy_loop_threshold 3
        put $KERN/softirq_budget_usecs 12000
        put $KERN/softirq_max_restart 7
        put $CORE/napi_skb_cache_size 100
        put $CORE/napi_skb_cache_bulk 20

        NETPOLLD_BUS_ADDRESS=$BUS netpolld --config /etc/ktest/netpolld.conf \
                --profile-dir /etc/ktest/profiles --state-dir /run/netpolld 2>/tmp/netpolld.log &
        NETPOLLD_PID=$!
        i=0
        until ctl status >/dev/null 2>&1; do
                i=$((i + 1))
                [ $i -lt 60 ] && kill -0 $NETPOLLD_PID 2>/dev/null || {
                        fail "netpolld did not answer: $(cat /tmp/netpolld.log)"
                        return
                }
                sleep 0.5
        done
        expect_eq "busy_read from the profile" "$(cat $CORE/busy_read)" 50

        list=$(ctl list) || fail "netpollctl list failed: $list"
        for k in busy-loop-threshold softirq-budget softirq-restarts napi-skb-cache-size napi-skb-cache-bulk; do
                kernel=$(echo "$list" | awk -v k=$k '$1 == k { print $NF }')
                expect_eq "netpollctl list: KERNEL column of $k" "$kernel" yes
        done

        out=$(ctl set softirq-budget 8ms 2>&1) || fail "netpollctl set softirq-budget 8ms: $out"
        expect_eq "softirq_budget_usecs after set softirq-budget 8ms" "$(cat $KERN/softirq_budget_usecs)" 8000
        out=$(ctl set busy-loop-threshold 1 softirq-restarts 20 napi-skb-cache-size 128 \
                napi-skb-cache-bulk 32 2>&1) || fail "netpollctl set (patched knobs): $out"
        expect_eq busy_loop_threshold "$(cat $CORE/busy_loop_threshold)" 1
        expect_eq softirq_max_restart "$(cat $KERN/softirq_max_restart)" 20
        expect_eq napi_skb_cache_size "$(cat $CORE/napi_skb_cache_size)" 128
        expect_eq napi_skb_cache_bulk "$(cat $CORE/napi_skb_cache_bulk)" 32
        # below one jiffy: netpolld passes it on, the kernel refuses it
        out=$(ctl set softirq-budget 2ms 2>&1) && fail "netpollctl set softirq-budget 2ms succeeded: $out"
        expect_eq "softirq_budget_usecs after the refused 2ms" "$(cat $KERN/softirq_budget_usecs)" 8000
        diag "netpollctl list:"
        echo "$list" | while read -r l; do diag "  $l"; done

        kill -TERM $NETPOLLD_PID
        wait $NETPOLLD_PID
        expect_eq "netpolld exit status on SIGTERM" "$?" 0
        expect_eq "busy_read restored" "$(cat $CORE/busy_read)" 0
        expect_eq "busy_loop_threshold restored" "$(cat $CORE/busy_loop_threshold)" 3
        expect_eq "softirq_budget_usecs restored" "$(cat $KERN/softirq_budget_usecs)" 12000
        expect_eq "softirq_max_restart restored" "$(cat $KERN/softirq_max_restart)" 7
        expect_eq "napi_skb_cache_size restored" "$(cat $CORE/napi_skb_cache_size)" 100
        expect_eq "napi_skb_cache_bulk restored" "$(cat $CORE/napi_skb_cache_bulk)" 20
        [ "$CASE_FAILED" = 0 ] || diag "netpolld log: $(tail -n 20 /tmp/netpolld.log)"
}

# ------------------------------------------------------------ verdict

# The debug variant is only worth its build if its checkers are on.
case_debug_checkers_active() {
        dmesg | grep -q 'KernelAddressSanitizer initialized' || fail "KASAN is not initialized"
        [ -e /proc/lockdep ] || fail "lockdep is not built in"
}

# A lockdep report also turns lockdep off: it must still be on at the end.
case_debug_checkers_still_on() {
        grep -Eq 'debug_locks: +1' /proc/lockdep_stats ||
                fail "lockdep turned itself off: $(grep debug_locks /proc/lockdep_stats)"
}

case_kernel_log_clean() {
        bad=$(dmesg | grep -E 'BUG:|WARNING:|Oops|KASAN|UBSAN|circular locking|possible recursive locking|inconsistent lock state|suspicious RCU|general protection|Call Trace' | head -n 20)
        [ -z "$bad" ] || fail "kernel log: $bad"
}

say "diag kernel $(uname -r), $(nproc) CPUs, cmdline: $(cat /proc/cmdline)"
DEBUG=0
case " $(cat /proc/cmdline) " in *" ktest.variant=debug "*) DEBUG=1 ;; esac
[ "$DEBUG" = 1 ] && run_case "debug kernel: KASAN and lockdep are active" case_debug_checkers_active
run_case "new sysctls have their upstream defaults" case_defaults
run_case "busy_loop_threshold: 0..INT_MAX, EINVAL outside, value kept" case_busy_loop_threshold_range
run_case "softirq_budget_usecs: one jiffy (4000 at HZ=250)..100000, EINVAL outside, value kept" case_softirq_budget_range
run_case "softirq_max_restart: 1..1000, EINVAL outside, value kept" case_softirq_restart_range
run_case "napi_skb_cache_size 2..256, _bulk 1..128, each accepted whatever the other holds" case_napi_cache_range
run_case "network: veth (GRO on, TSO off) and virtio-net pairs, server reachable" setup_network
if [ "$CASE_FAILED" = 0 ]; then
        run_case "busy poll, threshold 1, CPU to itself: the client spins and busy polls its replies" case_busy_poll_uncrowded
        run_case "busy poll, threshold 1, CPU-bound task on the CPU: traffic completes" case_busy_poll_crowded
        run_case "busy_loop_threshold 1 gives the CPU to a runnable task" case_busy_loop_threshold_yields
        run_case "busy_loop_threshold 1 ends io_uring NAPI busy polling, one and several NAPI ids" case_io_uring_yields
        run_case "NAPI skb cache refills ask for min(bulk, size/2)" case_napi_cache_clamp
        run_case "NAPI skb cache size/bulk cycled under traffic" case_napi_cache_stress
fi
run_case "netpolld on the patched kernel: list, set, restore" case_netpolld
[ "$DEBUG" = 1 ] && run_case "lockdep still active after every case" case_debug_checkers_still_on
run_case "no kernel warnings, oopses or KASAN/lockdep reports" case_kernel_log_clean
say done
sync
poweroff -f
