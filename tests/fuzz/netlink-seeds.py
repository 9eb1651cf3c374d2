#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""netlink-seeds.py DIR: writes the seed corpus of fuzz-netlink: netdev family replies laid
out as the kernel sends them (struct nlmsghdr, struct genlmsghdr, attributes padded to 4
bytes), each file a selector byte (0 queue-get, 1 napi-get) and one datagram. The attribute
numbers and sizes are include/uapi/linux/netdev.h's, as in daemon/kernel/netdev-genl.c."""
import os
import struct
import sys

NLMSG_ERROR, NLMSG_DONE, FAMILY = 2, 3, 0x1A  # any id >= NLMSG_MIN_TYPE (16) is a family
NLM_F_MULTI = 2


def attr(kind, payload):
    n = 4 + len(payload)
    return struct.pack("=HH", n, kind) + payload + b"\0" * (-n % 4)


def u32(kind, v):
    return attr(kind, struct.pack("=I", v))


def u64(kind, v):
    return attr(kind, struct.pack("=Q", v))


def msg(kind, payload, flags=NLM_F_MULTI, seq=1):
    return struct.pack("=IHHII", 16 + len(payload), kind, flags, seq, 4242) + payload


def genl(cmd, attrs):
    return msg(FAMILY, struct.pack("=BBH", cmd, 1, 0) + b"".join(attrs))


def done(err=0):
    return msg(NLMSG_DONE, struct.pack("=i", err))


def error(err):
    return msg(NLMSG_ERROR, struct.pack("=i", err) + struct.pack("=IHHII", 20, FAMILY, 5, 1, 4242))


QUEUE_GET, NAPI_GET = 10, 11
Q_ID, Q_IFINDEX, Q_TYPE, Q_NAPI = 1, 2, 3, 4
N_IFINDEX, N_ID, N_IRQ, N_PID, N_DEFER, N_GRO, N_SUSPEND = 1, 2, 3, 4, 5, 6, 7


def queue(i, t, napi=None):
    a = [u32(Q_ID, i), u32(Q_IFINDEX, 2), u32(Q_TYPE, t)]
    if napi is not None:
        a.append(u32(Q_NAPI, napi))
    return genl(QUEUE_GET, a)


def napi(i, irq=None, pid=None, defer=None, gro=None, gro64=False, suspend=None):
    a = [u32(N_ID, i), u32(N_IFINDEX, 2)]
    if irq is not None:
        a.append(u32(N_IRQ, irq))
    if pid is not None:
        a.append(u32(N_PID, pid))
    if defer is not None:
        a.append(u32(N_DEFER, defer))
    if gro is not None:
        a.append((u64 if gro64 else u32)(N_GRO, gro))
    if suspend is not None:
        a.append(u64(N_SUSPEND, suspend))
    return genl(NAPI_GET, a)


seeds = {
    "queues-virtio": b"\0" + queue(0, 0, 8193) + queue(1, 0, 8194) + queue(0, 1, 8193) + queue(1, 1, 8194) + done(),
    "queues-veth-unlinked": b"\0" + queue(0, 0) + queue(0, 1) + done(),
    "queues-new-type": b"\0" + queue(0, 2, 1) + queue(0, 0, 8193) + done(),
    "queues-error": b"\0" + error(-19),
    "queues-done-error": b"\0" + queue(0, 0, 8193) + done(-95),
    "napis-two": b"\1" + napi(8193, irq=41, defer=2, gro=20000, suspend=0)
                       + napi(8194, irq=42, pid=312, defer=0, gro=1 << 33, gro64=True) + done(),
    "napi-one-ack": b"\1" + napi(8193, irq=41) + error(0),
    "napis-bare": b"\1" + napi(8193) + done(),
}

out = sys.argv[1] if len(sys.argv) > 1 else "netlink"
os.makedirs(out, exist_ok=True)
for name, data in seeds.items():
    with open(os.path.join(out, name + ".bin"), "wb") as f:
        f.write(data)
