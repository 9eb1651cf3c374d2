/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * irqpin-internal.h: the state irqpin.c (devices, events, steering),
 * irqpin-steer.c (one device's discovery and writes) and irqpin-napi.c
 * (per-NAPI knobs) share. Not for other modules: irqpin.h is the contract.
 */
#pragma once

#include <net/if.h>

#include <netlink/socket.h>

#include "cpuset.h"
#include "irqpin.h"
#include "netdev-genl.h"
#include "placement.h"
#include "irqbalance.h"
#include "netdev-sysfs.h"

/* One row: a queue, or an rx/tx pair served by one vector. */
typedef struct Slot {
        QueueKind kind;
        unsigned index;
        uint32_t napi_id;
        int irq;
        int thread_pid;        /* the NAPI instance's kernel thread (threaded mode), -1: none */
        int threaded;          /* its napi-threaded mode (0-2), -1: not reported (before 6.17) */
        IrqState state;
        unsigned attempts;     /* refused IRQ writes so far (retry limit) */
        bool planned;
        QueuePlan plan;
} Slot;

typedef struct Device {
        int ifindex;
        char name[IF_NAMESIZE];
        unsigned flags;        /* IFF_* from the last link message */
        bool managed;          /* matches the [irq] devices */
        bool listed;           /* in the dump being read (sync_devices()) */
        Slot *slots;
        size_t n_slots;
} Device;

struct IrqPin {
        sd_event *event;
        char *sysroot;
        Owner *owner;          /* every write goes through it; NULL: nothing is written (tests) */

        struct nl_sock *links; /* NETLINK_ROUTE, RTNLGRP_LINK: new, changed and removed links */
        sd_event_source *io;
        sd_event_source *retry;
        sd_event_source *refresh; /* one pass at the next loop iteration (irqpin_schedule_refresh()) */
        void (*on_pass)(void *userdata);
        void *on_pass_userdata;
        bool dirty;            /* link events since the last pass */
        bool gone_managed;     /* a steered device was removed in this batch of events */

        NetdevGenl *genl;      /* NULL when the kernel has no netdev family */
        int genl_family;

        bool have_cfg;
        IrqConfig cfg;         /* deep copy (devices) */
        bool dry_run;
        IrqbalanceInfo irqbalance; /* irqbalance.h: whether it runs and which IRQs it bans */

        CpuTopology topo;
        bool have_topo;

        Device *devices;
        size_t n_devices;
};

#define IRQPIN_RETRY_USEC (5 * UINT64_C(1000000))
#define IRQPIN_RETRY_MAX 12

/* irqpin-steer.c */
/* Finds the device's queues, NAPI instances, IRQs and NUMA node; replaces d->slots (keeping states of queues that stay). */
int irqpin_discover(IrqPin *p, Device *d, int *ret_numa_node);
/* Plans and applies (or, dry run, only plans) one device; offset as in PlacementDevice. */
int irqpin_steer_device(IrqPin *p, Device *d, unsigned offset);
/* Applies slots in state retrying again; true when some still wait. */
bool irqpin_steer_retry(IrqPin *p, Device *d);
/* Whether a running irqbalance would move irq (it runs and does not ban it). */
bool irqpin_irqbalance_moves(const IrqPin *p, int irq);

/* Each planned slot's state from the owner's origins: external (or irqbalance) and manual show. */
void irqpin_update_states(IrqPin *p, Device *d);
/* The profile's layer lets go of a device's files: each goes to the layer below or its original. */
void irqpin_hand_back(IrqPin *p, Device *d);
/* The manual layer lets go of a device's files, and files changed outside are taken back. */
void irqpin_take_back(IrqPin *p, Device *d);
/* The label and path of a slot's file; false when the slot has no such file. */
bool irqpin_slot_file(const Device *d, const Slot *s, SteerFile f, char **ret_path, char *label, size_t size);
/* The owner's target for a slot's file; false when there is none (no such file, device gone, no owner). */
bool irqpin_slot_target(IrqPin *p, const Device *d, const Slot *s, SteerFile f, Target *ret);
