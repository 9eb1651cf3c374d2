/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * napi-backend.c: the owner's backend for per-NAPI values (napi-backend.h):
 * napi-get and napi-set of the netdev family on a socket of its own.
 */
#include "napi-backend.h"

#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpuset.h"
#include "macro.h"
#include "netdev-genl.h"
#include "pidact.h"

struct NapiBackend {
        NetdevGenl *genl; /* opened on first use */
        int open_error;
        TargetBackend ops;
        KnobNapiSource knobs;
};

/* The key's value that is not a napi-set attribute: the instance's kernel thread's CPUs. */
#define KNOB_THREAD_CPUS _NAPI_KNOB_MAX

/* "napi:ID:KNOB" into its parts; KNOB_THREAD_CPUS for "napi:ID:thread-cpus". */
static int parse_key(const char *key, uint32_t *ret_id, NapiKnob *ret_knob) {
        const char *p = startswith(key, "napi:");
        char *end;
        unsigned long long id;

        if (!p)
                return -EINVAL;
        errno = 0;
        id = strtoull(p, &end, 10);
        if (errno || id == 0 || id > UINT32_MAX || *end != ':')
                return -EINVAL;
        if (streq(end + 1, NAPI_THREAD_CPUS))
                *ret_knob = KNOB_THREAD_CPUS;
        else if (napi_knob_from_string(end + 1, ret_knob) < 0)
                return -EINVAL;
        *ret_id = (uint32_t)id;
        return 0;
}

/* The CPUs a kernel thread may run on, as a list; -ENOENT when it is gone. */
int napi_thread_cpus(int pid, char **ret) {
        cpu_set_t mask;
        CpuSet set;

        if (pid <= 0)
                return -ENOENT;
        CPU_ZERO(&mask);
        if (sched_getaffinity(pid, sizeof(mask), &mask) < 0)
                return errno == ESRCH ? -ENOENT : negative_errno();
        cpuset_zero(&set);
        for (unsigned c = 0; c < CPU_SETSIZE; c++)
                if (CPU_ISSET(c, &mask))
                        cpuset_add(&set, c);
        *ret = cpuset_format_list(&set);
        return *ret ? 0 : -ENOMEM;
}

typedef struct ThreadPlace {
        uint32_t napi_id;
        NapiThreadLookup lookup;
        void *userdata;
        cpu_set_t mask;
} ThreadPlace;

/* The instance's thread, looked up afresh, is pid. */
static int thread_is_it(int pid, void *userdata) {
        ThreadPlace *t = userdata;
        int now = -1, r = t->lookup(t->userdata, t->napi_id, &now);

        if (r == -ENOENT)
                return 0;
        return r < 0 ? r : now == pid;
}

static int thread_set_affinity(int pid, void *userdata) {
        ThreadPlace *t = userdata;

        /* EINVAL: none of them online or allowed; the kernel leaves the thread where it was. */
        if (sched_setaffinity(pid, sizeof(t->mask), &t->mask) < 0)
                return errno == ESRCH ? -ENOENT : negative_errno();
        return 0;
}

int napi_thread_place(uint32_t napi_id, const char *value, NapiThreadLookup lookup, void *userdata) {
        ThreadPlace t = { .napi_id = napi_id, .lookup = lookup, .userdata = userdata };
        CpuSet set;
        int pid = -1, r;

        if (cpuset_parse_list(value, &set, NULL) < 0 || cpuset_is_empty(&set) || cpuset_last(&set) >= CPU_SETSIZE)
                return -EINVAL;
        CPU_ZERO(&t.mask);
        for (unsigned c = 0; c < CPU_SETSIZE; c++)
                if (cpuset_has(&set, c))
                        CPU_SET(c, &t.mask);
        r = lookup(userdata, napi_id, &pid);
        if (r < 0)
                return r;
        /* The thread may end and its pid go to another task before the write: never place that one. */
        r = pid_act_confirmed(pid, thread_is_it, thread_set_affinity, &t);
        return r == -ESRCH ? -ENOENT : r;
}

static int backend_genl(NapiBackend *b, NetdevGenl **ret) {
        if (!b->genl && b->open_error == 0) {
                int r = netdev_genl_open(&b->genl, 0);
                if (r < 0)
                        b->open_error = r;
        }
        *ret = b->genl;
        return b->genl ? 0 : b->open_error;
}

/* The instance behind t and which of its values t is. */
static int backend_get(NapiBackend *b, const Target *t, NapiInfo *ret, NapiKnob *ret_knob) {
        NetdevGenl *g;
        uint32_t id;
        int r;

        r = parse_key(t->key, &id, ret_knob);
        if (r < 0)
                return r;
        r = backend_genl(b, &g);
        if (r < 0)
                return r;
        r = netdev_genl_napi_get(g, id, ret);
        return r == -ENODEV ? -ENOENT : r;
}

static int backend_read(void *userdata, const Target *t, char **ret) {
        NapiInfo info;
        NapiKnob k;
        int r = backend_get(userdata, t, &info, &k);

        if (r < 0)
                return r;
        if (k == KNOB_THREAD_CPUS)
                return napi_thread_cpus(info.pid, ret);
        if (!info.has[k])
                return -EOPNOTSUPP;
        return asprintf(ret, "%" PRIu64, info.value[k]) < 0 ? -ENOMEM : 0;
}

/* napi-get's pid of the instance's kernel thread; -ENOENT when it has none or is gone. */
static int thread_lookup(void *userdata, uint32_t napi_id, int *ret_pid) {
        NetdevGenl *g;
        NapiInfo info;
        int r = backend_genl(userdata, &g);

        if (r < 0)
                return r;
        r = netdev_genl_napi_get(g, napi_id, &info);
        if (r < 0)
                return r == -ENODEV ? -ENOENT : r;
        if (info.pid <= 0)
                return -ENOENT;
        *ret_pid = info.pid;
        return 0;
}

static int backend_write(void *userdata, const Target *t, const char *value) {
        NetdevGenl *g;
        uint32_t id;
        NapiKnob k;
        char *end;
        int r;

        r = parse_key(t->key, &id, &k);
        if (r < 0)
                return r;
        if (k == KNOB_THREAD_CPUS)
                return napi_thread_place(id, value, thread_lookup, userdata);
        errno = 0;
        unsigned long long v = strtoull(value, &end, 10);
        if (errno || *end || !(*value >= '0' && *value <= '9'))
                return -EINVAL;
        r = backend_genl(userdata, &g);
        if (r < 0)
                return r;
        r = netdev_genl_napi_set(g, id, k, v);
        return r == -ENODEV ? -ENOENT : r;
}

static int backend_ifindex(void *userdata, const Target *t) {
        NapiInfo info;
        NapiKnob k;
        int r = backend_get(userdata, t, &info, &k);

        return r < 0 ? r : info.ifindex;
}

static int source_list(void *userdata, const char *device, uint32_t **ret_ids, size_t *ret_n) {
        _cleanup_(freep) NapiInfo *napis = NULL;
        NetdevGenl *g;
        uint32_t *ids;
        size_t n = 0;
        int r, ifindex;

        r = backend_genl(userdata, &g);
        if (r < 0)
                return r;
        ifindex = netdev_genl_ifindex(g, device);
        if (ifindex < 0)
                return ifindex;
        r = netdev_genl_napis(g, ifindex, &napis, &n);
        if (r < 0)
                return r;
        ids = calloc(n ? n : 1, sizeof(uint32_t));
        if (!ids)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++)
                ids[i] = napis[i].id;
        *ret_ids = ids;
        *ret_n = n;
        return 0;
}

static int source_read(void *userdata, uint32_t napi_id, const char *knob, uint64_t *ret) {
        NetdevGenl *g;
        NapiInfo info;
        NapiKnob k;
        int r;

        if (napi_knob_from_string(knob, &k) < 0)
                return -EINVAL;
        r = backend_genl(userdata, &g);
        if (r < 0)
                return r;
        r = netdev_genl_napi_get(g, napi_id, &info);
        if (r < 0)
                return r == -ENODEV ? -ENOENT : r;
        if (!info.has[k])
                return -EOPNOTSUPP;
        *ret = info.value[k];
        return 0;
}

int napi_backend_new(NapiBackend **ret) {
        NapiBackend *b = calloc(1, sizeof(NapiBackend));

        if (!b)
                return -ENOMEM;
        b->ops = (TargetBackend){
                .read = backend_read,
                .write = backend_write,
                .ifindex = backend_ifindex,
                .userdata = b,
        };
        b->knobs = (KnobNapiSource){
                .list = source_list,
                .read = source_read,
                .userdata = b,
        };
        *ret = b;
        return 0;
}

NapiBackend *napi_backend_free(NapiBackend *b) {
        if (!b)
                return NULL;
        netdev_genl_free(b->genl);
        free(b);
        return NULL;
}

const TargetBackend *napi_backend_ops(NapiBackend *b) {
        return &b->ops;
}

const KnobNapiSource *napi_backend_knob_source(NapiBackend *b) {
        return &b->knobs;
}
