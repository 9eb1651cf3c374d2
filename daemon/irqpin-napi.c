/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * irqpin-napi.c: per-NAPI knobs through napi-set/napi-get. The instance's
 * original value goes into the restore journal ("napi:NETNS:ID:KNOB",
 * journal.h) before its first change; the journal is the only record of
 * it, so a stop, a reset and the replay after a crash all find it there.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "irqpin-internal.h"
#include "log.h"

/* Our own socket for our own namespace; a fresh one in another namespace (*ret_own set). */
static int open_genl(IrqPin *p, const char *netns, NetdevGenl **ret, NetdevGenl **ret_own) {
        int r;

        *ret_own = NULL;
        if (!netns) {
                if (!p->genl)
                        return -EOPNOTSUPP;
                *ret = p->genl;
                return 0;
        }
        r = netdev_genl_open(ret_own, netns, p->genl_family);
        if (r < 0)
                return r;
        *ret = *ret_own;
        return 0;
}

/* The NAPI instance ref means, checked to belong to ref->device in g's namespace. */
static int resolve(NetdevGenl *g, const NapiRef *ref, NapiInfo *ret) {
        uint32_t id = ref->napi_id;
        int ifindex, r;

        ifindex = netdev_genl_ifindex(g, ref->device);
        if (ifindex < 0)
                return ifindex;
        if (id == 0) {
                r = netdev_genl_queue_napi(g, ifindex, ref->kind, ref->index, &id);
                if (r == -EINVAL)
                        return -ENOENT; /* no such queue (the kernel checked the range) */
                if (r < 0)
                        return r;
                if (id == 0)
                        return -ENOENT;
        }
        r = netdev_genl_napi_get(g, id, ret);
        if (r < 0)
                return r;
        return ret->ifindex == ifindex ? 0 : -ENOENT;
}

/* The netlink socket for netns (*ret_own when opened here) and the instance ref names, which must have the knob. */
static int open_instance(IrqPin *p, const char *netns, const NapiRef *ref, NetdevGenl **ret, NetdevGenl **ret_own,
                         NapiInfo *ret_info) {
        int r;

        r = open_genl(p, netns, ret, ret_own);
        if (r < 0)
                return r;
        r = resolve(*ret, ref, ret_info);
        if (r < 0)
                return r;
        return ret_info->has[ref->knob] ? 0 : -EOPNOTSUPP;
}

int irqpin_napi_get(IrqPin *p, const char *netns, const NapiRef *ref, uint64_t *ret_value, uint32_t *ret_napi_id) {
        _cleanup_(netdev_genl_freep) NetdevGenl *own = NULL;
        NetdevGenl *g;
        NapiInfo info;
        int r;

        if (!p || !ref || ref->knob >= _NAPI_KNOB_MAX || !ret_value)
                return -EINVAL;
        r = open_instance(p, netns, ref, &g, &own, &info);
        if (r < 0)
                return r;
        *ret_value = info.value[ref->knob];
        if (ret_napi_id)
                *ret_napi_id = info.id;
        return 0;
}

/* The journal path of one instance's knob; caller frees. */
static char *napi_path(const char *netns, uint32_t id, NapiKnob knob) {
        char *path = NULL;

        if (journal_napi_path(netns, id, napi_knob_to_string(knob), &path) < 0)
                return NULL;
        return path;
}

/* A journaled original: plain decimal, as irqpin_napi_set writes it. */
static int parse_original(const char *s, uint64_t *ret) {
        uint64_t v = 0;

        if (!s || !*s || (s[0] == '0' && s[1]))
                return -EINVAL;
        for (; *s; s++) {
                if (*s < '0' || *s > '9' || v > (UINT64_MAX - (uint64_t)(*s - '0')) / 10)
                        return -EINVAL;
                v = v * 10 + (uint64_t)(*s - '0');
        }
        *ret = v;
        return 0;
}

bool irqpin_napi_changed(IrqPin *p, const char *netns, uint32_t napi_id, NapiKnob knob) {
        _cleanup_(freep) char *path = NULL;

        if (!p || !p->journal || knob >= _NAPI_KNOB_MAX)
                return false;
        path = napi_path(netns, napi_id, knob);
        return path && journal_original(p->journal, path);
}

/* Journals the instance's current value as its original unless already journaled; *ret_recorded: newly. */
static int record_original(IrqPin *p, const char *netns, const NapiRef *ref, const NapiInfo *info,
                           char **ret_path, bool *ret_recorded) {
        _cleanup_(freep) char *path = NULL;
        char label[128], value[32];
        int r;

        *ret_recorded = false;
        *ret_path = NULL;
        if (!p->journal)
                return 0; /* nowhere to record (tests), as for files */
        path = napi_path(netns, info->id, ref->knob);
        if (!path)
                return -ENOMEM;
        if (!journal_original(p->journal, path)) {
                snprintf(label, sizeof(label), "%s@%s:napi-%" PRIu32, napi_knob_to_string(ref->knob), ref->device,
                         info->id);
                snprintf(value, sizeof(value), "%" PRIu64, info->value[ref->knob]);
                r = journal_record(p->journal, label, path, value);
                if (r < 0)
                        return r;
                *ret_recorded = true;
        }
        *ret_path = TAKE_PTR(path);
        return 0;
}

int irqpin_napi_set(IrqPin *p, const char *netns, const NapiRef *ref, uint64_t value, uint64_t *ret_readback,
                    uint32_t *ret_napi_id) {
        _cleanup_(netdev_genl_freep) NetdevGenl *own = NULL;
        _cleanup_(freep) char *path = NULL;
        const char *name;
        bool recorded = false;
        NetdevGenl *g;
        NapiInfo info, back;
        int r;

        if (!p || !ref || ref->knob >= _NAPI_KNOB_MAX)
                return -EINVAL;
        name = napi_knob_to_string(ref->knob);
        r = open_instance(p, netns, ref, &g, &own, &info);
        if (r < 0)
                return r;
        if (ret_napi_id)
                *ret_napi_id = info.id;

        if (info.value[ref->knob] != value) {
                /* Journaled (and on disk) before the change, so a crash right after it still restores. */
                r = record_original(p, netns, ref, &info, &path, &recorded);
                if (r < 0)
                        return r;
                r = netdev_genl_napi_set(g, info.id, ref->knob, value);
                if (r < 0) {
                        if (recorded)
                                (void)journal_forget(p->journal, path); /* nothing changed: nothing to restore */
                        return r;
                }
                log_info("%s@%s:napi-%" PRIu32 "%s%s: %" PRIu64 " -> %" PRIu64, name, ref->device, info.id,
                         netns ? " in " : "", strempty(netns), info.value[ref->knob], value);
        }

        r = netdev_genl_napi_get(g, info.id, &back);
        if (r < 0)
                return r;
        if (!back.has[ref->knob] || back.value[ref->knob] != value) {
                if (ret_readback)
                        *ret_readback = back.value[ref->knob];
                return -EDOM;
        }
        return 0;
}

int irqpin_napi_reset(IrqPin *p, const char *netns, const NapiRef *ref, uint64_t *ret_value) {
        _cleanup_(netdev_genl_freep) NetdevGenl *own = NULL;
        _cleanup_(freep) char *path = NULL;
        const char *original;
        uint64_t value;
        NetdevGenl *g;
        NapiInfo info;
        int r;

        if (!p || !ref || ref->knob >= _NAPI_KNOB_MAX || !ret_value)
                return -EINVAL;
        r = open_instance(p, netns, ref, &g, &own, &info);
        if (r < 0)
                return r;
        path = napi_path(netns, info.id, ref->knob);
        if (!path)
                return -ENOMEM;
        original = p->journal ? journal_original(p->journal, path) : NULL;
        if (!original) {
                /* Never changed by netpolld: nothing to put back. */
                *ret_value = info.value[ref->knob];
                return 0;
        }
        r = parse_original(original, &value);
        if (r < 0)
                return r;
        r = netdev_genl_napi_set(g, info.id, ref->knob, value);
        if (r < 0)
                return r;
        log_info("%s@%s:napi-%" PRIu32 ": %" PRIu64 " -> %" PRIu64 " (reset, original value)",
                 napi_knob_to_string(ref->knob), ref->device, info.id, info.value[ref->knob], value);
        r = journal_forget(p->journal, path);
        if (r < 0)
                return r;
        *ret_value = value;
        return 0;
}

int irqpin_napi_restore_entry(const char *knob, const char *path, const char *original, void *userdata) {
        _cleanup_(netdev_genl_freep) NetdevGenl *g = NULL;
        _cleanup_(freep) char *netns = NULL, *name = NULL;
        uint64_t value;
        uint32_t id;
        NapiKnob k;
        int r;

        r = journal_napi_path_parse(path, &netns, &id, &name);
        if (r < 0)
                return r;
        if (napi_knob_from_string(name, &k) < 0 || parse_original(original, &value) < 0)
                return -EINVAL;
        /* A socket of its own: at start-up no IrqPin exists yet. */
        r = netdev_genl_open(&g, netns, 0);
        if (r >= 0)
                r = netdev_genl_napi_set(g, id, k, value);
        /* An instance (or namespace) that is gone took its value with it. */
        return r == -ENOENT || r == -ENODEV ? 0 : r;
}

int irqpin_napi_restore(IrqPin *p) {
        int failed = 0;

        if (!p)
                return -EINVAL;
        if (!p->journal)
                return 0;
        /* Newest first, as the values were changed; restored entries leave the journal, so index from the end. */
        for (size_t i = journal_size(p->journal); i-- > 0;) {
                const char *path = journal_path_at(p->journal, i);
                _cleanup_(freep) char *copy = NULL;
                int r;

                if (!startswith(path, "napi:"))
                        continue;
                copy = strdup(path);
                if (!copy)
                        return -ENOMEM;
                r = irqpin_napi_restore_entry(NULL, copy, journal_original(p->journal, copy), NULL);
                if (r >= 0)
                        r = journal_forget(p->journal, copy);
                if (r < 0) {
                        log_warning_errno(r, "%s: cannot restore %s: %m", copy, journal_original(p->journal, copy));
                        failed++;
                }
        }
        return failed;
}
