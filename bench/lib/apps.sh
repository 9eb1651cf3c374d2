# SPDX-License-Identifier: LGPL-2.1-or-later
# bench/lib/apps.sh: real servers with their own clients, each connection
# living through phases with and without a CPU-bound neighbour. Sourced by
# bench/run after topology.sh, configs.sh, workload.sh and cost.sh.
#
# One app run is (scenario, configuration, repetition): the configuration is
# put in force, the server starts in the server namespace (pinned to
# $CPU_SRV), the client in the client namespace (pinned to $CPU_CLI) opens
# its connections once, and while they stay open the run goes through
#
#   alone, hog, alone, percpu, alone, bursty, alone     (--app-neighbours)
#
# each $APP_PHASE seconds: every neighbour phase has an alone phase before
# and after it on the same connections. Per phase the run records the app's
# requests (the server's own counters, or sockperf's per-message log), its
# latency, the neighbour's bogo-ops/s and the CPU time of server and client.

APP_SCENARIOS=(redis memcached nginx-1 nginx-64 sockperf-pp sockperf-1k sockperf-10k sockperf-50k)
declare -A APP_TITLE=(
        [redis]="redis-server + redis-benchmark GET, 1 connection (epoll)"
        [memcached]="memcached + memcslap get, 1 connection (blocking)"
        [nginx-1]="nginx-light + wrk keep-alive, 1 connection (epoll)"
        [nginx-64]="nginx-light + wrk keep-alive, 64 connections (epoll)"
        [sockperf-pp]="sockperf ping-pong TCP, 1 connection"
        [sockperf-1k]="sockperf under-load TCP 1k msg/s"
        [sockperf-10k]="sockperf under-load TCP 10k msg/s"
        [sockperf-50k]="sockperf under-load TCP 50k msg/s")
declare -A APP_CONNS=([redis]=1 [memcached]=1 [nginx-1]=1 [nginx-64]=64 [sockperf-pp]=1
                      [sockperf-1k]=1 [sockperf-10k]=1 [sockperf-50k]=1)
declare -A APP_RATE=([sockperf-1k]=1000 [sockperf-10k]=10000 [sockperf-50k]=50000)

#   static0        busy_read = busy_poll = 0
#   static50       busy_read = busy_poll = 50
#   tuned          Debian's tuned with its network-latency profile
#   latency ...    netpolld --profile NAME, every profile in conf/profiles
#   napi-defer     gro-flush-timeout 200us + napi-defer-hard-irqs 2 on both veth
#                  ends, with busy_read = busy_poll = 50
#   napi-suspend   the same plus irq-suspend-timeout 20ms on both ends, global
#                  busy polling 0, the epoll apps preferring busy polling
#                  (bench/preferbp.c: SO_PREFER_BUSY_POLL, EPIOCSPARAMS 64us)
#   napi-threaded  threaded NAPI (napi-threaded = 1) on both ends
# The per-device values are set by netpolld itself, one instance in each
# namespace on a private bus of its own, so that they are also restored by it.
APP_CONFIGS=(static0 static50 tuned)
for _p in "$SRC"/conf/profiles/*.conf; do
        _p=${_p##*/}
        APP_CONFIGS+=("${_p%.conf}")
done
unset _p
APP_CONFIGS+=(latency-live napi-defer napi-suspend napi-threaded)

# latency-live: the latency profile with [adaptive] live-sockets on, so that a
# yield also reaches the sockets that copied busy-read before it (off in the
# shipped profile: it costs CAP_SYS_PTRACE). Profiles for it live in $WORK.
live_profile_dir() {
        local dir="$WORK/profiles-live"
        if [[ ! -f $dir/latency-live.conf ]]; then
                mkdir -p "$dir"
                cp "$SRC"/conf/profiles/*.conf "$dir/"
                printf '%s\n' "[profile]" "description = bench: latency with live-sockets" "include = latency" \
                        "[adaptive]" "live-sockets = yes" >"$dir/latency-live.conf"
        fi
        echo "$dir"
}
APP_NEIGHBOURS=(hog percpu bursty)
declare -A NEIGHBOUR_TITLE=([hog]="1 CPU-bound task on the client's CPU"
                            [percpu]="1 CPU-bound task on each CPU"
                            [bursty]="1 task on the client's CPU, busy 100 ms / idle 100 ms")

# Seconds per phase a client with a duration (sockperf, wrk) runs beyond the
# phases: each boundary's samples and neighbour start and stop take time, and
# a client that ends before the last boundary leaves that phase unmeasured
# (0.2 s was too little for the smoke run's 1 s phases under the test suite's
# load: "no CPU per request: sockperf-50k/latency-live/alone").
APP_CLIENT_SLACK=0.5
APP_CSV_HEADER="rep,position,scenario,config,phase_index,phase,neighbour,seconds,requests,rate,p50_us,p99_us,p999_us,mean_us,latency_source,neighbour_bogo_ops_s,cpu_s,cpu_us_per_request,steal_pct,busy_read,busy_poll,daemon_mode,client_p50_us,client_p99_us,client_p999_us,preferbp"

REDIS_PORT=16379
MEMC_PORT=11311
NGINX_PORT=18080
APP_SP_PORT=11112
MEMC_MAX_RATE=${MEMC_MAX_RATE:-40000}

is_profile() { [[ -f $SRC/conf/profiles/$1.conf ]]; }

# ---- estimate -------------------------------------------------------------------

# Seconds one app run takes beyond its phases: server and client start-up,
# the configuration (tuned needs several seconds to start), sockperf's own
# 2.4 s start and warm-up.
app_run_overhead() {
        local scen=$1 config=$2 phases=$3
        awk -v sp="$([[ $scen == sockperf-* ]] && echo 1 || echo 0)" \
            -v timed="$([[ $scen == sockperf-* || $scen == nginx-* ]] && echo 1 || echo 0)" \
            -v tuned="$([[ $config == tuned ]] && echo 1 || echo 0)" \
            -v daemon="$({ is_profile "$config" || [[ $config == napi-* ]]; } && echo 1 || echo 0)" \
            -v mc="$([[ $scen == memcached ]] && echo "$MEMC_MAX_RATE" || echo 0)" -v p="$APP_PHASE" \
            -v n="$phases" -v slack="$APP_CLIENT_SLACK" 'BEGIN {
                # 1 s of start and stop; sockperf: 3 s of its own set-up; wrk and sockperf
                # run APP_CLIENT_SLACK s per phase longer than the phases (app_run); tuned: ~8 s to
                # start and stop; netpolld: ~1 s; per phase: the samples and a neighbour;
                # memcslap: ~2.5 us to prepare each of its keys.
                print 1 + 3 * sp + slack * n * timed + 8 * tuned + daemon + 0.15 * n + 2.5e-6 * mc * (n * (p + slack) + 2.5) }'
}

# app_estimate: seconds the whole app part takes with the current selection.
app_estimate() {
        local scen config phases=$((2 * ${#APP_NEIGH_LIST[@]} + 1)) total=0 line
        while read -r scen config; do
                total=$(awk -v t="$total" -v p="$APP_PHASE" -v n="$phases" -v o="$(app_run_overhead "$scen" "$config" "$phases")" \
                        'BEGIN { printf "%.1f", t + n * p + o }')
        done < <(app_plan 1)
        awk -v t="$total" -v r="$APP_REPS" 'BEGIN { printf "%d", t * r }'
}

# ---- private buses and netpolld in the namespaces ------------------------------

declare -A NS_DAEMON_PID=() NS_BUS_PID=()

# ns_netpolld_start NS PROFILEFILE LOG: netpolld inside network namespace NS on
# a private bus of its own (one bus name per bus), with a generated profile.
ns_netpolld_start() {
        local ns=$1 profile=$2 logfile=$3 dir="$WORK/ns-$1" i
        mkdir -p "$dir/profiles" "$dir/state"
        cp "$profile" "$dir/profiles/"
        sed "s|$WORK/bus/socket|$dir/socket|" "$WORK/bus/bus.conf" >"$dir/bus.conf"
        dbus-daemon --config-file="$dir/bus.conf" --nofork --nopidfile 2>>"$logfile" &
        NS_BUS_PID[$ns]=$!
        child_add "${NS_BUS_PID[$ns]}" "dbus-daemon ($ns)"
        for ((i = 0; i < 200; i++)); do
                [[ -S $dir/socket ]] && break
                sleep 0.05
        done
        [[ -S $dir/socket ]] || die "the private dbus-daemon for $ns did not start (see $logfile)"
        ip netns exec "$ns" "$NETPOLLD" --config "$SRC/conf/netpolld.conf" --profile-dir "$dir/profiles" \
                --profile "$(basename "$profile" .conf)" --state-dir "$dir/state" \
                --bus-address "unix:path=$dir/socket" >>"$logfile" 2>&1 &
        NS_DAEMON_PID[$ns]=$!
        child_add "${NS_DAEMON_PID[$ns]}" "netpolld ($ns)"
        netpolld_wait "unix:path=$dir/socket" "${NS_DAEMON_PID[$ns]}" "$logfile" "netpolld in $ns"
}

ns_netpolld_stop_all() {
        local ns
        for ns in "${!NS_DAEMON_PID[@]}"; do
                stop_pid "${NS_DAEMON_PID[$ns]}" 15
                unset "NS_DAEMON_PID[$ns]"
        done
        for ns in "${!NS_BUS_PID[@]}"; do
                stop_pid "${NS_BUS_PID[$ns]}" 5
                unset "NS_BUS_PID[$ns]"
                rm -rf "$WORK/ns-$ns"
        done
}

# The per-device values every configuration starts from, in each namespace.
NAPI_FILES=(gro_flush_timeout napi_defer_hard_irqs threaded)
declare -A NAPI_BASE=()
napi_base_init() {
        local ns dev f
        for ns in "$NS_CLI:$VETH_CLI" "$NS_SRV:$VETH_SRV"; do
                dev=${ns#*:} ns=${ns%%:*}
                for f in "${NAPI_FILES[@]}"; do
                        NAPI_BASE[$ns/$f]=$(ip netns exec "$ns" cat "/sys/class/net/$dev/$f" 2>/dev/null || echo NA)
                done
        done
}

# After a napi-* configuration: every value back where it was (netpolld restores them).
napi_base_check() {
        local ns dev f now
        for ns in "$NS_CLI:$VETH_CLI" "$NS_SRV:$VETH_SRV"; do
                dev=${ns#*:} ns=${ns%%:*}
                for f in "${NAPI_FILES[@]}"; do
                        now=$(ip netns exec "$ns" cat "/sys/class/net/$dev/$f" 2>/dev/null || echo NA)
                        [[ $now == "${NAPI_BASE[$ns/$f]}" ]] && continue
                        log "after $1: $dev $f is $now, expected ${NAPI_BASE[$ns/$f]}; restoring it"
                        RESTORE_FAILURES=$((RESTORE_FAILURES + 1))
                        ip netns exec "$ns" sh -c "echo '${NAPI_BASE[$ns/$f]}' >/sys/class/net/$dev/$f" 2>/dev/null
                done
        done
}

# irq-suspend-timeout has no file to read back: a netpolld that sets nothing
# reads it, in each namespace, after the napi-suspend run's daemons restored
# it. A value left behind would carry over into every later run.
irq_suspend_check() {
        local ns dev now probe="$WORK/probe.conf"
        printf '[profile]\ndescription = reads only\n[adaptive]\nenabled = no\n' >"$probe"
        for ns in "$NS_CLI:$VETH_CLI" "$NS_SRV:$VETH_SRV"; do
                dev=${ns#*:} ns=${ns%%:*}
                ns_netpolld_start "$ns" "$probe" "$OUT/logs/irq-suspend-check.log"
                now=$("$NETPOLLCTL" --bus-address="unix:path=$WORK/ns-$ns/socket" get "irq-suspend-timeout@$dev" 2>&1 |
                        awk -v k="irq-suspend-timeout@$dev" '$1 == k { print $2 }')
                if [[ $now != 0ns && $now != 0 ]]; then
                        log "after napi-suspend: irq-suspend-timeout@$dev reads '$now', expected 0"
                        RESTORE_FAILURES=$((RESTORE_FAILURES + 1))
                fi
                ns_netpolld_stop_all
        done
}

# The profile a napi-* configuration gives the netpolld of one namespace.
napi_profile() {
        local config=$1 dev=$2 file="$WORK/$1.conf"
        {
                echo "[profile]"
                echo "description = bench configuration $config on $dev"
                echo "[knobs]"
                case $config in
                napi-defer)
                        echo "gro-flush-timeout@$dev = 200us"
                        echo "napi-defer-hard-irqs@$dev = 2"
                        ;;
                napi-suspend)
                        echo "gro-flush-timeout@$dev = 200us"
                        echo "napi-defer-hard-irqs@$dev = 2"
                        echo "irq-suspend-timeout@$dev = 20ms"
                        ;;
                napi-threaded)
                        echo "napi-threaded@$dev = enabled"
                        ;;
                esac
                echo "[adaptive]"
                echo "enabled = no"
        } >"$file"
        echo "$file"
}

# napi_verify CONFIG NS DEV: the kernel has what the configuration asked for
# (sysfs for the files; netpolld's own reading, over netlink, for
# irq-suspend-timeout, which has no file, and napi-threaded, which 6.17+
# sets on each NAPI instance, not in the device's threaded file). Dies
# otherwise: the run would measure something else.
napi_verify() {
        local config=$1 ns=$2 dev=$3 want=() kv k v now
        case $config in
        napi-defer) want=(gro_flush_timeout=200000 napi_defer_hard_irqs=2) ;;
        napi-suspend) want=(gro_flush_timeout=200000 napi_defer_hard_irqs=2) ;;
        esac
        for kv in "${want[@]}"; do
                k=${kv%%=*} v=${kv#*=}
                now=$(ip netns exec "$ns" cat "/sys/class/net/$dev/$k" 2>/dev/null)
                [[ $now == "$v" ]] || die "$config: $dev $k is '$now', expected $v (see the netpolld log)"
        done
        if [[ $config == napi-threaded ]]; then
                now=$("$NETPOLLCTL" --bus-address="unix:path=$WORK/ns-$ns/socket" get "napi-threaded@$dev" 2>&1)
                [[ $now == *" enabled "* ]] || die "$config: napi-threaded@$dev reads '$now', expected enabled"
        fi
        if [[ $config == napi-suspend ]]; then
                now=$("$NETPOLLCTL" --bus-address="unix:path=$WORK/ns-$ns/socket" get "irq-suspend-timeout@$dev" 2>&1)
                [[ $now == *20000000ns* || $now == *20ms* ]] ||
                        die "$config: irq-suspend-timeout@$dev reads '$now', expected 20ms"
        fi
}

APP_PRELOAD=""          # LD_PRELOAD for the app processes of this run
app_config_apply() {
        local config=$1 logprefix=$2 ns dev
        APP_PRELOAD=""
        CONFIG_MODE="-"
        base_apply
        case $config in
        static0) ;;
        static50 | napi-defer)
                host_set /proc/sys/net/core/busy_read 50
                host_set /proc/sys/net/core/busy_poll 50
                ;;
        tuned)
                tuned_start "$logprefix.tuned" || die "tuned did not apply network-latency (see $logprefix.tuned.log)"
                ;;
        napi-*) ;;
        *)
                if [[ $config == latency-live ]]; then
                        PROFILE_DIR=$(live_profile_dir)
                else
                        is_profile "$config" || die "unknown app configuration '$config'"
                        PROFILE_DIR=$SRC/conf/profiles
                fi
                NETPOLLD_WRAPPER=("${APP_TRIGGER_WRAPPER[@]}")
                netpolld_start "$config" "$logprefix.netpolld.log"
                NETPOLLD_WRAPPER=()
                unset PROFILE_DIR
                CONFIG_MODE=$(daemon_property Mode)
                monitor_start "$logprefix.knobchanges.log"
                ;;
        esac
        if [[ $config == napi-* ]]; then
                for ns in "$NS_CLI:$VETH_CLI" "$NS_SRV:$VETH_SRV"; do
                        dev=${ns#*:} ns=${ns%%:*}
                        ns_netpolld_start "$ns" "$(napi_profile "$config" "$dev")" "$logprefix.netpolld-$ns.log"
                        napi_verify "$config" "$ns" "$dev"
                done
                CONFIG_MODE=static
                [[ $config == napi-suspend ]] && APP_PRELOAD="$PREFERBP"
        fi
}

app_config_release() {
        local config=$1
        case $config in
        tuned)
                tuned_stop
                base_check tuned
                ;;
        static0 | static50) base_apply ;;
        napi-*)
                ns_netpolld_stop_all
                napi_base_check "netpolld ($config)"
                [[ $config == napi-suspend ]] && irq_suspend_check
                base_apply
                ;;
        *)
                monitor_stop
                netpolld_stop
                base_check "netpolld ($config)"
                ;;
        esac
}

# ---- servers and their counters ---------------------------------------------------

# app_exec NS CPU CMD...: CMD in namespace NS on CPU at the bench's nice
# level, with the configuration's LD_PRELOAD; each step execs the next, so
# `app_exec ... &` leaves the app itself at $! (run it in the background only).
app_exec() {
        local ns=$1 cpu=$2
        shift 2
        exec ip netns exec "$ns" env ${APP_PRELOAD:+LD_PRELOAD="$APP_PRELOAD"} PREFERBP_REPORT="$WORK/preferbp.txt" \
                nice -n "$NICE" taskset -c "$cpu" "$@"
}

wait_listen() {         # wait_listen PORT LOG
        local i
        for ((i = 0; i < 400; i++)); do
                ip netns exec "$NS_SRV" ss -Htln 2>/dev/null | grep -q ":$1 " && return 0
                kill -0 "$APP_SERVER_PID" 2>/dev/null || break
                sleep 0.025
        done
        die "the server did not listen on port $1 (see $2)"
}

app_server_start() {
        local scen=$1 log=$2
        case $scen in
        redis)
                app_exec "$NS_SRV" "$CPU_SRV" redis-server --bind "$ADDR_SRV" --port "$REDIS_PORT" --save "" \
                        --appendonly no --protected-mode no --daemonize no --dir "$WORK" --logfile "" >>"$log" 2>&1 &
                APP_SERVER_PID=$! ;;
        memcached)
                app_exec "$NS_SRV" "$CPU_SRV" memcached -u nobody -l "$ADDR_SRV" -p "$MEMC_PORT" -U 0 -t 1 \
                        -m 64 >>"$log" 2>&1 &
                APP_SERVER_PID=$! ;;
        nginx-*)
                mkdir -p "$WORK/nginx"
                cat >"$WORK/nginx/nginx.conf" <<CONF
daemon off;
master_process off;
worker_processes 1;
pid $WORK/nginx/nginx.pid;
error_log $WORK/nginx/error.log;
events { use epoll; worker_connections 1024; }
http {
        access_log off;
        client_body_temp_path $WORK/nginx;
        keepalive_requests 100000000;
        keepalive_timeout 600s;
        server {
                listen $ADDR_SRV:$NGINX_PORT;
                location = /status { stub_status; }
                location / { return 200 "netpolld bench\n"; }
        }
}
CONF
                app_exec "$NS_SRV" "$CPU_SRV" nginx -c "$WORK/nginx/nginx.conf" -p "$WORK/nginx" \
                        -e "$WORK/nginx/error.log" >>"$log" 2>&1 &
                APP_SERVER_PID=$! ;;
        sockperf-*)
                app_exec "$NS_SRV" "$CPU_SRV" sockperf server --tcp -i "$ADDR_SRV" -p "$APP_SP_PORT" >>"$log" 2>&1 &
                APP_SERVER_PID=$! ;;
        esac
        child_add "$APP_SERVER_PID" "$scen server"
        case $scen in
        redis) wait_listen "$REDIS_PORT" "$log" ;;
        memcached) wait_listen "$MEMC_PORT" "$log" ;;
        nginx-*) wait_listen "$NGINX_PORT" "$log" ;;
        sockperf-*) wait_listen "$APP_SP_PORT" "$log" ;;
        esac
}

# tcp_query PORT REQUEST: sends REQUEST from the client namespace on a new
# connection and prints the reply (bash's /dev/tcp; no extra tool).
tcp_query() {
        ip netns exec "$NS_CLI" timeout 5 bash -c '
                exec 3<>"/dev/tcp/$0/$1" || exit 1
                printf "%b" "$2" >&3
                timeout 2 cat <&3' "$ADDR_SRV" "$1" "$2" 2>/dev/null
}

# Requests the server has answered so far; asks twice before giving up, and says so:
# a phase without a count has no rate (the smoke check names such phases).
app_counter() {
        local c
        c=$(app_counter_query "$1")
        [[ $c =~ ^[0-9]+$ ]] || c=$(app_counter_query "$1")
        [[ $c =~ ^[0-9]+$ || $c == NA ]] || log "$1: the server's request counter did not answer ('$c')"
        echo "$c"
}

app_counter_query() {
        case $1 in
        redis)
                ip netns exec "$NS_CLI" redis-cli -h "$ADDR_SRV" -p "$REDIS_PORT" info stats 2>/dev/null |
                        tr -d '\r' | awk -F: '$1 == "total_commands_processed" { print $2 }' ;;
        memcached)
                tcp_query "$MEMC_PORT" 'stats\r\nquit\r\n' | tr -d '\r' |
                        awk '$2 == "cmd_get" || $2 == "cmd_set" { n += $3 } END { if (NR) print n + 0 }' ;;
        nginx-*)
                # "server accepts handled requests" then the three numbers.
                tcp_query "$NGINX_PORT" 'GET /status HTTP/1.0\r\nHost: bench\r\n\r\n' | tr -d '\r' |
                        awk 'f { print $3; exit } /^ *server accepts handled requests/ { f = 1 }' ;;
        *) echo NA ;;
        esac
}

# ---- clients ----------------------------------------------------------------

# Starts the client with connections that stay open for SECONDS or more.
app_client_start() {
        local scen=$1 seconds=$2 log=$3
        case $scen in
        redis)
                app_exec "$NS_CLI" "$CPU_CLI" redis-benchmark -h "$ADDR_SRV" -p "$REDIS_PORT" -c 1 -n 2000000000 \
                        -t get -k 1 -q >>"$log" 2>&1 & ;;
        memcached)
                # memcslap prepares every request before it starts (~2.6 KB each) and
                # has no duration: enough for MEMC_MAX_RATE/s over the run, no more.
                app_exec "$NS_CLI" "$CPU_CLI" memcslap --servers="$ADDR_SRV:$MEMC_PORT" --concurrency=1 \
                        --execute-number="$((seconds * MEMC_MAX_RATE))" --test=get --initial-load=100 \
                        --tcp-nodelay >>"$log" 2>&1 & ;;
        nginx-*)
                app_exec "$NS_CLI" "$CPU_CLI" wrk -t 1 -c "${APP_CONNS[$scen]}" -d "${seconds}s" --latency \
                        "http://$ADDR_SRV:$NGINX_PORT/" >>"$log" 2>&1 & ;;
        sockperf-pp)
                app_exec "$NS_CLI" "$CPU_CLI" sockperf ping-pong --tcp -i "$ADDR_SRV" -p "$APP_SP_PORT" -m 14 \
                        -t "$seconds" --full-log "$WORK/fulllog.csv" >>"$log" 2>&1 & ;;
        sockperf-*)
                app_exec "$NS_CLI" "$CPU_CLI" sockperf under-load --tcp -i "$ADDR_SRV" -p "$APP_SP_PORT" -m 14 \
                        -t "$seconds" --mps "${APP_RATE[$scen]}" --reply-every 1 \
                        --full-log "$WORK/fulllog.csv" >>"$log" 2>&1 & ;;
        esac
        APP_CLIENT_PID=$!
        child_add "$APP_CLIENT_PID" "$scen client"
}

# Waits (up to 30 s) until the server counts the client's requests: memcslap
# prepares all of its requests first (~1 s for 400,000), and a phase must not
# start before the client does. Our own counter query counts as a request for
# redis (INFO) and nginx (/status), so the count must grow by more than one.
app_client_wait_first() {
        local scen=$1 log=$2 prev c w
        prev=$(app_counter_query "$scen")
        [[ $prev == NA ]] && return 0 # no counter: sockperf waits for its own start line
        for ((w = 0; w < 300; w++)); do
                sleep 0.1
                kill -0 "$APP_CLIENT_PID" 2>/dev/null || return 0 # the caller says it exited
                c=$(app_counter_query "$scen")
                [[ $c =~ ^[0-9]+$ && $prev =~ ^[0-9]+$ ]] && ((c > prev + 1)) && return 0
                [[ $c =~ ^[0-9]+$ ]] && prev=$c
        done
        die "the $scen client sent no request within 30 s (see $log)"
}

# sockperf's log: "N, tx_seconds, rx_seconds, half_rtt_us", times from the
# client's start. Prints "requests p50 p99 p99.9 mean" of the round trips
# sent within [FROM, TO) seconds of that start.
fulllog_window() {
        awk -F', *' -v a="$2" -v b="$3" 'NF == 4 && $1 ~ /^[0-9]+$/ && $2 >= a && $2 < b {
                printf "%.3f\n", ($3 - $2) * 1e6 }' "$1" | sort -n | awk '
                { v[NR] = $1; s += $1 }
                function pct(p,  i) { i = int(p * NR + 0.999999); if (i < 1) i = 1; return v[i] }
                END { if (NR == 0) { print "0 NA NA NA NA"; exit }
                      printf "%d %s %s %s %.3f\n", NR, pct(0.5), pct(0.99), pct(0.999), s / NR }'
}

# wrk --latency: "Latency Distribution" lines "50%  1.23ms"; prints p50 p99 in µs
# (wrk gives no 99.9th percentile).
wrk_percentiles() {
        awk 'function us(x) { if (x ~ /us$/) return x + 0; if (x ~ /ms$/) return x * 1000; if (x ~ /s$/) return x * 1e6; return "NA" }
             $1 == "50%" { p50 = us($2) } $1 == "99%" { p99 = us($2) }
             END { printf "%s %s NA\n", (p50 == "" ? "NA" : p50), (p99 == "" ? "NA" : p99) }' "$1"
}

# ---- neighbours ---------------------------------------------------------------------

NB_PIDS=()
neighbour_start() {
        local kind=$1 yaml=$2 cpu
        NB_PIDS=() NB_YAMLS=()
        case $kind in
        hog)
                nice -n "$NICE" taskset -c "$CPU_CLI" stress-ng --cpu 1 --cpu-method int64 -t 600 \
                        --metrics-brief --yaml "$yaml.0" >>"$yaml.log" 2>&1 &
                NB_PIDS+=($!) NB_YAMLS+=("$yaml.0") ;;
        percpu)
                for cpu in "$CPU_CLI" "$CPU_SRV"; do
                        nice -n "$NICE" taskset -c "$cpu" stress-ng --cpu 1 --cpu-method int64 -t 600 \
                                --metrics-brief --yaml "$yaml.$cpu" >>"$yaml.log" 2>&1 &
                        NB_PIDS+=($!) NB_YAMLS+=("$yaml.$cpu")
                done ;;
        bursty)
                nice -n "$NICE" taskset -c "$CPU_CLI" stress-ng --cpu 1 --cpu-method int64 --cpu-load 50 \
                        --cpu-load-slice 100 -t 600 --metrics-brief --yaml "$yaml.0" >>"$yaml.log" 2>&1 &
                NB_PIDS+=($!) NB_YAMLS+=("$yaml.0") ;;
        esac
        local pid
        for pid in "${NB_PIDS[@]}"; do child_add "$pid" "neighbour $kind"; done
}

# Stops the neighbours, starting nothing but stop_pid's sleep (a phase boundary: quiet moments, common.sh).
neighbour_stop() {
        local pid
        for pid in "${NB_PIDS[@]}"; do kill -INT "$pid" 2>/dev/null; done
        for pid in "${NB_PIDS[@]}"; do stop_pid "$pid" 10; done
}
# neighbour_result YAML...: sets NB_RESULT to the summed bogo-ops per second (real
# time) those stopped neighbours reported, or NA.
neighbour_result() {
        local y sum=0 v
        NB_RESULT=NA
        (($#)) || return 0
        for y in "$@"; do
                v=$(awk '$1 == "bogo-ops-per-second-real-time:" { print $2 }' "$y" 2>/dev/null)
                [[ -n $v ]] || { NB_RESULT=NA; return; }
                sum=$(awk -v a="$sum" -v b="$v" 'BEGIN { printf "%.1f", a + b }')
        done
        NB_RESULT=$sum
}

# ---- one run -----------------------------------------------------------------------

# app_cpu_raw VAR: the CPU server and client have used so far, as proc_cpu_raw's
# "NS TICKS" summed ("ended" once one is gone), starting no process.
app_cpu_raw() {
        local _acr_srv _acr_cli
        if proc_cpu_raw "$APP_SERVER_PID" _acr_srv && proc_cpu_raw "$APP_CLIENT_PID" _acr_cli; then
                printf -v "$1" '%s %s' "$((${_acr_srv% *} + ${_acr_cli% *}))" "$((${_acr_srv#* } + ${_acr_cli#* }))"
        else
                printf -v "$1" ended
        fi
}
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }

# app_run SCENARIO CONFIG REP POSITION: one connection (or 64) through every
# phase; appends one row per phase to $OUT/apps.csv.
app_run() {
        local scen=$1 config=$2 rep=$3 pos=$4
        local tag="app-r${rep}-${scen}-${config}" logprefix phases=() kind
        logprefix="$OUT/logs/$tag"
        phases=(alone)
        for kind in "${APP_NEIGH_LIST[@]}"; do phases+=("$kind" alone); done
        local nph=${#phases[@]}
        # sockperf logs from the end of its 0.4 s warm-up, which follows its "Starting
        # test..." line, to the end of -t: the phases begin 0.6 s after that line.
        local lead=0.5 client_secs
        [[ $scen == sockperf-* ]] && lead=0.6
        # Each phase also spends time on its samples and its neighbour's start and
        # stop: the clients with a duration get APP_CLIENT_SLACK s more per phase.
        client_secs=$(awk -v n="$nph" -v p="$APP_PHASE" -v l="$lead" -v slack="$APP_CLIENT_SLACK" \
                'BEGIN { printf "%d", n * (p + slack) + l + 1.999 }')

        app_config_apply "$config" "$logprefix"
        local br bp
        br=$(</proc/sys/net/core/busy_read) bp=$(</proc/sys/net/core/busy_poll)
        rm -f "$WORK/fulllog.csv" "$WORK/preferbp.txt"
        # Servers that drop privileges (memcached -u nobody) append to it too: make it theirs to
        # write, and $WORK (mktemp's 0700) passable, not listable, for them.
        if [[ -n $APP_PRELOAD ]]; then
                chmod o+x "$WORK"
                install -m 0666 /dev/null "$WORK/preferbp.txt"
        fi
        app_server_start "$scen" "$logprefix.server.log"
        local launch
        launch=$EPOCHREALTIME
        app_client_start "$scen" "$client_secs" "$logprefix.client.log"
        if [[ $scen == sockperf-* ]]; then
                local w
                for ((w = 0; w < 600; w++)); do
                        grep -q 'Starting test' "$logprefix.client.log" 2>/dev/null && break
                        kill -0 "$APP_CLIENT_PID" 2>/dev/null || break
                        sleep 0.05
                done
        fi
        app_client_wait_first "$scen" "$logprefix.client.log"
        sleep "$lead"
        kill -0 "$APP_CLIENT_PID" 2>/dev/null || die "the $scen client exited at once (see $logprefix.client.log)"

        # Each boundary is sampled once: the end of a phase is the start of the next.
        # The boundaries start no process but the request counter's query (quiet
        # moments, common.sh): what needs one is computed after the last phase.
        local i rows=() nb_from=() nb_to=() ph_end=() t=() c=() cpu=() st=() nb_yamls=()
        c[0]=$(app_counter "$scen")
        app_cpu_raw 'cpu[0]'
        cpu_sample_into 'st[0]'
        t[0]=$EPOCHREALTIME
        for ((i = 0; i < nph; i++)); do
                kind=${phases[i]}
                if [[ $kind != alone ]]; then
                        clock_hms 'nb_from[i]'
                        neighbour_start "$kind" "$logprefix.p$i.stress-ng.yaml"
                        nb_yamls[i]=${NB_YAMLS[*]}
                fi
                # (sleep(1), not nap: a Ctrl-C must end the phase at once; it starts
                # right after the neighbour, in no one's way)
                sleep "$APP_PHASE"
                if [[ $kind != alone ]]; then
                        # when the neighbour is told to stop: its CPU is free from then to its exit
                        clock_hms 'nb_to[i]'
                        neighbour_stop
                fi
                clock_hms 'ph_end[i]'
                t[i + 1]=$EPOCHREALTIME
                cpu_sample_into 'st[i + 1]'
                app_cpu_raw 'cpu[i + 1]'
                c[i + 1]=$(app_counter "$scen")
                # A client that ended early (memcslap ran out of requests) leaves the
                # phase without a measurement rather than with a wrong one.
                if ! kill -0 "$APP_CLIENT_PID" 2>/dev/null; then
                        log "$scen client ended before phase $i ended (see $logprefix.client.log)"
                        c[i + 1]=ended cpu[i + 1]=ended
                fi
        done
        local dcpu
        for ((i = 0; i < nph; i++)); do
                dcpu=NA
                [[ ${cpu[i]} != ended && ${cpu[i + 1]} != ended ]] &&
                        dcpu=$(elapsed "$(raw_cpu_seconds "${cpu[i]}")" "$(raw_cpu_seconds "${cpu[i + 1]}")")
                # shellcheck disable=SC2086 # the phase's YAML files, one word each
                neighbour_result ${nb_yamls[i]:-}
                rows+=("$i ${phases[i]} $(elapsed "$launch" "${t[i]}") $(elapsed "$launch" "${t[i + 1]}") ${c[i]} ${c[i + 1]} $dcpu $NB_RESULT $(cpu_window "${st[i]}" "${st[i + 1]}" | cut -d' ' -f1)")
        done

        # Clients with a duration end by themselves; the others are stopped.
        case $scen in
        nginx-* | sockperf-*)
                local w
                for ((w = 0; w < 20 * client_secs; w++)); do
                        kill -0 "$APP_CLIENT_PID" 2>/dev/null || break
                        sleep 0.05
                done
                ;;
        esac
        stop_pid "$APP_CLIENT_PID" 5
        stop_pid "$APP_SERVER_PID" 5

        local cp="NA NA NA"
        [[ $scen == nginx-* ]] && cp=$(wrk_percentiles "$logprefix.client.log")
        local pbp="-"
        [[ -n $APP_PRELOAD ]] && pbp=$(awk '{ e += $2; ef += $3; s += $4; sf += $5 }
                END { printf "epoll %d/%d sockets %d/%d", e, e + ef, s, s + sf }' "$WORK/preferbp.txt" 2>/dev/null)
        [[ -n $pbp ]] || pbp="none"
        [[ -f $WORK/fulllog.csv ]] && cp "$WORK/fulllog.csv" "$logprefix.fulllog.csv"

        local row idx ph from to secs req rate src p50 p99 p999 mean cpu nb steal
        for row in "${rows[@]}"; do
                read -r idx ph from to c0 c1 cpu nb steal <<<"$row"
                secs=$(elapsed "$from" "$to")
                if [[ $scen == sockperf-* ]]; then
                        read -r req p50 p99 p999 mean <<<"$(fulllog_window "$logprefix.fulllog.csv" "$from" "$to")"
                        src=sockperf-log
                else
                        req=NA p50=NA p99=NA p999=NA mean=NA src=little
                        if [[ $c0 =~ ^[0-9]+$ && $c1 =~ ^[0-9]+$ ]]; then
                                req=$((c1 - c0))
                                # Closed loop, one request per connection in flight: mean
                                # latency = connections / rate (Little's law).
                                mean=$(awk -v n="$req" -v s="$secs" -v c="${APP_CONNS[$scen]}" \
                                        'BEGIN { if (n > 0) printf "%.3f", c * s * 1e6 / n; else print "NA" }')
                        fi
                fi
                rate=$(awk -v n="$req" -v s="$secs" 'BEGIN { if (n ~ /^[0-9]+$/ && s > 0) printf "%.1f", n / s; else print "NA" }')
                local cpr
                cpr=$(awk -v c="$cpu" -v n="$req" 'BEGIN { if (c != "NA" && n ~ /^[0-9]+$/ && n > 0) printf "%.3f", c * 1e6 / n; else print "NA" }')
                echo "$rep,$pos,$scen,$config,$idx,$ph,$([[ $ph == alone ]] && echo - || echo "$ph"),$secs,$req,$rate,$p50,$p99,$p999,$mean,$src,$nb,$cpu,$cpr,$steal,$br,$bp,$CONFIG_MODE,$(tr ' ' , <<<"$cp"),$pbp" \
                        >>"$OUT/apps.csv"
                log "$(printf '%-12s %-13s rep %d %-7s %10s req/s  p99 %8s us  neighbour %10s  cpu/req %7s us' \
                        "$scen" "$config" "$rep" "$ph" "$rate" "$p99" "$nb" "$cpr")"
        done
        app_config_release "$config"
        if [[ -f $logprefix.knobchanges.log ]]; then
                for i in "${!nb_from[@]}"; do
                        # until the end of the alone phase after the neighbour (or of this one, if last)
                        local until=${ph_end[i + 1]:-${ph_end[i]}}
                        echo "$rep,$scen,$config,$i,${phases[i]},${nb_from[i]},$(phase_moves "$logprefix.knobchanges.log" \
                                "${nb_from[i]}" "${nb_to[i]}" "$until")" >>"$OUT/apps-yields.csv"
                done
        fi
}

# app_trigger_setup: how the netpolld configurations get their CPU pressure
# trigger, which wakes the controller when a neighbour's task first waits:
# their own, where this root may open one (CAP_SYS_RESOURCE effective); else
# a file passed to them as systemd's OpenFile= passes one, opened in a user
# namespace (tools/pass-cpu-pressure --opener userns, as the cost part does);
# else none, and the yields come from the interval samples alone.
APP_TRIGGER_WRAPPER=()
app_trigger_setup() {
        local eff err
        eff=$(awk '$1 == "CapEff:" { print $2 }' /proc/self/status)
        if (((16#$eff >> 24) & 1)); then
                APP_TRIGGER=own
        elif err=$("$SRC/tools/pass-cpu-pressure" --opener userns -- true 2>&1); then
                APP_TRIGGER="passed (tools/pass-cpu-pressure --opener userns)"
                APP_TRIGGER_WRAPPER=("$SRC/tools/pass-cpu-pressure" --opener userns --)
        else
                APP_TRIGGER="none (no CAP_SYS_RESOURCE and no user namespace: ${err:-?})"
        fi
        log "apps: CPU pressure trigger of the netpolld configurations: $APP_TRIGGER"
        meta app_trigger "$APP_TRIGGER"
}

# phase_moves KNOBLOG FROM TO UNTIL: what netpolld did with busy-poll around one
# neighbour phase (times HH:MM:SS.mmm, as `netpollctl monitor` prints them; the
# neighbour ran from FROM and was told to stop at TO, UNTIL ends the alone
# phase after it), as "YIELD_AT,YIELD_MS,STOPPED,RETURN_AT,RETURN_MS,MOVES":
# the first adaptive lowering between FROM and TO and how long after FROM;
# the first adaptive raise after TO (and after that lowering) until UNTIL and
# how long after TO; and every adaptive change of busy-poll from FROM to UNTIL
# (one down and one up is a clean phase; more is flapping). "none,NA" for a
# yield or return that did not happen.
phase_moves() {
        awk -v from="$2" -v to="$3" -v until="$4" '
                function secs(t, a) { split(t, a, ":"); return a[1] * 3600 + a[2] * 60 + a[3] }
                function at(t) { t = secs(t); if (t < f - 43200) t += 86400; return t }
                BEGIN { f = secs(from); e = at(to); u = at(until); yt = "none"; rt = "none" }
                $2 == "busy-poll" && $6 == "(adaptive)" && $4 == "->" {
                        t = at($1)
                        if (t < f || t > u) next
                        moves++
                        old = $3; new = $5; sub(/us$/, "", old); sub(/us$/, "", new)
                        if (yt == "none" && t <= e && new + 0 < old + 0) { yt = $1; yms = sprintf("%d", (t - f) * 1000 + 0.5) }
                        else if (rt == "none" && t >= e && new + 0 > old + 0) { rt = $1; rms = sprintf("%d", (t - e) * 1000 + 0.5) }
                }
                END {
                        printf "%s,%s,%s,%s,%s,%d\n", yt, yt == "none" ? "NA" : yms, to, rt, rt == "none" ? "NA" : rms, moves
                }' "$1"
}

# The runs of one repetition, as "SCENARIO CONFIG" lines: every selected
# scenario in every selected configuration, the configurations interleaved,
# their order reversed every other repetition. --smoke instead pairs the
# scenarios with the configurations in turn, so that each of both runs once.
app_plan() {
        local rep=$1 scen config i n order=()
        if [[ $SMOKE == 1 ]]; then
                n=$((${#APP_SCEN_LIST[@]} > ${#APP_CONF_LIST[@]} ? ${#APP_SCEN_LIST[@]} : ${#APP_CONF_LIST[@]}))
                for ((i = 0; i < n; i++)); do
                        echo "${APP_SCEN_LIST[i % ${#APP_SCEN_LIST[@]}]} ${APP_CONF_LIST[i % ${#APP_CONF_LIST[@]}]}"
                done
                return
        fi
        order=("${APP_CONF_LIST[@]}")
        if ((rep % 2 == 0)); then
                order=()
                for ((i = ${#APP_CONF_LIST[@]} - 1; i >= 0; i--)); do order+=("${APP_CONF_LIST[i]}"); done
        fi
        for scen in "${APP_SCEN_LIST[@]}"; do
                for config in "${order[@]}"; do
                        echo "$scen $config"
                done
        done
}

app_plan_runs() { app_plan 1 | wc -l; }

app_bench() {
        local rep scen config pos=0 last="" plan line
        echo "$APP_CSV_HEADER" >"$OUT/apps.csv"
        echo "rep,scenario,config,phase_index,phase,neighbour_started,yield_at,delay_ms,neighbour_stopped,return_at,return_ms,moves" \
                >"$OUT/apps-yields.csv"
        napi_base_init
        app_trigger_setup
        for ((rep = 1; rep <= APP_REPS; rep++)); do
                mapfile -t plan < <(app_plan "$rep")
                for line in "${plan[@]}"; do
                        read -r scen config <<<"$line"
                        [[ $scen == "$last" ]] || pos=0
                        last=$scen pos=$((pos + 1))
                        app_run "$scen" "$config" "$rep" "$pos"
                done
        done
}
