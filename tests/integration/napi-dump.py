#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# napi-dump.py [IFINDEX]: one line per NAPI instance of the current network
# namespace (of the device with IFINDEX only): "ID IFINDEX DEFER_HARD_IRQS
# GRO_FLUSH_TIMEOUT IRQ_SUSPEND_TIMEOUT", "-" for an attribute the kernel did
# not send. It reads them with the netdev family's napi-get over a raw
# generic netlink socket, so test-irq-daemon.sh can check what netpolld set
# without any of netpolld's own netlink code.
# napi-dump.py threaded IFINDEX: "ID THREADED PID" per instance instead
# (threaded: 0 disabled, 1 enabled, 2 busy-poll; 6.17+).
# napi-dump.py set ID defer|gro|threaded VALUE: napi-set, as another tool
# would (a change behind netpolld's back).
import struct, sys

from netdev_genl import NLM_F_ACK, NLM_F_DUMP, attr, open_netdev, request, uint

NETDEV_CMD_NAPI_GET, NETDEV_CMD_NAPI_SET = 11, 14  # include/uapi/linux/netdev.h
A_IFINDEX, A_ID, A_PID, A_DEFER, A_GRO, A_SUSPEND, A_THREADED = 1, 2, 4, 5, 6, 7, 8

sk, family = open_netdev()
if len(sys.argv) == 5 and sys.argv[1] == "set":
    a = {"defer": (A_DEFER, "I"), "gro": (A_GRO, "Q"), "threaded": (A_THREADED, "I")}[sys.argv[3]]
    request(sk, family, NETDEV_CMD_NAPI_SET,
            attr(A_ID, struct.pack("I", int(sys.argv[2]))) + attr(a[0], struct.pack(a[1], int(sys.argv[4]))), NLM_F_ACK)
    sys.exit(0)
columns = (A_ID, A_IFINDEX, A_DEFER, A_GRO, A_SUSPEND)
if len(sys.argv) == 3 and sys.argv[1] == "threaded":
    columns = (A_ID, A_THREADED, A_PID)
    del sys.argv[1]
want = attr(A_IFINDEX, struct.pack("I", int(sys.argv[1]))) if len(sys.argv) > 1 else b""
for a in request(sk, family, NETDEV_CMD_NAPI_GET, want, NLM_F_DUMP):
    print(" ".join(str(uint(a[k])) if k in a else "-" for k in columns))
