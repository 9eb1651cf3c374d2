/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * netdev-genl.h: a client of the kernel's "netdev" generic netlink family
 * (Documentation/netlink/specs/netdev.yaml): which NAPI instance serves each
 * queue (queue-get), each NAPI instance's IRQ and settings (napi-get), and
 * changing them (napi-set, kernel 6.13+); per-queue statistics (qstats-get,
 * 6.10+). Synchronous requests on a
 * blocking socket; no logging. Errors are negative errno: -EOPNOTSUPP when
 * the kernel lacks the family or the operation, -ENOENT for an unknown NAPI
 * instance (also one of another network namespace), -ENODEV for an unknown
 * ifindex.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "interrupts.h"
#include "napi.h"
#include "qstat.h"

struct nlmsghdr;

typedef struct NetdevGenl NetdevGenl;

/*
 * A socket in netpolld's network namespace. family: the family id from an
 * earlier netdev_genl_family(), or 0 to resolve it with genl_ctrl_resolve
 * (-EOPNOTSUPP when the kernel has no netdev family, before 6.2).
 */
int netdev_genl_open(NetdevGenl **ret, int family);
NetdevGenl *netdev_genl_free(NetdevGenl *g);
static inline void netdev_genl_freep(NetdevGenl **g) {
        if (*g)
                netdev_genl_free(*g);
}
int netdev_genl_family(const NetdevGenl *g);

/* The ifindex of an interface in the socket's namespace (rtnetlink); -ENODEV when there is none. */
int netdev_genl_ifindex(NetdevGenl *g, const char *ifname);

typedef struct NetdevQueue {
        QueueKind kind; /* QUEUE_RX or QUEUE_TX */
        unsigned id;
        uint32_t napi_id; /* 0: no NAPI instance */
} NetdevQueue;

/*
 * The queues of an interface that is up (a down one has none here), rx
 * first; caller frees. Drivers that do not link queues to NAPI instances
 * (veth) but have one instance per rx queue get them paired in id order.
 */
int netdev_genl_queues(NetdevGenl *g, int ifindex, NetdevQueue **ret, size_t *ret_n);
/* The NAPI instance of one queue, 0 when it has none. */
int netdev_genl_queue_napi(NetdevGenl *g, int ifindex, QueueKind kind, unsigned id, uint32_t *ret);

typedef struct NapiInfo {
        uint32_t id;
        int ifindex;
        int irq;                 /* -1: no IRQ */
        int pid;                 /* threaded NAPI's kthread, -1: none */
        bool has[_NAPI_KNOB_MAX];
        uint64_t value[_NAPI_KNOB_MAX];
} NapiInfo;

/* Every NAPI instance of an interface that is up; caller frees. */
int netdev_genl_napis(NetdevGenl *g, int ifindex, NapiInfo **ret, size_t *ret_n);
int netdev_genl_napi_get(NetdevGenl *g, uint32_t napi_id, NapiInfo *ret);
int netdev_genl_napi_set(NetdevGenl *g, uint32_t napi_id, NapiKnob knob, uint64_t value);

/*
 * The reply parsers without a socket, for tests and fuzzing: buf holds
 * netlink messages as one recv() returns them (queue-get or napi-get
 * replies, NLMSG_DONE, NLMSG_ERROR), handled exactly as a request's replies
 * are. Same results and errors as netdev_genl_queues() (without the veth
 * pairing, which asks the kernel) and netdev_genl_napis(); caller frees.
 */
int netdev_genl_parse_queues(const void *buf, size_t len, NetdevQueue **ret, size_t *ret_n);
int netdev_genl_parse_napis(const void *buf, size_t len, NapiInfo **ret, size_t *ret_n);

/*
 * Per-queue statistics (qstats-get, scope queue) of one interface, or of
 * every interface of the namespace that has them when ifindex is 0; caller
 * frees. -EOPNOTSUPP: the driver of that interface keeps none (veth,
 * Linux 6.18), or the kernel lacks qstats-get. A whole dump leaves out
 * interfaces without statistics. Statistics the driver does not keep are
 * absent (has[] false), never zero.
 */
int netdev_genl_qstats(NetdevGenl *g, int ifindex, QueueStats **ret, size_t *ret_n);
/*
 * One qstats-get reply (a generic netlink message of the netdev family)
 * into *ret: 1, or 0 for a queue type this code does not know, or
 * -EBADMSG when the queue's identity is missing or an attribute has the
 * wrong size. For tests; netdev_genl_qstats() uses it.
 */
int netdev_genl_qstats_parse(struct nlmsghdr *h, QueueStats *ret);
