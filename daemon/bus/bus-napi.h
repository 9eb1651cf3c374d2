/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * bus-napi.h: per-NAPI knob references in GetKnob/SetKnob/SetKnobs
 * ("KNOB@DEV:napi-ID", "KNOB@DEV:rx-N"), served by irqpin over netlink
 * instead of the manager's files. Internal to the bus object.
 */
#pragma once

#include <stdbool.h>
#include <systemd/sd-bus.h>

#include "manager.h"

bool is_napi_ref(const char *name);
/*
 * The owner's target of a per-NAPI reference, its catalog entry and its value
 * now (GetKnob, Explain); the D-Bus error is set on failure.
 */
int napi_resolve(Manager *m, const char *name, Target *ret, const KnobDesc **ret_desc, uint64_t *ret_value,
                 sd_bus_error *error);
/* Replies to GetKnob with (value, origin). */
int get_napi(sd_bus_message *message, Manager *m, const char *name, sd_bus_error *error);
/* Replies to SetKnob with the value the kernel holds. */
int set_napi(sd_bus_message *message, Manager *m, const char *name, const char *value, sd_bus_error *error);
/* Replies to SetKnobs with the one pair. */
int set_napi_pairs(sd_bus_message *message, Manager *m, const char *name, const char *value, sd_bus_error *error);
/* Replies to ResetKnob with the value after putting back the original. */
int reset_napi(sd_bus_message *message, Manager *m, const char *name, sd_bus_error *error);
