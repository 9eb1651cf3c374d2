/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * vmtool.c: the small static helper the patched-kernel boot test runs inside
 * its qemu guest, where only busybox is available. It writes sysctls and
 * reports the exact errno, switches veth offloads through the ethtool ioctl,
 * and moves TCP traffic: a forking server, a 1-byte request/response client
 * that waits in blocking recv() (so busy_read applies) and reports its own
 * CPU time, the same client waiting in io_uring with NAPI busy polling
 * registered, a bulk sender, and a CPU-bound spinner; for the seed
 * scenarios, many request/response connections at once (blocking or epoll)
 * and a CPU-bound task that records the time taken from it.
 *
 * Built with `gcc -static` by tests/kernel/run.sh; not part of netpolld.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/ethtool.h>
#include <linux/io_uring.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MODE_RR 'r'
#define MODE_SINK 's'

static int usage(void) {
        fprintf(stderr,
                "usage: vmtool write PATH VALUE          write VALUE (as given) and print ok or the errno name\n"
                "       vmtool feature DEV gro|tso on|off set a device offload through SIOCETHTOOL\n"
                "       vmtool server PORT                serve rr and stream clients (forks per connection)\n"
                "       vmtool rr ADDR PORT COUNT DELAY_US TIMEOUT_S [recv|epoll]\n"
                "                                         COUNT 1-byte transactions, the server waiting\n"
                "                                         DELAY_US before each reply, each reply awaited\n"
                "                                         in recv() (the default) or in epoll_wait()\n"
                "       vmtool urr COUNT DELAY_US TIMEOUT_S ADDR PORT [ADDR PORT]...\n"
                "                                         the same over one connection per ADDR PORT,\n"
                "                                         in turn, each reply awaited in io_uring with\n"
                "                                         NAPI busy polling registered (10 ms), in\n"
                "                                         io_uring_enter() calls of at most 10 ms\n"
                "       vmtool stream ADDR PORT SECONDS   send bulk data for SECONDS\n"
                "       vmtool spin SECONDS               burn CPU for SECONDS\n"
                "       vmtool mrr ADDR PORT CONNS SECONDS block|epoll\n"
                "                                         CONNS processes, one connection each, back-to-back\n"
                "                                         1-byte transactions for SECONDS, each reply awaited\n"
                "                                         in recv() or in epoll_wait(); prints the sum and the\n"
                "                                         median and 99th percentile transaction time\n"
                "       vmtool gap SECONDS                burn CPU for SECONDS; prints the time taken from it\n"
                "                                         in stretches of 50 us or more (count, p99, max, sum)\n"
                "       vmtool cyclic SECONDS PERIOD_US   wake every PERIOD_US for SECONDS and print how late\n"
                "                                         the wake-ups came (count, p50, p99, max)\n"
                "       vmtool as POLICY COMMAND [ARG]... run COMMAND under POLICY: other, batch, idle,\n"
                "                                         fifo:PRIO or rr:PRIO\n");
        return 2;
}

static int parse_uint(const char *s, const char *what, unsigned long max, unsigned long *ret) {
        char *end;
        unsigned long v;

        errno = 0;
        v = strtoul(s, &end, 10);
        if (errno || end == s || *end || s[0] == '-' || v > max) {
                fprintf(stderr, "vmtool: %s must be an integer 0..%lu, got '%s'\n", what, max, s);
                return -EINVAL;
        }
        *ret = v;
        return 0;
}

static uint64_t now_us(clockid_t clock) {
        struct timespec ts;

        clock_gettime(clock, &ts);
        return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

/* Writes the value exactly as given, so that "12abc" or "" reach the kernel's parser. */
static int cmd_write(const char *path, const char *value) {
        int fd = open(path, O_WRONLY);
        ssize_t n;

        if (fd < 0) {
                printf("%s\n", strerrorname_np(errno));
                return 1;
        }
        n = write(fd, value, strlen(value));
        if (n < 0) {
                printf("%s\n", strerrorname_np(errno));
                close(fd);
                return 1;
        }
        if (close(fd) < 0) {
                printf("%s\n", strerrorname_np(errno));
                return 1;
        }
        printf("ok\n");
        return 0;
}

static int cmd_feature(const char *dev, const char *feature, const char *state) {
        struct ethtool_value ev = {};
        struct ifreq ifr = {};
        int fd, r;

        if (strcmp(feature, "gro") == 0)
                ev.cmd = ETHTOOL_SGRO;
        else if (strcmp(feature, "tso") == 0)
                ev.cmd = ETHTOOL_STSO;
        else
                return usage();
        if (strcmp(state, "on") == 0)
                ev.data = 1;
        else if (strcmp(state, "off") != 0)
                return usage();
        if (strlen(dev) >= sizeof(ifr.ifr_name)) {
                fprintf(stderr, "vmtool: device name '%s' is too long\n", dev);
                return 1;
        }
        strcpy(ifr.ifr_name, dev);
        ifr.ifr_data = (void *)&ev;

        fd = socket(AF_INET, SOCK_DGRAM, 0);
        if (fd < 0) {
                perror("vmtool: socket");
                return 1;
        }
        r = ioctl(fd, SIOCETHTOOL, &ifr);
        if (r < 0)
                fprintf(stderr, "vmtool: %s %s %s: %s\n", dev, feature, state, strerror(errno));
        close(fd);
        return r < 0;
}

static int read_full(int fd, void *buf, size_t len) {
        for (size_t done = 0; done < len;) {
                ssize_t n = recv(fd, (char *)buf + done, len - done, 0);
                if (n == 0)
                        return -EPIPE;
                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        return -errno;
                }
                done += n;
        }
        return 0;
}

static int write_full(int fd, const void *buf, size_t len) {
        for (size_t done = 0; done < len;) {
                ssize_t n = send(fd, (const char *)buf + done, len - done, MSG_NOSIGNAL);
                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        return -errno;
                }
                done += n;
        }
        return 0;
}

/* One connection: a mode byte, then for rr a 4-byte reply delay in us. */
static void serve(int fd) {
        char mode, buf[65536];
        uint32_t delay;

        if (read_full(fd, &mode, 1) < 0)
                _exit(1);
        if (mode == MODE_SINK) {
                while (recv(fd, buf, sizeof(buf), 0) > 0)
                        ;
                _exit(0);
        }
        if (mode != MODE_RR || read_full(fd, &delay, sizeof(delay)) < 0)
                _exit(1);
        for (;;) {
                if (read_full(fd, buf, 1) < 0)
                        _exit(0);
                if (delay)
                        usleep(delay);
                if (write_full(fd, buf, 1) < 0)
                        _exit(1);
        }
}

static int cmd_server(const char *port_s) {
        struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_ANY) };
        unsigned long port;
        int fd, one = 1;

        if (parse_uint(port_s, "PORT", 65535, &port) < 0)
                return 2;
        sa.sin_port = htons(port);
        /* Reap connection children automatically. */
        signal(SIGCHLD, SIG_IGN);

        fd = socket(AF_INET, SOCK_STREAM, 0);
        if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
            bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(fd, 16) < 0) {
                perror("vmtool: server");
                return 1;
        }
        for (;;) {
                int c = accept(fd, NULL, NULL);

                if (c < 0) {
                        if (errno == EINTR)
                                continue;
                        perror("vmtool: accept");
                        return 1;
                }
                if (fork() == 0) {
                        close(fd);
                        setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
                        serve(c);
                }
                close(c);
        }
}

static int connect_to(const char *addr, const char *port_s) {
        struct sockaddr_in sa = { .sin_family = AF_INET };
        unsigned long port;
        int fd, one = 1;

        if (parse_uint(port_s, "PORT", 65535, &port) < 0)
                return -EINVAL;
        sa.sin_port = htons(port);
        if (inet_pton(AF_INET, addr, &sa.sin_addr) != 1) {
                fprintf(stderr, "vmtool: '%s' is not an IPv4 address\n", addr);
                return -EINVAL;
        }
        fd = socket(AF_INET, SOCK_STREAM, 0);
        if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
                fprintf(stderr, "vmtool: connect %s:%lu: %s\n", addr, port, strerror(errno));
                if (fd >= 0)
                        close(fd);
                return -errno;
        }
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
        return fd;
}

static void on_alarm(int sig) {
        static const char msg[] = "vmtool: timed out\n";

        (void)sig;
        (void)!write(STDERR_FILENO, msg, sizeof(msg) - 1);
        _exit(3);
}

/*
 * Blocking send/recv, one byte each way: with busy_read set, every recv()
 * busy polls before it sleeps. Prints the count and this process's CPU time,
 * which is where busy polling shows up.
 */
static int cmd_rr(char **argv, const char *wait) {
        unsigned long count, delay, timeout;
        struct rusage ru;
        uint64_t start;
        char req[5] = { MODE_RR };
        uint32_t d;
        int fd, r, ep = -1;

        if (parse_uint(argv[2], "COUNT", 100000000, &count) < 0 ||
            parse_uint(argv[3], "DELAY_US", 10000000, &delay) < 0 ||
            parse_uint(argv[4], "TIMEOUT_S", 3600, &timeout) < 0)
                return 2;
        if (strcmp(wait, "recv") != 0 && strcmp(wait, "epoll") != 0)
                return usage();
        signal(SIGALRM, on_alarm);
        alarm(timeout);

        fd = connect_to(argv[0], argv[1]);
        if (fd < 0)
                return 1;
        d = delay;
        memcpy(req + 1, &d, sizeof(d));
        if (write_full(fd, req, sizeof(req)) < 0) {
                perror("vmtool: rr");
                return 1;
        }
        /* epoll busy polls (net.core.busy_poll) before it sleeps in epoll_wait() */
        if (strcmp(wait, "epoll") == 0) {
                struct epoll_event ev = { .events = EPOLLIN };

                ep = epoll_create1(0);
                if (ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev) < 0) {
                        perror("vmtool: rr: epoll");
                        return 1;
                }
        }
        start = now_us(CLOCK_MONOTONIC);
        for (unsigned long i = 0; i < count; i++) {
                struct epoll_event ev;
                char b = 'x';

                r = write_full(fd, &b, 1);
                if (r >= 0 && ep >= 0) {
                        do
                                r = epoll_wait(ep, &ev, 1, -1);
                        while (r < 0 && errno == EINTR);
                        r = r == 1 ? 0 : -EIO;
                }
                if (r >= 0)
                        r = read_full(fd, &b, 1);
                if (r < 0) {
                        fprintf(stderr, "vmtool: rr transaction %lu: %s\n", i, strerror(-r));
                        return 1;
                }
        }
        getrusage(RUSAGE_SELF, &ru);
        printf("transactions=%lu wall_us=%llu cpu_us=%llu\n", count,
               (unsigned long long)(now_us(CLOCK_MONOTONIC) - start),
               (unsigned long long)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000 +
                       (unsigned long long)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec));
        close(fd);
        return 0;
}

/* Linux 6.9 uapi, newer than the build host's headers may be. */
#define VMTOOL_IORING_REGISTER_NAPI 27
struct vmtool_io_uring_napi {
        uint32_t busy_poll_to;
        uint8_t prefer_busy_poll;
        uint8_t pad[3];
        uint64_t resv;
};

/* A minimal io_uring: one SQE at a time, one CQE awaited per io_uring_enter(). */
typedef struct Ring {
        int fd;
        uint32_t *sq_tail, *sq_mask, *sq_array, *cq_head, *cq_tail, *cq_mask;
        struct io_uring_sqe *sqes;
        struct io_uring_cqe *cqes;
} Ring;

static int ring_setup(Ring *r) {
        struct io_uring_params p = {};
        size_t sq_len, cq_len;
        char *sq, *cq;

        r->fd = syscall(__NR_io_uring_setup, 4, &p);
        if (r->fd < 0)
                return -errno;
        sq_len = p.sq_off.array + p.sq_entries * sizeof(uint32_t);
        cq_len = p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe);
        if (!(p.features & IORING_FEAT_SINGLE_MMAP))
                return -ENOTSUP;
        if (cq_len > sq_len)
                sq_len = cq_len;
        sq = mmap(NULL, sq_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, r->fd, IORING_OFF_SQ_RING);
        if (sq == MAP_FAILED)
                return -errno;
        cq = sq;
        r->sqes = mmap(NULL, p.sq_entries * sizeof(struct io_uring_sqe), PROT_READ | PROT_WRITE,
                       MAP_SHARED | MAP_POPULATE, r->fd, IORING_OFF_SQES);
        if (r->sqes == MAP_FAILED)
                return -errno;
        r->sq_tail = (uint32_t *)(sq + p.sq_off.tail);
        r->sq_mask = (uint32_t *)(sq + p.sq_off.ring_mask);
        r->sq_array = (uint32_t *)(sq + p.sq_off.array);
        r->cq_head = (uint32_t *)(cq + p.cq_off.head);
        r->cq_tail = (uint32_t *)(cq + p.cq_off.tail);
        r->cq_mask = (uint32_t *)(cq + p.cq_off.ring_mask);
        r->cqes = (struct io_uring_cqe *)(cq + p.cq_off.cqes);
        return 0;
}

/*
 * Submits a 1-byte IORING_OP_RECV on fd and waits for its completion, like an
 * event loop with a 10 ms tick: io_uring_enter() waits at most 10 ms at a time
 * (each wait busy polls first), and is called again until the CQE is there.
 * Returns the result or -errno.
 */
static int ring_recv1(Ring *r, int fd, char *b) {
        uint32_t tail = *r->sq_tail, idx = tail & *r->sq_mask, head, submit = 1;
        struct __kernel_timespec ts = { .tv_nsec = 10000000 };
        struct io_uring_getevents_arg arg = { .ts = (uintptr_t)&ts };
        struct io_uring_sqe *sqe = &r->sqes[idx];
        int res;

        memset(sqe, 0, sizeof(*sqe));
        sqe->opcode = IORING_OP_RECV;
        sqe->fd = fd;
        sqe->addr = (uintptr_t)b;
        sqe->len = 1;
        r->sq_array[idx] = idx;
        __atomic_store_n(r->sq_tail, tail + 1, __ATOMIC_RELEASE);
        head = *r->cq_head;
        do {
                if (syscall(__NR_io_uring_enter, r->fd, submit, 1, IORING_ENTER_GETEVENTS | IORING_ENTER_EXT_ARG,
                            &arg, sizeof(arg)) >= 0)
                        submit = 0;
                else if (errno != ETIME && errno != EINTR)
                        return -errno;
        } while (head == __atomic_load_n(r->cq_tail, __ATOMIC_ACQUIRE));
        res = r->cqes[head & *r->cq_mask].res;
        __atomic_store_n(r->cq_head, head + 1, __ATOMIC_RELEASE);
        return res;
}

/*
 * Like rr, over one connection per ADDR PORT pair, taking turns, each reply
 * awaited in io_uring_enter() with NAPI busy polling registered on the ring:
 * the ring tracks the NAPI id of every connection, so two connections over
 * different devices make it busy poll several NAPI ids.
 */
static int cmd_urr(int argc, char **argv) {
        struct vmtool_io_uring_napi napi = { .busy_poll_to = 10000 };
        unsigned long count, delay, timeout;
        int fds[8], nfd = 0, r;
        char req[5] = { MODE_RR };
        struct rusage ru;
        uint64_t start;
        Ring ring = {};
        uint32_t d;

        if (argc < 5 || (argc - 3) % 2 || (argc - 3) / 2 > 8)
                return usage();
        if (parse_uint(argv[0], "COUNT", 100000000, &count) < 0 ||
            parse_uint(argv[1], "DELAY_US", 10000000, &delay) < 0 ||
            parse_uint(argv[2], "TIMEOUT_S", 3600, &timeout) < 0)
                return 2;
        signal(SIGALRM, on_alarm);
        alarm(timeout);

        r = ring_setup(&ring);
        if (r < 0) {
                fprintf(stderr, "vmtool: io_uring_setup: %s\n", strerror(-r));
                return 1;
        }
        if (syscall(__NR_io_uring_register, ring.fd, VMTOOL_IORING_REGISTER_NAPI, &napi, 1) < 0) {
                fprintf(stderr, "vmtool: IORING_REGISTER_NAPI: %s\n", strerror(errno));
                return 1;
        }
        d = delay;
        memcpy(req + 1, &d, sizeof(d));
        for (int i = 3; i < argc; i += 2) {
                fds[nfd] = connect_to(argv[i], argv[i + 1]);
                if (fds[nfd] < 0)
                        return 1;
                if (write_full(fds[nfd], req, sizeof(req)) < 0) {
                        perror("vmtool: urr");
                        return 1;
                }
                nfd++;
        }
        start = now_us(CLOCK_MONOTONIC);
        for (unsigned long i = 0; i < count; i++) {
                int fd = fds[i % nfd];
                char b = 'x';

                r = write_full(fd, &b, 1);
                if (r >= 0)
                        r = ring_recv1(&ring, fd, &b);
                if (r == 0)
                        r = -EPIPE;
                if (r < 0) {
                        fprintf(stderr, "vmtool: urr transaction %lu: %s\n", i, strerror(-r));
                        return 1;
                }
        }
        getrusage(RUSAGE_SELF, &ru);
        printf("transactions=%lu connections=%d wall_us=%llu cpu_us=%llu\n", count, nfd,
               (unsigned long long)(now_us(CLOCK_MONOTONIC) - start),
               (unsigned long long)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000 +
                       (unsigned long long)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec));
        return 0;
}

static int cmd_stream(char **argv) {
        static char buf[65536];
        unsigned long seconds;
        uint64_t end, bytes = 0;
        char mode = MODE_SINK;
        int fd;

        if (parse_uint(argv[2], "SECONDS", 3600, &seconds) < 0)
                return 2;
        signal(SIGALRM, on_alarm);
        alarm(seconds + 30);
        fd = connect_to(argv[0], argv[1]);
        if (fd < 0)
                return 1;
        if (write_full(fd, &mode, 1) < 0) {
                perror("vmtool: stream");
                return 1;
        }
        memset(buf, 'x', sizeof(buf));
        end = now_us(CLOCK_MONOTONIC) + seconds * 1000000;
        while (now_us(CLOCK_MONOTONIC) < end) {
                if (write_full(fd, buf, sizeof(buf)) < 0) {
                        perror("vmtool: stream");
                        return 1;
                }
                bytes += sizeof(buf);
        }
        printf("bytes=%llu\n", (unsigned long long)bytes);
        close(fd);
        return 0;
}

static int cmd_spin(const char *seconds_s) {
        unsigned long seconds;
        volatile uint64_t n = 0;
        uint64_t end;

        if (parse_uint(seconds_s, "SECONDS", 3600, &seconds) < 0)
                return 2;
        end = now_us(CLOCK_MONOTONIC) + seconds * 1000000;
        while (now_us(CLOCK_MONOTONIC) < end)
                for (int i = 0; i < 10000; i++)
                        n++;
        printf("spins=%llu\n", (unsigned long long)n);
        return 0;
}

/* Transaction times of all mrr connections, 1 us buckets, the last one for MRR_HIST_US and more. */
#define MRR_HIST_US 20000
static uint32_t *mrr_hist; /* shared with the children (MAP_SHARED) */

/* The smallest time (us) at or below which q permille of the counted transactions took. */
static unsigned hist_quantile(uint64_t total, unsigned permille) {
        uint64_t want = (total * permille + 999) / 1000, seen = 0;

        for (unsigned us = 0; us <= MRR_HIST_US; us++) {
                seen += mrr_hist[us];
                if (seen >= want && want > 0)
                        return us;
        }
        return MRR_HIST_US;
}

/* One mrr connection: transactions until the deadline, the count written to out. */
static void mrr_child(const char *addr, const char *port, bool use_epoll, int start_fd, int out_fd,
                      uint64_t seconds) {
        char req[5] = { MODE_RR }, go;
        uint64_t n = 0, end;
        int fd, ep = -1;

        fd = connect_to(addr, port);
        if (fd < 0 || write_full(fd, req, sizeof(req)) < 0)
                _exit(1);
        if (use_epoll) {
                struct epoll_event ev = { .events = EPOLLIN };

                ep = epoll_create1(0);
                if (ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev) < 0) {
                        perror("vmtool: mrr: epoll");
                        _exit(1);
                }
        }
        /* Every connection is up before any of them starts counting. */
        if (read(start_fd, &go, 1) != 1)
                _exit(1);
        end = now_us(CLOCK_MONOTONIC) + seconds * 1000000;
        for (uint64_t t0 = now_us(CLOCK_MONOTONIC), t1; t0 < end; t0 = t1) {
                char b = 'x';
                struct epoll_event ev;

                if (write_full(fd, &b, 1) < 0)
                        _exit(1);
                if (use_epoll) {
                        int r;

                        do
                                r = epoll_wait(ep, &ev, 1, -1);
                        while (r < 0 && errno == EINTR);
                        if (r != 1)
                                _exit(1);
                }
                if (read_full(fd, &b, 1) < 0)
                        _exit(1);
                n++;
                t1 = now_us(CLOCK_MONOTONIC);
                __atomic_fetch_add(&mrr_hist[t1 - t0 < MRR_HIST_US ? t1 - t0 : MRR_HIST_US], 1, __ATOMIC_RELAXED);
        }
        if (write(out_fd, &n, sizeof(n)) != sizeof(n))
                _exit(1);
        _exit(0);
}

/*
 * The seed 000 workload: CONNS request/response sessions at once, like as many
 * netperf TCP_RR instances, all on the CPUs this process may use. With busy
 * polling each session spins while it waits for its reply, holding the CPU
 * from sessions whose replies are already there.
 */
static int cmd_mrr(char **argv) {
        unsigned long conns, seconds;
        uint64_t total = 0, n;
        int start[2], out[2], failed = 0;
        bool use_epoll;

        if (parse_uint(argv[2], "CONNS", 1024, &conns) < 0 || conns == 0 ||
            parse_uint(argv[3], "SECONDS", 3600, &seconds) < 0 || seconds == 0)
                return 2;
        if (strcmp(argv[4], "epoll") == 0)
                use_epoll = true;
        else if (strcmp(argv[4], "block") == 0)
                use_epoll = false;
        else
                return usage();
        signal(SIGALRM, on_alarm);
        alarm(seconds + 120);
        if (pipe(start) < 0 || pipe(out) < 0) {
                perror("vmtool: mrr: pipe");
                return 1;
        }
        mrr_hist = mmap(NULL, (MRR_HIST_US + 1) * sizeof(uint32_t), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
                        -1, 0);
        if (mrr_hist == MAP_FAILED) {
                perror("vmtool: mrr: mmap");
                return 1;
        }
        for (unsigned long i = 0; i < conns; i++) {
                pid_t pid = fork();

                if (pid < 0) {
                        perror("vmtool: mrr: fork");
                        return 1;
                }
                if (pid == 0) {
                        close(start[1]);
                        close(out[0]);
                        mrr_child(argv[0], argv[1], use_epoll, start[0], out[1], seconds);
                }
        }
        close(start[0]);
        close(out[1]);
        /* Let the connections come up, then start them all at once. */
        usleep(200000);
        for (unsigned long i = 0; i < conns; i++)
                if (write(start[1], "g", 1) != 1) {
                        perror("vmtool: mrr: start");
                        return 1;
                }
        while (read(out[0], &n, sizeof(n)) == sizeof(n))
                total += n;
        for (unsigned long i = 0; i < conns; i++) {
                int st;

                if (wait(&st) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
                        failed++;
        }
        if (failed) {
                fprintf(stderr, "vmtool: mrr: %d of %lu connections failed\n", failed, conns);
                return 1;
        }
        printf("transactions=%llu conns=%lu seconds=%lu p50_us=%u p90_us=%u p99_us=%u\n", (unsigned long long)total,
               conns, seconds, hist_quantile(total, 500), hist_quantile(total, 900), hist_quantile(total, 990));
        return 0;
}

static int cmp_u64(const void *a, const void *b) {
        uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

        return x < y ? -1 : x > y;
}

/*
 * A CPU-bound neighbour that watches the clock: any stretch of 50 us or more
 * between two readings is time the CPU spent elsewhere (interrupts, softirq
 * processing, other tasks). Softirq processing that runs on instead of
 * handing over to ksoftirqd shows up as long stretches.
 */
static int cmd_gap(const char *seconds_s) {
        unsigned long seconds;
        uint64_t *gaps, sum = 0, prev, end, spins = 0;
        size_t n = 0, cap = 1 << 20;

        if (parse_uint(seconds_s, "SECONDS", 3600, &seconds) < 0 || seconds == 0)
                return 2;
        gaps = calloc(cap, sizeof(*gaps));
        if (!gaps) {
                perror("vmtool: gap");
                return 1;
        }
        prev = now_us(CLOCK_MONOTONIC);
        end = prev + seconds * 1000000;
        while (prev < end) {
                uint64_t t = now_us(CLOCK_MONOTONIC);

                if (t - prev >= 50 && n < cap) {
                        gaps[n++] = t - prev;
                        sum += t - prev;
                }
                prev = t;
                spins++;
        }
        qsort(gaps, n, sizeof(*gaps), cmp_u64);
        printf("gaps=%zu p99_gap_us=%llu max_gap_us=%llu stolen_us=%llu spins=%llu\n", n,
               (unsigned long long)(n ? gaps[n * 99 / 100] : 0), (unsigned long long)(n ? gaps[n - 1] : 0),
               (unsigned long long)sum, (unsigned long long)spins);
        free(gaps);
        return 0;
}

/*
 * A periodic task, as a real-time neighbour is: it sleeps until the start of
 * each period and records how late it woke, which is how long the task that
 * had its CPU kept it waiting.
 */
static int cmd_cyclic(const char *seconds_s, const char *period_s) {
        unsigned long seconds, period;
        uint64_t *late, end;
        size_t n = 0, cap;
        struct timespec next;

        if (parse_uint(seconds_s, "SECONDS", 3600, &seconds) < 0 || seconds == 0 ||
            parse_uint(period_s, "PERIOD_US", 1000000, &period) < 0 || period < 10)
                return 2;
        cap = seconds * 1000000 / period + 1;
        late = calloc(cap, sizeof(*late));
        if (!late) {
                perror("vmtool: cyclic");
                return 1;
        }
        clock_gettime(CLOCK_MONOTONIC, &next);
        end = now_us(CLOCK_MONOTONIC) + seconds * 1000000;
        while (n < cap) {
                uint64_t want, t;

                next.tv_nsec += period * 1000;
                while (next.tv_nsec >= 1000000000) {
                        next.tv_nsec -= 1000000000;
                        next.tv_sec++;
                }
                want = (uint64_t)next.tv_sec * 1000000 + next.tv_nsec / 1000;
                if (want >= end)
                        break;
                while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL) == EINTR)
                        ;
                t = now_us(CLOCK_MONOTONIC);
                late[n++] = t > want ? t - want : 0;
        }
        qsort(late, n, sizeof(*late), cmp_u64);
        printf("wakeups=%zu p50_late_us=%llu p99_late_us=%llu max_late_us=%llu\n", n,
               (unsigned long long)(n ? late[n / 2] : 0), (unsigned long long)(n ? late[n * 99 / 100] : 0),
               (unsigned long long)(n ? late[n - 1] : 0));
        free(late);
        return 0;
}

static int cmd_as(const char *policy_s, char **argv) {
        struct sched_param sp = { 0 };
        unsigned long prio = 0;
        int policy;

        if (strcmp(policy_s, "other") == 0)
                policy = SCHED_OTHER;
        else if (strcmp(policy_s, "batch") == 0)
                policy = SCHED_BATCH;
        else if (strcmp(policy_s, "idle") == 0)
                policy = SCHED_IDLE;
        else if (strncmp(policy_s, "fifo:", 5) == 0 && parse_uint(policy_s + 5, "PRIO", 99, &prio) == 0 && prio)
                policy = SCHED_FIFO;
        else if (strncmp(policy_s, "rr:", 3) == 0 && parse_uint(policy_s + 3, "PRIO", 99, &prio) == 0 && prio)
                policy = SCHED_RR;
        else
                return usage();
        sp.sched_priority = (int)prio;
        if (sched_setscheduler(0, policy, &sp) < 0) {
                fprintf(stderr, "vmtool: as %s: %s\n", policy_s, strerror(errno));
                return 1;
        }
        execvp(argv[0], argv);
        fprintf(stderr, "vmtool: as: %s: %s\n", argv[0], strerror(errno));
        return 127;
}

int main(int argc, char **argv) {
        if (argc < 2)
                return usage();
        setvbuf(stdout, NULL, _IOLBF, 0);

        if (strcmp(argv[1], "write") == 0 && argc == 4)
                return cmd_write(argv[2], argv[3]);
        if (strcmp(argv[1], "feature") == 0 && argc == 5)
                return cmd_feature(argv[2], argv[3], argv[4]);
        if (strcmp(argv[1], "server") == 0 && argc == 3)
                return cmd_server(argv[2]);
        if (strcmp(argv[1], "rr") == 0 && (argc == 7 || argc == 8))
                return cmd_rr(argv + 2, argc == 8 ? argv[7] : "recv");
        if (strcmp(argv[1], "urr") == 0)
                return cmd_urr(argc - 2, argv + 2);
        if (strcmp(argv[1], "stream") == 0 && argc == 5)
                return cmd_stream(argv + 2);
        if (strcmp(argv[1], "spin") == 0 && argc == 3)
                return cmd_spin(argv[2]);
        if (strcmp(argv[1], "mrr") == 0 && argc == 7)
                return cmd_mrr(argv + 2);
        if (strcmp(argv[1], "gap") == 0 && argc == 3)
                return cmd_gap(argv[2]);
        if (strcmp(argv[1], "cyclic") == 0 && argc == 4)
                return cmd_cyclic(argv[2], argv[3]);
        if (strcmp(argv[1], "as") == 0 && argc >= 4)
                return cmd_as(argv[2], argv + 3);
        return usage();
}
