/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * manager-rules.c: profiles that follow the workload. The configuration's
 * [rule NAME] sections are watched by two sources, the /proc and cgroupfs
 * scan on a timer (process=, cgroup=) and systemd over the system bus
 * (unit=); rule-eval.c decides which rule is in force, and a change of it
 * switches the profile through manager_switch_profile_auto() unless a person
 * pinned one with SetProfile.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-daemon.h>

#include "log.h"
#include "manager-internal.h"
#include "rule-eval.h"
#include "strv.h"
#include "unit-watch.h"
#include "workload.h"

struct RuleRunner {
        Rule *rules;          /* a copy of the configuration's rules this state belongs to */
        size_t n;
        RuleState *states;
        bool *seen;
        size_t active;        /* index of the rule in force, or RULE_NONE */
        uint64_t scan_usec;
        sd_event_source *scan_timer;
        sd_event_source *wakeup_timer; /* a start-delay or stop-delay ends */
        UnitWatch *units;
        bool units_failed;    /* logged once: no systemd to ask */
        bool recheck;         /* compare the winner's profile with the one in force even if it did not change */
};

static void runner_clear_rules(RuleRunner *rr) {
        rules_free(rr->rules, rr->n);
        free(rr->states);
        free(rr->seen);
        rr->rules = NULL;
        rr->states = NULL;
        rr->seen = NULL;
        rr->n = 0;
        rr->active = RULE_NONE;
}

void manager_rules_free(Manager *m) {
        RuleRunner *rr = m->rules;

        if (!rr)
                return;
        runner_clear_rules(rr);
        sd_event_source_disable_unref(rr->scan_timer);
        sd_event_source_disable_unref(rr->wakeup_timer);
        unit_watch_free(rr->units);
        free(rr);
        m->rules = NULL;
}

const Rule *manager_active_rule(const Manager *m) {
        return m->rules && m->rules->active != RULE_NONE ? &m->rules->rules[m->rules->active] : NULL;
}

static bool rule_same(const Rule *a, const Rule *b) {
        return streq(a->name, b->name) && a->kind == b->kind && streq(a->match, b->match) &&
               streq(a->profile, b->profile) && a->priority == b->priority &&
               a->start_delay_us == b->start_delay_us && a->stop_delay_us == b->stop_delay_us;
}

static int copy_rule(Rule *dst, const Rule *src) {
        *dst = *src;
        dst->name = strdup(src->name);
        dst->file = strdup(src->file);
        dst->profile = strdup(src->profile);
        dst->match = strdup(src->match);
        return dst->name && dst->file && dst->profile && dst->match ? 0 : -ENOMEM;
}

/* Takes the configuration's rules; a rule that is unchanged keeps what was observed of it. */
static int runner_take_rules(RuleRunner *rr, const Rule *rules, size_t n) {
        Rule *v = calloc(n + 1, sizeof(Rule));
        RuleState *st = calloc(n + 1, sizeof(RuleState));
        bool *seen = calloc(n + 1, sizeof(bool));
        int r = v && st && seen ? 0 : -ENOMEM;

        for (size_t i = 0; i < n && r >= 0; i++) {
                r = copy_rule(&v[i], &rules[i]);
                for (size_t j = 0; j < rr->n && r >= 0; j++)
                        if (rule_same(&rules[i], &rr->rules[j])) {
                                st[i] = rr->states[j];
                                seen[i] = rr->seen[j];
                        }
        }
        if (r < 0) {
                rules_free(v, n);
                free(st);
                free(seen);
                return r;
        }
        runner_clear_rules(rr);
        rr->rules = v;
        rr->states = st;
        rr->seen = seen;
        rr->n = n;
        return 0;
}

static uint64_t now_usec(Manager *m) {
        uint64_t t = 0;
        (void)sd_event_now(m->event, CLOCK_MONOTONIC, &t);
        return t;
}

static void describe(const Rule *rule, char *buf, size_t size) {
        snprintf(buf, size, "%s %s", rule_kind_to_string(rule->kind), rule->match);
}

/* The profile a rule (or none) asks for differs from the one in force: switch, unless pinned. */
static int follow_winner(Manager *m, char **ret_message) {
        RuleRunner *rr = m->rules;
        const Rule *rule = rr->active != RULE_NONE ? &rr->rules[rr->active] : NULL;
        const char *want = rule ? rule->profile : NULL;
        int r;

        if (m->profile_pinned || streq_ptr(want, m->profile_request))
                return 0;
        r = manager_switch_profile_auto(m, want, ret_message);
        if (r < 0)
                return r;
        if (rule)
                log_info("rule %s: switched to profile %s (%s)", rule->name, m->profile->name, m->profile->path);
        else
                log_info("no rule matches: back to profile %s (%s)", m->profile->name, m->profile->path);
        sd_notifyf(false, "STATUS=Profile %s%s%s", m->profile->name, rule ? ", rule " : "", rule ? rule->name : "");
        return 1;
}

static int on_wakeup(sd_event_source *s, uint64_t usec, void *userdata);

/* Evaluates the rules on what was last observed; switches when the rule in force changed. */
static void evaluate(Manager *m) {
        RuleRunner *rr = m->rules;
        uint64_t wakeup, now = now_usec(m);
        size_t old = rr->active;
        int r = 0;

        for (size_t i = 0; i < rr->n; i++)
                if (rr->rules[i].kind == RULE_UNIT)
                        rr->seen[i] = unit_watch_is_active(rr->units, rr->rules[i].match);
        bool was[rr->n + 1];
        for (size_t i = 0; i < rr->n; i++)
                was[i] = rr->states[i].active;
        rr->active = rules_step(rr->rules, rr->states, rr->n, rr->seen, now, &wakeup);
        for (size_t i = 0; i < rr->n; i++) {
                char what[256];
                if (was[i] == rr->states[i].active)
                        continue;
                describe(&rr->rules[i], what, sizeof(what));
                log_info("rule %s (%s) %s", rr->rules[i].name, what,
                         rr->states[i].active ? "matches" : "no longer matches");
        }
        if (old != rr->active || rr->recheck) {
                _cleanup_(freep) char *msg = NULL;
                rr->recheck = false;
                r = follow_winner(m, &msg);
                if (r < 0)
                        log_error("cannot switch profiles for rule %s, staying with %s: %s",
                                  rr->active != RULE_NONE ? rr->rules[rr->active].name : "(none: back)",
                                  m->profile->name, msg ?: strerror(-r));
                if (r > 0 || old != rr->active)
                        manager_state_changed(m); /* the profile, or only ActiveRule */
                r = 0;
        }

        if (wakeup == RULE_NO_WAKEUP) {
                if (rr->wakeup_timer)
                        (void)sd_event_source_set_enabled(rr->wakeup_timer, SD_EVENT_OFF);
        } else if (!rr->wakeup_timer)
                r = sd_event_add_time(m->event, &rr->wakeup_timer, CLOCK_MONOTONIC, wakeup, 0, on_wakeup, m);
        else {
                r = sd_event_source_set_time(rr->wakeup_timer, wakeup);
                if (r >= 0)
                        r = sd_event_source_set_enabled(rr->wakeup_timer, SD_EVENT_ONESHOT);
        }
        if (r < 0)
                log_warning_errno(r, "cannot arm the rule delay timer: %m, ignoring");
}

static int on_wakeup(sd_event_source *s, uint64_t usec, void *userdata) {
        evaluate(userdata);
        return 0;
}

static void scan(Manager *m) {
        RuleRunner *rr = m->rules;
        int r = workload_scan(m->sysroot, rr->rules, rr->n, rr->seen);
        if (r < 0)
                log_warning_errno(r, "cannot scan for process= and cgroup= rules: %m, ignoring");
}

static int on_scan_timer(sd_event_source *s, uint64_t usec, void *userdata) {
        Manager *m = userdata;
        int r;

        scan(m);
        evaluate(m);
        r = sd_event_source_set_time_relative(s, m->rules->scan_usec);
        if (r >= 0)
                r = sd_event_source_set_enabled(s, SD_EVENT_ONESHOT);
        if (r < 0)
                log_warning_errno(r, "cannot arm the rule scan timer: %m; process= and cgroup= rules stop");
        return 0;
}

static void on_units_changed(void *userdata) {
        evaluate(userdata);
}

/* The systemd watch for unit= rules: made when the first one appears, given the names to follow. */
static void follow_units(Manager *m) {
        RuleRunner *rr = m->rules;
        _cleanup_(strv_freep) char **names = NULL;
        int r = 0;

        for (size_t i = 0; i < rr->n && r >= 0; i++)
                if (rr->rules[i].kind == RULE_UNIT)
                        r = strv_extend(&names, rr->rules[i].match);
        if (r < 0) {
                log_oom();
                return;
        }
        if (!names && !rr->units)
                return;
        if (!rr->units && !rr->units_failed) {
                /* The daemon's one connection to systemd, shared with the irqbalance drop-in's restarts. */
                sd_bus *bus = manager_systemd_bus(m);
                r = bus ? unit_watch_new_on_bus(&rr->units, m->event, bus, on_units_changed, m) : -ENOTCONN;
                if (r < 0) {
                        rr->units_failed = true;
                        if (bus) /* else manager_systemd_bus() said why */
                                log_warning_errno(r, "cannot follow systemd on the system bus: %m; unit= rules "
                                                  "never match");
                        return;
                }
        }
        if (rr->units) {
                r = unit_watch_set_units(rr->units, names);
                if (r < 0)
                        log_warning_errno(r, "cannot follow units over D-Bus: %m; unit= rules may not match");
        }
}

void manager_follow_rules(Manager *m) {
        const DaemonConfig *c = m->config;
        RuleRunner *rr;
        bool scanning;
        int r;

        if (!m->event || !c)
                return;
        if (!m->rules) {
                m->rules = calloc(1, sizeof(RuleRunner));
                if (!m->rules) {
                        log_oom();
                        return;
                }
                m->rules->active = RULE_NONE;
        }
        rr = m->rules;
        if (runner_take_rules(rr, c->rules, c->n_rules) < 0) {
                log_oom();
                return;
        }
        rr->scan_usec = c->rule_scan_us;
        follow_units(m);

        scanning = rules_have_kind(rr->rules, rr->n, RULE_PROCESS) || rules_have_kind(rr->rules, rr->n, RULE_CGROUP);
        if (scanning) {
                scan(m);
                if (!rr->scan_timer)
                        r = sd_event_add_time_relative(m->event, &rr->scan_timer, CLOCK_MONOTONIC, rr->scan_usec, 0,
                                                       on_scan_timer, m);
                else {
                        r = sd_event_source_set_time_relative(rr->scan_timer, rr->scan_usec);
                        if (r >= 0)
                                r = sd_event_source_set_enabled(rr->scan_timer, SD_EVENT_ONESHOT);
                }
                if (r < 0)
                        log_warning_errno(r, "cannot add the rule scan timer: %m; process= and cgroup= rules stop");
        } else if (rr->scan_timer)
                (void)sd_event_source_set_enabled(rr->scan_timer, SD_EVENT_OFF);
        rr->recheck = true; /* a reload may have removed the rule whose profile is in force */
        evaluate(m);
}

int manager_release_profile(Manager *m, char **ret_message) {
        int r;

        if (!m->profile_pinned)
                return 0;
        m->profile_pinned = false;
        log_info("profile %s released: rules choose the profile again", m->profile->name);
        if (!m->rules) /* no event loop (tools, tests): there is no rule in force */
                return m->profile_request ? manager_switch_profile_auto(m, NULL, ret_message) : 0;
        r = follow_winner(m, ret_message);
        if (r < 0) {
                m->profile_pinned = true; /* nothing changed */
                return r;
        }
        return 0;
}
