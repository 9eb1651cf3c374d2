/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * busrtt: what one netpolld SetKnob call costs over D-Bus, next to the
 * cheapest call the same bus can answer (org.freedesktop.DBus.GetId, served
 * by the bus daemon itself).
 *
 *   busrtt --address ADDR [--count N] [--knob NAME] [--value VALUE]
 *
 * The two calls alternate (GetId, SetKnob, GetId, ...) so that noise hits both
 * alike; the first 10 % are warm-up and not counted. Without --value the knob
 * is set to the value netpolld reports for it (GetKnob), so the measurement
 * leaves the host as it found it. Prints one line of key=value pairs:
 *
 *   count=2000 getid_p50_us=48.1 getid_p99_us=90.3 setknob_p50_us=160.2
 *   setknob_p99_us=301.7 ratio_p50=3.33
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <systemd/sd-bus.h>

static uint64_t now_ns(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
}

static int cmp_u64(const void *a, const void *b) {
        uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;
        return (x > y) - (x < y);
}

/* q-quantile of v (sorted in place), in microseconds. */
static double quantile_us(uint64_t *v, size_t n, double q) {
        qsort(v, n, sizeof(*v), cmp_u64);
        size_t i = (size_t) (q * (double) n);
        if (i >= n)
                i = n - 1;
        return (double) v[i] / 1000.0;
}

static int call_getid(sd_bus *bus, sd_bus_error *error) {
        sd_bus_message *reply = NULL;
        int r = sd_bus_call_method(bus, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                                   "org.freedesktop.DBus", "GetId", error, &reply, "");
        sd_bus_message_unref(reply);
        return r;
}

static int call_setknob(sd_bus *bus, const char *knob, const char *value, sd_bus_error *error) {
        sd_bus_message *reply = NULL;
        int r = sd_bus_call_method(bus, "org.netpolld1", "/org/netpolld1", "org.netpolld1.Manager",
                                   "SetKnob", error, &reply, "ss", knob, value);
        sd_bus_message_unref(reply);
        return r;
}

static int get_knob(sd_bus *bus, const char *knob, char **ret_value, sd_bus_error *error) {
        sd_bus_message *reply = NULL;
        const char *value, *origin;
        int r = sd_bus_call_method(bus, "org.netpolld1", "/org/netpolld1", "org.netpolld1.Manager",
                                   "GetKnob", error, &reply, "s", knob);
        if (r >= 0)
                r = sd_bus_message_read(reply, "ss", &value, &origin);
        if (r >= 0) {
                *ret_value = strdup(value);
                if (!*ret_value)
                        r = -ENOMEM;
        }
        sd_bus_message_unref(reply);
        return r;
}

static void usage(FILE *f) {
        fputs("Usage: busrtt --address ADDR [--count N] [--knob NAME] [--value VALUE]\n"
              "Times netpolld's SetKnob against org.freedesktop.DBus.GetId on one bus.\n", f);
}

int main(int argc, char **argv) {
        static const struct option options[] = {
                { "address", required_argument, NULL, 'a' },
                { "count",   required_argument, NULL, 'n' },
                { "knob",    required_argument, NULL, 'k' },
                { "value",   required_argument, NULL, 'v' },
                { "help",    no_argument,       NULL, 'h' },
                {}
        };
        const char *address = NULL, *knob = "busy-read";
        char *value = NULL;
        unsigned long count = 2000;
        sd_bus *bus = NULL;
        sd_bus_error error = SD_BUS_ERROR_NULL;
        uint64_t *getid = NULL, *setknob = NULL;
        int c, r, ret = 1;

        while ((c = getopt_long(argc, argv, "h", options, NULL)) >= 0) {
                switch (c) {
                case 'a':
                        address = optarg;
                        break;
                case 'n': {
                        char *end;
                        errno = 0;
                        count = strtoul(optarg, &end, 10);
                        if (optarg[0] < '0' || optarg[0] > '9' || errno != 0 || *end != '\0' ||
                            count < 10 || count > 1000000) {
                                fprintf(stderr, "busrtt: --count: expected 10..1000000, got \"%s\"\n", optarg);
                                return 2;
                        }
                        break;
                }
                case 'k':
                        knob = optarg;
                        break;
                case 'v':
                        free(value);
                        value = strdup(optarg);
                        break;
                case 'h':
                        usage(stdout);
                        return 0;
                default:
                        usage(stderr);
                        return 2;
                }
        }
        if (optind < argc || !address) {
                fprintf(stderr, "busrtt: --address is required and takes no other arguments\n");
                usage(stderr);
                return 2;
        }

        r = sd_bus_new(&bus);
        if (r >= 0)
                r = sd_bus_set_address(bus, address);
        if (r >= 0)
                r = sd_bus_set_bus_client(bus, 1);
        if (r >= 0)
                r = sd_bus_start(bus);
        if (r < 0) {
                fprintf(stderr, "busrtt: cannot connect to %s: %s\n", address, strerror(-r));
                goto out;
        }
        if (!value) {
                r = get_knob(bus, knob, &value, &error);
                if (r < 0) {
                        fprintf(stderr, "busrtt: GetKnob %s: %s\n", knob,
                                error.message ? error.message : strerror(-r));
                        goto out;
                }
        }

        size_t warm = count / 10;
        getid = calloc(count, sizeof(uint64_t));
        setknob = calloc(count, sizeof(uint64_t));
        if (!getid || !setknob) {
                fprintf(stderr, "busrtt: out of memory\n");
                goto out;
        }
        for (size_t i = 0; i < warm + count; i++) {
                uint64_t t0 = now_ns();
                r = call_getid(bus, &error);
                uint64_t t1 = now_ns();
                if (r < 0) {
                        fprintf(stderr, "busrtt: GetId: %s\n", error.message ? error.message : strerror(-r));
                        goto out;
                }
                r = call_setknob(bus, knob, value, &error);
                uint64_t t2 = now_ns();
                if (r < 0) {
                        fprintf(stderr, "busrtt: SetKnob %s %s: %s\n", knob, value,
                                error.message ? error.message : strerror(-r));
                        goto out;
                }
                if (i >= warm) {
                        getid[i - warm] = t1 - t0;
                        setknob[i - warm] = t2 - t1;
                }
        }
        double g50 = quantile_us(getid, count, 0.50), g99 = quantile_us(getid, count, 0.99);
        double s50 = quantile_us(setknob, count, 0.50), s99 = quantile_us(setknob, count, 0.99);
        printf("count=%lu knob=%s value=%s getid_p50_us=%.1f getid_p99_us=%.1f "
               "setknob_p50_us=%.1f setknob_p99_us=%.1f ratio_p50=%.2f\n",
               count, knob, value, g50, g99, s50, s99, g50 > 0 ? s50 / g50 : 0.0);
        ret = 0;
out:
        sd_bus_error_free(&error);
        sd_bus_flush_close_unref(bus);
        free(getid);
        free(setknob);
        free(value);
        return ret;
}
