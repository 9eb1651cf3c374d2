# SPDX-License-Identifier: LGPL-2.1-or-later
# bench/lib/workload.sh: the scenarios and one measured run. Sourced by bench/run.
#
# A run is (scenario, configuration, repetition). The servers are started
# after the configuration is in force, every run: busy_read is copied into a
# socket when the socket is created (sk_ll_usec), and accepted sockets copy it
# from the listener, so a server left over from the previous configuration
# would keep that configuration's value.
#
# Every process started here (servers, clients, antagonists) runs at the same
# nice level ($NICE, default 0): --nice below 0 shields them all alike from
# unrelated work on a shared host without changing how they compete.

SCENARIOS=(one sixteen two-on-one hog many)
declare -A SCEN_TITLE=(
        [one]="1 session"
        [sixteen]="16 sessions"
        [two-on-one]="2 sessions on one CPU"
        [hog]="1 session + CPU hog on its CPU"
        [many]="1 session + many antagonists")
declare -A SCEN_SESSIONS=([one]=1 [sixteen]=16 [two-on-one]=2 [hog]=1 [many]=1)
# sockperf ping-pong is one connection: it runs where the scenario has one session.
declare -A SCEN_SOCKPERF=([one]=1 [sixteen]=0 [two-on-one]=0 [hog]=1 [many]=1)
# Antagonists: "CPULIST WORKERS" for stress-ng --cpu, or empty. Filled in by
# scenarios_init once the CPUs are known.
declare -A SCEN_ANTAG=()

RR_PORT=12865
SP_PORT=11111
RUNS_CSV_HEADER="rep,position,scenario,config,client,sessions,seconds,transactions,tps,p50_us,p90_us,p99_us,max_us,napi_id,errors,antagonist,antagonist_bogo_ops,antagonist_bogo_ops_s,steal_pct,cpu_busy_pct,loadavg,busy_read,busy_poll,daemon_mode,adaptive_changes,started,sock_busy_read"

scenarios_init() {
        SCEN_ANTAG[hog]="$CPU_CLI 1"
        # Seed 002 ran 200 antagonists on a large host; scaled to this one:
        # ANTAG_PER_CPU CPU-bound workers on each of the two CPUs.
        SCEN_ANTAG[many]="$CPU_CLI,$CPU_SRV $((ANTAG_PER_CPU * 2))"
}

servers_start() {
        local logprefix=$1 i
        ip netns exec "$NS_SRV" nice -n "$NICE" taskset -c "$CPU_SRV" "$RR" server --bind "$ADDR_SRV" \
                --port "$RR_PORT" --max-time 900 >>"$logprefix.rr-server.log" 2>&1 &
        RR_SERVER_PID=$!
        child_add "$RR_SERVER_PID" "rr server"
        ip netns exec "$NS_SRV" nice -n "$NICE" taskset -c "$CPU_SRV" timeout 900 sockperf server --tcp \
                -i "$ADDR_SRV" -p "$SP_PORT" >>"$logprefix.sockperf-server.log" 2>&1 &
        SP_SERVER_PID=$!
        child_add "$SP_SERVER_PID" "sockperf server"
        for ((i = 0; i < 200; i++)); do
                local l
                l=$(ip netns exec "$NS_SRV" ss -Htln 2>/dev/null)
                [[ $l == *":$RR_PORT "* && $l == *":$SP_PORT "* ]] && return 0
                sleep 0.025
        done
        die "the rr and sockperf servers did not start listening (see $logprefix.*-server.log)"
}

servers_stop() {
        stop_pid "$RR_SERVER_PID" 5
        stop_pid "$SP_SERVER_PID" 5
}

# antagonist_start "CPULIST WORKERS" YAML: CPU-bound stress-ng workers that
# run until antagonist_stop (SIGINT makes stress-ng report what it did).
antagonist_start() {
        local cpus workers
        read -r cpus workers <<<"$1"
        nice -n "$NICE" taskset -c "$cpus" stress-ng --cpu "$workers" --cpu-method int64 -t 600 \
                --metrics-brief --yaml "$2" >>"$2.log" 2>&1 &
        ANTAG_PID=$!
        child_add "$ANTAG_PID" stress-ng
        sleep 0.3       # let the workers get going before the client starts
}

# Sets ANTAG_RESULT to "bogo_ops bogo_ops_per_second_real_time". Not to be
# called in a $(...) subshell: the child must be reaped by this shell.
antagonist_stop() {
        kill -INT "$ANTAG_PID" 2>/dev/null
        stop_pid "$ANTAG_PID" 10
        ANTAG_RESULT=$(awk '$1 == "bogo-ops:" { ops = $2 }
             $1 == "bogo-ops-per-second-real-time:" { rate = $2 }
             END { if (ops == "") print "NA NA"; else printf "%s %.1f\n", ops, rate }' "$1" 2>/dev/null)
        [[ -n $ANTAG_RESULT ]] || ANTAG_RESULT="NA NA"
}

# Client output -> "sessions seconds transactions tps p50 p90 p99 max napi errors";
# RR_SOCK_BUSY gets the busy-read time its sockets had (SO_BUSY_POLL).
rr_client() {
        local out
        out=$(ip netns exec "$NS_CLI" nice -n "$NICE" taskset -c "$CPU_CLI" "$RR" client --host "$ADDR_SRV" \
                --port "$RR_PORT" --sessions "$1" --duration "$DURATION" --warmup "$WARMUP" 2>>"$2")
        RR_SOCK_BUSY=$(grep -o 'sock_busy_read_us=[-0-9]*' <<<"$out" | cut -d= -f2)
        awk '{ for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
               printf "%s %s %s %s %s %s %s %s %s %s\n", v["sessions"], v["seconds"],
                      v["transactions"], v["tps"], v["p50_us"], v["p90_us"], v["p99_us"],
                      v["max_us"], v["napi_id"], v["errors"] }' <<<"$out"
}

# sockperf ping-pong, 14-byte messages (its minimum), round trips (--full-rtt).
sockperf_client() {
        local out
        out=$(ip netns exec "$NS_CLI" nice -n "$NICE" taskset -c "$CPU_CLI" sockperf ping-pong --tcp \
                -i "$ADDR_SRV" -p "$SP_PORT" -m 14 -t "$SP_DURATION" --full-rtt 2>&1)
        printf '%s\n' "$out" >>"$2"
        # Lines: "[Valid Duration] RunTime=4.999 sec; SentMessages=...; ReceivedMessages=N",
        # "---> percentile 99.000 =   58.642", "---> <MAX> observation = 4446.440".
        awk -v sessions=1 '
                { gsub(/\033\[[0-9;]*m/, "") }
                /\[Valid Duration\]/ { for (i = 1; i <= NF; i++) {
                        if ($i ~ /^RunTime=/) { sub(/RunTime=/, "", $i); secs = $i }
                        if ($i ~ /^ReceivedMessages=/) { sub(/ReceivedMessages=/, "", $i); n = $i } } }
                /percentile 50.000 =/ { p50 = $NF }
                /percentile 90.000 =/ { p90 = $NF }
                /percentile 99.000 =/ { p99 = $NF }
                /<MAX> observation =/ { mx = $NF }
                END { if (secs == "" || n == "") { print "1 NA NA NA NA NA NA NA NA 1"; exit }
                      printf "1 %s %s %.1f %s %s %s %s NA 0\n", secs, n, n / secs, p50, p90, p99, mx }' <<<"$out"
}

# run_one SCENARIO CONFIG REP POSITION: one measured run; appends its rows
# (one per client) to $OUT/runs.csv.
run_one() {
        local scen=$1 config=$2 rep=$3 pos=$4
        local tag="r${rep}-${scen}-${config}"
        local logprefix="$OUT/logs/$tag" client clients=(rr)
        [[ ${SCEN_SOCKPERF[$scen]} == 1 && $SOCKPERF == 1 ]] && clients+=(sockperf)

        config_apply "$config" "$logprefix"
        local br bp
        br=$(</proc/sys/net/core/busy_read) bp=$(</proc/sys/net/core/busy_poll)
        servers_start "$logprefix"
        for client in "${clients[@]}"; do
                local started before after res antag="-" bogo="NA NA" sw
                started=$(date +%s.%N | cut -c1-14)
                local load
                read -r load _ </proc/loadavg
                before=$(cpu_sample)
                if [[ -n ${SCEN_ANTAG[$scen]:-} ]]; then
                        local acpus aworkers
                        read -r acpus aworkers <<<"${SCEN_ANTAG[$scen]}"
                        antag="${aworkers}@${acpus//,/+}"
                        antagonist_start "${SCEN_ANTAG[$scen]}" "$logprefix.$client.stress-ng.yaml"
                fi
                local sockbusy=NA
                if [[ $client == rr ]]; then
                        rr_client "${SCEN_SESSIONS[$scen]}" "$logprefix.rr-client.log" >"$WORK/res"
                        res=$(<"$WORK/res")
                        sockbusy=${RR_SOCK_BUSY:-NA}
                else
                        res=$(sockperf_client 1 "$logprefix.sockperf-client.log")
                fi
                if [[ $antag != - ]]; then
                        antagonist_stop "$logprefix.$client.stress-ng.yaml"
                        bogo=$ANTAG_RESULT
                fi
                after=$(cpu_sample)
                sw=$(cpu_window "$before" "$after")
                # A client that failed printed nothing usable: keep the row, marked.
                [[ $(wc -w <<<"$res") == 10 ]] || res="NA NA NA NA NA NA NA NA NA 1"
                local changes=0
                [[ -f $logprefix.knobchanges.log ]] &&
                        changes=$(grep -c '(adaptive)' "$logprefix.knobchanges.log" || true)
                echo "$rep,$pos,$scen,$config,$client,$(tr ' ' , <<<"$res"),$antag,$(tr ' ' , <<<"$bogo"),$(tr ' ' , <<<"$sw"),$load,$br,$bp,$CONFIG_MODE,$changes,$started,$sockbusy" >>"$OUT/runs.csv"
                local tps p99
                tps=$(cut -d' ' -f4 <<<"$res") p99=$(cut -d' ' -f7 <<<"$res")
                log "$(printf '%-10s %-9s rep %d %-8s %9s tps  p99 %8s us  steal %5s%%' \
                        "$scen" "$config" "$rep" "$client" "$tps" "$p99" "${sw%% *}")"
        done
        servers_stop
        config_release "$config"
}
