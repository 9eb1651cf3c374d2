/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * napi.h: per-NAPI-instance knobs (kernel 6.13+, netdev netlink family
 * napi-set/napi-get) as names, references and values. Pure: irqpin.h does
 * the kernel side.
 *
 * A reference names the knob, the device and either the NAPI instance or a
 * queue whose NAPI instance is meant (ARCHITECTURE.md "Per-NAPI instances"):
 *   gro-flush-timeout@eth1:napi-8193
 *   napi-defer-hard-irqs@eth1:rx-3
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "interrupts.h"
#include "knob.h"

typedef enum NapiKnob {
        NAPI_KNOB_DEFER_HARD_IRQS,     /* count, 0..INT32_MAX */
        NAPI_KNOB_GRO_FLUSH_TIMEOUT,   /* ns */
        NAPI_KNOB_IRQ_SUSPEND_TIMEOUT, /* ns */
        NAPI_KNOB_THREADED,            /* 0 disabled, 1 enabled (a kthread), 2 busy-poll (a kthread that spins) */
        _NAPI_KNOB_MAX,
} NapiKnob;

/* NAPI_KNOB_THREADED's largest value: the kernel thread busy-polls (netdev enum napi-threaded). */
#define NAPI_THREADED_BUSY_POLL 2

/* "napi-defer-hard-irqs", "gro-flush-timeout", "irq-suspend-timeout", "napi-threaded". */
const char *napi_knob_to_string(NapiKnob k);
int napi_knob_from_string(const char *s, NapiKnob *ret);
/* The value's type, unit and range, shaped like a catalog entry (knob_parse_value() and friends accept it). */
const KnobDesc *napi_knob_desc(NapiKnob k);

typedef struct NapiRef {
        NapiKnob knob;
        char device[16];
        uint32_t napi_id;  /* 0: by queue */
        QueueKind kind;    /* by queue: QUEUE_RX or QUEUE_TX */
        unsigned index;
} NapiRef;

/*
 * Parses "KNOB@DEV:napi-ID" or "KNOB@DEV:rx-N" / "KNOB@DEV:tx-N". -ENOENT for
 * an unknown knob, -EINVAL otherwise, with a static *ret_reason.
 */
int napi_ref_parse(const char *s, NapiRef *ret, const char **ret_reason);
/* The reference in the syntax napi_ref_parse() reads; returns buf. */
char *napi_ref_format(const NapiRef *r, char *buf, size_t size);
