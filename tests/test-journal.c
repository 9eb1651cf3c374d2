/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * test-journal.c: the restore journal as a durable store: the exact version
 * 2 format and a round trip of every field, version 1 files still read,
 * which keys and device identities it accepts, forgetting and discarding,
 * atomic rewrites (memory and disk agree when the file cannot be written),
 * and refusal of corrupt files (with the line, left in place byte for byte).
 * Restoring what it lists is the owner's job (test-owner.c).
 */
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "journal.h"
#include "macro.h"
#include "testutil.h"

#define BUSY_READ "/proc/sys/net/core/busy_read"
#define THREADED "/sys/class/net/veth0/threaded"
#define NAPI_GRO "napi:8193:gro-flush-timeout"

/* The lines the entries below make in a version 2 file. */
#define HDR "netpolld-journal 2\n"
#define L_BUSY "sysctl\tbusy-read\t-\t0\t" BUSY_READ "\t50\n"
#define L_THREADED "sysfs\tnapi-threaded@veth0\tveth0\t4\t" THREADED "\t0\n"

static char *dir;   /* test directory */
static char *state; /* dir/state: the journal's directory, created by the first record */

static void setup(void) {
        dir = tu_mkdtemp();
        state = tu_join(dir, "state");
}

static void teardown(void) {
        tu_rm_rf(dir);
        free(dir);
        free(state);
}

static Journal *open_ok(void) {
        _cleanup_(freep) char *why = NULL;
        Journal *j = NULL;
        int r = journal_open(&j, state, &why);

        ck_assert_msg(r == 0, "journal_open: %d %s", r, strempty(why));
        return j;
}

static int record(Journal *j, const char *kind, const char *name, const char *device, int ifindex, const char *key,
                  const char *original) {
        JournalEntry e = {
                .kind = (char *)kind,
                .name = (char *)name,
                .device = (char *)device,
                .ifindex = ifindex,
                .key = (char *)key,
                .original = (char *)original,
        };
        return journal_record(j, &e);
}

static int record_busy_read(Journal *j, const char *original) {
        return record(j, "sysctl", "busy-read", "", 0, BUSY_READ, original);
}

static int record_threaded(Journal *j) {
        return record(j, "sysfs", "napi-threaded@veth0", "veth0", 4, THREADED, "0");
}

static const char *original_of(const Journal *j, const char *key) {
        const JournalEntry *e = journal_get(j, key);
        return e ? e->original : NULL;
}

static void assert_journal_file(const char *want) {
        _cleanup_(freep) char *c = tu_read(state, JOURNAL_FILE);

        if (!want) {
                ck_assert_msg(!c, "the journal file exists: %s", c);
                return;
        }
        ck_assert_msg(c, "the journal file is missing");
        ck_assert_str_eq(c, want);
}

/* The state directory holds the journal file and nothing else (no temporary file left behind). */
static void assert_only_journal_file(void) {
        struct dirent *de;
        unsigned n = 0;
        DIR *d = opendir(state);

        ck_assert_ptr_nonnull(d);
        while ((de = readdir(d))) {
                if (streq(de->d_name, ".") || streq(de->d_name, ".."))
                        continue;
                ck_assert_str_eq(de->d_name, JOURNAL_FILE);
                n++;
        }
        closedir(d);
        ck_assert_uint_eq(n, 1);
}

/* Turns the state directory into a regular file so every rewrite of the journal fails. */
static void break_state_dir(void) {
        _cleanup_(freep) char *f = tu_join(state, JOURNAL_FILE);
        (void)unlink(f);
        ck_assert_int_eq(rmdir(state), 0);
        tu_write(dir, "state", "not a directory\n", 0644);
}

static void assert_entry(const JournalEntry *e, const char *kind, const char *name, const char *device, int ifindex,
                         const char *key, const char *original) {
        ck_assert_ptr_nonnull(e);
        ck_assert_str_eq(e->kind, kind);
        ck_assert_str_eq(e->name, name);
        ck_assert_str_eq(e->device, device);
        ck_assert_int_eq(e->ifindex, ifindex);
        ck_assert_str_eq(e->key, key);
        ck_assert_str_eq(e->original, original);
}

/* ---- recording ---- */

START_TEST(test_journal_record_writes_exact_format) {
        _cleanup_(journal_freep) Journal *j = open_ok();
        _cleanup_(freep) char *jp = tu_join(state, JOURNAL_FILE);

        ck_assert_int_eq(access(state, F_OK), -1);
        ck_assert_str_eq(journal_path(j), jp);
        ck_assert_int_eq(record_busy_read(j, "50"), 0);
        ck_assert_int_eq(record_threaded(j), 0);
        ck_assert_uint_eq(journal_size(j), 2);
        assert_journal_file(HDR L_BUSY L_THREADED "end 2\n");
}
END_TEST

static const struct {
        const char *kind, *name, *device;
        int ifindex;
        const char *key, *original;
} every[] = {
        { "sysctl", "tcp-rmem", "", 0, "/proc/sys/net/ipv4/tcp_rmem", " 4096 87380 6291456 " },
        { "sysfs", "gro-flush-timeout@eth1", "eth1", 3, "/sys/class/net/eth1/gro_flush_timeout", "20000" },
        { "irq", "irq-affinity@eth1:combined-0", "eth1", 3, "/proc/irq/41/smp_affinity_list", "0-1" },
        { "rps", "rps-cpus@eth1:rx-0", "eth1", 3, "/sys/class/net/eth1/queues/rx-0/rps_cpus", "00000000,00000003" },
        { "xps", "xps-cpus@eth1:tx-1", "eth1", 3, "/sys/class/net/eth1/queues/tx-1/xps_cpus", "0" },
        { "napi", "gro-flush-timeout@eth1:napi-8193", "eth1", 2147483647, NAPI_GRO, "0" },
};

START_TEST(test_journal_round_trips_every_field) {
        _cleanup_(journal_freep) Journal *j = open_ok(), *again = NULL;

        for (size_t i = 0; i < ELEMENTSOF(every); i++)
                ck_assert_int_eq(record(j, every[i].kind, every[i].name, every[i].device, every[i].ifindex,
                                        every[i].key, every[i].original),
                                 0);
        again = open_ok();
        ck_assert_uint_eq(journal_size(again), ELEMENTSOF(every));
        for (size_t i = 0; i < ELEMENTSOF(every); i++) {
                assert_entry(journal_at(again, i), every[i].kind, every[i].name, every[i].device, every[i].ifindex,
                             every[i].key, every[i].original);
                ck_assert_ptr_eq(journal_get(again, every[i].key), journal_at(again, i));
        }
        ck_assert_ptr_null(journal_at(again, ELEMENTSOF(every)));
        ck_assert_ptr_null(journal_get(again, BUSY_READ));
        ck_assert_ptr_null(journal_get(again, NULL));
}
END_TEST

START_TEST(test_journal_reopen_appends_in_order) {
        _cleanup_(journal_freep) Journal *j = open_ok(), *again = NULL;

        ck_assert_int_eq(record_threaded(j), 0);
        again = open_ok();
        ck_assert_int_eq(record_busy_read(again, "50"), 0);
        assert_journal_file(HDR L_THREADED L_BUSY "end 2\n");
}
END_TEST

START_TEST(test_journal_record_keeps_first_original) {
        _cleanup_(journal_freep) Journal *j = open_ok();

        ck_assert_int_eq(record_busy_read(j, "50"), 0);
        ck_assert_int_eq(record_busy_read(j, "100"), 0);
        ck_assert_uint_eq(journal_size(j), 1);
        ck_assert_str_eq(original_of(j, BUSY_READ), "50");
        assert_journal_file(HDR L_BUSY "end 1\n");
}
END_TEST

START_TEST(test_journal_record_refuses_unstorable_fields) {
        _cleanup_(journal_freep) Journal *j = open_ok();

        ck_assert_int_eq(record_busy_read(j, "5\t0"), -EINVAL);
        ck_assert_int_eq(record_busy_read(j, "50\n"), -EINVAL);
        ck_assert_int_eq(record_busy_read(j, ""), -EINVAL);
        ck_assert_int_eq(record_busy_read(j, NULL), -EINVAL);
        ck_assert_int_eq(record(j, "sysctl", "busy\tread", "", 0, BUSY_READ, "50"), -EINVAL);
        ck_assert_int_eq(record(j, "sysctl", "busy\nread", "", 0, BUSY_READ, "50"), -EINVAL);
        ck_assert_int_eq(record(j, "sysctl", "", "", 0, BUSY_READ, "50"), -EINVAL);
        ck_assert_int_eq(record(j, "sysctl", NULL, "", 0, BUSY_READ, "50"), -EINVAL);
        ck_assert_int_eq(record(j, "Sysctl", "busy-read", "", 0, BUSY_READ, "50"), -EINVAL);
        ck_assert_int_eq(record(j, "sys ctl", "busy-read", "", 0, BUSY_READ, "50"), -EINVAL);
        ck_assert_int_eq(record(j, "", "busy-read", "", 0, BUSY_READ, "50"), -EINVAL);
        ck_assert_int_eq(record(j, NULL, "busy-read", "", 0, BUSY_READ, "50"), -EINVAL);
        ck_assert_int_eq(record(j, "sysctl", "busy-read", "", 0, "/proc/../etc/shadow", "50"), -EINVAL);
        ck_assert_int_eq(record(j, "sysctl", "busy-read", "", 0, "/etc/shadow", "50"), -EINVAL);
        ck_assert_int_eq(record(j, "sysctl", "busy-read", "", 0, NULL, "50"), -EINVAL);
        ck_assert_int_eq(journal_record(j, NULL), -EINVAL);
        ck_assert_uint_eq(journal_size(j), 0);
        ck_assert_int_eq(access(state, F_OK), -1);
}
END_TEST

START_TEST(test_journal_record_checks_device_identity) {
        _cleanup_(journal_freep) Journal *j = open_ok(), *again = NULL;

        /* A device comes with its ifindex, no device with none. */
        ck_assert_int_eq(record(j, "sysfs", "x", "", 4, THREADED, "0"), -EINVAL);
        ck_assert_int_eq(record(j, "sysfs", "x", NULL, 4, THREADED, "0"), -EINVAL);
        ck_assert_int_eq(record(j, "sysfs", "x", "veth0", 0, THREADED, "0"), -EINVAL);
        ck_assert_int_eq(record(j, "sysfs", "x", "veth0", -4, THREADED, "0"), -EINVAL);
        ck_assert_int_eq(record(j, "sysfs", "x", "ve\tth0", 4, THREADED, "0"), -EINVAL);
        /* "-" stands for "no device" in the file: a device of that name could not be read back. */
        ck_assert_int_eq(record(j, "sysfs", "x", "-", 4, THREADED, "0"), -EINVAL);
        ck_assert_uint_eq(journal_size(j), 0);

        ck_assert_int_eq(record(j, "sysctl", "busy-read", NULL, 0, BUSY_READ, "50"), 0);
        assert_journal_file(HDR L_BUSY "end 1\n");
        again = open_ok();
        assert_entry(journal_at(again, 0), "sysctl", "busy-read", "", 0, BUSY_READ, "50");
}
END_TEST

START_TEST(test_journal_record_leaves_no_temporary_files) {
        _cleanup_(journal_freep) Journal *j = open_ok();

        ck_assert_int_eq(record_busy_read(j, "50"), 0);
        ck_assert_int_eq(record_threaded(j), 0);
        ck_assert_int_eq(journal_forget(j, BUSY_READ), 0);
        assert_only_journal_file();
}
END_TEST

START_TEST(test_journal_record_failure_keeps_memory_and_disk_equal) {
        _cleanup_(journal_freep) Journal *j = open_ok();

        tu_write(dir, "state", "a regular file where the directory should be\n", 0644);
        ck_assert_int_eq(record_busy_read(j, "50"), -ENOTDIR);
        ck_assert_uint_eq(journal_size(j), 0);
        ck_assert_ptr_null(journal_get(j, BUSY_READ));
}
END_TEST

START_TEST(test_journal_record_failure_removes_temporary_file) {
        _cleanup_(journal_freep) Journal *j = open_ok();

        /* A non-empty directory in the journal's place makes the final rename fail. */
        tu_write(state, JOURNAL_FILE "/blocker", "x\n", 0644);
        ck_assert_int_eq(record_busy_read(j, "50"), -EISDIR);
        ck_assert_uint_eq(journal_size(j), 0);
        assert_only_journal_file();
}
END_TEST

/* ---- forgetting and discarding ---- */

START_TEST(test_journal_forget_drops_entries_and_file) {
        _cleanup_(journal_freep) Journal *j = open_ok();

        ck_assert_int_eq(record_busy_read(j, "50"), 0);
        ck_assert_int_eq(record_threaded(j), 0);
        ck_assert_int_eq(journal_forget(j, BUSY_READ), 0);
        ck_assert_ptr_null(journal_get(j, BUSY_READ));
        assert_journal_file(HDR L_THREADED "end 1\n");
        ck_assert_int_eq(journal_forget(j, BUSY_READ), -ENOENT);
        ck_assert_int_eq(journal_forget(j, NULL), -ENOENT);
        ck_assert_int_eq(journal_forget(j, THREADED), 0);
        ck_assert_uint_eq(journal_size(j), 0);
        assert_journal_file(NULL);
}
END_TEST

START_TEST(test_journal_forget_failure_keeps_entry) {
        _cleanup_(journal_freep) Journal *j = open_ok();

        ck_assert_int_eq(record_busy_read(j, "50"), 0);
        ck_assert_int_eq(record_threaded(j), 0);
        break_state_dir();
        ck_assert_int_eq(journal_forget(j, BUSY_READ), -ENOTDIR);
        ck_assert_uint_eq(journal_size(j), 2);
        assert_entry(journal_at(j, 0), "sysctl", "busy-read", "", 0, BUSY_READ, "50");
        assert_entry(journal_at(j, 1), "sysfs", "napi-threaded@veth0", "veth0", 4, THREADED, "0");
}
END_TEST

START_TEST(test_journal_discard_drops_everything_and_the_file) {
        _cleanup_(journal_freep) Journal *j = open_ok(), *again = NULL;

        ck_assert_int_eq(journal_discard(j), 0);
        ck_assert_int_eq(record_busy_read(j, "50"), 0);
        ck_assert_int_eq(record_threaded(j), 0);
        ck_assert_int_eq(journal_discard(j), 0);
        ck_assert_uint_eq(journal_size(j), 0);
        ck_assert_ptr_null(journal_at(j, 0));
        assert_journal_file(NULL);
        again = open_ok();
        ck_assert_uint_eq(journal_size(again), 0);
        /* The journal goes on working after a discard. */
        ck_assert_int_eq(record_busy_read(j, "60"), 0);
        assert_journal_file(HDR "sysctl\tbusy-read\t-\t0\t" BUSY_READ "\t60\nend 1\n");
}
END_TEST

START_TEST(test_journal_discard_failure_keeps_entries) {
        _cleanup_(journal_freep) Journal *j = open_ok();

        ck_assert_int_eq(record_busy_read(j, "50"), 0);
        ck_assert_int_eq(record_threaded(j), 0);
        break_state_dir();
        ck_assert_int_eq(journal_discard(j), -ENOTDIR);
        ck_assert_uint_eq(journal_size(j), 2);
        ck_assert_str_eq(original_of(j, THREADED), "0");
}
END_TEST

/* ---- keys ---- */

START_TEST(test_journal_key_valid_accepts_kernel_files_and_napi) {
        ck_assert(journal_key_valid(BUSY_READ));
        ck_assert(journal_key_valid(THREADED));
        ck_assert(journal_key_valid("/proc/irq/41/smp_affinity_list"));
        ck_assert(journal_key_valid(NAPI_GRO));
        ck_assert(journal_key_valid("napi:4294967295:irq-suspend-timeout"));
        ck_assert(journal_key_valid("napi:1:k"));
}
END_TEST

static const char *const bad_keys[] = {
        "",
        "/etc/shadow",
        "proc/sys/net/core/busy_read",
        "/procx/sys",
        "/proc/../etc/shadow",
        "/sys/class/net/../../etc/x",
        "/proc/sys/net/core/..",
        "/proc/sys/net/core/busy\tread",
        "/proc/sys/net/core/busy\nread",
        "napi:",
        "napi:1",
        "napi:1:",
        "napi::k",
        "napi:0:k",
        "napi:01:k",
        "napi:+1:k",
        "napi: 1:k",
        "napi:-1:k",
        "napi:4294967296:k",
        "napi:1:K",
        "napi:1:a:b",
        "napi:1:a/b",
        "napi:1:a b",
        "napi:1:k\t",
        "NAPI:1:k",
        /* The netns forms of version 1 paths are no keys. */
        "napi:-:1:k",
        "napi:/run/netns/blue:7:napi-defer-hard-irqs",
};

START_TEST(test_journal_key_valid_refuses_other_keys) {
        ck_assert_msg(!journal_key_valid(bad_keys[_i]), "accepted \"%s\"", bad_keys[_i]);
        ck_assert(!journal_key_valid(NULL));
}
END_TEST

/* ---- loading ---- */

START_TEST(test_journal_open_missing_file_is_empty) {
        _cleanup_(journal_freep) Journal *j = open_ok();
        Journal *none = NULL;

        ck_assert_uint_eq(journal_size(j), 0);
        ck_assert_ptr_null(journal_at(j, 0));
        ck_assert_int_eq(access(state, F_OK), -1);
        ck_assert_int_eq(journal_open(&none, "", NULL), -EINVAL);
        ck_assert_int_eq(journal_open(&none, NULL, NULL), -EINVAL);
        ck_assert_ptr_null(none);
}
END_TEST

START_TEST(test_journal_open_passes_read_errors) {
        _cleanup_(freep) char *jp = tu_join(state, JOURNAL_FILE);
        Journal *j = NULL;

        ck_assert_int_eq(mkdir(state, 0755), 0);
        ck_assert_int_eq(mkdir(jp, 0755), 0);
        ck_assert_int_eq(journal_open(&j, state, NULL), -EISDIR);
        ck_assert_ptr_null(j);
}
END_TEST

START_TEST(test_journal_open_reads_version_1) {
        _cleanup_(journal_freep) Journal *j = NULL;

        tu_write(state, JOURNAL_FILE,
                 "netpolld-journal 1\n"
                 "busy-read\t" BUSY_READ "\t50\n"
                 "napi-threaded@veth0\t" THREADED "\t0\n"
                 "irq-affinity@eth1:combined-0\t/proc/irq/41/smp_affinity_list\t0-1\n"
                 "rps-cpus@eth1\t/sys/class/net/eth1/queues/rx-0/rps_cpus\t3\n"
                 "xps-cpus@eth1\t/sys/class/net/eth1/queues/tx-0/xps_cpus\t1\n"
                 "gro-flush-timeout@eth1:napi-8193\tnapi:-:8193:gro-flush-timeout\t20000\n"
                 "end 6\n",
                 0644);
        j = open_ok();
        ck_assert_uint_eq(journal_size(j), 6);
        /* No device identity in version 1: kinds come from the paths, "napi:-:" is our own namespace. */
        assert_entry(journal_at(j, 0), "sysctl", "busy-read", "", 0, BUSY_READ, "50");
        assert_entry(journal_at(j, 1), "sysfs", "napi-threaded@veth0", "", 0, THREADED, "0");
        assert_entry(journal_at(j, 2), "irq", "irq-affinity@eth1:combined-0", "", 0, "/proc/irq/41/smp_affinity_list",
                     "0-1");
        assert_entry(journal_at(j, 3), "rps", "rps-cpus@eth1", "", 0, "/sys/class/net/eth1/queues/rx-0/rps_cpus", "3");
        assert_entry(journal_at(j, 4), "xps", "xps-cpus@eth1", "", 0, "/sys/class/net/eth1/queues/tx-0/xps_cpus", "1");
        assert_entry(journal_at(j, 5), "napi", "gro-flush-timeout@eth1:napi-8193", "", 0, NAPI_GRO, "20000");
        /* The next rewrite is version 2. */
        ck_assert_int_eq(journal_forget(j, "/proc/irq/41/smp_affinity_list"), 0);
        ck_assert_int_eq(journal_forget(j, "/sys/class/net/eth1/queues/rx-0/rps_cpus"), 0);
        ck_assert_int_eq(journal_forget(j, "/sys/class/net/eth1/queues/tx-0/xps_cpus"), 0);
        assert_journal_file(HDR L_BUSY "sysfs\tnapi-threaded@veth0\t-\t0\t" THREADED "\t0\n"
                                "napi\tgro-flush-timeout@eth1:napi-8193\t-\t0\t" NAPI_GRO "\t20000\nend 3\n");
}
END_TEST

#define HDR1 "netpolld-journal 1\n"
#define BAD_KEY "the key must be a path below /proc/ or /sys/ without \"..\", or napi:ID:KNOB"
#define V2_FORM "expected KIND<TAB>NAME<TAB>DEVICE<TAB>IFINDEX<TAB>KEY<TAB>VALUE"
#define V1_FORM "expected KNOB<TAB>PATH<TAB>VALUE"
#define IDENTITY "DEVICE \"-\" goes with IFINDEX 0, a device with its ifindex"

static const struct {
        const char *content, *reason;
} corrupt[] = {
        { "", "line 1: expected \"netpolld-journal 2\"" },
        { "netpolld-journal 3\nend 0\n", "line 1: expected \"netpolld-journal 2\"" },
        { HDR "sysctl\tbusy-read\t-\t0\t" BUSY_READ "\nend 1\n", "line 2: " V2_FORM },
        { HDR L_BUSY "sysctl\tbusy-poll\t-\t0\t/proc/sys/net/core/busy_poll\t0\tx\nend 2\n", "line 3: " V2_FORM },
        { HDR "sysctl\tbusy-read\t-\t0\t\t50\nend 1\n", "line 2: " V2_FORM },
        { HDR "sysctl\tbusy-read\t-\t0\t" BUSY_READ "\t\nend 1\n", "line 2: " V2_FORM },
        { HDR "\nend 0\n", "line 2: " V2_FORM },
        { HDR "Sysctl\tbusy-read\t-\t0\t" BUSY_READ "\t50\nend 1\n", "line 2: KIND must be a word of a-z, 0-9 and -" },
        { HDR "sysctl\tbusy-read\t-\tx\t" BUSY_READ "\t50\nend 1\n", "line 2: IFINDEX must be a number from 0" },
        { HDR "sysctl\tbusy-read\t-\t-1\t" BUSY_READ "\t50\nend 1\n", "line 2: IFINDEX must be a number from 0" },
        { HDR "sysfs\tx\tveth0\t2147483648\t" THREADED "\t0\nend 1\n", "line 2: IFINDEX must be a number from 0" },
        { HDR "sysfs\tx\t-\t4\t" THREADED "\t0\nend 1\n", "line 2: " IDENTITY },
        { HDR "sysfs\tx\tveth0\t0\t" THREADED "\t0\nend 1\n", "line 2: " IDENTITY },
        { HDR L_BUSY, "line 3: missing \"end N\" line (the file is truncated)" },
        { HDR L_BUSY "end 2\n", "line 3: expected \"end 1\" (the number of entries)" },
        { HDR L_BUSY "end\n", "line 3: expected \"end 1\" (the number of entries)" },
        { HDR L_BUSY "end 1", "line 3: line is not terminated by a newline" },
        { HDR L_BUSY "end 1\njunk\n", "line 4: unexpected content after the end line" },
        { HDR L_BUSY "end 1\n\n", "line 4: unexpected content after the end line" },
        { HDR "sysctl\tx\t-\t0\t../x\t50\nend 1\n", "line 2: " BAD_KEY },
        { HDR "sysctl\tx\t-\t0\t/proc/../etc/shadow\t50\nend 1\n", "line 2: " BAD_KEY },
        { HDR "sysctl\tx\t-\t0\t/etc/shadow\t50\nend 1\n", "line 2: " BAD_KEY },
        { HDR "napi\tx\teth0\t3\tnapi:0:gro-flush-timeout\t0\nend 1\n", "line 2: " BAD_KEY },
        { HDR L_BUSY "sysctl\tbusy-read\t-\t0\t" BUSY_READ "\t60\nend 2\n", "line 3: duplicate key" },
        /* Version 1. */
        { HDR1 "busy-read\t" BUSY_READ "\nend 1\n", "line 2: " V1_FORM },
        { HDR1 L_BUSY "end 1\n", "line 2: " V1_FORM },
        { HDR1 "busy-read\t\t50\nend 1\n", "line 2: " V1_FORM },
        { HDR1 "x\t/etc/shadow\t50\nend 1\n", "line 2: " BAD_KEY },
        { HDR1 "x\tnapi:-:0:gro-flush-timeout\t0\nend 1\n", "line 2: " BAD_KEY },
        { HDR1 "x\tnapi:/run/netns/blue:7:napi-defer-hard-irqs\t2\nend 1\n", "line 2: " BAD_KEY },
        { HDR1 "x\tnapi:/run/netns/t%3A1:9:gro-flush-timeout\t2\nend 1\n", "line 2: " BAD_KEY },
        { HDR1 "x\tnapi:-x:1:gro-flush-timeout\t2\nend 1\n", "line 2: " BAD_KEY },
        { HDR1 "x\tnapi:-:1:a:b\t2\nend 1\n", "line 2: " BAD_KEY },
        { HDR1 "x\tnapi:-:1:k\t2\nx\tnapi:1:k\t3\nend 2\n", "line 3: duplicate key" },
};

START_TEST(test_journal_open_refuses_corruption) {
        _cleanup_(freep) char *why = NULL;
        Journal *j = NULL;

        tu_write(state, JOURNAL_FILE, corrupt[_i].content, 0644);
        ck_assert_int_eq(journal_open(&j, state, &why), -EBADMSG);
        ck_assert_ptr_null(j);
        ck_assert_str_eq(why, corrupt[_i].reason);
        assert_journal_file(corrupt[_i].content);
}
END_TEST

START_TEST(test_journal_open_refuses_binary_and_oversized_files) {
        _cleanup_(freep) char *why = NULL, *why2 = NULL, *jp = tu_join(state, JOURNAL_FILE);
        static const char nul[] = HDR "sysctl\tbusy-read\t-\t0\t" BUSY_READ "\t5\0000\nend 1\n";
        Journal *j = NULL;
        struct stat st;
        int fd;

        ck_assert_int_eq(mkdir(state, 0755), 0);
        fd = open(jp, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
        ck_assert_int_ge(fd, 0);
        ck_assert_int_eq(write(fd, nul, sizeof(nul) - 1), (ssize_t)sizeof(nul) - 1);
        ck_assert_int_eq(close(fd), 0);
        ck_assert_int_eq(journal_open(&j, state, &why), -EBADMSG);
        ck_assert_str_eq(why, "line 2: contains a NUL byte");

        /* A valid start followed by more than 1 MiB. */
        ck_assert_int_eq(truncate(jp, 1024 * 1024 + 1), 0);
        ck_assert_int_eq(journal_open(&j, state, &why2), -EBADMSG);
        ck_assert_str_eq(why2, "file larger than 1048576 bytes");
        ck_assert_int_eq(stat(jp, &st), 0);
        ck_assert_int_eq(st.st_size, 1024 * 1024 + 1);
        ck_assert_ptr_null(j);
}
END_TEST

static Suite *journal_suite(void) {
        Suite *s = suite_create("journal");
        TCase *tc;

        tc = tcase_create("recording");
        tcase_add_checked_fixture(tc, setup, teardown);
        tcase_add_test(tc, test_journal_record_writes_exact_format);
        tcase_add_test(tc, test_journal_round_trips_every_field);
        tcase_add_test(tc, test_journal_reopen_appends_in_order);
        tcase_add_test(tc, test_journal_record_keeps_first_original);
        tcase_add_test(tc, test_journal_record_refuses_unstorable_fields);
        tcase_add_test(tc, test_journal_record_checks_device_identity);
        tcase_add_test(tc, test_journal_record_leaves_no_temporary_files);
        tcase_add_test(tc, test_journal_record_failure_keeps_memory_and_disk_equal);
        tcase_add_test(tc, test_journal_record_failure_removes_temporary_file);
        suite_add_tcase(s, tc);

        tc = tcase_create("forgetting and discarding");
        tcase_add_checked_fixture(tc, setup, teardown);
        tcase_add_test(tc, test_journal_forget_drops_entries_and_file);
        tcase_add_test(tc, test_journal_forget_failure_keeps_entry);
        tcase_add_test(tc, test_journal_discard_drops_everything_and_the_file);
        tcase_add_test(tc, test_journal_discard_failure_keeps_entries);
        suite_add_tcase(s, tc);

        tc = tcase_create("keys");
        tcase_add_test(tc, test_journal_key_valid_accepts_kernel_files_and_napi);
        tcase_add_loop_test(tc, test_journal_key_valid_refuses_other_keys, 0, (int)ELEMENTSOF(bad_keys));
        suite_add_tcase(s, tc);

        tc = tcase_create("loading");
        tcase_add_checked_fixture(tc, setup, teardown);
        tcase_add_test(tc, test_journal_open_missing_file_is_empty);
        tcase_add_test(tc, test_journal_open_passes_read_errors);
        tcase_add_test(tc, test_journal_open_reads_version_1);
        tcase_add_loop_test(tc, test_journal_open_refuses_corruption, 0, (int)ELEMENTSOF(corrupt));
        tcase_add_test(tc, test_journal_open_refuses_binary_and_oversized_files);
        suite_add_tcase(s, tc);

        return s;
}

TU_MAIN(journal_suite)
