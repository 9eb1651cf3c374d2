/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * nl-util.c: libnl error adapter and connected sockets.
 */
#include "nl-util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <netlink/errno.h>

#include "log.h"

int errno_from_nl(int nlerr) {
        static const int map[] = {
                [NLE_FAILURE] = EIO,           [NLE_INTR] = EINTR,
                [NLE_BAD_SOCK] = EBADF,        [NLE_AGAIN] = EAGAIN,
                [NLE_NOMEM] = ENOMEM,          [NLE_EXIST] = EEXIST,
                [NLE_INVAL] = EINVAL,          [NLE_RANGE] = ERANGE,
                [NLE_MSGSIZE] = EMSGSIZE,      [NLE_OPNOTSUPP] = EOPNOTSUPP,
                [NLE_AF_NOSUPPORT] = EAFNOSUPPORT, [NLE_OBJ_NOTFOUND] = ENOENT,
                [NLE_NOATTR] = ENODATA,        [NLE_MISSING_ATTR] = EBADMSG,
                [NLE_AF_MISMATCH] = EAFNOSUPPORT, [NLE_SEQ_MISMATCH] = EBADMSG,
                [NLE_MSG_OVERFLOW] = EOVERFLOW, [NLE_MSG_TRUNC] = EMSGSIZE,
                [NLE_NOADDR] = EADDRNOTAVAIL,  [NLE_SRCRT_NOSUPPORT] = EOPNOTSUPP,
                [NLE_MSG_TOOSHORT] = EBADMSG,  [NLE_MSGTYPE_NOSUPPORT] = EOPNOTSUPP,
                [NLE_OBJ_MISMATCH] = EINVAL,   [NLE_NOCACHE] = ENOENT,
                [NLE_BUSY] = EBUSY,            [NLE_PROTO_MISMATCH] = EPROTONOSUPPORT,
                [NLE_NOACCESS] = EACCES,       [NLE_PERM] = EPERM,
                [NLE_PKTLOC_FILE] = ENOENT,    [NLE_PARSE_ERR] = EBADMSG,
                [NLE_NODEV] = ENODEV,          [NLE_IMMUTABLE] = EROFS,
                [NLE_DUMP_INTR] = EINTR,       [NLE_ATTRSIZE] = EBADMSG,
        };
        int e;

        if (nlerr >= 0)
                return nlerr;
        e = -nlerr;
        /* libnl's codes are small and contiguous; anything else is not one of them. */
        if ((size_t)e < ELEMENTSOF(map) && map[e])
                return -map[e];
        return -EIO;
}

static int connect_here(int protocol, struct nl_sock **ret) {
        _cleanup_(nl_socket_freep) struct nl_sock *sk = nl_socket_alloc();
        int r;

        if (!sk)
                return -ENOMEM;
        r = errno_from_nl(nl_connect(sk, protocol));
        if (r < 0)
                return r;
        *ret = TAKE_PTR(sk);
        return 0;
}

int nl_socket_open(int protocol, struct nl_sock **ret) {
        if (!ret)
                return -EINVAL;
        return connect_here(protocol, ret);
}
