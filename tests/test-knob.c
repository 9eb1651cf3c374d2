/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * test-knob.c: the knob catalog, references, value parsing and formatting,
 * and kernel file reads against a fixture sysroot. Writes go through the
 * owner (test-owner.c); no case here writes a kernel value.
 */
#include <ctype.h>

#include "knob.h"
#include "macro.h"
#include "testutil.h"
#include "units.h"

static char *root; /* fixture sysroot of the current test */

static void sysroot_setup(void) {
        root = tu_mkdtemp();
        tu_write(root, "proc/sys/net/core/busy_read", "50\n", 0644);
        tu_write(root, "proc/sys/net/core/busy_poll", "0\n", 0644);
        tu_write(root, "proc/sys/net/core/netdev_budget", "300\n", 0644);
        tu_write(root, "proc/sys/net/core/dev_weight", "64\n", 0644);
        tu_write(root, "proc/sys/net/core/netdev_max_backlog", "1000\n", 0644);
        tu_write(root, "proc/sys/kernel/softirq_budget_usecs", "2000\n", 0644);
        tu_write(root, "sys/class/net/veth0/threaded", "0\n", 0644);
        tu_write(root, "sys/class/net/veth0/gro_flush_timeout", "0\n", 0644);
        tu_write(root, "sys/class/net/veth0/napi_defer_hard_irqs", "0\n", 0644);
        tu_write(root, "sys/class/net/veth0/queues/rx-0/rps_cpus", "3\n", 0644);
        tu_write(root, "sys/class/net/veth0/queues/rx-0/rps_flow_cnt", "0\n", 0644);
        tu_write(root, "sys/class/net/veth0/queues/rx-10/rps_cpus", "c\n", 0644);
        tu_write(root, "sys/class/net/veth0/queues/rx-1/rps_cpus", "3\n", 0644);
        tu_write(root, "sys/class/net/veth0/queues/tx-0/xps_cpus", "1\n", 0644);
}

static void sysroot_teardown(void) {
        tu_rm_rf(root);
        free(root);
        root = NULL;
}

static KnobRef ref(const char *s) {
        KnobRef r;
        ck_assert_msg(knob_ref_parse(s, &r, NULL) == 0, "knob_ref_parse(%s)", s);
        return r;
}

static KnobValue num(uint64_t n) {
        return (KnobValue){ .num = n };
}

static KnobValue cpus(const char *list) {
        KnobValue v = {};
        ck_assert_int_eq(cpuset_parse_list(list, &v.cpus, NULL), 0);
        return v;
}

/* ---- catalog ---- */

START_TEST(test_knob_catalog_is_sane) {
        static const char *const order[] = {
                "busy-read", "busy-poll", "busy-loop-threshold", "softirq-budget", "softirq-restarts",
                "netdev-budget", "netdev-budget-time", "dev-weight", "netdev-max-backlog", "napi-skb-cache-size",
                "napi-skb-cache-bulk", "napi-defer-hard-irqs", "gro-flush-timeout", "irq-suspend-timeout",
                "napi-threaded", "rps-cpus", "xps-cpus",
        };

        ck_assert_uint_eq(knob_catalog_size, ELEMENTSOF(order));
        for (size_t i = 0; i < knob_catalog_size; i++) {
                const KnobDesc *d = &knob_catalog[i];
                const char *pct;

                ck_assert_str_eq(d->name, order[i]);
                for (const char *c = d->name; *c; c++)
                        ck_assert_msg(islower((unsigned char)*c) || *c == '-', "%s not lowercase", d->name);
                for (size_t k = 0; k < i; k++)
                        ck_assert_str_ne(d->name, knob_catalog[k].name);
                ck_assert_msg(d->scope <= KNOB_NAPIS && d->type <= KNOB_ENUM, "%s", d->name);
                /* An enum names every value from 0 to max, and only those. */
                if (d->type == KNOB_ENUM) {
                        size_t n = 0;
                        ck_assert_ptr_nonnull(d->values);
                        while (d->values[n])
                                n++;
                        ck_assert_uint_eq(d->min, 0);
                        ck_assert_uint_eq(n, d->max + 1);
                } else
                        ck_assert_ptr_null(d->values);
                if (d->device_file) {
                        ck_assert_int_eq(d->scope, KNOB_NAPIS);
                        ck_assert_ptr_nonnull(startswith(d->device_file, "/sys/class/net/%s/"));
                }
                ck_assert_msg(d->summary && strlen(d->summary) > 10, "%s has no summary", d->name);
                ck_assert_ptr_nonnull(d->unit);
                pct = strstr(d->path, "%s");
                switch (d->scope) {
                case KNOB_GLOBAL:
                        ck_assert_ptr_nonnull(startswith(d->path, "/proc/sys/"));
                        ck_assert_ptr_null(strchr(d->path, '%'));
                        break;
                case KNOB_DEVICE:
                        ck_assert_ptr_nonnull(startswith(d->path, "/sys/class/net/%s/"));
                        ck_assert_ptr_null(strchr(pct + 1, '%'));
                        break;
                case KNOB_NAPIS:
                        /* The per-NAPI knob of the same name (napi.h) is what it sets on each instance. */
                        ck_assert_ptr_null(strchr(d->path, '/'));
                        ck_assert_str_eq(d->path, d->name);
                        ck_assert_int_ne(d->type, KNOB_CPUSET);
                        break;
                default:
                        ck_assert_ptr_null(strchr(d->path, '/'));
                        ck_assert_ptr_null(strchr(d->path, '%'));
                        ck_assert_int_eq(d->type, KNOB_CPUSET);
                }
                if (d->type == KNOB_TIME)
                        ck_assert_str_eq(d->unit, time_unit_name(d->unit_ns));
                if (d->type != KNOB_CPUSET)
                        ck_assert_msg(d->min <= d->max, "%s", d->name);
                if (d->patch) {
                        size_t l = strlen(d->patch);
                        ck_assert_ptr_nonnull(startswith(d->patch, "000"));
                        ck_assert_msg(l > 6 && streq(d->patch + l - 6, ".patch"), "%s", d->patch);
                }
        }
        ck_assert_str_eq(knob_find("busy-loop-threshold")->patch, "0001-net-busy_poll-add-busy_loop_threshold-sysctl.patch");
        ck_assert_ptr_null(knob_find("busy-read")->patch);
        ck_assert_str_eq(knob_find("softirq-restarts")->patch, knob_find("softirq-budget")->patch);
        ck_assert_uint_eq(knob_find("gro-flush-timeout")->max, INT64_MAX);
        ck_assert_ptr_null(knob_find("busy_read"));
        ck_assert_ptr_null(knob_find(""));
}
END_TEST

/* ---- references ---- */

START_TEST(test_knob_ref_parse_accepts_global_and_device) {
        KnobRef r;
        char buf[64];

        ck_assert_int_eq(knob_ref_parse("busy-read", &r, NULL), 0);
        ck_assert_ptr_eq(r.desc, knob_find("busy-read"));
        ck_assert_str_eq(r.device, "");
        ck_assert_str_eq(knob_ref_format(&r, buf, sizeof(buf)), "busy-read");
        ck_assert_int_eq(knob_ref_parse("gro-flush-timeout@eth1", &r, NULL), 0);
        ck_assert_ptr_eq(r.desc, knob_find("gro-flush-timeout"));
        ck_assert_str_eq(r.device, "eth1");
        ck_assert_str_eq(knob_ref_format(&r, buf, sizeof(buf)), "gro-flush-timeout@eth1");
        ck_assert_int_eq(knob_ref_parse("rps-cpus@abcdefghijklmno", &r, NULL), 0);
        ck_assert_str_eq(r.device, "abcdefghijklmno");
}
END_TEST

static void assert_ref_refused(const char *s, int error, const char *reason) {
        KnobRef r = { .desc = knob_catalog, .device = "keep" };
        const char *why = NULL;

        ck_assert_msg(knob_ref_parse(s, &r, &why) == error, "%s", s);
        ck_assert_str_eq(why, reason);
        ck_assert_ptr_eq(r.desc, knob_catalog);
        ck_assert_str_eq(r.device, "keep");
}

START_TEST(test_knob_ref_parse_refuses_bad_references) {
        const char *bad_dev = "invalid device name: expected 1-15 characters without '/', ':' or spaces";

        assert_ref_refused("busy-reed", -ENOENT, "unknown knob");
        assert_ref_refused("", -ENOENT, "unknown knob");
        assert_ref_refused("@eth0", -ENOENT, "unknown knob");
        assert_ref_refused("busy-read-extra", -ENOENT, "unknown knob");
        assert_ref_refused("gro-flush-timeout", -EINVAL, "is per device: write NAME@DEVICE");
        assert_ref_refused("rps-cpus", -EINVAL, "is per device: write NAME@DEVICE");
        assert_ref_refused("busy-read@eth1", -EINVAL, "is global and takes no @device");
        assert_ref_refused("napi-threaded@a/b", -EINVAL, bad_dev);
        assert_ref_refused("napi-threaded@abcdefghijklmnop", -EINVAL, bad_dev);
        assert_ref_refused("napi-threaded@", -EINVAL, bad_dev);
        assert_ref_refused("napi-threaded@..", -EINVAL, bad_dev);
        assert_ref_refused("napi-threaded@a b", -EINVAL, bad_dev);
}
END_TEST

/* Every name netpolld gives a value (KnobChanged, ListIrqs' rows) reads back as itself. */
START_TEST(test_knob_name_parse_reads_every_value_name) {
        static const char *const names[] = {
                "busy-read", "gro-flush-timeout@eth1", "rps-cpus@eth1:rx-0", "xps-cpus@veth-a:tx-3",
                "irq-affinity@eth1:combined-2", "napi-thread-affinity@eth1:napi-8193",
                "irq-suspend-timeout@eth1:napi-1",
        };
        KnobName n;
        char buf[96];

        for (size_t i = 0; i < ELEMENTSOF(names); i++) {
                ck_assert_msg(knob_name_parse(names[i], &n, NULL) == 0, "%s", names[i]);
                ck_assert_str_eq(knob_name_format(&n, buf, sizeof(buf)), names[i]);
        }
        ck_assert_int_eq(knob_name_parse("rps-cpus@eth1:rx-0", &n, NULL), 0);
        ck_assert_str_eq(n.knob, "rps-cpus");
        ck_assert_str_eq(n.device, "eth1");
        ck_assert(n.instance && n.napi_id == 0 && n.kind == QUEUE_RX && n.index == 0);
        ck_assert_int_eq(knob_name_parse("rps-cpus@eth1:rx-x", &n, NULL), -EINVAL);
        ck_assert_int_eq(knob_name_parse("rps-cpus@eth1:napi-0", &n, NULL), -EINVAL);
        ck_assert_int_eq(knob_name_parse("rps:cpus@eth1", &n, NULL), -EINVAL);
        ck_assert_int_eq(knob_name_parse("", &n, NULL), -EINVAL);
        /* A knob reference names the device, never one of its queues. */
        assert_ref_refused("rps-cpus@eth1:rx-0", -EINVAL, "names one queue or NAPI instance: write NAME@DEVICE here");
}
END_TEST

/* ---- user values ---- */

static void assert_value(const char *knob, const char *s, uint64_t want) {
        KnobValue v = num(12345);
        const char *why = NULL;
        int r = knob_parse_value(knob_find(knob), s, &v, &why);

        ck_assert_msg(r == 0, "%s %s: %d %s", knob, s, r, strempty(why));
        ck_assert_uint_eq(v.num, want);
}

static void assert_value_refused(const char *knob, const char *s, int error, const char *reason) {
        KnobValue v = num(12345);
        const char *why = NULL;

        ck_assert_msg(knob_parse_value(knob_find(knob), s, &v, &why) == error, "%s %s", knob, s);
        ck_assert_str_eq(why, reason);
        ck_assert_uint_eq(v.num, 12345);
}

START_TEST(test_knob_parse_value_times_take_units) {
        assert_value("busy-read", "1.5ms", 1500);
        assert_value("busy-read", "50", 50);
        assert_value("busy-read", "50us", 50);
        assert_value("busy-read", "2000ns", 2);
        assert_value("busy-read", "2147483647", 2147483647);
        assert_value("gro-flush-timeout", "2ms", 2000000);
        assert_value("gro-flush-timeout", "20000", 20000);
        /* The patched kernel's clock-based budget: 100..100000us at any HZ, so below a jiffy too. */
        assert_value("softirq-budget", "100us", 100);
        assert_value("softirq-budget", "500us", 500);
        assert_value("softirq-budget", "2ms", 2000);
        assert_value("softirq-budget", "4ms", 4000);
        assert_value("softirq-budget", "100ms", 100000);
        assert_value_refused("busy-read", "500ns", -EINVAL, "not a whole number of microseconds");
        assert_value_refused("busy-read", "5 us", -EINVAL, "spaces are not allowed");
        assert_value_refused("busy-read", "-5", -EINVAL, "negative values are not allowed");
        assert_value_refused("busy-read", "2147483648", -ERANGE, "out of range");
        assert_value_refused("busy-read", "1h", -EINVAL, "unknown unit; expected ns, us, ms or s");
        assert_value_refused("softirq-budget", "99us", -ERANGE, "out of range");
        assert_value_refused("softirq-budget", "100001us", -ERANGE, "out of range");
        assert_value_refused("softirq-budget", "101ms", -ERANGE, "out of range");
        assert_value_refused("netdev-budget-time", "0", -ERANGE, "out of range");
}
END_TEST

START_TEST(test_knob_parse_value_counts_and_bools) {
        assert_value("netdev-budget", "300", 300);
        assert_value("busy-loop-threshold", "0", 0);
        assert_value("napi-skb-cache-size", "128", 128);
        assert_value("napi-threaded", "0", 0);
        assert_value("napi-threaded", "1", 1);
        assert_value("napi-threaded", "2", 2);
        assert_value("napi-threaded", "disabled", 0);
        assert_value("napi-threaded", "enabled", 1);
        assert_value("napi-threaded", "busy-poll", 2);
        assert_value_refused("netdev-budget", "0", -ERANGE, "out of range");
        assert_value_refused("napi-skb-cache-size", "1", -ERANGE, "out of range");
        assert_value_refused("napi-skb-cache-size", "129", -ERANGE, "out of range");
        assert_value_refused("napi-skb-cache-bulk", "65", -ERANGE, "out of range");
        assert_value_refused("softirq-restarts", "1001", -ERANGE, "out of range");
        assert_value_refused("netdev-budget", "3ms", -EINVAL, "trailing characters after number");
        assert_value_refused("netdev-budget", "", -EINVAL, "empty value; expected a number");
        assert_value_refused("netdev-budget", "99999999999999999999", -ERANGE, "number too large");
        assert_value_refused("napi-defer-hard-irqs", "2147483648", -ERANGE, "out of range");
        assert_value_refused("napi-threaded", "3", -ERANGE, "out of range");
        assert_value_refused("napi-threaded", "yes", -EINVAL, "not one of the names");
        assert_value_refused("napi-threaded", "Enabled", -EINVAL, "not one of the names");
        assert_value_refused("napi-threaded", "busy-poll ", -EINVAL, "not one of the names");
        assert_value_refused("napi-threaded", "", -EINVAL, "not one of the names");
}
END_TEST

START_TEST(test_knob_parse_value_cpu_lists) {
        const KnobDesc *d = knob_find("rps-cpus");
        KnobValue v = cpus("5");
        const char *why = NULL;

        ck_assert_int_eq(knob_parse_value(d, "none", &v, NULL), 0);
        ck_assert(cpuset_is_empty(&v.cpus));
        ck_assert_int_eq(knob_parse_value(d, "0-3,8", &v, NULL), 0);
        ck_assert_uint_eq(cpuset_count(&v.cpus), 5);
        ck_assert(cpuset_has(&v.cpus, 8) && !cpuset_has(&v.cpus, 4));
        ck_assert_int_eq(knob_parse_value(d, "3-", &v, &why), -EINVAL);
        ck_assert_ptr_nonnull(why);
        ck_assert_uint_eq(cpuset_count(&v.cpus), 5);
}
END_TEST

static void assert_expected(const char *knob, const char *want) {
        _cleanup_(freep) char *s = knob_expected(knob_find(knob));
        ck_assert_str_eq(s, want);
}

START_TEST(test_knob_expected_describes_input) {
        assert_expected("busy-read", "a time such as 50us or 2ms (a bare number is us), from 0us to 2147483647us");
        assert_expected("gro-flush-timeout",
                        "a time such as 50us or 2ms (a bare number is ns), from 0ns to 9223372036854775807ns");
        assert_expected("softirq-budget", "a time such as 50us or 2ms (a bare number is us), from 100us to 100000us");
        assert_expected("netdev-budget", "a whole number of packets from 1 to 2147483647");
        assert_expected("napi-defer-hard-irqs", "a whole number from 0 to 2147483647");
        assert_expected("napi-threaded", "one of disabled, enabled, busy-poll");
        assert_expected("xps-cpus", "a CPU list such as 0-3,8, or none");
}
END_TEST

static void assert_formatted(const char *knob, KnobValue v, const char *want) {
        _cleanup_(freep) char *s = knob_format_value(knob_find(knob), &v);
        ck_assert_str_eq(s, want);
}

START_TEST(test_knob_format_value_uses_base_unit) {
        assert_formatted("busy-read", num(50), "50us");
        assert_formatted("gro-flush-timeout", num(2000000), "2000000ns");
        assert_formatted("netdev-budget", num(300), "300");
        assert_formatted("napi-threaded", num(1), "enabled");
        assert_formatted("napi-threaded", num(0), "disabled");
        assert_formatted("napi-threaded", num(2), "busy-poll");
        assert_formatted("napi-threaded", num(3), "3"); /* a mode newer than netpolld */
        assert_formatted("rps-cpus", cpus("0-3,8"), "0-3,8");
        assert_formatted("rps-cpus", cpus("none"), "none");
}
END_TEST

START_TEST(test_knob_value_equal_compares_by_type) {
        const KnobDesc *rps = knob_find("rps-cpus"), *br = knob_find("busy-read");
        KnobValue a = cpus("0-3"), b = cpus("0-3"), c = cpus("0-2");

        ck_assert(knob_value_equal(rps, &a, &b));
        ck_assert(!knob_value_equal(rps, &a, &c));
        a = num(5), b = num(5), c = num(6);
        ck_assert(knob_value_equal(br, &a, &b));
        ck_assert(!knob_value_equal(br, &a, &c));
}
END_TEST

/* ---- kernel text ---- */

START_TEST(test_knob_parse_kernel_accepts_kernel_output) {
        KnobValue v;

        ck_assert_int_eq(knob_parse_kernel(knob_find("netdev-budget"), "300", &v), 0);
        ck_assert_uint_eq(v.num, 300);
        /* The kernel's value is what it is: out of the user range is not odd content. */
        ck_assert_int_eq(knob_parse_kernel(knob_find("netdev-budget"), "0", &v), 0);
        ck_assert_uint_eq(v.num, 0);
        ck_assert_int_eq(knob_parse_kernel(knob_find("gro-flush-timeout"), "18446744073709551615", &v), 0);
        ck_assert_uint_eq(v.num, UINT64_MAX);
        ck_assert_int_eq(knob_parse_kernel(knob_find("napi-threaded"), "1", &v), 0);
        ck_assert_uint_eq(v.num, 1);
        ck_assert_int_eq(knob_parse_kernel(knob_find("rps-cpus"), "00000000,00000101", &v), 0);
        ck_assert_uint_eq(cpuset_count(&v.cpus), 2);
        ck_assert(cpuset_has(&v.cpus, 0) && cpuset_has(&v.cpus, 8));
        ck_assert_int_eq(knob_parse_kernel(knob_find("xps-cpus"), "0", &v), 0);
        ck_assert(cpuset_is_empty(&v.cpus));
}
END_TEST

START_TEST(test_knob_parse_kernel_refuses_odd_content) {
        static const char *const odd[] = {
                "", "abc", "-1", "12 3", " 12", "12\n", "99999999999999999999999", "+5", "0x10", "1.5",
        };
        KnobValue v = num(777);

        for (size_t i = 0; i < ELEMENTSOF(odd); i++)
                ck_assert_msg(knob_parse_kernel(knob_find("busy-read"), odd[i], &v) == -EBADMSG, "'%s'", odd[i]);
        ck_assert_int_eq(knob_parse_kernel(knob_find("rps-cpus"), "xyz", &v), -EBADMSG);
        ck_assert_int_eq(knob_parse_kernel(knob_find("rps-cpus"), "", &v), -EBADMSG);
        ck_assert_int_eq(knob_parse_kernel(knob_find("busy-read"), NULL, &v), -EBADMSG);
        ck_assert_uint_eq(v.num, 777);
}
END_TEST

static void assert_kernel_text(const char *knob, KnobValue v, const char *want) {
        _cleanup_(freep) char *s = knob_format_kernel(knob_find(knob), &v);
        ck_assert_str_eq(s, want);
}

START_TEST(test_knob_format_kernel_writes_kernel_syntax) {
        assert_kernel_text("rps-cpus", cpus("0-3"), "f");
        assert_kernel_text("rps-cpus", cpus("none"), "0");
        assert_kernel_text("xps-cpus", cpus("0,33"), "2,00000001");
        assert_kernel_text("busy-read", num(1500), "1500");
        assert_kernel_text("napi-threaded", num(1), "1");
}
END_TEST

START_TEST(test_knob_refusal_hint_names_kernel_limits) {
        ck_assert_str_eq(knob_refusal_hint(knob_find("netdev-budget-time")),
                         "the kernel refuses values below 2 jiffies (8000us at HZ=250, 2000us at HZ=1000)");
        ck_assert_str_eq(knob_refusal_hint(knob_find("softirq-budget")), "the patched kernel accepts 100us to 100000us");
        ck_assert_str_eq(knob_refusal_hint(knob_find("napi-skb-cache-size")),
                         "the patched kernel accepts 2 to 128 skbs, and never more than the kernel's own cache holds "
                         "(64 before Linux 6.19)");
        ck_assert_str_eq(knob_refusal_hint(knob_find("napi-skb-cache-bulk")),
                         "the patched kernel accepts 1 to 64 skbs, and never more than half of what the kernel's own "
                         "cache holds (32 before Linux 6.19)");
        for (size_t i = 0; i < knob_catalog_size; i++)
                if (knob_catalog[i].patch)
                        ck_assert_ptr_nonnull(knob_refusal_hint(&knob_catalog[i]));
        ck_assert_ptr_null(knob_refusal_hint(knob_find("busy-read")));
        ck_assert_ptr_null(knob_refusal_hint(knob_find("rps-cpus")));
}
END_TEST

/* ---- fixture sysroot: discovery and reading ---- */

static int supported(const char *s) {
        KnobRef r = ref(s);
        return knob_supported(&r, root);
}

/* knob_paths() joined by spaces, or the error as text, for one-line comparisons. */
static char *paths_of(const char *s) {
        _cleanup_(strv_freep) char **l = NULL;
        KnobRef r = ref(s);
        char *out = NULL;
        size_t size = 0;
        FILE *f;
        int e = knob_paths(&r, root, &l);

        if (e < 0) {
                ck_assert_int_ge(asprintf(&out, "error %d", e), 0);
                return out;
        }
        f = open_memstream(&out, &size);
        ck_assert_ptr_nonnull(f);
        for (size_t i = 0; l[i]; i++)
                fprintf(f, "%s%s", i > 0 ? " " : "", l[i]);
        ck_assert_int_eq(fclose(f), 0);
        return out;
}

/* Reads s and checks the return value and the value in the knob's human form. */
static void assert_read(const char *s, int want_ret, const char *want) {
        _cleanup_(freep) char *text = NULL;
        KnobRef r = ref(s);
        KnobValue v = num(4242);
        int e = knob_read(&r, root, &v);

        ck_assert_msg(e == want_ret, "knob_read(%s) = %d, expected %d", s, e, want_ret);
        if (e < 0) {
                ck_assert_uint_eq(v.num, 4242); /* untouched on failure */
                return;
        }
        ck_assert_str_eq(text = knob_format_value(r.desc, &v), want);
}

START_TEST(test_knob_supported_detects_files_and_devices) {
        ck_assert_int_eq(supported("busy-read"), 1);
        ck_assert_int_eq(supported("softirq-budget"), 1);
        ck_assert_int_eq(supported("busy-loop-threshold"), 0);
        ck_assert_int_eq(supported("napi-threaded@veth0"), 1);
        ck_assert_int_eq(supported("rps-cpus@veth0"), 1);
        ck_assert_int_eq(supported("napi-threaded@veth9"), -ENODEV);
        ck_assert_int_eq(supported("rps-cpus@veth9"), -ENODEV);
        /* One queue without the file makes the whole knob unsupported. */
        tu_write(root, "sys/class/net/veth0/queues/rx-2/rps_flow_cnt", "0\n", 0644);
        ck_assert_int_eq(supported("rps-cpus@veth0"), 0);
        /* A device without queues in one direction, or without any, has nothing to steer there. */
        tu_write(root, "sys/class/net/lo/queues/rx-0/rps_cpus", "0\n", 0644);
        ck_assert_int_eq(supported("rps-cpus@lo"), 1);
        ck_assert_int_eq(supported("xps-cpus@lo"), 0);
        tu_write(root, "sys/class/net/dummy0/threaded", "0\n", 0644);
        ck_assert_int_eq(supported("rps-cpus@dummy0"), 0);
}
END_TEST

START_TEST(test_knob_paths_orders_queues_numerically) {
        _cleanup_(freep) char *rx = NULL, *tx = NULL, *g = NULL, *dv = NULL;

        /* rx-2 sorts after rx-10 as a string: only numeric order puts it before. */
        tu_write(root, "sys/class/net/veth0/queues/rx-2/rps_cpus", "0\n", 0644);
        ck_assert_str_eq(rx = paths_of("rps-cpus@veth0"),
                         "/sys/class/net/veth0/queues/rx-0/rps_cpus /sys/class/net/veth0/queues/rx-1/rps_cpus "
                         "/sys/class/net/veth0/queues/rx-2/rps_cpus /sys/class/net/veth0/queues/rx-10/rps_cpus");
        ck_assert_str_eq(tx = paths_of("xps-cpus@veth0"), "/sys/class/net/veth0/queues/tx-0/xps_cpus");
        ck_assert_str_eq(g = paths_of("busy-read"), "/proc/sys/net/core/busy_read");
        ck_assert_str_eq(dv = paths_of("gro-flush-timeout@veth0"), "/sys/class/net/veth0/gro_flush_timeout");
}
END_TEST

START_TEST(test_knob_read_returns_values) {
        assert_read("busy-read", 0, "50us");
        assert_read("netdev-budget", 0, "300");
        assert_read("softirq-budget", 0, "2000us");
        assert_read("napi-threaded@veth0", 0, "disabled"); /* no NAPI source: the device file */
        assert_read("xps-cpus@veth0", 0, "0");
}
END_TEST

START_TEST(test_knob_read_unions_queues_and_flags_differences) {
        assert_read("rps-cpus@veth0", 1, "0-3");
        tu_write(root, "sys/class/net/veth0/queues/rx-10/rps_cpus", "3\n", 0644);
        assert_read("rps-cpus@veth0", 0, "0-1");
}
END_TEST

START_TEST(test_knob_read_refuses_odd_files) {
        char big[5001];

        memset(big, '1', sizeof(big) - 1);
        big[sizeof(big) - 1] = 0;
        tu_write(root, "proc/sys/net/core/busy_poll", "", 0644);
        assert_read("busy-poll", -EBADMSG, NULL);
        tu_write(root, "proc/sys/net/core/busy_poll", "\n", 0644);
        assert_read("busy-poll", -EBADMSG, NULL);
        tu_write(root, "proc/sys/net/core/dev_weight", "garbage\n", 0644);
        assert_read("dev-weight", -EBADMSG, NULL);
        tu_write(root, "proc/sys/net/core/netdev_budget", big, 0644);
        assert_read("netdev-budget", -EBADMSG, NULL);
        tu_write(root, "sys/class/net/veth0/queues/rx-1/rps_cpus", "zz\n", 0644);
        assert_read("rps-cpus@veth0", -EBADMSG, NULL);
        assert_read("busy-loop-threshold", -EOPNOTSUPP, NULL);
        assert_read("gro-flush-timeout@veth9", -ENODEV, NULL);
}
END_TEST

/* ---- device-wide per-NAPI knobs, through a fake netlink source ---- */

static struct {
        int list_error;
        int read_error; /* the instances lack the value (6.12 has no threaded, no irq-suspend-timeout) */
        size_t n;
        uint32_t ids[4];
        uint64_t value[4];
        char last_knob[32];
} fake;

static int fake_list(void *userdata, const char *device, uint32_t **ret_ids, size_t *ret_n) {
        (void)userdata;
        if (fake.list_error)
                return fake.list_error;
        if (!streq(device, "veth0"))
                return -ENODEV;
        *ret_ids = calloc(4, sizeof(uint32_t));
        ck_assert_ptr_nonnull(*ret_ids);
        memcpy(*ret_ids, fake.ids, sizeof(fake.ids));
        *ret_n = fake.n;
        return 0;
}

static int fake_read(void *userdata, uint32_t id, const char *knob, uint64_t *ret) {
        (void)userdata;
        snprintf(fake.last_knob, sizeof(fake.last_knob), "%s", knob);
        if (fake.read_error)
                return fake.read_error;
        for (size_t i = 0; i < fake.n; i++)
                if (fake.ids[i] == id) {
                        *ret = fake.value[i];
                        return 0;
                }
        return -ENOENT;
}

static const KnobNapiSource fake_source = { .list = fake_list, .read = fake_read };

static void napi_setup(void) {
        sysroot_setup();
        memset(&fake, 0, sizeof(fake));
        knob_set_napi_source(&fake_source);
}

static void napi_teardown(void) {
        knob_set_napi_source(NULL);
        sysroot_teardown();
}

START_TEST(test_knob_napis_need_a_source_and_an_instance) {
        ck_assert_int_eq(supported("irq-suspend-timeout@veth0"), 0); /* no NAPI instance (GRO off) */
        fake.n = 1;
        fake.ids[0] = 8193;
        ck_assert_int_eq(supported("irq-suspend-timeout@veth0"), 1);
        /* The device is looked up in the sysroot first, then over netlink. */
        ck_assert_int_eq(supported("irq-suspend-timeout@veth9"), -ENODEV);
        fake.list_error = -EOPNOTSUPP; /* kernel without the netdev family */
        ck_assert_int_eq(supported("irq-suspend-timeout@veth0"), 0);
        fake.list_error = 0;
        knob_set_napi_source(NULL);
        ck_assert_int_eq(supported("irq-suspend-timeout@veth0"), 0);
}
END_TEST

START_TEST(test_knob_napis_list_instances_in_order) {
        _cleanup_(freep) char *l = NULL;

        fake.n = 3;
        fake.ids[0] = 8200, fake.ids[1] = 8193, fake.ids[2] = 10000;
        ck_assert_str_eq(l = paths_of("irq-suspend-timeout@veth0"), "napi-8193 napi-8200 napi-10000");
}
END_TEST

START_TEST(test_knob_napis_read_every_instance) {
        fake.n = 2;
        fake.ids[0] = 8193, fake.ids[1] = 8194;
        fake.value[0] = fake.value[1] = 20000000;
        assert_read("irq-suspend-timeout@veth0", 0, "20000000ns");
        ck_assert_str_eq(fake.last_knob, "irq-suspend-timeout");
        fake.value[1] = 0;
        assert_read("irq-suspend-timeout@veth0", 1, "0ns");
}
END_TEST

START_TEST(test_knob_napis_lacking_the_value_are_unsupported) {
        fake.n = 2;
        fake.ids[0] = 8193, fake.ids[1] = 8194;
        fake.read_error = -EOPNOTSUPP;
        ck_assert_int_eq(supported("irq-suspend-timeout@veth0"), 0);
        assert_read("irq-suspend-timeout@veth0", -EOPNOTSUPP, NULL);
        /* One instance gone between the listing and the read: the next one answers. */
        fake.read_error = 0;
        fake.ids[0] = 1;
        ck_assert_int_eq(supported("irq-suspend-timeout@veth0"), 1);
}
END_TEST

START_TEST(test_knob_napi_threaded_per_instance_or_device_file) {
        _cleanup_(freep) char *l = NULL, *f = NULL;

        /* Instances with the value (6.17+): set on each over netlink, read as names. */
        fake.n = 2;
        fake.ids[0] = 8193, fake.ids[1] = 8194;
        fake.value[0] = fake.value[1] = 2;
        ck_assert_str_eq(l = paths_of("napi-threaded@veth0"), "napi-8193 napi-8194");
        assert_read("napi-threaded@veth0", 0, "busy-poll");
        ck_assert_str_eq(fake.last_knob, "napi-threaded");
        fake.value[0] = 1;
        assert_read("napi-threaded@veth0", 1, "busy-poll"); /* differing: the last, flagged */
        /* Instances without it (6.12), or none at all: the device's threaded file. */
        fake.read_error = -EOPNOTSUPP;
        ck_assert_str_eq(f = paths_of("napi-threaded@veth0"), "/sys/class/net/veth0/threaded");
        assert_read("napi-threaded@veth0", 0, "disabled");
        fake.read_error = 0;
        fake.n = 0;
        assert_read("napi-threaded@veth0", 0, "disabled");
        ck_assert(!knob_path_is_napi("/sys/class/net/veth0/threaded"));
        ck_assert(knob_path_is_napi("napi-8193"));
}
END_TEST

static Suite *knob_suite(void) {
        Suite *s = suite_create("knob");
        TCase *tc;

        tc = tcase_create("catalog");
        tcase_add_test(tc, test_knob_catalog_is_sane);
        suite_add_tcase(s, tc);

        tc = tcase_create("references");
        tcase_add_test(tc, test_knob_ref_parse_accepts_global_and_device);
        tcase_add_test(tc, test_knob_ref_parse_refuses_bad_references);
        tcase_add_test(tc, test_knob_name_parse_reads_every_value_name);
        suite_add_tcase(s, tc);

        tc = tcase_create("user values");
        tcase_add_test(tc, test_knob_parse_value_times_take_units);
        tcase_add_test(tc, test_knob_parse_value_counts_and_bools);
        tcase_add_test(tc, test_knob_parse_value_cpu_lists);
        tcase_add_test(tc, test_knob_expected_describes_input);
        tcase_add_test(tc, test_knob_format_value_uses_base_unit);
        tcase_add_test(tc, test_knob_value_equal_compares_by_type);
        suite_add_tcase(s, tc);

        tc = tcase_create("kernel text");
        tcase_add_test(tc, test_knob_parse_kernel_accepts_kernel_output);
        tcase_add_test(tc, test_knob_parse_kernel_refuses_odd_content);
        tcase_add_test(tc, test_knob_format_kernel_writes_kernel_syntax);
        tcase_add_test(tc, test_knob_refusal_hint_names_kernel_limits);
        suite_add_tcase(s, tc);

        tc = tcase_create("discovery and reading");
        tcase_add_checked_fixture(tc, sysroot_setup, sysroot_teardown);
        tcase_add_test(tc, test_knob_supported_detects_files_and_devices);
        tcase_add_test(tc, test_knob_paths_orders_queues_numerically);
        tcase_add_test(tc, test_knob_read_returns_values);
        tcase_add_test(tc, test_knob_read_unions_queues_and_flags_differences);
        tcase_add_test(tc, test_knob_read_refuses_odd_files);
        suite_add_tcase(s, tc);

        tc = tcase_create("per-NAPI knobs of a device");
        tcase_add_checked_fixture(tc, napi_setup, napi_teardown);
        tcase_add_test(tc, test_knob_napis_need_a_source_and_an_instance);
        tcase_add_test(tc, test_knob_napis_list_instances_in_order);
        tcase_add_test(tc, test_knob_napis_read_every_instance);
        tcase_add_test(tc, test_knob_napis_lacking_the_value_are_unsupported);
        tcase_add_test(tc, test_knob_napi_threaded_per_instance_or_device_file);
        suite_add_tcase(s, tc);

        return s;
}

TU_MAIN(knob_suite)
