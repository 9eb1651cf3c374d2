/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * monitor-parse.c: the statistics file parsers behind the monitor. Each runs
 * over the text twice: once to validate it (cpus == NULL), then once to fill
 * the caller's array, so a file with odd content leaves the array as it was.
 * The kernel lists CPUs in increasing order in all of these files; requiring
 * that order is also what rejects a duplicate CPU without any bookkeeping.
 */
#include "monitor-parse.h"

#include <errno.h>
#include <limits.h>
#include <string.h>

#include "macro.h"

/* One line (or the rest of one), without its newline. */
typedef struct Scan {
        const char *p, *end;
} Scan;

static bool next_line(const char **text, Scan *ret) {
        const char *s = *text, *nl;

        if (!*s)
                return false;
        nl = strchr(s, '\n');
        *ret = (Scan){ s, nl ?: s + strlen(s) };
        *text = nl ? nl + 1 : ret->end;
        return true;
}

static void skip_blanks(Scan *s) {
        while (s->p < s->end && (*s->p == ' ' || *s->p == '\t'))
                s->p++;
}

static bool at_end(Scan *s) {
        skip_blanks(s);
        return s->p == s->end;
}

static bool scan_token(Scan *s, const char **ret, size_t *ret_len) {
        const char *b;

        skip_blanks(s);
        b = s->p;
        while (s->p < s->end && *s->p != ' ' && *s->p != '\t')
                s->p++;
        if (s->p == b)
                return false;
        *ret = b;
        *ret_len = (size_t)(s->p - b);
        return true;
}

static int digit_value(char c, unsigned base) {
        unsigned d;

        if (c >= '0' && c <= '9')
                d = (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f')
                d = (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F')
                d = (unsigned)(c - 'A' + 10);
        else
                return -1;
        return d < base ? (int)d : -1;
}

/* All of t[0..len) as digits of base; false when empty, not digits, or above UINT64_MAX.
 * These files are read every tick: the overflow checks multiply and add, never divide. */
static bool parse_digits(const char *t, size_t len, unsigned base, uint64_t *ret) {
        uint64_t v = 0;

        if (len == 0)
                return false;
        for (size_t i = 0; i < len; i++) {
                int d = digit_value(t[i], base);
                if (d < 0 || __builtin_mul_overflow(v, base, &v) || __builtin_add_overflow(v, (unsigned)d, &v))
                        return false;
        }
        *ret = v;
        return true;
}

static bool scan_u64(Scan *s, unsigned base, uint64_t *ret) {
        const char *t;
        size_t l;

        return scan_token(s, &t, &l) && parse_digits(t, l, base, ret);
}

static bool token_is(const char *t, size_t len, const char *word) {
        return strlen(word) == len && memcmp(t, word, len) == 0;
}

/* "cpu12" with prefix "cpu": true and 12. */
static bool token_indexed(const char *t, size_t len, const char *prefix, uint64_t *ret) {
        size_t pl = strlen(prefix);

        return len > pl && memcmp(t, prefix, pl) == 0 && parse_digits(t + pl, len - pl, 10, ret);
}

/* CPUs must come in increasing order: false for a repeat or a step back. */
static bool cpu_in_order(uint64_t cpu, uint64_t *last, int count) {
        if (count > 0 && cpu <= *last)
                return false;
        *last = cpu;
        return count < INT_MAX;
}

static int schedstat_scan(const char *text, SchedstatCpu *cpus, size_t n, unsigned *ret_version) {
        unsigned version = 0;
        uint64_t last = 0;
        int count = 0;
        Scan l;

        if (cpus)
                for (size_t i = 0; i < n; i++)
                        cpus[i] = (SchedstatCpu){};

        while (next_line(&text, &l)) {
                uint64_t v, cpu, f[9];
                const char *t;
                size_t tl;

                if (!scan_token(&l, &t, &tl))
                        return -EBADMSG;
                if (token_is(t, tl, "version")) {
                        if (version != 0 || !scan_u64(&l, 10, &v) || !at_end(&l))
                                return -EBADMSG;
                        /* The cpu line read here is the same in 15, 16 and 17. */
                        if (v < 15 || v > 17)
                                return -EPROTONOSUPPORT;
                        version = (unsigned)v;
                } else if (version == 0)
                        return -EBADMSG; /* the version must come first: it says how to read the rest */
                else if (token_is(t, tl, "timestamp")) {
                        if (!scan_u64(&l, 10, &v) || !at_end(&l))
                                return -EBADMSG;
                } else if (token_indexed(t, tl, "cpu", &cpu)) {
                        for (size_t i = 0; i < ELEMENTSOF(f); i++)
                                if (!scan_u64(&l, 10, &f[i]))
                                        return -EBADMSG;
                        if (!at_end(&l) || !cpu_in_order(cpu, &last, count))
                                return -EBADMSG;
                        count++;
                        if (cpus && cpu < n)
                                cpus[cpu] = (SchedstatCpu){ .present = true, .run_delay_ns = f[7] };
                } else if (token_indexed(t, tl, "domain", &v)) {
                        /* Load-balancing statistics of the CPU above; their layout differs per version and is not needed. */
                        if (count == 0)
                                return -EBADMSG;
                } else
                        return -EBADMSG;
        }
        if (version == 0 || count == 0)
                return -EBADMSG;
        if (ret_version)
                *ret_version = version;
        return count;
}

int schedstat_parse(const char *text, SchedstatCpu *cpus, size_t n, unsigned *ret_version) {
        int r;

        if (!text || (!cpus && n > 0))
                return -EINVAL;
        r = schedstat_scan(text, NULL, 0, NULL);
        if (r < 0)
                return r;
        return schedstat_scan(text, cpus, n, ret_version);
}

static int sched_debug_scan(const char *text, SchedDebugCpu *cpus, size_t n) {
        bool in_cpu = false, have_nr = false;
        uint64_t cpu = 0, last = 0;
        int count = 0;
        Scan l;

        if (cpus)
                for (size_t i = 0; i < n; i++)
                        cpus[i] = (SchedDebugCpu){};

        if (!startswith(text, "Sched Debug Version:"))
                return -EBADMSG;

        while (next_line(&text, &l)) {
                const char *t, *p;
                size_t tl;
                uint64_t v;

                if (l.p == l.end)
                        continue;
                if (*l.p != ' ' && *l.p != '\t') {
                        /* An unindented line starts a block: "cpu#N[, MHz]", "cfs_rq[N]:/", "runnable tasks:"... */
                        if (in_cpu && !have_nr)
                                return -EBADMSG;
                        in_cpu = false;
                        if (l.end - l.p < 5 || memcmp(l.p, "cpu#", 4) != 0)
                                continue;
                        for (p = l.p + 4; p < l.end && *p != ','; p++)
                                ;
                        if (!parse_digits(l.p + 4, (size_t)(p - l.p - 4), 10, &cpu) ||
                            !cpu_in_order(cpu, &last, count))
                                return -EBADMSG;
                        count++;
                        in_cpu = true;
                        have_nr = false;
                        continue;
                }
                if (!in_cpu || !scan_token(&l, &t, &tl) || !token_is(t, tl, ".nr_running"))
                        continue;
                if (have_nr || !scan_token(&l, &t, &tl) || !token_is(t, tl, ":") || !scan_u64(&l, 10, &v) ||
                    !at_end(&l))
                        return -EBADMSG;
                have_nr = true;
                if (cpus && cpu < n)
                        cpus[cpu] = (SchedDebugCpu){ .present = true, .nr_running = v };
        }
        if ((in_cpu && !have_nr) || count == 0)
                return -EBADMSG;
        return count;
}

int sched_debug_parse(const char *text, SchedDebugCpu *cpus, size_t n) {
        int r;

        if (!text || (!cpus && n > 0))
                return -EINVAL;
        r = sched_debug_scan(text, NULL, 0);
        if (r < 0)
                return r;
        return sched_debug_scan(text, cpus, n);
}

static int proc_stat_scan(const char *text, ProcStat *ret, bool *online, size_t n) {
        ProcStat st = {};
        bool have_running = false;
        uint64_t last = 0;
        Scan l;

        if (online)
                for (size_t i = 0; i < n; i++)
                        online[i] = false;

        while (next_line(&text, &l)) {
                const char *t;
                size_t tl;
                uint64_t v, cpu;
                unsigned k = 0;

                if (!scan_token(&l, &t, &tl))
                        return -EBADMSG;
                if (token_indexed(t, tl, "cpu", &cpu)) {
                        /* Times per state; only the line's presence matters, but it must look like one. */
                        for (; !at_end(&l); k++)
                                if (!scan_u64(&l, 10, &v))
                                        return -EBADMSG;
                        if (k < 4 || cpu >= UINT_MAX || !cpu_in_order(cpu, &last, (int)st.n_online))
                                return -EBADMSG;
                        st.n_online++;
                        st.cpu_slots = (unsigned)cpu + 1;
                        if (online && cpu < n)
                                online[cpu] = true;
                } else if (token_is(t, tl, "procs_running")) {
                        if (have_running || !scan_u64(&l, 10, &st.procs_running) || !at_end(&l))
                                return -EBADMSG;
                        have_running = true;
                }
        }
        if (!have_running || st.n_online == 0)
                return -EBADMSG;
        if (ret)
                *ret = st;
        return (int)st.n_online;
}

int proc_stat_parse(const char *text, ProcStat *ret, bool *online, size_t n) {
        int r;

        if (!text || !ret || (!online && n > 0))
                return -EINVAL;
        r = proc_stat_scan(text, NULL, NULL, 0);
        if (r < 0)
                return r;
        return proc_stat_scan(text, ret, online, n);
}

/* "key=12.34" as 1234. */
static bool scan_centi(Scan *s, const char *key, uint64_t *ret) {
        size_t kl = strlen(key);
        const char *t, *dot;
        uint64_t whole, frac;
        size_t tl;

        if (!scan_token(s, &t, &tl) || tl <= kl + 1 || memcmp(t, key, kl) != 0 || t[kl] != '=')
                return false;
        t += kl + 1;
        tl -= kl + 1;
        dot = memchr(t, '.', tl);
        if (!dot || (size_t)(t + tl - dot) != 3 || !parse_digits(t, (size_t)(dot - t), 10, &whole) ||
            !parse_digits(dot + 1, 2, 10, &frac) || whole > UINT64_MAX / 100 - 1)
                return false;
        *ret = whole * 100 + frac;
        return true;
}

/* "some|full avg10=.. avg60=.. avg300=.. total=N". */
static bool scan_psi_line(Scan *l, const char *kind, uint64_t *ret_avg10, uint64_t *ret_total) {
        uint64_t avg60, avg300;
        const char *t;
        size_t tl;

        return scan_token(l, &t, &tl) && token_is(t, tl, kind) && scan_centi(l, "avg10", ret_avg10) &&
               scan_centi(l, "avg60", &avg60) && scan_centi(l, "avg300", &avg300) && scan_token(l, &t, &tl) &&
               tl > 6 && memcmp(t, "total=", 6) == 0 && parse_digits(t + 6, tl - 6, 10, ret_total) && at_end(l);
}

int psi_parse(const char *text, Psi *ret) {
        Psi psi = {};
        uint64_t full_avg10;
        Scan l;

        if (!text || !ret)
                return -EINVAL;
        if (!next_line(&text, &l) || !scan_psi_line(&l, "some", &psi.some_avg10_centi, &psi.some_total_us))
                return -EBADMSG;
        if (next_line(&text, &l)) {
                if (!scan_psi_line(&l, "full", &full_avg10, &psi.full_total_us))
                        return -EBADMSG;
                psi.has_full = true;
        }
        if (next_line(&text, &l))
                return -EBADMSG;
        *ret = psi;
        return 0;
}

/* More columns than any kernel prints: a line this long is not softnet_stat. */
#define SOFTNET_COLUMNS_MAX 64

static int softnet_scan(const char *text, SoftnetCpu *cpus, size_t n, unsigned *ret_columns) {
        unsigned columns = 0;
        uint64_t last = 0;
        int count = 0;
        Scan l;

        if (cpus)
                for (size_t i = 0; i < n; i++)
                        cpus[i] = (SoftnetCpu){};

        while (next_line(&text, &l)) {
                uint64_t col[3] = {}, cpu = (uint64_t)count, v;
                unsigned c;

                for (c = 0; !at_end(&l); c++) {
                        if (c >= SOFTNET_COLUMNS_MAX || !scan_u64(&l, 16, &v))
                                return -EBADMSG;
                        if (c < ELEMENTSOF(col))
                                col[c] = v;
                        else if (c == 12)
                                cpu = v;
                }
                if (c < 11 || (columns != 0 && c != columns) || !cpu_in_order(cpu, &last, count))
                        return -EBADMSG;
                columns = c;
                count++;
                if (cpus && cpu < n)
                        cpus[cpu] = (SoftnetCpu){
                                .present = true,
                                .processed = col[0],
                                .dropped = col[1],
                                .time_squeeze = col[2],
                        };
        }
        if (count == 0)
                return -EBADMSG;
        if (ret_columns)
                *ret_columns = columns;
        return count;
}

int softnet_parse(const char *text, SoftnetCpu *cpus, size_t n, unsigned *ret_columns) {
        int r;

        if (!text || (!cpus && n > 0))
                return -EINVAL;
        r = softnet_scan(text, NULL, 0, NULL);
        if (r < 0)
                return r;
        return softnet_scan(text, cpus, n, ret_columns);
}

static int softirqs_scan(const char *text, SoftirqCpu *cpus, size_t n) {
        bool have_rx = false, have_tx = false;
        uint64_t cpu, last = 0, v;
        const char *t;
        int columns = 0;
        Scan header, l;
        size_t tl;

        if (cpus)
                for (size_t i = 0; i < n; i++)
                        cpus[i] = (SoftirqCpu){};

        if (!next_line(&text, &header))
                return -EBADMSG;
        for (l = header; !at_end(&l); columns++)
                if (!scan_token(&l, &t, &tl) || !token_indexed(t, tl, "CPU", &cpu) ||
                    !cpu_in_order(cpu, &last, columns))
                        return -EBADMSG;
        if (columns == 0)
                return -EBADMSG;

        while (next_line(&text, &l)) {
                bool rx, tx;
                Scan h = header;

                if (!scan_token(&l, &t, &tl) || tl < 2 || t[tl - 1] != ':')
                        return -EBADMSG;
                rx = token_is(t, tl, "NET_RX:");
                tx = token_is(t, tl, "NET_TX:");
                if ((rx && have_rx) || (tx && have_tx))
                        return -EBADMSG;
                have_rx = have_rx || rx;
                have_tx = have_tx || tx;
                for (int c = 0; c < columns; c++) {
                        if (!scan_u64(&l, 10, &v))
                                return -EBADMSG;
                        /* The header was checked above: the same walk gives this column's CPU. */
                        if (!scan_token(&h, &t, &tl) || !token_indexed(t, tl, "CPU", &cpu))
                                return -EBADMSG;
                        if (!cpus || cpu >= n || !(rx || tx))
                                continue;
                        cpus[cpu].present = true;
                        if (rx)
                                cpus[cpu].net_rx = v;
                        else
                                cpus[cpu].net_tx = v;
                }
                if (!at_end(&l))
                        return -EBADMSG;
        }
        if (!have_rx || !have_tx)
                return -EBADMSG;
        return columns;
}

int softirqs_parse(const char *text, SoftirqCpu *cpus, size_t n) {
        int r;

        if (!text || (!cpus && n > 0))
                return -EINVAL;
        r = softirqs_scan(text, NULL, 0);
        if (r < 0)
                return r;
        return softirqs_scan(text, cpus, n);
}

/* The next space-separated word of [*p, end): its start and length; false at the end. */
static bool next_word(const char **p, const char *end, const char **ret, size_t *ret_len) {
        const char *s = *p;

        while (s < end && *s == ' ')
                s++;
        if (s >= end)
                return false;
        *ret = s;
        while (s < end && *s != ' ')
                s++;
        *ret_len = (size_t)(s - *ret);
        *p = s;
        return true;
}

int netstat_field_parse(const char *text, const char *group, const char *name, uint64_t *ret) {
        size_t glen = strlen(group), nlen = strlen(name);

        for (const char *line = text; line && *line;) {
                const char *eol = strchrnul(line, '\n'), *values, *veol, *w, *p;
                size_t len, index = 0;
                bool found = false;

                if ((size_t)(eol - line) <= glen || strncmp(line, group, glen) != 0 || line[glen] != ':') {
                        line = *eol ? eol + 1 : eol;
                        continue;
                }
                if (!*eol)
                        return -EBADMSG; /* names without values */
                values = eol + 1;
                veol = strchrnul(values, '\n');
                if (strncmp(values, group, glen) != 0 || values[glen] != ':')
                        return -EBADMSG;
                for (p = line + glen + 1; next_word(&p, eol, &w, &len); index++)
                        if (len == nlen && strncmp(w, name, nlen) == 0) {
                                found = true;
                                break;
                        }
                if (!found)
                        return -ENOENT;
                p = values + glen + 1;
                for (size_t i = 0; i <= index; i++)
                        if (!next_word(&p, veol, &w, &len))
                                return -EBADMSG;
                {
                        uint64_t v = 0;
                        for (size_t i = 0; i < len; i++) {
                                if (w[i] < '0' || w[i] > '9' || v > (UINT64_MAX - 9) / 10)
                                        return -EBADMSG;
                                v = v * 10 + (uint64_t)(w[i] - '0');
                        }
                        *ret = v;
                }
                return 0;
        }
        return -ENOENT;
}

int task_schedstat_parse(const char *text, TaskSchedstat *ret) {
        Scan s = { text, text + strcspn(text, "\n") };
        TaskSchedstat t;

        if (!scan_u64(&s, 10, &t.run_ns) || !scan_u64(&s, 10, &t.delay_ns) || !scan_u64(&s, 10, &t.slices) ||
            !at_end(&s))
                return -EBADMSG;
        *ret = t;
        return 0;
}

int task_stat_parse(const char *text, TaskStat *ret) {
        /* The name in parentheses may hold spaces and ')': fields resume after the last ')'. */
        const char *close = strrchr(text, ')');
        TaskStat st = {};
        Scan s;
        const char *t;
        size_t len;
        uint64_t cpu, flags;

        if (!close)
                return -EBADMSG;
        s = (Scan){ close + 1, close + 1 + strcspn(close + 1, "\n") };
        /* Field 3 (state) follows; flags are field 9, utime and stime 14 and 15, the CPU field 39. */
        for (unsigned field = 3; field < 39; field++) {
                if (field == 14 || field == 15) {
                        if (!scan_u64(&s, 10, field == 14 ? &st.utime : &st.stime))
                                return -EBADMSG;
                } else if (field == 9) {
                        if (!scan_u64(&s, 10, &flags))
                                return -EBADMSG;
                        st.kthread = flags & TASK_PF_KTHREAD;
                } else if (!scan_token(&s, &t, &len))
                        return -EBADMSG;
                else if (field == 3) {
                        if (len != 1)
                                return -EBADMSG;
                        st.state = t[0];
                }
        }
        if (!scan_u64(&s, 10, &cpu) || cpu > UINT_MAX)
                return -EBADMSG;
        st.cpu = (unsigned)cpu;
        *ret = st;
        return 0;
}

int loadavg_last_pid_parse(const char *text, uint64_t *ret) {
        Scan s = { text, text + strcspn(text, "\n") };
        const char *t;
        size_t len;
        uint64_t pid;

        /* "0.00 0.01 0.05 1/105 12345": three averages, running/total, the last PID handed out. */
        for (unsigned i = 0; i < 4; i++)
                if (!scan_token(&s, &t, &len))
                        return -EBADMSG;
        if (!memchr(t, '/', len) || !scan_u64(&s, 10, &pid) || !at_end(&s))
                return -EBADMSG;
        *ret = pid;
        return 0;
}
