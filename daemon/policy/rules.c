/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rules.c: the [rule NAME] sections of netpolld.conf, which switch to a
 * profile while a workload is there (a systemd unit is active, a process
 * runs, a cgroup exists). Headers and keys are checked as they are read;
 * rules_check() then reports what a whole section lacks, at its header's
 * line. Whether a rule matches is decided elsewhere (decisions/rule-eval.h).
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "conf-parser.h"
#include "macro.h"
#include "policy.h"
#include "strv.h"

/* The kernel keeps this much of a process name in /proc/PID/comm (TASK_COMM_LEN - 1). */
#define COMM_MAX 15
#define UNIT_NAME_MAX 255
#define CGROUP_PATH_MAX 180

static const char *const rule_kind_names[] = {
        [RULE_UNIT] = "unit",
        [RULE_PROCESS] = "process",
        [RULE_CGROUP] = "cgroup",
};

const char *rule_kind_to_string(RuleKind k) {
        return (unsigned)k < ELEMENTSOF(rule_kind_names) ? rule_kind_names[k] : NULL;
}

const Rule *config_find_rule(const DaemonConfig *c, const char *name) {
        for (size_t i = 0; c && i < c->n_rules; i++)
                if (streq(c->rules[i].name, name))
                        return &c->rules[i];
        return NULL;
}

void rules_free(Rule *rules, size_t n) {
        for (size_t i = 0; i < n; i++) {
                free(rules[i].name);
                free(rules[i].file);
                free(rules[i].profile);
                free(rules[i].match);
        }
        free(rules);
}

static bool rule_name_valid(const char *s) {
        size_t n = strlen(s);

        if (n == 0 || n > RULE_NAME_MAX || s[0] == '.')
                return false;
        return strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-") == n;
}

int rule_open_section(void *config, const char *name, const char *file, unsigned line, char **ret_msg) {
        DaemonConfig *c = config;
        const Rule *first = config_find_rule(c, name);
        Rule *v;

        if (!rule_name_valid(name))
                return conf_msgf(ret_msg, "invalid rule name '%s'; expected 1 to %d letters, digits, '_', '.' or '-', "
                                 "not starting with '.'", name, RULE_NAME_MAX);
        if (first)
                return conf_msgf(ret_msg, "rule defined twice (first on line %u)", first->line);
        v = realloc(c->rules, (c->n_rules + 1) * sizeof(Rule));
        if (!v)
                return -ENOMEM;
        c->rules = v;
        v = &c->rules[c->n_rules];
        *v = (Rule){ .stop_delay_us = RULE_DEFAULT_STOP_DELAY_USEC, .line = line };
        v->name = strdup(name);
        v->file = strdup(file);
        c->n_rules++; /* counted at once, so that rules_free() frees what was copied */
        return v->name && v->file ? 0 : -ENOMEM;
}

void *rule_section_target(void *config, const char *name) {
        return (void *)config_find_rule(config, name);
}

/* ---- values ---------------------------------------------------------------- */

static bool has_control_or_space(const char *s) {
        for (; *s; s++)
                if ((unsigned char)*s <= ' ' || *s == 0x7f)
                        return true;
        return false;
}

static const char *unit_name_problem(const char *v) {
        static const char *const types[] = { ".service", ".socket", ".target", ".device", ".mount", ".automount",
                                             ".swap", ".timer", ".path", ".slice", ".scope" };
        const char *dot = strrchr(v, '.');
        size_t n = strlen(v);

        if (n > UNIT_NAME_MAX)
                return "longer than 255 characters";
        if (strspn(v, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789:-_.\\@") != n)
                return "a unit name has only letters, digits and ':-_.\\@' (no patterns)";
        if (!dot || dot == v)
                return "no unit type suffix";
        for (size_t i = 0; i < ELEMENTSOF(types); i++)
                if (streq(dot, types[i])) {
                        if (dot[-1] == '@')
                                return "a template is never active itself; name an instance such as foo@1.service";
                        return NULL;
                }
        return "unknown unit type suffix";
}

static const char *process_name_problem(const char *v) {
        if (strlen(v) > COMM_MAX)
                return "longer than 15 characters: the kernel keeps only the first 15 of a process name "
                       "(/proc/PID/comm), so write those";
        if (strchr(v, '/') || has_control_or_space(v))
                return "a process name (comm) has no '/', spaces or control characters";
        return NULL;
}

static const char *cgroup_path_problem(const char *v) {
        if (v[0] == '\0')
                return "empty: the root cgroup always exists";
        if (strlen(v) > CGROUP_PATH_MAX)
                return "longer than 180 characters";
        if (has_control_or_space(v))
                return "a cgroup path here has no spaces or control characters";
        for (const char *p = v; *p;) {
                size_t n = strcspn(p, "/");
                if (n == 0 || (n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
                        return "empty, '.' or '..' path components";
                p += n;
                if (*p == '/')
                        p++;
                if (p[-1] == '/' && *p == '\0')
                        return "ends with '/'";
        }
        return NULL;
}

static int set_match(Rule *rule, RuleKind kind, const char *v, const char *problem, const char *example,
                     char **ret_msg) {
        if (problem)
                return conf_msgf(ret_msg, "invalid value '%s': %s; expected %s", v, problem, example);
        if (rule->n_matches > 0 && rule->kind != kind)
                return conf_msgf(ret_msg, "the rule already waits for a %s (%s); give one of unit=, process= or "
                                 "cgroup= per rule", rule_kind_to_string(rule->kind), rule->match);
        rule->kind = kind;
        rule->n_matches++;
        return conf_set_string(&rule->match, v);
}

static int item_unit(const ConfigItem *it, const char *v, void *field, char **ret_msg) {
        return set_match(field, RULE_UNIT, v, unit_name_problem(v), "a unit name such as redis-server.service",
                         ret_msg);
}

static int item_process(const ConfigItem *it, const char *v, void *field, char **ret_msg) {
        return set_match(field, RULE_PROCESS, v, process_name_problem(v), "a process name such as redis-server",
                         ret_msg);
}

static int item_cgroup(const ConfigItem *it, const char *v, void *field, char **ret_msg) {
        const char *path = v + strspn(v, "/"); /* "/system.slice/x" and "system.slice/x" are the same */
        return set_match(field, RULE_CGROUP, path, cgroup_path_problem(path),
                         "a path below /sys/fs/cgroup such as system.slice/podman.service", ret_msg);
}

static const ConfigItem rule_item_table[] = {
        { "rule", "profile", policy_parse_profile_ref, offsetof(Rule, profile) },
        { "rule", "unit", item_unit, 0 },
        { "rule", "process", item_process, 0 },
        { "rule", "cgroup", item_cgroup, 0 },
        { "rule", "priority", conf_parse_count_uint, offsetof(Rule, priority), 0, 1000 },
        { "rule", "start-delay", conf_parse_time_ms, offsetof(Rule, start_delay_us), 0, UINT64_C(3600000000) },
        { "rule", "stop-delay", conf_parse_time_ms, offsetof(Rule, stop_delay_us), 0, UINT64_C(3600000000) },
        {}
};

const ConfigItem *const rule_items = rule_item_table;

int rules_check(const DaemonConfig *c, char ***errors) {
        int r = 0;

        for (size_t i = 0; i < c->n_rules && r >= 0; i++) {
                const Rule *rule = &c->rules[i];
                _cleanup_(freep) char *section = NULL;

                if (asprintf(&section, "rule %s", rule->name) < 0)
                        return -ENOMEM;
                if (!rule->profile)
                        r = conf_push_error(errors, rule->file, rule->line, section, NULL,
                                            "no profile= (the profile to switch to while the rule matches)");
                if (r >= 0 && rule->n_matches == 0)
                        r = conf_push_error(errors, rule->file, rule->line, section, NULL,
                                            "no unit=, process= or cgroup= (what the rule waits for)");
        }
        return r;
}

int rules_check_profiles(const DaemonConfig *c, char *const *dirs, char ***errors) {
        int r, ret = 0;

        for (size_t i = 0; i < c->n_rules; i++) {
                const Rule *rule = &c->rules[i];
                _cleanup_(strv_freep) char **perrors = NULL;
                _cleanup_(profile_freep) Profile *p = NULL;
                _cleanup_(freep) char *section = NULL;

                r = profile_load(&p, rule->profile, dirs, &perrors);
                if (r == -ENOMEM)
                        return r;
                if (r >= 0)
                        continue;
                if (asprintf(&section, "rule %s", rule->name) < 0)
                        return -ENOMEM;
                r = conf_push_error(errors, rule->file, rule->line, section, "profile", "%s '%s'%s",
                                    r == -ENOENT ? "no profile" : "invalid profile", rule->profile,
                                    perrors ? ":" : "");
                for (char **e = perrors; e && *e && r >= 0; e++)
                        r = strv_extendf(errors, "  %s", *e);
                if (r < 0)
                        return r;
                ret = -EINVAL;
        }
        return ret;
}
