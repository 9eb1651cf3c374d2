/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * netdev-genl.c: netdev family requests with libnl-genl. The numbers below
 * are the kernel's uapi (include/uapi/linux/netdev.h); Debian 12's headers
 * predate the family, and the values are ABI that never changes.
 *
 * Two kernel habits shape the receive loop: dump replies of this family
 * arrive without NLM_F_MULTI (libnl then returns after the first datagram),
 * so we read until NLMSG_DONE ourselves; and a dump that fails reports its
 * error inside NLMSG_DONE, which libnl does not look at.
 */
#include "netdev-genl.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <net/if.h>

#include "macro.h"
#include "nl-util.h"

#define NETDEV_FAMILY_NAME "netdev"
#define NETDEV_FAMILY_VERSION 1

enum {
        NETDEV_CMD_QUEUE_GET = 10,
        NETDEV_CMD_NAPI_GET = 11,
        NETDEV_CMD_QSTATS_GET = 12,
        NETDEV_CMD_NAPI_SET = 14,
};

enum {
        NETDEV_A_NAPI_IFINDEX = 1,
        NETDEV_A_NAPI_ID = 2,
        NETDEV_A_NAPI_IRQ = 3,
        NETDEV_A_NAPI_PID = 4,
        NETDEV_A_NAPI_DEFER_HARD_IRQS = 5,    /* u32 */
        NETDEV_A_NAPI_GRO_FLUSH_TIMEOUT = 6,  /* uint: 4 or 8 bytes */
        NETDEV_A_NAPI_IRQ_SUSPEND_TIMEOUT = 7, /* uint */
        NETDEV_A_NAPI_THREADED = 8,            /* u32: 0 disabled, 1 enabled (6.17+), 2 busy-poll (after 6.18) */
};

enum {
        NETDEV_A_QUEUE_ID = 1,
        NETDEV_A_QUEUE_IFINDEX = 2,
        NETDEV_A_QUEUE_TYPE = 3, /* 0 rx, 1 tx */
        NETDEV_A_QUEUE_NAPI_ID = 4,
};

enum {
        NETDEV_A_QSTATS_IFINDEX = 1,
        NETDEV_A_QSTATS_QUEUE_TYPE = 2, /* 0 rx, 1 tx */
        NETDEV_A_QSTATS_QUEUE_ID = 3,
        NETDEV_A_QSTATS_SCOPE = 4, /* a bit set; 1: per queue */
        /* the statistics themselves: qstat.c */
};
#define NETDEV_QSTATS_SCOPE_QUEUE 1

#define ATTR_MAX 48 /* above every attribute we read; newer ones are ignored */

static const int napi_attr[_NAPI_KNOB_MAX] = {
        [NAPI_KNOB_DEFER_HARD_IRQS] = NETDEV_A_NAPI_DEFER_HARD_IRQS,
        [NAPI_KNOB_GRO_FLUSH_TIMEOUT] = NETDEV_A_NAPI_GRO_FLUSH_TIMEOUT,
        [NAPI_KNOB_IRQ_SUSPEND_TIMEOUT] = NETDEV_A_NAPI_IRQ_SUSPEND_TIMEOUT,
        [NAPI_KNOB_THREADED] = NETDEV_A_NAPI_THREADED,
};

struct NetdevGenl {
        struct nl_sock *sk;    /* NETLINK_GENERIC */
        int family;
};

NetdevGenl *netdev_genl_free(NetdevGenl *g) {
        if (!g)
                return NULL;
        nl_socket_free(g->sk);
        free(g);
        return NULL;
}

int netdev_genl_open(NetdevGenl **ret, int family) {
        _cleanup_(netdev_genl_freep) NetdevGenl *g = calloc(1, sizeof(NetdevGenl));
        int r;

        if (!g)
                return -ENOMEM;
        r = nl_socket_open(NETLINK_GENERIC, &g->sk);
        if (r < 0)
                return r;
        /* Replies can exceed a page (many queues): let libnl size the buffer. */
        nl_socket_enable_msg_peek(g->sk);
        if (family <= 0) {
                family = genl_ctrl_resolve(g->sk, NETDEV_FAMILY_NAME);
                if (family < 0)
                        return family == -NLE_OBJ_NOTFOUND ? -EOPNOTSUPP : errno_from_nl(family);
        }
        g->family = family;
        *ret = TAKE_PTR(g);
        return 0;
}

int netdev_genl_family(const NetdevGenl *g) {
        return g ? g->family : -EINVAL;
}

int netdev_genl_ifindex(NetdevGenl *g, const char *ifname) {
        unsigned ifindex;

        if (!g || !ifname)
                return -EINVAL;
        /* The socket is in netpolld's own namespace (nl_socket_open()): so is this lookup. */
        ifindex = if_nametoindex(ifname);
        if (ifindex == 0)
                return errno == ENODEV || errno == ENXIO ? -ENODEV : negative_errno();
        return ifindex <= INT_MAX ? (int)ifindex : -ENODEV;
}

/* ---- one request, its replies ------------------------------------------- */

typedef int (*parse_fn)(struct nlattr **tb, void *userdata);

typedef struct Transaction {
        parse_fn parse;
        void *userdata;
        bool done;
        int error; /* negative errno from the kernel or a parser */
} Transaction;

static void reply_valid(Transaction *t, struct nlmsghdr *h) {
        struct nlattr *tb[ATTR_MAX + 1];
        int r;

        r = genlmsg_parse(h, 0, tb, ATTR_MAX, NULL);
        if (r < 0)
                r = errno_from_nl(r);
        else if (t->parse)
                r = t->parse(tb, t->userdata);
        if (r < 0 && t->error == 0)
                t->error = r;
}

static void reply_done(Transaction *t, struct nlmsghdr *h) {
        if (nlmsg_datalen(h) >= (int)sizeof(int)) {
                int e = *(int *)nlmsg_data(h);
                if (e < 0 && t->error == 0)
                        t->error = e;
        }
        t->done = true;
}

static int on_valid(struct nl_msg *msg, void *arg) {
        reply_valid(arg, nlmsg_hdr(msg));
        return NL_OK; /* keep reading to the end so the socket is clean for the next request */
}

static int on_finish(struct nl_msg *msg, void *arg) {
        reply_done(arg, nlmsg_hdr(msg));
        return NL_STOP;
}

static int on_ack(struct nl_msg *msg, void *arg) {
        Transaction *t = arg;
        t->done = true;
        return NL_STOP;
}

static int on_error(struct sockaddr_nl *nla, struct nlmsgerr *e, void *arg) {
        Transaction *t = arg;
        if (t->error == 0)
                t->error = e->error < 0 ? e->error : -EIO;
        t->done = true;
        return NL_STOP;
}

/* Sends msg (a dump when dump) and feeds every reply to parse. */
static int transact(NetdevGenl *g, struct nl_msg *msg, parse_fn parse, void *userdata) {
        _cleanup_(nl_cb_putp) struct nl_cb *cb = nl_cb_alloc(NL_CB_DEFAULT);
        Transaction t = { .parse = parse, .userdata = userdata };
        int r;

        if (!cb)
                return -ENOMEM;
        nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, on_valid, &t);
        nl_cb_set(cb, NL_CB_FINISH, NL_CB_CUSTOM, on_finish, &t);
        nl_cb_set(cb, NL_CB_ACK, NL_CB_CUSTOM, on_ack, &t);
        nl_cb_err(cb, NL_CB_CUSTOM, on_error, &t);

        /* nl_send_auto() asks for an ACK: "do" requests end with it, dumps with NLMSG_DONE. */
        r = nl_send_auto(g->sk, msg);
        if (r < 0)
                return errno_from_nl(r);
        while (!t.done) {
                r = nl_recvmsgs(g->sk, cb);
                if (r < 0 && !t.done)
                        return t.error < 0 ? t.error : errno_from_nl(r);
        }
        return t.error < 0 ? t.error : 0;
}

static int new_request(NetdevGenl *g, uint8_t cmd, bool dump, struct nl_msg **ret) {
        _cleanup_(nlmsg_freep) struct nl_msg *msg = nlmsg_alloc();

        if (!g)
                return -EINVAL;
        if (!msg)
                return -ENOMEM;
        if (!genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, g->family, 0, dump ? NLM_F_DUMP : 0, cmd,
                         NETDEV_FAMILY_VERSION))
                return -ENOMEM;
        *ret = TAKE_PTR(msg);
        return 0;
}

/* ---- attribute readers: the kernel's sizes, nothing else ---------------- */

static int get_u32(const struct nlattr *a, uint32_t *ret) {
        if (!a)
                return 0;
        if (nla_len(a) != sizeof(uint32_t))
                return -EBADMSG;
        *ret = nla_get_u32((struct nlattr *)a);
        return 1;
}

/* NLA_UINT: 4 bytes when the value fits, else 8. */
static int get_uint(const struct nlattr *a, uint64_t *ret) {
        if (!a)
                return 0;
        if (nla_len(a) == sizeof(uint32_t))
                *ret = nla_get_u32((struct nlattr *)a);
        else if (nla_len(a) == sizeof(uint64_t))
                *ret = nla_get_u64((struct nlattr *)a);
        else
                return -EBADMSG;
        return 1;
}

/* ---- queues --------------------------------------------------------------- */

typedef struct QueueList {
        NetdevQueue *v;
        size_t n;
} QueueList;

static int parse_queue(struct nlattr **tb, void *userdata) {
        QueueList *l = userdata;
        NetdevQueue q = {};
        uint32_t id, type, napi = 0;
        NetdevQueue *a;

        if (get_u32(tb[NETDEV_A_QUEUE_ID], &id) <= 0 || get_u32(tb[NETDEV_A_QUEUE_TYPE], &type) <= 0 ||
            get_u32(tb[NETDEV_A_QUEUE_NAPI_ID], &napi) < 0)
                return -EBADMSG;
        if (type > 1)
                return 0; /* a queue type newer than this code: not ours to steer */
        q.kind = type == 0 ? QUEUE_RX : QUEUE_TX;
        q.id = id;
        q.napi_id = napi;
        a = reallocarray(l->v, l->n + 1, sizeof(NetdevQueue));
        if (!a)
                return -ENOMEM;
        l->v = a;
        l->v[l->n++] = q;
        return 0;
}

static int cmp_queue(const void *a, const void *b) {
        const NetdevQueue *x = a, *y = b;
        if (x->kind != y->kind)
                return x->kind < y->kind ? -1 : 1;
        return x->id < y->id ? -1 : x->id > y->id;
}

static int cmp_u32(const void *a, const void *b) {
        uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
        return x < y ? -1 : x > y;
}

/*
 * veth (and other drivers) create one NAPI instance per rx queue without
 * telling the queues which: when no queue names a NAPI instance and the
 * device has exactly one per rx queue, pair them in creation (id) order.
 */
static int link_unlinked_napis(NetdevGenl *g, int ifindex, QueueList *l) {
        _cleanup_(freep) NapiInfo *napis = NULL;
        _cleanup_(freep) uint32_t *ids = NULL;
        size_t nn = 0, n_rx = 0, k = 0;
        int r;

        for (size_t i = 0; i < l->n; i++) {
                if (l->v[i].napi_id)
                        return 0;
                n_rx += l->v[i].kind == QUEUE_RX;
        }
        if (n_rx == 0)
                return 0;
        r = netdev_genl_napis(g, ifindex, &napis, &nn);
        if (r < 0 || nn != n_rx)
                return 0; /* no pairing to be sure of */
        ids = calloc(nn, sizeof(uint32_t));
        if (!ids)
                return -ENOMEM;
        for (size_t i = 0; i < nn; i++)
                ids[i] = napis[i].id;
        qsort(ids, nn, sizeof(uint32_t), cmp_u32);
        qsort(l->v, l->n, sizeof(NetdevQueue), cmp_queue);
        for (size_t i = 0; i < l->n; i++)
                if (l->v[i].kind == QUEUE_RX)
                        l->v[i].napi_id = ids[k++];
        return 0;
}

int netdev_genl_queues(NetdevGenl *g, int ifindex, NetdevQueue **ret, size_t *ret_n) {
        _cleanup_(nlmsg_freep) struct nl_msg *msg = NULL;
        QueueList l = {};
        int r;

        if (ifindex <= 0 || !ret || !ret_n)
                return -EINVAL;
        r = new_request(g, NETDEV_CMD_QUEUE_GET, true, &msg);
        if (r < 0)
                return r;
        if (nla_put_u32(msg, NETDEV_A_QUEUE_IFINDEX, (uint32_t)ifindex) < 0)
                return -ENOMEM;
        r = transact(g, msg, parse_queue, &l);
        if (r >= 0)
                r = link_unlinked_napis(g, ifindex, &l);
        if (r < 0) {
                free(l.v);
                return r;
        }
        if (l.n > 1)
                qsort(l.v, l.n, sizeof(NetdevQueue), cmp_queue);
        *ret = l.v;
        *ret_n = l.n;
        return 0;
}

int netdev_genl_queue_napi(NetdevGenl *g, int ifindex, QueueKind kind, unsigned id, uint32_t *ret) {
        _cleanup_(freep) NetdevQueue *q = NULL;
        size_t n = 0;
        int r;

        if (ifindex <= 0 || (kind != QUEUE_RX && kind != QUEUE_TX) || !ret)
                return -EINVAL;
        /* The dump, not queue-get: it also pairs queues of drivers that do not link them (see above). */
        r = netdev_genl_queues(g, ifindex, &q, &n);
        if (r < 0)
                return r;
        for (size_t i = 0; i < n; i++)
                if (q[i].kind == kind && q[i].id == id) {
                        *ret = q[i].napi_id;
                        return 0;
                }
        return -ENOENT;
}

/* ---- per-queue statistics ------------------------------------------------ */

typedef struct QstatsList {
        QueueStats *v;
        size_t n;
} QstatsList;

/* 1: a queue's statistics in *ret; 0: a queue type newer than this code. */
static int parse_qstats_tb(struct nlattr **tb, QueueStats *ret) {
        QueueStats q = {};
        uint32_t ifindex, type, id;
        int r;

        if (get_u32(tb[NETDEV_A_QSTATS_IFINDEX], &ifindex) <= 0 || ifindex == 0 || ifindex > INT32_MAX ||
            get_u32(tb[NETDEV_A_QSTATS_QUEUE_TYPE], &type) <= 0 || get_u32(tb[NETDEV_A_QSTATS_QUEUE_ID], &id) <= 0)
                return -EBADMSG; /* a device-scope answer to a per-queue request, or garbage */
        if (type > 1)
                return 0;
        q.ifindex = (int)ifindex;
        q.kind = type == 0 ? QUEUE_RX : QUEUE_TX;
        q.id = id;
        for (Qstat s = 0; s < _QSTAT_MAX; s++) {
                int attr = qstat_attr(s, q.kind);
                if (attr == 0 || attr > ATTR_MAX)
                        continue;
                r = get_uint(tb[attr], &q.value[s]);
                if (r < 0)
                        return r;
                q.has[s] = r > 0;
        }
        *ret = q;
        return 1;
}

int netdev_genl_qstats_parse(struct nlmsghdr *h, QueueStats *ret) {
        struct nlattr *tb[ATTR_MAX + 1];
        int r;

        if (!h || !ret)
                return -EINVAL;
        if (!genlmsg_valid_hdr(h, 0))
                return -EBADMSG;
        r = genlmsg_parse(h, 0, tb, ATTR_MAX, NULL);
        if (r < 0)
                return -EBADMSG;
        return parse_qstats_tb(tb, ret);
}

static int parse_qstats(struct nlattr **tb, void *userdata) {
        QstatsList *l = userdata;
        QueueStats q, *a;
        int r;

        r = parse_qstats_tb(tb, &q);
        if (r <= 0)
                return r;
        a = reallocarray(l->v, l->n + 1, sizeof(QueueStats));
        if (!a)
                return -ENOMEM;
        l->v = a;
        l->v[l->n++] = q;
        return 0;
}

int netdev_genl_qstats(NetdevGenl *g, int ifindex, QueueStats **ret, size_t *ret_n) {
        _cleanup_(nlmsg_freep) struct nl_msg *msg = NULL;
        QstatsList l = {};
        int r;

        if (ifindex < 0 || !ret || !ret_n)
                return -EINVAL;
        r = new_request(g, NETDEV_CMD_QSTATS_GET, true, &msg);
        if (r < 0)
                return r;
        if ((ifindex > 0 && nla_put_u32(msg, NETDEV_A_QSTATS_IFINDEX, (uint32_t)ifindex) < 0) ||
            nla_put_u32(msg, NETDEV_A_QSTATS_SCOPE, NETDEV_QSTATS_SCOPE_QUEUE) < 0)
                return -ENOMEM;
        r = transact(g, msg, parse_qstats, &l);
        if (r < 0) {
                free(l.v);
                return r;
        }
        *ret = l.v;
        *ret_n = l.n;
        return 0;
}

/* ---- NAPI instances ------------------------------------------------------ */

typedef struct NapiList {
        NapiInfo *v;
        size_t n;
} NapiList;

static int parse_napi(struct nlattr **tb, void *userdata) {
        NapiList *l = userdata;
        NapiInfo info = { .irq = -1, .pid = -1 };
        uint32_t v32;
        NapiInfo *a;
        int r;

        if (get_u32(tb[NETDEV_A_NAPI_ID], &info.id) <= 0 || get_u32(tb[NETDEV_A_NAPI_IFINDEX], &v32) <= 0)
                return -EBADMSG;
        info.ifindex = (int)v32;
        r = get_u32(tb[NETDEV_A_NAPI_IRQ], &v32);
        if (r < 0)
                return r;
        if (r > 0)
                info.irq = (int)v32;
        r = get_u32(tb[NETDEV_A_NAPI_PID], &v32);
        if (r < 0)
                return r;
        if (r > 0)
                info.pid = (int)v32;
        for (NapiKnob k = 0; k < _NAPI_KNOB_MAX; k++) {
                r = get_uint(tb[napi_attr[k]], &info.value[k]);
                if (r < 0)
                        return r;
                info.has[k] = r > 0;
        }

        a = reallocarray(l->v, l->n + 1, sizeof(NapiInfo));
        if (!a)
                return -ENOMEM;
        l->v = a;
        l->v[l->n++] = info;
        return 0;
}

int netdev_genl_napis(NetdevGenl *g, int ifindex, NapiInfo **ret, size_t *ret_n) {
        _cleanup_(nlmsg_freep) struct nl_msg *msg = NULL;
        NapiList l = {};
        int r;

        if (ifindex <= 0 || !ret || !ret_n)
                return -EINVAL;
        r = new_request(g, NETDEV_CMD_NAPI_GET, true, &msg);
        if (r < 0)
                return r;
        if (nla_put_u32(msg, NETDEV_A_NAPI_IFINDEX, (uint32_t)ifindex) < 0)
                return -ENOMEM;
        r = transact(g, msg, parse_napi, &l);
        if (r < 0) {
                free(l.v);
                return r;
        }
        *ret = l.v;
        *ret_n = l.n;
        return 0;
}

int netdev_genl_napi_get(NetdevGenl *g, uint32_t napi_id, NapiInfo *ret) {
        _cleanup_(nlmsg_freep) struct nl_msg *msg = NULL;
        NapiList l = {};
        int r;

        if (napi_id == 0 || !ret)
                return -EINVAL;
        r = new_request(g, NETDEV_CMD_NAPI_GET, false, &msg);
        if (r < 0)
                return r;
        if (nla_put_u32(msg, NETDEV_A_NAPI_ID, napi_id) < 0)
                return -ENOMEM;
        r = transact(g, msg, parse_napi, &l);
        if (r >= 0 && l.n != 1)
                r = -EBADMSG;
        if (r >= 0)
                *ret = l.v[0];
        free(l.v);
        return r;
}

int netdev_genl_napi_set(NetdevGenl *g, uint32_t napi_id, NapiKnob knob, uint64_t value) {
        _cleanup_(nlmsg_freep) struct nl_msg *msg = NULL;
        int r;

        if (napi_id == 0 || knob >= _NAPI_KNOB_MAX)
                return -EINVAL;
        if ((knob == NAPI_KNOB_DEFER_HARD_IRQS && value > INT32_MAX) ||
            (knob == NAPI_KNOB_THREADED && value > NAPI_THREADED_BUSY_POLL))
                return -ERANGE;
        r = new_request(g, NETDEV_CMD_NAPI_SET, false, &msg);
        if (r < 0)
                return r;
        if (nla_put_u32(msg, NETDEV_A_NAPI_ID, napi_id) < 0)
                return -ENOMEM;
        if (knob == NAPI_KNOB_DEFER_HARD_IRQS || knob == NAPI_KNOB_THREADED)
                r = nla_put_u32(msg, napi_attr[knob], (uint32_t)value);
        else
                r = nla_put_u64(msg, napi_attr[knob], value); /* NLA_UINT takes 8 bytes as well */
        if (r < 0)
                return -ENOMEM;
        return transact(g, msg, NULL, NULL);
}

/* ---- replies from a buffer (tests, fuzzing) ------------------------------ */

/* Walks a datagram's messages as nl_recvmsgs() does and hands them to the same handlers. */
static int feed(Transaction *t, const void *buf, size_t len) {
        int remaining = len > INT_MAX ? INT_MAX : (int)len;

        for (struct nlmsghdr *h = (struct nlmsghdr *)buf; !t->done && nlmsg_ok(h, remaining);
             h = nlmsg_next(h, &remaining)) {
                if (h->nlmsg_type == NLMSG_DONE)
                        reply_done(t, h);
                else if (h->nlmsg_type == NLMSG_ERROR) {
                        const struct nlmsgerr *e = nlmsg_data(h);
                        if (nlmsg_datalen(h) < (int)sizeof(*e)) {
                                if (t->error == 0)
                                        t->error = -EBADMSG;
                        } else if (e->error != 0 && t->error == 0)
                                t->error = e->error < 0 ? e->error : -EIO;
                        t->done = true;
                } else if (h->nlmsg_type >= NLMSG_MIN_TYPE)
                        reply_valid(t, h);
        }
        return t->error < 0 ? t->error : 0;
}

int netdev_genl_parse_queues(const void *buf, size_t len, NetdevQueue **ret, size_t *ret_n) {
        QueueList l = {};
        Transaction t = { .parse = parse_queue, .userdata = &l };
        int r;

        if (!buf || !ret || !ret_n)
                return -EINVAL;
        r = feed(&t, buf, len);
        if (r < 0) {
                free(l.v);
                return r;
        }
        if (l.n > 1)
                qsort(l.v, l.n, sizeof(NetdevQueue), cmp_queue);
        *ret = l.v;
        *ret_n = l.n;
        return 0;
}

int netdev_genl_parse_napis(const void *buf, size_t len, NapiInfo **ret, size_t *ret_n) {
        NapiList l = {};
        Transaction t = { .parse = parse_napi, .userdata = &l };
        int r;

        if (!buf || !ret || !ret_n)
                return -EINVAL;
        r = feed(&t, buf, len);
        if (r < 0) {
                free(l.v);
                return r;
        }
        *ret = l.v;
        *ret_n = l.n;
        return 0;
}
