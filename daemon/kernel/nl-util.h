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
 * A connected netlink socket of protocol (NETLINK_ROUTE, NETLINK_GENERIC) in
 * netpolld's own network namespace, the only one it manages: entering
 * another would need CAP_SYS_ADMIN, which netpolld does not keep.
 */
int nl_socket_open(int protocol, struct nl_sock **ret);
