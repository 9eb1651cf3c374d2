/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * test-profile.c: profile files: [profile], [knobs], [adaptive] and [irq]
 * keys (every error as exact text with file and line), the cross-checks,
 * include chains, the profile search path, and each profile's line in ListProfiles.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "macro.h"
#include "policy-fixture.h"
#include "policy.h"
#include "testutil.h"

/* Loads the profile (name looked up in the fixture dir) expecting failure r; returns the errors. */
static char **profile_errors(const char *name, int r) {
        Profile *p = NULL;
        char **errs = NULL;

        ck_assert_int_eq(profile_load(&p, name, dirs(), &errs), r);
        ck_assert_ptr_null(p);
        return errs;
}

static Profile *profile_ok(const char *name) {
        _cleanup_(strv_freep) char **errs = NULL;
        Profile *p = NULL;
        int r = profile_load(&p, name, dirs(), &errs);

        ck_assert_msg(r == 0, "profile_load(%s): %d, first error: %s", name, r, errs && errs[0] ? errs[0] : "-");
        ck_assert_ptr_null(errs);
        return p;
}

static const ProfileKnob *knob(const Profile *p, const char *ref) {
        KnobRef r;
        ck_assert_int_eq(knob_ref_parse(ref, &r, NULL), 0);
        return profile_get_knob(p, &r);
}

static void assert_origin(const Origin *o, const char *file_tmpl, unsigned line) {
        _cleanup_(freep) char *f = subst(file_tmpl, dir);
        ck_assert_str_eq(o->file, f);
        ck_assert_uint_eq(o->line, line);
}

/* ---- profile sections and keys ---- */

START_TEST(test_profile_unknown_section_and_keys) {
        _cleanup_(strv_freep) char **errs = NULL;

        write_file("p.conf", "[profile]\ndescr = x\n[knobs]\nno-such-knob = 1\n[adaptive]\nenable = yes\n"
                             "[irq]\ndevice = eth0\n[foo]\nbar = 1\n");
        errs = profile_errors("p", -EINVAL);
        assert_errors(errs, "$D/p.conf:2: [profile] descr: unknown key (expected one of: description, include)",
                      "$D/p.conf:4: [knobs] no-such-knob: unknown knob (see `netpollctl list`)",
                      "$D/p.conf:6: [adaptive] enable: unknown key (expected one of: enabled, runqueue-threshold, "
                      "hold, min-dwell, busy-poll-floor, poll-cpus, pay-window, squeeze-threshold, budget-step, "
                      "netdev-budget-max, netdev-budget-time-max, softirq-budget-max, quiet-period, live-sockets)",
                      "$D/p.conf:8: [irq] device: unknown key (expected one of: devices, strategy, cpus, "
                      "exclude-cpus, rps, xps, irqbalance-ban)",
                      "$D/p.conf:9: [foo]: unknown section (expected [profile], [knobs], [adaptive] or [irq])");
}
END_TEST

START_TEST(test_knobs_bad_entries) {
        _cleanup_(strv_freep) char **errs = NULL;

        write_file("p.conf", "[knobs]\nbusy-read = 5x\nbusy-poll = 3000s\nnetdev-budget = 300\nnetdev-budget = 600\n"
                             "gro-flush-timeout = 10us\nbusy-read@eth0 = 1\n");
        errs = profile_errors("p", -EINVAL);
        assert_errors(errs,
                      "$D/p.conf:2: [knobs] busy-read: invalid value '5x': unknown unit; expected ns, us, ms or s; "
                      "expected a time such as 50us or 2ms (a bare number is us), from 0us to 2147483647us",
                      "$D/p.conf:3: [knobs] busy-poll: invalid value '3000s': out of range; expected a time such as "
                      "50us or 2ms (a bare number is us), from 0us to 2147483647us",
                      "$D/p.conf:5: [knobs] netdev-budget: set twice (first on line 4)",
                      "$D/p.conf:6: [knobs] gro-flush-timeout: knob is per device: write NAME@DEVICE",
                      "$D/p.conf:7: [knobs] busy-read@eth0: knob is global and takes no @device");
}
END_TEST

/* The patched kernel bounds softirq runs by its clock: 100..100000us at any HZ, below a jiffy too. */
START_TEST(test_knobs_softirq_budget_range) {
        static const char *const refused[] = { "99us", "100001us" };
        _cleanup_(profile_freep) Profile *p = NULL;
        char text[64], want[256];

        for (size_t i = 0; i < ELEMENTSOF(refused); i++) {
                _cleanup_(strv_freep) char **errs = NULL;

                snprintf(text, sizeof(text), "[knobs]\nsoftirq-budget = %s\n", refused[i]);
                snprintf(want, sizeof(want), "$D/p.conf:2: [knobs] softirq-budget: invalid value '%s': out of range; "
                         "expected a time such as 50us or 2ms (a bare number is us), from 100us to 100000us",
                         refused[i]);
                write_file("p.conf", text);
                errs = profile_errors("p", -EINVAL);
                assert_errors(errs, want);
        }

        write_file("p.conf", "[knobs]\nsoftirq-budget = 500us\n[adaptive]\nsoftirq-budget-max = 2ms\n");
        p = profile_ok("p");
        ck_assert_uint_eq(knob(p, "softirq-budget")->value.num, 500);
        ck_assert_uint_eq(p->adaptive.softirq_budget_max_us, 2000);
}
END_TEST

START_TEST(test_knobs_values_and_origins) {
        _cleanup_(profile_freep) Profile *p = NULL;
        const ProfileKnob *k;

        write_file("p.conf", "[profile]\ndescription = Knob test\n[knobs]\nbusy-read = 1.5ms\n"
                             "gro-flush-timeout@eth1 = 20us\nrps-cpus@eth1 = 0-1,3\n");
        p = profile_ok("p");
        ck_assert_str_eq(p->name, "p");
        ck_assert_str_eq(p->description, "Knob test");
        ck_assert_uint_eq(p->n_knobs, 3);
        k = knob(p, "busy-read");
        ck_assert_ptr_eq(k, &p->knobs[0]);
        ck_assert_uint_eq(k->value.num, 1500);
        assert_origin(&k->origin, "$D/p.conf", 4);
        k = knob(p, "gro-flush-timeout@eth1");
        ck_assert_ptr_nonnull(k);
        ck_assert_str_eq(k->ref.device, "eth1");
        ck_assert_uint_eq(k->value.num, 20000);
        k = knob(p, "rps-cpus@eth1");
        ck_assert_ptr_nonnull(k);
        ck_assert_uint_eq(cpuset_count(&k->value.cpus), 3);
        ck_assert_ptr_null(knob(p, "gro-flush-timeout@eth2"));
        ck_assert_ptr_null(knob(p, "busy-poll"));
}
END_TEST

START_TEST(test_adaptive_defaults) {
        _cleanup_(profile_freep) Profile *p = NULL;

        write_file("p.conf", "[profile]\n");
        p = profile_ok("p");
        ck_assert(!p->adaptive.enabled);
        ck_assert_uint_eq(p->adaptive.runqueue_threshold_milli, 1000);
        ck_assert_uint_eq(p->adaptive.hold, 3);
        ck_assert_uint_eq(p->adaptive.min_dwell_us, 1000000);
        ck_assert_uint_eq(p->adaptive.busy_poll_floor_us, 0);
        ck_assert_uint_eq(p->adaptive.squeeze_threshold, 100);
        ck_assert_uint_eq(p->adaptive.budget_step_percent, 25);
        ck_assert_uint_eq(p->adaptive.netdev_budget_max, 0);
        ck_assert_uint_eq(p->adaptive.netdev_budget_time_max_us, 0);
        ck_assert_uint_eq(p->adaptive.softirq_budget_max_us, 0);
        ck_assert_uint_eq(p->adaptive.quiet_period_us, 10000000);
        ck_assert(!p->adaptive.live_sockets);
        ck_assert_uint_eq(p->n_settings, 0);
        ck_assert_str_eq(p->description, "");
        ck_assert_ptr_null(p->irq.devices);
        ck_assert_int_eq(p->irq.strategy, IRQ_STRATEGY_SPREAD);
        ck_assert_int_eq(p->irq.rps, IRQ_MASK_AUTO);
        ck_assert_int_eq(p->irq.xps, IRQ_MASK_AUTO);
}
END_TEST

START_TEST(test_adaptive_every_key_parsed) {
        _cleanup_(profile_freep) Profile *p = NULL;

        write_file("p.conf", "[adaptive]\nenabled = yes\nrunqueue-threshold = 1.5\nhold = 5\nmin-dwell = 250\n"
                             "busy-poll-floor = 10\nsqueeze-threshold = 1000\nbudget-step = 50%\n"
                             "netdev-budget-max = 900\nnetdev-budget-time-max = 4ms\nsoftirq-budget-max = 3000\n"
                             "quiet-period = 30s\nlive-sockets = yes\n");
        p = profile_ok("p");
        ck_assert(p->adaptive.enabled);
        ck_assert_uint_eq(p->adaptive.runqueue_threshold_milli, 1500);
        ck_assert_uint_eq(p->adaptive.hold, 5);
        ck_assert_uint_eq(p->adaptive.min_dwell_us, 250000);
        ck_assert_uint_eq(p->adaptive.busy_poll_floor_us, 10);
        ck_assert_uint_eq(p->adaptive.squeeze_threshold, 1000);
        ck_assert_uint_eq(p->adaptive.budget_step_percent, 50);
        ck_assert_uint_eq(p->adaptive.netdev_budget_max, 900);
        ck_assert_uint_eq(p->adaptive.netdev_budget_time_max_us, 4000);
        ck_assert_uint_eq(p->adaptive.softirq_budget_max_us, 3000);
        ck_assert_uint_eq(p->adaptive.quiet_period_us, 30000000);
        ck_assert(p->adaptive.live_sockets);
        ck_assert_uint_eq(p->n_settings, 12);
        ck_assert_str_eq(p->settings[6].section, "adaptive");
        ck_assert_str_eq(p->settings[6].key, "budget-step");
        ck_assert_str_eq(p->settings[6].value, "50%");
        assert_origin(&p->settings[6].origin, "$D/p.conf", 8);
}
END_TEST

START_TEST(test_adaptive_bad_values) {
        static const char *const cases[][3] = {
                { "runqueue-threshold", "1.2345", "more than 3 decimal places" },
                { "runqueue-threshold", "-1", "negative values are not allowed" },
                { "runqueue-threshold", "0", "out of range" },
                { "runqueue-threshold", "abc", "not a decimal number" },
                { "runqueue-threshold", "1000.001", "out of range" },
        };
        static const char *const whole[][3] = {
                { "hold", "0", "invalid value '0': out of range; expected a whole number from 1 to 100" },
                { "hold", "101", "invalid value '101': out of range; expected a whole number from 1 to 100" },
                { "squeeze-threshold", "0", "invalid value '0': out of range; expected a whole number from 1 to "
                                            "1000000000" },
                { "netdev-budget-max", "-5", "invalid value '-5': negative values are not allowed; expected a whole "
                                             "number from 1 to 2147483647" },
                { "budget-step", "0%", "invalid value '0%': out of range; expected a percentage from 1 to 100 such "
                                       "as 25%" },
                { "budget-step", "25 %", "invalid value '25 %': spaces are not allowed; expected a percentage from "
                                         "1 to 100 such as 25%" },
                { "min-dwell", "3601s", "invalid value '3601s': out of range; expected a time such as 100ms or 1s "
                                        "(a bare number is ms), from 0ms to 3600s" },
                { "busy-poll-floor", "1.5", "invalid value '1.5': not a whole number of microseconds; expected a "
                                            "time such as 50us or 2ms (a bare number is us), from 0us to "
                                            "2147483647us" },
                { "netdev-budget-time-max", "0", "invalid value '0': out of range; expected a time such as 50us or "
                                                 "2ms (a bare number is us), from 1us to 2147483647us" },
                { "softirq-budget-max", "99", "invalid value '99': out of range; expected a time such as 50us or "
                                              "2ms (a bare number is us), from 100us to 100ms" },
                { "quiet-period", "500", "invalid value '500': out of range; expected a time such as 100ms or 1s (a "
                                         "bare number is ms), from 1s to 3600s" },
                { "poll-cpus", "1-x", "invalid value '1-x': expected a CPU number or a range such as 0-3; expected "
                                      "all or a CPU list such as 2-3,6" },
                { "poll-cpus", "3-1", "invalid value '3-1': range end is below its start; expected all or a CPU list "
                                      "such as 2-3,6" },
                { "poll-cpus", "", "invalid value '': empty CPU list; expected CPUs such as 0-3,8, or none; expected "
                                   "all or a CPU list such as 2-3,6" },
                { "pay-window", "-1s", "invalid value '-1s': negative values are not allowed; expected a time such "
                                       "as 100ms or 1s (a bare number is ms), from 0ms to 3600s" },
                { "enabled", "maybe", "invalid value 'maybe'; expected yes or no (true/false, on/off, 1/0)" },
        };
        char text[128], want[512];

        for (size_t i = 0; i < ELEMENTSOF(cases) + ELEMENTSOF(whole); i++) {
                const char *const *c = i < ELEMENTSOF(cases) ? cases[i] : whole[i - ELEMENTSOF(cases)];
                _cleanup_(strv_freep) char **errs = NULL;

                snprintf(text, sizeof(text), "[adaptive]\n%s = %s\n", c[0], c[1]);
                if (i < ELEMENTSOF(cases))
                        snprintf(want, sizeof(want),
                                 "$D/p.conf:2: [adaptive] %s: invalid value '%s': %s; expected a decimal number "
                                 "above 0 and at most 1000 with up to 3 decimal places, such as 1.5", c[0], c[1],
                                 c[2]);
                else
                        snprintf(want, sizeof(want), "$D/p.conf:2: [adaptive] %s: %s", c[0], c[2]);
                write_file("p.conf", text);
                errs = profile_errors("p", -EINVAL);
                assert_errors(errs, want);
        }
}
END_TEST

START_TEST(test_adaptive_cross_checks) {
        _cleanup_(strv_freep) char **errs = NULL;
        _cleanup_(profile_freep) Profile *p = NULL;

        write_file("p.conf", "[knobs]\nnetdev-budget = 300\nnetdev-budget-time = 8ms\nsoftirq-budget = 2ms\n"
                             "busy-read = 50\nbusy-poll = 20us\n[adaptive]\nnetdev-budget-max = 200\n"
                             "netdev-budget-time-max = 4000\nsoftirq-budget-max = 1ms\nbusy-poll-floor = 30us\n");
        errs = profile_errors("p", -EINVAL);
        assert_errors(errs,
                      "$D/p.conf:8: [adaptive] netdev-budget-max: 200 is below the profile's netdev-budget of 300 "
                      "($D/p.conf:2); expected at least 300",
                      "$D/p.conf:9: [adaptive] netdev-budget-time-max: 4000 is below the profile's "
                      "netdev-budget-time of 8000us ($D/p.conf:3); expected at least 8000us",
                      "$D/p.conf:10: [adaptive] softirq-budget-max: 1ms is below the profile's softirq-budget of "
                      "2000us ($D/p.conf:4); expected at least 2000us",
                      "$D/p.conf:11: [adaptive] busy-poll-floor: 30us is above the profile's busy-poll of 20us "
                      "($D/p.conf:6); expected at most 20us");

        /* Equal bounds are fine, and so is a bound on a knob the profile leaves alone. */
        write_file("p.conf", "[knobs]\nnetdev-budget = 300\nbusy-read = 50\n[adaptive]\nnetdev-budget-max = 300\n"
                             "busy-poll-floor = 50\nsoftirq-budget-max = 1ms\n");
        p = profile_ok("p");
        ck_assert_uint_eq(p->adaptive.netdev_budget_max, 300);
}
END_TEST

START_TEST(test_irq_every_key_parsed) {
        _cleanup_(profile_freep) Profile *p = NULL;

        write_file("p.conf", "[irq]\ndevices = eth0  enp*s0 veth[0-9]\nstrategy = cpus\ncpus = 0-3\n"
                             "exclude-cpus = 2\nrps = off\nxps = 0-1\nirqbalance-ban = yes\n");
        p = profile_ok("p");
        ck_assert(p->irq.irqbalance_ban);
        ck_assert_ptr_nonnull(p->irq.devices);
        ck_assert_str_eq(p->irq.devices[0], "eth0");
        ck_assert_str_eq(p->irq.devices[1], "enp*s0");
        ck_assert_str_eq(p->irq.devices[2], "veth[0-9]");
        ck_assert_ptr_null(p->irq.devices[3]);
        ck_assert_int_eq(p->irq.strategy, IRQ_STRATEGY_CPUS);
        ck_assert(p->irq.cpus_set);
        ck_assert_uint_eq(cpuset_count(&p->irq.cpus), 4);
        ck_assert(cpuset_has(&p->irq.exclude_cpus, 2));
        ck_assert_uint_eq(cpuset_count(&p->irq.exclude_cpus), 1);
        ck_assert_int_eq(p->irq.rps, IRQ_MASK_OFF);
        ck_assert_int_eq(p->irq.xps, IRQ_MASK_EXPLICIT);
        ck_assert_uint_eq(cpuset_count(&p->irq.xps_cpus), 2);
        ck_assert_uint_eq(p->n_settings, 7);
        ck_assert_str_eq(p->settings[0].value, "eth0  enp*s0 veth[0-9]");
}
END_TEST

START_TEST(test_irq_bad_values) {
        _cleanup_(strv_freep) char **errs = NULL;

        write_file("p.conf", "[irq]\ndevices = eth0 bad/name\nstrategy = round-robin\ncpus = none\n"
                             "exclude-cpus = 3-1\nrps = sometimes\nxps = 0,,1\nirqbalance-ban = maybe\n");
        errs = profile_errors("p", -EINVAL);
        assert_errors(errs,
                      "$D/p.conf:2: [irq] devices: invalid value 'eth0 bad/name': 'bad/name' is not an interface "
                      "name or pattern; expected interface names or fnmatch patterns (1 to 15 characters without "
                      "'/' or ':') separated by spaces, such as eth0 enp*",
                      "$D/p.conf:3: [irq] strategy: invalid value 'round-robin'; expected spread, pack or cpus",
                      "$D/p.conf:4: [irq] cpus: invalid value 'none': no CPUs; expected a CPU list such as 0-3,8",
                      "$D/p.conf:5: [irq] exclude-cpus: invalid value '3-1': range end is below its start; expected "
                      "a CPU list such as 0-3,8, or none",
                      "$D/p.conf:6: [irq] rps: invalid value 'sometimes': unknown mode; expected auto, off, keep or "
                      "a CPU list such as 0-3,8",
                      "$D/p.conf:7: [irq] xps: invalid value '0,,1': empty element; expected a CPU number or a range "
                      "such as 0-3; expected auto, off, keep or a CPU list such as 0-3,8",
                      "$D/p.conf:8: [irq] irqbalance-ban: invalid value 'maybe'; expected yes or no (true/false, "
                      "on/off, 1/0)");
}
END_TEST

START_TEST(test_irq_checks) {
        _cleanup_(strv_freep) char **errs = NULL, **errs2 = NULL;

        write_file("p.conf", "[irq]\nstrategy = pack\nrps = off\nirqbalance-ban = yes\n");
        errs = profile_errors("p", -EINVAL);
        assert_errors(errs, "$D/p.conf:2: [irq] strategy: has no effect without devices=",
                      "$D/p.conf:3: [irq] rps: has no effect without devices=",
                      "$D/p.conf:4: [irq] irqbalance-ban: has no effect without devices=");
        write_file("p.conf", "[irq]\ndevices = eth0\nstrategy = cpus\n");
        errs2 = profile_errors("p", -EINVAL);
        assert_errors(errs2, "$D/p.conf:3: [irq] strategy: strategy cpus needs cpus= (the CPUs to place IRQs on)");
}
END_TEST

START_TEST(test_irq_and_knobs_never_own_the_same_masks) {
        _cleanup_(strv_freep) char **errs = NULL;
        _cleanup_(profile_freep) Profile *p = NULL;
        _cleanup_(freep) char *path = tu_join(dir, "p.conf");
        _cleanup_(strv_freep) char **ok_errs = NULL;

        write_file("p.conf", "[knobs]\nrps-cpus@veth1 = 0\nxps-cpus@eth7 = 1\n[irq]\ndevices = veth*\n");
        errs = profile_errors("p", -EINVAL);
        assert_errors(errs, "$D/p.conf:2: [knobs] rps-cpus@veth1: veth1's queues are steered by [irq]; set rps= "
                            "there, or rps = keep to set them here");
        /* With rps = keep, [irq] leaves the RPS masks to [knobs]. */
        write_file("p.conf", "[knobs]\nrps-cpus@veth1 = 0\n[irq]\ndevices = veth*\nrps = keep\n");
        ck_assert_int_eq(profile_load(&p, path, NULL, &ok_errs), 0);
        KnobRef rps = { .desc = knob_find("rps-cpus") }, xps = { .desc = knob_find("xps-cpus") };
        strcpy(rps.device, "veth1");
        strcpy(xps.device, "veth1");
        ck_assert(!profile_steers_mask(p, &rps));
        ck_assert(profile_steers_mask(p, &xps));
        strcpy(xps.device, "eth0");
        ck_assert(!profile_steers_mask(p, &xps));
}
END_TEST

/* ---- include ---- */

START_TEST(test_include_child_overrides_parent) {
        _cleanup_(profile_freep) Profile *p = NULL;
        const ProfileKnob *k;

        write_file("base.conf", "[profile]\ndescription = Base profile\n[knobs]\nbusy-read = 10us\n"
                                "busy-poll = 20us\n[adaptive]\nhold = 5\nmin-dwell = 2s\n");
        write_file("child.conf", "[profile]\ninclude = base\n[knobs]\nnetdev-budget = 500\nbusy-read = 50us\n"
                                 "[adaptive]\nmin-dwell = 3s\n");
        p = profile_ok("child");
        ck_assert_str_eq(p->name, "child");
        ck_assert_str_eq(p->description, "Base profile"); /* the child has none */
        ck_assert_uint_eq(p->n_knobs, 3);
        /* Parent's keys first, each where the parent set it; the child's value and origin win. */
        ck_assert_str_eq(p->knobs[0].ref.desc->name, "busy-read");
        ck_assert_uint_eq(p->knobs[0].value.num, 50);
        assert_origin(&p->knobs[0].origin, "$D/child.conf", 5);
        ck_assert_str_eq(p->knobs[1].ref.desc->name, "busy-poll");
        ck_assert_uint_eq(p->knobs[1].value.num, 20);
        assert_origin(&p->knobs[1].origin, "$D/base.conf", 5);
        k = knob(p, "netdev-budget");
        ck_assert_ptr_eq(k, &p->knobs[2]);
        assert_origin(&k->origin, "$D/child.conf", 4);
        ck_assert_uint_eq(p->adaptive.hold, 5);
        ck_assert_uint_eq(p->adaptive.min_dwell_us, 3000000);
        ck_assert_uint_eq(p->n_settings, 2);
        ck_assert_str_eq(p->settings[1].key, "min-dwell");
        ck_assert_str_eq(p->settings[1].value, "3s");
        assert_origin(&p->settings[1].origin, "$D/child.conf", 7);
        assert_origin(&p->settings[0].origin, "$D/base.conf", 7);
        ck_assert_ptr_nonnull(p->chain);
        _cleanup_(freep) char *c0 = tu_join(dir, "child.conf"), *c1 = tu_join(dir, "base.conf");
        ck_assert_str_eq(p->chain[0], c0);
        ck_assert_str_eq(p->chain[1], c1);
        ck_assert_ptr_null(p->chain[2]);
}
END_TEST

START_TEST(test_include_child_description_wins) {
        _cleanup_(profile_freep) Profile *p = NULL;

        write_file("base.conf", "[profile]\ndescription = Base profile\n");
        write_file("child.conf", "[profile]\ndescription = Child\ninclude = base\n");
        p = profile_ok("child");
        ck_assert_str_eq(p->description, "Child");
}
END_TEST

START_TEST(test_include_by_relative_path) {
        _cleanup_(profile_freep) Profile *p = NULL;
        _cleanup_(freep) char *path = tu_join(dir, "sub/child.conf"), *parent = tu_join(dir, "sub/../base.conf"),
                                  *grand = tu_join(dir, "sub/../sub/grand.conf");

        write_file("sub/grand.conf", "[knobs]\nbusy-poll = 5\n");
        write_file("base.conf", "[profile]\ninclude = sub/grand.conf\n[knobs]\nbusy-read = 10\n");
        write_file("sub/child.conf", "[profile]\ninclude = ../base.conf\n");
        p = profile_ok(path);
        ck_assert_str_eq(p->name, "child");
        ck_assert_str_eq(p->path, path);
        ck_assert_str_eq(p->chain[1], parent);
        ck_assert_str_eq(p->chain[2], grand);
        ck_assert_uint_eq(p->n_knobs, 2);
        assert_origin(&p->knobs[0].origin, "$D/sub/../sub/grand.conf", 2);
}
END_TEST

START_TEST(test_include_cycle) {
        _cleanup_(strv_freep) char **errs = NULL;

        write_file("a.conf", "[profile]\ninclude = b\n");
        write_file("b.conf", "[profile]\ninclude = ./a.conf\n");
        errs = profile_errors("a", -EINVAL);
        assert_errors(errs, "$D/b.conf:2: [profile] include: include cycle: $D/a.conf -> $D/b.conf -> $D/a.conf");
}
END_TEST

START_TEST(test_include_self) {
        _cleanup_(strv_freep) char **errs = NULL;

        write_file("s.conf", "# me\n[profile]\ninclude = s\n");
        errs = profile_errors("s", -EINVAL);
        assert_errors(errs, "$D/s.conf:3: [profile] include: include cycle: $D/s.conf -> $D/s.conf");
}
END_TEST

START_TEST(test_include_depth_limit) {
        _cleanup_(profile_freep) Profile *p = NULL;
        _cleanup_(strv_freep) char **errs = NULL;
        char name[32], text[64];
        size_t n = 0;

        /* p0 -> ... -> p16: 16 includes are allowed. */
        for (int i = 0; i <= MAX_INCLUDE_DEPTH; i++) {
                snprintf(name, sizeof(name), "p%d.conf", i);
                snprintf(text, sizeof(text), "[profile]\ninclude = p%d\n", i + 1);
                write_file(name, i < MAX_INCLUDE_DEPTH ? text : "[knobs]\nbusy-read = 7\n");
        }
        p = profile_ok("p0");
        while (p->chain[n])
                n++;
        ck_assert_uint_eq(n, MAX_INCLUDE_DEPTH + 1);
        ck_assert_uint_eq(p->knobs[0].value.num, 7);

        snprintf(name, sizeof(name), "p%d.conf", MAX_INCLUDE_DEPTH);
        snprintf(text, sizeof(text), "[profile]\ninclude = p%d\n", MAX_INCLUDE_DEPTH + 1);
        write_file(name, text);
        write_file("p17.conf", "[profile]\n");
        errs = profile_errors("p0", -EINVAL);
        assert_errors(errs, "$D/p16.conf:2: [profile] include: include chain deeper than 16 levels");
}
END_TEST

START_TEST(test_include_missing_parent) {
        _cleanup_(strv_freep) char **errs = NULL, **errs2 = NULL;

        write_file("m.conf", "[profile]\ninclude = nope\n");
        errs = profile_errors("m", -EINVAL);
        assert_errors(errs, "$D/m.conf:2: [profile] include: profile 'nope' not found (searched: $D, "
                            SYSCONF_PROFILE_DIR ", " VENDOR_PROFILE_DIR ")");
        write_file("m.conf", "[profile]\ninclude = ./nope.conf\n");
        errs2 = profile_errors("m", -EINVAL);
        assert_errors(errs2, "$D/m.conf:2: [profile] include: cannot open $D/nope.conf: No such file or directory");
}
END_TEST

START_TEST(test_include_parent_errors_name_parent_file) {
        _cleanup_(strv_freep) char **errs = NULL;

        write_file("base.conf", "[knobs]\nbusy-read = fast\n");
        write_file("child.conf", "[profile]\ninclude = base\n[knobs]\nbusy-poll = -1\n");
        errs = profile_errors("child", -EINVAL);
        /* The child is read before its parent, so its errors come first. */
        assert_errors(errs,
                      "$D/child.conf:4: [knobs] busy-poll: invalid value '-1': negative values are not allowed; "
                      "expected a time such as 50us or 2ms (a bare number is us), from 0us to 2147483647us",
                      "$D/base.conf:2: [knobs] busy-read: invalid value 'fast': not a number; expected digits; "
                      "expected a time such as 50us or 2ms (a bare number is us), from 0us to 2147483647us");
}
END_TEST

/* ---- the search path ---- */

START_TEST(test_find_first_dir_wins) {
        _cleanup_(freep) char *d1 = tu_join(dir, "d1"), *d2 = tu_join(dir, "d2"), *found = NULL, *want = NULL;
        _cleanup_(profile_freep) Profile *p = NULL;
        char *v[] = { d1, d2, NULL };

        write_file("d1/x.conf", "[profile]\ndescription = one\n");
        write_file("d2/x.conf", "[profile]\ndescription = two\n");
        write_file("d2/y.conf", "[profile]\ndescription = only two\n");
        ck_assert_int_eq(profile_find("x", v, &found), 0);
        want = tu_join(dir, "d1/x.conf");
        ck_assert_str_eq(found, want);
        ck_assert_int_eq(profile_load(&p, "x", v, NULL), 0);
        ck_assert_str_eq(p->description, "one");
        p = profile_free(p);
        ck_assert_int_eq(profile_load(&p, "y", v, NULL), 0);
        ck_assert_str_eq(p->description, "only two");
}
END_TEST

START_TEST(test_find_path_with_slash) {
        _cleanup_(freep) char *path = tu_join(dir, "d2/x.conf"), *found = NULL, *none = tu_join(dir, "none.conf");
        _cleanup_(profile_freep) Profile *p = NULL;
        _cleanup_(strv_freep) char **errs = NULL;

        write_file("x.conf", "[profile]\ndescription = search path\n");
        write_file("d2/x.conf", "[profile]\ndescription = by path\n");
        ck_assert_int_eq(profile_find(path, dirs(), &found), 0);
        ck_assert_str_eq(found, path);
        ck_assert_int_eq(profile_find(none, dirs(), &found), -ENOENT);
        ck_assert_int_eq(profile_load(&p, path, dirs(), NULL), 0);
        ck_assert_str_eq(p->description, "by path");
        ck_assert_str_eq(p->name, "x");
        errs = profile_errors(none, -ENOENT);
        assert_errors(errs, "$D/none.conf: cannot open: No such file or directory");
}
END_TEST

START_TEST(test_find_missing_or_invalid_name) {
        _cleanup_(strv_freep) char **errs = NULL, **errs2 = NULL;
        char *found = NULL;

        ck_assert_int_eq(profile_find("nope", dirs(), &found), -ENOENT);
        ck_assert_int_eq(profile_find("bad name", dirs(), &found), -EINVAL);
        ck_assert_ptr_null(found);
        errs = profile_errors("nope", -ENOENT);
        assert_errors(errs, "profile 'nope' not found (searched: $D, " SYSCONF_PROFILE_DIR ", " VENDOR_PROFILE_DIR ")");
        errs2 = profile_errors("bad name", -EINVAL);
        assert_errors(errs2, "invalid profile name 'bad name': expected letters, digits, '_', '.' or '-' (at most 64 "
                             "characters, not starting with '.'), or a path containing '/'");
}
END_TEST

START_TEST(test_profile_name_valid) {
        char longest[66];

        memset(longest, 'a', 64);
        longest[64] = '\0';
        ck_assert(profile_name_valid("latency"));
        ck_assert(profile_name_valid("a"));
        ck_assert(profile_name_valid("my_profile-2.v1"));
        ck_assert(profile_name_valid(longest));
        longest[64] = 'a';
        longest[65] = '\0';
        ck_assert(!profile_name_valid(longest));
        ck_assert(!profile_name_valid(""));
        ck_assert(!profile_name_valid(NULL));
        ck_assert(!profile_name_valid(".hidden"));
        ck_assert(!profile_name_valid("a/b"));
        ck_assert(!profile_name_valid("a b"));
        ck_assert(!profile_name_valid("caf\xc3\xa9"));
}
END_TEST

START_TEST(test_profile_list_dedups_and_sorts) {
        _cleanup_(freep) char *d1 = tu_join(dir, "d1"), *d2 = tu_join(dir, "d2"), *d3 = tu_join(dir, "missing");
        _cleanup_(strv_freep) char **names = NULL;
        char *v[] = { d1, d3, d2, NULL };
        size_t n = 0;

        write_file("d1/b.conf", "");
        write_file("d1/a.conf", "");
        write_file("d1/notes.txt", "");
        write_file("d1/.hidden.conf", "");
        write_file("d1/sub.conf/x", "");
        write_file("d2/a.conf", "");
        write_file("d2/c.conf", "");
        ck_assert_int_eq(profile_list(v, &names), 0);
        ck_assert_ptr_nonnull(names);
        if (access(SYSCONF_PROFILE_DIR, F_OK) == 0 || access(VENDOR_PROFILE_DIR, F_OK) == 0) {
                /* Installed profiles join the list; check order and uniqueness only. */
                printf("NOTE: installed profiles present, checking a sorted superset\n");
                for (n = 1; names[0] && names[n]; n++)
                        ck_assert_int_lt(strcmp(names[n - 1], names[n]), 0);
                return;
        }
        for (; names[n]; n++)
                ;
        ck_assert_uint_eq(n, 3);
        ck_assert_str_eq(names[0], "a");
        ck_assert_str_eq(names[1], "b");
        ck_assert_str_eq(names[2], "c");
}
END_TEST

/* ---- profile_summary(): what ListProfiles shows ---- */

/* The "description = " line of root/NAME.conf, as the test reads it. */
static char *file_description(const char *root, const char *name) {
        _cleanup_(freep) char *rel = NULL, *content = NULL;
        const char *d, *end;

        ck_assert_int_ge(asprintf(&rel, "%s.conf", name), 0);
        content = tu_read(root, rel);
        ck_assert_ptr_nonnull(content);
        d = strstr(content, "\ndescription = ");
        ck_assert_msg(d, "%s/%s has no description", root, rel);
        d += strlen("\ndescription = ");
        end = strchrnul(d, '\n');
        return strndup(d, end - d);
}

/* Every shipped profile is valid as the daemon loads it, also those including another by name. */
START_TEST(test_summary_shipped_profiles) {
        _cleanup_(freep) char *shipped = tu_source("conf/profiles");
        _cleanup_(strv_freep) char **names = NULL;
        char *v[] = { shipped, NULL };
        size_t n = 0;

        ck_assert_int_eq(profile_list(v, &names), 0);
        for (char **name = names; *name; name++) {
                _cleanup_(freep) char *path = NULL, *summary = NULL, *want = NULL;

                ck_assert_int_eq(profile_summary(*name, v, &path, &summary), 0);
                if (!startswith(path, shipped))
                        continue; /* an installed profile */
                want = file_description(shipped, *name);
                ck_assert_msg(streq(summary, want), "%s: got \"%s\", expected \"%s\"", *name, summary, want);
                n++;
        }
        ck_assert_uint_ge(n, 4);
}
END_TEST

/* A broken profile is listed as invalid with its first error as FILE:LINE, its parent found through dirs. */
START_TEST(test_summary_broken_profile) {
        _cleanup_(freep) char *shipped = tu_source("conf/profiles"), *path = NULL, *summary = NULL, *want = NULL,
                              *want_path = tu_join(dir, "broken.conf");
        char *v[] = { dir, shipped, NULL };

        write_file("broken.conf", "[profile]\ndescription = broken\ninclude = balanced\n[knobs]\nbusy-read = 5x\n"
                                  "busy-poll = 5y\n");
        ck_assert_int_eq(profile_summary("broken", v, &path, &summary), 0);
        ck_assert_str_eq(path, want_path);
        want = subst("invalid: $D/broken.conf:5: [knobs] busy-read: invalid value '5x': unknown unit; expected ns, "
                     "us, ms or s; expected a time such as 50us or 2ms (a bare number is us), from 0us to "
                     "2147483647us", dir);
        ck_assert_str_eq(summary, want);
        ck_assert_int_eq(profile_summary("gone", v, &path, &summary), -ENOENT);
}
END_TEST

static Suite *profile_suite(void) {
        Suite *s = suite_create("profile");
        TCase *tc;

        tc = fixture_tcase(s, "profile_keys");
        tcase_add_test(tc, test_profile_unknown_section_and_keys);
        tcase_add_test(tc, test_knobs_bad_entries);
        tcase_add_test(tc, test_knobs_softirq_budget_range);
        tcase_add_test(tc, test_knobs_values_and_origins);
        tcase_add_test(tc, test_adaptive_defaults);
        tcase_add_test(tc, test_adaptive_every_key_parsed);
        tcase_add_test(tc, test_adaptive_bad_values);
        tcase_add_test(tc, test_adaptive_cross_checks);
        tcase_add_test(tc, test_irq_every_key_parsed);
        tcase_add_test(tc, test_irq_bad_values);
        tcase_add_test(tc, test_irq_checks);
        tcase_add_test(tc, test_irq_and_knobs_never_own_the_same_masks);

        tc = fixture_tcase(s, "include");
        tcase_add_test(tc, test_include_child_overrides_parent);
        tcase_add_test(tc, test_include_child_description_wins);
        tcase_add_test(tc, test_include_by_relative_path);
        tcase_add_test(tc, test_include_cycle);
        tcase_add_test(tc, test_include_self);
        tcase_add_test(tc, test_include_depth_limit);
        tcase_add_test(tc, test_include_missing_parent);
        tcase_add_test(tc, test_include_parent_errors_name_parent_file);

        tc = fixture_tcase(s, "search_path");
        tcase_add_test(tc, test_find_first_dir_wins);
        tcase_add_test(tc, test_find_path_with_slash);
        tcase_add_test(tc, test_find_missing_or_invalid_name);
        tcase_add_test(tc, test_profile_name_valid);
        tcase_add_test(tc, test_profile_list_dedups_and_sorts);

        tc = fixture_tcase(s, "summary");
        tcase_add_test(tc, test_summary_shipped_profiles);
        tcase_add_test(tc, test_summary_broken_profile);

        return s;
}

TU_MAIN(profile_suite)
