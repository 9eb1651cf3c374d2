/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * irqpin.h: IRQ and queue steering of network devices, the daemon-facing
 * side. It follows the devices of netpolld's network namespace through an
 * rtnetlink link cache whose socket is an sd-event source (a new device
 * gets the policy, a removed one is forgotten; no polling), maps each
 * queue to its NAPI instance and IRQ (netdev generic netlink, else
 * /proc/interrupts names), places them (placement.h) and writes IRQ
 * affinity and RPS/XPS masks through the owner (owner.h), in its profile
 * layer: journaled, read back, outside changes noticed and left alone,
 * restored on stop and after a crash with everything else, and given way
 * to an administrator's netpollctl set (manual layer) until reset.
 *
 * It also finds the NAPI instance a per-NAPI reference means.
 *
 * irqpin logs device events and what it changes (it runs at the daemon's
 * edge); its functions still return negative errno on failure.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <systemd/sd-event.h>

#include "journal.h"
#include "napi.h"
#include "owner.h"
#include "policy.h"

typedef struct IrqPin IrqPin;

typedef enum IrqState {
        IRQ_STATE_UNMANAGED,      /* no [irq] policy covers the device */
        IRQ_STATE_PLANNED,        /* dry run: the plan is shown, nothing written */
        IRQ_STATE_APPLIED,        /* the kernel holds the plan */
        IRQ_STATE_KERNEL_MANAGED, /* the kernel places this IRQ itself (EIO); RPS/XPS applied */
        IRQ_STATE_IRQBALANCE,     /* applied, but irqbalance runs and does not ban this IRQ: it would undo this */
        IRQ_STATE_RETRYING,       /* the kernel refused for now (EBUSY, EINVAL, ...); a timer tries again */
        IRQ_STATE_EXTERNAL,       /* changed behind netpolld's back: left alone */
        IRQ_STATE_MANUAL,         /* an administrator's netpollctl set holds a file of it */
        IRQ_STATE_FAILED,
        _IRQ_STATE_MAX,
} IrqState;

/* "unmanaged", "planned", "applied", "kernel-managed", "irqbalance", "retrying", "external", "manual", "failed". */
const char *irq_state_to_string(IrqState s);

/* One row of ListIrqs. The strings belong to the row. */
typedef struct IrqRow {
        char *device;
        char *queue;      /* "rx-0", "tx-0", or "combined-0" for a vector serving both */
        uint32_t napi_id; /* 0: no NAPI instance */
        int32_t irq;      /* -1: no IRQ of its own (virtual devices) */
        char *cpus;       /* the IRQ's affinity; without an IRQ, or in a dry run, the planned CPU; "" unknown */
        char *rps;        /* rx-N's RPS CPUs ("none" when off); "" for a tx queue */
        char *xps;        /* tx-N's XPS CPUs; "" for an rx queue */
        char *state;      /* irq_state_to_string() */
        /* The NAPI instance's mode and kernel thread (ListNapiThreads, once per instance). */
        int threaded;      /* 0 disabled, 1 enabled, 2 busy-poll; -1 unknown (before 6.17, or no NAPI) */
        int32_t thread;    /* its kernel thread's pid, -1: none */
        char *thread_cpus; /* the CPUs that thread may run on, "" without one */
} IrqRow;

void irq_rows_free(IrqRow *rows, size_t n);


/*
 * Starts following network devices: the link cache and its sd-event I/O
 * source, the netdev family (resolved once; absent on old kernels, then
 * /proc/interrupts names are used), a retry timer. sysroot: below which
 * /proc and /sys are read and written (NULL: "/"). owner: through which
 * every value is written (NULL: nothing is, only planned); it must outlive
 * p. Nothing is written until irqpin_apply().
 */
int irqpin_new(IrqPin **ret, sd_event *event, const char *sysroot, Owner *owner);
IrqPin *irqpin_free(IrqPin *p);
static inline void irqpin_freep(IrqPin **p) {
        if (*p)
                irqpin_free(*p);
}

/*
 * (Re)applies cfg (copied) to every matching device now and to devices that
 * appear or come up later. cfg NULL or without devices turns steering off:
 * devices steered before get their journaled originals back. Devices that
 * no longer match are handed back the same way. dry_run: compute and show
 * the plan (ListIrqs state "planned"), write nothing. -EINVAL when cfg
 * leaves no CPU to use (logged, nothing changed).
 */
int irqpin_apply(IrqPin *p, const IrqConfig *cfg, bool dry_run);

/*
 * Hands the device's files (device NULL: every device's) back from an
 * administrator's manual values and outside changes to the policy, and
 * applies it to them again.
 */
int irqpin_reset(IrqPin *p, const char *device);

/*
 * One more pass over every device at the next event loop iteration: a NAPI
 * instance that became threaded has a kernel thread to place. Several calls
 * before it runs make one pass.
 */
int irqpin_schedule_refresh(IrqPin *p);

/*
 * The kernel threads of every NAPI instance in busy-poll mode, on every
 * device that is up (steered or not), as the netdev family reports them
 * now; caller frees. -EOPNOTSUPP without the netdev family.
 */
int irqpin_busy_poll_threads(IrqPin *p, int **ret, size_t *ret_n);
/* Called after each steering pass (devices appeared or changed, a NAPI mode changed); NULL removes it. */
void irqpin_set_pass_callback(IrqPin *p, void (*fn)(void *userdata), void *userdata);

/* Rows for ListIrqs: every device but loopback, by ifindex, queues in order; caller frees with irq_rows_free(). */
int irqpin_list(IrqPin *p, IrqRow **ret, size_t *ret_n);

/*
 * The IRQs steering writes now: every IRQ of a device [irq] covers that has
 * a plan, but kernel-managed ones; none in a dry run. Caller frees *ret
 * (NULL when none).
 */
int irqpin_steered_irqs(const IrqPin *p, int **ret, size_t *ret_n);

/* Whether an irqbalance process runs (checked on each apply and list); it would move steered IRQs. */
bool irqpin_irqbalance_running(const IrqPin *p);

/*
 * Per-NAPI values. The instance is ref->napi_id (checked to belong to
 * ref->device) or the one serving the queue ref->kind/ref->index.
 * irqpin_napi_get gives its current value and id: -EOPNOTSUPP when the
 * kernel lacks napi-get (before 6.13) or this knob; -ENODEV for an unknown
 * device; -ENOENT when the queue has no NAPI instance or the instance is
 * not the device's. Changes go through the owner (owner.h), with the
 * backend of napi-backend.h.
 */
int irqpin_napi_get(IrqPin *p, const NapiRef *ref, uint64_t *ret_value, uint32_t *ret_napi_id);

