/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * knob.c: the knob catalog as one table, knob references, value parsing and
 * formatting, and the sysroot-relative kernel file access (discovery and
 * reads; every write goes through the owner).
 */
#include "knob.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "macro.h"
#include "strv.h"
#include "sysroot.h"
#include "units.h"

#define PATCH_0001 "0001-net-busy_poll-add-busy_loop_threshold-sysctl.patch"
#define PATCH_0003 "0003-softirq-Make-time-budget-and-restart-limit-sysctls.patch"
#define PATCH_0004 "0004-net-make-NAPI-skb-cache-size-and-bulk-sysctls.patch"

/*
 * The one place each knob is described: netpolld's parsing and checks, ListKnobs,
 * netpollctl (which gets all of it over D-Bus) and the knob tables of
 * netpolld.conf(5) and docs/dbus.md (netpolld --dump-catalog, checked by
 * tests/check-catalog-docs.sh) all come from here.
 */
static const char *const napi_threaded_values[] = { "disabled", "enabled", "busy-poll", NULL };

const KnobDesc knob_catalog[_KNOB_ID_MAX] = {
        [KNOB_ID_BUSY_READ] = {
                .name = "busy-read",
                .scope = KNOB_GLOBAL,
                .path = "/proc/sys/net/core/busy_read",
                .type = KNOB_TIME,
                .unit_ns = NSEC_PER_USEC,
                .unit = "us",
                .min = 0,
                .max = INT_MAX,
                .summary = "microseconds a blocking socket read busy-polls the device queue before sleeping",
        },
        [KNOB_ID_BUSY_POLL] = {
                .name = "busy-poll",
                .scope = KNOB_GLOBAL,
                .path = "/proc/sys/net/core/busy_poll",
                .type = KNOB_TIME,
                .unit_ns = NSEC_PER_USEC,
                .unit = "us",
                .min = 0,
                .max = INT_MAX,
                .summary = "microseconds poll() and select() busy-poll device queues before sleeping",
        },
        [KNOB_ID_BUSY_LOOP_THRESHOLD] = {
                .name = "busy-loop-threshold",
                .scope = KNOB_GLOBAL,
                .path = "/proc/sys/net/core/busy_loop_threshold",
                .type = KNOB_COUNT,
                .unit = "tasks",
                .min = 0,
                .max = INT_MAX,
                .patch = PATCH_0001,
                .summary = "tasks waiting for the CPU that end a busy-poll loop early (0 = off)",
        },
        [KNOB_ID_SOFTIRQ_BUDGET] = {
                .name = "softirq-budget",
                .scope = KNOB_GLOBAL,
                .path = "/proc/sys/kernel/softirq_budget_usecs",
                .type = KNOB_TIME,
                .unit_ns = NSEC_PER_USEC,
                .unit = "us",
                /* The patched kernel bounds the run by its clock, not by jiffies: it
                 * takes exactly 100..100000 at any HZ, unrounded (default 2000). */
                .min = 100,
                .max = 100000,
                .patch = PATCH_0003,
                .summary = "microseconds softirq processing may run before deferring to ksoftirqd",
        },
        [KNOB_ID_SOFTIRQ_RESTARTS] = {
                .name = "softirq-restarts",
                .scope = KNOB_GLOBAL,
                .path = "/proc/sys/kernel/softirq_max_restart",
                .type = KNOB_COUNT,
                .unit = "restarts",
                .min = 1,
                .max = 1000,
                .patch = PATCH_0003,
                .summary = "times softirq processing restarts before deferring to ksoftirqd",
        },
        [KNOB_ID_NETDEV_BUDGET] = {
                .name = "netdev-budget",
                .scope = KNOB_GLOBAL,
                .path = "/proc/sys/net/core/netdev_budget",
                .type = KNOB_COUNT,
                .unit = "packets",
                .min = 1,
                .max = INT_MAX,
                .summary = "packets one NET_RX softirq run may process across all devices",
        },
        [KNOB_ID_NETDEV_BUDGET_TIME] = {
                .name = "netdev-budget-time",
                .scope = KNOB_GLOBAL,
                .path = "/proc/sys/net/core/netdev_budget_usecs",
                .type = KNOB_TIME,
                .unit_ns = NSEC_PER_USEC,
                .unit = "us",
                .min = 1,
                .max = INT_MAX,
                .summary = "microseconds one NET_RX softirq run may take",
                .kernel_limit = "the kernel refuses values below 2 jiffies (8000us at HZ=250, 2000us at HZ=1000)",
        },
        [KNOB_ID_DEV_WEIGHT] = {
                .name = "dev-weight",
                .scope = KNOB_GLOBAL,
                .path = "/proc/sys/net/core/dev_weight",
                .type = KNOB_COUNT,
                .unit = "packets",
                .min = 1,
                .max = INT_MAX,
                .summary = "packets one NAPI poll of a backlog device may process",
        },
        [KNOB_ID_NETDEV_MAX_BACKLOG] = {
                .name = "netdev-max-backlog",
                .scope = KNOB_GLOBAL,
                .path = "/proc/sys/net/core/netdev_max_backlog",
                .type = KNOB_COUNT,
                .unit = "packets",
                .min = 1,
                .max = INT_MAX,
                .summary = "packets queued per CPU when the interface receives faster than the kernel processes",
        },
        [KNOB_ID_NAPI_SKB_CACHE_SIZE] = {
                .name = "napi-skb-cache-size",
                .scope = KNOB_GLOBAL,
                .path = "/proc/sys/net/core/napi_skb_cache_size",
                .type = KNOB_COUNT,
                .unit = "skbs",
                .min = 2,
                .max = 128,
                .patch = PATCH_0004,
                .kernel_limit = "never more than the kernel's own cache holds (64 before Linux 6.19)",
                .summary = "socket buffers (skbs) kept in the per-CPU NAPI cache for reuse",
        },
        [KNOB_ID_NAPI_SKB_CACHE_BULK] = {
                .name = "napi-skb-cache-bulk",
                .scope = KNOB_GLOBAL,
                .path = "/proc/sys/net/core/napi_skb_cache_bulk",
                .type = KNOB_COUNT,
                .unit = "skbs",
                .min = 1,
                .max = 64,
                .patch = PATCH_0004,
                .kernel_limit = "never more than half of what the kernel's own cache holds (32 before Linux 6.19)",
                .summary = "socket buffers allocated at once when the NAPI cache runs empty (at most half of "
                           "napi-skb-cache-size is used)",
        },
        [KNOB_ID_NAPI_DEFER_HARD_IRQS] = {
                .name = "napi-defer-hard-irqs",
                .scope = KNOB_DEVICE,
                .path = "/sys/class/net/%s/napi_defer_hard_irqs",
                .type = KNOB_COUNT,
                .unit = "",
                .min = 0,
                .max = INT32_MAX,
                .summary = "empty NAPI polls before the device's hard interrupts are enabled again",
        },
        [KNOB_ID_GRO_FLUSH_TIMEOUT] = {
                .name = "gro-flush-timeout",
                .scope = KNOB_DEVICE,
                .path = "/sys/class/net/%s/gro_flush_timeout",
                .type = KNOB_TIME,
                .unit_ns = 1,
                .unit = "ns",
                .min = 0,
                .max = INT64_MAX,
                .summary = "nanoseconds the device defers GRO flush and interrupts after a poll (0 = off)",
        },
        [KNOB_ID_IRQ_SUSPEND_TIMEOUT] = {
                .name = "irq-suspend-timeout",
                .scope = KNOB_NAPIS,
                .path = "irq-suspend-timeout",
                .type = KNOB_TIME,
                .unit_ns = 1,
                .unit = "ns",
                .min = 0,
                .max = INT64_MAX,
                .kernel = "Linux 6.13",
                .summary = "nanoseconds the device's interrupts stay suspended while an epoll application that "
                           "prefers busy polling polls it (0 = off)",
        },
        [KNOB_ID_NAPI_THREADED] = {
                .name = "napi-threaded",
                .scope = KNOB_NAPIS,
                .path = "napi-threaded",
                /* Per instance (netdev `threaded`) from 6.17; 6.12's instances lack it, and there the
                 * device file does disabled and enabled (it never takes busy-poll, not even on 7.2). */
                .device_file = "/sys/class/net/%s/threaded",
                .device_file_max = 1,
                .type = KNOB_ENUM,
                .values = napi_threaded_values,
                .unit = "",
                .min = 0,
                .max = 2,
                .kernel = "Linux 6.17",
                .kernel_limit = "busy-poll needs Linux after 6.18 (7.2 has it; 6.18 refuses it with ERANGE)",
                .summary = "where the device's NAPI instances poll: disabled (softirq), enabled (a kernel thread "
                           "each) or busy-poll (a kernel thread each that polls without waiting for interrupts)",
        },
        [KNOB_ID_RPS_CPUS] = {
                .name = "rps-cpus",
                .scope = KNOB_RX_QUEUES,
                .path = "rps_cpus",
                .type = KNOB_CPUSET,
                .unit = "cpus",
                .summary = "CPUs that receive packet steering hands the device's received packets to",
        },
        [KNOB_ID_XPS_CPUS] = {
                .name = "xps-cpus",
                .scope = KNOB_TX_QUEUES,
                .path = "xps_cpus",
                .type = KNOB_CPUSET,
                .unit = "cpus",
                .summary = "CPUs whose transmissions use each of the device's tx queues",
        },
};
const size_t knob_catalog_size = ELEMENTSOF(knob_catalog);

static void set_reason(const char **ret_reason, const char *reason) {
        if (ret_reason)
                *ret_reason = reason;
}

/* Looks a name up by (pointer, length) so "NAME@DEV" needs no copy. */
static const KnobDesc *find_n(const char *name, size_t len) {
        for (size_t i = 0; i < knob_catalog_size; i++)
                if (strlen(knob_catalog[i].name) == len && strncmp(knob_catalog[i].name, name, len) == 0)
                        return &knob_catalog[i];
        return NULL;
}

const KnobDesc *knob_find(const char *name) {
        return name ? find_n(name, strlen(name)) : NULL;
}

#define BAD_DEVICE "invalid device name: expected 1-15 characters without '/', ':' or spaces"

int knob_name_parse(const char *s, KnobName *ret, const char **ret_reason) {
        const char *at, *colon, *inst;
        KnobName n = {};
        size_t len;

        if (!s || !*s) {
                set_reason(ret_reason, "empty name");
                return -EINVAL;
        }
        at = strchr(s, '@');
        len = at ? (size_t)(at - s) : strlen(s);
        if (len == 0 || len >= sizeof(n.knob) || memchr(s, ':', len)) {
                set_reason(ret_reason, "expected KNOB, KNOB@DEVICE or KNOB@DEVICE:INSTANCE");
                return -EINVAL;
        }
        memcpy(n.knob, s, len);
        if (at) {
                /* ifname_valid() refuses ':', so the first one ends the device. */
                colon = strchr(at + 1, ':');
                len = colon ? (size_t)(colon - at - 1) : strlen(at + 1);
                if (len >= sizeof(n.device)) {
                        set_reason(ret_reason, BAD_DEVICE);
                        return -EINVAL;
                }
                memcpy(n.device, at + 1, len);
                if (!ifname_valid(n.device)) {
                        set_reason(ret_reason, BAD_DEVICE);
                        return -EINVAL;
                }
                if (colon) {
                        inst = colon + 1;
                        n.instance = true;
                        if (startswith(inst, "napi-")) {
                                uint64_t id;
                                if (parse_u64_range(inst + 5, 1, UINT32_MAX, &id, NULL) < 0) {
                                        set_reason(ret_reason, "expected a NAPI id (a number from 1) after napi-");
                                        return -EINVAL;
                                }
                                n.napi_id = (uint32_t)id;
                        } else if (queue_name_parse(inst, &n.kind, &n.index) < 0) {
                                set_reason(ret_reason, "expected napi-ID, rx-N, tx-N or combined-N after the device");
                                return -EINVAL;
                        }
                }
        }
        *ret = n;
        return 0;
}

char *knob_name_format(const KnobName *n, char *buf, size_t size) {
        if (!n->device[0])
                snprintf(buf, size, "%s", n->knob);
        else if (!n->instance)
                snprintf(buf, size, "%s@%s", n->knob, n->device);
        else if (n->napi_id)
                snprintf(buf, size, "%s@%s:napi-%" PRIu32, n->knob, n->device, n->napi_id);
        else
                snprintf(buf, size, "%s@%s:%s-%u", n->knob, n->device, strempty(queue_kind_to_string(n->kind)),
                         n->index);
        return buf;
}

int knob_ref_parse(const char *s, KnobRef *ret, const char **ret_reason) {
        const KnobDesc *d;
        const char *at;
        KnobName n;
        KnobRef r = {};
        int e;

        if (!s) {
                set_reason(ret_reason, "unknown knob");
                return -ENOENT;
        }
        at = strchr(s, '@');
        d = find_n(s, at ? (size_t)(at - s) : strlen(s));
        if (!d) {
                set_reason(ret_reason, "unknown knob");
                return -ENOENT;
        }
        if (d->scope == KNOB_GLOBAL && at) {
                set_reason(ret_reason, "is global and takes no @device");
                return -EINVAL;
        }
        if (d->scope != KNOB_GLOBAL && !at) {
                set_reason(ret_reason, "is per device: write NAME@DEVICE");
                return -EINVAL;
        }
        e = knob_name_parse(s, &n, ret_reason);
        if (e < 0)
                return e;
        if (n.instance) {
                set_reason(ret_reason, "names one queue or NAPI instance: write NAME@DEVICE here");
                return -EINVAL;
        }
        /* ifname_valid() caps the length at 15, so this always fits. */
        memcpy(r.device, n.device, sizeof(r.device));
        r.desc = d;
        *ret = r;
        return 0;
}

char *knob_ref_format(const KnobRef *r, char *buf, size_t size) {
        if (r->device[0])
                snprintf(buf, size, "%s@%s", r->desc->name, r->device);
        else
                snprintf(buf, size, "%s", r->desc->name);
        return buf;
}

/* A name of d->values, or its index as the kernel shows it (profiles written for the sysfs file's 0/1). */
static int parse_enum(const KnobDesc *d, const char *s, uint64_t *ret, const char **ret_reason) {
        for (uint64_t i = 0; s && d->values[i]; i++)
                if (streq(s, d->values[i])) {
                        *ret = i;
                        return 0;
                }
        if (s && *s && strspn(s, "0123456789") == strlen(s))
                return parse_u64(s, ret, ret_reason);
        set_reason(ret_reason, "not one of the names");
        return -EINVAL;
}

int knob_parse_value(const KnobDesc *d, const char *s, KnobValue *ret, const char **ret_reason) {
        KnobValue v = {};
        int r;

        switch (d->type) {
        case KNOB_TIME:
                r = parse_time(s, d->unit_ns, &v.num, ret_reason);
                break;
        case KNOB_COUNT:
                r = parse_u64(s, &v.num, ret_reason);
                break;
        case KNOB_CPUSET:
                r = cpuset_parse_list(s, &v.cpus, ret_reason);
                break;
        case KNOB_ENUM:
                r = parse_enum(d, s, &v.num, ret_reason);
                break;
        default:
                set_reason(ret_reason, "internal error: unknown knob type");
                return -EINVAL;
        }
        if (r < 0)
                return r;
        if (d->type != KNOB_CPUSET && (v.num < d->min || v.num > d->max)) {
                set_reason(ret_reason, "out of range");
                return -ERANGE;
        }
        *ret = v;
        return 0;
}

char *knob_expected(const KnobDesc *d) {
        char lo[32], hi[32];
        char *s = NULL;
        int r;

        switch (d->type) {
        case KNOB_TIME:
                r = asprintf(&s, "a time such as 50us or 2ms (a bare number is %s), from %s to %s",
                             time_unit_name(d->unit_ns), format_time(lo, sizeof(lo), d->min, d->unit_ns),
                             format_time(hi, sizeof(hi), d->max, d->unit_ns));
                break;
        case KNOB_COUNT:
                r = asprintf(&s, "a whole number%s%s from %" PRIu64 " to %" PRIu64, d->unit[0] ? " of " : "",
                             d->unit, d->min, d->max);
                break;
        case KNOB_CPUSET:
                return strdup("a CPU list such as 0-3,8, or none");
        case KNOB_ENUM: {
                _cleanup_(freep) char *names = strv_join((char **)d->values, ", ");
                if (!names)
                        return NULL;
                r = asprintf(&s, "one of %s", names);
                break;
        }
        default:
                return NULL;
        }
        return r < 0 ? NULL : s;
}

char *knob_format_value(const KnobDesc *d, const KnobValue *v) {
        char buf[32];

        switch (d->type) {
        case KNOB_TIME:
                return strdup(format_time(buf, sizeof(buf), v->num, d->unit_ns));
        case KNOB_COUNT:
                snprintf(buf, sizeof(buf), "%" PRIu64, v->num);
                return strdup(buf);
        case KNOB_CPUSET:
                return cpuset_format_list(&v->cpus);
        case KNOB_ENUM:
                if (v->num <= d->max)
                        return strdup(d->values[v->num]);
                snprintf(buf, sizeof(buf), "%" PRIu64, v->num); /* a mode newer than netpolld */
                return strdup(buf);
        }
        return NULL;
}

bool knob_value_equal(const KnobDesc *d, const KnobValue *a, const KnobValue *b) {
        if (d->type == KNOB_CPUSET)
                return cpuset_equal(&a->cpus, &b->cpus);
        return a->num == b->num;
}

int knob_parse_kernel(const KnobDesc *d, const char *text, KnobValue *ret) {
        KnobValue v = {};

        if (!text)
                return -EBADMSG;
        if (d->type == KNOB_CPUSET) {
                if (cpuset_parse_mask(text, &v.cpus, NULL) < 0)
                        return -EBADMSG;
        } else {
                /* The kernel prints these as plain non-negative decimals; anything else is not ours to guess. */
                if (!*text || strspn(text, "0123456789") != strlen(text))
                        return -EBADMSG;
                if (parse_u64(text, &v.num, NULL) < 0)
                        return -EBADMSG;
        }
        *ret = v;
        return 0;
}

char *knob_format_kernel(const KnobDesc *d, const KnobValue *v) {
        char buf[32];

        if (d->type == KNOB_CPUSET) {
                int last = cpuset_last(&v->cpus);
                return cpuset_format_mask(&v->cpus, last < 0 ? 1 : (unsigned)last + 1);
        }
        snprintf(buf, sizeof(buf), "%" PRIu64, v->num);
        return strdup(buf);
}

/* 0 when root/path exists, -ENOENT when it does not, else the stat errno. */
static int sysroot_exists(const char *sysroot, const char *path) {
        _cleanup_(freep) char *full = NULL;
        struct stat st;
        int r;

        r = sysroot_path(sysroot, path, &full);
        if (r < 0)
                return r;
        if (stat(full, &st) < 0)
                return negative_errno();
        return 0;
}

/* The template's single %s replaced by dev; done by hand so no format string comes from data. */
static char *expand_template(const char *tmpl, const char *dev) {
        const char *pct = strstr(tmpl, "%s");
        char *s = NULL;

        if (!pct)
                return NULL;
        if (asprintf(&s, "%.*s%s%s", (int)(pct - tmpl), tmpl, dev, pct + 2) < 0)
                return NULL;
        return s;
}

/* Number N of a queue directory "rx-N" / "tx-N", or -1 for anything else. */
static long queue_number(const char *name) {
        const char *p = name + 3;

        if (!startswith(name, "rx-") && !startswith(name, "tx-"))
                return -1;
        if (!*p || strlen(p) > 9 || strspn(p, "0123456789") != strlen(p))
                return -1;
        return strtol(p, NULL, 10);
}

static int rx_queue_filter(const struct dirent *de) {
        return startswith(de->d_name, "rx-") && queue_number(de->d_name) >= 0;
}

static int tx_queue_filter(const struct dirent *de) {
        return startswith(de->d_name, "tx-") && queue_number(de->d_name) >= 0;
}

/* Numeric order: rx-2 before rx-10. */
static int queue_cmp(const struct dirent **a, const struct dirent **b) {
        long x = queue_number((*a)->d_name), y = queue_number((*b)->d_name);
        return x < y ? -1 : x > y;
}

static int queue_paths(const KnobRef *r, const char *sysroot, char ***ret) {
        _cleanup_(freep) char *qdir = NULL, *full = NULL;
        _cleanup_(strv_freep) char **l = NULL;
        struct dirent **de = NULL;
        int n, res;

        if (asprintf(&qdir, "/sys/class/net/%s/queues", r->device) < 0)
                return -ENOMEM;
        res = sysroot_path(sysroot, qdir, &full);
        if (res < 0)
                return res;
        n = scandir(full, &de, r->desc->scope == KNOB_RX_QUEUES ? rx_queue_filter : tx_queue_filter, queue_cmp);
        if (n < 0)
                return errno == ENOENT ? -EOPNOTSUPP : negative_errno();
        /* No queue in this direction means there is nothing to steer: the knob is absent. */
        res = n == 0 ? -EOPNOTSUPP : 0;
        l = calloc((size_t)n + 1, sizeof(char *));
        if (!l)
                res = -ENOMEM;
        for (int i = 0; i < n; i++) {
                if (res >= 0 && asprintf(&l[i], "%s/%s/%s", qdir, de[i]->d_name, r->desc->path) < 0) {
                        l[i] = NULL;
                        res = -ENOMEM;
                }
                if (res >= 0) {
                        int e = sysroot_exists(sysroot, l[i]);
                        if (e < 0)
                                res = e == -ENOENT ? -EOPNOTSUPP : e;
                }
                free(de[i]);
        }
        free(de);
        if (res < 0)
                return res;
        *ret = TAKE_PTR(l);
        return 0;
}

static const KnobNapiSource *napi_source;

void knob_set_napi_source(const KnobNapiSource *src) {
        napi_source = src;
}

static int cmp_id(const void *a, const void *b) {
        uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
        return x < y ? -1 : x > y;
}

/* "napi-ID" for every NAPI instance of the device, sorted. */
static int napi_names(const KnobRef *r, char ***ret) {
        _cleanup_(freep) uint32_t *ids = NULL;
        _cleanup_(strv_freep) char **l = NULL;
        size_t n = 0;
        int e;

        if (!napi_source)
                return -EOPNOTSUPP;
        e = napi_source->list(napi_source->userdata, r->device, &ids, &n);
        if (e < 0)
                return e;
        /* No instance (veth with GRO off): nothing the knob could act on. */
        if (n == 0)
                return -EOPNOTSUPP;
        qsort(ids, n, sizeof(uint32_t), cmp_id);
        /* Instances of a kernel that lacks this value (6.12's have no irq-suspend-timeout, 6.18's
         * threads no busy-poll mode): the knob is absent. One instance speaks for the device. */
        for (size_t i = 0; i < n; i++) {
                uint64_t v;
                e = napi_source->read(napi_source->userdata, ids[i], r->desc->path, &v);
                if (e == -ENOENT)
                        continue; /* gone since it was listed */
                if (e < 0)
                        return e;
                break;
        }
        l = calloc(n + 1, sizeof(char *));
        if (!l)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++)
                if (asprintf(&l[i], "napi-%" PRIu32, ids[i]) < 0) {
                        l[i] = NULL;
                        return -ENOMEM;
                }
        *ret = TAKE_PTR(l);
        return 0;
}

int knob_paths(const KnobRef *r, const char *sysroot, char ***ret) {
        const KnobDesc *d = r->desc;
        _cleanup_(freep) char *devdir = NULL, *path = NULL;
        char **l;
        int e;

        if (d->scope != KNOB_GLOBAL) {
                if (!ifname_valid(r->device))
                        return -EINVAL;
                if (asprintf(&devdir, "/sys/class/net/%s", r->device) < 0)
                        return -ENOMEM;
                e = sysroot_exists(sysroot, devdir);
                if (e < 0)
                        return e == -ENOENT ? -ENODEV : e;
                if (d->scope == KNOB_NAPIS) {
                        e = napi_names(r, ret);
                        if (e != -EOPNOTSUPP || !d->device_file)
                                return e;
                        path = expand_template(d->device_file, r->device);
                } else if (d->scope != KNOB_DEVICE)
                        return queue_paths(r, sysroot, ret);
                else
                        path = expand_template(d->path, r->device);
        } else
                path = strdup(d->path);
        if (!path)
                return -ENOMEM;
        e = sysroot_exists(sysroot, path);
        if (e < 0)
                return e == -ENOENT ? -EOPNOTSUPP : e;
        l = calloc(2, sizeof(char *));
        if (!l)
                return -ENOMEM;
        l[0] = TAKE_PTR(path);
        *ret = l;
        return 0;
}

int knob_supported(const KnobRef *r, const char *sysroot) {
        _cleanup_(strv_freep) char **l = NULL;
        int e = knob_paths(r, sysroot, &l);

        if (e == -EOPNOTSUPP)
                return 0;
        return e < 0 ? e : 1;
}

/* Reads one kernel file; absence and emptiness are mapped to the knob errors. */
static int read_one(const KnobDesc *d, const char *sysroot, const char *path, KnobValue *ret) {
        _cleanup_(freep) char *text = NULL;
        int r;

        r = sysroot_read_value(sysroot, path, &text);
        if (r == -ENOENT)
                return -EOPNOTSUPP;
        if (r == -ENODATA)
                return -EBADMSG;
        if (r < 0)
                return r;
        return knob_parse_kernel(d, text, ret);
}

/*
 * Reads every path; *ret is the union (queue knobs) or the single value.
 * Returns 1 when the files differ from each other, or from *want when given.
 */
static int read_paths(const KnobDesc *d, const char *sysroot, char **paths, const KnobValue *want, KnobValue *ret) {
        KnobValue acc = {}, one;
        bool differ = false;
        int r;

        for (size_t i = 0; paths[i]; i++) {
                r = read_one(d, sysroot, paths[i], &one);
                if (r < 0)
                        return r;
                if (want ? !knob_value_equal(d, want, &one) : i > 0 && !knob_value_equal(d, &acc, &one))
                        differ = true;
                if (d->type == KNOB_CPUSET)
                        for (size_t w = 0; w < ELEMENTSOF(acc.cpus.bits); w++)
                                acc.cpus.bits[w] |= one.cpus.bits[w];
                else
                        acc.num = one.num;
        }
        *ret = acc;
        return differ;
}

/* Every instance's value; the last one in *ret, 1 when they differ. */
static int read_napis(const KnobDesc *d, char **names, KnobValue *ret) {
        KnobValue acc = {};
        bool differ = false, have = false;

        for (size_t i = 0; names[i]; i++) {
                unsigned long id = strtoul(names[i] + strlen("napi-"), NULL, 10);
                uint64_t v;
                int r = napi_source->read(napi_source->userdata, (uint32_t)id, d->path, &v);
                if (r == -ENOENT)
                        continue; /* gone since it was listed */
                if (r < 0)
                        return r;
                if (have && acc.num != v)
                        differ = true;
                acc.num = v;
                have = true;
        }
        if (!have)
                return -EOPNOTSUPP;
        *ret = acc;
        return differ;
}

int knob_read(const KnobRef *r, const char *sysroot, KnobValue *ret) {
        _cleanup_(strv_freep) char **paths = NULL;
        int e;

        e = knob_paths(r, sysroot, &paths);
        if (e < 0)
                return e;
        if (knob_path_is_napi(paths[0]))
                return read_napis(r->desc, paths, ret);
        return read_paths(r->desc, sysroot, paths, NULL, ret);
}

/* "the patched kernel accepts 100us to 100000us[, and LIMIT]", "LIMIT", or NULL; into buf. */
static const char *build_refusal_hint(const KnobDesc *d, char *buf, size_t size) {
        char lo[32], hi[32];

        if (!d->patch || d->type == KNOB_CPUSET)
                return d->kernel_limit;
        if (d->type == KNOB_TIME) {
                format_time(lo, sizeof(lo), d->min, d->unit_ns);
                format_time(hi, sizeof(hi), d->max, d->unit_ns);
        } else {
                snprintf(lo, sizeof(lo), "%" PRIu64, d->min);
                snprintf(hi, sizeof(hi), "%" PRIu64 "%s%s", d->max, d->unit[0] ? " " : "", d->unit);
        }
        /* A patched sysctl: the range the netpolld patch gives it (the catalog's), then any further limit. */
        snprintf(buf, size, "the patched kernel accepts %s to %s%s%s", lo, hi, d->kernel_limit ? ", and " : "",
                 strempty(d->kernel_limit));
        return buf;
}

const char *knob_refusal_hint(const KnobDesc *d) {
        static char hints[_KNOB_ID_MAX][192];
        uintptr_t p = (uintptr_t)d, base = (uintptr_t)knob_catalog;
        size_t i;

        /* Descriptions outside the catalog (per-NAPI, napi.c) name no patch: nothing to build. */
        if (p < base || p >= base + sizeof(knob_catalog))
                return d->patch ? NULL : d->kernel_limit;
        i = (p - base) / sizeof(KnobDesc);
        if (!hints[i][0])
                return build_refusal_hint(d, hints[i], sizeof(hints[i]));
        return hints[i];
}

bool knob_path_is_napi(const char *path) {
        return path && startswith(path, "napi-");
}

bool knob_device_file_refuses(const KnobDesc *d, const char *path, const KnobValue *v) {
        const char *pct, *rest;
        size_t plen, slen;

        if (!d->device_file || !path || d->type == KNOB_CPUSET || v->num <= d->device_file_max)
                return false;
        pct = strstr(d->device_file, "%s");
        if (!pct)
                return false;
        plen = (size_t)(pct - d->device_file);
        slen = strlen(pct + 2);
        rest = path + plen;
        return strncmp(path, d->device_file, plen) == 0 && strlen(rest) > slen &&
               streq(rest + strlen(rest) - slen, pct + 2);
}

const char *knob_needs(const KnobDesc *d) {
        return d->patch ? d->patch : strempty(d->kernel);
}
