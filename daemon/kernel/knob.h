/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * knob.h: the knob catalog (every tunable netpolld knows, as data), knob
 * references ("busy-read", "gro-flush-timeout@eth1"), value parsing and
 * formatting with units, support discovery, and kernel reads through the
 * sysroot (writes go through the owner, owner.h). Nothing here logs; errors come back as negative errno.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cpuset.h"
#include "interrupts.h"

typedef enum KnobType {
        KNOB_COUNT,  /* decimal integer in the kernel file */
        KNOB_TIME,   /* decimal integer of unit_ns units in the kernel file */
        KNOB_CPUSET, /* hex cpumask in the kernel file, one per queue */
        KNOB_ENUM,   /* a name of values[]; the kernel holds its index as a decimal */
} KnobType;

typedef enum KnobScope {
        KNOB_GLOBAL,    /* one file; path is absolute */
        KNOB_DEVICE,    /* one file per device; path is a template with one %s */
        KNOB_RX_QUEUES, /* one file per rx-N queue; path is the file name */
        KNOB_TX_QUEUES, /* one file per tx-N queue; path is the file name */
        KNOB_NAPIS,     /* one value per NAPI instance of the device: netdev netlink napi-get/napi-set;
                         * path is the per-NAPI knob's name (napi.h); device_file, when set, is the
                         * device's file used instead on kernels whose instances lack the value */
} KnobScope;

typedef struct KnobDesc {
        const char *name;    /* canonical name used by CLI, D-Bus and profiles */
        KnobScope scope;
        const char *path;
        const char *device_file; /* KNOB_NAPIS: template with one %s, or NULL (above) */
        uint64_t device_file_max; /* with device_file: the largest value that file takes */
        KnobType type;
        uint64_t unit_ns;    /* KNOB_TIME: size of the base unit */
        const char *unit;    /* base unit for humans: "us", "packets", "" */
        uint64_t min, max;   /* accepted range in base units (numeric types) */
        const char *const *values; /* KNOB_ENUM: the names, by kernel value, NULL-terminated */
        const char *patch;   /* NULL: upstream; else the kernel-patches/ file that adds it */
        const char *kernel;  /* upstream knobs newer than Debian 12's kernel: the Linux that adds
                              * them as netpolld uses them ("Linux 6.13"), or NULL */
        const char *summary; /* one line for listings */
        const char *kernel_limit; /* what else the kernel refuses, beyond [min, max], or NULL */
} KnobDesc;

/*
 * Index of each entry in knob_catalog[], for code that names a particular
 * knob (the controller, per-NAPI knobs): they take the name and the rules
 * from the entry rather than spelling them again.
 */
typedef enum KnobId {
        KNOB_ID_BUSY_READ,
        KNOB_ID_BUSY_POLL,
        KNOB_ID_BUSY_LOOP_THRESHOLD,
        KNOB_ID_SOFTIRQ_BUDGET,
        KNOB_ID_SOFTIRQ_RESTARTS,
        KNOB_ID_NETDEV_BUDGET,
        KNOB_ID_NETDEV_BUDGET_TIME,
        KNOB_ID_DEV_WEIGHT,
        KNOB_ID_NETDEV_MAX_BACKLOG,
        KNOB_ID_NAPI_SKB_CACHE_SIZE,
        KNOB_ID_NAPI_SKB_CACHE_BULK,
        KNOB_ID_NAPI_DEFER_HARD_IRQS,
        KNOB_ID_GRO_FLUSH_TIMEOUT,
        KNOB_ID_IRQ_SUSPEND_TIMEOUT,
        KNOB_ID_NAPI_THREADED,
        KNOB_ID_RPS_CPUS,
        KNOB_ID_XPS_CPUS,
        _KNOB_ID_MAX,
} KnobId;

/* Every knob, in the order listings show them; knob_catalog_size == _KNOB_ID_MAX. */
extern const KnobDesc knob_catalog[_KNOB_ID_MAX];
extern const size_t knob_catalog_size;

const KnobDesc *knob_find(const char *name);

/* A knob instance: a catalog entry plus the device for per-device knobs. */
typedef struct KnobRef {
        const KnobDesc *desc;
        char device[16]; /* "" for global knobs */
} KnobRef;

/*
 * The parts of every value name netpolld gives out (KnobChanged, ListIrqs'
 * rows, the log) and takes: "KNOB", "KNOB@DEV" or "KNOB@DEV:INSTANCE", with
 * INSTANCE one of "napi-ID", "rx-N", "tx-N", "combined-N". The one parser of
 * that grammar: knob_ref_parse(), napi_ref_parse() and Explain build on it.
 * KNOB is checked for its shape only (catalog knobs, per-NAPI knobs and
 * steered values such as irq-affinity share the grammar).
 */
typedef struct KnobName {
        char knob[32];
        char device[16];  /* "" without @DEV */
        bool instance;    /* a :INSTANCE was given */
        uint32_t napi_id; /* :napi-ID; 0 for a queue */
        QueueKind kind;   /* :rx-N, :tx-N, :combined-N */
        unsigned index;
} KnobName;

/* -EINVAL with a static *ret_reason for a name outside the grammar. */
int knob_name_parse(const char *s, KnobName *ret, const char **ret_reason);
/* The name in the canonical spelling knob_name_parse() reads; returns buf. */
char *knob_name_format(const KnobName *n, char *buf, size_t size);

/*
 * Parses "NAME" or "NAME@DEV". -ENOENT for an unknown knob name, -EINVAL for
 * a device given to a global knob, a missing device on a per-device knob, an
 * invalid interface name, or a queue or NAPI instance after the device.
 */
int knob_ref_parse(const char *s, KnobRef *ret, const char **ret_reason);
/* "NAME" or "NAME@DEV" into buf; returns buf. */
char *knob_ref_format(const KnobRef *r, char *buf, size_t size);

typedef struct KnobValue {
        uint64_t num; /* KNOB_COUNT, KNOB_TIME (base units), KNOB_ENUM (index) */
        CpuSet cpus;  /* KNOB_CPUSET */
} KnobValue;

/* User input with units ("1.5ms", "300", "0-3", "busy-poll" or its index), range-checked against the catalog. */
int knob_parse_value(const KnobDesc *d, const char *s, KnobValue *ret, const char **ret_reason);
/* What knob_parse_value accepts, for messages: "a time such as 50us or 2ms (bare number: us), 0us..2147483647us". Caller frees. */
char *knob_expected(const KnobDesc *d);
/* Human form with the base unit: "50us", "300", "0-3", "busy-poll". Caller frees. */
char *knob_format_value(const KnobDesc *d, const KnobValue *v);
bool knob_value_equal(const KnobDesc *d, const KnobValue *a, const KnobValue *b);

/* Kernel file text (newline already stripped) to a value; -EBADMSG for odd content. */
int knob_parse_kernel(const KnobDesc *d, const char *text, KnobValue *ret);
/* The text to write into the kernel file. Caller frees. */
char *knob_format_kernel(const KnobDesc *d, const KnobValue *v);

/*
 * Where KNOB_NAPIS knobs are read: the NAPI instances of a device and one
 * value of one instance, over netlink (napi-backend.c provides it). Without
 * a source, or when list() gives no instance, such a knob is unsupported.
 * list() returns -ENODEV for a missing device, -EOPNOTSUPP when the kernel
 * has no netdev family; ids are the caller's to free.
 */
typedef struct KnobNapiSource {
        int (*list)(void *userdata, const char *device, uint32_t **ret_ids, size_t *ret_n);
        int (*read)(void *userdata, uint32_t napi_id, const char *knob, uint64_t *ret);
        void *userdata;
} KnobNapiSource;
/* Process-wide; NULL removes it. The source must outlive its use. */
void knob_set_napi_source(const KnobNapiSource *src);

/*
 * The kernel files behind an instance, as paths below the sysroot
 * ("/proc/sys/net/core/busy_read"), NULL-terminated, caller frees (strv).
 * Queue knobs give one path per queue, sorted by queue number. -ENODEV when the
 * device does not exist, -EOPNOTSUPP when a global or device file is absent
 * (the kernel lacks the knob). KNOB_NAPIS knobs give "napi-ID" per instance,
 * sorted by id, instead of paths (knob_path_is_napi()), or their device_file
 * when the instances lack the value.
 */
int knob_paths(const KnobRef *r, const char *sysroot, char ***ret);
/* True for knob_paths()'s "napi-ID" entries (set over netlink), false for files. */
bool knob_path_is_napi(const char *path);
/*
 * Whether path is d's device_file (the fallback of a KNOB_NAPIS knob) and v a
 * value that file never takes (napi-threaded's busy-poll: the kernel's
 * threaded file does 0 and 1 only, on every kernel).
 */
bool knob_device_file_refuses(const KnobDesc *d, const char *path, const KnobValue *v);

/* 1 supported, 0 unsupported (file absent), -ENODEV device missing, other negative errno. */
int knob_supported(const KnobRef *r, const char *sysroot);

/*
 * Reads the current value. For queue knobs the result is the union of all
 * queues and the return value is 1 when the queues differ, 0 when they agree.
 * -EOPNOTSUPP when absent, -EBADMSG for odd file content.
 */
int knob_read(const KnobRef *r, const char *sysroot, KnobValue *ret);

/*
 * A hint for a kernel refusal of this knob, or NULL: the range a patched
 * kernel accepts and the entry's kernel_limit (e.g. the 2-jiffy minimum of
 * netdev-budget-time). Static storage, built from the entry on first use.
 */
const char *knob_refusal_hint(const KnobDesc *d);

/*
 * What a kernel without d needs, for listings and messages: the patch file
 * ("0003-softirq-...patch"), the upstream version ("Linux 6.13"), or "".
 */
const char *knob_needs(const KnobDesc *d);
