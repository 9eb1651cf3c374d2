/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * output.c: netpollctl's output helpers shared by the verbs: JSON building
 * and printing (json-c), and the knob table that list and monitor print.
 */
#include <errno.h>
#include <stdio.h>

#include "netpollctl.h"
#include "table.h"

int json_add(json_object *o, const char *key, json_object *v) {
        int r;

        if (json_object_is_type(o, json_type_array))
                r = json_object_array_add(o, v);
        else
                r = json_object_object_add(o, key, v);
        if (r < 0) {
                /* json-c leaves v with us when it cannot store it. */
                json_object_put(v);
                return -ENOMEM;
        }
        return 0;
}

int json_add_string(json_object *o, const char *key, const char *value) {
        json_object *v = NULL;

        if (value) {
                v = json_object_new_string(value);
                if (!v)
                        return -ENOMEM;
        }
        return json_add(o, key, v);
}

int json_add_bool(json_object *o, const char *key, bool value) {
        json_object *v = json_object_new_boolean(value);

        if (!v)
                return -ENOMEM;
        return json_add(o, key, v);
}

int json_add_int(json_object *o, const char *key, int64_t value) {
        json_object *v = json_object_new_int64(value);

        if (!v)
                return -ENOMEM;
        return json_add(o, key, v);
}

int json_add_schema(json_object *o, const char *name) {
        char buf[64];

        snprintf(buf, sizeof(buf), "netpolld.%s/%u", name, CTL_JSON_SCHEMA_VERSION);
        return json_add_string(o, "schema", buf);
}

int ctl_print_json(json_object *o, bool pretty) {
        /* Paths are common in our output: do not write them as "\/usr\/share". */
        int flags = (pretty ? JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED : JSON_C_TO_STRING_PLAIN) |
                    JSON_C_TO_STRING_NOSLASHESCAPE;
        const char *s = json_object_to_json_string_ext(o, flags);

        if (!s)
                return -ENOMEM;
        if (puts(s) == EOF)
                return -EIO;
        return 0;
}

const char *ctl_kernel_column(const KnobInfo *k, char *buf, size_t size) {
        if (k->supported)
                return "yes";
        if (k->patch && k->patch[0]) {
                snprintf(buf, size, "needs %s", k->patch);
                return buf;
        }
        return "no";
}

int ctl_print_knob_table(const KnobInfo *knobs, size_t n) {
        static const char *const headers[] = { "knob", "value", "origin", "kernel" };
        _cleanup_(table_freep) Table *t = NULL;
        int r;

        r = table_new(&t, ELEMENTSOF(headers), headers);
        if (r < 0)
                return r;
        for (size_t i = 0; i < n; i++) {
                char buf[256];

                r = table_add_cells(t, knobs[i].name, knobs[i].value, knobs[i].origin,
                                    ctl_kernel_column(&knobs[i], buf, sizeof(buf)));
                if (r < 0)
                        return r;
        }
        return table_print(t, stdout);
}
