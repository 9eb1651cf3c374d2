# SPDX-License-Identifier: LGPL-2.1-or-later
# bench/lib/topology.sh: the network the benchmark runs in. Two network
# namespaces made here and deleted on exit, joined by one veth pair; nothing
# is connected to the host's own interfaces, so no packet can leave them.
#
# veth only runs its receive side through a NAPI instance (what busy polling
# polls) with GRO on, and TCP only takes that path with TSO off on both ends
# (FACTS.md); topo_up checks both and the client reports SO_INCOMING_NAPI_ID.
#
# The addresses are in the loopback range (127.77.0.0/30, routable on the veth
# with route_localnet=1 inside the namespaces, lo kept down there), so that
# nobody watching can mistake this traffic for traffic to another host.

NS_CLI="npb-cli-$$"
NS_SRV="npb-srv-$$"
VETH_CLI="npbc$$"
VETH_SRV="npbs$$"
ADDR_CLI=127.77.0.1
ADDR_SRV=127.77.0.2
TOPO_UP=0

topo_ns_setup() {
        local ns=$1 dev=$2 addr=$3
        ip netns exec "$ns" sysctl -qw net.ipv4.conf.all.route_localnet=1 \
                net.ipv4.conf.default.route_localnet=1 "net.ipv4.conf.$dev.route_localnet=1" \
                "net.ipv6.conf.$dev.disable_ipv6=1" >/dev/null ||
                die "cannot set route_localnet in namespace $ns"
        # A loopback-range address would get host scope by default, which keeps
        # it off the wire; scope global makes it an ordinary interface address.
        ip -n "$ns" addr add "$addr/30" dev "$dev" scope global || die "cannot address $dev"
        ip netns exec "$ns" ethtool -K "$dev" gro on tso off >/dev/null 2>&1 ||
                die "ethtool -K $dev gro on tso off failed"
        ip -n "$ns" link set "$dev" up || die "cannot bring $dev up"
}

topo_feature() {       # topo_feature NS DEV FEATURE -> on|off
        ip netns exec "$1" ethtool -k "$2" 2>/dev/null |
                awk -v f="$3:" '$1 == f { print $2; exit }'
}

topo_up() {
        journal 'delete_netns %q' "$NS_CLI"
        journal 'delete_netns %q' "$NS_SRV"
        ip netns add "$NS_CLI" || die "cannot create network namespace $NS_CLI"
        TOPO_UP=1
        ip netns add "$NS_SRV" || die "cannot create network namespace $NS_SRV"
        ip link add "$VETH_CLI" netns "$NS_CLI" type veth peer name "$VETH_SRV" netns "$NS_SRV" ||
                die "cannot create the veth pair"
        topo_ns_setup "$NS_CLI" "$VETH_CLI" "$ADDR_CLI"
        topo_ns_setup "$NS_SRV" "$VETH_SRV" "$ADDR_SRV"
        local ns dev f
        for ns in "$NS_CLI:$VETH_CLI" "$NS_SRV:$VETH_SRV"; do
                dev=${ns#*:} ns=${ns%%:*}
                f=$(topo_feature "$ns" "$dev" generic-receive-offload)
                [[ $f == on ]] || die "$dev: GRO is '$f', expected on"
                f=$(topo_feature "$ns" "$dev" tcp-segmentation-offload)
                [[ $f == off ]] || die "$dev: TSO is '$f', expected off"
        done
        # Until the link is up on both ends nothing is delivered.
        local i
        for ((i = 0; i < 100; i++)); do
                ip -n "$NS_CLI" -br link show "$VETH_CLI" | grep -q ' UP ' && break
                sleep 0.05
        done
        log "topology: $NS_CLI/$VETH_CLI $ADDR_CLI <-> $NS_SRV/$VETH_SRV $ADDR_SRV (GRO on, TSO off)"
}

# Deleting a namespace deletes the veth end in it, and so the pair. A failure is
# said, with ip's reason, and tried once more a second later.
topo_down() {
        [[ $TOPO_UP == 1 ]] || return 0
        local ns err
        for ns in "$NS_CLI" "$NS_SRV"; do
                ip netns list | grep -qE "^$ns( |\$)" || continue
                err=$(ip netns del "$ns" 2>&1) && continue
                log "ip netns del $ns failed ($err); trying again"
                sleep 1
                err=$(ip netns del "$ns" 2>&1) || log "ip netns del $ns failed again: $err"
        done
        TOPO_UP=0
}

topo_exists() { ip netns list | grep -qE "^($NS_CLI|$NS_SRV)( |\$)"; }
