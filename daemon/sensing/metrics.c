/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * metrics.c: the Prometheus text format writer. Numbers are printed from
 * integers as exact decimals (no floating point), so a value reads back the
 * same on every machine and tests compare text.
 */
#include "metrics.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "macro.h"

char *metrics_format_fixed(char *buf, size_t size, uint64_t v, unsigned decimals) {
        uint64_t div = 1;
        char frac[24];
        int len;

        for (unsigned i = 0; i < decimals && i < 19; i++)
                div *= 10;
        if (div == 1) {
                snprintf(buf, size, "%" PRIu64, v);
                return buf;
        }
        snprintf(frac, sizeof(frac), "%0*" PRIu64, (int)decimals, v % div);
        for (len = (int)decimals; len > 0 && frac[len - 1] == '0'; len--)
                ;
        if (len == 0)
                snprintf(buf, size, "%" PRIu64, v / div);
        else
                snprintf(buf, size, "%" PRIu64 ".%.*s", v / div, len, frac);
        return buf;
}

/* A label value as the format wants it: \ " and newline escaped. */
static void put_escaped(FILE *f, const char *s) {
        for (; s && *s; s++) {
                if (*s == '\\')
                        fputs("\\\\", f);
                else if (*s == '"')
                        fputs("\\\"", f);
                else if (*s == '\n')
                        fputs("\\n", f);
                else
                        fputc(*s, f);
        }
}

static void family(FILE *f, const char *name, const char *type, const char *help) {
        fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* name{k1="v1",k2="v2"} value; labels: NULL-terminated key, value pairs. */
static void sample(FILE *f, const char *name, const char *value, const char *const *labels) {
        fputs(name, f);
        if (labels && labels[0]) {
                fputc('{', f);
                for (size_t i = 0; labels[i]; i += 2) {
                        fprintf(f, "%s%s=\"", i > 0 ? "," : "", labels[i]);
                        put_escaped(f, labels[i + 1]);
                        fputc('"', f);
                }
                fputc('}', f);
        }
        fprintf(f, " %s\n", value);
}

static const char *u64(char *buf, size_t size, uint64_t v) {
        snprintf(buf, size, "%" PRIu64, v);
        return buf;
}

static void knob_family(FILE *f, const MetricsInput *in, MetricsKnobKind kind, const char *name, const char *help) {
        char v[32];

        family(f, name, "gauge", help);
        for (size_t i = 0; i < in->n_knobs; i++) {
                const MetricsKnob *k = &in->knobs[i];
                if (k->kind != kind || !k->has_value)
                        continue;
                if (kind == METRICS_KNOB_TIME) {
                        unsigned __int128 ns = (unsigned __int128)k->value * MAX(k->unit_ns, UINT64_C(1));
                        metrics_format_fixed(v, sizeof(v), ns > UINT64_MAX ? UINT64_MAX : (uint64_t)ns, 9);
                } else
                        u64(v, sizeof(v), k->value);
                sample(f, name, v, (const char *const[]){ "knob", k->name, "origin", k->origin, NULL });
        }
}

static void queue_stats_families(FILE *f, const MetricsInput *in) {
        char name[80], help[256], v[32], ifindex[16], id[16], napi[16];

        for (Qstat s = 0; s < _QSTAT_MAX; s++) {
                snprintf(name, sizeof(name), "netpolld_queue_%s_total", qstat_name(s));
                snprintf(help, sizeof(help), "%s Per queue, from the kernel's netdev qstats; absent where the "
                         "driver keeps no such count.", qstat_help(s));
                family(f, name, "counter", help);
                for (size_t i = 0; i < in->n_queue_stats; i++) {
                        const MetricsQueueStats *q = &in->queue_stats[i];
                        if (!q->stats->has[s])
                                continue;
                        snprintf(ifindex, sizeof(ifindex), "%d", q->stats->ifindex);
                        snprintf(id, sizeof(id), "%u", q->stats->id);
                        if (q->napi_id > 0)
                                snprintf(napi, sizeof(napi), "%" PRIu32, q->napi_id);
                        else
                                napi[0] = '\0';
                        sample(f, name, u64(v, sizeof(v), q->stats->value[s]),
                               (const char *const[]){ "device", q->device ? q->device : "", "ifindex", ifindex,
                                                      "queue_type", q->stats->kind == QUEUE_RX ? "rx" : "tx",
                                                      "queue_id", id, "napi_id", napi, NULL });
                }
        }
}

static void write_all(FILE *f, const MetricsInput *in) {
        char v[32], a[32], b[32];

        family(f, "netpolld_knob_supported", "gauge", "Whether this kernel has the knob (1) or lacks it (0).");
        for (size_t i = 0; i < in->n_knobs; i++)
                sample(f, "netpolld_knob_supported", in->knobs[i].supported ? "1" : "0",
                       (const char *const[]){ "knob", in->knobs[i].name, NULL });
        knob_family(f, in, METRICS_KNOB_TIME, "netpolld_knob_seconds",
                    "Value of a time knob in seconds, by where the value comes from.");
        knob_family(f, in, METRICS_KNOB_COUNT, "netpolld_knob_value",
                    "Value of a count knob (packets, tasks, skbs, ...), by where the value comes from.");
        knob_family(f, in, METRICS_KNOB_CPUS, "netpolld_knob_cpus",
                    "Number of CPUs in a CPU-set knob (RPS/XPS), by where the value comes from.");

        family(f, "netpolld_controller_decisions_total", "counter",
               "Knob changes the adaptive controller applied, by knob, direction and reason.");
        for (size_t i = 0; i < in->n_decisions; i++) {
                const MetricsDecision *d = &in->decisions[i];
                sample(f, "netpolld_controller_decisions_total", u64(v, sizeof(v), d->count),
                       (const char *const[]){ "knob", d->knob, "direction", d->direction, "reason", d->reason,
                                              NULL });
        }

        family(f, "netpolld_controller_samples_total", "counter",
               "Samples of the load statistics the adaptive controller took and stepped on.");
        if (in->has_samples)
                sample(f, "netpolld_controller_samples_total", u64(v, sizeof(v), in->samples), NULL);
        family(f, "netpolld_controller_wakeups_total", "counter",
               "Samples taken at once: a task started waiting for a CPU (told by the CPU pressure trigger, or seen "
               "by the watch in the trigger's blind time), or the tasks busy polling yielded to exited.");
        if (in->has_samples) {
                sample(f, "netpolld_controller_wakeups_total", u64(v, sizeof(v), in->wakeups_trigger),
                       (const char *const[]){ "by", "trigger", NULL });
                sample(f, "netpolld_controller_wakeups_total", u64(v, sizeof(v), in->wakeups_watch),
                       (const char *const[]){ "by", "watch", NULL });
                sample(f, "netpolld_controller_wakeups_total", u64(v, sizeof(v), in->wakeups_crowd_exit),
                       (const char *const[]){ "by", "crowd-exit", NULL });
        }

        family(f, "netpolld_busy_poll_rx_packets_total", "counter",
               "Packets received by busy polling (TcpExt BusyPollRxPackets in /proc/net/netstat).");
        if (in->has_busy_poll_rx)
                sample(f, "netpolld_busy_poll_rx_packets_total", u64(v, sizeof(v), in->busy_poll_rx_packets), NULL);

        family(f, "netpolld_queue_info", "gauge",
               "Network device queues: NAPI instance, IRQ, the IRQ's CPUs, RPS/XPS CPUs and steering state; "
               "always 1.");
        for (size_t i = 0; i < in->n_queues; i++) {
                const MetricsQueue *q = &in->queues[i];
                if (q->napi_id > 0)
                        snprintf(a, sizeof(a), "%" PRIu32, q->napi_id);
                else
                        a[0] = '\0';
                if (q->irq >= 0)
                        snprintf(b, sizeof(b), "%" PRIi32, q->irq);
                else
                        b[0] = '\0';
                sample(f, "netpolld_queue_info", "1",
                       (const char *const[]){ "device", q->device, "queue", q->queue, "napi_id", a, "irq", b,
                                              "cpus", q->cpus, "rps_cpus", q->rps_cpus, "xps_cpus", q->xps_cpus,
                                              "state", q->state, NULL });
        }

        family(f, "netpolld_cpu_runnable_tasks", "gauge",
               "Tasks waiting for the CPU (the running one not counted) over the last sampling interval.");
        for (size_t i = 0; i < in->n_cpus; i++) {
                snprintf(a, sizeof(a), "%u", in->cpus[i].cpu);
                sample(f, "netpolld_cpu_runnable_tasks", metrics_format_fixed(v, sizeof(v), in->cpus[i].runnable_milli, 3),
                       (const char *const[]){ "cpu", a, NULL });
        }
        family(f, "netpolld_cpu_pressure_some_ratio", "gauge",
               "Share of the last sampling interval in which some task waited for a CPU (PSI cpu some).");
        if (in->has_psi)
                sample(f, "netpolld_cpu_pressure_some_ratio", metrics_format_fixed(v, sizeof(v), in->psi_some_milli, 3),
                       NULL);
        family(f, "netpolld_cpu_time_squeeze_total", "counter",
               "NET_RX softirq runs that ended with work left (softnet_stat time_squeeze).");
        for (size_t i = 0; i < in->n_cpus; i++) {
                if (!in->cpus[i].has_time_squeeze)
                        continue;
                snprintf(a, sizeof(a), "%u", in->cpus[i].cpu);
                sample(f, "netpolld_cpu_time_squeeze_total", u64(v, sizeof(v), in->cpus[i].time_squeeze),
                       (const char *const[]){ "cpu", a, NULL });
        }
        queue_stats_families(f, in);
}

int metrics_format(const MetricsInput *in, char **ret) {
        char *text = NULL;
        size_t size = 0;
        FILE *f;

        f = open_memstream(&text, &size);
        if (!f)
                return -ENOMEM;
        write_all(f, in);
        if (fclose(f) != 0 || !text) {
                free(text);
                return -ENOMEM;
        }
        *ret = text;
        return 0;
}
