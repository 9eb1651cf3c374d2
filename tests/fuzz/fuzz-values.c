/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * fuzz-values.c: the parsers of values users and the kernel type (units.h,
 * cpuset.h, knob references and values, NAPI references, the conf-values.c
 * parsers). The first byte picks the parser (and for knob values the catalog
 * entry), the rest is the text. What parses must format back to text that
 * parses to the same value.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf-parser.h"
#include "cpuset.h"
#include "fuzz.h"
#include "knob.h"
#include "macro.h"
#include "napi.h"
#include "units.h"

static const uint64_t time_bases[] = { 1, NSEC_PER_USEC, NSEC_PER_MSEC, NSEC_PER_SEC };

static void units(uint8_t sel, const char *s) {
        const char *reason = NULL;
        uint64_t v, w;
        bool b;

        switch (sel % 3) {
        case 0:
                if (parse_u64(s, &v, &reason) == 0) {
                        char buf[32];
                        snprintf(buf, sizeof(buf), "%" PRIu64, v);
                        fuzz_assert(parse_u64(buf, &w, NULL) == 0 && w == v);
                } else
                        fuzz_assert(reason);
                break;
        case 1: {
                uint64_t base = time_bases[(sel / 3) % ELEMENTSOF(time_bases)];
                if (parse_time(s, base, &v, &reason) == 0) {
                        char buf[64];
                        format_time(buf, sizeof(buf), v, base);
                        fuzz_assert(parse_time(buf, base, &w, NULL) == 0 && w == v);
                } else
                        fuzz_assert(reason);
                break;
        }
        case 2:
                if (parse_bool(s, &b, &reason) < 0)
                        fuzz_assert(reason);
                break;
        }
}

static void cpusets(uint8_t sel, const char *s) {
        _cleanup_(freep) char *text = NULL;
        const char *reason = NULL;
        CpuSet a, b;

        if (sel % 2 == 0) {
                if (cpuset_parse_list(s, &a, &reason) < 0) {
                        fuzz_assert(reason);
                        return;
                }
                text = cpuset_format_list(&a);
                fuzz_assert(text);
                fuzz_assert(cpuset_parse_list(text, &b, NULL) == 0 && cpuset_equal(&a, &b));
        } else {
                int last;

                if (cpuset_parse_mask(s, &a, &reason) < 0) {
                        fuzz_assert(reason);
                        return;
                }
                last = cpuset_last(&a);
                text = cpuset_format_mask(&a, last < 0 ? 1 : (unsigned)last + 1);
                fuzz_assert(text);
                fuzz_assert(cpuset_parse_mask(text, &b, NULL) == 0 && cpuset_equal(&a, &b));
        }
}

static void refs(uint8_t sel, const char *s) {
        const char *reason = NULL;
        char buf[128];

        if (sel % 2 == 0) {
                KnobRef a, b;
                if (knob_ref_parse(s, &a, &reason) < 0) {
                        fuzz_assert(reason);
                        return;
                }
                knob_ref_format(&a, buf, sizeof(buf));
                fuzz_assert(knob_ref_parse(buf, &b, NULL) == 0);
                fuzz_assert(a.desc == b.desc && strcmp(a.device, b.device) == 0);
        } else {
                NapiRef a, b;
                if (napi_ref_parse(s, &a, &reason) < 0) {
                        fuzz_assert(reason);
                        return;
                }
                napi_ref_format(&a, buf, sizeof(buf));
                fuzz_assert(napi_ref_parse(buf, &b, NULL) == 0);
                fuzz_assert(a.knob == b.knob && strcmp(a.device, b.device) == 0 && a.napi_id == b.napi_id);
                if (a.napi_id == 0)
                        fuzz_assert(a.kind == b.kind && a.index == b.index);
        }
}

static const KnobDesc *pick_desc(uint8_t sel) {
        size_t n = knob_catalog_size + _NAPI_KNOB_MAX;
        size_t i = sel % n;
        return i < knob_catalog_size ? &knob_catalog[i] : napi_knob_desc((NapiKnob)(i - knob_catalog_size));
}

static void knob_values(uint8_t sel, bool kernel, const char *s) {
        const KnobDesc *d = pick_desc(sel);
        _cleanup_(freep) char *text = NULL;
        const char *reason = NULL;
        KnobValue a = {}, b = {};

        if (kernel) {
                if (knob_parse_kernel(d, s, &a) < 0)
                        return;
                text = knob_format_kernel(d, &a);
                fuzz_assert(text);
                fuzz_assert(knob_parse_kernel(d, text, &b) == 0);
        } else {
                if (knob_parse_value(d, s, &a, &reason) < 0) {
                        fuzz_assert(reason);
                        return;
                }
                text = knob_format_value(d, &a);
                fuzz_assert(text);
                fuzz_assert(knob_parse_value(d, text, &b, NULL) == 0);
        }
        fuzz_assert(knob_value_equal(d, &a, &b));
}

static void conf_values(uint8_t sel, const char *s) {
        static const ConfigParser parsers[] = {
                conf_parse_bool,  conf_parse_time_ms, conf_parse_time_us, conf_parse_count,
                conf_parse_count_uint, conf_parse_percent, conf_parse_milli, conf_parse_cpuset,
        };
        /* Ranges as the tables use them: open, and a narrow one whose bounds appear in messages. */
        const ConfigItem item = {
                .section = "fuzz",
                .key = "value",
                .min = sel & 0x80 ? 10 : 0,
                .max = sel & 0x80 ? 60000000 : UINT64_MAX,
        };
        _Alignas(CpuSet) unsigned char field[sizeof(CpuSet)] = {};
        _cleanup_(freep) char *msg = NULL;
        int r;

        r = parsers[sel % ELEMENTSOF(parsers)](&item, s, field, &msg);
        if (r < 0)
                fuzz_assert(msg && *msg);
        else
                fuzz_assert(!msg);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        _cleanup_(freep) char *s = NULL;
        uint8_t what, sel;

        if (size < 2 || size > 4096)
                return 0;
        what = data[0];
        sel = data[1];
        s = fuzz_text(data + 2, size - 2);
        if (!s)
                return 0;
        switch (what % 6) {
        case 0: units(sel, s); break;
        case 1: cpusets(sel, s); break;
        case 2: refs(sel, s); break;
        case 3: knob_values(sel, false, s); break;
        case 4: knob_values(sel, true, s); break;
        case 5: conf_values(sel, s); break;
        }
        return 0;
}
