/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * policy.c: netpolld.conf and profiles. A table of {section, key, parser,
 * offset, min, max} drives libinih: every key of a file is validated into a
 * fresh structure and every problem is collected as "FILE:LINE: [SECTION]
 * KEY: message". Profiles then follow include= chains and are merged
 * parent-first, the child's keys winning, before the cross-checks run.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* asprintf, vasprintf */
#endif
#include "policy.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <ini.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "macro.h"
#include "units.h"

/* inih splits longer lines silently (INI_MAX_LINE), so they are refused first. */
#define CONF_LINE_MAX 200
#define NO_FIELD SIZE_MAX

const char *const profile_default_dirs[] = { SYSCONF_PROFILE_DIR, VENDOR_PROFILE_DIR, NULL };

/* ---- growable strv ------------------------------------------------------ */

typedef struct Strv {
        char **v; /* NULL-terminated once anything was added */
        size_t n;
} Strv;

/* Appends s, taking ownership (s NULL means an allocation failed). */
static int strv_push(Strv *l, char *s) {
        char **v;

        if (!s)
                return -ENOMEM;
        v = realloc(l->v, (l->n + 2) * sizeof(char *));
        if (!v) {
                free(s);
                return -ENOMEM;
        }
        v[l->n++] = s;
        v[l->n] = NULL;
        l->v = v;
        return 0;
}

static int strv_pushf(Strv *l, const char *fmt, ...) _printf_(2, 3);
static int strv_pushf(Strv *l, const char *fmt, ...) {
        va_list ap;
        char *s;
        int r;

        va_start(ap, fmt);
        r = vasprintf(&s, fmt, ap);
        va_end(ap);
        return r < 0 ? -ENOMEM : strv_push(l, s);
}

static bool strv_has(char *const *v, const char *s) {
        for (; v && *v; v++)
                if (streq(*v, s))
                        return true;
        return false;
}

/* "FILE:LINE: [SECTION] KEY: message"; line 0 and NULL section or key leave their part out. */
static int push_error(Strv *errors, const char *file, unsigned line, const char *section, const char *key,
                      const char *fmt, ...) _printf_(6, 7);
static int push_error(Strv *errors, const char *file, unsigned line, const char *section, const char *key,
                      const char *fmt, ...) {
        _cleanup_(freep) char *msg = NULL;
        char where[24] = "";
        va_list ap;
        int r;

        va_start(ap, fmt);
        r = vasprintf(&msg, fmt, ap);
        va_end(ap);
        if (r < 0) {
                msg = NULL;
                return -ENOMEM;
        }
        if (line > 0)
                snprintf(where, sizeof(where), ":%u", line);
        if (section && key)
                return strv_pushf(errors, "%s%s: [%s] %s: %s", file, where, section, key, msg);
        if (section)
                return strv_pushf(errors, "%s%s: [%s]: %s", file, where, section, msg);
        if (key)
                return strv_pushf(errors, "%s%s: %s: %s", file, where, key, msg);
        return strv_pushf(errors, "%s%s: %s", file, where, msg);
}

/* ---- value parsers of the key tables -------------------------------------- */

typedef struct ConfigItem ConfigItem;
/* Parses value into field (NULL: validate only); -EINVAL with *ret_msg saying what was wrong and expected. */
typedef int (*ItemParser)(const ConfigItem *it, const char *value, void *field, char **ret_msg);

struct ConfigItem {
        const char *section;
        const char *key;
        ItemParser parse;
        size_t offset; /* into the structure being filled, NO_FIELD for validate-only keys */
        uint64_t min, max;
};

static int msgf(char **ret, const char *fmt, ...) _printf_(2, 3);
static int msgf(char **ret, const char *fmt, ...) {
        va_list ap;
        int r;

        va_start(ap, fmt);
        r = vasprintf(ret, fmt, ap);
        va_end(ap);
        if (r < 0) {
                *ret = NULL;
                return -ENOMEM;
        }
        return -EINVAL;
}

static int set_string(void *field, const char *v) {
        char *s = strdup(v);

        if (!s)
                return -ENOMEM;
        free(*(char **)field);
        *(char **)field = s;
        return 0;
}

static int item_profile_ref(const ConfigItem *it, const char *v, void *field, char **ret_msg) {
        if (!profile_name_valid(v) && !strchr(v, '/'))
                return msgf(ret_msg,
                            "invalid value '%s': not a profile name; expected a name of letters, digits, '_', '.' "
                            "or '-' (at most 64 characters, not starting with '.') or a path containing '/'",
                            v);
        return field ? set_string(field, v) : 0;
}

static int item_abs_path(const ConfigItem *it, const char *v, void *field, char **ret_msg) {
        if (v[0] != '/')
                return msgf(ret_msg, "invalid value '%s': not an absolute path; expected a directory such as %s", v,
                            DEFAULT_STATE_DIR);
        return set_string(field, v);
}

static int item_text(const ConfigItem *it, const char *v, void *field, char **ret_msg) {
        if (strlen(v) > it->max)
                return msgf(ret_msg, "too long (%zu characters); expected at most %" PRIu64 " characters", strlen(v),
                            it->max);
        return set_string(field, v);
}

static int item_bool(const ConfigItem *it, const char *v, void *field, char **ret_msg) {
        if (parse_bool(v, field, NULL) < 0)
                return msgf(ret_msg, "invalid value '%s'; expected yes or no (true/false, on/off, 1/0)", v);
        return 0;
}

static int item_rollback(const ConfigItem *it, const char *v, void *field, char **ret_msg) {
        if (!rollback_from_string(v, field))
                return msgf(ret_msg, "invalid value '%s'; expected auto or not-on-exit", v);
        return 0;
}

static int item_strategy(const ConfigItem *it, const char *v, void *field, char **ret_msg) {
        static const char *const names[] = {
                [IRQ_STRATEGY_SPREAD] = "spread",
                [IRQ_STRATEGY_PACK] = "pack",
                [IRQ_STRATEGY_CPUS] = "cpus",
        };

        for (size_t i = 0; i < ELEMENTSOF(names); i++)
                if (streq(v, names[i])) {
                        *(IrqStrategy *)field = (IrqStrategy)i;
                        return 0;
                }
        return msgf(ret_msg, "invalid value '%s'; expected spread, pack or cpus", v);
}

/* A range bound for messages: "0ms", "10ms", "60s", "2147483647us". */
static char *format_bound(char *buf, size_t size, uint64_t usec, uint64_t bare_ns) {
        if (usec == 0)
                return format_time(buf, size, 0, bare_ns);
        return policy_format_usec(buf, size, usec);
}

/* A time in microseconds, where a bare number counts in bare_ns units. */
static int item_time(const ConfigItem *it, const char *v, void *field, uint64_t bare_ns, char **ret_msg) {
        const char *reason = NULL;
        char buf[CONF_LINE_MAX + 8], lo[32], hi[32];
        size_t n = strlen(v);
        uint64_t us;
        int r;

        /* parse_time() wants whole base units; spelling the bare unit out lets "1.5" (ms) become 1500us. */
        if (n > 0 && n < CONF_LINE_MAX && (isdigit((unsigned char)v[n - 1]) || v[n - 1] == '.')) {
                snprintf(buf, sizeof(buf), "%s%s", v, time_unit_name(bare_ns));
                r = parse_time(buf, NSEC_PER_USEC, &us, &reason);
        } else
                r = parse_time(v, NSEC_PER_USEC, &us, &reason);
        if (r >= 0 && (us < it->min || us > it->max)) {
                r = -ERANGE;
                reason = "out of range";
        }
        if (r < 0)
                return msgf(ret_msg,
                            "invalid value '%s': %s; expected a time such as %s (a bare number is %s), from %s to %s",
                            v, reason, bare_ns == NSEC_PER_MSEC ? "100ms or 1s" : "50us or 2ms",
                            time_unit_name(bare_ns), format_bound(lo, sizeof(lo), it->min, bare_ns),
                            format_bound(hi, sizeof(hi), it->max, bare_ns));
        *(uint64_t *)field = us;
        return 0;
}

static int item_time_ms(const ConfigItem *it, const char *v, void *field, char **ret_msg) {
        return item_time(it, v, field, NSEC_PER_MSEC, ret_msg);
}

static int item_time_us(const ConfigItem *it, const char *v, void *field, char **ret_msg) {
        return item_time(it, v, field, NSEC_PER_USEC, ret_msg);
}

static int parse_count(const ConfigItem *it, const char *v, uint64_t *ret, char **ret_msg) {
        const char *reason = NULL;

        if (parse_u64_range(v, it->min, it->max, ret, &reason) < 0)
                return msgf(ret_msg, "invalid value '%s': %s; expected a whole number from %" PRIu64 " to %" PRIu64, v,
                            reason, it->min, it->max);
        return 0;
}

static int item_count(const ConfigItem *it, const char *v, void *field, char **ret_msg) {
        return parse_count(it, v, field, ret_msg);
}

static int item_count_uint(const ConfigItem *it, const char *v, void *field, char **ret_msg) {
        uint64_t n;
        int r = parse_count(it, v, &n, ret_msg);

        if (r >= 0)
                *(unsigned *)field = (unsigned)n;
        return r;
}

static int item_percent(const ConfigItem *it, const char *v, void *field, char **ret_msg) {
        const char *reason = NULL;
        char buf[CONF_LINE_MAX];
        size_t n = strlen(v);
        uint64_t pct;

        snprintf(buf, sizeof(buf), "%.*s", (int)(n > 0 && v[n - 1] == '%' ? n - 1 : n), v);
        if (parse_u64_range(buf, it->min, it->max, &pct, &reason) < 0)
                return msgf(ret_msg, "invalid value '%s': %s; expected a percentage from %" PRIu64 " to %" PRIu64
                            " such as 25%%", v, reason, it->min, it->max);
        *(unsigned *)field = (unsigned)pct;
        return 0;
}

/* "1.5" -> 1500: a decimal with up to 3 fractional digits, stored x1000. */
static int item_milli(const ConfigItem *it, const char *v, void *field, char **ret_msg) {
        const char *reason = NULL, *p = v;
        uint64_t whole = 0, frac = 0, milli = 0;
        unsigned nfrac = 0;

        if (!isdigit((unsigned char)*p))
                reason = *p == '-' ? "negative values are not allowed" : "not a decimal number";
        for (; !reason && isdigit((unsigned char)*p); p++)
                /* Stopping early also keeps whole far from overflowing. */
                if ((whole = whole * 10 + (uint64_t)(*p - '0')) > it->max / 1000)
                        reason = "out of range";
        if (!reason && *p == '.') {
                if (!isdigit((unsigned char)*++p))
                        reason = "expected digits after the decimal point";
                for (; !reason && isdigit((unsigned char)*p); p++)
                        if (++nfrac > 3)
                                reason = "more than 3 decimal places";
                        else
                                frac = frac * 10 + (uint64_t)(*p - '0');
        }
        if (!reason && *p)
                reason = *p == ' ' ? "spaces are not allowed" : "trailing characters after number";
        if (!reason) {
                for (; nfrac < 3; nfrac++)
                        frac *= 10;
                milli = whole * 1000 + frac;
                if (milli < it->min || milli > it->max)
                        reason = "out of range";
        }
        if (reason)
                return msgf(ret_msg, "invalid value '%s': %s; expected a decimal number above 0 and at most %" PRIu64
                            " with up to 3 decimal places, such as 1.5", v, reason, it->max / 1000);
        *(uint64_t *)field = milli;
        return 0;
}

/* An interface name or fnmatch pattern: what ifname_valid() allows, printable ASCII only. */
static bool device_pattern_valid(const char *s, size_t n) {
        if (n == 0 || n > 15 || (n == 1 && s[0] == '.') || (n == 2 && s[0] == '.' && s[1] == '.'))
                return false;
        for (size_t i = 0; i < n; i++)
                if ((unsigned char)s[i] <= ' ' || (unsigned char)s[i] >= 0x7f || s[i] == '/' || s[i] == ':')
                        return false;
        return true;
}

static int item_devices(const ConfigItem *it, const char *v, void *field, char **ret_msg) {
        static const char expected[] = "expected interface names or fnmatch patterns (1 to 15 characters without "
                                       "'/' or ':') separated by spaces, such as eth0 enp*";
        Strv l = {};
        int r = 0;

        for (const char *p = v + strspn(v, " \t"); *p && r >= 0; p += strspn(p, " \t")) {
                size_t n = strcspn(p, " \t");
                if (!device_pattern_valid(p, n))
                        r = msgf(ret_msg, "invalid value '%s': '%.*s' is not an interface name or pattern; %s", v,
                                 (int)n, p, expected);
                else
                        r = strv_push(&l, strndup(p, n));
                p += n;
        }
        if (r >= 0 && l.n == 0)
                r = msgf(ret_msg, "invalid value '%s': no interfaces; %s", v, expected);
        if (r < 0) {
                strv_free(l.v);
                return r;
        }
        strv_free(*(char ***)field);
        *(char ***)field = l.v;
        return 0;
}

static int item_irq_cpus(const ConfigItem *it, const char *v, void *field, char **ret_msg) {
        IrqConfig *irq = field;
        const char *reason = NULL;
        CpuSet s;
        int r;

        r = cpuset_parse_list(v, &s, &reason);
        if (r >= 0 && cpuset_is_empty(&s)) {
                r = -EINVAL;
                reason = "no CPUs";
        }
        if (r < 0)
                return msgf(ret_msg, "invalid value '%s': %s; expected a CPU list such as 0-3,8", v, reason);
        irq->cpus = s;
        irq->cpus_set = true;
        return 0;
}

static int item_cpuset(const ConfigItem *it, const char *v, void *field, char **ret_msg) {
        const char *reason = NULL;

        if (cpuset_parse_list(v, field, &reason) < 0)
                return msgf(ret_msg, "invalid value '%s': %s; expected a CPU list such as 0-3,8, or none", v, reason);
        return 0;
}

static int parse_mask_mode(const char *v, IrqMaskMode *mode, CpuSet *set, char **ret_msg) {
        static const struct {
                const char *name;
                IrqMaskMode mode;
        } words[] = { { "auto", IRQ_MASK_AUTO }, { "off", IRQ_MASK_OFF }, { "keep", IRQ_MASK_KEEP } };
        const char *reason = NULL;

        for (size_t i = 0; i < ELEMENTSOF(words); i++)
                if (streq(v, words[i].name)) {
                        *mode = words[i].mode;
                        cpuset_zero(set);
                        return 0;
                }
        if (!isdigit((unsigned char)v[0]))
                reason = "unknown mode"; /* a misspelt word, not a broken CPU list */
        else
                (void)cpuset_parse_list(v, set, &reason);
        if (reason)
                return msgf(ret_msg, "invalid value '%s': %s; expected auto, off, keep or a CPU list such as 0-3,8",
                            v, reason);
        *mode = IRQ_MASK_EXPLICIT;
        return 0;
}

static int item_rps(const ConfigItem *it, const char *v, void *field, char **ret_msg) {
        IrqConfig *irq = field;
        return parse_mask_mode(v, &irq->rps, &irq->rps_cpus, ret_msg);
}

static int item_xps(const ConfigItem *it, const char *v, void *field, char **ret_msg) {
        IrqConfig *irq = field;
        return parse_mask_mode(v, &irq->xps, &irq->xps_cpus, ret_msg);
}

/* ---- the key tables ------------------------------------------------------- */

static const ConfigItem daemon_items[] = {
        { "daemon", "profile", item_profile_ref, offsetof(DaemonConfig, profile) },
        { "daemon", "interval", item_time_ms, offsetof(DaemonConfig, interval_us), 10000, 60000000 },
        { "daemon", "rollback", item_rollback, offsetof(DaemonConfig, rollback) },
        { "daemon", "dry-run", item_bool, offsetof(DaemonConfig, dry_run) },
        { "daemon", "state-dir", item_abs_path, offsetof(DaemonConfig, state_dir) },
        {}
};

#define PA(f) offsetof(Profile, adaptive.f)
#define PI(f) offsetof(Profile, irq.f)
static const ConfigItem profile_items[] = {
        { "profile", "description", item_text, offsetof(Profile, description), 0, 200 },
        { "profile", "include", item_profile_ref, NO_FIELD },
        { "adaptive", "enabled", item_bool, PA(enabled) },
        { "adaptive", "runqueue-threshold", item_milli, PA(runqueue_threshold_milli), 1, 1000000 },
        { "adaptive", "hold", item_count_uint, PA(hold), 1, 100 },
        { "adaptive", "min-dwell", item_time_ms, PA(min_dwell_us), 0, UINT64_C(3600000000) },
        { "adaptive", "busy-poll-floor", item_time_us, PA(busy_poll_floor_us), 0, INT_MAX },
        { "adaptive", "squeeze-threshold", item_count, PA(squeeze_threshold), 1, 1000000000 },
        { "adaptive", "budget-step", item_percent, PA(budget_step_percent), 1, 100 },
        { "adaptive", "netdev-budget-max", item_count, PA(netdev_budget_max), 1, INT_MAX },
        { "adaptive", "netdev-budget-time-max", item_time_us, PA(netdev_budget_time_max_us), 1, INT_MAX },
        { "adaptive", "softirq-budget-max", item_time_us, PA(softirq_budget_max_us), 100, 100000 },
        { "adaptive", "quiet-period", item_time_ms, PA(quiet_period_us), 1000000, UINT64_C(3600000000) },
        { "irq", "devices", item_devices, PI(devices) },
        { "irq", "strategy", item_strategy, PI(strategy) },
        { "irq", "cpus", item_irq_cpus, offsetof(Profile, irq) },
        { "irq", "exclude-cpus", item_cpuset, PI(exclude_cpus) },
        { "irq", "rps", item_rps, offsetof(Profile, irq) },
        { "irq", "xps", item_xps, offsetof(Profile, irq) },
        {}
};

static const ConfigItem *find_item(const ConfigItem *items, const char *section, const char *key) {
        for (; items->section; items++)
                if (streq(items->section, section) && streq(items->key, key))
                        return items;
        return NULL;
}

/* "a, b, c": the keys a section accepts, for the unknown-key message. */
static char *item_keys(const ConfigItem *items, const char *section) {
        char *s = NULL, *n;

        for (; items->section; items++) {
                if (!streq(items->section, section))
                        continue;
                if (asprintf(&n, "%s%s%s", strempty(s), s ? ", " : "", items->key) < 0) {
                        free(s);
                        return NULL;
                }
                free(s);
                s = n;
        }
        return s ?: strdup("");
}

static void *field_of(const ConfigItem *it, void *target) {
        return it->offset == NO_FIELD ? NULL : (uint8_t *)target + it->offset;
}

/* ---- one file through libinih ----------------------------------------------- */

/* One key as read from a file: validated, with its origin. */
typedef struct Entry {
        const ConfigItem *item; /* NULL for a [knobs] entry */
        const char *section;    /* static: the table's, or "knobs" */
        char *key;              /* the table's key, or the canonical knob reference */
        char *value;
        char *file;
        unsigned line;
        bool valid;
        KnobRef ref;
        KnobValue kv;
} Entry;

typedef struct EntryList {
        Entry *v;
        size_t n;
} EntryList;

static void entry_done(Entry *e) {
        free(e->key);
        free(e->value);
        free(e->file);
        *e = (Entry){};
}

static void entry_list_done(EntryList *l) {
        for (size_t i = 0; i < l->n; i++)
                entry_done(&l->v[i]);
        free(l->v);
        *l = (EntryList){};
}

static Entry *entry_list_find(const EntryList *l, const char *section, const char *key) {
        for (size_t i = 0; i < l->n; i++)
                if (l->v[i].key && streq(l->v[i].section, section) && streq(l->v[i].key, key))
                        return &l->v[i];
        return NULL;
}

/* Moves *e into l (also on failure, where it is freed). */
static int entry_list_add(EntryList *l, Entry *e) {
        Entry *v = realloc(l->v, (l->n + 1) * sizeof(Entry));

        if (!v) {
                entry_done(e);
                return -ENOMEM;
        }
        v[l->n++] = *e;
        l->v = v;
        *e = (Entry){};
        return 0;
}

typedef struct FileSpec {
        const ConfigItem *items;
        const char *const *sections;
        const char *sections_text; /* for the unknown-section message */
        bool knobs;                /* [knobs] takes knob references as keys */
} FileSpec;

typedef struct Parser {
        const FileSpec *spec;
        const char *file;
        FILE *f;
        char *buf;
        size_t size;
        unsigned line;      /* of the line inih is working on */
        bool in_section;    /* a [header] was seen */
        bool section_known; /* ...and it named a known section */
        void *target;
        EntryList *entries;
        Strv *errors;
        int r; /* first read or allocation failure */
} Parser;

/* Where inih's line scanner stops: at one of chars, or at a ';' comment after whitespace. */
static const char *find_chars_or_comment(const char *s, const char *chars) {
        bool was_space = false;

        for (; *s && !strchr(chars, *s) && !(was_space && *s == ';'); s++)
                was_space = isspace((unsigned char)*s);
        return s;
}

/* Mirrors inih's view of a line to report every bad line (inih returns only the first); "" hides it from inih. */
static const char *classify_line(Parser *p, const char *s) {
        const char *end;
        char *name;
        int r;

        if (!*s || *s == ';' || *s == '#')
                return s;
        if (*s == '[') {
                end = find_chars_or_comment(s + 1, "]");
                if (*end != ']')
                        goto syntax;
                name = strndup(s + 1, (size_t)(end - s - 1));
                if (!name) {
                        p->r = -ENOMEM;
                        return "";
                }
                p->in_section = true;
                p->section_known = strv_has((char *const *)p->spec->sections, name);
                r = p->section_known ? 0
                                     : push_error(p->errors, p->file, p->line, name, NULL,
                                                  "unknown section (expected %s)", p->spec->sections_text);
                free(name);
                if (r < 0)
                        p->r = r;
                return s;
        }
        end = find_chars_or_comment(s, "=:");
        if (*end == '=' || *end == ':')
                return s;
syntax:
        r = push_error(p->errors, p->file, p->line, NULL, NULL, "expected 'key = value' or '[section]'");
        if (r < 0)
                p->r = r;
        return "";
}

/* inih's fgets-style reader: counts lines, refuses long ones, and strips indentation so it is never a continuation. */
static char *reader(char *str, int num, void *stream) {
        Parser *p = stream;
        const char *s;
        ssize_t n;
        int r = 0;

        if (p->r < 0)
                return NULL;
        errno = 0;
        n = getline(&p->buf, &p->size, p->f);
        if (n < 0) {
                if (ferror(p->f))
                        p->r = negative_errno();
                return NULL;
        }
        p->line++;
        if (n > 0 && p->buf[n - 1] == '\n')
                p->buf[--n] = '\0';
        if (n > 0 && p->buf[n - 1] == '\r')
                p->buf[--n] = '\0';
        s = p->buf;
        if (p->line == 1 && startswith(s, "\xEF\xBB\xBF"))
                s += 3;
        while (isspace((unsigned char)*s))
                s++;
        if (n >= CONF_LINE_MAX || strlen(s) + 1 > (size_t)num) {
                r = push_error(p->errors, p->file, p->line, NULL, NULL, "line too long (at most %d characters)",
                               CONF_LINE_MAX - 1);
                s = "";
        } else if (strlen(p->buf) != (size_t)n) {
                r = push_error(p->errors, p->file, p->line, NULL, NULL, "line contains a NUL character");
                s = "";
        } else
                s = classify_line(p, s);
        if (r < 0)
                p->r = r;
        memmove(str, s, strlen(s) + 1);
        return str;
}

static int handle_key(Parser *p, const char *section, const char *name, const char *value) {
        _cleanup_(freep) char *msg = NULL;
        const char *reason = "";
        Entry e = { .line = p->line };
        const Entry *first;
        char buf[64];
        int r;

        if (!p->in_section)
                return push_error(p->errors, p->file, p->line, NULL, name, "key before the first [section] header");
        if (!p->section_known)
                return 0; /* the header was reported already */
        if (p->spec->knobs && streq(section, "knobs")) {
                r = knob_ref_parse(name, &e.ref, &reason);
                if (r == -ENOENT)
                        return push_error(p->errors, p->file, p->line, section, name,
                                          "unknown knob (see `netpollctl list`)");
                if (r < 0) /* knob.c's reasons read as "<knob> is per device: ..." */
                        return push_error(p->errors, p->file, p->line, section, name, "%s%s",
                                          startswith(reason, "is ") ? "knob " : "", reason);
                e.section = "knobs";
                e.key = strdup(knob_ref_format(&e.ref, buf, sizeof(buf)));
        } else {
                e.item = find_item(p->spec->items, section, name);
                if (!e.item) {
                        msg = item_keys(p->spec->items, section);
                        if (!msg)
                                return -ENOMEM;
                        return push_error(p->errors, p->file, p->line, section, name,
                                          "unknown key (expected one of: %s)", msg);
                }
                e.section = e.item->section;
                e.key = strdup(e.item->key);
        }
        if (!e.key)
                return -ENOMEM;
        first = entry_list_find(p->entries, e.section, e.key);
        if (first) {
                r = push_error(p->errors, p->file, p->line, section, name, "set twice (first on line %u)", first->line);
                entry_done(&e);
                return r;
        }
        if (e.item)
                r = e.item->parse(e.item, value, field_of(e.item, p->target), &msg);
        else if ((r = knob_parse_value(e.ref.desc, value, &e.kv, &reason)) < 0) {
                _cleanup_(freep) char *expected = knob_expected(e.ref.desc);
                r = expected ? msgf(&msg, "invalid value '%s': %s; expected %s", value, reason, expected) : -ENOMEM;
        }
        if (r == -EINVAL)
                r = push_error(p->errors, p->file, p->line, section, name, "%s", msg);
        else
                e.valid = r >= 0;
        e.value = strdup(value);
        e.file = strdup(p->file);
        if (r < 0 || !e.value || !e.file) {
                entry_done(&e);
                return r < 0 ? r : -ENOMEM;
        }
        return entry_list_add(p->entries, &e);
}

static int handler(void *user, const char *section, const char *name, const char *value) {
        Parser *p = user;
        int r;

        /* NULLs come only from inih build options (new-section calls, no-value keys) this code does not use. */
        if (!name || !value)
                return 1;
        if (p->r >= 0 && (r = handle_key(p, section, name, value)) < 0)
                p->r = r;
        return 1; /* every problem is collected by us; inih's own error return is for syntax only */
}

/*
 * Parses file into target and appends its keys to entries; problems go to
 * errors. Returns the fopen() errno without reporting it (the caller knows
 * how to word it), -ENOMEM, or 0.
 */
static int conf_parse_file(const FileSpec *spec, const char *file, void *target, EntryList *entries, Strv *errors) {
        Parser p = { .spec = spec, .file = file, .target = target, .entries = entries, .errors = errors };
        int r;

        p.f = fopen(file, "re");
        if (!p.f)
                return negative_errno();
        r = ini_parse_stream(reader, &p, handler, &p);
        fclose(p.f);
        free(p.buf);
        if (p.r == -ENOMEM || r == -2)
                return -ENOMEM;
        if (p.r < 0)
                return push_error(errors, file, 0, NULL, NULL, "cannot read: %s", strerror(-p.r));
        if (r > 0) /* a line classify_line() let through; not expected, but never lose it */
                return push_error(errors, file, (unsigned)r, NULL, NULL, "expected 'key = value' or '[section]'");
        return 0;
}

/* ---- netpolld.conf --------------------------------------------------------- */

static const char *const rollback_names[] = {
        [ROLLBACK_AUTO] = "auto",
        [ROLLBACK_NOT_ON_EXIT] = "not-on-exit",
};

const char *rollback_to_string(Rollback r) {
        return (unsigned)r < ELEMENTSOF(rollback_names) ? rollback_names[r] : NULL;
}

bool rollback_from_string(const char *s, Rollback *ret) {
        for (size_t i = 0; i < ELEMENTSOF(rollback_names); i++)
                if (streq(s, rollback_names[i])) {
                        *ret = (Rollback)i;
                        return true;
                }
        return false;
}

char *policy_format_usec(char *buf, size_t size, uint64_t usec) {
        if (usec > 0 && usec % 1000000 == 0)
                return format_time(buf, size, usec / 1000000, NSEC_PER_SEC);
        if (usec > 0 && usec % 1000 == 0)
                return format_time(buf, size, usec / 1000, NSEC_PER_MSEC);
        return format_time(buf, size, usec, NSEC_PER_USEC);
}

static const char *const daemon_sections[] = { "daemon", NULL };
static const FileSpec daemon_spec = { daemon_items, daemon_sections, "[daemon]", false };

DaemonConfig *config_free(DaemonConfig *c) {
        if (!c)
                return NULL;
        free(c->path);
        free(c->profile);
        free(c->state_dir);
        free(c);
        return NULL;
}

int config_load(DaemonConfig **ret, const char *path, char ***ret_errors) {
        _cleanup_(config_freep) DaemonConfig *c = NULL;
        const char *file = path ?: NETPOLLD_CONF_FILE;
        EntryList entries = {};
        Strv errors = {};
        int r;

        c = calloc(1, sizeof(DaemonConfig));
        if (!c)
                return -ENOMEM;
        *c = (DaemonConfig){ .profile = strdup(DEFAULT_PROFILE), .interval_us = DEFAULT_INTERVAL_USEC,
                             .rollback = ROLLBACK_AUTO, .state_dir = strdup(DEFAULT_STATE_DIR) };
        if (!c->profile || !c->state_dir)
                return -ENOMEM;
        r = conf_parse_file(&daemon_spec, file, c, &entries, &errors);
        entry_list_done(&entries);
        if (r == -ENOENT && !path)
                r = 0; /* no file is the documented way to run with the defaults */
        else if (r < 0 && r != -ENOMEM)
                r = push_error(&errors, file, 0, NULL, NULL, "cannot open: %s", strerror(-r)) ?: r;
        else if (r >= 0 && errors.n > 0)
                r = -EINVAL;
        else if (r >= 0 && !(c->path = strdup(file)))
                r = -ENOMEM;
        if (r < 0) {
                if (ret_errors && r != -ENOMEM)
                        *ret_errors = TAKE_PTR(errors.v);
                strv_free(errors.v);
                return r;
        }
        *ret = TAKE_PTR(c);
        if (ret_errors)
                *ret_errors = NULL;
        return 0;
}

/* ---- finding profiles ---------------------------------------------------------- */

bool profile_name_valid(const char *name) {
        if (!name || !*name || *name == '.' || strlen(name) > 64)
                return false;
        for (const char *p = name; *p; p++)
                if (!(isascii((unsigned char)*p) && isalnum((unsigned char)*p)) && !strchr("_.-", *p))
                        return false;
        return true;
}

/* The i-th profile directory: dirs first, then the defaults; NULL after the last. */
static const char *search_dir(char *const *dirs, size_t i) {
        size_t n = 0;

        while (dirs && dirs[n])
                n++;
        return i < n ? dirs[i] : profile_default_dirs[i - n];
}

/* 0 for a regular file (symlinks followed), else a negative errno. */
static int regular_file(const char *path) {
        struct stat st;

        if (stat(path, &st) < 0)
                return negative_errno();
        if (S_ISDIR(st.st_mode))
                return -EISDIR;
        return S_ISREG(st.st_mode) ? 0 : -EINVAL;
}

int profile_find(const char *name_or_path, char *const *dirs, char **ret_path) {
        const char *d;
        char *p;
        int r;

        if (!name_or_path)
                return -EINVAL;
        if (strchr(name_or_path, '/')) {
                r = regular_file(name_or_path);
                if (r < 0)
                        return r;
                p = strdup(name_or_path);
                if (!p)
                        return -ENOMEM;
                *ret_path = p;
                return 0;
        }
        if (!profile_name_valid(name_or_path))
                return -EINVAL;
        for (size_t i = 0; (d = search_dir(dirs, i)); i++) {
                if (!*d)
                        continue;
                if (asprintf(&p, "%s/%s.conf", d, name_or_path) < 0)
                        return -ENOMEM;
                if (regular_file(p) == 0) {
                        *ret_path = p;
                        return 0;
                }
                free(p);
        }
        return -ENOENT;
}

/* "dir1, dir2, ...", for not-found messages. */
static char *search_text(char *const *dirs) {
        char *s = NULL, *n;
        const char *d;

        for (size_t i = 0; (d = search_dir(dirs, i)); i++) {
                if (!*d)
                        continue;
                if (asprintf(&n, "%s%s%s", strempty(s), s ? ", " : "", d) < 0) {
                        free(s);
                        return NULL;
                }
                free(s);
                s = n;
        }
        return s ?: strdup("");
}

static int list_dir(const char *dir, Strv *names) {
        DIR *dp = opendir(dir);
        struct dirent *de;
        int r = 0;

        if (!dp)
                return errno == ENOENT || errno == ENOTDIR ? 0 : negative_errno();
        while (r >= 0 && (de = readdir(dp))) {
                size_t n = strlen(de->d_name);
                struct stat st;
                char *stem;

                if (n <= 5 || !streq(de->d_name + n - 5, ".conf"))
                        continue;
                stem = strndup(de->d_name, n - 5);
                if (!stem)
                        r = -ENOMEM;
                /* Only what profile_find() would find: valid names of regular files. */
                else if (!profile_name_valid(stem) || strv_has(names->v, stem) ||
                         fstatat(dirfd(dp), de->d_name, &st, 0) < 0 || !S_ISREG(st.st_mode))
                        free(stem);
                else
                        r = strv_push(names, stem);
        }
        closedir(dp);
        return r;
}

static int cmp_str(const void *a, const void *b) {
        return strcmp(*(char *const *)a, *(char *const *)b);
}

int profile_list(char *const *dirs, char ***ret) {
        Strv names = {};
        const char *d;
        int r = 0;

        for (size_t i = 0; r >= 0 && (d = search_dir(dirs, i)); i++)
                if (*d)
                        r = list_dir(d, &names);
        if (r >= 0 && !names.v && !(names.v = calloc(1, sizeof(char *))))
                r = -ENOMEM;
        if (r < 0) {
                strv_free(names.v);
                return r;
        }
        qsort(names.v, names.n, sizeof(char *), cmp_str);
        *ret = names.v;
        return 0;
}

/* ---- loading profiles --------------------------------------------------------- */

static const char *const profile_sections[] = { "profile", "knobs", "adaptive", "irq", NULL };
static const FileSpec profile_spec = { profile_items, profile_sections, "[profile], [knobs], [adaptive] or [irq]",
                                       true };

static Profile *profile_new_defaults(void) {
        Profile *p = calloc(1, sizeof(Profile));

        if (!p)
                return NULL;
        p->adaptive = (AdaptiveConfig){
                .runqueue_threshold_milli = 1000,
                .hold = 3,
                .min_dwell_us = 1000000,
                .squeeze_threshold = 100,
                .budget_step_percent = 25,
                .quiet_period_us = 10000000,
        };
        p->irq.strategy = IRQ_STRATEGY_SPREAD;
        p->irq.rps = p->irq.xps = IRQ_MASK_AUTO;
        return p;
}

Profile *profile_free(Profile *p) {
        if (!p)
                return NULL;
        free(p->name);
        free(p->path);
        free(p->description);
        strv_free(p->chain);
        for (size_t i = 0; i < p->n_knobs; i++)
                free(p->knobs[i].origin.file);
        free(p->knobs);
        for (size_t i = 0; i < p->n_settings; i++) {
                free(p->settings[i].section);
                free(p->settings[i].key);
                free(p->settings[i].value);
                free(p->settings[i].origin.file);
        }
        free(p->settings);
        strv_free(p->irq.devices);
        free(p);
        return NULL;
}

/* A file with everything it includes, merged. */
typedef struct Layer {
        EntryList entries; /* [knobs], [adaptive] and [irq]; parent's first, child wins */
        char *description;
        Strv chain; /* this file, then its parent's chain */
} Layer;

static void layer_done(Layer *l) {
        entry_list_done(&l->entries);
        free(l->description);
        strv_free(l->chain.v);
        *l = (Layer){};
}

typedef struct Loader {
        char *const *dirs;
        Strv *errors;
        Strv stack; /* realpath() of the files being loaded, outermost first */
        Strv shown; /* the same files as found, for messages */
} Loader;

static int load_layer(Loader *l, const char *path, unsigned depth, Layer *ret);

static int follow_include(Loader *l, const char *from, const Entry *inc, unsigned depth, Layer *ret) {
        _cleanup_(freep) char *joined = NULL, *target = NULL, *canon = NULL, *msg = NULL;
        const char *want = inc->value, *slash;
        int r;

#define INC_ERROR(...) push_error(l->errors, inc->file, inc->line, "profile", "include", __VA_ARGS__)
        if (depth >= MAX_INCLUDE_DEPTH)
                return INC_ERROR("include chain deeper than %d levels", MAX_INCLUDE_DEPTH);
        if (strchr(want, '/') && want[0] != '/') {
                /* Relative to the including file, not to wherever the daemon was started. */
                while (startswith(want, "./"))
                        want += 2;
                slash = strrchr(from, '/');
                if (asprintf(&joined, "%.*s%s", slash ? (int)(slash - from + 1) : 2, slash ? from : "./", want) < 0)
                        return -ENOMEM;
                want = joined;
        }
        r = profile_find(want, l->dirs, &target);
        if (r == -ENOENT && !strchr(want, '/')) {
                msg = search_text(l->dirs);
                return msg ? INC_ERROR("profile '%s' not found (searched: %s)", want, msg) : -ENOMEM;
        }
        if (r < 0)
                return r == -ENOMEM ? r : INC_ERROR("cannot open %s: %s", want, strerror(-r));
        canon = realpath(target, NULL);
        if (!canon)
                return errno == ENOMEM ? -ENOMEM : INC_ERROR("cannot open %s: %s", target, strerror(errno));
        for (size_t i = 0; i < l->stack.n; i++) {
                if (!streq(l->stack.v[i], canon))
                        continue;
                /* Name the loop from its first file: "a.conf -> b.conf -> a.conf". */
                for (size_t j = i; j < l->stack.n; j++) {
                        char *n = NULL;
                        if (asprintf(&n, "%s%s -> ", strempty(msg), l->shown.v[j]) < 0)
                                return -ENOMEM;
                        free(msg);
                        msg = n;
                }
                return INC_ERROR("include cycle: %s%s", msg, target);
        }
        if ((r = strv_push(&l->stack, TAKE_PTR(canon))) < 0 || (r = strv_push(&l->shown, strdup(target))) < 0)
                return r;
        r = load_layer(l, target, depth + 1, ret);
        free(l->stack.v[--l->stack.n]);
        l->stack.v[l->stack.n] = NULL;
        free(l->shown.v[--l->shown.n]);
        l->shown.v[l->shown.n] = NULL;
        if (r < 0 && r != -ENOMEM)
                return INC_ERROR("cannot open %s: %s", target, strerror(-r));
        return r;
#undef INC_ERROR
}

/* Loads path and its parents into *ret. Returns fopen()'s errno for path itself unreported, -ENOMEM or 0. */
static int load_layer(Loader *l, const char *path, unsigned depth, Layer *ret) {
        _cleanup_(profile_freep) Profile *scratch = profile_new_defaults();
        const Entry *inc, *desc;
        EntryList own = {};
        Layer layer = {}, parent = {};
        int r;

        if (!scratch)
                return -ENOMEM;
        r = conf_parse_file(&profile_spec, path, scratch, &own, l->errors);
        if (r < 0)
                goto finish;
        inc = entry_list_find(&own, "profile", "include");
        if (inc && inc->valid && (r = follow_include(l, path, inc, depth, &parent)) < 0)
                goto finish;

        layer.entries = parent.entries;
        parent.entries = (EntryList){};
        for (size_t i = 0; i < own.n && r >= 0; i++) {
                Entry *e = &own.v[i], *old;
                if (streq(e->section, "profile"))
                        continue;
                old = entry_list_find(&layer.entries, e->section, e->key);
                if (old) {
                        /* The key keeps the position where a parent first set it. */
                        entry_done(old);
                        *old = *e;
                        *e = (Entry){};
                } else
                        r = entry_list_add(&layer.entries, e);
        }
        desc = entry_list_find(&own, "profile", "description");
        if (desc && desc->valid && desc->value[0])
                layer.description = strdup(desc->value);
        else
                layer.description = TAKE_PTR(parent.description) ?: strdup("");
        if (r >= 0 && !layer.description)
                r = -ENOMEM;
        if (r >= 0)
                r = strv_push(&layer.chain, strdup(path));
        for (size_t i = 0; r >= 0 && i < parent.chain.n; i++)
                r = strv_push(&layer.chain, TAKE_PTR(parent.chain.v[i]));
        if (r >= 0) {
                *ret = layer;
                layer = (Layer){};
        }
finish:
        entry_list_done(&own);
        layer_done(&layer);
        layer_done(&parent);
        return r;
}

static int profile_add_knob(Profile *p, const Entry *e) {
        ProfileKnob *v = realloc(p->knobs, (p->n_knobs + 1) * sizeof(ProfileKnob));
        char *file;

        if (!v)
                return -ENOMEM;
        p->knobs = v;
        file = strdup(e->file);
        if (!file)
                return -ENOMEM;
        v[p->n_knobs++] = (ProfileKnob){ .ref = e->ref, .value = e->kv, .origin = { file, e->line } };
        return 0;
}

static int profile_add_setting(Profile *p, const Entry *e) {
        ProfileSetting *v = realloc(p->settings, (p->n_settings + 1) * sizeof(ProfileSetting));
        ProfileSetting s = {
                .section = strdup(e->section),
                .key = strdup(e->key),
                .value = strdup(e->value),
                .origin = { strdup(e->file), e->line },
        };

        if (v)
                p->settings = v;
        if (!v || !s.section || !s.key || !s.value || !s.origin.file) {
                free(s.section);
                free(s.key);
                free(s.value);
                free(s.origin.file);
                return -ENOMEM;
        }
        v[p->n_settings++] = s;
        return 0;
}

/* A knob's profile value in microseconds (times) or its own unit (counts), for the cross-checks. */
static const ProfileKnob *knob_in_profile(const Profile *p, const char *name, uint64_t *ret) {
        KnobRef ref = { .desc = knob_find(name) };
        const ProfileKnob *k = ref.desc ? profile_get_knob(p, &ref) : NULL;

        if (k)
                *ret = ref.desc->type == KNOB_TIME ? k->value.num * ref.desc->unit_ns / NSEC_PER_USEC : k->value.num;
        return k;
}

/* An [adaptive] bound against the profile's static [knobs] value: below is an error (above when !is_max). */
static int check_bound(const Profile *p, const EntryList *l, const char *key, uint64_t bound, const char *knob,
                       bool is_max, Strv *errors) {
        const Entry *e = entry_list_find(l, "adaptive", key);
        _cleanup_(freep) char *v = NULL;
        const ProfileKnob *k;
        uint64_t kv;

        if (!e || !(k = knob_in_profile(p, knob, &kv)) || (is_max ? bound >= kv : bound <= kv))
                return 0;
        v = knob_format_value(k->ref.desc, &k->value);
        if (!v)
                return -ENOMEM;
        return push_error(errors, e->file, e->line, "adaptive", key, "%s is %s the profile's %s of %s (%s:%u); "
                          "expected at %s %s", e->value, is_max ? "below" : "above", knob, v, k->origin.file,
                          k->origin.line, is_max ? "least" : "most", v);
}

static int profile_check(const Profile *p, const EntryList *l, Strv *errors) {
        const AdaptiveConfig *a = &p->adaptive;
        const Entry *strategy;
        int r = 0;

        if (!entry_list_find(l, "irq", "devices")) {
                for (size_t i = 0; i < l->n && r >= 0; i++)
                        if (streq(l->v[i].section, "irq"))
                                r = push_error(errors, l->v[i].file, l->v[i].line, "irq", l->v[i].key,
                                               "has no effect without devices=");
        } else if (p->irq.strategy == IRQ_STRATEGY_CPUS && !p->irq.cpus_set &&
                   (strategy = entry_list_find(l, "irq", "strategy")))
                r = push_error(errors, strategy->file, strategy->line, "irq", "strategy",
                               "strategy cpus needs cpus= (the CPUs to place IRQs on)");
        if (r >= 0)
                r = check_bound(p, l, "netdev-budget-max", a->netdev_budget_max, "netdev-budget", true, errors);
        if (r >= 0)
                r = check_bound(p, l, "netdev-budget-time-max", a->netdev_budget_time_max_us, "netdev-budget-time",
                                true, errors);
        if (r >= 0)
                r = check_bound(p, l, "softirq-budget-max", a->softirq_budget_max_us, "softirq-budget", true, errors);
        if (r >= 0)
                r = check_bound(p, l, "busy-poll-floor", a->busy_poll_floor_us, "busy-read", false, errors);
        if (r >= 0)
                r = check_bound(p, l, "busy-poll-floor", a->busy_poll_floor_us, "busy-poll", false, errors);
        return r;
}

/* The file stem: "/x/latency.conf" -> "latency". */
static char *path_stem(const char *path) {
        const char *b = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
        size_t n = strlen(b);

        return strndup(b, n > 5 && streq(b + n - 5, ".conf") ? n - 5 : n);
}

static int profile_build(Profile **ret, const char *name_or_path, const char *path, Layer *layer, Strv *errors) {
        _cleanup_(profile_freep) Profile *p = profile_new_defaults();
        int r = 0;

        if (!p)
                return -ENOMEM;
        p->name = strchr(name_or_path, '/') ? path_stem(path) : strdup(name_or_path);
        p->path = strdup(path);
        p->description = TAKE_PTR(layer->description);
        p->chain = TAKE_PTR(layer->chain.v);
        if (!p->name || !p->path || !p->description || !p->chain)
                return -ENOMEM;
        for (size_t i = 0; i < layer->entries.n && r >= 0; i++) {
                const Entry *e = &layer->entries.v[i];
                _cleanup_(freep) char *msg = NULL;

                if (!e->item) {
                        r = profile_add_knob(p, e);
                        continue;
                }
                /* Validated when read; the table applies it again to the merged result. */
                r = e->item->parse(e->item, e->value, field_of(e->item, p), &msg);
                if (r == -EINVAL)
                        r = push_error(errors, e->file, e->line, e->section, e->key, "%s", msg);
                if (r >= 0)
                        r = profile_add_setting(p, e);
        }
        if (r >= 0)
                r = profile_check(p, &layer->entries, errors);
        if (r >= 0 && errors->n == 0)
                *ret = TAKE_PTR(p);
        return r;
}

int profile_load(Profile **ret, const char *name_or_path, char *const *dirs, char ***ret_errors) {
        _cleanup_(freep) char *path = NULL, *canon = NULL, *msg = NULL;
        Profile *p = NULL;
        Strv errors = {};
        Loader l = { .dirs = dirs, .errors = &errors };
        Layer layer = {};
        int r;

        if (!name_or_path)
                return -EINVAL;
        r = profile_find(name_or_path, dirs, &path);
        if (r == -EINVAL && !strchr(name_or_path, '/'))
                r = strv_pushf(&errors, "invalid profile name '%s': expected letters, digits, '_', '.' or '-' (at "
                               "most 64 characters, not starting with '.'), or a path containing '/'",
                               name_or_path) ?: -EINVAL;
        else if (r == -ENOENT && !strchr(name_or_path, '/'))
                r = (msg = search_text(dirs)) ? strv_pushf(&errors, "profile '%s' not found (searched: %s)",
                                                           name_or_path, msg) ?: -ENOENT : -ENOMEM;
        else if (r < 0 && r != -ENOMEM)
                r = push_error(&errors, name_or_path, 0, NULL, NULL, "cannot open: %s", strerror(-r)) ?: r;
        if (r < 0)
                goto finish;

        canon = realpath(path, NULL);
        if (!canon) {
                r = errno == ENOMEM ? -ENOMEM : negative_errno();
                r = r == -ENOMEM ? r : push_error(&errors, path, 0, NULL, NULL, "cannot open: %s", strerror(-r)) ?: r;
                goto finish;
        }
        if ((r = strv_push(&l.stack, TAKE_PTR(canon))) < 0 || (r = strv_push(&l.shown, strdup(path))) < 0)
                goto finish;
        r = load_layer(&l, path, 0, &layer);
        if (r < 0 && r != -ENOMEM)
                r = push_error(&errors, path, 0, NULL, NULL, "cannot open: %s", strerror(-r)) ?: r;
        if (r >= 0 && errors.n == 0)
                r = profile_build(&p, name_or_path, path, &layer, &errors);
        if (r >= 0 && errors.n > 0)
                r = -EINVAL;
finish:
        layer_done(&layer);
        strv_free(l.stack.v);
        strv_free(l.shown.v);
        if (r < 0) {
                if (ret_errors && r != -ENOMEM)
                        *ret_errors = TAKE_PTR(errors.v);
                strv_free(errors.v);
                return r;
        }
        strv_free(errors.v);
        *ret = p;
        if (ret_errors)
                *ret_errors = NULL;
        return 0;
}

const ProfileKnob *profile_get_knob(const Profile *p, const KnobRef *ref) {
        if (!p || !ref)
                return NULL;
        for (size_t i = 0; i < p->n_knobs; i++)
                if (p->knobs[i].ref.desc == ref->desc && streq(p->knobs[i].ref.device, ref->device))
                        return &p->knobs[i];
        return NULL;
}
