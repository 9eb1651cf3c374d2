/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * irqpin-driver.c: runs the irqpin module on its own sd-event loop, for the
 * real-kernel integration test (tests/integration/test-irq.sh), until the
 * daemon serves the same through ListIrqs. Commands arrive on stdin, one
 * per line; answers go to stdout, logs to stderr:
 *
 *   apply PROFILE [dry-run]    load a profile file, irqpin_apply its [irq]  -> "ok" | "error ..."
 *   list                       "row DEV QUEUE NAPI IRQ CPUS RPS XPS STATE" lines ("-" for empty), "end"
 *   napi-set REF VALUE         -> "ok NAPI_ID VALUE" | "differs NAPI_ID VALUE" | "error -ERRNO text"
 *   napi-get REF               -> "ok NAPI_ID VALUE" | "error -ERRNO text"
 *   check                      the owner's check for outside changes -> "changed N"
 *   irqbalance                 -> "irqbalance yes|no"
 *   quit                       restore everything the journal lists, "bye FAILED", exit
 *
 * A journal left by a killed run is replayed first ("replayed all"), as
 * netpolld does after a crash.
 *
 * Every value goes through the owner (owner.h), as in netpolld: steering in
 * the profile layer, napi-set in the manual layer.
 *
 * Options: --sysroot DIR (default /), --state-dir DIR (the restore journal; required).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-event.h>
#include <unistd.h>

#include "irqpin.h"
#include "napi-backend.h"
#include "journal.h"
#include "owner.h"
#include "log.h"
#include "policy.h"
#include "strv.h"

typedef struct Driver {
        sd_event *event;
        IrqPin *pin;
        Journal *journal;
        Owner *owner;
        NapiBackend *napi;
        Profile *profile;
        const char *sysroot;
        char buf[4096];
        size_t len;
        int exit_code;
} Driver;

static void print_error(int r, const char *what) {
        printf("error %d %s: %s\n", r, what, strerror(-r));
}

static const char *dash(const char *s) {
        return s && *s ? s : "-";
}

static void cmd_apply(Driver *d, char **argv, size_t argc) {
        _cleanup_(strv_freep) char **errors = NULL;
        Profile *p = NULL;
        int r;

        if (argc < 2) {
                print_error(-EINVAL, "apply needs a profile file");
                return;
        }
        r = profile_load(&p, argv[1], NULL, &errors);
        if (r < 0) {
                printf("error %d %s\n", r, errors && errors[0] ? errors[0] : strerror(-r));
                return;
        }
        r = irqpin_apply(d->pin, &p->irq, argc > 2 && streq(argv[2], "dry-run"));
        profile_free(d->profile);
        d->profile = p;
        if (r < 0)
                print_error(r, "irqpin_apply");
        else
                printf("ok\n");
}

static void cmd_list(Driver *d) {
        IrqRow *rows = NULL;
        size_t n = 0;
        int r;

        r = irqpin_list(d->pin, &rows, &n);
        if (r < 0) {
                print_error(r, "irqpin_list");
                return;
        }
        for (size_t i = 0; i < n; i++)
                printf("row %s %s %" PRIu32 " %" PRIi32 " %s %s %s %s\n", rows[i].device, rows[i].queue,
                       rows[i].napi_id, rows[i].irq, dash(rows[i].cpus), dash(rows[i].rps), dash(rows[i].xps),
                       rows[i].state);
        printf("end\n");
        irq_rows_free(rows, n);
}

static void cmd_napi(Driver *d, char **argv, size_t argc, bool set) {
        _cleanup_(freep) char *now = NULL;
        const char *reason = NULL;
        KnobValue v = {};
        uint64_t value = 0;
        uint32_t id = 0;
        char name[96], text[32];
        NapiRef ref;
        Target t;
        int r;

        if (argc != (set ? 3u : 2u)) {
                print_error(-EINVAL, set ? "napi-set REF VALUE" : "napi-get REF");
                return;
        }
        r = napi_ref_parse(argv[1], &ref, &reason);
        if (r < 0) {
                printf("error %d %s\n", r, reason);
                return;
        }
        r = irqpin_napi_get(d->pin, &ref, &value, &id);
        if (r < 0) {
                print_error(r, "irqpin_napi_get");
                return;
        }
        if (!set) {
                printf("ok %" PRIu32 " %" PRIu64 "\n", id, value);
                return;
        }
        r = knob_parse_value(napi_knob_desc(ref.knob), argv[2], &v, &reason);
        if (r < 0) {
                printf("error %d %s\n", r, reason);
                return;
        }
        snprintf(name, sizeof(name), "%s@%s:napi-%" PRIu32, napi_knob_to_string(ref.knob), ref.device, id);
        snprintf(text, sizeof(text), "%" PRIu64, v.num);
        r = owner_napi_target(d->owner, name, ref.device, id, napi_knob_to_string(ref.knob), &t);
        if (r >= 0)
                r = owner_set(d->owner, &t, LAYER_MANUAL, text, NULL, &now);
        if (r == -EDOM)
                printf("differs %" PRIu32 " %s\n", id, strempty(now));
        else if (r < 0)
                print_error(r, "owner_set");
        else
                printf("ok %" PRIu32 " %s\n", id, strempty(now));
}

static void quit(Driver *d) {
        int r = owner_restore_all(d->owner), failed = r < 0 ? 1 : r;

        printf("bye %d\n", failed);
        d->exit_code = failed ? 1 : 0;
        sd_event_exit(d->event, d->exit_code);
}

static void run_line(Driver *d, char *line) {
        char *argv[8];
        size_t argc = 0;

        for (char *tok = strtok(line, " \t"); tok && argc < ELEMENTSOF(argv); tok = strtok(NULL, " \t"))
                argv[argc++] = tok;
        if (argc == 0)
                return;
        if (streq(argv[0], "apply"))
                cmd_apply(d, argv, argc);
        else if (streq(argv[0], "list"))
                cmd_list(d);
        else if (streq(argv[0], "napi-set"))
                cmd_napi(d, argv, argc, true);
        else if (streq(argv[0], "napi-get"))
                cmd_napi(d, argv, argc, false);
        else if (streq(argv[0], "check"))
                printf("changed %d\n", owner_check(d->owner));
        else if (streq(argv[0], "irqbalance"))
                printf("irqbalance %s\n", irqpin_irqbalance_running(d->pin) ? "yes" : "no");
        else if (streq(argv[0], "quit"))
                quit(d);
        else
                print_error(-EINVAL, "unknown command");
        fflush(stdout);
}

static int on_stdin(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        Driver *d = userdata;
        ssize_t n;
        char *nl;

        n = read(fd, d->buf + d->len, sizeof(d->buf) - 1 - d->len);
        if (n <= 0) {
                /* The test went away: put everything back all the same. */
                quit(d);
                return 0;
        }
        d->len += (size_t)n;
        d->buf[d->len] = 0;
        while ((nl = strchr(d->buf, '\n'))) {
                *nl = 0;
                run_line(d, d->buf);
                d->len -= (size_t)(nl + 1 - d->buf);
                memmove(d->buf, nl + 1, d->len + 1);
        }
        if (d->len == sizeof(d->buf) - 1)
                d->len = 0; /* an absurd line: drop it */
        return 0;
}

int main(int argc, char **argv) {
        static const struct option options[] = {
                { "sysroot", required_argument, NULL, 's' },
                { "state-dir", required_argument, NULL, 'd' },
                {},
        };
        _cleanup_(freep) char *reason = NULL;
        const char *state_dir = NULL;
        Driver d = { .sysroot = "/" };
        sd_event_source *in = NULL;
        int c, r;

        log_set_program("irqpin-driver");
        log_set_max_level(LOG_DEBUG);
        while ((c = getopt_long(argc, argv, "", options, NULL)) >= 0)
                switch (c) {
                case 's':
                        d.sysroot = optarg;
                        break;
                case 'd':
                        state_dir = optarg;
                        break;
                default:
                        return 2;
                }
        if (!state_dir) {
                log_error("--state-dir is required");
                return 2;
        }

        r = sd_event_default(&d.event);
        if (r >= 0)
                r = journal_open(&d.journal, state_dir, &reason);
        if (r >= 0)
                r = owner_new(&d.owner, d.sysroot, d.journal, false);
        if (r >= 0)
                r = napi_backend_new(&d.napi);
        if (r >= 0) {
                owner_set_napi_backend(d.owner, napi_backend_ops(d.napi));
                if (journal_size(d.journal) > 0) {
                        /* What a killed run left behind goes back first, as netpolld does after a crash. */
                        r = owner_restore_all(d.owner);
                        printf("replayed %s\n", r == 0 ? "all" : "not all");
                        r = r > 0 ? -EIO : r;
                }
        }
        if (r >= 0)
                r = irqpin_new(&d.pin, d.event, d.sysroot, d.owner);
        if (r >= 0)
                r = sd_event_add_io(d.event, &in, STDIN_FILENO, EPOLLIN, on_stdin, &d);
        if (r < 0) {
                log_error_errno(r, "start-up failed: %m%s%s", reason ? ": " : "", strempty(reason));
                return 1;
        }
        printf("ready\n");
        fflush(stdout);
        r = sd_event_loop(d.event);

        sd_event_source_disable_unref(in);
        irqpin_free(d.pin);
        owner_free(d.owner);
        napi_backend_free(d.napi);
        journal_free(d.journal);
        profile_free(d.profile);
        sd_event_unref(d.event);
        return r < 0 ? 1 : d.exit_code;
}
