/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * test-interrupts.c: /proc/interrupts parsing and the queue-vector names
 * of mlx5, ixgbe, i40e, ice, ena, bnxt_en, igb and virtio_net, against the
 * captures in tests/data/interrupts (README there says which are real).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "interrupts.h"
#include "macro.h"
#include "testutil.h"

static Interrupts *load(const char *file) {
        _cleanup_(freep) char *path = tu_data(file), *text = NULL, *reason = NULL;
        _cleanup_(fclosep) FILE *f = fopen(path, "re");
        Interrupts *t = NULL;
        size_t n = 0;

        ck_assert_msg(f, "cannot open %s", path);
        ck_assert_int_ge(getdelim(&text, &n, '\0', f), 0);
        ck_assert_msg(interrupts_parse(text, &t, &reason) == 0, "%s: %s", file, strempty(reason));
        return t;
}

typedef struct Want {
        QueueKind kind;
        unsigned index, irq;
} Want;

/* Matches dev in file and checks the result is exactly want. */
static void check_match(const char *file, const DeviceIdent *dev, const Want *want, size_t n_want) {
        _cleanup_(interrupts_freep) Interrupts *t = load(file);
        _cleanup_(freep) QueueIrq *q = NULL;
        size_t n = 99;

        ck_assert_int_eq(interrupts_match_device(t, dev, &q, &n), 0);
        ck_assert_uint_eq(n, n_want);
        for (size_t i = 0; i < n; i++) {
                ck_assert_msg(q[i].kind == want[i].kind && q[i].index == want[i].index && q[i].irq == want[i].irq,
                              "%s entry %zu: got %s-%u on IRQ %u, want %s-%u on IRQ %u", file, i,
                              queue_kind_to_string(q[i].kind), q[i].index, q[i].irq,
                              queue_kind_to_string(want[i].kind), want[i].index, want[i].irq);
        }
}

/* ---- queue names ---- */

START_TEST(test_queue_name_parse_accepts_sysfs_names) {
        QueueKind k;
        unsigned i;

        ck_assert_int_eq(queue_name_parse("rx-0", &k, &i), 0);
        ck_assert_int_eq(k, QUEUE_RX);
        ck_assert_uint_eq(i, 0);
        ck_assert_int_eq(queue_name_parse("tx-15", &k, &i), 0);
        ck_assert_int_eq(k, QUEUE_TX);
        ck_assert_uint_eq(i, 15);
        ck_assert_int_eq(queue_name_parse("combined-3", &k, &i), 0);
        ck_assert_int_eq(k, QUEUE_COMBINED);
        ck_assert_uint_eq(i, 3);
        ck_assert_str_eq(queue_kind_to_string(QUEUE_COMBINED), "combined");
}
END_TEST

START_TEST(test_queue_name_parse_refuses_other_names) {
        static const char *const bad[] = { "rx", "rx-", "rx-01", "rx--1", "rx-1a", "xx-1", "RX-1", "rx-99999999999", "" };
        QueueKind k = QUEUE_TX;
        unsigned i = 7;

        for (size_t j = 0; j < ELEMENTSOF(bad); j++)
                ck_assert_msg(queue_name_parse(bad[j], &k, &i) == -EINVAL, "accepted '%s'", bad[j]);
        ck_assert_int_eq(queue_name_parse(NULL, &k, &i), -EINVAL);
        ck_assert_int_eq(k, QUEUE_TX);
        ck_assert_uint_eq(i, 7);
}
END_TEST

/* ---- /proc/interrupts ---- */

START_TEST(test_interrupts_parse_reads_real_virtio_capture) {
        _cleanup_(interrupts_freep) Interrupts *t = load("interrupts/virtio-net.txt");
        const InterruptLine *e;

        ck_assert_uint_eq(t->n_cpus, 2);
        ck_assert_uint_eq(t->n_lines, 19); /* IRQs 24-26, 28-43; NMI, LOC, ... are not IRQs */
        e = interrupts_find(t, 38);
        ck_assert_ptr_nonnull(e);
        ck_assert_uint_eq(e->total, 1952);
        ck_assert_str_eq(e->chip, "PCI-MSIX-0000:00:03.0");
        ck_assert_str_eq(e->actions[0], "virtio2-input.0");
        ck_assert_ptr_null(e->actions[1]);
        e = interrupts_find(t, 24);
        ck_assert_str_eq(e->chip, "IO-APIC");
        ck_assert_str_eq(e->actions[0], "ACPI:Ged");
        ck_assert_ptr_null(interrupts_find(t, 27));
}
END_TEST

START_TEST(test_interrupts_parse_splits_shared_handlers) {
        _cleanup_(interrupts_freep) Interrupts *t = load("interrupts/ixgbe.txt");
        const InterruptLine *e = interrupts_find(t, 16);

        ck_assert_uint_eq(t->n_cpus, 4);
        ck_assert_ptr_nonnull(e);
        ck_assert_str_eq(e->actions[0], "ehci_hcd:usb1");
        ck_assert_str_eq(e->actions[1], "i801_smbus");
        ck_assert_ptr_null(e->actions[2]);
        /* Old kernels print a hardware IRQ wider than the column. */
        e = interrupts_find(t, 60);
        ck_assert_str_eq(e->chip, "IR-PCI-MSI");
        ck_assert_str_eq(e->actions[0], "eth2-TxRx-0");
}
END_TEST

START_TEST(test_interrupts_parse_handles_chip_without_domain) {
        _cleanup_(interrupts_freep) Interrupts *t = load("interrupts/ena.txt");
        const InterruptLine *e = interrupts_find(t, 1);

        ck_assert_ptr_nonnull(e);
        ck_assert_str_eq(e->chip, "xen-pirq");
        ck_assert_str_eq(e->actions[0], "ACPI:Ged");
        ck_assert_uint_eq(e->total, 62);
}
END_TEST

START_TEST(test_interrupts_parse_refuses_malformed_text) {
        static const struct {
                const char *text, *reason;
        } cases[] = {
                { "", "line 1: expected the CPU header (\"CPU0 CPU1 ...\")" },
                { " 24:  1  0  IO-APIC  5-edge  x\n", "line 1: expected the CPU header (\"CPU0 CPU1 ...\")" },
                { "  CPU0 CPU1\n 24:  1  IO-APIC  5-edge  x\n", "line 2: expected one interrupt count per CPU column" },
                { "  CPU0\n 24:  1\n", "line 2: expected a chip name and handler names after the counts" },
                { "  CPU0\n 24x:  1 IO-APIC  x\n", "line 2: expected an IRQ number followed by ':'" },
                { "  CPU0\n 24:  99999999999999999999999 IO-APIC  x\n", "line 2: interrupt count out of range" },
                { "  CPU0\n 24:  1 IO-APIC\n", "line 2: expected handler names after the chip" },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                _cleanup_(freep) char *reason = NULL;
                Interrupts *t = (Interrupts *)0x1;

                ck_assert_int_eq(interrupts_parse(cases[i].text, &t, &reason), -EBADMSG);
                ck_assert_ptr_eq(t, (Interrupts *)0x1);
                ck_assert_str_eq(reason, cases[i].reason);
        }
}
END_TEST

/* ---- handler names ---- */

START_TEST(test_irq_name_parse_knows_driver_schemes) {
        static const struct {
                const char *name;
                IrqNaming naming;
                QueueKind kind;
                unsigned index;
                const char *owner;
        } cases[] = {
                { "eth2-TxRx-3", IRQ_NAMING_NETDEV, QUEUE_COMBINED, 3, "eth2" },
                { "enp4s0-rx-1", IRQ_NAMING_NETDEV, QUEUE_RX, 1, "enp4s0" },
                { "enp4s0-tx-0", IRQ_NAMING_NETDEV, QUEUE_TX, 0, "enp4s0" },
                { "i40e-eth4-TxRx-2", IRQ_NAMING_NETDEV, QUEUE_COMBINED, 2, "i40e-eth4" },
                { "ice-ens785f0-TxRx-0", IRQ_NAMING_NETDEV, QUEUE_COMBINED, 0, "ice-ens785f0" },
                { "ens5-Tx-Rx-7", IRQ_NAMING_ENA, QUEUE_COMBINED, 7, "ens5" },
                { "mlx5_comp12@pci:0000:3b:00.1", IRQ_NAMING_MLX5, QUEUE_COMBINED, 12, "0000:3b:00.1" },
                { "virtio2-input.0", IRQ_NAMING_VIRTIO, QUEUE_RX, 0, "virtio2" },
                { "virtio10-output.3", IRQ_NAMING_VIRTIO, QUEUE_TX, 3, "virtio10" },
                { "my-tx-1-TxRx-0", IRQ_NAMING_NETDEV, QUEUE_COMBINED, 0, "my-tx-1" },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                IrqQueueName q;

                ck_assert_msg(irq_name_parse(cases[i].name, &q) == 0, "refused %s", cases[i].name);
                ck_assert_int_eq(q.naming, cases[i].naming);
                ck_assert_int_eq(q.kind, cases[i].kind);
                ck_assert_uint_eq(q.index, cases[i].index);
                ck_assert_str_eq(q.owner, cases[i].owner);
        }
}
END_TEST

START_TEST(test_irq_name_parse_refuses_non_queue_vectors) {
        static const char *const bad[] = {
                "eth2", "enp3s0-unused", "i40e-0000:3d:00.0:misc", "mlx5_async0@pci:0000:3b:00.0",
                "mlx5_comp1", "ena-mgmnt@pci:0000:00:05.0", "virtio2-config", "virtio4-input",
                "virtio1-req.0", "nvme0q1", "-TxRx-0", "eth0-TxRx-", "eth0-TxRx-1x", "", "timer",
        };

        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                IrqQueueName q;
                ck_assert_msg(irq_name_parse(bad[i], &q) == -EINVAL, "accepted '%s'", bad[i]);
        }
}
END_TEST

/* ---- matching a device ---- */

START_TEST(test_match_mlx5_by_pci_address) {
        static const Want want[] = {
                { QUEUE_COMBINED, 0, 121 }, { QUEUE_COMBINED, 1, 122 }, { QUEUE_COMBINED, 2, 123 },
                { QUEUE_COMBINED, 3, 124 }, { QUEUE_COMBINED, 4, 125 }, { QUEUE_COMBINED, 5, 126 },
                { QUEUE_COMBINED, 6, 127 }, { QUEUE_COMBINED, 7, 128 },
        };
        static const Want want1[] = { { QUEUE_COMBINED, 0, 130 }, { QUEUE_COMBINED, 7, 137 } };
        DeviceIdent dev = { .ifname = "enp59s0f0np0", .driver = "mlx5_core", .bus_id = "0000:3b:00.0" };
        static const unsigned msi1[] = { 129, 130, 137 };
        DeviceIdent dev1 = { .ifname = "enp59s0f1np1", .driver = "mlx5_core", .bus_id = "0000:3b:00.1",
                             .msi_irqs = msi1, .n_msi_irqs = ELEMENTSOF(msi1) };

        check_match("interrupts/mlx5.txt", &dev, want, ELEMENTSOF(want));
        /* With the function's MSI list, only its IRQs count. */
        check_match("interrupts/mlx5.txt", &dev1, want1, ELEMENTSOF(want1));
}
END_TEST

START_TEST(test_match_ixgbe_by_name_and_after_rename) {
        static const Want eth2[] = { { QUEUE_COMBINED, 0, 60 }, { QUEUE_COMBINED, 1, 61 }, { QUEUE_COMBINED, 2, 62 },
                                     { QUEUE_COMBINED, 3, 63 } };
        static const Want eth3[] = { { QUEUE_COMBINED, 0, 65 }, { QUEUE_COMBINED, 1, 66 }, { QUEUE_COMBINED, 2, 67 },
                                     { QUEUE_COMBINED, 3, 68 } };
        static const unsigned msi[] = { 60, 61, 62, 63, 64 };
        DeviceIdent by_name = { .ifname = "eth3", .driver = "ixgbe" };
        DeviceIdent renamed = { .ifname = "lan0", .driver = "ixgbe", .bus_id = "0000:04:00.0", .msi_irqs = msi,
                                .n_msi_irqs = ELEMENTSOF(msi) };
        DeviceIdent stranger = { .ifname = "lan0", .driver = "ixgbe" };

        check_match("interrupts/ixgbe.txt", &by_name, eth3, ELEMENTSOF(eth3));
        check_match("interrupts/ixgbe.txt", &renamed, eth2, ELEMENTSOF(eth2));
        check_match("interrupts/ixgbe.txt", &stranger, NULL, 0);
}
END_TEST

START_TEST(test_match_i40e_skips_flow_director_vector) {
        static const Want want[] = { { QUEUE_COMBINED, 0, 71 }, { QUEUE_COMBINED, 1, 72 }, { QUEUE_COMBINED, 2, 73 },
                                     { QUEUE_COMBINED, 3, 74 } };
        static const unsigned msi[] = { 70, 71, 72, 73, 74, 75 };
        DeviceIdent with_msi = { .ifname = "eth4", .driver = "i40e", .bus_id = "0000:3d:00.0", .msi_irqs = msi,
                                 .n_msi_irqs = ELEMENTSOF(msi) };
        DeviceIdent renamed = with_msi;
        DeviceIdent by_name = { .ifname = "eth4", .driver = "i40e" };

        renamed.ifname = "wan0";
        check_match("interrupts/i40e.txt", &with_msi, want, ELEMENTSOF(want));
        check_match("interrupts/i40e.txt", &by_name, want, ELEMENTSOF(want));
        /* "i40e-PCI:fdir-TxRx-0" is no interface's queue even when the names do not match. */
        check_match("interrupts/i40e.txt", &renamed, want, ELEMENTSOF(want));
}
END_TEST

START_TEST(test_match_ice_driver_prefixed_names) {
        static const Want want[] = { { QUEUE_COMBINED, 0, 81 }, { QUEUE_COMBINED, 1, 82 }, { QUEUE_COMBINED, 2, 83 },
                                     { QUEUE_COMBINED, 3, 84 } };
        DeviceIdent dev = { .ifname = "ens785f0", .driver = "ice", .bus_id = "0000:5e:00.0" };

        check_match("interrupts/ice.txt", &dev, want, ELEMENTSOF(want));
}
END_TEST

START_TEST(test_match_ena_tx_rx_names) {
        static const Want want[] = { { QUEUE_COMBINED, 0, 28 }, { QUEUE_COMBINED, 1, 29 }, { QUEUE_COMBINED, 2, 30 },
                                     { QUEUE_COMBINED, 3, 31 } };
        DeviceIdent dev = { .ifname = "ens5", .driver = "ena", .bus_id = "0000:00:05.0" };

        check_match("interrupts/ena.txt", &dev, want, ELEMENTSOF(want));
}
END_TEST

START_TEST(test_match_bnxt_renumbers_tx_rings) {
        static const Want sep[] = { { QUEUE_RX, 0, 90 }, { QUEUE_RX, 1, 91 }, { QUEUE_TX, 0, 92 }, { QUEUE_TX, 1, 93 } };
        static const Want shared[] = { { QUEUE_COMBINED, 0, 94 }, { QUEUE_COMBINED, 1, 95 } };
        DeviceIdent p0 = { .ifname = "ens5f0np0", .driver = "bnxt_en" };
        DeviceIdent p1 = { .ifname = "ens5f1np1", .driver = "bnxt_en" };

        check_match("interrupts/bnxt.txt", &p0, sep, ELEMENTSOF(sep));
        check_match("interrupts/bnxt.txt", &p1, shared, ELEMENTSOF(shared));
}
END_TEST

START_TEST(test_match_igb_combined_and_separate_vectors) {
        static const Want sep[] = { { QUEUE_RX, 0, 47 }, { QUEUE_RX, 1, 48 }, { QUEUE_TX, 0, 45 }, { QUEUE_TX, 1, 46 } };
        static const Want comb[] = { { QUEUE_COMBINED, 0, 41 }, { QUEUE_COMBINED, 1, 42 } };
        DeviceIdent a = { .ifname = "enp3s0", .driver = "igb" };
        DeviceIdent b = { .ifname = "enp4s0", .driver = "igb" };

        check_match("interrupts/igb.txt", &a, comb, ELEMENTSOF(comb));
        check_match("interrupts/igb.txt", &b, sep, ELEMENTSOF(sep));
}
END_TEST

START_TEST(test_match_virtio_net_real_capture) {
        static const Want want[] = { { QUEUE_RX, 0, 38 }, { QUEUE_TX, 0, 39 } };
        static const unsigned msi[] = { 37, 38, 39 };
        DeviceIdent dev = { .ifname = "eth0", .driver = "virtio_net", .bus_id = "0000:00:03.0", .virtio = "virtio2",
                            .msi_irqs = msi, .n_msi_irqs = ELEMENTSOF(msi) };
        DeviceIdent other = { .ifname = "eth1", .driver = "virtio_net", .virtio = "virtio9" };

        check_match("interrupts/virtio-net.txt", &dev, want, ELEMENTSOF(want));
        check_match("interrupts/virtio-net.txt", &other, NULL, 0);
}
END_TEST

START_TEST(test_match_refuses_missing_arguments) {
        _cleanup_(interrupts_freep) Interrupts *t = load("interrupts/igb.txt");
        DeviceIdent dev = { .ifname = "enp3s0" };
        QueueIrq *q = NULL;
        size_t n = 0;

        ck_assert_int_eq(interrupts_match_device(NULL, &dev, &q, &n), -EINVAL);
        ck_assert_int_eq(interrupts_match_device(t, NULL, &q, &n), -EINVAL);
        ck_assert_int_eq(interrupts_match_device(t, &dev, NULL, &n), -EINVAL);
}
END_TEST

static Suite *interrupts_suite(void) {
        Suite *s = suite_create("interrupts");
        TCase *tc;

        tc = tcase_create("queue-names");
        tcase_add_test(tc, test_queue_name_parse_accepts_sysfs_names);
        tcase_add_test(tc, test_queue_name_parse_refuses_other_names);
        suite_add_tcase(s, tc);

        tc = tcase_create("proc-interrupts");
        tcase_add_test(tc, test_interrupts_parse_reads_real_virtio_capture);
        tcase_add_test(tc, test_interrupts_parse_splits_shared_handlers);
        tcase_add_test(tc, test_interrupts_parse_handles_chip_without_domain);
        tcase_add_test(tc, test_interrupts_parse_refuses_malformed_text);
        suite_add_tcase(s, tc);

        tc = tcase_create("handler-names");
        tcase_add_test(tc, test_irq_name_parse_knows_driver_schemes);
        tcase_add_test(tc, test_irq_name_parse_refuses_non_queue_vectors);
        suite_add_tcase(s, tc);

        tc = tcase_create("device-matching");
        tcase_add_test(tc, test_match_mlx5_by_pci_address);
        tcase_add_test(tc, test_match_ixgbe_by_name_and_after_rename);
        tcase_add_test(tc, test_match_i40e_skips_flow_director_vector);
        tcase_add_test(tc, test_match_ice_driver_prefixed_names);
        tcase_add_test(tc, test_match_ena_tx_rx_names);
        tcase_add_test(tc, test_match_bnxt_renumbers_tx_rings);
        tcase_add_test(tc, test_match_igb_combined_and_separate_vectors);
        tcase_add_test(tc, test_match_virtio_net_real_capture);
        tcase_add_test(tc, test_match_refuses_missing_arguments);
        suite_add_tcase(s, tc);
        return s;
}

TU_MAIN(interrupts_suite)
