/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * vmtool.c: the small static helper the patched-kernel boot test runs inside
 * its qemu guest, where only busybox is available. It writes sysctls and
 * reports the exact errno, switches veth offloads through the ethtool ioctl,
 * and moves TCP traffic: a forking server, a 1-byte request/response client
 * that waits in blocking recv() (so busy_read applies) and reports its own
 * CPU time, a bulk sender, and a CPU-bound spinner.
 *
 * Built with `gcc -static` by tests/kernel/run.sh; not part of netpolld.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
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
                "       vmtool rr ADDR PORT COUNT DELAY_US TIMEOUT_S\n"
                "                                         COUNT 1-byte transactions, the server waiting\n"
                "                                         DELAY_US before each reply\n"
                "       vmtool stream ADDR PORT SECONDS   send bulk data for SECONDS\n"
                "       vmtool spin SECONDS               burn CPU for SECONDS\n");
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
static int cmd_rr(char **argv) {
        unsigned long count, delay, timeout;
        struct rusage ru;
        uint64_t start;
        char req[5] = { MODE_RR };
        uint32_t d;
        int fd, r;

        if (parse_uint(argv[2], "COUNT", 100000000, &count) < 0 ||
            parse_uint(argv[3], "DELAY_US", 10000000, &delay) < 0 ||
            parse_uint(argv[4], "TIMEOUT_S", 3600, &timeout) < 0)
                return 2;
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
        start = now_us(CLOCK_MONOTONIC);
        for (unsigned long i = 0; i < count; i++) {
                char b = 'x';

                r = write_full(fd, &b, 1);
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
        if (strcmp(argv[1], "rr") == 0 && argc == 7)
                return cmd_rr(argv + 2);
        if (strcmp(argv[1], "stream") == 0 && argc == 5)
                return cmd_stream(argv + 2);
        if (strcmp(argv[1], "spin") == 0 && argc == 3)
                return cmd_spin(argv[2]);
        return usage();
}
