/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * test-sysroot.c: path resolution below the sysroot, the one-value file
 * reader and writer (on fixture files, never on real /proc or /sys) and
 * interface name validation.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "macro.h"
#include "sysroot.h"
#include "testutil.h"

static char SENTINEL_STR[] = "untouched";

/*
 * One fixture directory per TCase, made and removed in the parent process
 * (an unchecked fixture), so it is removed even when a forked test fails.
 * Every test uses its own file names in it.
 */
static char *fixture;

static void fixture_setup(void) {
        fixture = tu_mkdtemp();
}

static void fixture_teardown(void) {
        tu_rm_rf(fixture);
        free(fixture);
        fixture = NULL;
}

/* Writes exactly len bytes (tu_write stops at a NUL); returns the full path (caller frees). */
static char *write_bytes(const char *rel, const void *data, size_t len) {
        char *p = tu_join(fixture, rel);
        _cleanup_(fclosep) FILE *f = fopen(p, "we");
        ck_assert_msg(f, "fopen %s: %s", p, strerror(errno));
        ck_assert_uint_eq(fwrite(data, 1, len, f), len);
        return p;
}

static char *write_str(const char *rel, const char *content) {
        return write_bytes(rel, content, strlen(content));
}

/* Reads a fixture file that must be accepted; returns the value (caller frees). */
static char *read_ok(const char *rel, const char *content) {
        _cleanup_(freep) char *p = write_str(rel, content);
        char *v = NULL;
        int r = sysfs_read_value(p, &v);
        ck_assert_msg(r == 0, "sysfs_read_value on \"%s\" = %d", content, r);
        ck_assert_ptr_nonnull(v);
        return v;
}

#define assert_read_fails(path, err)                                                               \
        do {                                                                                       \
                char *_v = SENTINEL_STR;                                                           \
                int _r = sysfs_read_value(path, &_v);                                              \
                ck_assert_msg(_r == (err), "sysfs_read_value(%s) = %d, expected %d", path, _r, (err)); \
                ck_assert_ptr_eq(_v, SENTINEL_STR);                                                \
        } while (0)

#define assert_read_bytes_fails(rel, data, len, err)                                               \
        do {                                                                                       \
                _cleanup_(freep) char *_p = write_bytes(rel, data, len);                           \
                assert_read_fails(_p, err);                                                        \
        } while (0)

/* sysroot_path */

#define assert_path(root, path, expected)                                                          \
        do {                                                                                       \
                _cleanup_(freep) char *_p = NULL;                                                  \
                int _r = sysroot_path(root, path, &_p);                                            \
                ck_assert_msg(_r == 0, "sysroot_path(\"%s\", \"%s\") = %d", root ?: "(null)", path, _r); \
                ck_assert_str_eq(_p, expected);                                                    \
        } while (0)

#define assert_path_refused(root, path)                                                            \
        do {                                                                                       \
                char *_p = SENTINEL_STR;                                                           \
                int _r = sysroot_path(root, path, &_p);                                            \
                ck_assert_msg(_r == -EINVAL, "sysroot_path(\"%s\", \"%s\") = %d, expected -EINVAL", \
                              root ?: "(null)", path ?: "(null)", _r);                             \
                ck_assert_ptr_eq(_p, SENTINEL_STR);                                                \
        } while (0)

START_TEST(test_sysroot_path_without_root_is_a_copy) {
        static const char path[] = "/proc/sys/net/core/busy_read";
        char *p = NULL;

        ck_assert_int_eq(sysroot_path(NULL, path, &p), 0);
        ck_assert_str_eq(p, path);
        ck_assert_ptr_ne(p, path);
        free(p);
        assert_path(NULL, path, path);
        assert_path("", path, path);
        assert_path("/", path, path);
        assert_path("/", "/", "/");
        assert_path("//", path, path);
}
END_TEST

START_TEST(test_sysroot_path_joins_below_root) {
        assert_path("/tmp/x", "/proc/sys/a", "/tmp/x/proc/sys/a");
        assert_path("/tmp/x/", "/proc/sys/a", "/tmp/x/proc/sys/a");
        assert_path("/tmp/x///", "/proc/sys/a", "/tmp/x/proc/sys/a");
        assert_path("/tmp/x", "/", "/tmp/x/");
        assert_path("fixture", "/sys/class/net", "fixture/sys/class/net");
}
END_TEST

START_TEST(test_sysroot_path_refuses_relative_paths) {
        assert_path_refused(NULL, "proc/sys/a");
        assert_path_refused("/tmp/x", "proc/sys/a");
        assert_path_refused("/tmp/x", "");
        assert_path_refused("/tmp/x", NULL);
        assert_path_refused(NULL, "./proc");
}
END_TEST

START_TEST(test_sysroot_path_refuses_dotdot_components) {
        assert_path_refused(NULL, "/proc/../etc");
        assert_path_refused("/tmp/x", "/proc/../etc");
        assert_path_refused("/tmp/x", "/a/..");
        assert_path_refused("/tmp/x", "/a/../");
        assert_path_refused("/tmp/x", "/..");
        assert_path_refused("/tmp/x", "/../etc/shadow");
        assert_path_refused("/", "/sys/class/net/../../../etc");
}
END_TEST

START_TEST(test_sysroot_path_accepts_names_containing_dots) {
        assert_path("/tmp/x", "/proc/..x", "/tmp/x/proc/..x");
        assert_path("/tmp/x", "/proc/x..", "/tmp/x/proc/x..");
        assert_path("/tmp/x", "/proc/...", "/tmp/x/proc/...");
        assert_path("/tmp/x", "/a/.b/c", "/tmp/x/a/.b/c");
        assert_path("/tmp/x", "/sys/class/net/veth-a.1", "/tmp/x/sys/class/net/veth-a.1");
}
END_TEST

/* sysroot_is_live: what the sysroot's proc and sys are, not what its name is */

/* The checks need the real /proc and /sys mounted, as they are wherever netpolld runs. */
static bool real_proc_and_sys(void) {
        return sysroot_is_live("/", NULL);
}

START_TEST(test_sysroot_is_live_for_the_real_root) {
        if (!real_proc_and_sys())
                tu_skip("/proc or /sys is not mounted here");
        ck_assert(sysroot_is_live(NULL, NULL));
        ck_assert(sysroot_is_live("", NULL));
        ck_assert(sysroot_is_live("//", NULL));
}
END_TEST

START_TEST(test_sysroot_is_live_not_for_a_fixture) {
        const char *why = SENTINEL_STR;

        tu_write(fixture, "proc/sys/net/core/busy_read", "0\n", 0644);
        tu_write(fixture, "proc/self", "1\n", 0644);
        tu_write(fixture, "sys/class/net/veth0/ifindex", "5\n", 0644);
        ck_assert(!sysroot_is_live(fixture, &why));
        ck_assert_str_eq(why, "its proc is not procfs");
        why = SENTINEL_STR;
        _cleanup_(freep) char *missing = tu_join(fixture, "nothing-here");
        ck_assert(!sysroot_is_live(missing, &why));
        ck_assert_str_eq(why, "its proc is not procfs");
}
END_TEST

/* Symlinks count: what matters is what the path reaches (the Kubernetes image links /host/sys to /sys). */
START_TEST(test_sysroot_is_live_through_symlinks) {
        const char *why = SENTINEL_STR;
        _cleanup_(freep) char *root = tu_join(fixture, "links");
        _cleanup_(freep) char *proc = tu_join(root, "proc");
        _cleanup_(freep) char *sys = tu_join(root, "sys");

        if (!real_proc_and_sys())
                tu_skip("/proc or /sys is not mounted here");
        ck_assert_int_eq(mkdir(root, 0755), 0);
        ck_assert_int_eq(symlink("/proc", proc), 0);
        /* The real proc but a fixture's sys: not live either. */
        ck_assert_int_eq(mkdir(sys, 0755), 0);
        ck_assert(!sysroot_is_live(root, &why));
        ck_assert_str_eq(why, "its sys is not sysfs");
        ck_assert_int_eq(rmdir(sys), 0);
        ck_assert_int_eq(symlink("/sys", sys), 0);
        why = SENTINEL_STR;
        ck_assert(sysroot_is_live(root, &why));
        ck_assert_ptr_eq(why, SENTINEL_STR); /* untouched when live */
}
END_TEST

/* sysfs_read_value */

START_TEST(test_sysfs_read_value_strips_one_newline) {
        _cleanup_(freep) char *a = read_ok("nl", "50\n");
        _cleanup_(freep) char *b = read_ok("bare", "50");
        _cleanup_(freep) char *c = read_ok("spaces", " 0-3 \n");
        _cleanup_(freep) char *d = read_ok("tabs", "4096\t87380\t6291456\n");
        ck_assert_str_eq(a, "50");
        ck_assert_str_eq(b, "50");
        ck_assert_str_eq(c, " 0-3 ");
        ck_assert_str_eq(d, "4096\t87380\t6291456");
}
END_TEST

START_TEST(test_sysfs_read_value_refuses_empty_files) {
        assert_read_bytes_fails("empty", "", 0, -ENODATA);
        assert_read_bytes_fails("newline", "\n", 1, -ENODATA);
}
END_TEST

START_TEST(test_sysfs_read_value_refuses_several_lines) {
        assert_read_bytes_fails("two", "a\nb\n", 4, -EBADMSG);
        assert_read_bytes_fails("two-bare", "a\nb", 3, -EBADMSG);
        assert_read_bytes_fails("blank-second", "50\n\n", 4, -EBADMSG);
        assert_read_bytes_fails("two-newlines", "\n\n", 2, -EBADMSG);
}
END_TEST

START_TEST(test_sysfs_read_value_refuses_nul_bytes) {
        assert_read_bytes_fails("nul-middle", "5\0" "0\n", 4, -EBADMSG);
        assert_read_bytes_fails("nul-end", "50\0", 3, -EBADMSG);
        assert_read_bytes_fails("nul-only", "\0", 1, -EBADMSG);
        assert_read_bytes_fails("nul-newline", "\0\n", 2, -EBADMSG);
}
END_TEST

START_TEST(test_sysfs_read_value_size_limit) {
        _cleanup_(freep) char *buf = malloc(SYSFS_VALUE_MAX * 4);
        ck_assert_ptr_nonnull(buf);
        memset(buf, 'x', SYSFS_VALUE_MAX * 4);

        /* Exactly SYSFS_VALUE_MAX bytes: accepted in full. */
        _cleanup_(freep) char *p = write_bytes("max", buf, SYSFS_VALUE_MAX);
        _cleanup_(freep) char *v = NULL;
        ck_assert_int_eq(sysfs_read_value(p, &v), 0);
        ck_assert_uint_eq(strlen(v), SYSFS_VALUE_MAX);
        ck_assert_mem_eq(v, buf, SYSFS_VALUE_MAX);

        /* SYSFS_VALUE_MAX bytes including the newline. */
        buf[SYSFS_VALUE_MAX - 1] = '\n';
        _cleanup_(freep) char *pn = write_bytes("max-nl", buf, SYSFS_VALUE_MAX);
        _cleanup_(freep) char *vn = NULL;
        ck_assert_int_eq(sysfs_read_value(pn, &vn), 0);
        ck_assert_uint_eq(strlen(vn), SYSFS_VALUE_MAX - 1);

        /* One byte more is odd content, with or without a final newline. */
        buf[SYSFS_VALUE_MAX - 1] = 'x';
        assert_read_bytes_fails("over", buf, SYSFS_VALUE_MAX + 1, -EBADMSG);
        buf[SYSFS_VALUE_MAX] = '\n';
        assert_read_bytes_fails("over-nl", buf, SYSFS_VALUE_MAX + 1, -EBADMSG);
        assert_read_bytes_fails("huge", buf, SYSFS_VALUE_MAX * 4, -EBADMSG);
}
END_TEST

START_TEST(test_sysfs_read_value_passes_open_errors) {
        _cleanup_(freep) char *missing = tu_join(fixture, "missing");
        _cleanup_(freep) char *missing_dir = tu_join(fixture, "no-such-dir/value");
        _cleanup_(freep) char *dir = tu_join(fixture, "adir");
        ck_assert_int_eq(mkdir(dir, 0755), 0);

        assert_read_fails(missing, -ENOENT);
        assert_read_fails(missing_dir, -ENOENT);
        assert_read_fails(dir, -EISDIR);
}
END_TEST

START_TEST(test_sysfs_read_value_unreadable_file) {
        if (geteuid() == 0) {
                tu_skip("root reads files regardless of mode");
        }
        _cleanup_(freep) char *p = write_str("secret", "50\n");
        ck_assert_int_eq(chmod(p, 0200), 0);
        assert_read_fails(p, -EACCES);
}
END_TEST

/* sysfs_write_value */

START_TEST(test_sysfs_write_value_writes_and_truncates) {
        _cleanup_(freep) char *p = write_str("knob", "50\n");
        ck_assert_int_eq(sysfs_write_value(p, "5"), 0);
        _cleanup_(freep) char *content = tu_read(fixture, "knob");
        ck_assert_str_eq(content, "5\n"); /* a newline added as echo does, old content gone */

        _cleanup_(freep) char *v = NULL;
        ck_assert_int_eq(sysfs_write_value(p, "0-3,8"), 0);
        ck_assert_int_eq(sysfs_read_value(p, &v), 0);
        ck_assert_str_eq(v, "0-3,8");

        ck_assert_int_eq(sysfs_write_value(p, ""), 0);
        _cleanup_(freep) char *empty = tu_read(fixture, "knob");
        ck_assert_str_eq(empty, "\n");
}
END_TEST

START_TEST(test_sysfs_write_value_never_creates_files) {
        _cleanup_(freep) char *p = tu_join(fixture, "absent");
        ck_assert_int_eq(sysfs_write_value(p, "5"), -ENOENT);
        ck_assert_int_eq(access(p, F_OK), -1);
        ck_assert_int_eq(errno, ENOENT);
}
END_TEST

START_TEST(test_sysroot_read_and_write_value_resolve_below_root) {
        _cleanup_(freep) char *v = NULL, *w = NULL;
        tu_write(fixture, "proc/sys/net/core/busy_read", "0\n", 0644);
        ck_assert_int_eq(sysroot_write_value(fixture, "/proc/sys/net/core/busy_read", "50"), 0);
        ck_assert_int_eq(sysroot_read_value(fixture, "/proc/sys/net/core/busy_read", &v), 0);
        ck_assert_str_eq(v, "50");
        ck_assert_int_eq(sysroot_read_value(fixture, "/proc/sys/net/core/absent", &w), -ENOENT);
        ck_assert_int_eq(sysroot_write_value(fixture, "/proc/../etc/x", "1"), -EINVAL);
        ck_assert_int_eq(sysroot_read_value(fixture, "relative", &w), -EINVAL);
        ck_assert_ptr_null(w);
}
END_TEST

START_TEST(test_sysfs_write_value_refuses_directory) {
        _cleanup_(freep) char *dir = tu_join(fixture, "wdir");
        ck_assert_int_eq(mkdir(dir, 0755), 0);
        ck_assert_int_eq(sysfs_write_value(dir, "5"), -EISDIR);
}
END_TEST

START_TEST(test_sysfs_write_value_returns_the_kernel_errno) {
        /* /dev/full refuses every write with ENOSPC: a stand-in for a kernel saying no. */
        if (access("/dev/full", W_OK) < 0) {
                tu_skip("/dev/full is not writable");
        }
        ck_assert_int_eq(sysfs_write_value("/dev/full", "5"), -ENOSPC);
}
END_TEST

START_TEST(test_sysfs_write_value_read_only_file) {
        if (geteuid() == 0) {
                tu_skip("root writes files regardless of mode");
        }
        _cleanup_(freep) char *p = write_str("ro", "50\n");
        ck_assert_int_eq(chmod(p, 0444), 0);
        ck_assert_int_eq(sysfs_write_value(p, "5"), -EACCES);
        _cleanup_(freep) char *content = tu_read(fixture, "ro");
        ck_assert_str_eq(content, "50\n");
}
END_TEST

/* ifname_valid */

START_TEST(test_ifname_valid_accepts_kernel_names) {
        ck_assert(ifname_valid("eth0"));
        ck_assert(ifname_valid("lo"));
        ck_assert(ifname_valid("a"));
        ck_assert(ifname_valid("veth-a.1"));
        ck_assert(ifname_valid("enp0s31f6"));
        ck_assert(ifname_valid("br_lan@x"));
        ck_assert(ifname_valid("abcdefghijklmno")); /* 15 characters, IFNAMSIZ - 1 */
        ck_assert(ifname_valid(".a"));
        ck_assert(ifname_valid("a..b"));
        ck_assert(ifname_valid("..."));
        ck_assert(ifname_valid("w\xc3\xa4n0")); /* the kernel takes any byte but '/', ':' and spaces */
}
END_TEST

START_TEST(test_ifname_valid_refuses_impossible_names) {
        ck_assert(!ifname_valid(NULL));
        ck_assert(!ifname_valid(""));
        ck_assert(!ifname_valid("abcdefghijklmnop")); /* 16 characters */
        ck_assert(!ifname_valid("."));
        ck_assert(!ifname_valid(".."));
        ck_assert(!ifname_valid("/"));
        ck_assert(!ifname_valid("a/b"));
        ck_assert(!ifname_valid("../eth0"));
        ck_assert(!ifname_valid("a:b"));
        ck_assert(!ifname_valid("eth0:1"));
        ck_assert(!ifname_valid("a b"));
        ck_assert(!ifname_valid("a\tb"));
        ck_assert(!ifname_valid("eth0\n"));
        ck_assert(!ifname_valid("a\x7f"));
}
END_TEST

/* proc_find_comm */

START_TEST(test_proc_find_comm_by_pid_directories_only) {
        _cleanup_(freep) char *root = tu_join(fixture, "procfind");
        _cleanup_(freep) char *ended = tu_join(root, "proc/403");

        /* No /proc below the root at all: nobody runs. */
        ck_assert_int_eq(proc_find_comm(root, "tuned"), 0);
        tu_write(root, "proc/1/comm", "systemd\n", 0644);
        tu_write(root, "proc/self/comm", "tuned\n", 0644);    /* not a pid */
        tu_write(root, "proc/0/comm", "tuned\n", 0644);       /* no pid 0 */
        tu_write(root, "proc/401/comm", "tuned-adm\n", 0644); /* a whole comm, not a prefix */
        tu_write(root, "proc/402/comm", "tuned\nx\n", 0644); /* odd content: not it */
        ck_assert_int_eq(mkdir(ended, 0755), 0);              /* ended while looked at: no comm */
        ck_assert_int_eq(proc_find_comm(root, "tuned"), 0);
        tu_write(root, "proc/977/comm", "tuned\n", 0644);
        ck_assert_int_eq(proc_find_comm(root, "tuned"), 977);
        ck_assert_int_eq(proc_find_comm(root, "systemd"), 1);
}
END_TEST

static Suite *sysroot_suite(void) {
        Suite *s = suite_create("sysroot");
        TCase *tc;

        tc = tcase_create("path");
        tcase_add_test(tc, test_sysroot_path_without_root_is_a_copy);
        tcase_add_test(tc, test_sysroot_path_joins_below_root);
        tcase_add_test(tc, test_sysroot_path_refuses_relative_paths);
        tcase_add_test(tc, test_sysroot_path_refuses_dotdot_components);
        tcase_add_test(tc, test_sysroot_path_accepts_names_containing_dots);
        suite_add_tcase(s, tc);

        tc = tcase_create("live");
        tcase_add_unchecked_fixture(tc, fixture_setup, fixture_teardown);
        tcase_add_test(tc, test_sysroot_is_live_for_the_real_root);
        tcase_add_test(tc, test_sysroot_is_live_not_for_a_fixture);
        tcase_add_test(tc, test_sysroot_is_live_through_symlinks);
        suite_add_tcase(s, tc);

        tc = tcase_create("read");
        tcase_add_unchecked_fixture(tc, fixture_setup, fixture_teardown);
        tcase_add_test(tc, test_sysfs_read_value_strips_one_newline);
        tcase_add_test(tc, test_sysfs_read_value_refuses_empty_files);
        tcase_add_test(tc, test_sysfs_read_value_refuses_several_lines);
        tcase_add_test(tc, test_sysfs_read_value_refuses_nul_bytes);
        tcase_add_test(tc, test_sysfs_read_value_size_limit);
        tcase_add_test(tc, test_sysfs_read_value_passes_open_errors);
        tcase_add_test(tc, test_sysfs_read_value_unreadable_file);
        suite_add_tcase(s, tc);

        tc = tcase_create("write");
        tcase_add_unchecked_fixture(tc, fixture_setup, fixture_teardown);
        tcase_add_test(tc, test_sysfs_write_value_writes_and_truncates);
        tcase_add_test(tc, test_sysfs_write_value_never_creates_files);
        tcase_add_test(tc, test_sysfs_write_value_refuses_directory);
        tcase_add_test(tc, test_sysroot_read_and_write_value_resolve_below_root);
        tcase_add_test(tc, test_sysfs_write_value_returns_the_kernel_errno);
        tcase_add_test(tc, test_sysfs_write_value_read_only_file);
        suite_add_tcase(s, tc);

        tc = tcase_create("ifname");
        tcase_add_test(tc, test_ifname_valid_accepts_kernel_names);
        tcase_add_test(tc, test_ifname_valid_refuses_impossible_names);
        suite_add_tcase(s, tc);

        tc = tcase_create("proc_find_comm");
        tcase_add_unchecked_fixture(tc, fixture_setup, fixture_teardown);
        tcase_add_test(tc, test_proc_find_comm_by_pid_directories_only);
        suite_add_tcase(s, tc);

        return s;
}

TU_MAIN(sysroot_suite)
