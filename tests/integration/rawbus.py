# SPDX-License-Identifier: LGPL-2.1-or-later
"""rawbus.py: a minimal D-Bus client over a unix socket for the bad-input test.

It marshals messages itself (little endian, protocol version 1), so a test can
send what libraries refuse to build: strings that are not UTF-8, bodies whose
signature does not match the method, huge strings. Nothing here validates.
Types: y b i u x t s o g a ( ) { } v (a variant's value is given as (sig, value)).
"""
import os
import socket
import struct

METHOD_CALL, METHOD_RETURN, ERROR, SIGNAL = 1, 2, 3, 4
FIXED = {"y": ("B", 1), "b": ("I", 4), "i": ("i", 4), "u": ("I", 4), "x": ("q", 8), "t": ("Q", 8)}


class Closed(Exception):
    """The bus closed the connection."""


def split_types(sig):
    """The complete types of a signature."""
    out, i = [], 0
    while i < len(sig):
        j = end_of_type(sig, i)
        out.append(sig[i:j])
        i = j
    return out


def end_of_type(sig, i):
    c = sig[i]
    if c == "a":
        return end_of_type(sig, i + 1)
    if c in "({":
        close = ")" if c == "(" else "}"
        i += 1
        while sig[i] != close:
            i = end_of_type(sig, i)
        return i + 1
    return i + 1


def alignment(t):
    c = t[0]
    if c in "({":
        return 8
    if c in "sobua":
        return 4
    if c == "g" or c == "y" or c == "v":
        return 1
    return FIXED[c][1]


class Writer:
    def __init__(self, start=0):
        self.buf = bytearray()
        self.start = start  # offset of buf[0] in the message, for alignment

    def pad(self, n):
        while (self.start + len(self.buf)) % n:
            self.buf.append(0)

    def put(self, t, v):
        c = t[0]
        if c in FIXED:
            fmt, size = FIXED[c]
            self.pad(size)
            self.buf += struct.pack("<" + fmt, v)
        elif c in "so":
            b = v.encode() if isinstance(v, str) else v
            self.pad(4)
            self.buf += struct.pack("<I", len(b)) + b + b"\0"
        elif c == "g":
            b = v.encode() if isinstance(v, str) else v
            self.buf += struct.pack("<B", len(b)) + b + b"\0"
        elif c == "v":
            sig, val = v
            self.put("g", sig)
            self.put(sig, val)
        elif c == "a":
            elem = t[1:]
            self.pad(4)
            at = len(self.buf)
            self.buf += b"\0\0\0\0"
            self.pad(alignment(elem))
            first = len(self.buf)
            for item in v:
                self.put(elem, item)
            struct.pack_into("<I", self.buf, at, len(self.buf) - first)
        elif c in "({":
            self.pad(8)
            for sub, item in zip(split_types(t[1:-1]), v):
                self.put(sub, item)
        else:
            raise ValueError("type %r" % t)


class Reader:
    def __init__(self, data, pos=0):
        self.data, self.pos = data, pos

    def pad(self, n):
        self.pos = (self.pos + n - 1) // n * n

    def get(self, t):
        c = t[0]
        if c in FIXED:
            fmt, size = FIXED[c]
            self.pad(size)
            (v,) = struct.unpack_from("<" + fmt, self.data, self.pos)
            self.pos += size
            return bool(v) if c == "b" else v
        if c in "so":
            self.pad(4)
            (n,) = struct.unpack_from("<I", self.data, self.pos)
            v = self.data[self.pos + 4:self.pos + 4 + n].decode("utf-8", "replace")
            self.pos += 4 + n + 1
            return v
        if c == "g":
            n = self.data[self.pos]
            v = self.data[self.pos + 1:self.pos + 1 + n].decode()
            self.pos += 1 + n + 1
            return v
        if c == "v":
            sig = self.get("g")
            return self.get(sig)
        if c == "a":
            self.pad(4)
            (n,) = struct.unpack_from("<I", self.data, self.pos)
            self.pos += 4
            self.pad(alignment(t[1:]))
            end, out = self.pos + n, []
            while self.pos < end:
                out.append(self.get(t[1:]))
            return out
        if c in "({":
            self.pad(8)
            return tuple(self.get(sub) for sub in split_types(t[1:-1]))
        raise ValueError("type %r" % t)


class Message:
    def __init__(self, mtype, serial, fields, body_sig, body):
        self.type, self.serial, self.fields = mtype, serial, fields
        self.signature, self.body = body_sig, body

    @property
    def error_name(self):
        return self.fields.get(4) if self.type == ERROR else None

    @property
    def reply_serial(self):
        return self.fields.get(5)

    def args(self):
        r = Reader(self.body)
        return [r.get(t) for t in split_types(self.signature)]


class Connection:
    def __init__(self, path, uid=None):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.connect(path)
        self.serial = 0
        self.rbuf = b""
        uid = os.geteuid() if uid is None else uid
        self.sock.sendall(b"\0AUTH EXTERNAL " + str(uid).encode().hex().encode() + b"\r\n")
        line = self._line()
        if not line.startswith(b"OK "):
            raise Closed("authentication refused: %r" % line)
        self.sock.sendall(b"BEGIN\r\n")
        self.call("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "Hello")

    def _line(self):
        while b"\r\n" not in self.rbuf:
            chunk = self.sock.recv(4096)
            if not chunk:
                raise Closed("closed during authentication")
            self.rbuf += chunk
        line, self.rbuf = self.rbuf.split(b"\r\n", 1)
        return line

    def close(self):
        self.sock.close()

    def send(self, dest, path, iface, member, sig="", args=(), raw_body=None):
        """Sends a method call; sig is what the header says, raw_body (bytes) replaces the marshalled args."""
        self.serial += 1
        if raw_body is None:
            w = Writer()
            for t, v in zip(split_types(sig), args):
                w.put(t, v)
            body = bytes(w.buf)
        else:
            body = raw_body
        fields = [(1, ("o", path)), (3, ("s", member)), (6, ("s", dest))]
        if iface:
            fields.append((2, ("s", iface)))
        if sig:
            fields.append((8, ("g", sig)))
        h = Writer()
        h.buf += struct.pack("<cBBBII", b"l", METHOD_CALL, 0, 1, len(body), self.serial)
        h.put("a(yv)", fields)
        h.pad(8)
        self.sock.sendall(bytes(h.buf) + body)
        return self.serial

    def _recv_exact(self, n):
        while len(self.rbuf) < n:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise Closed("connection closed by the bus")
            self.rbuf += chunk
        data, self.rbuf = self.rbuf[:n], self.rbuf[n:]
        return data

    def receive(self):
        fixed = self._recv_exact(16)
        _, mtype, _, _, body_len, serial, fields_len = struct.unpack("<cBBBIII", fixed)
        rest_len = (16 + fields_len + 7) // 8 * 8 - 16
        data = fixed + self._recv_exact(rest_len + body_len)
        r = Reader(data, 12)
        fields = dict(r.get("a(yv)"))
        body_start = 16 + rest_len
        return Message(mtype, serial, fields, fields.get(8, ""), data[body_start:])

    def wait_reply(self, serial):
        while True:
            m = self.receive()
            if m.type in (METHOD_RETURN, ERROR) and m.reply_serial == serial:
                return m

    def call(self, dest, path, iface, member, sig="", args=(), raw_body=None):
        return self.wait_reply(self.send(dest, path, iface, member, sig, args, raw_body))
