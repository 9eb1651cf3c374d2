/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * test-manager-listener.c: what the Manager tells its listener
 * (ManagerListener, manager.h), the interface the bus registers with: each
 * knob change with its reason, in order, and its going away; on a fixture
 * sysroot whose only knob file is busy_read. (A reload's state_changed needs
 * the adapter manager_run() makes: the integration suite sees it.)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "macro.h"
#include "manager.h"
#include "strv.h"
#include "testutil.h"

#define BUSY_READ "/proc/sys/net/core/busy_read"

static char *dir;

/* What the listener heard: "NAME OLD NEW REASON" per change, and the other calls counted. */
typedef struct Heard {
        char **changes;
        unsigned state_changed;
        unsigned gone;
} Heard;

static void on_knob_changed(void *userdata, const char *name, const char *old, const char *new, const char *reason) {
        Heard *h = userdata;
        char line[256];

        snprintf(line, sizeof(line), "%s %s %s %s", name, old, new, reason);
        ck_assert_int_eq(strv_extend(&h->changes, line), 0);
}

static void on_state_changed(void *userdata) {
        ((Heard *)userdata)->state_changed++;
}

static void on_gone(void *userdata) {
        ((Heard *)userdata)->gone++;
}

static const ManagerListener listener = {
        .knob_changed = on_knob_changed,
        .state_changed = on_state_changed,
        .gone = on_gone,
};

static void setup(void) {
        dir = tu_mkdtemp();
        tu_write(dir, "root" BUSY_READ, "0\n", 0644);
        tu_write(dir, "profiles/t.conf", "[profile]\ndescription = test\n[knobs]\nbusy-read = 50us\n", 0644);
        tu_write(dir, "netpolld.conf", "[daemon]\nprofile = t\n", 0644);
}

static void teardown(void) {
        tu_rm_rf(dir);
        free(dir);
}

/* A Manager on the fixture, listened to and started (its profile applied). */
static Manager *started(Heard *h) {
        _cleanup_(freep) char *config = tu_join(dir, "netpolld.conf"), *root = tu_join(dir, "root"),
                              *state = tu_join(dir, "state"), *profiles = tu_join(dir, "profiles");
        _cleanup_(strv_freep) char **errors = NULL;
        _cleanup_(freep) char *msg = NULL;
        char *profile_dirs[] = { profiles, NULL };
        ManagerOptions o = { .config_path = config, .profile_dirs = profile_dirs, .sysroot = root, .state_dir = state };
        DaemonConfig *c = NULL;
        Profile *p = NULL;
        Manager *m = NULL;

        ck_assert_int_eq(manager_new(&m, &o), 0);
        manager_listen(m, &listener, h);
        ck_assert_int_eq(manager_load_policy(m, NULL, &c, &p, &errors), 0);
        ck_assert_int_eq(manager_start(m, c, p, &msg), 0);
        return m;
}

START_TEST(test_listener_hears_each_change_with_its_reason_in_order) {
        _cleanup_(strv_freep) char **values = NULL;
        _cleanup_(freep) char *msg = NULL, *value = NULL, *heard = NULL;
        char *pairs[] = { "busy-read", "20us", NULL };
        Heard h = {};
        Manager *m = started(&h);

        ck_assert_int_eq(manager_set_knobs(m, pairs, &values, &msg), 0);
        ck_assert_int_eq(manager_reset_knob(m, "busy-read", &value, &msg), 0);
        /* The restore at stop puts originals back without reporting them, as before the listener. */
        ck_assert_int_eq(manager_stop(m), 0);
        heard = strv_join(h.changes, "|");
        ck_assert_str_eq(heard, "busy-read 0us 50us profile|busy-read 50us 20us manual|busy-read 20us 50us reset");
        ck_assert_uint_eq(h.state_changed, 0);
        ck_assert_uint_eq(h.gone, 0);
        manager_free(m);
        ck_assert_uint_eq(h.gone, 1);
        strv_free(h.changes);
}
END_TEST

int main(void) {
        Suite *s = suite_create("manager-listener");
        TCase *tc = tcase_create("listener");

        tcase_add_checked_fixture(tc, setup, teardown);
        tcase_add_test(tc, test_listener_hears_each_change_with_its_reason_in_order);
        suite_add_tcase(s, tc);
        return tu_run(s);
}
