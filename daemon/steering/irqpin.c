/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * irqpin.c: the IrqPin object: the device list, kept from rtnetlink link
 * messages (a dump at start, RTNLGRP_LINK events on the event loop), applying
 * the policy to all devices (and again when devices appear or change), the
 * retry timer, and ListIrqs rows.
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include <linux/rtnetlink.h>
#include <netlink/attr.h>
#include <netlink/msg.h>

#include "irqpin-internal.h"
#include "log.h"
#include "nl-util.h"
#include "pidact.h"
#include "irqbalance.h"
#include "netdev-sysfs.h"
#include "strv.h"
#include "topology.h"

static const char *const state_names[_IRQ_STATE_MAX] = {
        [IRQ_STATE_UNMANAGED] = "unmanaged",
        [IRQ_STATE_PLANNED] = "planned",
        [IRQ_STATE_APPLIED] = "applied",
        [IRQ_STATE_KERNEL_MANAGED] = "kernel-managed",
        [IRQ_STATE_IRQBALANCE] = "irqbalance",
        [IRQ_STATE_RETRYING] = "retrying",
        [IRQ_STATE_EXTERNAL] = "external",
        [IRQ_STATE_MANUAL] = "manual",
        [IRQ_STATE_FAILED] = "failed",
};

const char *irq_state_to_string(IrqState s) {
        return s < _IRQ_STATE_MAX ? state_names[s] : NULL;
}

void irq_rows_free(IrqRow *rows, size_t n) {
        for (size_t i = 0; rows && i < n; i++) {
                free(rows[i].device);
                free(rows[i].queue);
                free(rows[i].cpus);
                free(rows[i].rps);
                free(rows[i].xps);
                free(rows[i].state);
                free(rows[i].thread_cpus);
        }
        free(rows);
}

/* ---- device list ----------------------------------------------------------- */

static Device *device_find(IrqPin *p, int ifindex) {
        for (size_t i = 0; i < p->n_devices; i++)
                if (p->devices[i].ifindex == ifindex)
                        return &p->devices[i];
        return NULL;
}

static bool device_matches(const IrqPin *p, const Device *d) {
        if (!p->have_cfg || (d->flags & IFF_LOOPBACK))
                return false;
        for (char **pat = p->cfg.devices; pat && *pat; pat++)
                if (fnmatch(*pat, d->name, 0) == 0)
                        return true;
        return false;
}

/* Adds or updates the device of a link message; keeps the list sorted by ifindex. */
static int device_update(IrqPin *p, int ifindex, const char *name, unsigned flags, Device **ret) {
        Device *d = device_find(p, ifindex);

        if (ifindex <= 0 || !name || strlen(name) >= IF_NAMESIZE)
                return -EINVAL;
        if (!d) {
                size_t at = 0;
                Device *a = reallocarray(p->devices, p->n_devices + 1, sizeof(Device));
                if (!a)
                        return -ENOMEM;
                p->devices = a;
                while (at < p->n_devices && p->devices[at].ifindex < ifindex)
                        at++;
                memmove(p->devices + at + 1, p->devices + at, (p->n_devices - at) * sizeof(Device));
                p->n_devices++;
                d = &p->devices[at];
                *d = (Device){ .ifindex = ifindex };
        }
        if (d->managed && d->name[0] && !streq(d->name, name)) {
                log_info("%s: renamed to %s", d->name, name);
                /* The queue files moved with the name: so do the values to put back. */
                if (p->owner)
                        (void)owner_rename_device(p->owner, d->name, name);
        }
        strcpy(d->name, name);
        d->flags = flags;
        if (ret)
                *ret = d;
        return 0;
}

static void device_remove(IrqPin *p, Device *d) {
        size_t i = (size_t)(d - p->devices);

        /* Its files went with it, and its IRQ numbers may go to another device. */
        if (p->owner && d->name[0])
                (void)owner_forget_device(p->owner, d->name);
        free(d->slots);
        memmove(p->devices + i, p->devices + i + 1, (p->n_devices - i - 1) * sizeof(Device));
        p->n_devices--;
}

/* ---- applying ---------------------------------------------------------------- */

static int on_retry(sd_event_source *s, uint64_t usec, void *userdata);

static void arm_retry(IrqPin *p) {
        int r;

        if (p->retry) {
                r = sd_event_source_set_time_relative(p->retry, IRQPIN_RETRY_USEC);
                if (r >= 0)
                        r = sd_event_source_set_enabled(p->retry, SD_EVENT_ONESHOT);
        } else
                r = sd_event_add_time_relative(p->event, &p->retry, CLOCK_MONOTONIC, IRQPIN_RETRY_USEC, 0,
                                               on_retry, p);
        if (r < 0)
                log_warning_errno(r, "cannot arm the IRQ retry timer: %m, ignoring");
}

static bool any_retrying(const IrqPin *p) {
        for (size_t i = 0; i < p->n_devices; i++)
                for (size_t j = 0; j < p->devices[i].n_slots; j++)
                        if (p->devices[i].slots[j].state == IRQ_STATE_RETRYING)
                                return true;
        return false;
}

static int refresh_host(IrqPin *p) {
        const char *reason = NULL;
        CpuTopology t;
        int pid, r;

        r = topology_read(p->sysroot, &t, &reason);
        if (r < 0)
                return log_error_errno(r, "cannot read the CPU topology%s%s: %m", reason ? ": " : "",
                                       strempty(reason));
        topology_done(&p->topo);
        p->topo = t;
        p->have_topo = true;

        pid = p->irqbalance.pid;
        irqbalance_info(p->sysroot, &p->irqbalance);
        if (p->irqbalance.pid > 0 && p->irqbalance.pid != pid)
                log_warning("irqbalance is running (pid %d): it moves the IRQs it does not ban (it bans %zu) and "
                            "would undo netpolld's placement; stop it or give it --banirq for the steered IRQs",
                            p->irqbalance.pid, p->irqbalance.n_bans);
        return 0;
}

/* Brings every device in line with the policy: steers matching ones, hands back the others. */
static int apply_all(IrqPin *p) {
        unsigned offset = 0;
        int r;

        if (p->have_cfg) {
                r = refresh_host(p);
                if (r < 0)
                        return r;
        }
        for (size_t i = 0; i < p->n_devices; i++) {
                Device *d = &p->devices[i];
                bool match = device_matches(p, d);

                if (!match) {
                        if (d->managed)
                                irqpin_hand_back(p, d);
                        d->managed = false;
                        continue;
                }
                if (!d->managed)
                        log_info("%s: steering its queues (%s)", d->name, p->dry_run ? "dry run" : "applying");
                d->managed = true;
                r = irqpin_steer_device(p, d, offset);
                if (r > 0)
                        offset += (unsigned)r;
        }
        if (any_retrying(p))
                arm_retry(p);
        if (p->on_pass)
                p->on_pass(p->on_pass_userdata);
        return 0;
}

void irqpin_set_pass_callback(IrqPin *p, void (*fn)(void *userdata), void *userdata) {
        if (!p)
                return;
        p->on_pass = fn;
        p->on_pass_userdata = userdata;
}

/*
 * A napi-get dump per device that is up, steered or not: the steering pass's own dumps
 * cover only the devices [irq] names. It runs only after a pass (link events, a NAPI
 * mode change), never per sample.
 */
typedef struct PollerCheck {
        IrqPin *p;
        uint32_t napi_id;
} PollerCheck;

/* The instance's kernel thread, looked up afresh, is pid and still busy-polls. */
static int poller_is_it(int pid, void *userdata) {
        PollerCheck *c = userdata;
        NapiInfo info;
        int r = netdev_genl_napi_get(c->p->genl, c->napi_id, &info);

        if (r == -ENODEV || r == -ENOENT)
                return 0;
        if (r < 0)
                return r;
        return info.pid == pid && info.has[NAPI_KNOB_THREADED] &&
               info.value[NAPI_KNOB_THREADED] == NAPI_THREADED_BUSY_POLL;
}

int irqpin_busy_poll_threads(IrqPin *p, int **ret, size_t *ret_n) {
        _cleanup_(freep) int *pids = NULL;
        size_t n = 0;

        if (!p || !ret || !ret_n)
                return -EINVAL;
        if (!p->genl)
                return -EOPNOTSUPP;
        for (size_t i = 0; i < p->n_devices; i++) {
                const Device *d = &p->devices[i];
                _cleanup_(freep) NapiInfo *napis = NULL;
                size_t nn = 0;
                int *a;

                if ((d->flags & IFF_LOOPBACK) || !(d->flags & IFF_UP) ||
                    netdev_genl_napis(p->genl, d->ifindex, &napis, &nn) < 0)
                        continue; /* gone meanwhile, or no NAPI: nothing polls there */
                a = reallocarray(pids, n + nn + 1, sizeof(int));
                if (!a)
                        return -ENOMEM;
                pids = a;
                for (size_t k = 0; k < nn; k++) {
                        PollerCheck c = { .p = p, .napi_id = napis[k].id };

                        /* Handed to the monitor only while the pid is still that thread's: a task that
                         * took a pid over would have its waiting ignored. */
                        if (napis[k].pid > 0 && napis[k].has[NAPI_KNOB_THREADED] &&
                            napis[k].value[NAPI_KNOB_THREADED] == NAPI_THREADED_BUSY_POLL &&
                            pid_act_confirmed(napis[k].pid, poller_is_it, NULL, &c) >= 0)
                                pids[n++] = napis[k].pid;
                }
        }
        *ret = TAKE_PTR(pids);
        *ret_n = n;
        return 0;
}

static int on_refresh(sd_event_source *s, void *userdata) {
        IrqPin *p = userdata;

        if (p->have_cfg)
                (void)apply_all(p); /* calls on_pass */
        else if (p->on_pass)
                p->on_pass(p->on_pass_userdata);
        return 0;
}

int irqpin_schedule_refresh(IrqPin *p) {
        int r;

        if (!p)
                return -EINVAL;
        if (p->refresh)
                return sd_event_source_set_enabled(p->refresh, SD_EVENT_ONESHOT);
        r = sd_event_add_defer(p->event, &p->refresh, on_refresh, p);
        if (r < 0)
                return r;
        return sd_event_source_set_enabled(p->refresh, SD_EVENT_ONESHOT);
}

static int on_retry(sd_event_source *s, uint64_t usec, void *userdata) {
        IrqPin *p = userdata;
        bool waiting = false;

        for (size_t i = 0; i < p->n_devices; i++)
                if (p->devices[i].managed) {
                        irqpin_update_states(p, &p->devices[i]);
                        waiting = irqpin_steer_retry(p, &p->devices[i]) || waiting;
                }
        if (waiting)
                arm_retry(p);
        return 0;
}

static void config_done(IrqConfig *c) {
        strv_free(c->devices);
        *c = (IrqConfig){};
}

int irqpin_apply(IrqPin *p, const IrqConfig *cfg, bool dry_run) {
        IrqConfig copy = {};
        CpuSet usable;
        const char *reason = NULL;
        int r;

        if (!p)
                return -EINVAL;
        if (cfg && cfg->devices) {
                /* Refuse a policy that cannot place anything before touching what runs. */
                r = refresh_host(p);
                if (r < 0)
                        return r;
                r = placement_usable(cfg, &p->topo, &usable, &reason);
                if (r < 0)
                        return log_error_errno(r, "[irq]: %s; IRQ steering unchanged", reason);
                copy = *cfg;
                copy.devices = strv_copy(cfg->devices);
                if (!copy.devices)
                        return log_oom();
        }
        if (p->dry_run != dry_run)
                /* Switching between planning and writing: start from the kernel's state. */
                for (size_t i = 0; i < p->n_devices; i++)
                        if (p->devices[i].managed) {
                                irqpin_hand_back(p, &p->devices[i]);
                                p->devices[i].managed = false;
                        }
        config_done(&p->cfg);
        p->cfg = copy;
        p->have_cfg = copy.devices != NULL;
        p->dry_run = dry_run;
        if (!p->have_cfg)
                log_debug("IRQ steering off (no [irq] devices)");
        return apply_all(p);
}

int irqpin_reset(IrqPin *p, const char *device) {
        if (!p)
                return -EINVAL;
        for (size_t i = 0; i < p->n_devices; i++) {
                Device *d = &p->devices[i];
                if (device && !streq(device, d->name))
                        continue;
                irqpin_take_back(p, d);
                for (size_t j = 0; j < d->n_slots; j++)
                        if (d->slots[j].state == IRQ_STATE_EXTERNAL || d->slots[j].state == IRQ_STATE_MANUAL ||
                            d->slots[j].state == IRQ_STATE_IRQBALANCE)
                                d->slots[j].state = IRQ_STATE_UNMANAGED;
        }
        return apply_all(p);
}

bool irqpin_irqbalance_running(const IrqPin *p) {
        return p && p->irqbalance.pid > 0;
}

bool irqpin_irqbalance_moves(const IrqPin *p, int irq) {
        return p->irqbalance.pid > 0 && irq >= 0 && !irqbalance_ban(&p->irqbalance, (unsigned)irq);
}

/* ---- link events ---------------------------------------------------------------- */

typedef struct Link {
        int type; /* RTM_NEWLINK or RTM_DELLINK */
        int ifindex;
        unsigned flags;
        const char *name; /* NULL when the message has none */
} Link;

/* A link message's ifindex, flags and name; false for anything else or a malformed one. */
static bool link_parse(struct nl_msg *msg, Link *ret) {
        static struct nla_policy policy[IFLA_MAX + 1] = {
                [IFLA_IFNAME] = { .type = NLA_STRING, .maxlen = IF_NAMESIZE },
        };
        struct nlmsghdr *h = nlmsg_hdr(msg);
        struct nlattr *tb[IFLA_MAX + 1];
        const struct ifinfomsg *ifi;

        if (h->nlmsg_type != RTM_NEWLINK && h->nlmsg_type != RTM_DELLINK)
                return false;
        if (nlmsg_parse(h, sizeof(struct ifinfomsg), tb, IFLA_MAX, policy) < 0)
                return false;
        ifi = nlmsg_data(h);
        /* A bridge port's own messages (AF_BRIDGE, also RTM_DELLINK when it leaves the bridge) are not the link's. */
        if (ifi->ifi_family != AF_UNSPEC)
                return false;
        *ret = (Link){
                .type = h->nlmsg_type,
                .ifindex = ifi->ifi_index,
                .flags = ifi->ifi_flags,
                .name = tb[IFLA_IFNAME] ? nla_get_string(tb[IFLA_IFNAME]) : NULL,
        };
        return true;
}

static int on_link(struct nl_msg *msg, void *userdata) {
        IrqPin *p = userdata;
        Device *d;
        Link l;
        int r;

        if (!link_parse(msg, &l))
                return NL_OK;
        d = device_find(p, l.ifindex);
        if (l.type == RTM_DELLINK) {
                if (d) {
                        log_debug("%s: removed%s", d->name, d->managed ? ", forgetting its steering" : "");
                        /* What follows the steered set (the irqbalance drop-in) hears of it after the batch. */
                        p->gone_managed = p->gone_managed || d->managed;
                        device_remove(p, d);
                }
                return NL_OK;
        }
        bool known = d;
        r = device_update(p, l.ifindex, l.name, l.flags, &d);
        if (r < 0) {
                log_warning_errno(r, "cannot follow link %d: %m, ignoring", l.ifindex);
                return NL_OK;
        }
        log_debug("%s: %s (ifindex %d)", d->name, known ? "changed" : "appeared", d->ifindex);
        /* New, renamed, up or down: any of these can change what the policy says or what the device has. */
        p->dirty = true;
        return NL_OK;
}

static int on_dumped_link(struct nl_msg *msg, void *userdata) {
        IrqPin *p = userdata;
        Device *d;
        Link l;

        if (!link_parse(msg, &l) || l.type != RTM_NEWLINK)
                return NL_OK;
        if (device_update(p, l.ifindex, l.name, l.flags, &d) >= 0)
                d->listed = true;
        return NL_OK;
}

/* Reads the whole link table; devices it no longer lists went while nobody was listening. */
static int sync_devices(IrqPin *p) {
        _cleanup_(nl_socket_freep) struct nl_sock *sk = NULL;
        struct ifinfomsg ifi = { .ifi_family = AF_UNSPEC };
        int r;

        r = nl_socket_open(NETLINK_ROUTE, &sk);
        if (r < 0)
                return r;
        nl_socket_enable_msg_peek(sk); /* a link message can exceed a page */
        for (size_t i = 0; i < p->n_devices; i++)
                p->devices[i].listed = false;
        r = errno_from_nl(nl_socket_modify_cb(sk, NL_CB_VALID, NL_CB_CUSTOM, on_dumped_link, p));
        if (r >= 0)
                r = errno_from_nl(nl_send_simple(sk, RTM_GETLINK, NLM_F_DUMP, &ifi, sizeof(ifi)));
        if (r >= 0)
                r = errno_from_nl(nl_recvmsgs_default(sk));
        if (r < 0)
                return r;
        for (size_t i = p->n_devices; i-- > 0;)
                if (!p->devices[i].listed)
                        device_remove(p, &p->devices[i]);
        return 0;
}

static int on_netlink(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        IrqPin *p = userdata;
        int r;

        p->dirty = false;
        p->gone_managed = false;
        /* Each call reads one datagram: go on until the socket is drained. */
        do
                r = nl_recvmsgs_default(p->links);
        while (r >= 0);
        if (r == -NLE_AGAIN) {
                /* One pass for the whole batch of events. */
                if (p->dirty)
                        (void)apply_all(p);
                else if (p->gone_managed && p->on_pass)
                        /* Only a steered device went: nothing to place, but the pass's listeners follow. */
                        p->on_pass(p->on_pass_userdata);
                return 0;
        }
        /* Events overflowed (ENOBUFS) or the socket broke: read the whole table again. */
        r = errno_from_nl(r);
        log_warning_errno(r, "lost link events (%m); resynchronising the device list");
        r = sync_devices(p);
        if (r < 0)
                return log_error_errno(r, "cannot resynchronise the device list: %m");
        (void)apply_all(p);
        return 0;
}

/* Listens to link events first, then reads the table: nothing can fall between the two. */
static int watch_links(IrqPin *p) {
        int r;

        r = nl_socket_open(NETLINK_ROUTE, &p->links);
        if (r < 0)
                return r;
        nl_socket_disable_seq_check(p->links);
        nl_socket_enable_msg_peek(p->links);
        r = errno_from_nl(nl_socket_add_membership(p->links, RTNLGRP_LINK));
        if (r >= 0)
                r = errno_from_nl(nl_socket_set_nonblocking(p->links));
        if (r >= 0)
                r = errno_from_nl(nl_socket_modify_cb(p->links, NL_CB_VALID, NL_CB_CUSTOM, on_link, p));
        if (r < 0)
                return r;
        r = sync_devices(p);
        if (r < 0)
                return r;
        return sd_event_add_io(p->event, &p->io, nl_socket_get_fd(p->links), EPOLLIN, on_netlink, p);
}

/* ---- object ---------------------------------------------------------------------- */

int irqpin_new(IrqPin **ret, sd_event *event, const char *sysroot, Owner *owner) {
        _cleanup_(irqpin_freep) IrqPin *p = NULL;
        int r;

        if (!ret || !event)
                return -EINVAL;
        p = calloc(1, sizeof(IrqPin));
        if (!p)
                return -ENOMEM;
        p->event = sd_event_ref(event);
        p->owner = owner;
        p->sysroot = strdup(sysroot ?: "/");
        if (!p->sysroot)
                return -ENOMEM;

        r = watch_links(p);
        if (r < 0)
                return r;

        r = netdev_genl_open(&p->genl, 0);
        if (r == -EOPNOTSUPP)
                log_info("this kernel has no netdev netlink family: queue IRQs come from /proc/interrupts names");
        else if (r < 0)
                log_warning_errno(r, "cannot use the netdev netlink family (%m); queue IRQs come from "
                                     "/proc/interrupts names");
        else
                p->genl_family = netdev_genl_family(p->genl);

        *ret = TAKE_PTR(p);
        return 0;
}

IrqPin *irqpin_free(IrqPin *p) {
        if (!p)
                return NULL;
        sd_event_source_disable_unref(p->io);
        sd_event_source_disable_unref(p->retry);
        sd_event_source_disable_unref(p->refresh);
        nl_socket_free(p->links);
        netdev_genl_free(p->genl);
        sd_event_unref(p->event);
        for (size_t i = 0; i < p->n_devices; i++)
                free(p->devices[i].slots);
        free(p->devices);
        topology_done(&p->topo);
        config_done(&p->cfg);
        free(p->sysroot);
        free(p);
        return NULL;
}
