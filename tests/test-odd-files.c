/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * test-odd-files.c: the owner (owner.h) facing kernel files that misbehave,
 * for every kind of file it writes (sysctl, per-device sysfs, IRQ affinity,
 * RPS and XPS masks): empty, 1 MiB, not a value of the kind, a directory
 * (EISDIR), gone between the read and the write, EIO on read and on write.
 * Each must fail with an error that names the file and says what was wrong,
 * and change nothing else: every other file of the fixture keeps its bytes,
 * the journal file keeps its bytes, no change is reported, and the value
 * another knob holds stays held.
 *
 * Vanishing files and EIO come from a test seam: this program is linked with
 * -Wl,--wrap=sysroot_read_value,--wrap=sysroot_write_value (tests/meson.build),
 * so the owner's reads and writes pass through fault_read()/fault_write()
 * below, which call the real functions unless a fault is armed for the path.
 */
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "journal.h"
#include "macro.h"
#include "owner.h"
#include "sysroot.h"
#include "testutil.h"

/* ---- the seam ---- */

typedef enum Fault {
        FAULT_EMPTY,
        FAULT_HUGE,
        FAULT_NOT_A_VALUE,
        FAULT_DIRECTORY,
        FAULT_VANISH,     /* removed after the read, before the write */
        FAULT_EIO_READ,
        FAULT_EIO_WRITE,
        _FAULT_MAX,
} Fault;

static const char *armed_path; /* below the sysroot */
static Fault armed;
static char *root;

int __real_sysroot_read_value(const char *root, const char *path, char **ret);
int __real_sysroot_write_value(const char *root, const char *path, const char *value);
int __wrap_sysroot_read_value(const char *r, const char *path, char **ret);
int __wrap_sysroot_write_value(const char *r, const char *path, const char *value);

int __wrap_sysroot_read_value(const char *r, const char *path, char **ret) {
        if (armed_path && streq(path, armed_path) && armed == FAULT_EIO_READ)
                return -EIO;
        return __real_sysroot_read_value(r, path, ret);
}

int __wrap_sysroot_write_value(const char *r, const char *path, const char *value) {
        if (armed_path && streq(path, armed_path)) {
                if (armed == FAULT_EIO_WRITE)
                        return -EIO;
                if (armed == FAULT_VANISH) {
                        _cleanup_(freep) char *full = tu_join(root, path);
                        ck_assert_int_eq(unlink(full), 0);
                }
        }
        return __real_sysroot_write_value(r, path, value);
}

/* ---- the fixture: one file of every kind, and a knob held already ---- */

typedef struct Case {
        TargetKind kind;
        const char *name, *device, *path, *content, *value;
        const char *not_a_value; /* content of the wrong syntax for this kind */
        const char *expects;     /* how the error names the kind */
} Case;

#define ETH1 "/sys/class/net/eth1"
#define DEV_WEIGHT "/proc/sys/net/core/dev_weight"

static const Case cases[] = {
        { TARGET_SYSCTL, "busy-read", NULL, "/proc/sys/net/core/busy_read", "50\n", "100", "fifty\n", "a number" },
        { TARGET_SYSFS, "gro-flush-timeout@eth1", "eth1", ETH1 "/gro_flush_timeout", "0\n", "20000", "0x20\n",
          "a number" },
        { TARGET_IRQ, "irq-affinity@eth1:rx-0", "eth1", "/proc/irq/41/smp_affinity_list", "0-1\n", "1", "1-x\n",
          "a CPU list" },
        { TARGET_RPS, "rps-cpus@eth1:rx-0", "eth1", ETH1 "/queues/rx-0/rps_cpus", "0\n", "3", "fg\n",
          "a hex CPU mask" },
        { TARGET_XPS, "xps-cpus@eth1:tx-0", "eth1", ETH1 "/queues/tx-0/xps_cpus", "3\n", "1", "3,,\n",
          "a hex CPU mask" },
};

static const struct {
        Fault fault;
        int error;
        const char *says;
} faults[] = {
        { FAULT_EMPTY, -ENODATA, "cannot read the current value: the file is empty" },
        { FAULT_HUGE, -EBADMSG, "cannot read the current value: the content is not one line of a value" },
        { FAULT_NOT_A_VALUE, -EBADMSG, "not changing it" },
        { FAULT_DIRECTORY, -EISDIR, "cannot read the current value: it is a directory, not a file" },
        { FAULT_VANISH, -ENOENT, "failed: the file is gone" },
        { FAULT_EIO_READ, -EIO, "cannot read the current value: Input/output error" },
        { FAULT_EIO_WRITE, -EIO, "failed: Input/output error" },
};

static char *dir, *state;
static Journal *j;
static Owner *o;
static unsigned n_changes;

static void on_change(const Target *t, const char *old, const char *new, const char *reason, void *userdata) {
        n_changes++;
}

static void setup(void) {
        Target t;

        dir = tu_mkdtemp();
        root = tu_join(dir, "root");
        state = tu_join(dir, "state");
        tu_write(root, ETH1 "/ifindex", "3\n", 0644);
        tu_write(root, DEV_WEIGHT, "64\n", 0644);
        for (size_t i = 0; i < ELEMENTSOF(cases); i++)
                tu_write(root, cases[i].path, cases[i].content, 0644);
        ck_assert_int_eq(journal_open(&j, state, NULL), 0);
        ck_assert_int_eq(owner_new(&o, root, j, false), 0);
        /* Another knob netpolld holds: it and its journal entry must not move. */
        ck_assert_int_eq(owner_file_target(o, TARGET_SYSCTL, "dev-weight", NULL, DEV_WEIGHT, &t), 0);
        ck_assert_int_eq(owner_set(o, &t, LAYER_PROFILE, "128", NULL, NULL), 0);
        owner_set_change_callback(o, on_change, NULL);
        n_changes = 0;
        armed_path = NULL;
}

static void teardown(void) {
        armed_path = NULL;
        o = owner_free(o);
        j = journal_free(j);
        tu_rm_rf(dir);
        free(dir);
        free(root);
        free(state);
}

/* Every fixture file but skip, with its bytes ("" for a directory or a missing file). */
typedef struct Snapshot {
        char *content[ELEMENTSOF(cases) + 3];
} Snapshot;

static const char *const other_files[] = { ETH1 "/ifindex", DEV_WEIGHT };

static void snapshot(Snapshot *s, const char *skip) {
        size_t k = 0;

        for (size_t i = 0; i < ELEMENTSOF(cases); i++)
                s->content[k++] = streq(cases[i].path, skip) ? NULL : tu_read(root, cases[i].path);
        for (size_t i = 0; i < ELEMENTSOF(other_files); i++)
                s->content[k++] = tu_read(root, other_files[i]);
        s->content[k++] = tu_read(state, JOURNAL_FILE);
}

static void snapshot_done(Snapshot *s) {
        for (size_t i = 0; i < ELEMENTSOF(s->content); i++)
                free(s->content[i]);
}

static void make_odd(const Case *c, Fault f) {
        _cleanup_(freep) char *full = tu_join(root, c->path);
        _cleanup_(freep) char *huge = NULL;

        switch (f) {
        case FAULT_EMPTY:
                tu_write(root, c->path, "", 0644);
                break;
        case FAULT_HUGE:
                huge = malloc(1024 * 1024 + 1);
                ck_assert_ptr_nonnull(huge);
                memset(huge, '1', 1024 * 1024);
                huge[1024 * 1024] = 0;
                tu_write(root, c->path, huge, 0644);
                break;
        case FAULT_NOT_A_VALUE:
                tu_write(root, c->path, c->not_a_value, 0644);
                break;
        case FAULT_DIRECTORY:
                ck_assert_int_eq(unlink(full), 0);
                ck_assert_int_eq(mkdir(full, 0755), 0);
                break;
        default:
                armed_path = c->path;
                armed = f;
                break;
        }
}

START_TEST(test_odd_file_fails_naming_it_and_changes_nothing_else) {
        const Case *c = &cases[_i / ELEMENTSOF(faults)];
        Fault f = faults[_i % ELEMENTSOF(faults)].fault;
        int want = faults[_i % ELEMENTSOF(faults)].error;
        const char *says = faults[_i % ELEMENTSOF(faults)].says;
        _cleanup_(snapshot_done) Snapshot before = {}, after = {};
        _cleanup_(freep) char *odd_before = NULL, *odd_after = NULL, *now = NULL;
        const char *err;
        Target t, dw;
        int r;

        ck_assert_int_eq(owner_file_target(o, c->kind, c->name, c->device, c->path, &t), 0);
        make_odd(c, f);
        snapshot(&before, c->path);
        odd_before = tu_read(root, c->path);

        r = owner_set(o, &t, LAYER_MANUAL, c->value, NULL, &now);

        ck_assert_msg(r == want, "%s with %s: owner_set gave %d (%s), expected %d", c->name, says, r,
                      strerror(-r), want);
        err = owner_last_error(o);
        ck_assert_ptr_nonnull(err);
        ck_assert_msg(strstr(err, c->path), "error does not name %s: %s", c->path, err);
        ck_assert_msg(strstr(err, says), "error does not say \"%s\": %s", says, err);
        if (f == FAULT_NOT_A_VALUE)
                ck_assert_msg(strstr(err, c->expects), "error does not say %s: %s", c->expects, err);

        /* Nothing else moved: the other files, the journal, the odd file itself, the other knob. */
        snapshot(&after, c->path);
        for (size_t i = 0; i < ELEMENTSOF(before.content); i++)
                ck_assert_str_eq(strempty(after.content[i]), strempty(before.content[i]));
        odd_after = tu_read(root, c->path);
        if (f != FAULT_VANISH)
                ck_assert_str_eq(strempty(odd_after), strempty(odd_before));
        ck_assert_uint_eq(journal_size(j), 1);
        ck_assert_ptr_null(journal_get(j, c->path));
        ck_assert_uint_eq(n_changes, 0);
        ck_assert_str_eq(origin_to_string(owner_origin(o, &t)), "default");
        ck_assert_ptr_null(owner_layer_value(o, &t, LAYER_MANUAL));
        ck_assert_int_eq(owner_file_target(o, TARGET_SYSCTL, "dev-weight", NULL, DEV_WEIGHT, &dw), 0);
        ck_assert_str_eq(origin_to_string(owner_origin(o, &dw)), "profile");

        /* Once the file is sane again the same set works, and clears the error. */
        armed_path = NULL;
        if (f == FAULT_DIRECTORY) {
                _cleanup_(freep) char *full = tu_join(root, c->path);
                ck_assert_int_eq(rmdir(full), 0);
        }
        tu_write(root, c->path, c->content, 0644);
        ck_assert_int_eq(owner_set(o, &t, LAYER_MANUAL, c->value, NULL, NULL), 0);
        ck_assert_ptr_null(owner_last_error(o));
        ck_assert_uint_eq(n_changes, 1);
}
END_TEST

static Suite *odd_files_suite(void) {
        Suite *s = suite_create("odd-files");
        TCase *tc = tcase_create("owner");

        tcase_add_checked_fixture(tc, setup, teardown);
        tcase_add_loop_test(tc, test_odd_file_fails_naming_it_and_changes_nothing_else, 0,
                            (int)(ELEMENTSOF(cases) * ELEMENTSOF(faults)));
        suite_add_tcase(s, tc);
        return s;
}

TU_MAIN(odd_files_suite)
