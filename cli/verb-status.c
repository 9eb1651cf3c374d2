/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * verb-status.c: netpollctl status: the daemon's properties (one GetAll
 * call: profile, mode with the runnable-depth source and PSI use, ...) and a
 * summary of ListKnobs: how many knobs come from which origin and which
 * knobs this kernel lacks, then the values netpolld found changed behind
 * its back and who most likely set them (GetOtherOwners).
 */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include "format.h"
#include "netpollctl.h"

/* Origins in the order the summary shows them. */
static const char *const known_origins[] = { "profile", "manual", "adaptive", "external", "default" };

typedef struct OriginCount {
        const char *origin;
        unsigned count;
} OriginCount;

/* Counts supported knobs per origin (unsupported ones are listed apart); *ret has n_known + n slots. */
static int count_origins(const KnobInfo *knobs, size_t n, OriginCount **ret, size_t *ret_n) {
        OriginCount *c = calloc(ELEMENTSOF(known_origins) + n, sizeof(OriginCount));
        size_t m = ELEMENTSOF(known_origins);

        if (!c)
                return -ENOMEM;
        for (size_t i = 0; i < m; i++)
                c[i].origin = known_origins[i];

        for (size_t i = 0; i < n; i++) {
                size_t j;

                if (!knobs[i].supported)
                        continue;
                for (j = 0; j < m; j++)
                        if (streq(c[j].origin, knobs[i].origin))
                                break;
                if (j == m)
                        c[m++].origin = knobs[i].origin;
                c[j].count++;
        }
        *ret = c;
        *ret_n = m;
        return 0;
}

/* Microseconds as a person reads them: the largest unit that keeps the number whole. */
static const char *format_interval(char *buf, size_t size, uint64_t us) {
        if (us != 0 && us % 1000000 == 0)
                snprintf(buf, size, "%" PRIu64 "s", us / 1000000);
        else if (us != 0 && us % 1000 == 0)
                snprintf(buf, size, "%" PRIu64 "ms", us / 1000);
        else
                snprintf(buf, size, "%" PRIu64 "us", us);
        return buf;
}

static const char *na(const char *s) {
        return s && s[0] ? s : "n/a";
}

/* The values somebody else holds (GetOtherOwners("")), one line each, their likely owners after. */
static void print_outside(const OwnerRow *rows, size_t n) {
        char buf[512];

        for (size_t i = 0; i < n; i++) {
                bool first = i == 0 || !streq(rows[i - 1].target, rows[i].target);

                if (first)
                        printf("%s%s = %s, set by %s\n", i == 0 ? "Outside changes (left alone):\n  " : "  ",
                               rows[i].target, rows[i].value[0] ? rows[i].value : "?",
                               ctl_owner_text(&rows[i], buf, sizeof(buf)));
                else
                        printf("    or by %s\n", ctl_owner_text(&rows[i], buf, sizeof(buf)));
        }
}

static int json_outside(json_object *o, const OwnerRow *rows, size_t n) {
        json_object *a = json_object_new_array();
        int r = a ? json_add(o, "outside_changes", a) : -ENOMEM;

        for (size_t i = 0; r >= 0 && i < n; i++) {
                json_object *x;

                if (i > 0 && streq(rows[i - 1].target, rows[i].target))
                        continue;
                x = json_object_new_object();
                r = x ? json_add(a, NULL, x) : -ENOMEM;
                if (r >= 0)
                        r = json_add_string(x, "target", rows[i].target);
                if (r >= 0)
                        r = json_add_string(x, "value", rows[i].value);
                if (r >= 0)
                        r = ctl_json_owners(x, rows[i].target, rows + i, n - i);
        }
        return r;
}

static void print_human(const Properties *p, const OriginCount *c, size_t n_c, const KnobInfo *knobs, size_t n) {
        bool first;
        char buf[256];

        if (p->profile_path && p->profile_path[0])
                printf("Profile: %s (%s)\n", na(p->profile), p->profile_path);
        else
                printf("Profile: %s\n", na(p->profile));
        /* Only from a daemon that has rules: older ones do not report them. */
        if (p->active_rule)
                printf("Rule: %s\n", p->active_rule[0] ? p->active_rule : "none");
        if (p->active_rule && p->active_rule[0])
                printf("Rule profile: %s\n", na(p->rule_profile));
        if (p->pinned >= 0)
                printf("Pinned: %s\n", p->pinned ? "yes (netpollctl profile release hands the choice back to the rules)"
                                                  : "no");
        printf("Mode: %s\n", format_mode(buf, sizeof(buf), p->mode, p->runqueue_source, p->pressure));
        printf("Dry run: %s\n", p->dry_run < 0 ? "n/a" : p->dry_run ? "yes" : "no");
        printf("Interval: %s\n", p->interval_us == UINT64_MAX ? "n/a" : format_interval(buf, sizeof(buf), p->interval_us));
        printf("State: %s\n", na(p->state_dir));
        /* Only a test or a chroot setup moves it; production output stays short. */
        if (p->sysroot && p->sysroot[0] && !streq(p->sysroot, "/"))
                printf("Sysroot: %s\n", p->sysroot);

        fputs("Knobs:", stdout);
        first = true;
        for (size_t i = 0; i < n_c; i++)
                if (c[i].count > 0) {
                        printf("%s %u %s", first ? "" : ",", c[i].count, c[i].origin);
                        first = false;
                }
        puts(first ? " none supported" : "");

        /* The "patch" field of an unsupported knob says what it needs: a patch file or a newer Linux. */
        first = true;
        for (size_t i = 0; i < n; i++)
                if (!knobs[i].supported && endswith(knobs[i].patch, ".patch")) {
                        printf("%s%s (%s)", first ? "Needs kernel patches: " : ", ", knobs[i].name, knobs[i].patch);
                        first = false;
                }
        if (!first)
                putchar('\n');

        first = true;
        for (size_t i = 0; i < n; i++)
                if (!knobs[i].supported && !endswith(knobs[i].patch, ".patch")) {
                        printf("%s%s", first ? "Unsupported by this kernel: " : ", ", knobs[i].name);
                        if (knobs[i].patch[0])
                                printf(" (needs %s)", knobs[i].patch);
                        first = false;
                }
        if (!first)
                putchar('\n');
}

static int build_json(const Properties *p, const OriginCount *c, size_t n_c, const KnobInfo *knobs, size_t n,
                      json_object **ret) {
        _cleanup_(json_object_putp) json_object *o = json_object_new_object();
        json_object *by_origin, *unsupported;
        int r;

        if (!o)
                return -ENOMEM;
        if ((r = json_add_schema(o, "status")) < 0 ||
            (r = json_add_string(o, "version", p->version)) < 0 ||
            (r = json_add_string(o, "profile", p->profile)) < 0 ||
            (r = json_add_string(o, "profile_path", p->profile_path)) < 0 ||
            (r = json_add_string(o, "mode", p->mode)) < 0 ||
            (r = json_add_string(o, "runqueue_source", p->runqueue_source)) < 0 ||
            (r = p->pressure < 0 ? json_add(o, "pressure", NULL) : json_add_bool(o, "pressure", p->pressure)) < 0 ||
            (r = p->dry_run < 0 ? json_add(o, "dry_run", NULL) : json_add_bool(o, "dry_run", p->dry_run)) < 0 ||
            (r = p->interval_us == UINT64_MAX ? json_add(o, "interval_us", NULL)
                                              : json_add_int(o, "interval_us", (int64_t) p->interval_us)) < 0 ||
            (r = json_add_string(o, "state_dir", p->state_dir)) < 0 ||
            (r = json_add_string(o, "sysroot", p->sysroot)) < 0 ||
            (r = json_add_string(o, "active_rule", p->active_rule && p->active_rule[0] ? p->active_rule : NULL)) < 0 ||
            (r = json_add_string(o, "rule_profile",
                                 p->rule_profile && p->rule_profile[0] ? p->rule_profile : NULL)) < 0 ||
            (r = p->pinned < 0 ? json_add(o, "profile_pinned", NULL)
                               : json_add_bool(o, "profile_pinned", p->pinned)) < 0)
                return r;

        /* Added to o first (which then owns them) and filled after, so nothing can leak. */
        by_origin = json_object_new_object();
        r = by_origin ? json_add(o, "knobs_by_origin", by_origin) : -ENOMEM;
        for (size_t i = 0; r >= 0 && i < n_c; i++)
                r = json_add_int(by_origin, c[i].origin, c[i].count);
        if (r < 0)
                return r;

        unsupported = json_object_new_array();
        r = unsupported ? json_add(o, "unsupported", unsupported) : -ENOMEM;
        for (size_t i = 0; r >= 0 && i < n; i++) {
                json_object *u;

                if (knobs[i].supported)
                        continue;
                u = json_object_new_object();
                r = u ? json_add(unsupported, NULL, u) : -ENOMEM;
                if (r >= 0)
                        r = json_add_string(u, "name", knobs[i].name);
                if (r >= 0)
                        r = json_add_string(u, "patch", knobs[i].patch);
        }
        if (r < 0)
                return r;

        *ret = TAKE_PTR(o);
        return 0;
}

CtlStatus verb_status(int argc, char **argv) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *props_reply = NULL, *knobs_reply = NULL, *owners_reply = NULL;
        _cleanup_(freep) OwnerRow *owners = NULL;
        size_t n_owners = 0;
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        _cleanup_(json_object_putp) json_object *o = NULL;
        _cleanup_(freep) OriginCount *counts = NULL;
        _cleanup_(freep) KnobInfo *knobs = NULL;
        size_t n_knobs, n_counts;
        Properties p = PROPERTIES_INIT;
        int r;

        if (ctl_open_bus(&bus) < 0)
                return CTL_FAILED;

        r = ctl_get_properties(bus, &error, &props_reply, &p);
        if (r < 0)
                return ctl_bus_failed(&error, r);
        r = ctl_list_knobs(bus, &error, &knobs_reply, &knobs, &n_knobs);
        if (r < 0)
                return ctl_bus_failed(&error, r);
        r = ctl_get_other_owners(bus, "", &error, &owners_reply, &owners, &n_owners);
        if (r < 0)
                return ctl_bus_failed(&error, r);
        r = count_origins(knobs, n_knobs, &counts, &n_counts);
        if (r < 0)
                return ctl_failed(r, "cannot summarize the knobs");

        if (!arg_json) {
                print_human(&p, counts, n_counts, knobs, n_knobs);
                print_outside(owners, n_owners);
                return CTL_OK;
        }

        r = build_json(&p, counts, n_counts, knobs, n_knobs, &o);
        if (r >= 0)
                r = json_outside(o, owners, n_owners);
        if (r >= 0)
                r = ctl_print_json(o, true);
        return r < 0 ? ctl_failed(r, "cannot print the JSON output") : CTL_OK;
}
