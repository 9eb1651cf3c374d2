/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * netpollctl.h: what netpollctl's verb files share: the option globals, the
 * status a verb returns (netpollctl.c alone turns it into an exit code and
 * the daemon's errors into messages), D-Bus call helpers for the documented
 * org.netpolld1 API (docs/dbus.md) and JSON output helpers.
 */
#pragma once

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <systemd/sd-bus.h>

#include "bus-types.h"
#include "macro.h"

#define NETPOLLD_BUS_NAME "org.netpolld1"
#define NETPOLLD_OBJECT_PATH "/org/netpolld1"
#define NETPOLLD_INTERFACE "org.netpolld1.Manager"

extern bool arg_json;
extern bool arg_all;
extern bool arg_once;
/* profile import-tuned: --output FILE (NULL: stdout) and --tuned-dir DIR... (NULL: the defaults). */
extern const char *arg_output;
extern char **arg_tuned_dirs;

/* What a verb reports. Messages are printed where the failure is understood. */
typedef enum CtlStatus {
        CTL_OK,
        CTL_FAILED,     /* the operation failed: exit 1 */
        CTL_USAGE,      /* the command line is malformed: exit 2, usage line printed */
        CTL_REJECTED,   /* the daemon says the command as typed cannot work: exit 2 */
} CtlStatus;

/* "netpollctl: <message>" on stderr; CTL_USAGE. */
CtlStatus ctl_usage_error(const char *fmt, ...) _printf_(1, 2);
/* "netpollctl: <message>: <strerror(r)>" on stderr; CTL_FAILED. */
CtlStatus ctl_failed(int r, const char *fmt, ...) _printf_(2, 3);
/* Reports a failed call (r < 0, error as sd-bus filled it) the way the CLI contract says. */
CtlStatus ctl_bus_failed(const sd_bus_error *error, int r);

/* Connects to netpolld's bus; on failure prints the contract message and returns r < 0. */
int ctl_open_bus(sd_bus **ret);

/* How to name the bus in messages: the address given, or "the system bus". */
const char *ctl_bus_description(void);

/* Calls a method of org.netpolld1.Manager; on failure error is set and r < 0. */
int ctl_call(sd_bus *bus, const char *member, sd_bus_error *error, sd_bus_message **ret_reply,
             const char *types, ...);
/* Sets error to say the reply to method could not be understood; returns r (negative). */
int ctl_bad_reply(sd_bus_error *error, int r, const char *method);

/* Makes the array *p (of size-byte elements, *allocated of them) hold at least need; 0 or -ENOMEM. */
int ctl_grow(void **p, size_t *allocated, size_t need, size_t size);

/* Calls ListKnobs. *ret_knobs (free()) borrows strings from *ret_reply (unref). */
int ctl_list_knobs(sd_bus *bus, sd_bus_error *error, sd_bus_message **ret_reply,
                   KnobInfo **ret_knobs, size_t *ret_n);
/* Reads a ListKnobs reply; *ret_knobs (free()) borrows strings from reply. r < 0 on a bad reply. */
int ctl_parse_knobs(sd_bus_message *reply, KnobInfo **ret_knobs, size_t *ret_n);

/* Calls Properties.GetAll on the Manager; *ret borrows strings from *ret_reply (unref). */
int ctl_get_properties(sd_bus *bus, sd_bus_error *error, sd_bus_message **ret_reply, Properties *ret);
/* Reads a GetAll reply; unknown properties are skipped, a known one of another type is -EBADMSG. */
int ctl_parse_properties(sd_bus_message *reply, Properties *ret);

/* Calls GetLoad; *ret borrows the source from *ret_reply (unref) and owns its cpus (load_info_done()). */
int ctl_get_load(sd_bus *bus, sd_bus_error *error, sd_bus_message **ret_reply, LoadInfo *ret);
/* Reads a GetLoad reply. r < 0 on a bad reply. */
int ctl_parse_load(sd_bus_message *reply, LoadInfo *ret);
/* Frees what a LoadInfo owns; it is empty afterwards. */
void load_info_done(LoadInfo *l);

/*
 * Calls GetOtherOwners(name) ("" every outside change). *ret_rows (free())
 * borrows from *ret_reply (unref). A daemon without the method gives no rows
 * and 0: the hint is extra.
 */
int ctl_get_other_owners(sd_bus *bus, const char *name, sd_bus_error *error, sd_bus_message **ret_reply,
                         OwnerRow **ret_rows, size_t *ret_n);
/* "sysctl.d /etc/sysctl.d/90-net.conf:3 (net.core.busy_read = 50)", or "unknown", into buf. */
const char *ctl_owner_text(const OwnerRow *o, char *buf, size_t size);
/* Adds "owners": [{kind, where, note}] of target's rows to the JSON object x. */
int ctl_json_owners(json_object *x, const char *target, const OwnerRow *rows, size_t n);

/* "yes", "needs PATCH" or "no": the KERNEL column of list. */
const char *ctl_kernel_column(const KnobInfo *k, char *buf, size_t size);
/* Prints the KNOB VALUE ORIGIN KERNEL table of list (and of monitor's start). */
int ctl_print_knob_table(const KnobInfo *knobs, size_t n);

DEFINE_TRIVIAL_CLEANUP_FUNC(json_object *, json_object_put);

/* JSON building; each returns 0 or -ENOMEM. A NULL string is stored as null. */
int json_add_string(json_object *o, const char *key, const char *value);
int json_add_bool(json_object *o, const char *key, bool value);
int json_add_int(json_object *o, const char *key, int64_t value);
/* Adds v under key (o an object) or at the end (o an array, key NULL); always takes v. */
int json_add(json_object *o, const char *key, json_object *v);
/*
 * Adds "schema": "netpolld.NAME/1" to a top-level output object: the name
 * and version of its schema (docs/schema/netpollctl-NAME.v1.json). The
 * version changes only when a key is removed, renamed or changes type;
 * new keys keep it (netpollctl(8), OUTPUT).
 */
#define CTL_JSON_SCHEMA_VERSION 1u
int json_add_schema(json_object *o, const char *name);

/* Prints o pretty-printed (pretty) or on one line, then a newline. 0 or -ENOMEM/-EIO. */
int ctl_print_json(json_object *o, bool pretty);

/*
 * The verbs. argv[0] is the verb; the argument count is already checked.
 * Each connects (ctl_open_bus) only after checking its own syntax, so that
 * a malformed command is a usage error even when the bus is unreachable.
 */
CtlStatus verb_status(int argc, char **argv);
CtlStatus verb_list(int argc, char **argv);
CtlStatus verb_get(int argc, char **argv);
CtlStatus verb_explain(int argc, char **argv);
CtlStatus verb_set(int argc, char **argv);
CtlStatus verb_reset(int argc, char **argv);
CtlStatus verb_profile(int argc, char **argv);
/* profile import-tuned NAME|PATH: offline, no bus (verb-import-tuned.c). */
CtlStatus verb_import_tuned(const char *source);
CtlStatus verb_reload(int argc, char **argv);
CtlStatus verb_monitor(int argc, char **argv);
CtlStatus verb_irq(int argc, char **argv);
CtlStatus verb_metrics(int argc, char **argv);
CtlStatus verb_pause(int argc, char **argv);
CtlStatus verb_resume(int argc, char **argv);
