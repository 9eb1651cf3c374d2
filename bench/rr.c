/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rr: a 1-byte TCP request/response load generator, like `netperf -t TCP_RR`.
 *
 *   rr server --bind ADDR --port PORT [--max-time SECONDS]
 *   rr client --host ADDR --port PORT [--sessions N] [--duration SECONDS]
 *             [--warmup SECONDS] [--think-us N]
 *
 * Each session is one TCP connection driven by one thread (client) and served
 * by one thread (server), both using plain blocking send()/recv(): that is the
 * path net.core.busy_read acts on. The client times every transaction (send
 * one byte, receive one byte back) into a log-linear histogram and prints one
 * line of key=value pairs that bench/run parses:
 *
 *   sessions=1 seconds=5.000 transactions=62104 tps=12420.8 p50_us=77.3
 *   p90_us=95.1 p99_us=139.0 max_us=2210.4 napi_id=8193 errors=0
 *   sock_busy_read_us=0
 *
 * napi_id is SO_INCOMING_NAPI_ID of the first session's socket: non-zero when
 * the traffic goes through a NAPI instance (what busy polling polls).
 * sock_busy_read_us is its SO_BUSY_POLL: the kernel copies net.core.busy_read
 * into a socket when it creates it, so this is the busy-read time the run
 * really had, whatever the sysctl was changed to while it ran.
 * Both sides stop by themselves: the client after warmup + duration, the
 * server after --max-time (default 3600 s) or on SIGTERM/SIGINT.
 * --think-us N makes each session spin N microseconds in user mode after
 * each transaction (reading the clock, no system call), as a paced load
 * generator does: a client that spends more CPU in user mode than in the
 * kernel, although all it does is drive its own server.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#ifndef SO_INCOMING_NAPI_ID
#define SO_INCOMING_NAPI_ID 56
#endif

#define MAX_SESSIONS 1024
/* Log-linear buckets: 32 sub-buckets per power of two, so a reported
 * percentile is within 1/32 (3 %) of the true value, from 1 ns to 2^64 ns. */
#define HIST_SUB_BITS 5
#define HIST_SUB (1u << HIST_SUB_BITS)
#define HIST_BUCKETS ((64 - HIST_SUB_BITS + 1) * HIST_SUB)

typedef struct Hist {
        uint64_t count[HIST_BUCKETS];
        uint64_t total;
        uint64_t max_ns;
} Hist;

static unsigned hist_bucket(uint64_t ns) {
        if (ns < HIST_SUB)
                return (unsigned) ns;
        unsigned e = 63u - (unsigned) __builtin_clzll(ns);   /* >= HIST_SUB_BITS */
        unsigned sub = (unsigned) (ns >> (e - HIST_SUB_BITS)) & (HIST_SUB - 1);
        return (e - HIST_SUB_BITS + 1) * HIST_SUB + sub;
}

/* Lowest value that falls into bucket b. */
static uint64_t hist_bucket_low(unsigned b) {
        if (b < HIST_SUB)
                return b;
        unsigned e = b / HIST_SUB + HIST_SUB_BITS - 1;
        uint64_t sub = b % HIST_SUB;
        return (HIST_SUB + sub) << (e - HIST_SUB_BITS);
}

static void hist_add(Hist *h, uint64_t ns) {
        h->count[hist_bucket(ns)]++;
        h->total++;
        if (ns > h->max_ns)
                h->max_ns = ns;
}

static void hist_merge(Hist *into, const Hist *from) {
        for (unsigned b = 0; b < HIST_BUCKETS; b++)
                into->count[b] += from->count[b];
        into->total += from->total;
        if (from->max_ns > into->max_ns)
                into->max_ns = from->max_ns;
}

/* The value below which a fraction q of the samples lie: the middle of the
 * bucket holding that sample, capped by the exact maximum. */
static double hist_quantile_us(const Hist *h, double q) {
        if (h->total == 0)
                return 0.0;
        uint64_t rank = (uint64_t) (q * (double) h->total);
        if (rank >= h->total)
                rank = h->total - 1;
        uint64_t seen = 0;
        for (unsigned b = 0; b < HIST_BUCKETS; b++) {
                seen += h->count[b];
                if (seen > rank) {
                        uint64_t lo = hist_bucket_low(b);
                        uint64_t hi = b + 1 < HIST_BUCKETS ? hist_bucket_low(b + 1) : lo;
                        double mid = ((double) lo + (double) hi) / 2.0;
                        if (mid > (double) h->max_ns)
                                mid = (double) h->max_ns;
                        return mid / 1000.0;
                }
        }
        return (double) h->max_ns / 1000.0;
}

static uint64_t now_ns(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
}

static int parse_seconds(const char *s, double min, double max, double *ret) {
        char *end;
        errno = 0;
        double v = strtod(s, &end);
        if (errno != 0 || end == s || *end != '\0' || !(v >= min && v <= max))
                return -EINVAL;
        *ret = v;
        return 0;
}

static int parse_uint(const char *s, unsigned long min, unsigned long max, unsigned long *ret) {
        char *end;
        if (s[0] < '0' || s[0] > '9')
                return -EINVAL;
        errno = 0;
        unsigned long v = strtoul(s, &end, 10);
        if (errno != 0 || *end != '\0' || v < min || v > max)
                return -EINVAL;
        *ret = v;
        return 0;
}

static int parse_addr(const char *host, unsigned long port, struct sockaddr_in *ret) {
        struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t) port) };
        if (inet_pton(AF_INET, host, &sa.sin_addr) != 1)
                return -EINVAL;
        *ret = sa;
        return 0;
}

static void set_nodelay(int fd) {
        int one = 1;
        /* 1-byte messages must leave at once; Nagle would batch them. */
        (void) setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

/* ---- server ------------------------------------------------------------ */

static void *serve_connection(void *arg) {
        int fd = (int) (intptr_t) arg;
        char c;

        set_nodelay(fd);
        for (;;) {
                ssize_t n = recv(fd, &c, 1, 0);
                if (n <= 0)
                        break;
                if (send(fd, &c, 1, MSG_NOSIGNAL) != 1)
                        break;
        }
        close(fd);
        return NULL;
}

static int run_server(const struct sockaddr_in *sa, double max_time) {
        int one = 1;
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0) {
                perror("rr server: socket");
                return 1;
        }
        (void) setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
        if (bind(fd, (const struct sockaddr *) sa, sizeof(*sa)) < 0 || listen(fd, 128) < 0) {
                perror("rr server: bind/listen");
                close(fd);
                return 1;
        }
        /* Bounded lifetime: a forgotten server must not run forever. */
        alarm((unsigned) max_time);
        fprintf(stderr, "rr server: listening\n");
        for (;;) {
                int c = accept4(fd, NULL, NULL, SOCK_CLOEXEC);
                if (c < 0) {
                        if (errno == EINTR || errno == ECONNABORTED)
                                continue;
                        perror("rr server: accept");
                        close(fd);
                        return 1;
                }
                pthread_t t;
                pthread_attr_t attr;
                pthread_attr_init(&attr);
                pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
                pthread_attr_setstacksize(&attr, 64 * 1024);
                int r = pthread_create(&t, &attr, serve_connection, (void *) (intptr_t) c);
                pthread_attr_destroy(&attr);
                if (r != 0) {
                        fprintf(stderr, "rr server: pthread_create: %s\n", strerror(r));
                        close(c);
                }
        }
}

/* ---- client ------------------------------------------------------------ */

static atomic_int phase;        /* 0 warm-up, 1 measuring, 2 stop */
static uint64_t think_ns;       /* --think-us: user-mode spin after each transaction */

typedef struct Session {
        pthread_t thread;
        int fd;
        Hist hist;
        uint64_t errors;
        int error;              /* errno of the failure that ended the session, 0 if none */
} Session;

static void *drive_session(void *arg) {
        Session *s = arg;
        char c = 'x';

        for (;;) {
                int p = atomic_load_explicit(&phase, memory_order_relaxed);
                if (p == 2)
                        break;
                uint64_t t0 = now_ns();
                if (send(s->fd, &c, 1, MSG_NOSIGNAL) != 1) {
                        s->error = errno ? errno : EPIPE;
                        break;
                }
                ssize_t n = recv(s->fd, &c, 1, 0);
                if (n != 1) {
                        s->error = n == 0 ? ECONNRESET : errno;
                        break;
                }
                uint64_t t1 = now_ns();
                if (p == 1)
                        hist_add(&s->hist, t1 - t0);
                while (think_ns > 0 && now_ns() - t1 < think_ns)
                        ;
        }
        return NULL;
}

static int connect_session(const struct sockaddr_in *sa, int *ret_fd) {
        /* A peer that vanishes must not hang the harness: time out reads. */
        struct timeval tv = { .tv_sec = 5 };
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0)
                return -errno;
        set_nodelay(fd);
        (void) setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
        for (int attempt = 0;; attempt++) {
                if (connect(fd, (const struct sockaddr *) sa, sizeof(*sa)) == 0)
                        break;
                /* The server may still be starting: retry for up to 2 s. */
                if (errno != ECONNREFUSED || attempt >= 40) {
                        int r = -errno;
                        close(fd);
                        return r;
                }
                usleep(50 * 1000);
        }
        *ret_fd = fd;
        return 0;
}

static void sleep_seconds(double s) {
        struct timespec ts = { .tv_sec = (time_t) s, .tv_nsec = (long) ((s - (double) (time_t) s) * 1e9) };
        while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
                ;
}

static int run_client(const struct sockaddr_in *sa, unsigned long sessions, double duration, double warmup) {
        Session *ss = calloc(sessions, sizeof(Session));
        Hist *all = calloc(1, sizeof(Hist));
        unsigned napi_id = 0;
        int busy_usec = -1;
        socklen_t len = sizeof(napi_id), blen = sizeof(busy_usec);
        int ret = 1;
        unsigned long started = 0;

        if (!ss || !all) {
                fprintf(stderr, "rr client: out of memory\n");
                goto out;
        }
        for (unsigned long i = 0; i < sessions; i++)
                ss[i].fd = -1;
        for (unsigned long i = 0; i < sessions; i++) {
                int r = connect_session(sa, &ss[i].fd);
                if (r < 0) {
                        fprintf(stderr, "rr client: connect session %lu: %s\n", i + 1, strerror(-r));
                        goto stop;
                }
        }
        atomic_store(&phase, 0);
        for (; started < sessions; started++) {
                int r = pthread_create(&ss[started].thread, NULL, drive_session, &ss[started]);
                if (r != 0) {
                        fprintf(stderr, "rr client: pthread_create: %s\n", strerror(r));
                        goto stop;
                }
        }
        sleep_seconds(warmup);
        uint64_t t0 = now_ns();
        atomic_store(&phase, 1);
        sleep_seconds(duration);
        atomic_store(&phase, 2);
        uint64_t t1 = now_ns();
        ret = 0;
stop:
        atomic_store(&phase, 2);
        for (unsigned long i = 0; i < started; i++)
                pthread_join(ss[i].thread, NULL);
        if (ret == 0) {
                /* Read before closing: the ID of the NAPI that delivered the last packet. */
                (void) getsockopt(ss[0].fd, SOL_SOCKET, SO_INCOMING_NAPI_ID, &napi_id, &len);
                (void) getsockopt(ss[0].fd, SOL_SOCKET, SO_BUSY_POLL, &busy_usec, &blen);
                uint64_t errors = 0;
                for (unsigned long i = 0; i < sessions; i++) {
                        hist_merge(all, &ss[i].hist);
                        if (ss[i].error != 0) {
                                errors++;
                                fprintf(stderr, "rr client: session %lu ended early: %s\n",
                                        i + 1, strerror(ss[i].error));
                        }
                }
                double secs = (double) (t1 - t0) / 1e9;
                printf("sessions=%lu seconds=%.3f transactions=%llu tps=%.1f "
                       "p50_us=%.1f p90_us=%.1f p99_us=%.1f max_us=%.1f napi_id=%u errors=%llu "
                       "sock_busy_read_us=%d\n",
                       sessions, secs, (unsigned long long) all->total, (double) all->total / secs,
                       hist_quantile_us(all, 0.50), hist_quantile_us(all, 0.90),
                       hist_quantile_us(all, 0.99), (double) all->max_ns / 1000.0,
                       napi_id, (unsigned long long) errors, busy_usec);
                if (errors > 0 || all->total == 0)
                        ret = 1;
        }
        for (unsigned long i = 0; i < sessions; i++)
                if (ss[i].fd >= 0)
                        close(ss[i].fd);
out:
        free(ss);
        free(all);
        return ret;
}

/* ---- main -------------------------------------------------------------- */

static void usage(FILE *f) {
        fputs("Usage: rr server --bind ADDR --port PORT [--max-time SECONDS]\n"
              "       rr client --host ADDR --port PORT [--sessions N] [--duration SECONDS]\n"
              "                 [--warmup SECONDS] [--think-us N]\n"
              "1-byte TCP request/response; the client prints transactions/s and latency\n"
              "percentiles (microseconds) as key=value pairs.\n", f);
}

int main(int argc, char **argv) {
        static const struct option options[] = {
                { "bind",     required_argument, NULL, 'b' },
                { "host",     required_argument, NULL, 'H' },
                { "port",     required_argument, NULL, 'p' },
                { "sessions", required_argument, NULL, 'n' },
                { "duration", required_argument, NULL, 'd' },
                { "warmup",   required_argument, NULL, 'w' },
                { "max-time", required_argument, NULL, 'm' },
                { "think-us", required_argument, NULL, 't' },
                { "help",     no_argument,       NULL, 'h' },
                {}
        };
        const char *addr = NULL;
        unsigned long port = 0, sessions = 1, think_us = 0;
        double duration = 5.0, warmup = 1.0, max_time = 3600.0;
        int c;

        if (argc < 2 || (strcmp(argv[1], "server") != 0 && strcmp(argv[1], "client") != 0)) {
                if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
                        usage(stdout);
                        return 0;
                }
                fprintf(stderr, "rr: expected \"server\" or \"client\" as the first argument\n");
                usage(stderr);
                return 2;
        }
        bool server = strcmp(argv[1], "server") == 0;
        optind = 2;
        while ((c = getopt_long(argc, argv, "h", options, NULL)) >= 0) {
                switch (c) {
                case 'b':
                case 'H':
                        addr = optarg;
                        break;
                case 'p':
                        if (parse_uint(optarg, 1, 65535, &port) < 0) {
                                fprintf(stderr, "rr: --port: expected 1..65535, got \"%s\"\n", optarg);
                                return 2;
                        }
                        break;
                case 'n':
                        if (parse_uint(optarg, 1, MAX_SESSIONS, &sessions) < 0) {
                                fprintf(stderr, "rr: --sessions: expected 1..%d, got \"%s\"\n",
                                        MAX_SESSIONS, optarg);
                                return 2;
                        }
                        break;
                case 'd':
                        if (parse_seconds(optarg, 0.1, 3600, &duration) < 0) {
                                fprintf(stderr, "rr: --duration: expected 0.1..3600 seconds, got \"%s\"\n", optarg);
                                return 2;
                        }
                        break;
                case 'w':
                        if (parse_seconds(optarg, 0, 600, &warmup) < 0) {
                                fprintf(stderr, "rr: --warmup: expected 0..600 seconds, got \"%s\"\n", optarg);
                                return 2;
                        }
                        break;
                case 'm':
                        if (parse_seconds(optarg, 1, 86400, &max_time) < 0) {
                                fprintf(stderr, "rr: --max-time: expected 1..86400 seconds, got \"%s\"\n", optarg);
                                return 2;
                        }
                        break;
                case 't':
                        if (parse_uint(optarg, 0, 1000000, &think_us) < 0) {
                                fprintf(stderr, "rr: --think-us: expected 0..1000000, got \"%s\"\n", optarg);
                                return 2;
                        }
                        think_ns = (uint64_t) think_us * 1000;
                        break;
                case 'h':
                        usage(stdout);
                        return 0;
                default:
                        usage(stderr);
                        return 2;
                }
        }
        if (optind < argc) {
                fprintf(stderr, "rr: unexpected argument \"%s\"\n", argv[optind]);
                return 2;
        }
        if (!addr || port == 0) {
                fprintf(stderr, "rr %s: %s and --port are required\n", argv[1], server ? "--bind" : "--host");
                return 2;
        }
        struct sockaddr_in sa;
        if (parse_addr(addr, port, &sa) < 0) {
                fprintf(stderr, "rr: expected an IPv4 address, got \"%s\"\n", addr);
                return 2;
        }
        /* Writes to a peer that went away must fail with EPIPE, not kill us. */
        signal(SIGPIPE, SIG_IGN);
        return server ? run_server(&sa, max_time) : run_client(&sa, sessions, duration, warmup);
}
