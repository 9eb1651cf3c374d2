# SPDX-License-Identifier: LGPL-2.1-or-later
# netdev_genl.py: the few pieces of generic netlink the test helpers
# (napi-dump.py, qstats-dump.py) need to talk to the kernel's netdev family
# over a raw socket, independent of netpolld's own netlink code.
import os, socket, struct

NETLINK_GENERIC, GENL_ID_CTRL, CTRL_CMD_GETFAMILY = 16, 0x10, 3
CTRL_ATTR_FAMILY_ID, CTRL_ATTR_FAMILY_NAME = 1, 2
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
    """Sends one request; returns the attributes of every reply. Reads to
    NLMSG_DONE or the ACK (dumps of this family come without NLM_F_MULTI);
    a kernel error raises OSError."""
    body = struct.pack("BBH", cmd, 1, 0) + payload
    sk.send(struct.pack("IHHII", 16 + len(body), family, NLM_F_REQUEST | flags, 1, 0) + body)
    replies = []
    while True:
        data, off = sk.recv(1 << 16), 0
        while off < len(data):
            n, typ = struct.unpack_from("IH", data, off)
            if typ in (NLMSG_ERROR, NLMSG_DONE):
                err = struct.unpack_from("i", data, off + 16)[0]
                if err:
                    raise OSError(-err, os.strerror(-err))
                return replies
            replies.append(attrs(data[off + 20:off + n]))
            off += (n + 3) & ~3


def open_netdev():
    """A generic netlink socket and the netdev family's id."""
    sk = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_GENERIC)
    fam = request(sk, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, attr(CTRL_ATTR_FAMILY_NAME, b"netdev\0"), NLM_F_ACK)
    return sk, struct.unpack("H", fam[0][CTRL_ATTR_FAMILY_ID][:2])[0]
