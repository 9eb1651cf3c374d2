/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * test-steer.c: the file side of IRQ steering against a fixture sysroot:
 * device facts from sysfs (a PCI NIC and a virtio_net device below its PCI
 * function), queue IRQs from /proc/interrupts, the paths and reads of the
 * steering files (writes go through the owner: test-owner.c), what refused
 * IRQ writes mean, irqbalance detection; and the per-NAPI knob references.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "macro.h"
#include "napi.h"
#include "irqbalance.h"
#include "netdev-sysfs.h"
#include "testutil.h"

static char *root;

static void link_to(const char *rel, const char *target) {
        _cleanup_(freep) char *p = tu_join(root, rel);
        ck_assert_int_eq(symlink(target, p), 0);
}

static void fixture_setup(void) {
        root = tu_mkdtemp();
        /* An igb port: PCI function with MSI-X IRQs 40-42 and a driver link. */
        tu_write(root, "sys/devices/pci0000:00/0000:03:00.0/msi_irqs/40", "msix\n", 0644);
        tu_write(root, "sys/devices/pci0000:00/0000:03:00.0/msi_irqs/41", "msix\n", 0644);
        tu_write(root, "sys/devices/pci0000:00/0000:03:00.0/msi_irqs/42", "msix\n", 0644);
        tu_write(root, "sys/devices/pci0000:00/0000:03:00.0/numa_node", "1\n", 0644);
        tu_write(root, "sys/bus/pci/drivers/igb/.keep", "", 0644);
        link_to("sys/devices/pci0000:00/0000:03:00.0/driver", "../../../bus/pci/drivers/igb");
        tu_write(root, "sys/class/net/enp3s0/queues/rx-0/rps_cpus", "0\n", 0644);
        tu_write(root, "sys/class/net/enp3s0/queues/rx-1/rps_cpus", "0\n", 0644);
        tu_write(root, "sys/class/net/enp3s0/queues/tx-0/xps_cpus", "0\n", 0644);
        tu_write(root, "sys/class/net/enp3s0/queues/tx-1/xps_cpus", "0\n", 0644);
        link_to("sys/class/net/enp3s0/device", "../../../devices/pci0000:00/0000:03:00.0");
        /* virtio_net: the net device's parent is virtio2 below PCI 0000:00:03.0, which has the IRQs. */
        tu_write(root, "sys/devices/pci0000:00/0000:00:03.0/msi_irqs/37", "msix\n", 0644);
        tu_write(root, "sys/devices/pci0000:00/0000:00:03.0/msi_irqs/38", "msix\n", 0644);
        tu_write(root, "sys/devices/pci0000:00/0000:00:03.0/msi_irqs/39", "msix\n", 0644);
        tu_write(root, "sys/devices/pci0000:00/0000:00:03.0/virtio2/.keep", "", 0644);
        tu_write(root, "sys/bus/virtio/drivers/virtio_net/.keep", "", 0644);
        link_to("sys/devices/pci0000:00/0000:00:03.0/virtio2/driver", "../../../../bus/virtio/drivers/virtio_net");
        tu_write(root, "sys/class/net/eth0/queues/rx-0/rps_cpus", "0\n", 0644);
        link_to("sys/class/net/eth0/device", "../../../devices/pci0000:00/0000:00:03.0/virtio2");
        /* A virtual device: no device link. */
        tu_write(root, "sys/class/net/veth0/queues/rx-0/rps_cpus", "0\n", 0644);
        tu_write(root, "proc/interrupts",
                 "           CPU0       CPU1\n"
                 " 37:          0          0 PCI-MSIX-0000:00:03.0   0-edge      virtio2-config\n"
                 " 38:          0       1952 PCI-MSIX-0000:00:03.0   1-edge      virtio2-input.0\n"
                 " 39:       1189          0 PCI-MSIX-0000:00:03.0   2-edge      virtio2-output.0\n"
                 " 40:          5          0 PCI-MSIX-0000:03:00.0   0-edge      enp3s0\n"
                 " 41:         10          0 PCI-MSIX-0000:03:00.0   1-edge      enp3s0-TxRx-0\n"
                 " 42:          0         12 PCI-MSIX-0000:03:00.0   2-edge      enp3s0-TxRx-1\n"
                 "NMI:          0          0   Non-maskable interrupts\n",
                 0444);
        tu_write(root, "proc/irq/41/smp_affinity_list", "0-1\n", 0644);
        tu_write(root, "proc/irq/42/smp_affinity_list", "0-1\n", 0644);
}

static void fixture_teardown(void) {
        tu_rm_rf(root);
        free(root);
        root = NULL;
}

static CpuSet set(const char *list) {
        CpuSet s;
        ck_assert_int_eq(cpuset_parse_list(list, &s, NULL), 0);
        return s;
}

static void assert_cpus(const CpuSet *got, const char *list) {
        CpuSet want = set(list);
        ck_assert_msg(cpuset_equal(got, &want), "not %s", list);
}

/* ---- device facts ---- */

START_TEST(test_device_sysfs_reads_pci_nic) {
        DeviceSysfs d;

        ck_assert_int_eq(device_sysfs_read(root, "enp3s0", &d), 0);
        ck_assert_str_eq(d.driver, "igb");
        ck_assert_str_eq(d.bus_id, "0000:03:00.0");
        ck_assert_ptr_null(d.virtio);
        ck_assert_uint_eq(d.n_msi_irqs, 3);
        ck_assert_uint_eq(d.msi_irqs[0], 40);
        ck_assert_uint_eq(d.msi_irqs[2], 42);
        ck_assert_int_eq(d.numa_node, 1);
        device_sysfs_done(&d);
}
END_TEST

START_TEST(test_device_sysfs_finds_virtio_parent_irqs) {
        _cleanup_(freep) QueueIrq *q = NULL;
        size_t n = 0;
        DeviceSysfs d;

        ck_assert_int_eq(device_sysfs_read(root, "eth0", &d), 0);
        ck_assert_str_eq(d.driver, "virtio_net");
        ck_assert_str_eq(d.virtio, "virtio2");
        ck_assert_str_eq(d.bus_id, "0000:00:03.0");
        ck_assert_uint_eq(d.n_msi_irqs, 3);
        ck_assert_int_eq(d.numa_node, -1);
        ck_assert_int_eq(device_queue_irqs(root, "eth0", &d, &q, &n), 0);
        ck_assert_uint_eq(n, 2);
        ck_assert_int_eq(q[0].kind, QUEUE_RX);
        ck_assert_uint_eq(q[0].irq, 38);
        ck_assert_int_eq(q[1].kind, QUEUE_TX);
        ck_assert_uint_eq(q[1].irq, 39);
        device_sysfs_done(&d);
}
END_TEST

START_TEST(test_device_sysfs_virtual_and_missing_devices) {
        DeviceSysfs d;
        PlacementQueue *q = NULL;
        size_t n = 0;

        ck_assert_int_eq(device_sysfs_read(root, "veth0", &d), 0);
        ck_assert_ptr_null(d.driver);
        ck_assert_ptr_null(d.msi_irqs);
        ck_assert_int_eq(d.numa_node, -1);
        device_sysfs_done(&d);
        ck_assert_int_eq(device_sysfs_read(root, "nope0", &d), -ENODEV);
        ck_assert_int_eq(device_sysfs_read(root, "../etc", &d), -EINVAL);
        ck_assert_int_eq(device_sysfs_queues(root, "nope0", &q, &n), -ENODEV);
}
END_TEST

START_TEST(test_device_sysfs_queues_sorted) {
        _cleanup_(freep) PlacementQueue *q = NULL;
        size_t n = 0;

        tu_write(root, "sys/class/net/enp3s0/queues/rx-10/rps_cpus", "0\n", 0644);
        ck_assert_int_eq(device_sysfs_queues(root, "enp3s0", &q, &n), 0);
        ck_assert_uint_eq(n, 5);
        ck_assert_int_eq(q[0].kind, QUEUE_RX);
        ck_assert_uint_eq(q[1].index, 1);
        ck_assert_uint_eq(q[2].index, 10);
        ck_assert_int_eq(q[3].kind, QUEUE_TX);
        ck_assert_uint_eq(q[4].index, 1);
}
END_TEST

START_TEST(test_device_queue_irqs_by_msi_and_names) {
        _cleanup_(freep) QueueIrq *q = NULL;
        size_t n = 0;
        DeviceSysfs d;

        ck_assert_int_eq(device_sysfs_read(root, "enp3s0", &d), 0);
        ck_assert_int_eq(device_queue_irqs(root, "enp3s0", &d, &q, &n), 0);
        ck_assert_uint_eq(n, 2);
        ck_assert_int_eq(q[0].kind, QUEUE_COMBINED);
        ck_assert_uint_eq(q[0].irq, 41);
        ck_assert_uint_eq(q[1].index, 1);
        ck_assert_uint_eq(q[1].irq, 42);
        device_sysfs_done(&d);
}
END_TEST

/* ---- steering files ---- */

static void assert_path(SteerFile f, const char *ifname, unsigned number, const char *want) {
        _cleanup_(freep) char *p = NULL;

        ck_assert_int_eq(steer_path(f, ifname, number, &p), 0);
        ck_assert_str_eq(p, want);
}

START_TEST(test_steer_path_names_each_file) {
        char *p = NULL;

        assert_path(STEER_IRQ, NULL, 41, "/proc/irq/41/smp_affinity_list");
        assert_path(STEER_RPS, "enp3s0", 1, "/sys/class/net/enp3s0/queues/rx-1/rps_cpus");
        assert_path(STEER_XPS, "enp3s0", 10, "/sys/class/net/enp3s0/queues/tx-10/xps_cpus");
        ck_assert_int_eq(steer_path(STEER_RPS, "../etc", 0, &p), -EINVAL);
        ck_assert_int_eq(steer_path(STEER_XPS, NULL, 0, &p), -EINVAL);
        ck_assert_ptr_null(p);
}
END_TEST

START_TEST(test_steer_read_parses_lists_and_masks) {
        CpuSet cur;

        ck_assert_int_eq(steer_read(root, STEER_IRQ, "/proc/irq/41/smp_affinity_list", &cur), 0);
        assert_cpus(&cur, "0-1");
        tu_write(root, "sys/class/net/enp3s0/queues/rx-1/rps_cpus", "00000203\n", 0644);
        ck_assert_int_eq(steer_read(root, STEER_RPS, "/sys/class/net/enp3s0/queues/rx-1/rps_cpus", &cur), 0);
        assert_cpus(&cur, "0-1,9");
        ck_assert_int_eq(steer_read(root, STEER_RPS, "/sys/class/net/enp3s0/queues/rx-0/rps_cpus", &cur), 0);
        ck_assert(cpuset_is_empty(&cur));
}
END_TEST

START_TEST(test_steer_read_refuses_odd_files) {
        CpuSet cur;

        tu_write(root, "proc/irq/41/smp_affinity_list", "zero\n", 0644);
        ck_assert_int_eq(steer_read(root, STEER_IRQ, "/proc/irq/41/smp_affinity_list", &cur), -EBADMSG);
        tu_write(root, "proc/irq/41/smp_affinity_list", "\n", 0644);
        ck_assert_int_eq(steer_read(root, STEER_IRQ, "/proc/irq/41/smp_affinity_list", &cur), -EBADMSG);
        ck_assert_int_eq(steer_read(root, STEER_IRQ, "/proc/irq/99/smp_affinity_list", &cur), -ENOENT);
}
END_TEST

START_TEST(test_steer_classify_irq_errors) {
        ck_assert_int_eq(steer_classify_irq(0), STEER_OUTCOME_OK);
        ck_assert_int_eq(steer_classify_irq(1), STEER_OUTCOME_OK);
        ck_assert_int_eq(steer_classify_irq(-EIO), STEER_OUTCOME_KERNEL_MANAGED);
        ck_assert_int_eq(steer_classify_irq(-EBUSY), STEER_OUTCOME_RETRY);
        ck_assert_int_eq(steer_classify_irq(-EINVAL), STEER_OUTCOME_RETRY);
        ck_assert_int_eq(steer_classify_irq(-ERANGE), STEER_OUTCOME_RETRY);
        ck_assert_int_eq(steer_classify_irq(-ENOSPC), STEER_OUTCOME_NO_VECTORS);
        ck_assert_int_eq(steer_classify_irq(-EPERM), STEER_OUTCOME_FAILED);
        ck_assert_int_eq(steer_classify_irq(-ENOENT), STEER_OUTCOME_FAILED);
}
END_TEST

START_TEST(test_irqbalance_detected_by_comm) {
        ck_assert_int_eq(irqbalance_running(root), 0);
        tu_write(root, "proc/1/comm", "systemd\n", 0644);
        tu_write(root, "proc/self/comm", "irqbalance\n", 0644); /* not a pid */
        tu_write(root, "proc/812/comm", "irqbalance-ui\n", 0644);
        ck_assert_int_eq(irqbalance_running(root), 0);
        tu_write(root, "proc/977/comm", "irqbalance\n", 0644);
        ck_assert_int_eq(irqbalance_running(root), 977);
}
END_TEST

static void write_cmdline(const char *rel, const char *args, size_t len) {
        _cleanup_(freep) char *p = tu_join(root, rel);
        FILE *f;

        tu_write(root, rel, "", 0644); /* makes its directory */
        f = fopen(p, "we");

        ck_assert_ptr_nonnull(f);
        ck_assert_uint_eq(fwrite(args, 1, len, f), len);
        fclose(f);
}

START_TEST(test_irqbalance_bans_from_command_line_and_defaults) {
        static const char args[] = "/usr/sbin/irqbalance\0--foreground\0--banirq=45\0-i\0" "46\0-i47\0--banirq\0" "48\0";
        IrqbalanceInfo info;

        irqbalance_info(root, &info);
        ck_assert_int_eq(info.pid, 0);
        tu_write(root, "proc/977/comm", "irqbalance\n", 0644);
        write_cmdline("proc/977/cmdline", args, sizeof(args) - 1);
        tu_write(root, "etc/default/irqbalance",
                 "# Debian's file\n#IRQBALANCE_ARGS=\"--banirq=1\"\n"
                 "IRQBALANCE_ARGS=\"--banirq=60 --hintpolicy=exact -i 61\"\n"
                 "export IRQBALANCE_BANNED_CPULIST='0-1'\n", 0644);
        irqbalance_info(root, &info);
        ck_assert_int_eq(info.pid, 977);
        ck_assert_uint_eq(info.n_bans, 6);
        ck_assert_str_eq(irqbalance_ban(&info, 45)->where, "its command line");
        ck_assert_uint_eq(irqbalance_ban(&info, 46)->irq, 46);
        ck_assert_ptr_nonnull(irqbalance_ban(&info, 47));
        ck_assert_ptr_nonnull(irqbalance_ban(&info, 48));
        ck_assert_str_eq(irqbalance_ban(&info, 61)->where, "/etc/default/irqbalance:3");
        ck_assert_ptr_null(irqbalance_ban(&info, 1));
        ck_assert_ptr_null(irqbalance_ban(&info, 44));
        ck_assert_str_eq(info.banned_cpus, "0-1");
        ck_assert_str_eq(info.banned_cpus_where, "/etc/default/irqbalance:4");
}
END_TEST

START_TEST(test_irqbalance_odd_files_are_bounded) {
        size_t n = 100000;
        _cleanup_(freep) char *big = calloc(n, 1);
        IrqbalanceInfo info;

        /* A command line of NULs and numbers past the read bound, a binary defaults file. */
        memset(big, '1', n);
        tu_write(root, "proc/977/comm", "irqbalance\n", 0644);
        write_cmdline("proc/977/cmdline", big, n);
        write_cmdline("etc/default/irqbalance", "IRQBALANCE_ARGS=--banirq=3\n\0\1\2\nIRQBALANCE_ARGS=--banirq=4\n", 46);
        irqbalance_info(root, &info);
        ck_assert_int_eq(info.pid, 977);
        ck_assert_uint_eq(info.n_bans, 1);
        ck_assert_ptr_nonnull(irqbalance_ban(&info, 3));
        ck_assert_str_eq(info.skipped, "/etc/default/irqbalance:2: binary data");
}
END_TEST

/* ---- per-NAPI references ---- */

START_TEST(test_napi_ref_parse_by_id_and_queue) {
        NapiRef r;
        char buf[64];

        ck_assert_int_eq(napi_ref_parse("gro-flush-timeout@eth1:napi-8193", &r, NULL), 0);
        ck_assert_int_eq(r.knob, NAPI_KNOB_GRO_FLUSH_TIMEOUT);
        ck_assert_str_eq(r.device, "eth1");
        ck_assert_uint_eq(r.napi_id, 8193);
        ck_assert_str_eq(napi_ref_format(&r, buf, sizeof(buf)), "gro-flush-timeout@eth1:napi-8193");
        ck_assert_int_eq(napi_ref_parse("irq-suspend-timeout@veth-a:tx-3", &r, NULL), 0);
        ck_assert_int_eq(r.knob, NAPI_KNOB_IRQ_SUSPEND_TIMEOUT);
        ck_assert_uint_eq(r.napi_id, 0);
        ck_assert_int_eq(r.kind, QUEUE_TX);
        ck_assert_uint_eq(r.index, 3);
        ck_assert_str_eq(napi_ref_format(&r, buf, sizeof(buf)), "irq-suspend-timeout@veth-a:tx-3");
        ck_assert_str_eq(napi_knob_desc(NAPI_KNOB_DEFER_HARD_IRQS)->name, "napi-defer-hard-irqs");
        ck_assert_str_eq(napi_knob_desc(NAPI_KNOB_IRQ_SUSPEND_TIMEOUT)->unit, "ns");
}
END_TEST

START_TEST(test_napi_ref_parse_refuses_bad_references) {
        static const struct {
                const char *s;
                int r;
                const char *reason;
        } cases[] = {
                { "busy-read@eth0:napi-1", -ENOENT,
                  "unknown per-NAPI knob; expected napi-defer-hard-irqs, gro-flush-timeout, irq-suspend-timeout "
                  "or napi-threaded" },
                { "gro-flush-timeout", -EINVAL, "expected KNOB@DEVICE:napi-ID or KNOB@DEVICE:rx-N" },
                { "gro-flush-timeout@eth0", -EINVAL, "expected :napi-ID or :rx-N after the device" },
                { "gro-flush-timeout@eth0:napi-0", -EINVAL, "expected a NAPI id (a number from 1) after napi-" },
                { "gro-flush-timeout@eth0:napi-x", -EINVAL, "expected a NAPI id (a number from 1) after napi-" },
                { "gro-flush-timeout@eth0:combined-1", -EINVAL, "expected napi-ID, rx-N or tx-N after the device" },
                { "gro-flush-timeout@:rx-0", -EINVAL, "invalid device name: expected 1-15 characters without '/', ':' or spaces" },
                { "gro-flush-timeout@averyveryverylongname:rx-0", -EINVAL, "invalid device name: expected 1-15 characters without '/', ':' or spaces" },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                const char *reason = NULL;
                NapiRef r;

                ck_assert_msg(napi_ref_parse(cases[i].s, &r, &reason) == cases[i].r, "%s", cases[i].s);
                ck_assert_str_eq(reason, cases[i].reason);
        }
}
END_TEST

static Suite *steer_suite(void) {
        Suite *s = suite_create("steer");
        TCase *tc;

        tc = tcase_create("device-sysfs");
        tcase_add_checked_fixture(tc, fixture_setup, fixture_teardown);
        tcase_add_test(tc, test_device_sysfs_reads_pci_nic);
        tcase_add_test(tc, test_device_sysfs_finds_virtio_parent_irqs);
        tcase_add_test(tc, test_device_sysfs_virtual_and_missing_devices);
        tcase_add_test(tc, test_device_sysfs_queues_sorted);
        tcase_add_test(tc, test_device_queue_irqs_by_msi_and_names);
        suite_add_tcase(s, tc);

        tc = tcase_create("files");
        tcase_add_checked_fixture(tc, fixture_setup, fixture_teardown);
        tcase_add_test(tc, test_steer_path_names_each_file);
        tcase_add_test(tc, test_steer_read_parses_lists_and_masks);
        tcase_add_test(tc, test_steer_read_refuses_odd_files);
        tcase_add_test(tc, test_steer_classify_irq_errors);
        tcase_add_test(tc, test_irqbalance_detected_by_comm);
        tcase_add_test(tc, test_irqbalance_bans_from_command_line_and_defaults);
        tcase_add_test(tc, test_irqbalance_odd_files_are_bounded);
        suite_add_tcase(s, tc);

        tc = tcase_create("napi-refs");
        tcase_add_test(tc, test_napi_ref_parse_by_id_and_queue);
        tcase_add_test(tc, test_napi_ref_parse_refuses_bad_references);
        suite_add_tcase(s, tc);
        return s;
}

TU_MAIN(steer_suite)
