#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# qstats-dump.py [IFINDEX]: the kernel's per-queue statistics (netdev family,
# qstats-get with scope "queue") of every interface of the current network
# namespace that keeps them, or of the one with IFINDEX: one line per
# statistic, "IFINDEX TYPE ID NAME VALUE" (TYPE rx or tx, NAME as netpolld
# names its families: netpolld_queue_NAME_total). Read over a raw generic
# netlink socket, so tests check netpolld's metrics without its own netlink
# code. Exit status 3 when the kernel says the interface has no statistics
# (EOPNOTSUPP: veth on Linux 6.18).
import errno, struct, sys

from netdev_genl import NLM_F_DUMP, attr, open_netdev, request, uint

NETDEV_CMD_QSTATS_GET = 12  # include/uapi/linux/netdev.h
A_IFINDEX, A_TYPE, A_ID, A_SCOPE, SCOPE_QUEUE = 1, 2, 3, 4, 1
# attribute -> name, from the uapi enum (rx-* and tx-* share a name).
NAMES = {8: "packets", 9: "bytes", 10: "packets", 11: "bytes", 12: "alloc_fail", 13: "hw_drops",
         14: "hw_drop_overruns", 15: "csum_complete", 16: "csum_unnecessary", 17: "csum_none",
         18: "csum_bad", 19: "hw_gro_packets", 20: "hw_gro_bytes", 21: "hw_gro_wire_packets",
         22: "hw_gro_wire_bytes", 23: "hw_drop_ratelimits", 24: "hw_drops", 25: "hw_drop_errors",
         26: "csum_none", 27: "needs_csum", 28: "hw_gso_packets", 29: "hw_gso_bytes",
         30: "hw_gso_wire_packets", 31: "hw_gso_wire_bytes", 32: "hw_drop_ratelimits", 33: "stop",
         34: "wake"}


sk, family = open_netdev()
want = attr(A_IFINDEX, struct.pack("I", int(sys.argv[1]))) if len(sys.argv) > 1 else b""
try:
    replies = request(sk, family, NETDEV_CMD_QSTATS_GET, want + attr(A_SCOPE, struct.pack("I", SCOPE_QUEUE)),
                      NLM_F_DUMP)
except OSError as e:
    if e.errno == errno.EOPNOTSUPP:
        sys.exit(3)
    raise
for a in replies:
    kind = {0: "rx", 1: "tx"}.get(uint(a[A_TYPE]), "?")
    for k in sorted(a):
        if k in NAMES:
            print(uint(a[A_IFINDEX]), kind, uint(a[A_ID]), NAMES[k], uint(a[k]))
