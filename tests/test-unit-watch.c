/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * test-unit-watch.c: the systemd side of unit= rules against a fake
 * org.freedesktop.systemd1 on a private dbus-daemon: the first query, a
 * PropertiesChanged signal, systemd leaving and coming back on the bus
 * (re-subscribe, ask again), and that units are never loaded by asking;
 * a watch on a connection it shares; and Reload then TryRestartUnit for the
 * irqbalance drop-in (none after a refused Reload). Skips without dbus-daemon.
 */
#include <errno.h>
#include <fnmatch.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>
#include <time.h>
#include <unistd.h>

#include "macro.h"
#include "testutil.h"
#include "unit-watch.h"

typedef struct FakeUnit {
        const char *name;
        const char *state; /* NULL: not loaded */
} FakeUnit;

static FakeUnit fake_units[] = { { "a.service", "active" }, { "b.service", NULL }, { "c.scope", "inactive" } };
static unsigned subscribes, queries, changes;

static int fake_subscribe(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        subscribes++;
        return sd_bus_reply_method_return(m, NULL);
}

static int fake_list(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        char **states = NULL, **patterns = NULL;
        int r;

        queries++;
        r = sd_bus_message_read_strv(m, &states);
        if (r >= 0)
                r = sd_bus_message_read_strv(m, &patterns);
        if (r >= 0)
                r = sd_bus_message_new_method_return(m, &reply);
        if (r >= 0)
                r = sd_bus_message_open_container(reply, 'a', "(ssssssouso)");
        for (size_t i = 0; r >= 0 && i < ELEMENTSOF(fake_units); i++) {
                bool match = false;
                if (!fake_units[i].state)
                        continue;
                for (char **p = patterns; p && *p; p++)
                        match = match || fnmatch(*p, fake_units[i].name, 0) == 0;
                if (match)
                        r = sd_bus_message_append(reply, "(ssssssouso)", fake_units[i].name, "", "loaded",
                                                  fake_units[i].state, "running", "", "/org/freedesktop/systemd1/unit/x",
                                                  0, "", "/");
        }
        if (r >= 0)
                r = sd_bus_message_close_container(reply);
        strv_free(states);
        strv_free(patterns);
        if (r < 0)
                return r;
        return sd_bus_send(NULL, reply, NULL);
}

static unsigned reloads, restarts;
static bool refuse_reload;
static char restarted[64], restart_mode[16];

static int fake_reload(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        if (refuse_reload)
                return sd_bus_error_set(error, SD_BUS_ERROR_ACCESS_DENIED, "Access denied");
        reloads++;
        return sd_bus_reply_method_return(m, NULL);
}

static int fake_try_restart(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        const char *unit, *mode;
        int r = sd_bus_message_read(m, "ss", &unit, &mode);

        if (r < 0)
                return r;
        /* Only after the reload: systemd must have read the drop-in before the restart. */
        ck_assert_uint_gt(reloads, restarts);
        restarts++;
        snprintf(restarted, sizeof(restarted), "%s", unit);
        snprintf(restart_mode, sizeof(restart_mode), "%s", mode);
        return sd_bus_reply_method_return(m, "o", "/org/freedesktop/systemd1/job/1");
}

static const sd_bus_vtable fake_vtable[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_METHOD("Subscribe", "", "", fake_subscribe, 0),
        SD_BUS_METHOD("Reload", "", "", fake_reload, 0),
        SD_BUS_METHOD("TryRestartUnit", "ss", "o", fake_try_restart, 0),
        SD_BUS_METHOD("ListUnitsByPatterns", "asas", "a(ssssssouso)", fake_list, 0),
        SD_BUS_VTABLE_END,
};

static void on_changed(void *userdata) {
        changes++;
}

static char *tmp;
static pid_t daemon_pid;
static char address[512];

static void start_bus(void) {
        _cleanup_(freep) char *conf = NULL, *sock = NULL;
        char text[1024];

        tmp = tu_mkdtemp();
        sock = tu_join(tmp, "bus");
        snprintf(text, sizeof(text),
                 "<busconfig><type>session</type><listen>unix:path=%s</listen><auth>EXTERNAL</auth>"
                 "<policy context=\"default\"><allow send_destination=\"*\" eavesdrop=\"true\"/>"
                 "<allow eavesdrop=\"true\"/><allow own=\"*\"/></policy></busconfig>\n", sock);
        tu_write(tmp, "bus.conf", text, 0644);
        conf = tu_join(tmp, "bus.conf");
        snprintf(address, sizeof(address), "unix:path=%s", sock);
        daemon_pid = fork();
        ck_assert_int_ge(daemon_pid, 0);
        if (daemon_pid == 0) {
                char arg[600];
                /* Gone with the test process, however the test ends. */
                prctl(PR_SET_PDEATHSIG, SIGTERM);
                snprintf(arg, sizeof(arg), "--config-file=%s", conf);
                execlp("dbus-daemon", "dbus-daemon", arg, "--nofork", "--nopidfile", (char *)NULL);
                _exit(127);
        }
        for (int i = 0; i < 200; i++) {
                struct stat st;
                if (stat(sock, &st) == 0)
                        return;
                usleep(20000);
        }
        ck_abort_msg("dbus-daemon did not create %s", sock);
}

static void stop_bus(void) {
        if (daemon_pid > 0) {
                kill(daemon_pid, SIGTERM);
                waitpid(daemon_pid, NULL, 0);
        }
        daemon_pid = 0;
        if (tmp)
                tu_rm_rf(tmp);
        free(tmp);
        tmp = NULL;
}

static bool have_dbus_daemon(void) {
        return system("command -v dbus-daemon >/dev/null 2>&1") == 0;
}

/* Runs the loop until *counter reaches want or 5 s pass. */
static bool run_until(sd_event *e, unsigned *counter, unsigned want) {
        for (int i = 0; i < 500 && *counter < want; i++)
                ck_assert_int_ge(sd_event_run(e, 10000), 0);
        return *counter >= want;
}

static sd_bus *fake_connect(sd_event *e) {
        sd_bus *bus = NULL;

        ck_assert_int_ge(sd_bus_new(&bus), 0);
        ck_assert_int_ge(sd_bus_set_address(bus, address), 0);
        ck_assert_int_ge(sd_bus_set_bus_client(bus, true), 0);
        ck_assert_int_ge(sd_bus_start(bus), 0);
        ck_assert_int_ge(sd_bus_add_object_vtable(bus, NULL, "/org/freedesktop/systemd1",
                                                  "org.freedesktop.systemd1.Manager", fake_vtable, NULL), 0);
        ck_assert_int_ge(sd_bus_request_name(bus, "org.freedesktop.systemd1", 0), 0);
        ck_assert_int_ge(sd_bus_attach_event(bus, e, 0), 0);
        return bus;
}

START_TEST(test_unit_watch_follows_a_fake_systemd) {
        sd_event *e = NULL;
        sd_bus *fake = NULL;
        UnitWatch *w = NULL;
        unsigned q;

        if (!have_dbus_daemon())
                tu_skip("dbus-daemon is not installed");
        subscribes = queries = changes = 0;
        fake_units[0].state = "active";
        start_bus();
        ck_assert_int_ge(sd_event_new(&e), 0);
        fake = fake_connect(e);

        ck_assert_int_ge(unit_watch_new(&w, e, address, on_changed, NULL), 0);
        ck_assert_int_ge(unit_watch_set_units(w, (char *[]){ (char *)"a.service", (char *)"b.service",
                                                             (char *)"c.scope", NULL }), 0);
        ck_assert(run_until(e, &changes, 1));
        ck_assert_uint_ge(subscribes, 1);
        ck_assert(unit_watch_is_active(w, "a.service"));
        ck_assert(!unit_watch_is_active(w, "b.service"));
        ck_assert_str_eq(unit_watch_state(w, "b.service"), "not-loaded");
        ck_assert_str_eq(unit_watch_state(w, "c.scope"), "inactive");
        ck_assert_str_eq(unit_watch_state(w, "z.service"), "unknown");

        /* The unit stops: its PropertiesChanged makes the watch ask again. */
        fake_units[0].state = "deactivating";
        q = queries;
        ck_assert_int_ge(sd_bus_emit_signal(fake, "/org/freedesktop/systemd1/unit/a_2eservice",
                                            "org.freedesktop.DBus.Properties", "PropertiesChanged", "sa{sv}as",
                                            "org.freedesktop.systemd1.Unit", 0, 0), 0);
        ck_assert(run_until(e, &changes, 2));
        ck_assert_uint_gt(queries, q);
        ck_assert(!unit_watch_is_active(w, "a.service"));

        /* A signal about another unit is not ours: no query. */
        q = queries;
        ck_assert_int_ge(sd_bus_emit_signal(fake, "/org/freedesktop/systemd1/unit/other_2eservice",
                                            "org.freedesktop.DBus.Properties", "PropertiesChanged", "sa{sv}as",
                                            "org.freedesktop.systemd1.Unit", 0, 0), 0);
        for (int i = 0; i < 20; i++)
                ck_assert_int_ge(sd_event_run(e, 10000), 0);
        ck_assert_uint_eq(queries, q);

        /* systemd goes away and comes back (daemon-reexec): subscribe again and ask again. */
        unsigned s = subscribes;
        fake_units[0].state = "active";
        ck_assert_int_ge(sd_bus_release_name(fake, "org.freedesktop.systemd1"), 0);
        for (int i = 0; i < 10; i++)
                ck_assert_int_ge(sd_event_run(e, 10000), 0);
        ck_assert_int_ge(sd_bus_request_name(fake, "org.freedesktop.systemd1", 0), 0);
        ck_assert(run_until(e, &changes, 3));
        ck_assert_uint_gt(subscribes, s);
        ck_assert(unit_watch_is_active(w, "a.service"));

        unit_watch_free(w);
        sd_bus_flush_close_unref(fake);
        sd_event_unref(e);
}
END_TEST

START_TEST(test_reload_then_try_restart_on_a_shared_connection) {
        sd_event *e = NULL;
        sd_bus *fake = NULL, *bus = NULL;
        UnitWatch *w = NULL;

        if (!have_dbus_daemon())
                tu_skip("dbus-daemon is not installed");
        subscribes = queries = changes = reloads = restarts = 0;
        refuse_reload = false;
        fake_units[0].state = "active";
        start_bus();
        ck_assert_int_ge(sd_event_new(&e), 0);
        fake = fake_connect(e);

        /* The daemon's one connection: the watch runs on it and leaves it open when freed. */
        ck_assert_int_ge(systemd_bus_open(address, &bus), 0);
        ck_assert_int_ge(unit_watch_new_on_bus(&w, e, bus, on_changed, NULL), 0);
        ck_assert_ptr_eq(sd_bus_get_event(bus), e);
        ck_assert_int_ge(unit_watch_set_units(w, (char *[]){ (char *)"a.service", NULL }), 0);
        ck_assert(run_until(e, &changes, 1));
        ck_assert(unit_watch_is_active(w, "a.service"));
        w = unit_watch_free(w);
        ck_assert_int_gt(sd_bus_is_open(bus), 0);

        ck_assert_int_ge(systemd_reload_try_restart(bus, "irqbalance.service", false), 0);
        ck_assert(run_until(e, &restarts, 1));
        ck_assert_uint_eq(reloads, 1);
        ck_assert_str_eq(restarted, "irqbalance.service");
        ck_assert_str_eq(restart_mode, "replace");

        /* A refused Reload: no restart with a drop-in systemd has not read. */
        refuse_reload = true;
        ck_assert_int_ge(systemd_reload_try_restart(bus, "irqbalance.service", false), 0);
        for (int i = 0; i < 50; i++) /* up to 0.5 s: the refusal and any call after it are in */
                ck_assert_int_ge(sd_event_run(e, 10000), 0);
        ck_assert_uint_eq(restarts, 1);

        sd_bus_flush_close_unref(bus);
        sd_bus_flush_close_unref(fake);
        sd_event_unref(e);
}
END_TEST

static Suite *unit_watch_suite(void) {
        Suite *s = suite_create("unit-watch");
        TCase *tc = tcase_create("fake-systemd");

        tcase_add_checked_fixture(tc, NULL, stop_bus);
        tcase_add_test(tc, test_unit_watch_follows_a_fake_systemd);
        tcase_add_test(tc, test_reload_then_try_restart_on_a_shared_connection);
        tcase_set_timeout(tc, 30);
        suite_add_tcase(s, tc);
        return s;
}

TU_MAIN(unit_watch_suite)
