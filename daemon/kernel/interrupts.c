/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * interrupts.c: /proc/interrupts and NIC queue-vector names. The line layout
 * follows kernel/irq/proc.c show_interrupts(): "%*d: ", one "%10u " count
 * per online CPU, the chip name, the hardware IRQ number and flow handler,
 * then "  " and the handler names joined by ", ".
 */
#include "interrupts.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "macro.h"
#include "strv.h"

static const char *const kind_names[_QUEUE_KIND_MAX] = {
        [QUEUE_RX] = "rx",
        [QUEUE_TX] = "tx",
        [QUEUE_COMBINED] = "combined",
};

const char *queue_kind_to_string(QueueKind k) {
        return k < _QUEUE_KIND_MAX ? kind_names[k] : NULL;
}

/* A decimal number without sign or leading zeros ("0" itself is fine), fitting in an int. */
static int parse_index(const char *s, const char **ret_end, unsigned *ret) {
        unsigned long v = 0;
        const char *p = s;

        if (!isdigit((unsigned char)*p) || (p[0] == '0' && isdigit((unsigned char)p[1])))
                return -EINVAL;
        for (; isdigit((unsigned char)*p); p++) {
                v = v * 10 + (unsigned)(*p - '0');
                if (v > INT32_MAX)
                        return -ERANGE;
        }
        *ret = (unsigned)v;
        *ret_end = p;
        return 0;
}

int queue_name_parse(const char *s, QueueKind *ret_kind, unsigned *ret_index) {
        const char *end;
        unsigned idx;

        if (!s)
                return -EINVAL;
        for (QueueKind k = 0; k < _QUEUE_KIND_MAX; k++) {
                const char *p = startswith(s, kind_names[k]);
                if (!p || *p != '-')
                        continue;
                if (parse_index(p + 1, &end, &idx) < 0 || *end)
                        return -EINVAL;
                *ret_kind = k;
                *ret_index = idx;
                return 0;
        }
        return -EINVAL;
}

/* ---- /proc/interrupts ---------------------------------------------------- */

Interrupts *interrupts_free(Interrupts *t) {
        if (!t)
                return NULL;
        for (size_t i = 0; i < t->n_lines; i++) {
                free(t->lines[i].chip);
                strv_free(t->lines[i].actions);
        }
        free(t->lines);
        free(t);
        return NULL;
}

static int bad_line(char **ret_reason, unsigned lineno, const char *what) {
        if (ret_reason && asprintf(ret_reason, "line %u: %s", lineno, what) < 0)
                *ret_reason = NULL;
        return -EBADMSG;
}

/* "CPU0 CPU1 ... ": the number of count columns. */
static int parse_header(const char *line, unsigned *ret) {
        unsigned n = 0;

        for (const char *p = line;;) {
                p += strspn(p, " \t");
                if (!*p)
                        break;
                if (!startswith(p, "CPU") || !isdigit((unsigned char)p[3]))
                        return -EINVAL;
                p += 3 + strspn(p + 3, "0123456789");
                if (*p && *p != ' ' && *p != '\t')
                        return -EINVAL;
                n++;
        }
        if (n == 0)
                return -EINVAL;
        *ret = n;
        return 0;
}

/* Splits "a, b" into a strv; empty names are dropped. */
static int split_actions(const char *s, char ***ret) {
        _cleanup_(strv_freep) char **l = NULL;

        l = calloc(1, sizeof(char *));
        if (!l)
                return -ENOMEM;
        while (*s) {
                const char *sep = strstr(s, ", ");
                size_t n = sep ? (size_t)(sep - s) : strlen(s);

                while (n > 0 && s[n - 1] == ' ')
                        n--;
                if (n > 0 && strv_push(&l, strndup(s, n)) < 0)
                        return -ENOMEM;
                s = sep ? sep + 2 : s + strlen(s);
        }
        *ret = TAKE_PTR(l);
        return 0;
}

/* Fills e from the part of a numbered line after "N:". */
static int parse_irq_fields(const char *p, unsigned n_cpus, InterruptLine *e, const char **ret_reason) {
        const char *names;
        size_t n;

        for (unsigned c = 0; c < n_cpus; c++) {
                unsigned long long v;
                char *end;

                p += strspn(p, " ");
                if (!isdigit((unsigned char)*p)) {
                        *ret_reason = "expected one interrupt count per CPU column";
                        return -EBADMSG;
                }
                errno = 0;
                v = strtoull(p, &end, 10);
                if (errno != 0) {
                        *ret_reason = "interrupt count out of range";
                        return -EBADMSG;
                }
                e->total += v;
                p = end;
        }
        p += strspn(p, " ");
        if (!*p) {
                *ret_reason = "expected a chip name and handler names after the counts";
                return -EBADMSG;
        }
        n = strcspn(p, " ");
        e->chip = strndup(p, n);
        if (!e->chip)
                return -ENOMEM;

        /* The handler names follow the last run of two or more blanks. */
        names = NULL;
        for (const char *q = p + n; (q = strstr(q, "  ")); q += strspn(q, " "))
                names = q;
        if (!names) {
                *ret_reason = "expected handler names after the chip";
                return -EBADMSG;
        }
        names += strspn(names, " ");
        return split_actions(names, &e->actions);
}

int interrupts_parse(const char *text, Interrupts **ret, char **ret_reason) {
        _cleanup_(interrupts_freep) Interrupts *t = NULL;
        _cleanup_(freep) char *copy = NULL;
        bool header = false;
        unsigned lineno = 0;

        if (!text)
                return -EINVAL;
        t = calloc(1, sizeof(Interrupts));
        copy = strdup(text);
        if (!t || !copy)
                return -ENOMEM;

        for (char *line = copy, *next; line; line = next) {
                const char *p = line, *reason = NULL;
                InterruptLine e = {};
                unsigned irq;
                int r;

                next = strchr(line, '\n');
                if (next)
                        *next++ = 0;
                lineno++;
                if (!line[strspn(line, " \t")])
                        continue;
                if (!header) {
                        if (parse_header(line, &t->n_cpus) < 0)
                                return bad_line(ret_reason, lineno, "expected the CPU header (\"CPU0 CPU1 ...\")");
                        header = true;
                        continue;
                }
                p += strspn(p, " ");
                if (!isdigit((unsigned char)*p))
                        continue; /* NMI:, LOC:, ERR:, ... are not device IRQs */
                if (parse_index(p, &p, &irq) < 0 || *p != ':')
                        return bad_line(ret_reason, lineno, "expected an IRQ number followed by ':'");
                r = parse_irq_fields(p + 1, t->n_cpus, &e, &reason);
                if (r >= 0) {
                        InterruptLine *a = reallocarray(t->lines, t->n_lines + 1, sizeof(InterruptLine));
                        if (!a)
                                r = -ENOMEM;
                        else {
                                e.irq = irq;
                                t->lines = a;
                                t->lines[t->n_lines++] = e;
                                continue;
                        }
                }
                free(e.chip);
                strv_free(e.actions);
                if (r == -EBADMSG)
                        return bad_line(ret_reason, lineno, reason);
                return r;
        }
        if (!header)
                return bad_line(ret_reason, lineno ?: 1, "expected the CPU header (\"CPU0 CPU1 ...\")");
        *ret = TAKE_PTR(t);
        return 0;
}

const InterruptLine *interrupts_find(const Interrupts *t, unsigned irq) {
        for (size_t i = 0; t && i < t->n_lines; i++)
                if (t->lines[i].irq == irq)
                        return &t->lines[i];
        return NULL;
}

/* ---- queue vector names -------------------------------------------------- */

static int set_owner(IrqQueueName *q, const char *s, size_t n) {
        if (n == 0 || n >= sizeof(q->owner))
                return -EINVAL;
        memcpy(q->owner, s, n);
        q->owner[n] = 0;
        return 0;
}

/* "<owner><suffix>N" with suffix one of the driver's queue tags. */
static int parse_suffixed(const char *name, IrqQueueName *ret) {
        static const struct {
                const char *tag;
                IrqNaming naming;
                QueueKind kind;
        } tags[] = {
                /* Longest first: "-Tx-Rx-" must not be read as owner "X-Tx" plus "-Rx-". */
                { "-Tx-Rx-", IRQ_NAMING_ENA, QUEUE_COMBINED },
                { "-TxRx-", IRQ_NAMING_NETDEV, QUEUE_COMBINED },
                { "-rx-", IRQ_NAMING_NETDEV, QUEUE_RX },
                { "-tx-", IRQ_NAMING_NETDEV, QUEUE_TX },
        };

        for (size_t i = 0; i < ELEMENTSOF(tags); i++) {
                const char *at = NULL, *end;
                IrqQueueName q = { .naming = tags[i].naming, .kind = tags[i].kind };

                /* The last occurrence: owners may contain the tag ("ice-tx-1-TxRx-0" is owner "ice-tx-1"). */
                for (const char *s = name; (s = strstr(s, tags[i].tag)); s++)
                        at = s;
                if (!at)
                        continue;
                if (parse_index(at + strlen(tags[i].tag), &end, &q.index) < 0 || *end)
                        continue;
                if (set_owner(&q, name, (size_t)(at - name)) < 0)
                        continue;
                *ret = q;
                return 0;
        }
        return -EINVAL;
}

static int parse_mlx5(const char *name, IrqQueueName *ret) {
        IrqQueueName q = { .naming = IRQ_NAMING_MLX5, .kind = QUEUE_COMBINED };
        const char *p = startswith(name, "mlx5_comp");

        if (!p || parse_index(p, &p, &q.index) < 0)
                return -EINVAL;
        p = startswith(p, "@pci:");
        if (!p || set_owner(&q, p, strlen(p)) < 0)
                return -EINVAL;
        *ret = q;
        return 0;
}

static int parse_virtio(const char *name, IrqQueueName *ret) {
        IrqQueueName q = { .naming = IRQ_NAMING_VIRTIO };
        const char *p = startswith(name, "virtio"), *dash, *end;
        unsigned dev;

        if (!p || parse_index(p, &dash, &dev) < 0 || *dash != '-')
                return -EINVAL;
        if ((p = startswith(dash + 1, "input.")))
                q.kind = QUEUE_RX;
        else if ((p = startswith(dash + 1, "output.")))
                q.kind = QUEUE_TX;
        else
                return -EINVAL; /* "virtioK-config", "virtioK-control", "virtioK-virtqueues" */
        if (parse_index(p, &end, &q.index) < 0 || *end)
                return -EINVAL;
        if (set_owner(&q, name, (size_t)(dash - name)) < 0)
                return -EINVAL;
        *ret = q;
        return 0;
}

int irq_name_parse(const char *name, IrqQueueName *ret) {
        if (!name || !*name)
                return -EINVAL;
        if (parse_mlx5(name, ret) >= 0 || parse_virtio(name, ret) >= 0)
                return 0;
        return parse_suffixed(name, ret);
}

static bool owner_is_device(const IrqQueueName *q, const DeviceIdent *dev) {
        switch (q->naming) {
        case IRQ_NAMING_MLX5:
                return dev->bus_id && streq(q->owner, dev->bus_id);
        case IRQ_NAMING_VIRTIO:
                return dev->virtio && streq(q->owner, dev->virtio);
        case IRQ_NAMING_NETDEV:
        case IRQ_NAMING_ENA:
                if (dev->ifname && streq(q->owner, dev->ifname))
                        return true;
                /* "DRIVER-IFNAME" (ice) and "DRIVER-PCI" (i40e). */
                for (size_t i = 0; i < 2; i++) {
                        const char *id = i == 0 ? dev->ifname : dev->bus_id;
                        size_t lo = strlen(q->owner), li = id ? strlen(id) : 0;

                        if (li > 0 && lo > li + 1 && q->owner[lo - li - 1] == '-' && streq(q->owner + lo - li, id))
                                return true;
                }
                return false;
        }
        return false;
}

static bool in_list(const unsigned *l, size_t n, unsigned v) {
        for (size_t i = 0; i < n; i++)
                if (l[i] == v)
                        return true;
        return false;
}

static int cmp_queue_irq(const void *a, const void *b) {
        const QueueIrq *x = a, *y = b;
        if (x->kind != y->kind)
                return x->kind < y->kind ? -1 : 1;
        if (x->index != y->index)
                return x->index < y->index ? -1 : 1;
        return 0;
}

/* Adds (kind, index, irq) unless the queue has an IRQ already. */
static int add_queue(QueueIrq **l, size_t *n, const IrqQueueName *q, unsigned irq) {
        QueueIrq *a;

        for (size_t j = 0; j < *n; j++)
                if ((*l)[j].kind == q->kind && (*l)[j].index == q->index)
                        return 0;
        a = reallocarray(*l, *n + 1, sizeof(QueueIrq));
        if (!a)
                return -ENOMEM;
        *l = a;
        a[(*n)++] = (QueueIrq){ .kind = q->kind, .index = q->index, .irq = irq };
        return 1;
}

int interrupts_match_device(const Interrupts *t, const DeviceIdent *dev, QueueIrq **ret, size_t *ret_n) {
        _cleanup_(freep) QueueIrq *l = NULL;
        size_t n = 0, n_rx = 0;
        unsigned min_tx = UINT32_MAX;

        if (!t || !dev || !ret || !ret_n)
                return -EINVAL;
        /*
         * Pass 0: names that name this device. Pass 1, only on the device's own
         * MSI IRQs: interface-style names with another owner (the interface was
         * renamed after its IRQs were requested). Owners with ':' are a PCI
         * function's special vectors ("i40e-PCI:fdir-TxRx-0"), never an interface.
         */
        for (int pass = 0; pass < (dev->msi_irqs ? 2 : 1); pass++)
                for (size_t i = 0; i < t->n_lines; i++) {
                        const InterruptLine *e = &t->lines[i];

                        if (dev->msi_irqs && !in_list(dev->msi_irqs, dev->n_msi_irqs, e->irq))
                                continue;
                        for (char **a = e->actions; a && *a; a++) {
                                IrqQueueName q;
                                bool mine;
                                int r;

                                if (irq_name_parse(*a, &q) < 0)
                                        continue;
                                mine = owner_is_device(&q, dev);
                                if (pass == 0 ? !mine
                                              : mine || strchr(q.owner, ':') ||
                                                        (q.naming != IRQ_NAMING_NETDEV && q.naming != IRQ_NAMING_ENA))
                                        continue;
                                r = add_queue(&l, &n, &q, e->irq);
                                if (r < 0)
                                        return r;
                                if (r > 0 && q.kind == QUEUE_RX)
                                        n_rx++;
                                if (r > 0 && q.kind == QUEUE_TX)
                                        min_tx = MIN(min_tx, q.index);
                                break;
                        }
                }

        /* bnxt_en: "-tx-N" counts on from the last rx ring ("rx-0..3, tx-4..7"). */
        if (dev->driver && streq(dev->driver, "bnxt_en") && n_rx > 0 && min_tx == n_rx)
                for (size_t j = 0; j < n; j++)
                        if (l[j].kind == QUEUE_TX)
                                l[j].index -= (unsigned)n_rx;

        if (n > 1)
                qsort(l, n, sizeof(QueueIrq), cmp_queue_irq);
        *ret = TAKE_PTR(l);
        *ret_n = n;
        return 0;
}
