/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * irqbalance.c: whether irqbalance runs and which IRQs and CPUs it leaves
 * alone (see irqbalance.h).
 */
#include "irqbalance.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "macro.h"
#include "sysroot.h"
#include "textfile.h"
#include "units.h"

#define IRQBALANCE_DEFAULTS "/etc/default/irqbalance"
/* The most words of a command line or IRQBALANCE_ARGS looked at. */
#define WORDS_MAX 128

int irqbalance_running(const char *sysroot) {
        return proc_find_comm(sysroot, "irqbalance");
}

static void add_ban(IrqbalanceInfo *info, const char *value, const char *where) {
        uint64_t irq;

        if (info->n_bans >= IRQBALANCE_BANS_MAX || parse_u64_range(value, 0, UINT32_MAX, &irq, NULL) < 0)
                return;
        info->bans[info->n_bans] = (IrqbalanceBan){ .irq = (unsigned)irq };
        snprintf(info->bans[info->n_bans].where, sizeof(info->bans[0].where), "%s", where);
        info->n_bans++;
}

void irqbalance_parse_args(IrqbalanceInfo *info, char *const *words, size_t n, const char *where) {
        for (size_t i = 0; i < n; i++) {
                const char *w = words[i], *v;

                if ((v = startswith(w, "--banirq=")))
                        add_ban(info, v, where);
                else if ((streq(w, "--banirq") || streq(w, "-i")) && i + 1 < n)
                        add_ban(info, words[++i], where);
                else if ((v = startswith(w, "-i")) && *v)
                        add_ban(info, v, where);
        }
}

/* The process's argv from /proc/PID/cmdline (NUL-separated, at most TEXTFILE_LINE_MAX bytes read). */
static void parse_cmdline(const char *sysroot, IrqbalanceInfo *info) {
        _cleanup_(freep) char *rel = NULL, *path = NULL;
        char buf[TEXTFILE_LINE_MAX + 1], *words[WORDS_MAX];
        size_t n = 0;
        ssize_t len;
        int fd;

        if (asprintf(&rel, "/proc/%d/cmdline", info->pid) < 0 || sysroot_path(sysroot, rel, &path) < 0)
                return;
        fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
        if (fd < 0)
                return;
        len = read(fd, buf, sizeof(buf) - 1);
        close(fd);
        if (len <= 0)
                return;
        buf[len] = '\0';
        for (char *p = buf; p < buf + len && n < WORDS_MAX; p += strlen(p) + 1)
                words[n++] = p;
        irqbalance_parse_args(info, words, n, "its command line");
}

/* VALUE of KEY=VALUE (optionally "export KEY=..." and quoted), or NULL when line sets another key. */
static char *shell_value(char *line, const char *key) {
        char *s = textfile_strip(line), *v;
        size_t n;

        s = (char *)(startswith(s, "export ") ?: s);
        v = (char *)startswith(s, key);
        if (!v || *v != '=')
                return NULL;
        v++;
        n = strlen(v);
        if (n >= 2 && (v[0] == '"' || v[0] == '\'') && v[n - 1] == v[0]) {
                v[n - 1] = '\0';
                v++;
        }
        return v;
}

static void parse_defaults(const char *sysroot, IrqbalanceInfo *info) {
        _cleanup_(fclosep) FILE *f = NULL;
        char buf[TEXTFILE_LINE_MAX + 1], where[96];
        size_t total = 0;
        unsigned line = 0;
        int r;

        r = textfile_open(sysroot, IRQBALANCE_DEFAULTS, &f, NULL);
        if (r < 0) {
                if (r != -ENOENT)
                        snprintf(info->skipped, sizeof(info->skipped), "%s: %s", IRQBALANCE_DEFAULTS,
                                 r == -ENXIO ? "not a regular file" : strerror(-r));
                return;
        }
        while ((r = textfile_line(f, buf, &total)) != 0) {
                char *v, *words[WORDS_MAX], *save = NULL;
                size_t n = 0;

                line++;
                if (r < 0)
                        snprintf(info->skipped, sizeof(info->skipped), "%s:%u: %s", IRQBALANCE_DEFAULTS, line,
                                 r == -E2BIG ? "line too long" : r == -EBADMSG ? "binary data" : strerror(-r));
                if (r == -E2BIG)
                        continue;
                if (r < 0)
                        break;
                snprintf(where, sizeof(where), "%s:%u", IRQBALANCE_DEFAULTS, line);
                if ((v = shell_value(buf, "IRQBALANCE_ARGS"))) {
                        for (char *w = strtok_r(v, " \t", &save); w && n < WORDS_MAX; w = strtok_r(NULL, " \t", &save))
                                words[n++] = w;
                        irqbalance_parse_args(info, words, n, where);
                } else if ((v = shell_value(buf, "IRQBALANCE_BANNED_CPUS")) ||
                           (v = shell_value(buf, "IRQBALANCE_BANNED_CPULIST"))) {
                        snprintf(info->banned_cpus, sizeof(info->banned_cpus), "%s", v);
                        snprintf(info->banned_cpus_where, sizeof(info->banned_cpus_where), "%s", where);
                }
        }
}

void irqbalance_info(const char *sysroot, IrqbalanceInfo *ret) {
        *ret = (IrqbalanceInfo){ .pid = irqbalance_running(sysroot) };
        if (ret->pid <= 0)
                return;
        parse_cmdline(sysroot, ret);
        parse_defaults(sysroot, ret);
}

const IrqbalanceBan *irqbalance_ban(const IrqbalanceInfo *info, unsigned irq) {
        for (size_t i = 0; i < info->n_bans; i++)
                if (info->bans[i].irq == irq)
                        return &info->bans[i];
        return NULL;
}
