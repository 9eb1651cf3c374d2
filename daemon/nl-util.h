/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * nl-util.h: what every libnl user in netpolld shares: the one adapter from
 * libnl's -NLE_* codes to negative errno (so they never leak out of a
 * module), cleanup helpers for libnl objects, and netlink sockets opened in
 * another network namespace.
 */
#pragma once

#include <netlink/netlink.h>
#include <netlink/msg.h>
#include <netlink/socket.h>

#include "macro.h"

/* Maps a libnl return value (0, positive or -NLE_*) to 0/positive or a negative errno. */
int errno_from_nl(int nlerr);

DEFINE_TRIVIAL_CLEANUP_FUNC(struct nl_sock *, nl_socket_free);
DEFINE_TRIVIAL_CLEANUP_FUNC(struct nl_msg *, nlmsg_free);
DEFINE_TRIVIAL_CLEANUP_FUNC(struct nl_cb *, nl_cb_put);

/*
 * A connected netlink socket of protocol (NETLINK_ROUTE, NETLINK_GENERIC)
 * that lives in the network namespace of the file netns ("/run/netns/NAME",
 * "/proc/PID/ns/net"), NULL for our own. The kernel binds a socket to the
 * namespace it was created in, so the caller stays in its own namespace:
 * only socket creation happens inside the other one (setns(CLONE_NEWNET)
 * there and straight back). A namespace file that is our own namespace
 * needs no switch. -EBADF/-ENOENT... for an unusable netns file, -EINVAL
 * when it is not a network namespace.
 */
int nl_socket_open_in(const char *netns, int protocol, struct nl_sock **ret);
