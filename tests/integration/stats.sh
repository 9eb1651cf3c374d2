# SPDX-License-Identifier: LGPL-2.1-or-later
# shellcheck shell=bash disable=SC2034  # variables are used by the scripts that source this
# stats.sh: the statistics files of a fixture sysroot and a driver that
# simulates load in them, for the integration tests of adaptive control
# (sourced after lib.sh, whose $ROOT, $TMP, $SNAP and helpers it uses).

# The files netpolld's monitor samples (proc/stat, proc/pressure/cpu,
# proc/net/softnet_stat, proc/softirqs and, with STAT_SCHEDSTAT=yes,
# proc/schedstat), written from the counters below in the kernel's formats
# (tests/data/monitor/ has real captures). The monitor keeps these files open
# and preads them, so they are rewritten in place, never replaced by rename:
# counters only grow, so the new text is never shorter and is written over
# the old without truncating (no moment where the file is empty); a shorter
# text (not made by the helpers here) would be written with truncation.
STAT_NCPU=2
STAT_SCHEDSTAT=no
STAT_PROCS_RUNNING=1    # the sampler itself: nothing waits
STAT_PSI_SOME_US=0      # PSI cpu "some" total, microseconds
declare -a STAT_PROCESSED=() STAT_DROPPED=() STAT_SQUEEZE=() STAT_NET_RX=() STAT_NET_TX=() STAT_RUN_DELAY_NS=()
declare -A STAT_LEN=()  # length of what each file holds
printf -v STAT_DOMAIN_COUNTS ' %d' {1..36}

# stat_init NCPU [schedstat]: counters at their starting values (not zero: a
# running kernel's are not), written below $ROOT.
stat_init() {
        local i
        STAT_NCPU=$1
        STAT_SCHEDSTAT=no
        [ "${2:-}" = schedstat ] && STAT_SCHEDSTAT=yes
        STAT_PROCS_RUNNING=1
        STAT_PSI_SOME_US=25000000
        STAT_PROCESSED=() STAT_DROPPED=() STAT_SQUEEZE=() STAT_NET_RX=() STAT_NET_TX=() STAT_RUN_DELAY_NS=()
        STAT_LEN=()
        for ((i = 0; i < STAT_NCPU; i++)); do
                STAT_PROCESSED[i]=$((100000 + i * 1000))
                STAT_DROPPED[i]=0
                STAT_SQUEEZE[i]=$((3 + i))
                STAT_NET_RX[i]=$((50000 + i * 100))
                STAT_NET_TX[i]=$((10 + i))
                STAT_RUN_DELAY_NS[i]=$((119204316757 + i * 1000000))
        done
        mkdir -p "$ROOT/proc/net" "$ROOT/proc/pressure"
        rm -f "$ROOT/proc/schedstat"
        write_stat_files
}

# stat_put RELPATH TEXT: writes TEXT over the file's content in place.
stat_put() {
        local f=$ROOT/$1
        if [ -e "$f" ] && [ "${#2}" -ge "${STAT_LEN[$1]:-0}" ]; then
                printf '%s' "$2" 1<>"$f"
        else
                printf '%s' "$2" >"$f"
        fi
        STAT_LEN[$1]=${#2}
}

# Builds every text with printf -v: the driver calls this each tick, and a
# command substitution would fork once per CPU and row.
write_stat_files() {
        local i s row v
        s="cpu  $((1000 * STAT_NCPU)) 0 $((300 * STAT_NCPU)) $((9000 * STAT_NCPU)) 0 0 0 0 0 0"$'\n'
        for ((i = 0; i < STAT_NCPU; i++)); do
                s+="cpu$i 1000 0 300 9000 0 0 0 0 0 0"$'\n'
        done
        s+=$'ctxt 3297531\nbtime 1796222891\nprocesses 96605\n'
        s+="procs_running $STAT_PROCS_RUNNING"$'\nprocs_blocked 0\nsoftirq 1402557 0 86414 10 609527 304387 0 3 107839 0 294377\n'
        stat_put proc/stat "$s"

        s="some avg10=0.00 avg60=0.00 avg300=0.00 total=$STAT_PSI_SOME_US"$'\n'
        s+=$'full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n'
        stat_put proc/pressure/cpu "$s"

        # 15 columns (Linux 6.x): processed dropped time_squeeze, five zeros,
        # cpu_collision received_rps flow_limit_count backlog_len, CPU, two queue lengths.
        s=
        for ((i = 0; i < STAT_NCPU; i++)); do
                printf -v v '%08x %08x %08x 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 %08x 00000000 00000000\n' \
                        "${STAT_PROCESSED[i]}" "${STAT_DROPPED[i]}" "${STAT_SQUEEZE[i]}" "$i"
                s+=$v
        done
        stat_put proc/net/softnet_stat "$s"

        s="                    "
        for ((i = 0; i < STAT_NCPU; i++)); do
                printf -v v 'CPU%-8d' "$i"
                s+=$v
        done
        s+=$'\n'
        for row in HI TIMER NET_TX NET_RX BLOCK IRQ_POLL TASKLET SCHED HRTIMER RCU; do
                printf -v v '%12s:' "$row"
                s+=$v
                for ((i = 0; i < STAT_NCPU; i++)); do
                        case $row in
                        NET_TX) printf -v v ' %10u' "${STAT_NET_TX[i]}" ;;
                        NET_RX) printf -v v ' %10u' "${STAT_NET_RX[i]}" ;;
                        *) v='          7' ;;
                        esac
                        s+=$v
                done
                s+=$'\n'
        done
        stat_put proc/softirqs "$s"

        [ "$STAT_SCHEDSTAT" = yes ] || return 0
        # version 15: "cpuN" + 9 numbers, run_delay the 8th; a domain line (mask + 36 numbers) per CPU.
        s=$'version 15\ntimestamp 4295345364\n'
        for ((i = 0; i < STAT_NCPU; i++)); do
                s+="cpu$i 0 0 2443209 1145892 1427618 730108 1623445906431 ${STAT_RUN_DELAY_NS[i]} 1292706"$'\n'
                printf -v v 'domain0 %02x%s\n' $(((1 << STAT_NCPU) - 1)) "$STAT_DOMAIN_COUNTS"
                s+=$v
        done
        stat_put proc/schedstat "$s"
}

# The load the statistics driver applies, one word per kind (stat_load with no words: none):
#   psi       PSI cpu "some" total grows 5x faster than time: some task always waits
#   rundelay  every CPU's schedstat run_delay grows 5x faster than time: 5 tasks wait
#   squeeze   CPU 1: time_squeeze +40 and processed +4000 per tick (thousands per second)
#   drops     CPU 0: dropped +10 per tick
#   netrx     NET_RX +5 and NET_TX +1 per tick on every CPU
STAT_LOAD_FILE=
STAT_DRIVER_PID=
STAT_TICK=0.01          # seconds between bumps: shorter than the daemon's interval

stat_load() {
        printf '%s\n' "$*" >"$STAT_LOAD_FILE.new" && mv -f "$STAT_LOAD_FILE.new" "$STAT_LOAD_FILE"
}

# The fixture's clock (NETPOLLD_TEST_CLOCK, test-hook.h): nanoseconds, moved
# on by each tick after it rewrote the files, and marked "busy" while it does,
# so that a -Dtest-hooks=true netpolld times its samples by it and takes none
# across a rewrite. A tick that comes late (a busy machine) then moves the
# clock and the counters together: the rates netpolld computes are the ones
# the load names, however the driver was scheduled. (A build without test
# hooks times samples by its own clock and sees a stalled driver as a pause
# in the load.)
STAT_CLOCK_FILE=
STAT_CLOCK_NS=0

# Time-based bumps use the time since the previous tick ($EPOCHREALTIME, no
# fork), so "5x faster than time" holds however late a tick comes.
stat_driver_loop() {
        local load now last elapsed_us i
        last=${EPOCHREALTIME/./}
        while :; do
                load=
                read -r load <"$STAT_LOAD_FILE"
                now=${EPOCHREALTIME/./}
                elapsed_us=$((now - last))
                last=$now
                STAT_CLOCK_NS=$((STAT_CLOCK_NS + elapsed_us * 1000))
                if [ -n "$load" ]; then
                        printf 'busy\n' >"$STAT_CLOCK_FILE"
                        for ((i = 0; i < STAT_NCPU; i++)); do
                                case " $load " in *" rundelay "*)
                                        STAT_RUN_DELAY_NS[i]=$((STAT_RUN_DELAY_NS[i] + 5 * elapsed_us * 1000)) ;;
                                esac
                                case " $load " in *" netrx "*)
                                        STAT_NET_RX[i]=$((STAT_NET_RX[i] + 5))
                                        STAT_NET_TX[i]=$((STAT_NET_TX[i] + 1)) ;;
                                esac
                        done
                        case " $load " in *" psi "*) STAT_PSI_SOME_US=$((STAT_PSI_SOME_US + 5 * elapsed_us)) ;; esac
                        case " $load " in *" squeeze "*)
                                STAT_SQUEEZE[1]=$((STAT_SQUEEZE[1] + 40))
                                STAT_PROCESSED[1]=$((STAT_PROCESSED[1] + 4000)) ;;
                        esac
                        case " $load " in *" drops "*) STAT_DROPPED[0]=$((STAT_DROPPED[0] + 10)) ;; esac
                        write_stat_files
                fi
                printf '%s\n' "$STAT_CLOCK_NS" >"$STAT_CLOCK_FILE"
                sleep "$STAT_TICK"
        done
}

# start_stat_driver: the background loop that applies stat_load's load to the
# files below $ROOT (after stat_init); no load at first. A daemon started
# after it runs on its clock (NETPOLLD_TEST_CLOCK, exported here).
start_stat_driver() {
        STAT_LOAD_FILE=$TMP/stat-load
        : >"$STAT_LOAD_FILE"
        STAT_CLOCK_FILE=$TMP/stat-clock
        STAT_CLOCK_NS=1000000000000
        printf '%s\n' "$STAT_CLOCK_NS" >"$STAT_CLOCK_FILE"
        export NETPOLLD_TEST_CLOCK=$STAT_CLOCK_FILE
        background stat_driver_loop
        STAT_DRIVER_PID=$BG_PID
}

stop_stat_driver() {
        [ -n "$STAT_DRIVER_PID" ] && kill_and_wait "$STAT_DRIVER_PID"
        STAT_DRIVER_PID=
        unset NETPOLLD_TEST_CLOCK
}

# The samples netpolld's controller stepped on so far (netpolld_controller_samples_total).
samples_taken() {
        "$NETPOLLCTL" metrics 2>/dev/null | awk '$1 == "netpolld_controller_samples_total" { print $2; f = 1 } END { exit !f }'
}

samples_above() { local n; n=$(samples_taken) && [ "$n" -ge "$1" ]; }

# wait_samples N: returns once the controller stepped on N more samples (a
# check that nothing moves watches that long, however slowly a busy machine
# runs it); fails the case if it did not within a minute.
wait_samples() {
        local from
        from=$(samples_taken) || { fail "no netpolld_controller_samples_total in netpollctl metrics"; return 1; }
        wait_for 60 samples_above $((from + $1)) ||
                { fail "netpolld stepped on fewer than $1 samples in 60 s (from $from to $(samples_taken))"; return 1; }
}

# expect_knobs_restored DESCRIPTION: $ROOT is byte for byte the fixture as made,
# but for the statistics files, which belong to the driver.
expect_knobs_restored() {
        local expected=$TMP/expected f
        rm -rf "$expected" && cp -a "$SNAP" "$expected"
        for f in stat pressure/cpu net/softnet_stat softirqs schedstat; do
                if [ -e "$ROOT/proc/$f" ]; then
                        mkdir -p "$(dirname "$expected/proc/$f")"
                        cp -a "$ROOT/proc/$f" "$expected/proc/$f"
                fi
        done
        expect_tree_bytes "$1" "$expected"
}
