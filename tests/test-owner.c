/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * test-owner.c: the one owner of kernel values (owner.h) on a fixture
 * sysroot and a fake per-NAPI backend: journal before write, read-back,
 * refusals, layers, outside changes, device identity, crash replay,
 * restore rounds, renames, a journal that cannot be written, and which
 * calls never create state.
 */
#include <signal.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "journal.h"
#include "log.h"
#include "macro.h"
#include "owner.h"
#include "testutil.h"

#define BUSY_READ "/proc/sys/net/core/busy_read"
#define ETH1 "/sys/class/net/eth1"
#define GRO ETH1 "/gro_flush_timeout"
#define RPS ETH1 "/queues/rx-0/rps_cpus"
#define NAPI_KEY(id) "napi:" #id ":gro-flush-timeout"

/* ---- a fake per-NAPI backend ---- */

typedef struct FakeValue {
        const char *key;
        char value[32];
        int error;                     /* every write fails with it */
        const struct FakeValue *needs; /* writes fail with -EINVAL until needs holds needs_value */
        const char *needs_value;
} FakeValue;

typedef struct FakeNapi {
        FakeValue v[3];
        int ifindex;        /* of every instance */
        const char *stored; /* what a write stores instead of the value it got, like a kernel that clamps */
        unsigned writes;
        char *journal_seen; /* the journal file as the latest write found it */
} FakeNapi;

static char *dir, *root, *state;
static FakeNapi napi;
static Journal *j;
static Owner *o;

static FakeValue *fake_find(const Target *t) {
        for (size_t i = 0; i < ELEMENTSOF(napi.v); i++)
                if (streq(napi.v[i].key, t->key))
                        return &napi.v[i];
        return NULL;
}

static int fake_read(void *userdata, const Target *t, char **ret) {
        FakeValue *v = fake_find(t);

        ck_assert_ptr_eq(userdata, &napi);
        if (!v)
                return -ENOENT;
        *ret = strdup(v->value);
        return *ret ? 0 : -ENOMEM;
}

static int fake_write(void *userdata, const Target *t, const char *value) {
        FakeValue *v = fake_find(t);

        ck_assert_ptr_eq(userdata, &napi);
        napi.writes++;
        free(napi.journal_seen);
        napi.journal_seen = tu_read(state, JOURNAL_FILE);
        if (!v)
                return -ENOENT;
        if (v->error)
                return v->error;
        if (v->needs && !streq(v->needs->value, v->needs_value))
                return -EINVAL;
        snprintf(v->value, sizeof(v->value), "%s", napi.stored ?: value);
        return 0;
}

static int fake_ifindex(void *userdata, const Target *t) {
        ck_assert_ptr_eq(userdata, &napi);
        return fake_find(t) ? napi.ifindex : -ENOENT;
}

static const TargetBackend fake_backend = {
        .read = fake_read,
        .write = fake_write,
        .ifindex = fake_ifindex,
        .userdata = &napi,
};

/* ---- reported changes ---- */

typedef struct Change {
        char name[96], old[32], new[32], reason[16];
} Change;

static Change changes[16];
static unsigned n_changes;

static void on_change(const Target *t, const char *old, const char *new, const char *reason, void *userdata) {
        Change *c;

        ck_assert_ptr_null(userdata);
        ck_assert_uint_lt(n_changes, ELEMENTSOF(changes));
        c = &changes[n_changes++];
        snprintf(c->name, sizeof(c->name), "%s", t->name);
        snprintf(c->old, sizeof(c->old), "%s", old);
        snprintf(c->new, sizeof(c->new), "%s", new);
        snprintf(c->reason, sizeof(c->reason), "%s", reason);
}

static void assert_last_change(const char *name, const char *old, const char *new, const char *reason) {
        const Change *c;

        ck_assert_uint_gt(n_changes, 0);
        c = &changes[n_changes - 1];
        ck_assert_str_eq(c->name, name);
        ck_assert_str_eq(c->old, old);
        ck_assert_str_eq(c->new, new);
        ck_assert_str_eq(c->reason, reason);
}

/* ---- fixture ---- */

/* A start of netpolld: the journal as the last run left it, a fresh owner. */
static void start(bool dry_run) {
        _cleanup_(freep) char *why = NULL;

        ck_assert_msg(journal_open(&j, state, &why) == 0, "journal_open: %s", strempty(why));
        ck_assert_int_eq(owner_new(&o, root, j, dry_run), 0);
        owner_set_change_callback(o, on_change, NULL);
        owner_set_napi_backend(o, &fake_backend);
}

/* kill -9 and start again: nothing is restored on the way down. */
static void restart(bool dry_run) {
        o = owner_free(o);
        j = journal_free(j);
        start(dry_run);
}

static void setup(void) {
        dir = tu_mkdtemp();
        root = tu_join(dir, "root");
        state = tu_join(dir, "state");
        tu_write(root, BUSY_READ, "50\n", 0644);
        tu_write(root, ETH1 "/ifindex", "3\n", 0644);
        tu_write(root, GRO, "0\n", 0644);
        tu_write(root, RPS, "0\n", 0644);
        napi = (FakeNapi){
                .v = { { NAPI_KEY(8193), "20000" }, { NAPI_KEY(8194), "20000" }, { NAPI_KEY(8195), "20000" } },
                .ifindex = 3,
        };
        n_changes = 0;
        start(false);
}

static void teardown(void) {
        o = owner_free(o);
        j = journal_free(j);
        free(napi.journal_seen);
        tu_rm_rf(dir);
        free(dir);
        free(root);
        free(state);
}

static Target file_target(TargetKind kind, const char *name, const char *device, const char *path) {
        Target t;
        int r = owner_file_target(o, kind, name, device, path, &t);

        ck_assert_msg(r == 0, "owner_file_target(%s): %d", name, r);
        return t;
}

static Target busy_read(void) {
        return file_target(TARGET_SYSCTL, "busy-read", NULL, BUSY_READ);
}

static Target gro(void) {
        return file_target(TARGET_SYSFS, "gro-flush-timeout@eth1", "eth1", GRO);
}

static Target napi_target(uint32_t id) {
        char name[64];
        Target t;

        snprintf(name, sizeof(name), "gro-flush-timeout@eth1:napi-%u", id);
        ck_assert_int_eq(owner_napi_target(o, name, "eth1", id, "gro-flush-timeout", &t), 0);
        return t;
}

static void set_ok(const Target *t, Layer layer, const char *value) {
        _cleanup_(freep) char *now = NULL;
        int r = owner_set(o, t, layer, value, NULL, &now);

        ck_assert_msg(r == 0, "owner_set(%s, %s): %d", t->name, value, r);
        ck_assert_ptr_nonnull(now);
}

static void unset_ok(const Target *t, Layer layer) {
        ck_assert_int_eq(owner_unset(o, t, LAYER_BIT(layer), "reset", NULL), 0);
}

/* What the kernel holds for t, and where netpolld says it comes from. */
static void assert_state(const Target *t, const char *value, ValueOrigin origin) {
        _cleanup_(freep) char *now = NULL;

        ck_assert_int_eq(owner_read(o, t, &now), 0);
        ck_assert_str_eq(now, value);
        ck_assert_str_eq(origin_to_string(owner_origin(o, t)), origin_to_string(origin));
}

/* The original journaled for key; NULL: no entry. */
static void assert_journaled(const char *key, const char *original) {
        const JournalEntry *e = journal_get(j, key);

        if (!original) {
                ck_assert_msg(!e, "%s is journaled", key);
                return;
        }
        ck_assert_msg(e, "%s is not journaled", key);
        ck_assert_str_eq(e->original, original);
}

static void assert_no_journal_file(void) {
        ck_assert_uint_eq(journal_size(j), 0);
        ck_assert_int_eq(access(journal_path(j), F_OK), -1);
}

/* The fixture's ifindex file: another device took the name. */
static void replace_eth1(void) {
        tu_write(root, ETH1 "/ifindex", "7\n", 0644);
}

static void remove_eth1(void) {
        _cleanup_(freep) char *p = tu_join(root, ETH1);
        tu_rm_rf(p);
}

/* busy_read, set to 100 by the profile, then to 77 by somebody else; noticed: owner_check() ran since. */
static Target outside_change(bool noticed) {
        Target t = busy_read();

        set_ok(&t, LAYER_PROFILE, "100");
        tu_write(root, BUSY_READ, "77\n", 0644);
        if (noticed)
                ck_assert_int_eq(owner_check(o), 1);
        return t;
}

/* ---- setting ---- */

START_TEST(test_owner_set_journals_original_before_writing) {
        Target t = napi_target(8193);
        _cleanup_(freep) char *now = NULL;

        ck_assert_int_eq(owner_set(o, &t, LAYER_PROFILE, "0", "latency profile", &now), 0);
        ck_assert_str_eq(now, "0");
        ck_assert_uint_eq(napi.writes, 1);
        ck_assert_str_eq(napi.journal_seen, "netpolld-journal 2\n"
                                            "napi\tgro-flush-timeout@eth1:napi-8193\teth1\t3\t" NAPI_KEY(8193) "\t20000\n"
                                            "end 1\n");
        assert_state(&t, "0", ORIGIN_PROFILE);
        assert_last_change("gro-flush-timeout@eth1:napi-8193", "20000", "0", "profile");
}
END_TEST

START_TEST(test_owner_set_writes_reads_back_and_reports) {
        Target t = busy_read();
        _cleanup_(freep) char *file = NULL;

        set_ok(&t, LAYER_MANUAL, "100");
        ck_assert_str_eq(file = tu_read(root, BUSY_READ), "100\n");
        assert_journaled(BUSY_READ, "50");
        assert_state(&t, "100", ORIGIN_MANUAL);
        ck_assert_str_eq(owner_layer_value(o, &t, LAYER_MANUAL), "100");
        ck_assert_uint_eq(n_changes, 1);
        assert_last_change("busy-read", "50", "100", "manual");
}
END_TEST

START_TEST(test_owner_set_value_in_place_writes_nothing) {
        Target n = napi_target(8193), m = file_target(TARGET_RPS, "rps-cpus@eth1:rx-0", "eth1", RPS);
        _cleanup_(freep) char *file = NULL;

        set_ok(&n, LAYER_PROFILE, "20000");
        tu_write(root, RPS, "00000003\n", 0644);
        set_ok(&m, LAYER_PROFILE, "3");
        ck_assert_uint_eq(napi.writes, 0);
        ck_assert_str_eq(file = tu_read(root, RPS), "00000003\n");
        ck_assert_uint_eq(n_changes, 0);
        assert_no_journal_file();
}
END_TEST

START_TEST(test_owner_set_refused_by_kernel_keeps_nothing) {
        Target t = napi_target(8193);
        _cleanup_(freep) char *now = NULL;

        napi.v[0].error = -EINVAL;
        ck_assert_int_eq(owner_set(o, &t, LAYER_PROFILE, "0", NULL, &now), -EINVAL);
        ck_assert_ptr_null(now);
        assert_state(&t, "20000", ORIGIN_DEFAULT);
        ck_assert_ptr_null(owner_layer_value(o, &t, LAYER_PROFILE));
        ck_assert_uint_eq(n_changes, 0);
        assert_no_journal_file();

        /* A refused higher layer leaves what a lower one holds, and its journal entry, as they were. */
        napi.v[0].error = 0;
        set_ok(&t, LAYER_PROFILE, "0");
        napi.v[0].error = -EINVAL;
        ck_assert_int_eq(owner_set(o, &t, LAYER_MANUAL, "5", NULL, NULL), -EINVAL);
        ck_assert_ptr_null(owner_layer_value(o, &t, LAYER_MANUAL));
        assert_state(&t, "0", ORIGIN_PROFILE);
        assert_journaled(NAPI_KEY(8193), "20000");
}
END_TEST

START_TEST(test_owner_set_reports_edom_when_kernel_keeps_other_value) {
        Target t = napi_target(8193);
        _cleanup_(freep) char *now = NULL;

        napi.stored = "1000";
        ck_assert_int_eq(owner_set(o, &t, LAYER_MANUAL, "5", NULL, &now), -EDOM);
        ck_assert_str_eq(now, "1000");
        assert_journaled(NAPI_KEY(8193), "20000");
        assert_last_change("gro-flush-timeout@eth1:napi-8193", "20000", "1000", "manual");
        /* What the kernel kept is what netpolld expects there now: no outside change. */
        ck_assert_int_eq(owner_check(o), 0);
        assert_state(&t, "1000", ORIGIN_MANUAL);
}
END_TEST

/* ---- layers ---- */

START_TEST(test_owner_layers_highest_wins_and_unset_hands_down) {
        Target t = busy_read();

        set_ok(&t, LAYER_PROFILE, "100");
        assert_state(&t, "100", ORIGIN_PROFILE);
        set_ok(&t, LAYER_MANUAL, "200");
        assert_state(&t, "200", ORIGIN_MANUAL);
        /* A lower layer asks while manual holds: remembered, not applied. */
        set_ok(&t, LAYER_CONTROLLER, "150");
        assert_state(&t, "200", ORIGIN_MANUAL);
        unset_ok(&t, LAYER_MANUAL);
        assert_state(&t, "150", ORIGIN_ADAPTIVE);
        unset_ok(&t, LAYER_CONTROLLER);
        assert_state(&t, "100", ORIGIN_PROFILE);
        assert_journaled(BUSY_READ, "50");
        ck_assert_int_eq(owner_unset(o, &t, LAYER_BIT(LAYER_PROFILE), "profile", NULL), 0);
        assert_state(&t, "50", ORIGIN_DEFAULT);
        assert_last_change("busy-read", "100", "50", "profile");
        assert_no_journal_file();
}
END_TEST

START_TEST(test_owner_unset_of_several_layers_is_one_change) {
        Target t = busy_read();

        set_ok(&t, LAYER_PROFILE, "100");
        set_ok(&t, LAYER_CONTROLLER, "150");
        set_ok(&t, LAYER_MANUAL, "200");
        ck_assert_uint_eq(n_changes, 3);
        ck_assert_int_eq(owner_unset(o, &t, LAYER_BIT(LAYER_MANUAL) | LAYER_BIT(LAYER_CONTROLLER), "reset", NULL), 0);
        assert_state(&t, "100", ORIGIN_PROFILE);
        ck_assert_uint_eq(n_changes, 4);
        assert_last_change("busy-read", "200", "100", "reset");
        ck_assert_int_eq(owner_unset(o, &t, LAYER_BIT(_LAYER_MAX), "reset", NULL), -EINVAL);
}
END_TEST

/* ---- outside changes ---- */

/* Every way the owner meets busy_read again after somebody else wrote it; returns what the call returned. */
static int after_outside_check(const Target *t) {
        (void)t;
        return owner_check(o) == 1 ? 0 : -1;
}

static int after_outside_set_profile(const Target *t) {
        return owner_set(o, t, LAYER_PROFILE, "120", NULL, NULL);
}

static int after_outside_set_controller(const Target *t) {
        return owner_set(o, t, LAYER_CONTROLLER, "130", NULL, NULL);
}

static int after_outside_unset_profile(const Target *t) {
        return owner_unset(o, t, LAYER_BIT(LAYER_PROFILE), "profile", NULL);
}

static int after_outside_restore_all(const Target *t) {
        (void)t;
        return owner_restore_all(o);
}

static int (*const after_outside[])(const Target *t) = {
        after_outside_check,          after_outside_set_profile,  after_outside_set_controller,
        after_outside_unset_profile,  after_outside_restore_all,
};

START_TEST(test_owner_outside_change_is_left_alone) {
        Target t = outside_change(false);

        ck_assert_int_eq(after_outside[_i](&t), 0);
        assert_last_change("busy-read", "100", "77", "external");
        assert_state(&t, "77", ORIGIN_EXTERNAL);
        assert_no_journal_file();
        /* From then on nothing but the manual layer touches it. */
        set_ok(&t, LAYER_PROFILE, "120");
        set_ok(&t, LAYER_CONTROLLER, "130");
        ck_assert_int_eq(owner_check(o), 0);
        ck_assert_int_eq(owner_restore_all(o), 0);
        assert_state(&t, "77", ORIGIN_EXTERNAL);
        assert_no_journal_file();
}
END_TEST

/* Whether owner_check() noticed the outside change first or not, an administrator's set wins. */
START_TEST(test_owner_manual_set_takes_back_outside_change) {
        Target t = outside_change(_i);

        set_ok(&t, LAYER_MANUAL, "200");
        assert_state(&t, "200", ORIGIN_MANUAL);
        ck_assert_int_eq(owner_check(o), 0);
        /* Once noticed, the outside value is the one to put back; unnoticed, it never was netpolld's to know. */
        assert_journaled(BUSY_READ, _i ? "77" : "50");
        unset_ok(&t, LAYER_MANUAL);
        assert_state(&t, "100", ORIGIN_PROFILE);
}
END_TEST

START_TEST(test_owner_manual_unset_takes_back_external_value) {
        Target t = outside_change(true);

        set_ok(&t, LAYER_PROFILE, "120");
        unset_ok(&t, LAYER_MANUAL);
        assert_state(&t, "120", ORIGIN_PROFILE);
        assert_journaled(BUSY_READ, "77");
        unset_ok(&t, LAYER_PROFILE);
        assert_state(&t, "77", ORIGIN_DEFAULT);
}
END_TEST

/* ---- device identity ---- */

START_TEST(test_owner_file_target_reads_device_identity) {
        Target t = gro(), none;

        ck_assert_str_eq(t.device, "eth1");
        ck_assert_int_eq(t.ifindex, 3);
        ck_assert_int_eq(busy_read().ifindex, 0);
        ck_assert_int_eq(owner_file_target(o, TARGET_SYSFS, "x@eth9", "eth9", "/sys/class/net/eth9/threaded", &none),
                         -ENODEV);
        ck_assert_int_eq(owner_file_target(o, TARGET_SYSCTL, "x", NULL, "/etc/shadow", &none), -EINVAL);
        ck_assert_int_eq(owner_file_target(o, TARGET_NAPI, "x", NULL, NAPI_KEY(8193), &none), -EINVAL);
        napi.ifindex = 9;
        ck_assert_int_eq(napi_target(8193).ifindex, 9);
        ck_assert_int_eq(owner_napi_target(o, "x", "eth1", 4242, "gro-flush-timeout", &none), -ENODEV);
}
END_TEST

static void (*const device_goes[])(void) = { replace_eth1, remove_eth1 };

START_TEST(test_owner_restore_all_drops_value_of_gone_device) {
        Target t = gro();
        _cleanup_(freep) char *file = NULL, *dev = tu_join(root, ETH1);

        set_ok(&t, LAYER_PROFILE, "20000");
        restart(false);
        device_goes[_i]();
        ck_assert_int_eq(owner_restore_all(o), 0);
        assert_no_journal_file();
        /* Never written: the new device keeps its value, a gone one is not made up. */
        file = tu_read(root, GRO);
        if (access(dev, F_OK) == 0)
                ck_assert_str_eq(file, "20000\n");
        else
                ck_assert_ptr_null(file);
}
END_TEST

START_TEST(test_owner_check_forgets_targets_of_gone_device) {
        Target t = gro(), s = busy_read();

        set_ok(&t, LAYER_PROFILE, "20000");
        set_ok(&s, LAYER_PROFILE, "100");
        device_goes[_i]();
        ck_assert_int_eq(owner_check(o), 0);
        assert_journaled(GRO, NULL);
        assert_journaled(BUSY_READ, "50");
        ck_assert_int_eq(owner_forget_device(o, "eth1"), 0);
        /* Forgetting changes no value: nothing reported beyond the two sets. */
        ck_assert_uint_eq(n_changes, 2);
}
END_TEST

/* A NAPI instance's kernel thread: a CPU list through the backend, "thread" in the journal, forgotten when the
 * thread ends, also after somebody else moved it. */
START_TEST(test_owner_thread_target_is_a_cpu_list_forgotten_with_its_thread) {
        Target t;

        napi.v[2].key = "napi:8195:thread-cpus";
        snprintf(napi.v[2].value, sizeof(napi.v[2].value), "0-3");
        ck_assert_int_eq(owner_thread_target(o, "napi-thread-affinity@eth1:napi-8195", "eth1", 8195, "thread-cpus", &t),
                         0);
        ck_assert_int_eq(t.kind, TARGET_THREAD);
        set_ok(&t, LAYER_PROFILE, "1");
        ck_assert_str_eq(napi.v[2].value, "1");
        assert_journaled("napi:8195:thread-cpus", "0-3");
        {
                _cleanup_(freep) char *f = tu_read(state, JOURNAL_FILE);
                ck_assert_ptr_nonnull(strstr(f, "thread\tnapi-thread-affinity@eth1:napi-8195\teth1\t3\t"));
        }
        ck_assert_int_eq(owner_check(o), 0); /* "1" read back as "1" */
        snprintf(napi.v[2].value, sizeof(napi.v[2].value), "2"); /* taskset by hand */
        ck_assert_int_eq(owner_check(o), 1);
        assert_state(&t, "2", ORIGIN_EXTERNAL);
        napi.v[2].key = "napi:8195:gone"; /* the thread ended (threaded mode off) */
        ck_assert_int_eq(owner_check(o), 0);
        ck_assert_int_eq(owner_origin(o, &t), ORIGIN_DEFAULT);
        assert_no_journal_file();
}
END_TEST

START_TEST(test_owner_set_on_replaced_device_forgets_old_original) {
        Target old = gro(), new;

        set_ok(&old, LAYER_PROFILE, "20000");
        replace_eth1();
        tu_write(root, GRO, "555\n", 0644);
        new = gro();
        ck_assert_int_eq(new.ifindex, 7);
        ck_assert_int_eq(owner_origin(o, &new), ORIGIN_DEFAULT);
        set_ok(&new, LAYER_PROFILE, "30000");
        ck_assert_int_eq(journal_get(j, GRO)->ifindex, 7);
        assert_journaled(GRO, "555");
        ck_assert_int_eq(owner_restore_all(o), 0);
        assert_state(&new, "555", ORIGIN_DEFAULT);
}
END_TEST

START_TEST(test_owner_forget_device_drops_its_targets) {
        Target t = gro(), q = file_target(TARGET_RPS, "rps-cpus@eth1:rx-0", "eth1", RPS), s = busy_read();

        set_ok(&t, LAYER_PROFILE, "20000");
        set_ok(&q, LAYER_PROFILE, "3");
        set_ok(&s, LAYER_PROFILE, "100");
        ck_assert_int_eq(owner_forget_device(o, "eth1"), 2);
        ck_assert_uint_eq(journal_size(j), 1);
        assert_journaled(BUSY_READ, "50");
        assert_state(&t, "20000", ORIGIN_DEFAULT);
}
END_TEST

START_TEST(test_owner_rename_device_moves_keys_and_journal) {
        Target t = gro(), q = file_target(TARGET_RPS, "rps-cpus@eth1:rx-0", "eth1", RPS), moved;
        _cleanup_(freep) char *from = tu_join(root, ETH1), *to = tu_join(root, "/sys/class/net/eth2");
        _cleanup_(freep) char *file = NULL;
        const JournalEntry *e;

        set_ok(&t, LAYER_PROFILE, "20000");
        set_ok(&q, LAYER_PROFILE, "3");
        ck_assert_int_eq(rename(from, to), 0);
        ck_assert_int_eq(owner_rename_device(o, "eth1", "eth2"), 2);
        ck_assert_int_eq(owner_rename_device(o, "eth1", "a/b"), -EINVAL);
        ck_assert_uint_eq(journal_size(j), 2);
        assert_journaled(GRO, NULL);
        e = journal_get(j, "/sys/class/net/eth2/queues/rx-0/rps_cpus");
        ck_assert_ptr_nonnull(e);
        ck_assert_str_eq(e->name, "rps-cpus@eth2:rx-0");
        ck_assert_str_eq(e->device, "eth2");
        ck_assert_int_eq(e->ifindex, 3);
        ck_assert_str_eq(e->original, "0");

        moved = file_target(TARGET_SYSFS, "gro-flush-timeout@eth2", "eth2", "/sys/class/net/eth2/gro_flush_timeout");
        ck_assert_str_eq(owner_layer_value(o, &moved, LAYER_PROFILE), "20000");
        assert_state(&moved, "20000", ORIGIN_PROFILE);
        unset_ok(&moved, LAYER_PROFILE);
        assert_last_change("gro-flush-timeout@eth2", "20000", "0", "reset");
        /* On disk too: a crash now restores the queue below its new name. */
        restart(false);
        ck_assert_int_eq(owner_restore_all(o), 0);
        ck_assert_str_eq(file = tu_read(root, "/sys/class/net/eth2/queues/rx-0/rps_cpus"), "0\n");
}
END_TEST

/* ---- restoring ---- */

START_TEST(test_owner_crash_replay_restores_originals) {
        Target s = busy_read(), t = gro(), n = napi_target(8193);
        _cleanup_(freep) char *a = NULL, *b = NULL;

        set_ok(&s, LAYER_PROFILE, "100");
        set_ok(&t, LAYER_CONTROLLER, "20000");
        set_ok(&n, LAYER_MANUAL, "0");
        restart(false);
        ck_assert_uint_eq(journal_size(j), 3);
        ck_assert_int_eq(owner_restore_all(o), 0);
        ck_assert_str_eq(a = tu_read(root, BUSY_READ), "50\n");
        ck_assert_str_eq(b = tu_read(root, GRO), "0\n");
        ck_assert_str_eq(napi.v[0].value, "20000");
        assert_no_journal_file();
}
END_TEST

START_TEST(test_owner_restore_all_keeps_napi_entries_without_backend) {
        Target s = busy_read(), n = napi_target(8193);

        set_ok(&s, LAYER_PROFILE, "100");
        set_ok(&n, LAYER_PROFILE, "0");
        restart(false);
        owner_set_napi_backend(o, NULL);
        ck_assert_int_eq(owner_restore_all(o), 1);
        assert_journaled(BUSY_READ, NULL);
        assert_journaled(NAPI_KEY(8193), "20000");
        owner_set_napi_backend(o, &fake_backend);
        ck_assert_int_eq(owner_restore_all(o), 0);
        ck_assert_str_eq(napi.v[0].value, "20000");
        assert_no_journal_file();
}
END_TEST

/* Sets the three NAPI values away from their originals; the first cannot go back before the second. */
static void set_dependent_values(void) {
        for (uint32_t i = 0; i < ELEMENTSOF(napi.v); i++) {
                Target t = napi_target(8193 + i);
                set_ok(&t, LAYER_PROFILE, "1");
        }
        napi.v[0].needs = &napi.v[1];
        napi.v[0].needs_value = "20000";
}

START_TEST(test_owner_restore_all_retries_dependent_values) {
        set_dependent_values();
        ck_assert_int_eq(owner_restore_all(o), 0);
        for (size_t i = 0; i < ELEMENTSOF(napi.v); i++)
                ck_assert_str_eq(napi.v[i].value, "20000");
        assert_no_journal_file();
}
END_TEST

/* owner_restore_all() with the log in memory; *ret_log: what it logged (caller frees). */
static int restore_all_logged(char **ret_log) {
        FILE *saved = stderr;
        size_t size = 0;
        int r;

        log_set_target(LOG_TARGET_CONSOLE);
        *ret_log = NULL;
        stderr = open_memstream(ret_log, &size);
        ck_assert_ptr_nonnull(stderr);
        r = owner_restore_all(o);
        ck_assert_int_eq(fclose(stderr), 0);
        stderr = saved;
        return r;
}

static unsigned count(const char *s, const char *what) {
        unsigned n = 0;

        for (const char *p = s; (p = strstr(p, what)); p += strlen(what))
                n++;
        return n;
}

START_TEST(test_owner_restore_all_keeps_value_that_always_fails) {
        _cleanup_(freep) char *log = NULL;

        set_dependent_values();
        napi.v[2].error = -EIO;
        ck_assert_int_eq(restore_all_logged(&log), 1);
        ck_assert_str_eq(napi.v[0].value, "20000");
        ck_assert_str_eq(napi.v[1].value, "20000");
        ck_assert_uint_eq(journal_size(j), 1);
        assert_journaled(NAPI_KEY(8195), "20000");
        ck_assert_msg(count(log, "could not restore") == 1, "logged: %s", log);
        ck_assert_ptr_nonnull(strstr(log, NAPI_KEY(8195)));
}
END_TEST

START_TEST(test_owner_restore_all_reports_journal_failure) {
        Target s = busy_read();
        _cleanup_(freep) char *f = tu_join(state, JOURNAL_FILE), *file = NULL;

        set_ok(&s, LAYER_PROFILE, "100");
        /* A regular file where the state directory was: the journal cannot be rewritten. */
        ck_assert_int_eq(unlink(f), 0);
        ck_assert_int_eq(rmdir(state), 0);
        tu_write(dir, "state", "not a directory\n", 0644);
        ck_assert_int_eq(owner_restore_all(o), -ENOTDIR);
        ck_assert_str_eq(file = tu_read(root, BUSY_READ), "50\n");
}
END_TEST

START_TEST(test_owner_discard_forgets_without_writing) {
        Target s = busy_read();

        set_ok(&s, LAYER_PROFILE, "100");
        ck_assert_int_eq(owner_discard(o), 0);
        assert_state(&s, "100", ORIGIN_DEFAULT);
        ck_assert_ptr_null(owner_layer_value(o, &s, LAYER_PROFILE));
        assert_no_journal_file();
}
END_TEST

START_TEST(test_owner_dry_run_changes_nothing) {
        Target s = busy_read(), n = napi_target(8193);

        set_ok(&n, LAYER_PROFILE, "0");
        restart(true);
        _cleanup_(freep) char *file = NULL;

        set_ok(&s, LAYER_PROFILE, "100");
        ck_assert_str_eq(file = tu_read(root, BUSY_READ), "50\n");
        ck_assert_int_eq(owner_restore_all(o), 0);
        ck_assert_str_eq(napi.v[0].value, "0");
        ck_assert_uint_eq(napi.writes, 1);
        ck_assert_uint_eq(journal_size(j), 1);
        assert_journaled(BUSY_READ, NULL);
}
END_TEST

/* ---- read-only calls ---- */

START_TEST(test_owner_read_only_calls_create_no_state) {
        Target s = busy_read(), n = napi_target(8193);
        _cleanup_(freep) char *v = NULL, *w = NULL;

        for (Layer l = 0; l < _LAYER_MAX; l++) {
                ck_assert_ptr_null(owner_layer_value(o, &s, l));
                ck_assert_ptr_null(owner_layer_value(o, &n, l));
        }
        ck_assert_int_eq(owner_origin(o, &s), ORIGIN_DEFAULT);
        ck_assert_int_eq(owner_origin(o, &n), ORIGIN_DEFAULT);
        ck_assert_int_eq(owner_read(o, &s, &v), 0);
        ck_assert_str_eq(v, "50");
        ck_assert_int_eq(owner_read(o, &n, &w), 0);
        ck_assert_str_eq(w, "20000");
        ck_assert_int_eq(owner_unset(o, &n, LAYER_BIT(LAYER_MANUAL), "reset", NULL), 0);
        /* Nothing held: nothing to check, forget or rename, nothing written or journaled. */
        ck_assert_int_eq(owner_check(o), 0);
        ck_assert_int_eq(owner_rename_device(o, "eth1", "eth2"), 0);
        ck_assert_int_eq(owner_forget_device(o, "eth1"), 0);
        ck_assert_uint_eq(napi.writes, 0);
        ck_assert_uint_eq(n_changes, 0);
        assert_no_journal_file();
        ck_assert_int_eq(access(state, F_OK), -1);
}
END_TEST

/* A cache of origins and values keyed on the generation must see every change the owner makes or notices. */
START_TEST(test_owner_generation_moves_with_every_change) {
        Target t = busy_read(), g = gro();
        _cleanup_(freep) char *v = NULL;
        uint64_t gen = owner_generation(o);

#define ASSERT_MOVED(what)                                                                   \
        do {                                                                                 \
                ck_assert_msg(owner_generation(o) != gen, "generation did not move: %s", what); \
                gen = owner_generation(o);                                                   \
        } while (0)

        /* Looking changes nothing. */
        ck_assert_int_eq(owner_read(o, &t, &v), 0);
        (void)owner_origin(o, &t);
        ck_assert_int_eq(owner_check(o), 0);
        ck_assert_uint_eq(owner_generation(o), gen);

        set_ok(&t, LAYER_PROFILE, "100");
        ASSERT_MOVED("profile set");
        set_ok(&t, LAYER_CONTROLLER, "0");
        ASSERT_MOVED("controller set");
        unset_ok(&t, LAYER_CONTROLLER);
        ASSERT_MOVED("controller unset");
        ck_assert_int_eq(owner_check(o), 0);
        ck_assert_uint_eq(owner_generation(o), gen); /* nothing changed outside */
        tu_write(root, BUSY_READ, "77\n", 0644);
        ck_assert_int_eq(owner_check(o), 1);
        ASSERT_MOVED("outside change noticed");
        set_ok(&g, LAYER_PROFILE, "20000");
        ASSERT_MOVED("device value set");
        ck_assert_int_eq(owner_rename_device(o, "eth1", "eth2"), 1);
        ASSERT_MOVED("device renamed");
        ck_assert_int_eq(owner_forget_device(o, "eth2"), 1);
        ASSERT_MOVED("device forgotten");
        ck_assert_int_eq(owner_restore_all(o), 0);
        ASSERT_MOVED("restore");
#undef ASSERT_MOVED
}
END_TEST

/* ---- comparing kernel texts ---- */

START_TEST(test_owner_value_equal_by_kind) {
        ck_assert(owner_value_equal(TARGET_RPS, "00000003", "3"));
        ck_assert(owner_value_equal(TARGET_XPS, "00000000,00000001", "1"));
        ck_assert(owner_value_equal(TARGET_RPS, "0f", "f"));
        ck_assert(!owner_value_equal(TARGET_RPS, "3", "7"));
        ck_assert(owner_value_equal(TARGET_IRQ, "0-1", "0,1"));
        ck_assert(!owner_value_equal(TARGET_IRQ, "0-1", "0-2"));
        ck_assert(owner_value_equal(TARGET_SYSCTL, "050", "50"));
        ck_assert(owner_value_equal(TARGET_NAPI, "20000", "20000"));
        ck_assert(owner_value_equal(TARGET_THREAD, "0-1", "0,1"));
        ck_assert(!owner_value_equal(TARGET_THREAD, "1", "0-1"));
        ck_assert(!owner_value_equal(TARGET_SYSFS, "1", "2"));
        ck_assert(owner_value_equal(TARGET_SYSCTL, "4096\t131072\t6291456", "4096 131072  6291456"));
        ck_assert(!owner_value_equal(TARGET_SYSCTL, "4096\t131072\t6291456", "4096\t131072"));
        ck_assert(!owner_value_equal(TARGET_SYSCTL, "4096\t131072", "4096\t131073"));
        ck_assert(!owner_value_equal(TARGET_SYSCTL, "50", NULL));
        ck_assert(!owner_value_equal(TARGET_RPS, "zz", "zz"));
}
END_TEST

/* ---- journal faults ---- */

/* A regular file where the state directory was: no journal can be written or removed there. */
static void break_state_dir(void) {
        _cleanup_(freep) char *f = tu_join(state, JOURNAL_FILE);

        (void)unlink(f);
        (void)rmdir(state);
        tu_write(dir, "state", "not a directory\n", 0644);
}

/*
 * Like a full disk while it lasts: a journal can be removed, but writing one
 * fails (EFBIG past a few bytes; kernel values are shorter). No ck_assert
 * until it ends: Check's own messages would not be written either.
 */
static bool disk_full(bool full) {
        struct rlimit l = { full ? 8 : RLIM_INFINITY, RLIM_INFINITY };

        return signal(SIGXFSZ, full ? SIG_IGN : SIG_DFL) != SIG_ERR && setrlimit(RLIMIT_FSIZE, &l) == 0;
}

START_TEST(test_owner_set_refuses_what_it_cannot_journal) {
        Target s = busy_read(), n = napi_target(8193);
        _cleanup_(freep) char *file = NULL, *msg = NULL;

        break_state_dir();
        ck_assert_int_eq(owner_set(o, &s, LAYER_MANUAL, "100", NULL, NULL), -OWNER_E_NOT_JOURNALED);
        ck_assert_int_eq(owner_set(o, &n, LAYER_PROFILE, "0", NULL, NULL), -OWNER_E_NOT_JOURNALED);
        ck_assert_str_eq(file = tu_read(root, BUSY_READ), "50\n");
        ck_assert_uint_eq(napi.writes, 0);
        ck_assert_ptr_null(owner_layer_value(o, &s, LAYER_MANUAL));
        assert_state(&s, "50", ORIGIN_DEFAULT);
        ck_assert_uint_eq(n_changes, 0);
        msg = owner_not_journaled_message(o, "busy-read");
        ck_assert_ptr_nonnull(strstr(msg, "busy-read: cannot save its original in "));
        ck_assert_ptr_nonnull(strstr(msg, "Not a directory"));
        ck_assert_ptr_nonnull(strstr(msg, "nothing was changed"));

        /* The state directory is back: the same set works. */
        _cleanup_(freep) char *f = tu_join(dir, "state");
        ck_assert_int_eq(unlink(f), 0);
        ck_assert_int_eq(mkdir(state, 0755), 0);
        set_ok(&s, LAYER_MANUAL, "100");
        assert_journaled(BUSY_READ, "50");
}
END_TEST

START_TEST(test_owner_unset_hands_back_when_journal_cannot_shrink) {
        Target s = busy_read(), g = gro();
        _cleanup_(freep) char *file = NULL;

        set_ok(&s, LAYER_MANUAL, "100");
        set_ok(&g, LAYER_MANUAL, "5");
        /* The original goes back although its entry cannot leave the journal yet. */
        bool full = disk_full(true);
        int r = owner_unset(o, &s, LAYER_BIT(LAYER_MANUAL), "reset", NULL);
        ck_assert(disk_full(false) && full);
        ck_assert_int_eq(r, 0);
        ck_assert_str_eq(file = tu_read(root, BUSY_READ), "50\n");
        assert_state(&s, "50", ORIGIN_DEFAULT);
        assert_last_change("busy-read", "100", "50", "reset");
        assert_journaled(BUSY_READ, "50");
        /* Not taken for an outside change later. */
        ck_assert_int_eq(owner_check(o), 0);
}
END_TEST

START_TEST(test_owner_restore_all_on_full_disk_removes_journal) {
        Target s = busy_read(), g = gro();
        _cleanup_(freep) char *a = NULL, *b = NULL;

        set_ok(&s, LAYER_MANUAL, "100");
        set_ok(&g, LAYER_MANUAL, "5");
        bool full = disk_full(true);
        int r = owner_restore_all(o);
        ck_assert(disk_full(false) && full);
        ck_assert_int_eq(r, 0);
        ck_assert_str_eq(a = tu_read(root, BUSY_READ), "50\n");
        ck_assert_str_eq(b = tu_read(root, GRO), "0\n");
        assert_no_journal_file();
}
END_TEST

START_TEST(test_owner_restore_all_on_full_disk_ends_with_a_refused_value) {
        Target s = busy_read(), n = napi_target(8193);
        _cleanup_(freep) char *file = NULL;

        set_ok(&s, LAYER_MANUAL, "100");
        set_ok(&n, LAYER_MANUAL, "0");
        napi.v[0].error = -EIO;
        /* Used to go round forever: the restored value that stayed listed counted as progress. */
        bool full = disk_full(true);
        int r = owner_restore_all(o);
        ck_assert(disk_full(false) && full);
        ck_assert_int_eq(r, -EFBIG);
        ck_assert_str_eq(file = tu_read(root, BUSY_READ), "50\n");
        assert_journaled(NAPI_KEY(8193), "20000");
}
END_TEST

static Suite *owner_suite(void) {
        Suite *s = suite_create("owner");
        TCase *tc;

        tc = tcase_create("setting");
        tcase_add_checked_fixture(tc, setup, teardown);
        tcase_add_test(tc, test_owner_set_journals_original_before_writing);
        tcase_add_test(tc, test_owner_set_writes_reads_back_and_reports);
        tcase_add_test(tc, test_owner_set_value_in_place_writes_nothing);
        tcase_add_test(tc, test_owner_set_refused_by_kernel_keeps_nothing);
        tcase_add_test(tc, test_owner_set_reports_edom_when_kernel_keeps_other_value);
        tcase_add_test(tc, test_owner_layers_highest_wins_and_unset_hands_down);
        tcase_add_test(tc, test_owner_unset_of_several_layers_is_one_change);
        suite_add_tcase(s, tc);

        tc = tcase_create("outside changes");
        tcase_add_checked_fixture(tc, setup, teardown);
        tcase_add_loop_test(tc, test_owner_outside_change_is_left_alone, 0, (int)ELEMENTSOF(after_outside));
        tcase_add_loop_test(tc, test_owner_manual_set_takes_back_outside_change, 0, 2);
        tcase_add_test(tc, test_owner_manual_unset_takes_back_external_value);
        suite_add_tcase(s, tc);

        tc = tcase_create("device identity");
        tcase_add_checked_fixture(tc, setup, teardown);
        tcase_add_test(tc, test_owner_file_target_reads_device_identity);
        tcase_add_loop_test(tc, test_owner_restore_all_drops_value_of_gone_device, 0, (int)ELEMENTSOF(device_goes));
        tcase_add_loop_test(tc, test_owner_check_forgets_targets_of_gone_device, 0, (int)ELEMENTSOF(device_goes));
        tcase_add_test(tc, test_owner_thread_target_is_a_cpu_list_forgotten_with_its_thread);
        tcase_add_test(tc, test_owner_set_on_replaced_device_forgets_old_original);
        tcase_add_test(tc, test_owner_forget_device_drops_its_targets);
        tcase_add_test(tc, test_owner_rename_device_moves_keys_and_journal);
        suite_add_tcase(s, tc);

        tc = tcase_create("restoring");
        tcase_add_checked_fixture(tc, setup, teardown);
        tcase_add_test(tc, test_owner_crash_replay_restores_originals);
        tcase_add_test(tc, test_owner_restore_all_keeps_napi_entries_without_backend);
        tcase_add_test(tc, test_owner_restore_all_retries_dependent_values);
        tcase_add_test(tc, test_owner_restore_all_keeps_value_that_always_fails);
        tcase_add_test(tc, test_owner_restore_all_reports_journal_failure);
        tcase_add_test(tc, test_owner_discard_forgets_without_writing);
        tcase_add_test(tc, test_owner_dry_run_changes_nothing);
        suite_add_tcase(s, tc);

        tc = tcase_create("journal faults");
        tcase_add_checked_fixture(tc, setup, teardown);
        tcase_add_test(tc, test_owner_set_refuses_what_it_cannot_journal);
        tcase_add_test(tc, test_owner_unset_hands_back_when_journal_cannot_shrink);
        tcase_add_test(tc, test_owner_restore_all_on_full_disk_removes_journal);
        tcase_add_test(tc, test_owner_restore_all_on_full_disk_ends_with_a_refused_value);
        suite_add_tcase(s, tc);

        tc = tcase_create("reading");
        tcase_add_checked_fixture(tc, setup, teardown);
        tcase_add_test(tc, test_owner_read_only_calls_create_no_state);
        tcase_add_test(tc, test_owner_generation_moves_with_every_change);
        tcase_add_test(tc, test_owner_value_equal_by_kind);
        suite_add_tcase(s, tc);

        return s;
}

TU_MAIN(owner_suite)
