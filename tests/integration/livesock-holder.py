#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# livesock-holder.py: an application with long-lived blocking TCP connections
# on loopback for test-livesock.sh. Commands on stdin, one a line; answers on
# stdout, one a line:
#   open NAME VALUE  connect a new client socket NAME and set its SO_BUSY_POLL
#                    to VALUE (what it would have copied from busy_read, or the
#                    application's own choice); answers "opened NAME"
#   get              "NAME=VALUE ..." for every open client socket, by name
#   ping             sends one byte both ways on every connection (blocking)
# EOF ends it. SO_BUSY_POLL is read with getsockopt(2) on its own descriptor.
import socket
import sys

SO_BUSY_POLL = getattr(socket, "SO_BUSY_POLL", 46)

listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
listener.bind(("127.0.0.1", 0))
listener.listen(16)
# The listener holds a value no test looks for: it must not be mistaken for a client.
listener.setsockopt(socket.SOL_SOCKET, SO_BUSY_POLL, 1)
clients = {}
servers = {}


def answer(text):
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


for line in sys.stdin:
    words = line.split()
    if not words:
        continue
    if words[0] == "open" and len(words) == 3:
        c = socket.create_connection(listener.getsockname())
        s, _ = listener.accept()
        c.setsockopt(socket.SOL_SOCKET, SO_BUSY_POLL, int(words[2]))
        s.setsockopt(socket.SOL_SOCKET, SO_BUSY_POLL, 2)
        clients[words[1]] = c
        servers[words[1]] = s
        answer("opened " + words[1])
    elif words[0] == "get":
        answer(" ".join("%s=%d" % (n, c.getsockopt(socket.SOL_SOCKET, SO_BUSY_POLL))
                        for n, c in sorted(clients.items())))
    elif words[0] == "ping":
        for n, c in clients.items():
            c.sendall(b"x")
            servers[n].recv(1)
            servers[n].sendall(b"y")
            c.recv(1)
        answer("pong")
    else:
        answer("error: unknown command " + line.strip())
