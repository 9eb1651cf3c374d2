/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * test-other-owner.c: the core's naming of a value's likely other owner on
 * fake sysroots: a sysctl.d line only when its value is the kernel's (as
 * the owner compares values), a tuned profile line only while tuned runs,
 * sysctl.d listed before tuned, irqbalance for an IRQ with its ban, and
 * nothing for a value nobody known sets.
 */
#include <stdlib.h>
#include <string.h>

#include "macro.h"
#include "manager.h"
#include "other-owner.h"
#include "owner.h"
#include "testutil.h"

#define root tu_root

static Target target(TargetKind kind, const char *key) {
        Target t = { .kind = kind };

        snprintf(t.name, sizeof(t.name), "%s", kind == TARGET_IRQ ? "irq-affinity@eth9:rx-0" : "busy-read");
        snprintf(t.key, sizeof(t.key), "%s", key);
        return t;
}

/* The owners' "KIND WHERE (NOTE)" joined by " | ". */
static char *owners_text(const Target *t, const char *value) {
        Manager m = { .sysroot = root };
        OtherOwner *v = NULL;
        size_t n = 0;
        char *all = strdup("");

        ck_assert_int_eq(manager_other_owners(&m, t, value, &v, &n), 0);
        for (size_t i = 0; i < n; i++) {
                _cleanup_(freep) char *one = other_owner_format(&v[i]), *prev = all;

                ck_assert_int_ge(asprintf(&all, "%s%s%s", prev, i ? " | " : "", one), 0);
        }
        other_owners_free(v, n);
        return all;
}

#define assert_owners(t, value, expected)                              \
        do {                                                           \
                _cleanup_(freep) char *_s = owners_text((t), (value)); \
                ck_assert_str_eq(_s, (expected));                      \
        } while (0)

START_TEST(test_other_owner_sysctl_d_then_tuned_when_values_agree) {
        Target t = target(TARGET_SYSCTL, "/proc/sys/net/core/busy_read");

        tu_write(root, "etc/sysctl.d/60-net.conf", "net.core.busy_read = 050\n", 0644);
        tu_write(root, "etc/tuned/active_profile", "net\n", 0644);
        tu_write(root, "usr/lib/tuned/net/tuned.conf", "[sysctl]\nnet.core.busy_read = \"50\"\n", 0644);
        /* Compared as numbers; tuned is not running yet. */
        assert_owners(&t, "50", "sysctl.d /etc/sysctl.d/60-net.conf:1 (net.core.busy_read = 050)");
        assert_owners(&t, "51", "");
        tu_write(root, "proc/812/comm", "tuned\n", 0644);
        assert_owners(&t, "50",
                      "sysctl.d /etc/sysctl.d/60-net.conf:1 (net.core.busy_read = 050) | "
                      "tuned /usr/lib/tuned/net/tuned.conf:2 (active profile net, pid 812: net.core.busy_read = 50)");
        tu_write(root, "etc/sysctl.d/60-net.conf", "net.core.busy_read = 7\n", 0644);
        assert_owners(&t, "50", "tuned /usr/lib/tuned/net/tuned.conf:2 (active profile net, pid 812: net.core.busy_read = 50)");
        assert_owners(&t, NULL, "");
}
END_TEST

START_TEST(test_other_owner_irqbalance_with_its_ban) {
        Target t = target(TARGET_IRQ, "/proc/irq/41/smp_affinity_list");

        assert_owners(&t, "0-1", "");
        tu_write(root, "proc/977/comm", "irqbalance\n", 0644);
        assert_owners(&t, "0-1", "irqbalance pid 977 (does not ban IRQ 41)");
        tu_write(root, "etc/default/irqbalance", "IRQBALANCE_ARGS=\"--banirq=41\"\nIRQBALANCE_BANNED_CPUS=0c\n", 0644);
        assert_owners(&t, "0-1",
                      "irqbalance pid 977 (bans IRQ 41 (/etc/default/irqbalance:1), so it should not move it; "
                      "keeps IRQs off CPUs 0c (/etc/default/irqbalance:2))");
        /* irqbalance moves IRQs, not RPS masks or sysctls. */
        t = target(TARGET_RPS, "/sys/class/net/eth9/queues/rx-0/rps_cpus");
        assert_owners(&t, "3", "");
}
END_TEST

static Suite *other_owner_suite(void) {
        Suite *s = suite_create("other-owner");
        TCase *tc = tcase_create("core");

        tcase_add_checked_fixture(tc, tu_root_setup, tu_root_teardown);
        tcase_add_test(tc, test_other_owner_sysctl_d_then_tuned_when_values_agree);
        tcase_add_test(tc, test_other_owner_irqbalance_with_its_ban);
        suite_add_tcase(s, tc);
        return s;
}

TU_MAIN(other_owner_suite)
