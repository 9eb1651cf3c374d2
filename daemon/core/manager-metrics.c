/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * manager-metrics.c: gathers what GetMetrics and the metrics file export
 * (knobs, controller decisions, busy-poll packets, queues, per-CPU load,
 * per-queue statistics)
 * into the plain structs of sensing/metrics.h and has them formatted.
 * Reads only: like ListKnobs and ListIrqs it never changes owner state.
 */
#include "manager.h"

#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "adapt.h"
#include "irqpin.h"
#include "macro.h"
#include "metrics.h"
#include "monitor-parse.h"
#include "netdev-genl.h"
#include "strv.h"
#include "sysroot.h"

#define NETSTAT_MAX (UINT32_C(1) << 20)

/* Reads a whole /proc file below the sysroot, NUL-terminated (caller frees). */
static int read_proc_file(const char *sysroot, const char *path, char **ret) {
        _cleanup_(freep) char *full = NULL, *buf = NULL;
        _cleanup_(closep) int fd = -EBADF;
        size_t size = 8192, len = 0;
        ssize_t n;
        int r;

        r = sysroot_path(sysroot, path, &full);
        if (r < 0)
                return r;
        fd = open(full, O_RDONLY | O_CLOEXEC | O_NOCTTY);
        if (fd < 0)
                return negative_errno();
        buf = malloc(size);
        if (!buf)
                return -ENOMEM;
        for (;;) {
                if (len + 1 >= size) {
                        char *p;
                        if (size >= NETSTAT_MAX)
                                return -EFBIG;
                        p = realloc(buf, size * 2);
                        if (!p)
                                return -ENOMEM;
                        buf = p;
                        size *= 2;
                }
                n = read(fd, buf + len, size - len - 1);
                if (n < 0)
                        return negative_errno();
                if (n == 0)
                        break;
                len += (size_t)n;
        }
        buf[len] = '\0';
        *ret = TAKE_PTR(buf);
        return 0;
}

static int gather_knobs(Manager *m, MetricsKnob **ret, size_t *ret_n, char ***ret_names) {
        _cleanup_(freep) MetricsKnob *knobs = calloc(MAX(m->n_knobs, (size_t)1), sizeof(MetricsKnob));
        _cleanup_(strv_freep) char **names = calloc(m->n_knobs + 1, sizeof(char *));
        char name[64];

        if (!knobs || !names)
                return -ENOMEM;
        for (size_t i = 0; i < m->n_knobs; i++) {
                const KnobState *k = &m->knobs[i];
                const KnobDesc *d = k->ref.desc;
                MetricsKnob *mk = &knobs[i];
                int s = knob_supported(&k->ref, m->sysroot);
                KnobValue v;

                names[i] = strdup(knob_ref_format(&k->ref, name, sizeof(name)));
                if (!names[i])
                        return -ENOMEM;
                *mk = (MetricsKnob){
                        .name = names[i],
                        .origin = origin_to_string(s > 0 ? manager_knob_origin(m, &k->ref) : ORIGIN_DEFAULT),
                        .kind = d->type == KNOB_TIME     ? METRICS_KNOB_TIME
                                : d->type == KNOB_CPUSET ? METRICS_KNOB_CPUS
                                                         : METRICS_KNOB_COUNT,
                        .unit_ns = d->unit_ns,
                        .supported = s > 0,
                };
                if (s > 0 && knob_read(&k->ref, m->sysroot, &v) >= 0) {
                        mk->has_value = true;
                        mk->value = d->type == KNOB_CPUSET ? cpuset_count(&v.cpus) : v.num;
                }
        }
        *ret_n = m->n_knobs;
        *ret = TAKE_PTR(knobs);
        *ret_names = TAKE_PTR(names);
        return 0;
}

static int gather_cpus(Manager *m, MetricsInput *in, MetricsCpu **ret) {
        const Monitor *mon;
        MetricsCpu *cpus;
        size_t n = 0;

        if (!m->adapter || adapter_load(m->adapter, &mon) < 0) {
                *ret = NULL;
                return 0; /* no statistics: the load families stay empty */
        }
        cpus = calloc(MAX(monitor_n_cpus(mon), (size_t)1), sizeof(MetricsCpu));
        if (!cpus)
                return -ENOMEM;
        for (size_t i = 0; i < monitor_n_cpus(mon); i++) {
                const MonitorCpu *c = monitor_cpu(mon, i);
                if (!c || !c->online)
                        continue;
                cpus[n] = (MetricsCpu){ .cpu = (unsigned)i, .runnable_milli = c->runnable_milli };
                cpus[n].has_time_squeeze = monitor_time_squeeze_total(mon, i, &cpus[n].time_squeeze);
                n++;
        }
        in->cpus = cpus;
        in->n_cpus = n;
        in->has_psi = monitor_uses_psi(mon);
        in->psi_some_milli = monitor_system(mon)->psi_some_milli;
        *ret = cpus;
        return 0;
}

static int gather_decisions(Manager *m, MetricsDecision **ret, size_t *ret_n) {
        size_t n = m->adapter ? adapter_decisions(m->adapter, NULL, 0) : 0;
        _cleanup_(freep) AdapterDecisionCount *c = calloc(MAX(n, (size_t)1), sizeof(AdapterDecisionCount));
        MetricsDecision *d = calloc(MAX(n, (size_t)1), sizeof(MetricsDecision));

        if (!c || !d) {
                free(d);
                return -ENOMEM;
        }
        if (n > 0)
                adapter_decisions(m->adapter, c, n);
        for (size_t i = 0; i < n; i++)
                d[i] = (MetricsDecision){ .knob = c[i].knob, .direction = c[i].up ? "up" : "down",
                                          .reason = c[i].reason, .count = c[i].count };
        *ret = d;
        *ret_n = n;
        return 0;
}

static int gather_queues(Manager *m, IrqRow **ret_rows, size_t *ret_n, MetricsQueue **ret) {
        MetricsQueue *q;
        int r;

        *ret_rows = NULL;
        *ret_n = 0;
        *ret = NULL;
        if (!m->irqpin)
                return 0;
        r = irqpin_list(m->irqpin, ret_rows, ret_n);
        if (r < 0)
                return r;
        q = calloc(MAX(*ret_n, (size_t)1), sizeof(MetricsQueue));
        if (!q)
                return -ENOMEM;
        for (size_t i = 0; i < *ret_n; i++) {
                const IrqRow *row = &(*ret_rows)[i];
                q[i] = (MetricsQueue){ .device = row->device, .queue = row->queue, .napi_id = row->napi_id,
                                       .irq = row->irq, .cpus = row->cpus, .rps_cpus = row->rps,
                                       .xps_cpus = row->xps, .state = row->state };
        }
        *ret = q;
        return 0;
}

typedef struct QueueStatsGather {
        QueueStats *stats;
        size_t n;
        MetricsQueueStats *rows;
        char (*names)[IF_NAMESIZE];
} QueueStatsGather;

static void queue_stats_gather_done(QueueStatsGather *q) {
        free(q->stats);
        free(q->rows);
        free(q->names);
}

/* The NAPI instance of a queue as queue-get tells it (0 when unknown). */
static uint32_t queue_napi(const NetdevQueue *queues, size_t n, const QueueStats *s) {
        for (size_t i = 0; i < n; i++)
                if (queues[i].kind == s->kind && queues[i].id == s->id)
                        return queues[i].napi_id;
        return 0;
}

/*
 * Every queue of this namespace's interfaces that keep statistics. Best
 * effort: a kernel or driver without them leaves the families empty.
 */
static int gather_queue_stats(Manager *m, QueueStatsGather *g) {
        int r;

        if (m->qstats_unavailable)
                return 0;
        if (!m->qstats_genl) {
                r = netdev_genl_open(&m->qstats_genl, 0);
                if (r == -EOPNOTSUPP)
                        m->qstats_unavailable = true;
                if (r < 0)
                        return 0;
        }
        r = netdev_genl_qstats(m->qstats_genl, 0, &g->stats, &g->n);
        if (r < 0) {
                g->n = 0;
                return r == -ENOMEM ? r : 0;
        }
        g->rows = calloc(MAX(g->n, (size_t)1), sizeof(MetricsQueueStats));
        g->names = calloc(MAX(g->n, (size_t)1), IF_NAMESIZE);
        if (!g->rows || !g->names)
                return -ENOMEM;
        for (size_t i = 0; i < g->n;) {
                _cleanup_(freep) NetdevQueue *queues = NULL;
                int ifindex = g->stats[i].ifindex;
                size_t nq = 0, j;

                if (!if_indextoname((unsigned)ifindex, g->names[i]))
                        g->names[i][0] = '\0';
                if (netdev_genl_queues(m->qstats_genl, ifindex, &queues, &nq) < 0)
                        nq = 0;
                /* The dump answers device by device: handle this device's run of queues. */
                for (j = i; j < g->n && g->stats[j].ifindex == ifindex; j++)
                        g->rows[j] = (MetricsQueueStats){ .device = g->names[i], .stats = &g->stats[j],
                                                          .napi_id = queue_napi(queues, nq, &g->stats[j]) };
                i = j;
        }
        return 0;
}

int manager_metrics(Manager *m, char **ret) {
        _cleanup_(queue_stats_gather_done) QueueStatsGather qs = {};
        _cleanup_(freep) MetricsKnob *knobs = NULL;
        _cleanup_(freep) MetricsCpu *cpus = NULL;
        _cleanup_(freep) MetricsQueue *queues = NULL;
        _cleanup_(freep) MetricsDecision *decisions = NULL;
        _cleanup_(freep) char *netstat = NULL;
        _cleanup_(strv_freep) char **names = NULL;
        IrqRow *rows = NULL;
        size_t n_rows = 0;
        MetricsInput in = {};
        int r;

        r = gather_knobs(m, &knobs, &in.n_knobs, &names);
        if (r < 0)
                return r;
        in.knobs = knobs;
        r = gather_cpus(m, &in, &cpus);
        if (r < 0)
                return r;
        r = gather_decisions(m, &decisions, &in.n_decisions);
        if (r < 0)
                return r;
        in.decisions = decisions;
        in.has_samples = m->adapter && adapter_monitor(m->adapter);
        in.samples = m->adapter ? adapter_samples(m->adapter) : 0;
        if (m->adapter)
                adapter_wakeups(m->adapter, &in.wakeups_trigger, &in.wakeups_watch, &in.wakeups_crowd_exit);
        if (read_proc_file(m->sysroot, "/proc/net/netstat", &netstat) >= 0 &&
            netstat_field_parse(netstat, "TcpExt", "BusyPollRxPackets", &in.busy_poll_rx_packets) >= 0)
                in.has_busy_poll_rx = true;
        r = gather_queue_stats(m, &qs);
        if (r < 0)
                return r;
        in.queue_stats = qs.rows;
        in.n_queue_stats = qs.n;
        r = gather_queues(m, &rows, &n_rows, &queues);
        if (r >= 0) {
                in.queues = queues;
                in.n_queues = n_rows;
                r = metrics_format(&in, ret);
        }
        irq_rows_free(rows, n_rows);
        return r;
}

int manager_write_metrics_file(Manager *m, const char *path) {
        _cleanup_(freep) char *text = NULL, *tmp = NULL;
        _cleanup_(closep) int fd = -EBADF;
        size_t len, done = 0;
        int r;

        r = manager_metrics(m, &text);
        if (r < 0)
                return r;
        /* Beside the target, so rename() is atomic; no .prom suffix, so a textfile collector skips it. */
        if (asprintf(&tmp, "%s.XXXXXX", path) < 0)
                return -ENOMEM;
        fd = mkostemp(tmp, O_CLOEXEC);
        if (fd < 0)
                return negative_errno();
        len = strlen(text);
        while (done < len) {
                ssize_t n = write(fd, text + done, len - done);
                if (n < 0) {
                        r = negative_errno();
                        goto fail;
                }
                done += (size_t)n;
        }
        /* Readable by a collector running as another user (mkostemp makes 0600). */
        if (fchmod(fd, 0644) < 0 || rename(tmp, path) < 0) {
                r = negative_errno();
                goto fail;
        }
        return 0;
fail:
        (void)unlink(tmp);
        return r;
}
