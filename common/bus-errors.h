/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * bus-errors.h: the org.netpolld1.Error.* names, written out only here.
 * netpolld sets them, netpollctl tells them apart, docs/dbus.md "Errors"
 * says when each comes. bus_error_map gives each its errno: the daemon maps
 * a manager errno to its name with it, and once a client has passed it to
 * sd_bus_error_add_map(), sd_bus_error_get_errno() and the return values of
 * sd_bus_call() carry that errno instead of EIO.
 */
#pragma once

#include <errno.h>
#include <systemd/sd-bus.h>

#define BUS_ERROR_PREFIX "org.netpolld1.Error."

#define BUS_ERROR_UNKNOWN_KNOB BUS_ERROR_PREFIX "UnknownKnob"
#define BUS_ERROR_INVALID_VALUE BUS_ERROR_PREFIX "InvalidValue"
#define BUS_ERROR_UNSUPPORTED BUS_ERROR_PREFIX "Unsupported"
#define BUS_ERROR_NO_DEVICE BUS_ERROR_PREFIX "NoSuchDevice"
#define BUS_ERROR_KERNEL_REFUSED BUS_ERROR_PREFIX "KernelRefused"
#define BUS_ERROR_UNKNOWN_PROFILE BUS_ERROR_PREFIX "UnknownProfile"
#define BUS_ERROR_INVALID_PROFILE BUS_ERROR_PREFIX "InvalidProfile"
#define BUS_ERROR_FAILED BUS_ERROR_PREFIX "Failed"

/*
 * Name <-> errno, one errno per name (the daemon looks names up by errno;
 * the errnos are the manager's MANAGER_E_* codes). Failed is the fallback
 * for every other errno.
 */
static const sd_bus_error_map bus_error_map[] __attribute__((unused)) = {
        SD_BUS_ERROR_MAP(BUS_ERROR_UNKNOWN_KNOB, ENOENT),
        SD_BUS_ERROR_MAP(BUS_ERROR_INVALID_VALUE, EINVAL),
        SD_BUS_ERROR_MAP(BUS_ERROR_UNSUPPORTED, EOPNOTSUPP),
        SD_BUS_ERROR_MAP(BUS_ERROR_NO_DEVICE, ENODEV),
        SD_BUS_ERROR_MAP(BUS_ERROR_KERNEL_REFUSED, EREMOTEIO),
        SD_BUS_ERROR_MAP(BUS_ERROR_UNKNOWN_PROFILE, ESRCH),
        SD_BUS_ERROR_MAP(BUS_ERROR_INVALID_PROFILE, EBADMSG),
        SD_BUS_ERROR_MAP(BUS_ERROR_FAILED, EIO),
        SD_BUS_ERROR_MAP_END
};

/* The name for a negative errno: its entry in bus_error_map, else BUS_ERROR_FAILED. */
static inline const char *bus_error_name_from_errno(int r) {
        for (const sd_bus_error_map *e = bus_error_map; e->name; e++)
                if (e->code == -r)
                        return e->name;
        return BUS_ERROR_FAILED;
}
