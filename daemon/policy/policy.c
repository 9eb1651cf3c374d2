/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * policy.c: what netpolld.conf and profile files may say. The key tables
 * ({section, key, parser, offset, min, max}) of both files, the value
 * parsers only they use, the defaults (a new Profile, a new DaemonConfig)
 * and netpolld.conf itself; conf-parser.c reads the files and profile.c
 * finds, loads and merges profiles.
 */
#include "policy.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "conf-parser.h"
#include "macro.h"
#include "strv.h"

/* ---- value parsers of these files only ----------------------------------------- */

int policy_parse_profile_ref(const ConfigItem *it, const char *v, void *field, char **ret_msg) {
        if (!profile_name_valid(v) && !strchr(v, '/'))
                return conf_msgf(ret_msg,
                                 "invalid value '%s': not a profile name; expected a name of letters, digits, '_', "
                                 "'.' or '-' (at most 64 characters, not starting with '.') or a path containing '/'",
                                 v);
        return field ? conf_set_string(field, v) : 0;
}

static int item_abs_path(const ConfigItem *it, const char *v, void *field, char **ret_msg) {
        if (v[0] != '/')
                return conf_msgf(ret_msg, "invalid value '%s': not an absolute path; expected a directory such as %s",
                                 v, DEFAULT_STATE_DIR);
        return conf_set_string(field, v);
}

/* Empty is off; else an absolute file path in an existing directory (the temporary file goes beside it). */
static bool has_suffix(const char *s, const char *suffix) {
        size_t a = strlen(s), b = strlen(suffix);
        return a >= b && streq(s + a - b, suffix);
}

static int item_metrics_file(const ConfigItem *it, const char *v, void *field, char **ret_msg) {
        _cleanup_(freep) char *dir = NULL;
        struct stat st;
        char *slash;

        if (v[0] == '\0') {
                free(*(char **)field);
                *(char **)field = NULL;
                return 0;
        }
        if (v[0] != '/' || has_suffix(v, "/") || has_suffix(v, "/.") || has_suffix(v, "/.."))
                return conf_msgf(ret_msg, "invalid value '%s': expected the absolute path of a file, such as "
                                 "/var/lib/prometheus/node-exporter/netpolld.prom, or nothing (off)", v);
        dir = strdup(v);
        if (!dir)
                return -ENOMEM;
        slash = strrchr(dir, '/');
        slash[slash == dir ? 1 : 0] = '\0';
        if (stat(dir, &st) < 0 || !S_ISDIR(st.st_mode))
                return conf_msgf(ret_msg, "invalid value '%s': directory %s does not exist", v, dir);
        return conf_set_string(field, v);
}

static int item_rollback(const ConfigItem *it, const char *v, void *field, char **ret_msg) {
        if (!rollback_from_string(v, field))
                return conf_msgf(ret_msg, "invalid value '%s'; expected auto or not-on-exit", v);
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
        return conf_msgf(ret_msg, "invalid value '%s'; expected spread, pack or cpus", v);
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
        _cleanup_(strv_freep) char **l = NULL;
        int r = 0;

        for (const char *p = v + strspn(v, " \t"); *p && r >= 0; p += strspn(p, " \t")) {
                size_t n = strcspn(p, " \t");
                if (!device_pattern_valid(p, n))
                        r = conf_msgf(ret_msg, "invalid value '%s': '%.*s' is not an interface name or pattern; %s",
                                      v, (int)n, p, expected);
                else
                        r = strv_extendf(&l, "%.*s", (int)n, p);
                p += n;
        }
        if (r >= 0 && !l)
                r = conf_msgf(ret_msg, "invalid value '%s': no interfaces; %s", v, expected);
        if (r < 0)
                return r;
        strv_free(*(char ***)field);
        *(char ***)field = TAKE_PTR(l);
        return 0;
}

/* "all" (the default: every CPU, kept as the empty set) or a non-empty CPU list. */
static int item_poll_cpus(const ConfigItem *it, const char *v, void *field, char **ret_msg) {
        const char *reason = NULL;
        CpuSet s;
        int r;

        if (streq(v, "all")) {
                cpuset_zero(field);
                return 0;
        }
        r = cpuset_parse_list(v, &s, &reason);
        if (r >= 0 && cpuset_is_empty(&s)) {
                r = -EINVAL;
                reason = "no CPUs";
        }
        if (r < 0)
                return conf_msgf(ret_msg, "invalid value '%s': %s; expected all or a CPU list such as 2-3,6", v,
                                 reason);
        *(CpuSet *)field = s;
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
                return conf_msgf(ret_msg, "invalid value '%s': %s; expected a CPU list such as 0-3,8", v, reason);
        irq->cpus = s;
        irq->cpus_set = true;
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
                return conf_msgf(ret_msg,
                                 "invalid value '%s': %s; expected auto, off, keep or a CPU list such as 0-3,8", v,
                                 reason);
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
        { "daemon", "profile", policy_parse_profile_ref, offsetof(DaemonConfig, profile) },
        { "daemon", "interval", conf_parse_time_ms, offsetof(DaemonConfig, interval_us), 10000, 60000000 },
        { "daemon", "rollback", item_rollback, offsetof(DaemonConfig, rollback) },
        { "daemon", "dry-run", conf_parse_bool, offsetof(DaemonConfig, dry_run) },
        { "daemon", "state-dir", item_abs_path, offsetof(DaemonConfig, state_dir) },
        { "daemon", "metrics-file", item_metrics_file, offsetof(DaemonConfig, metrics_file) },
        { "daemon", "rule-scan-interval", conf_parse_time_ms, offsetof(DaemonConfig, rule_scan_us), 100000,
          60000000 },
        {}
};

#define PA(f) offsetof(Profile, adaptive.f)
#define PI(f) offsetof(Profile, irq.f)
static const ConfigItem profile_items[] = {
        { "profile", "description", conf_parse_text, offsetof(Profile, description), 0, 200 },
        { "profile", "include", policy_parse_profile_ref, CONF_NO_FIELD },
        { "adaptive", "enabled", conf_parse_bool, PA(enabled) },
        { "adaptive", "runqueue-threshold", conf_parse_milli, PA(runqueue_threshold_milli), 1, 1000000 },
        { "adaptive", "hold", conf_parse_count_uint, PA(hold), 1, 100 },
        { "adaptive", "min-dwell", conf_parse_time_ms, PA(min_dwell_us), 0, UINT64_C(3600000000) },
        { "adaptive", "busy-poll-floor", conf_parse_time_us, PA(busy_poll_floor_us), 0, INT_MAX },
        { "adaptive", "poll-cpus", item_poll_cpus, PA(poll_cpus) },
        { "adaptive", "pay-window", conf_parse_time_ms, PA(pay_window_us), 0, UINT64_C(3600000000) },
        { "adaptive", "squeeze-threshold", conf_parse_count, PA(squeeze_threshold), 1, 1000000000 },
        { "adaptive", "budget-step", conf_parse_percent, PA(budget_step_percent), 1, 100 },
        { "adaptive", "netdev-budget-max", conf_parse_count, PA(netdev_budget_max), 1, INT_MAX },
        { "adaptive", "netdev-budget-time-max", conf_parse_time_us, PA(netdev_budget_time_max_us), 1, INT_MAX },
        { "adaptive", "softirq-budget-max", conf_parse_time_us, PA(softirq_budget_max_us), 100, 100000 },
        { "adaptive", "quiet-period", conf_parse_time_ms, PA(quiet_period_us), 1000000, UINT64_C(3600000000) },
        { "adaptive", "live-sockets", conf_parse_bool, PA(live_sockets) },
        { "irq", "devices", item_devices, PI(devices) },
        { "irq", "strategy", item_strategy, PI(strategy) },
        { "irq", "cpus", item_irq_cpus, offsetof(Profile, irq) },
        { "irq", "exclude-cpus", conf_parse_cpuset, PI(exclude_cpus) },
        { "irq", "rps", item_rps, offsetof(Profile, irq) },
        { "irq", "xps", item_xps, offsetof(Profile, irq) },
        { "irq", "irqbalance-ban", conf_parse_bool, PI(irqbalance_ban) },
        {}
};
#undef PA
#undef PI

static const char *const daemon_sections[] = { "daemon", NULL };

static const char *const profile_sections[] = { "profile", "knobs", "adaptive", "irq", NULL };
const FileSpec profile_file_spec = { profile_items, profile_sections, "[profile], [knobs], [adaptive] or [irq]",
                                     true };

/* ---- the Profile object ------------------------------------------------------- */

int profile_new(Profile **ret) {
        Profile *p = calloc(1, sizeof(Profile));

        if (!p)
                return -ENOMEM;
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
        *ret = p;
        return 0;
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
        return conf_format_usec(buf, size, usec);
}

DaemonConfig *config_free(DaemonConfig *c) {
        if (!c)
                return NULL;
        free(c->path);
        free(c->profile);
        free(c->state_dir);
        free(c->metrics_file);
        rules_free(c->rules, c->n_rules);
        free(c);
        return NULL;
}

int config_load(DaemonConfig **ret, const char *path, char ***ret_errors) {
        _cleanup_(config_freep) DaemonConfig *c = NULL;
        const char *file = path ?: NETPOLLD_CONF_FILE;
        _cleanup_(strv_freep) char **errors = NULL;
        const FileSpec daemon_spec = {
                .items = daemon_items,
                .sections = daemon_sections,
                .sections_text = "[daemon] or [rule NAME]",
                .named = "rule",
                .named_items = rule_items,
                .open_named = rule_open_section,
                .named_target = rule_section_target,
        };
        EntryList entries = {};
        int r;

        c = calloc(1, sizeof(DaemonConfig));
        if (!c)
                return -ENOMEM;
        *c = (DaemonConfig){ .profile = strdup(DEFAULT_PROFILE), .interval_us = DEFAULT_INTERVAL_USEC,
                             .rollback = ROLLBACK_AUTO, .state_dir = strdup(DEFAULT_STATE_DIR),
                             .rule_scan_us = DEFAULT_RULE_SCAN_USEC };
        if (!c->profile || !c->state_dir)
                return -ENOMEM;
        r = conf_parse_file(&daemon_spec, file, c, &entries, &errors);
        entry_list_done(&entries);
        if (r >= 0)
                r = rules_check(c, &errors);
        if (r == -ENOENT && !path)
                r = 0; /* no file is the documented way to run with the defaults */
        else if (r < 0 && r != -ENOMEM)
                r = conf_push_error(&errors, file, 0, NULL, NULL, "cannot open: %s", strerror(-r)) ?: r;
        else if (r >= 0 && strv_length(errors) > 0)
                r = -EINVAL;
        else if (r >= 0 && !(c->path = strdup(file)))
                r = -ENOMEM;
        r = conf_return_errors(r, TAKE_PTR(errors), ret_errors);
        if (r >= 0)
                *ret = TAKE_PTR(c);
        return r;
}
