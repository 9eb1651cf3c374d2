/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * test-bus-policy.c: the shipped system bus policy, systemd/org.netpolld1.conf,
 * against the vtables netpolld serves (bus_objects, daemon/bus/bus.h), whose
 * flags are the one statement of who may call what: for callers other than
 * root the policy denies org.netpolld1 first and then allows exactly the
 * BUS_OPEN methods, reading properties, introspection and Peer; only root owns
 * the name. Each difference is reported as a sentence saying what to change.
 * tests/integration/test-bus-policy.sh runs netpollctl under this file.
 */
#include <stdlib.h>
#include <string.h>

#include "bus.h"
#include "strv.h"
#include "testutil.h"

#define POLICY_FILE "systemd/org.netpolld1.conf"
#define PROPERTIES "org.freedesktop.DBus.Properties"

#define add_problem(problems, ...) ck_assert_int_eq(strv_extendf(problems, __VA_ARGS__), 0)

/* One <allow> or <deny> element, in the <policy> it stands in ("context=default", "user=root"). */
typedef struct BusRule {
        char *policy;
        bool allow;
        char **attrs;   /* name, value, name, value, ... */
} BusRule;

typedef struct BusPolicy {
        BusRule *rules;
        size_t n_rules;
} BusPolicy;

static void policy_done(BusPolicy *p) {
        for (size_t i = 0; i < p->n_rules; i++) {
                free(p->rules[i].policy);
                strv_freep(&p->rules[i].attrs);
        }
        free(p->rules);
}

static const char *attr(const BusRule *r, const char *name) {
        for (size_t i = 0; r->attrs && r->attrs[i]; i += 2)
                if (streq(r->attrs[i], name))
                        return r->attrs[i + 1];
        return NULL;
}

/* Whether every attribute of r is one of the NULL-terminated names. */
static bool attrs_within(const BusRule *r, const char *const *names) {
        for (size_t i = 0; r->attrs && r->attrs[i]; i += 2) {
                bool known = false;
                for (size_t j = 0; names[j]; j++)
                        known = known || streq(r->attrs[i], names[j]);
                if (!known)
                        return false;
        }
        return true;
}

/* The name="value" pairs from p to end (the element's '>'). */
static char **parse_attrs(const char *p, const char *end) {
        char **l = NULL;

        for (;;) {
                p += strspn(p, " \t\r\n/");
                if (p >= end)
                        return l;
                const char *eq = memchr(p, '=', end - p);
                ck_assert_msg(eq && (eq[1] == '"' || eq[1] == '\''), "odd attribute at '%.20s'", p);
                const char *close = memchr(eq + 2, eq[1], end - eq - 2);
                ck_assert_msg(close, "unterminated attribute value at '%.20s'", p);
                ck_assert_int_eq(strv_push(&l, strndup(p, strcspn(p, " \t\r\n="))), 0);
                ck_assert_int_eq(strv_push(&l, strndup(eq + 2, close - eq - 2)), 0);
                p = close + 1;
        }
}

/* The <allow>/<deny> elements of a bus configuration file's text, in order. */
static void policy_parse(const char *text, BusPolicy *ret) {
        _cleanup_(freep) char *s = strdup(text), *policy = NULL;
        char *p;

        ck_assert_ptr_nonnull(s);
        while ((p = strstr(s, "<!--"))) {
                char *e = strstr(p, "-->");
                ck_assert_msg(e, "unterminated comment");
                memset(p, ' ', e + 3 - p);
        }

        *ret = (BusPolicy) {};
        for (p = s; (p = strchr(p, '<')); ) {
                char *end = strchr(p, '>'), *name = p + 1;
                bool closing = *name == '/';
                size_t len;

                ck_assert_msg(end, "unterminated element at '%.20s'", p);
                name += closing;
                len = strcspn(name, " \t\r\n/>");
                if (len == 6 && strncmp(name, "policy", 6) == 0) {
                        free(policy);
                        policy = NULL;
                        if (!closing) {
                                _cleanup_(strv_freep) char **a = parse_attrs(name + len, end);
                                ck_assert_msg(strv_length(a) == 2, "a <policy> with other than one attribute");
                                ck_assert_int_ge(asprintf(&policy, "%s=%s", a[0], a[1]), 0);
                        }
                } else if (!closing && ((len == 5 && strncmp(name, "allow", 5) == 0) ||
                                        (len == 4 && strncmp(name, "deny", 4) == 0))) {
                        ret->rules = realloc(ret->rules, (ret->n_rules + 1) * sizeof(BusRule));
                        ck_assert_ptr_nonnull(ret->rules);
                        ret->rules[ret->n_rules++] = (BusRule) {
                                .policy = policy ? strdup(policy) : NULL,
                                .allow = len == 5,
                                .attrs = parse_attrs(name + len, end),
                        };
                }
                p = end + 1;
        }
}

/* Whether a vtable of bus_objects has a BUS_OPEN method or writable property of this type and name (NULL: any). */
static bool open_member(const char *interface, char type, const char *member) {
        for (size_t i = 0; i < bus_n_objects; i++) {
                if (!streq(bus_objects[i].interface, interface))
                        continue;
                for (const sd_bus_vtable *v = bus_objects[i].vtable; v->type != _SD_BUS_VTABLE_END; v++) {
                        const char *name = v->type == _SD_BUS_VTABLE_METHOD ? v->x.method.member : v->x.property.member;
                        if (v->type == type && bus_member_is_open(v) && (!member || streq(name, member)))
                                return true;
                }
        }
        return false;
}

static bool any_open_writable_property(void) {
        for (size_t i = 0; i < bus_n_objects; i++)
                if (open_member(bus_objects[i].interface, _SD_BUS_VTABLE_WRITABLE_PROPERTY, NULL))
                        return true;
        return false;
}

/* What every caller may send besides the open methods, as (interface, member; NULL: every member). */
static bool standard_read(const char *interface, const char *member) {
        if (streq(interface, PROPERTIES))
                return member && (streq(member, "Get") || streq(member, "GetAll") ||
                                  (streq(member, "Set") && any_open_writable_property()));
        return !member && (streq(interface, "org.freedesktop.DBus.Introspectable") ||
                           streq(interface, "org.freedesktop.DBus.Peer"));
}

static bool allowed(const BusPolicy *p, const char *interface, const char *member) {
        for (size_t i = 0; i < p->n_rules; i++) {
                const BusRule *r = &p->rules[i];
                if (r->allow && streq_ptr(r->policy, "context=default") &&
                    streq_ptr(attr(r, "send_destination"), BUS_NAME) &&
                    streq_ptr(attr(r, "send_interface"), interface) && streq_ptr(attr(r, "send_member"), member))
                        return true;
        }
        return false;
}

static void need_allowed(const BusPolicy *p, const char *interface, const char *member, const char *why,
                         char ***problems) {
        if (allowed(p, interface, member))
                return;
        add_problem(problems, "%s%s%s (%s) is not allowed to every caller: add <allow send_destination=\"%s\" "
                                      "send_interface=\"%s\"%s%s%s/> to the default policy",
                                      interface, member ? "." : "", strempty(member), why, BUS_NAME, interface,
                                      member ? " send_member=\"" : "", strempty(member), member ? "\"" : "");
}

/* Every way the bus configuration text disagrees with the flags of bus_objects, one sentence each. */
static char **policy_problems(const char *text) {
        static const char *const send_attrs[] = { "send_destination", "send_interface", "send_member", NULL };
        _cleanup_(policy_done) BusPolicy p = {};
        char **problems = NULL;
        bool denied_first = false, seen_default = false, root_owns = false, root_sends = false, receive = false;

        policy_parse(text, &p);
        for (size_t i = 0; i < p.n_rules; i++) {
                const BusRule *r = &p.rules[i];
                const char *dest = attr(r, "send_destination"), *iface = attr(r, "send_interface"),
                           *member = attr(r, "send_member");
                _cleanup_(freep) char *all = strv_join(r->attrs, " ");

                if (streq_ptr(r->policy, "user=root")) {
                        root_owns = root_owns || (r->allow && streq_ptr(attr(r, "own"), BUS_NAME));
                        root_sends = root_sends || (r->allow && streq_ptr(dest, BUS_NAME) && !iface && !member);
                        continue;
                }
                if (!streq_ptr(r->policy, "context=default")) {
                        add_problem(&problems, "a rule outside the default and root policies: %s", all);
                        continue;
                }
                if (r->allow && streq_ptr(attr(r, "receive_sender"), BUS_NAME) && strv_length(r->attrs) == 2) {
                        receive = true;
                        continue;
                }
                if (!seen_default) {
                        seen_default = true;
                        denied_first = !r->allow && streq_ptr(dest, BUS_NAME) && strv_length(r->attrs) == 2;
                        if (denied_first)
                                continue;
                }
                if (!r->allow || !streq_ptr(dest, BUS_NAME) || !iface || !attrs_within(r, send_attrs))
                        add_problem(&problems, "an unexpected rule in the default policy: %s %s",
                                                      r->allow ? "allow" : "deny", all);
                else if (!(member && open_member(iface, _SD_BUS_VTABLE_METHOD, member)) &&
                         !standard_read(iface, member))
                        add_problem(&problems, "the default policy allows every caller %s%s%s, which no "
                                                      "BUS_OPEN method of bus_objects (daemon/bus/bus.h) is: mark the "
                                                      "method BUS_OPEN or remove the rule",
                                                      iface, member ? "." : " (every member)", strempty(member));
        }

        if (!denied_first)
                add_problem(&problems, "the default policy does not begin with <deny send_destination=\"%s\"/>,"
                                              " which keeps every method not listed after it root's", BUS_NAME);
        if (!receive)
                add_problem(&problems, "the default policy lacks <allow receive_sender=\"%s\"/>: "
                                              "no caller would get KnobChanged", BUS_NAME);
        if (!root_owns || !root_sends)
                add_problem(&problems, "the root policy must allow own=\"%s\" and send_destination=\"%s\"",
                                              BUS_NAME, BUS_NAME);

        for (size_t i = 0; i < bus_n_objects; i++)
                for (const sd_bus_vtable *v = bus_objects[i].vtable; v->type != _SD_BUS_VTABLE_END; v++)
                        if (v->type == _SD_BUS_VTABLE_METHOD && bus_member_is_open(v))
                                need_allowed(&p, bus_objects[i].interface, v->x.method.member, "BUS_OPEN", &problems);
        need_allowed(&p, PROPERTIES, "Get", "properties are open to read", &problems);
        need_allowed(&p, PROPERTIES, "GetAll", "properties are open to read; netpollctl status", &problems);
        if (any_open_writable_property())
                need_allowed(&p, PROPERTIES, "Set", "a BUS_OPEN writable property", &problems);
        need_allowed(&p, "org.freedesktop.DBus.Introspectable", NULL, "busctl and gdbus introspect", &problems);
        need_allowed(&p, "org.freedesktop.DBus.Peer", NULL, "netpollctl monitor pings", &problems);
        return problems;
}

static char *shipped_policy(void) {
        _cleanup_(freep) char *path = tu_source(POLICY_FILE);
        char *text = tu_read(getenv("NETPOLLD_SOURCE_ROOT"), POLICY_FILE);
        ck_assert_msg(text, "cannot read %s", path);
        return text;
}

/* text with the first occurrence of what replaced by with. */
static char *replaced(const char *text, const char *what, const char *with) {
        const char *p = strstr(text, what);
        char *s;

        ck_assert_msg(p, "'%s' not in the policy file", what);
        ck_assert_int_ge(asprintf(&s, "%.*s%s%s", (int) (p - text), text, with, p + strlen(what)), 0);
        return s;
}

static bool problems_mention(char **problems, const char *word) {
        for (size_t i = 0; problems && problems[i]; i++)
                if (strstr(problems[i], word))
                        return true;
        return false;
}

START_TEST(test_bus_policy_every_member_is_open_or_privileged) {
        for (size_t i = 0; i < bus_n_objects; i++)
                for (const sd_bus_vtable *v = bus_objects[i].vtable; v->type != _SD_BUS_VTABLE_END; v++) {
                        uint64_t who = v->flags & (SD_BUS_VTABLE_UNPRIVILEGED | _SD_BUS_VTABLE_CAPABILITY_MASK);
                        const char *name = v->type == _SD_BUS_VTABLE_METHOD ? v->x.method.member : v->x.property.member;

                        if (v->type != _SD_BUS_VTABLE_METHOD && v->type != _SD_BUS_VTABLE_WRITABLE_PROPERTY)
                                continue;
                        ck_assert_msg(who == BUS_OPEN || who == BUS_PRIVILEGED,
                                      "%s.%s is neither BUS_OPEN nor BUS_PRIVILEGED", bus_objects[i].interface, name);
                }
}
END_TEST

START_TEST(test_bus_policy_shipped_file_allows_exactly_the_open_methods) {
        _cleanup_(freep) char *text = shipped_policy();
        _cleanup_(strv_freep) char **problems = policy_problems(text);
        _cleanup_(freep) char *report = strv_join(problems, "\n  ");

        ck_assert_msg(!problems, "%s disagrees with the vtables' flags:\n  %s", POLICY_FILE, report);
}
END_TEST

/* Edits of the shipped file (what -> with) and what the check must say about each. */
static const struct {
        const char *what, *with;
        const char *says[2];
} drifts[] = {
        /* A method opened in the vtable but not here; one allowed here that the vtable lacks. */
        { "send_member=\"GetLoad\"", "send_member=\"NoSuchMethod\"",
          { "org.netpolld1.Manager.GetLoad (BUS_OPEN) is not allowed",
            "allows every caller org.netpolld1.Manager.NoSuchMethod," } },
        /* A privileged method and property writes opened to everyone (Peer is in the default policy only). */
        { "send_interface=\"org.freedesktop.DBus.Peer\"/>",
          "send_interface=\"org.freedesktop.DBus.Peer\"/>\n"
          "<allow send_destination=\"org.netpolld1\" send_interface=\"org.netpolld1.Manager\""
          " send_member=\"SetKnob\"/>\n"
          "<allow send_destination=\"org.netpolld1\" send_interface=\"org.freedesktop.DBus.Properties\""
          " send_member=\"Set\"/>",
          { "allows every caller org.netpolld1.Manager.SetKnob,",
            "allows every caller org.freedesktop.DBus.Properties.Set," } },
        /* Without the deny first, every method not listed would be open on a bus that allows by default. */
        { "<deny send_destination=\"org.netpolld1\"/>", "", { "does not begin with <deny", NULL } },
};

START_TEST(test_bus_policy_check_reports_each_drift) {
        _cleanup_(freep) char *shipped = shipped_policy();
        _cleanup_(freep) char *text = replaced(shipped, drifts[_i].what, drifts[_i].with);
        _cleanup_(strv_freep) char **problems = policy_problems(text);
        _cleanup_(freep) char *report = strv_join(problems, "\n  ");

        for (size_t k = 0; k < ELEMENTSOF(drifts[_i].says) && drifts[_i].says[k]; k++)
                ck_assert_msg(problems_mention(problems, drifts[_i].says[k]),
                              "'%s' not reported; the check said:\n  %s", drifts[_i].says[k], report);
}
END_TEST

static Suite *bus_policy_suite(void) {
        Suite *s = suite_create("bus-policy");
        TCase *tc = tcase_create("bus-policy");
        tcase_add_test(tc, test_bus_policy_every_member_is_open_or_privileged);
        tcase_add_test(tc, test_bus_policy_shipped_file_allows_exactly_the_open_methods);
        tcase_add_loop_test(tc, test_bus_policy_check_reports_each_drift, 0, ELEMENTSOF(drifts));
        suite_add_tcase(s, tc);
        return s;
}

TU_MAIN(bus_policy_suite)
