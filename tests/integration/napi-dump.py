#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# napi-dump.py [IFINDEX]: one line per NAPI instance of the current network
# namespace (of the device with IFINDEX only): "ID IFINDEX DEFER_HARD_IRQS
# GRO_FLUSH_TIMEOUT IRQ_SUSPEND_TIMEOUT", "-" for an attribute the kernel did
# not send. It reads them with the netdev family's napi-get over a raw
# generic netlink socket, so test-irq-daemon.sh can check what netpolld set
# without any of netpolld's own netlink code.
# napi-dump.py set ID defer|gro VALUE: napi-set, as another tool would
# (a change behind netpolld's back).
import os, socket, struct, sys

NETLINK_GENERIC, GENL_ID_CTRL, CTRL_CMD_GETFAMILY = 16, 0x10, 3
CTRL_ATTR_FAMILY_ID, CTRL_ATTR_FAMILY_NAME = 1, 2
NETDEV_CMD_NAPI_GET, NETDEV_CMD_NAPI_SET = 11, 14  # include/uapi/linux/netdev.h
A_IFINDEX, A_ID, A_DEFER, A_GRO, A_SUSPEND = 1, 2, 5, 6, 7
NLM_F_REQUEST, NLM_F_ACK, NLM_F_DUMP = 1, 4, 0x300
NLMSG_ERROR, NLMSG_DONE = 2, 3

def attr(t, data):
    n = 4 + len(data)
    return struct.pack("HH", n, t) + data + b"\0" * (-n % 4)

def attrs(buf):
    out, off = {}, 0
    while off + 4 <= len(buf):
        n, t = struct.unpack_from("HH", buf, off)
        out[t & 0x3FFF] = buf[off + 4:off + n]
        off += (n + 3) & ~3
    return out

def uint(b):
    return struct.unpack("I" if len(b) == 4 else "Q", b)[0]

def request(sk, family, cmd, payload, flags):
    body = struct.pack("BBH", cmd, 1, 0) + payload
    sk.send(struct.pack("IHHII", 16 + len(body), family, NLM_F_REQUEST | flags, 1, 0) + body)
    replies = []
    while True:
        data, off = sk.recv(1 << 16), 0
        while off < len(data):
            n, typ = struct.unpack_from("IH", data, off)
            if typ == NLMSG_ERROR:
                err = struct.unpack_from("i", data, off + 16)[0]
                if err:
                    raise OSError(-err, os.strerror(-err))
                return replies
            if typ == NLMSG_DONE:
                return replies
            replies.append(attrs(data[off + 20:off + n]))
            off += (n + 3) & ~3

sk = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_GENERIC)
fam = request(sk, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, attr(CTRL_ATTR_FAMILY_NAME, b"netdev\0"), NLM_F_ACK)
family = struct.unpack("H", fam[0][CTRL_ATTR_FAMILY_ID][:2])[0]
if len(sys.argv) == 5 and sys.argv[1] == "set":
    a = {"defer": (A_DEFER, "I"), "gro": (A_GRO, "Q")}[sys.argv[3]]
    request(sk, family, NETDEV_CMD_NAPI_SET,
            attr(A_ID, struct.pack("I", int(sys.argv[2]))) + attr(a[0], struct.pack(a[1], int(sys.argv[4]))), NLM_F_ACK)
    sys.exit(0)
want = attr(A_IFINDEX, struct.pack("I", int(sys.argv[1]))) if len(sys.argv) > 1 else b""
for a in request(sk, family, NETDEV_CMD_NAPI_GET, want, NLM_F_DUMP):
    print(" ".join(str(uint(a[k])) if k in a else "-" for k in (A_ID, A_IFINDEX, A_DEFER, A_GRO, A_SUSPEND)))
