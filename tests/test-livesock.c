/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * test-livesock.c: live sockets. The rules (livesock.c) on a simulated set of
 * sockets: which ones a yield, its return and an undo move. The scan
 * (sockscan.c): /proc/PID/net/{tcp,tcp6,udp} as a kernel wrote them
 * (tests/data/livesock/) in a fixture /proc with two network namespaces, fd
 * links, and one real walk that changes
 * SO_BUSY_POLL of a child process's UDP socket through pidfd_getfd(2).
 */
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "livesock.h"
#include "macro.h"
#include "sockscan.h"
#include "testutil.h"

/* ---- the rules -------------------------------------------------------------- */

typedef struct Sock {
        uint64_t inode;
        uint64_t value;
        bool refuse; /* setsockopt fails for this one */
} Sock;

/* Runs one pass over socks like manager-livesock.c does; returns how many were set, -1 when the pass had nothing to do. */
static int pass(LiveSocks *s, LiveSockPassKind kind, uint64_t old, uint64_t new, Sock *socks, size_t n) {
        LiveSockPass p;
        int changed = 0;

        if (livesock_pass_begin(s, kind, old, new, &p) == 0)
                return -1;
        for (size_t i = 0; i < n; i++) {
                uint64_t to = UINT64_MAX;
                int r = livesock_pass_socket(s, &p, socks[i].inode, socks[i].value, &to);
                ck_assert_int_ge(r, 0);
                if (r == 0 || socks[i].refuse)
                        continue;
                socks[i].value = to;
                ck_assert_int_eq(livesock_pass_moved(&p, socks[i].inode), 0);
                changed++;
        }
        livesock_pass_end(s, &p);
        return changed;
}

/* 10: copied busy-read's 50; 11: the application's 20; 12: held the floor 0 before; 13: copied 50 too. */
#define SOCKS_INIT { { 10, 50, false }, { 11, 20, false }, { 12, 0, false }, { 13, 50, false } }

START_TEST(test_livesock_yield_lowers_only_busy_read_holders) {
        LiveSocks s;
        Sock socks[] = SOCKS_INIT;

        livesock_init(&s);
        ck_assert_int_eq(pass(&s, LIVESOCK_YIELD, 50, 0, socks, ELEMENTSOF(socks)), 2);
        ck_assert_uint_eq(socks[0].value, 0);
        ck_assert_uint_eq(socks[1].value, 20);
        ck_assert_uint_eq(socks[2].value, 0);
        ck_assert_uint_eq(socks[3].value, 0);
        ck_assert(s.yielded);
        ck_assert_uint_eq(s.home, 50);
        ck_assert_uint_eq(s.floor, 0);
        ck_assert_uint_eq(s.n_moved, 2);
        ck_assert_uint_eq(s.n_kept, 1);
        livesock_clear(&s);
}
END_TEST

START_TEST(test_livesock_return_raises_moved_and_new_but_not_kept) {
        LiveSocks s;
        Sock socks[] = { { 10, 50, false }, { 11, 20, false }, { 12, 0, false }, { 13, 50, false }, { 5, 0, false } };

        livesock_init(&s);
        /* 5 is made during the yield: it copies the floor; the others exist before. */
        ck_assert_int_eq(pass(&s, LIVESOCK_YIELD, 50, 0, socks, 4), 2);
        ck_assert_int_eq(pass(&s, LIVESOCK_RETURN, 0, 50, socks, ELEMENTSOF(socks)), 3);
        ck_assert_uint_eq(socks[0].value, 50);
        ck_assert_uint_eq(socks[1].value, 20);
        ck_assert_uint_eq(socks[2].value, 0);
        ck_assert_uint_eq(socks[3].value, 50);
        ck_assert_uint_eq(socks[4].value, 50);
        ck_assert(!s.yielded);
        ck_assert_uint_eq(s.n_moved, 0);
        ck_assert_uint_eq(s.n_kept, 0);
}
END_TEST

START_TEST(test_livesock_undo_puts_back_only_moved_sockets_still_at_the_floor) {
        LiveSocks s;
        Sock socks[] = { { 10, 50, false }, { 11, 20, false }, { 12, 0, false }, { 13, 50, false }, { 5, 0, false } };

        livesock_init(&s);
        ck_assert_int_eq(pass(&s, LIVESOCK_YIELD, 50, 0, socks, 4), 2);
        socks[3].value = 7; /* the application set its own value meanwhile */
        ck_assert_int_eq(pass(&s, LIVESOCK_UNDO, 0, 0, socks, ELEMENTSOF(socks)), 1);
        ck_assert_uint_eq(socks[0].value, 50);
        ck_assert_uint_eq(socks[2].value, 0);
        ck_assert_uint_eq(socks[3].value, 7);
        ck_assert_uint_eq(socks[4].value, 0); /* made during the yield: undo is for what netpolld changed */
        ck_assert(!s.yielded);
}
END_TEST

START_TEST(test_livesock_refused_set_is_not_remembered) {
        LiveSocks s;
        Sock socks[] = SOCKS_INIT;

        livesock_init(&s);
        socks[3].refuse = true;
        ck_assert_int_eq(pass(&s, LIVESOCK_YIELD, 50, 0, socks, ELEMENTSOF(socks)), 1);
        ck_assert_uint_eq(s.n_moved, 1);
        ck_assert_uint_eq(socks[3].value, 50);
        socks[3].refuse = false;
        ck_assert_int_eq(pass(&s, LIVESOCK_UNDO, 0, 0, socks, ELEMENTSOF(socks)), 1);
        ck_assert_uint_eq(socks[0].value, 50);
        ck_assert_uint_eq(socks[3].value, 50);
}
END_TEST

START_TEST(test_livesock_passes_with_nothing_to_do) {
        LiveSocks s;
        Sock socks[] = SOCKS_INIT;

        livesock_init(&s);
        /* nothing outstanding: no return, no undo; a raise is no yield */
        ck_assert_int_eq(pass(&s, LIVESOCK_RETURN, 0, 50, socks, ELEMENTSOF(socks)), -1);
        ck_assert_int_eq(pass(&s, LIVESOCK_UNDO, 0, 0, socks, ELEMENTSOF(socks)), -1);
        ck_assert_int_eq(pass(&s, LIVESOCK_YIELD, 0, 50, socks, ELEMENTSOF(socks)), -1);
        ck_assert_int_eq(pass(&s, LIVESOCK_YIELD, 50, 50, socks, ELEMENTSOF(socks)), -1);
        ck_assert_uint_eq(socks[2].value, 0);
        /* a return from another value than the yield's floor is not this yield's */
        ck_assert_int_eq(pass(&s, LIVESOCK_YIELD, 50, 0, socks, ELEMENTSOF(socks)), 2);
        ck_assert_int_eq(pass(&s, LIVESOCK_RETURN, 5, 50, socks, ELEMENTSOF(socks)), -1);
        ck_assert(s.yielded);
        livesock_clear(&s);
}
END_TEST

START_TEST(test_livesock_second_yield_continues_from_the_floor) {
        LiveSocks s;
        Sock socks[] = SOCKS_INIT;

        livesock_init(&s);
        ck_assert_int_eq(pass(&s, LIVESOCK_YIELD, 50, 10, socks, ELEMENTSOF(socks)), 2);
        ck_assert_int_eq(pass(&s, LIVESOCK_YIELD, 10, 0, socks, ELEMENTSOF(socks)), 2);
        ck_assert_uint_eq(socks[0].value, 0);
        ck_assert_uint_eq(s.home, 50);
        /* 12 held 0 before both yields: kept; the undo restores the first yield's home */
        ck_assert_int_eq(pass(&s, LIVESOCK_UNDO, 0, 0, socks, ELEMENTSOF(socks)), 2);
        ck_assert_uint_eq(socks[0].value, 50);
        ck_assert_uint_eq(socks[2].value, 0);
        ck_assert_uint_eq(socks[3].value, 50);
}
END_TEST

/* ---- the scan --------------------------------------------------------------- */

static void fixture_process(const char *proc, const char *pid, const char *netns) {
        _cleanup_(freep) char *dir = tu_join(proc, pid), *link = NULL;

        ck_assert_int_eq(mkdir(dir, 0755), 0);
        if (!netns)
                return; /* a kernel thread: no ns/net link to read */
        tu_write(dir, "ns/.keep", "", 0644);
        link = tu_join(dir, "ns/net");
        ck_assert_int_eq(symlink(netns, link), 0);
}

#define TCP_HEADER "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n"
#define TCP_ROW(inode) "   0: 0100007F:5BA1 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 " \
                       inode " 1 0000000000000000 100 0 0 10 0\n"

START_TEST(test_sockscan_inet_inodes_once_per_network_namespace) {
        _cleanup_(freep) char *proc = tu_mkdtemp(), *data = tu_data("livesock"), *t1 = tu_read(data, "tcp"),
                                  *t2 = tu_read(data, "tcp6"), *t3 = tu_read(data, "udp");
        _cleanup_(freep) uint64_t *v = NULL;
        /* the kernel's text from the first namespace, 42 from the second (twice: tcp and udp6) */
        static const uint64_t want[] = { 42, 583, 1692384, 1699977, 1736953, 1736954, 1736955, 1736956 };
        size_t n = 0;

        ck_assert(t1 && t2 && t3);
        fixture_process(proc, "2", NULL);
        fixture_process(proc, "100", "net:[4026531840]");
        tu_write(proc, "100/net/tcp", t1, 0644);
        tu_write(proc, "100/net/tcp6", t2, 0644);
        tu_write(proc, "100/net/udp", t3, 0644);
        /* no udp6 there (a kernel without IPv6 has none) */
        /* The same namespace shows the same files (whichever of 100 and 101 the directory lists first is read). */
        fixture_process(proc, "101", "net:[4026531840]");
        tu_write(proc, "101/net/tcp", t1, 0644);
        tu_write(proc, "101/net/tcp6", t2, 0644);
        tu_write(proc, "101/net/udp", t3, 0644);
        fixture_process(proc, "200", "net:[4026532000]");
        tu_write(proc, "200/net/tcp", TCP_HEADER TCP_ROW("42"), 0644);
        tu_write(proc, "200/net/udp6", TCP_HEADER TCP_ROW("42"), 0644);
        fixture_process(proc, "300", "net:[4026532111]"); /* gone meanwhile: no net/ left */
        tu_write(proc, "self/net/tcp", TCP_HEADER TCP_ROW("7"), 0644); /* not a pid: not looked at */

        ck_assert_int_eq(sockscan_inet_inodes(proc, &v, &n), 0);
        ck_assert_uint_eq(n, ELEMENTSOF(want));
        for (size_t i = 0; i < n; i++)
                ck_assert_uint_eq(v[i], want[i]);
        tu_rm_rf(proc);
}
END_TEST

START_TEST(test_sockscan_refuses_malformed_text) {
        _cleanup_(freep) char *dir = tu_mkdtemp();
        _cleanup_(freep) uint64_t *v = NULL;
        size_t n = 0, cap = 0;

        tu_write(dir, "net/tcp", TCP_HEADER "   0: 0100007F:5BA1 00000000:0000 0A\n", 0644);
        ck_assert_int_eq(sockscan_net_dir(dir, &v, &n, &cap), -ENOENT); /* no tcp directly in dir */
        _cleanup_(freep) char *net = tu_join(dir, "net");
        ck_assert_int_eq(sockscan_net_dir(net, &v, &n, &cap), -EINVAL);
        ck_assert_int_eq(sockscan_parse_net("header\n   0: a b c d e f g h notanumber 1\n", &v, &n, &cap), -EINVAL);
        ck_assert_int_eq(sockscan_parse_net("header\n   0: a b c d e f g h 12x 1\n", &v, &n, &cap), -EINVAL);
        ck_assert_int_eq(sockscan_parse_net("header only\n", &v, &n, &cap), 0);
        ck_assert_uint_eq(n, 0);
        ck_assert_int_eq(sockscan_parse_net(TCP_HEADER TCP_ROW("0") TCP_ROW("5"), &v, &n, &cap), 0);
        ck_assert_uint_eq(n, 1); /* inode 0: TIME_WAIT, no socket */
        ck_assert_uint_eq(v[0], 5);
        tu_rm_rf(dir);
}
END_TEST

START_TEST(test_sockscan_parse_link) {
        uint64_t inode = 0;

        ck_assert_int_eq(sockscan_parse_link("socket:[1736953]", &inode), 0);
        ck_assert_uint_eq(inode, 1736953);
        ck_assert_int_eq(sockscan_parse_link("pipe:[1736953]", &inode), -EINVAL);
        ck_assert_int_eq(sockscan_parse_link("socket:[12", &inode), -EINVAL);
        ck_assert_int_eq(sockscan_parse_link("socket:[12]x", &inode), -EINVAL);
        ck_assert_int_eq(sockscan_parse_link("socket:[-1]", &inode), -EINVAL);
        ck_assert_int_eq(sockscan_parse_link("/dev/null", &inode), -EINVAL);
}
END_TEST

typedef struct Found {
        uint64_t inode;
        int pid, hits;
        uint64_t before, after;
        int error;
} Found;

static int set_found(int pidfd, int pid, int fd, uint64_t inode, void *userdata) {
        Found *f = userdata;
        const uint64_t seven = 7;

        if (inode != f->inode)
                return 0;
        ck_assert_int_eq(pid, f->pid);
        f->hits++;
        f->error = sockscan_busy_poll(pidfd, fd, &f->before, NULL);
        if (f->error == 0)
                f->error = sockscan_busy_poll(pidfd, fd, &f->after, &seven);
        return 0;
}

START_TEST(test_sockscan_walk_sets_a_child_socket) {
        int to_child[2], to_parent[2];
        struct stat st;
        Found f = {};
        _cleanup_(freep) uint64_t *inodes = NULL;
        size_t n = 0;
        int value = 0, r;
        pid_t child;

        ck_assert_int_eq(pipe(to_child), 0);
        ck_assert_int_eq(pipe(to_parent), 0);
        child = fork();
        ck_assert_int_ge(child, 0);
        if (child == 0) {
                /* A bound UDP socket with SO_BUSY_POLL 3; reports its inode, then its value when told. */
                struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
                int s = socket(AF_INET, SOCK_DGRAM, 0), three = 3, v = -1;
                socklen_t len = sizeof(v);
                char c;
                if (s < 0 || bind(s, (struct sockaddr *)&a, sizeof(a)) < 0 || fstat(s, &st) < 0)
                        _exit(1);
                (void)setsockopt(s, SOL_SOCKET, SO_BUSY_POLL, &three, sizeof(three));
                uint64_t ino = st.st_ino;
                if (write(to_parent[1], &ino, sizeof(ino)) != sizeof(ino) || read(to_child[0], &c, 1) != 1)
                        _exit(1);
                (void)getsockopt(s, SOL_SOCKET, SO_BUSY_POLL, &v, &len);
                _exit(write(to_parent[1], &v, sizeof(v)) == sizeof(v) ? 0 : 1);
        }
        ck_assert_int_eq(read(to_parent[0], &f.inode, sizeof(f.inode)), sizeof(f.inode));
        f.pid = child;
        ck_assert_int_eq(sockscan_inet_inodes("/proc", &inodes, &n), 0);
        unsigned refused;
        r = sockscan_walk("/proc", inodes, n, set_found, &f, &refused);
        ck_assert_int_eq(write(to_child[1], "x", 1), 1);
        ck_assert_int_eq(read(to_parent[0], &value, sizeof(value)), sizeof(value));
        waitpid(child, NULL, 0);
        if (f.error == -ENOSYS)
                tu_skip("this kernel has no pidfd_getfd(2)");
        if (f.error == -EPERM)
                tu_skip("pidfd_getfd(2) of a child refused here (Yama or a sandbox)");
        ck_assert_int_ge(r, 1);
        ck_assert_int_eq(f.hits, 1);
        ck_assert_int_eq(f.error, 0);
        if (f.before == 0 && value == 7)
                ck_abort_msg("the child's SO_BUSY_POLL read 0 before: no busy polling in this kernel?");
        ck_assert_uint_eq(f.before, 3);
        ck_assert_uint_eq(f.after, 7);
        ck_assert_int_eq(value, 7); /* the same socket, seen from its own process */
}
END_TEST

static Suite *livesock_suite(void) {
        Suite *s = suite_create("livesock");
        TCase *tc = tcase_create("rules");
        tcase_add_test(tc, test_livesock_yield_lowers_only_busy_read_holders);
        tcase_add_test(tc, test_livesock_return_raises_moved_and_new_but_not_kept);
        tcase_add_test(tc, test_livesock_undo_puts_back_only_moved_sockets_still_at_the_floor);
        tcase_add_test(tc, test_livesock_refused_set_is_not_remembered);
        tcase_add_test(tc, test_livesock_passes_with_nothing_to_do);
        tcase_add_test(tc, test_livesock_second_yield_continues_from_the_floor);
        suite_add_tcase(s, tc);
        tc = tcase_create("scan");
        tcase_add_test(tc, test_sockscan_inet_inodes_once_per_network_namespace);
        tcase_add_test(tc, test_sockscan_refuses_malformed_text);
        tcase_add_test(tc, test_sockscan_parse_link);
        tcase_add_test(tc, test_sockscan_walk_sets_a_child_socket);
        suite_add_tcase(s, tc);
        return s;
}

TU_MAIN(livesock_suite)
