/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * bus-logcontrol.c: the org.freedesktop.LogControl1 object. Its properties
 * are views of common/log.c's global level and target: reading is open,
 * setting passes the same gate as the Manager's changes
 * (bus_check_privileged) and emits PropertiesChanged when the value changes.
 */
#include "bus-logcontrol.h"

#include <errno.h>

#include "bus.h"
#include "log.h"

/* The identifier netpolld's journal entries carry (log_set_program in main). */
#define SYSLOG_IDENTIFIER "netpolld"

static void emit_changed(sd_bus *bus, const char *property) {
        int r = sd_bus_emit_properties_changed(bus, LOG_CONTROL_PATH, LOG_CONTROL_INTERFACE, property, NULL);
        if (r < 0)
                log_warning_errno(r, "could not emit PropertiesChanged for %s: %m, ignoring", property);
}

/* The word a Set call brings, once its sender passed the gate. */
static int read_new_value(sd_bus_message *value, sd_bus_error *error, const char **ret) {
        int r = bus_check_privileged(value, error);
        if (r < 0)
                return r;
        return sd_bus_message_read(value, "s", ret);
}

static int property_get_log_level(sd_bus *bus, const char *path, const char *interface, const char *property,
                                  sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        return sd_bus_message_append(reply, "s", log_level_to_string(log_get_max_level()));
}

static int property_set_log_level(sd_bus *bus, const char *path, const char *interface, const char *property,
                                  sd_bus_message *value, void *userdata, sd_bus_error *error) {
        const char *s;
        int level, old, r;

        r = read_new_value(value, error, &s);
        if (r < 0)
                return r;
        level = log_level_from_string(s);
        if (level < 0)
                return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS,
                                         "invalid log level '%s': expected one of " LOG_LEVEL_NAMES ", or 0-7", s);
        old = log_get_max_level();
        if (level == old)
                return 0;
        log_set_max_level(level);
        log_info("log level set to %s (was %s)", log_level_to_string(level), log_level_to_string(old));
        emit_changed(bus, property);
        return 0;
}

static int property_get_log_target(sd_bus *bus, const char *path, const char *interface, const char *property,
                                   sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        return sd_bus_message_append(reply, "s", log_target_to_string(log_get_target()));
}

static int property_set_log_target(sd_bus *bus, const char *path, const char *interface, const char *property,
                                   sd_bus_message *value, void *userdata, sd_bus_error *error) {
        const char *s;
        LogTarget old;
        int target, r;

        r = read_new_value(value, error, &s);
        if (r < 0)
                return r;
        /* No kmsg: the unit's PrivateDevices=yes hides /dev/kmsg. No syslog: journald has it all. */
        target = log_target_from_string(s);
        if (target < 0)
                return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS,
                                         "netpolld cannot log to '%s': expected one of " LOG_TARGET_NAMES, s);
        old = log_get_target();
        if ((LogTarget)target == old)
                return 0;
        /* Said before the switch: whoever watches the old place learns where the messages went. */
        log_info("log target set to %s (was %s)", log_target_to_string(target), log_target_to_string(old));
        log_set_target(target);
        emit_changed(bus, property);
        return 0;
}

static int property_get_syslog_identifier(sd_bus *bus, const char *path, const char *interface,
                                          const char *property, sd_bus_message *reply, void *userdata,
                                          sd_bus_error *error) {
        return sd_bus_message_append(reply, "s", SYSLOG_IDENTIFIER);
}

/* The setters check privilege themselves (read_new_value): BUS_PRIVILEGED, bus.h. */
const sd_bus_vtable bus_log_control_vtable[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_WRITABLE_PROPERTY("LogLevel", "s", property_get_log_level, property_set_log_level, 0,
                                 BUS_PRIVILEGED | SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_WRITABLE_PROPERTY("LogTarget", "s", property_get_log_target, property_set_log_target, 0,
                                 BUS_PRIVILEGED | SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("SyslogIdentifier", "s", property_get_syslog_identifier, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_VTABLE_END,
};
