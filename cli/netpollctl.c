/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * netpollctl.c: the command-line client of netpolld: options, the verb
 * table and per-verb help, the connection to the bus, and the one place that
 * turns verb results and daemon errors into messages and exit codes
 * (0 ok, 1 the operation failed, 2 the command as typed cannot work).
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bus-errors.h"
#include "netpollctl.h"
#include "strv.h"

bool arg_json = false;
bool arg_all = false;
bool arg_once = false;
static bool arg_help = false;
static const char *arg_bus_address = NULL;

#define ARGS_UNLIMITED UINT_MAX

typedef struct Verb {
        const char *name;
        unsigned min_args;      /* arguments after the verb */
        unsigned max_args;
        CtlStatus (*fn)(int argc, char **argv);
        const char *usage;      /* the verb and its arguments */
        const char *description; /* first line: the overview in --help */
} Verb;

static const Verb verbs[] = {
        { "status", 0, 0, verb_status, "status",
          "Show the active profile, mode and knob summary.\n\n"
          "Also lists the knobs this kernel lacks, with the patch or Linux version\n"
          "that adds each." },
        { "list", 0, 0, verb_list, "list",
          "List every knob with value, origin and kernel support.\n\n"
          "KERNEL is \"yes\", \"needs PATCH\" for a knob added by a netpolld kernel\n"
          "patch, \"needs Linux X.Y\" for one a newer kernel adds, or \"no\"." },
        { "get", 1, ARGS_UNLIMITED, verb_get, "get KNOB...",
          "Show the value and origin of each KNOB." },
        { "explain", 1, 1, verb_explain, "explain KNOB[@DEV[:INSTANCE]]",
          "Show why a knob holds its value.\n\n"
          "The value the kernel holds now; what each layer wants (manual from\n"
          "\"set\", the adaptive controller, the profile with FILE:LINE, [irq]\n"
          "steering) and which one wins; per kernel value the original in the\n"
          "restore journal and what stop writes; a change made outside netpolld;\n"
          "the controller's last decisions with their signals and thresholds\n"
          "(the last 16 per knob); and, for a knob this kernel lacks, the patch or\n"
          "Linux version that adds it. INSTANCE is napi-ID, rx-N, tx-N or combined-N:\n"
          "every name KnobChanged and \"irq\" give a value is taken (rps-cpus@DEV:rx-N,\n"
          "xps-cpus@DEV:tx-N, irq-affinity@DEV:rx-N, napi-thread-affinity@DEV:napi-ID),\n"
          "a queue of rps-cpus or xps-cpus also before netpolld holds it. Open to every caller.\n"
          "Example: netpollctl explain busy-poll" },
        { "set", 2, ARGS_UNLIMITED, verb_set, "set KNOB VALUE [KNOB VALUE]...",
          "Set knobs to manual values.\n\n"
          "Example: netpollctl set softirq-budget 2ms\n"
          "Every pair is validated before anything changes; if the kernel refuses one,\n"
          "the knobs already set by this command are put back. A manual value holds\n"
          "until \"reset\" or a profile switch. Needs root or CAP_NET_ADMIN." },
        { "reset", 0, ARGS_UNLIMITED, verb_reset, "reset KNOB...|--all",
          "Hand knobs back to the profile.\n\n"
          "A reset knob gets its profile value if the profile sets one, else the value\n"
          "it had before netpolld changed it; knobs changed behind netpolld's back are\n"
          "taken back too. --all resets every knob whose origin is manual, adaptive or\n"
          "external. Needs root or CAP_NET_ADMIN." },
        { "profile", 0, 2, verb_profile,
          "profile [list | show NAME | set NAME | release | import-tuned NAME|PATH]",
          "List, show or switch profiles; convert a tuned profile.\n\n"
          "\"profile\" alone is \"profile list\" (the active profile is marked '*');\n"
          "\"show\" prints a profile resolved with its includes; \"set\" switches to it\n"
          "and pins it: [rule NAME] sections of netpolld.conf no longer switch until\n"
          "\"release\" hands the choice back to them (both need root or CAP_NET_ADMIN).\n\n"
          "\"import-tuned NAME|PATH [--output FILE] [--tuned-dir DIR]...\" converts a\n"
          "tuned profile (with its includes and variables) into a netpolld profile,\n"
          "offline: no bus or daemon needed. Every [sysctl] key that a netpolld knob\n"
          "writes becomes that knob, with a comment naming the tuned FILE:LINE; every\n"
          "other entry is listed on stderr and in a comment block at the end. NAME is\n"
          "looked up as DIR/NAME/tuned.conf in /etc/tuned then /usr/lib/tuned\n"
          "(--tuned-dir, repeatable, or $NETPOLLD_TUNED_PATH, colon-separated, replace\n"
          "them); --output writes FILE atomically (default: stdout).\n"
          "Example: netpollctl profile import-tuned network-latency \\\n"
          "           --output /etc/netpolld/profiles/from-tuned.conf" },
        { "irq", 0, 0, verb_irq, "irq",
          "Show IRQ and queue steering of every network device.\n\n"
          "One row per queue: DEVICE, QUEUE (rx-N, tx-N, or combined-N for one vector\n"
          "serving both), its NAPI instance, its IRQ, the IRQ's CPUs, the RPS and XPS\n"
          "CPUs and the STATE: applied, planned (dry run), kernel-managed (the kernel\n"
          "places the IRQ itself), irqbalance (irqbalance runs and moves IRQs),\n"
          "retrying, external (changed behind netpolld's back, left alone), manual\n"
          "(netpollctl set rps-cpus@DEV or xps-cpus@DEV holds it until reset), failed,\n"
          "or unmanaged (no [irq] policy for the device)." },
        { "metrics", 0, 0, verb_metrics, "metrics",
          "Print netpolld's metrics in the Prometheus text format.\n\n"
          "Knob values (times in seconds) and origins, controller decisions,\n"
          "busy-poll packets, queues and their IRQ placement, per-CPU load and\n"
          "time_squeeze; the families are listed in netpolld.conf(5). Open to every\n"
          "caller. --json wraps the text as {\"metrics\": TEXT}." },
        { "monitor", 0, 0, verb_monitor, "monitor [--once]",
          "Watch per-CPU load and knob changes as they happen.\n\n"
          "On a terminal: a screen refreshed every second with the runnable depth,\n"
          "NET_RX/s, squeeze/s and drops/s per CPU, the knobs and the last changes.\n"
          "Otherwise, or with --json: the knob table (not with --json), then one line\n"
          "per change. Runs until interrupted or until netpolld leaves the bus.\n"
          "--once prints one screen without terminal codes (JSON with --json) and exits." },
        { "pause", 0, 0, verb_pause, "pause",
          "Pause adaptation: the controller stops moving knobs.\n\n"
          "Values stay as they are until \"resume\". Needs root or CAP_NET_ADMIN." },
        { "resume", 0, 0, verb_resume, "resume",
          "Resume adaptation after \"pause\".\n\n"
          "Refused when the active profile does not enable adaptation.\n"
          "Needs root or CAP_NET_ADMIN." },
        { "reload", 0, 0, verb_reload, "reload",
          "Re-read netpolld.conf and the active profile.\n\n"
          "Like SIGHUP. An invalid file is refused and the running configuration\n"
          "stays in force. Needs root or CAP_NET_ADMIN." },
};

_printf_(1, 0) static void vprint_error(const char *fmt, va_list ap, int r) {
        fputs("netpollctl: ", stderr);
        vfprintf(stderr, fmt, ap);
        if (r < 0)
                fprintf(stderr, ": %s", strerror(-r));
        fputc('\n', stderr);
}

CtlStatus ctl_usage_error(const char *fmt, ...) {
        va_list ap;

        va_start(ap, fmt);
        vprint_error(fmt, ap, 0);
        va_end(ap);
        return CTL_USAGE;
}

CtlStatus ctl_failed(int r, const char *fmt, ...) {
        va_list ap;

        va_start(ap, fmt);
        vprint_error(fmt, ap, r < 0 ? r : -EIO);
        va_end(ap);
        return CTL_FAILED;
}

const char *ctl_bus_description(void) {
        return arg_bus_address ?: "the system bus";
}

static bool errno_is_disconnect(int r) {
        switch (-r) {
        case ECONNABORTED:
        case ECONNREFUSED:
        case ECONNRESET:
        case ENOTCONN:
        case EPIPE:
        case ESHUTDOWN:
                return true;
        default:
                return false;
        }
}

static void print_cannot_connect(int r) {
        fprintf(stderr, "netpollctl: cannot connect to netpolld on %s: %s; is netpolld running?\n",
                ctl_bus_description(), strerror(-r));
}

/* Daemon (and bus) errors whose exit code or message is not the default "1, their message". */
static const struct {
        const char *name;
        CtlStatus status;
        const char *message;    /* replaces the daemon's message when set */
        bool not_running;       /* says netpolld is not on the bus */
} bus_errors[] = {
        { BUS_ERROR_UNKNOWN_KNOB, CTL_REJECTED, NULL, false },
        { BUS_ERROR_INVALID_VALUE, CTL_REJECTED, NULL, false },
        { BUS_ERROR_UNKNOWN_PROFILE, CTL_REJECTED, NULL, false },
        { SD_BUS_ERROR_ACCESS_DENIED, CTL_FAILED,
          "permission denied: this command needs root or CAP_NET_ADMIN", false },
        { SD_BUS_ERROR_SERVICE_UNKNOWN, CTL_FAILED, NULL, true },
        { SD_BUS_ERROR_NAME_HAS_NO_OWNER, CTL_FAILED, NULL, true },
};

CtlStatus ctl_bus_failed(const sd_bus_error *error, int r) {
        const char *name = error ? error->name : NULL;

        if (r >= 0)
                r = -EIO;

        /* sd-bus reports local failures (socket gone, refused) as "System.Error.E*" names. */
        if ((!name || startswith(name, "System.Error.")) && errno_is_disconnect(r)) {
                print_cannot_connect(r);
                return CTL_FAILED;
        }

        if (name)
                for (size_t i = 0; i < ELEMENTSOF(bus_errors); i++) {
                        if (!streq(name, bus_errors[i].name))
                                continue;
                        if (bus_errors[i].not_running)
                                fprintf(stderr, "netpollctl: netpolld is not running on %s\n",
                                        ctl_bus_description());
                        else
                                fprintf(stderr, "netpollctl: %s\n",
                                        bus_errors[i].message ?: (error->message && error->message[0]
                                                                  ? error->message : strerror(-r)));
                        return bus_errors[i].status;
                }

        fprintf(stderr, "netpollctl: %s\n",
                error && error->message && error->message[0] ? error->message : strerror(-r));
        return CTL_FAILED;
}

int ctl_open_bus(sd_bus **ret) {
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        int r;

        /* netpolld's errors then carry their errno (sd_bus_error_get_errno(), sd_bus_call()'s result), not EIO. */
        r = sd_bus_error_add_map(bus_error_map);
        if (r < 0) {
                ctl_failed(r, "cannot register netpolld's D-Bus error names");
                return r;
        }

        if (arg_bus_address) {
                r = sd_bus_new(&bus);
                if (r >= 0)
                        r = sd_bus_set_address(bus, arg_bus_address);
                if (r >= 0)
                        r = sd_bus_set_bus_client(bus, 1);
                if (r >= 0)
                        r = sd_bus_start(bus);
        } else
                r = sd_bus_open_system(&bus);
        if (r < 0) {
                print_cannot_connect(r);
                return r;
        }

        *ret = TAKE_PTR(bus);
        return 0;
}

static const Verb *verb_find(const char *name) {
        for (size_t i = 0; i < ELEMENTSOF(verbs); i++)
                if (streq(verbs[i].name, name))
                        return &verbs[i];
        return NULL;
}

static void verb_help(const Verb *v) {
        printf("Usage: netpollctl [--json] [--bus-address=ADDR] %s\n\n%s\n", v->usage, v->description);
}

/* Usages longer than this put their description on a line of its own in the overview. */
#define HELP_USAGE_WIDTH 32

static void help(void) {
        int width = 0;

        for (size_t i = 0; i < ELEMENTSOF(verbs); i++)
                if (strlen(verbs[i].usage) <= HELP_USAGE_WIDTH)
                        width = MAX(width, (int) strlen(verbs[i].usage));

        printf("Usage: netpollctl [OPTIONS] COMMAND ...\n\n"
               "Query and tune netpolld, the network polling daemon.\n\n"
               "Commands:\n");
        for (size_t i = 0; i < ELEMENTSOF(verbs); i++) {
                const char *d = verbs[i].description;

                if (strlen(verbs[i].usage) > HELP_USAGE_WIDTH)
                        printf("  %s\n  %-*s  %.*s\n", verbs[i].usage, width, "", (int) strcspn(d, "\n"), d);
                else
                        printf("  %-*s  %.*s\n", width, verbs[i].usage, (int) strcspn(d, "\n"), d);
        }
        printf("\nOptions:\n"
               "  --json                 Print JSON instead of tables\n"
               "  --output=FILE          profile import-tuned: write the profile to FILE\n"
               "  --tuned-dir=DIR        profile import-tuned: look tuned profiles up in DIR\n"
               "                         (repeatable; default: $NETPOLLD_TUNED_PATH, else\n"
               "                         /etc/tuned, then /usr/lib/tuned)\n"
               "  --bus-address=ADDR     Talk to netpolld on this D-Bus address\n"
               "                         (default: $NETPOLLD_BUS_ADDRESS, else the system bus)\n"
               "  -h --help              Show this help; after a command, that command's help\n"
               "  --version              Show the version\n\n"
               "Run \"netpollctl COMMAND --help\" for a command's details; see netpollctl(8).\n");
}

/* Returns 1 to go on, 0 when done (--version), -EINVAL after printing a usage error. */
static int parse_argv(int argc, char **argv) {
        enum {
                ARG_JSON = 0x100,
                ARG_BUS_ADDRESS,
                ARG_VERSION,
                ARG_ALL,
                ARG_ONCE,
                ARG_OUTPUT,
                ARG_TUNED_DIR,
        };
        static const struct option options[] = {
                { "help", no_argument, NULL, 'h' },
                { "version", no_argument, NULL, ARG_VERSION },
                { "json", no_argument, NULL, ARG_JSON },
                { "bus-address", required_argument, NULL, ARG_BUS_ADDRESS },
                { "all", no_argument, NULL, ARG_ALL },
                { "once", no_argument, NULL, ARG_ONCE },
                { "output", required_argument, NULL, ARG_OUTPUT },
                { "tuned-dir", required_argument, NULL, ARG_TUNED_DIR },
                {}
        };
        const char *e;
        int c;

        /* Options may follow the verb ("netpollctl list --json", "reset --all"); "--" ends them. */
        opterr = 0;
        while ((c = getopt_long(argc, argv, ":h", options, NULL)) >= 0)
                switch (c) {
                case 'h':
                        arg_help = true;
                        break;
                case ARG_VERSION:
                        printf("netpollctl %s\n", PACKAGE_VERSION);
                        return 0;
                case ARG_JSON:
                        arg_json = true;
                        break;
                case ARG_BUS_ADDRESS:
                        if (!optarg[0]) {
                                ctl_usage_error("--bus-address needs a D-Bus address, e.g. unix:path=/run/dbus/system_bus_socket");
                                return -EINVAL;
                        }
                        arg_bus_address = optarg;
                        break;
                case ARG_ALL:
                        arg_all = true;
                        break;
                case ARG_ONCE:
                        arg_once = true;
                        break;
                case ARG_OUTPUT:
                        arg_output = optarg;
                        break;
                case ARG_TUNED_DIR:
                        if (strv_extend(&arg_tuned_dirs, optarg) < 0) {
                                ctl_failed(-ENOMEM, "cannot keep --tuned-dir");
                                return -ENOMEM;
                        }
                        break;
                case ':':
                        ctl_usage_error("option '%s' needs a value", argv[optind - 1]);
                        return -EINVAL;
                default:
                        /* "set busy-read -5" reaches here: say what is really wrong. */
                        if (argv[optind - 1][0] == '-' && argv[optind - 1][1] >= '0' && argv[optind - 1][1] <= '9')
                                ctl_usage_error("invalid value '%s': knob values are never negative",
                                                argv[optind - 1]);
                        else if (optopt)
                                ctl_usage_error("unknown option '-%c'; see 'netpollctl --help'", optopt);
                        else
                                ctl_usage_error("unknown option '%s'; see 'netpollctl --help'", argv[optind - 1]);
                        return -EINVAL;
                }

        e = getenv("NETPOLLD_BUS_ADDRESS");
        if (!arg_bus_address && e && e[0])
                arg_bus_address = e;

        return 1;
}

/* The one place results become exit codes. */
static int exit_code(CtlStatus s) {
        switch (s) {
        case CTL_OK:
                return 0;
        case CTL_USAGE:
        case CTL_REJECTED:
                return 2;
        case CTL_FAILED:
        default:
                return 1;
        }
}

static CtlStatus run(int argc, char **argv) {
        const Verb *v;
        unsigned n_args;
        CtlStatus s;
        int r;

        r = parse_argv(argc, argv);
        if (r < 0)
                return CTL_USAGE;
        if (r == 0)
                return CTL_OK;

        if (optind >= argc) {
                if (arg_help) {
                        help();
                        return CTL_OK;
                }
                return ctl_usage_error("missing command; see 'netpollctl --help'");
        }

        v = verb_find(argv[optind]);
        if (!v)
                return ctl_usage_error("unknown command '%s'; see 'netpollctl --help'", argv[optind]);
        if (arg_help) {
                verb_help(v);
                return CTL_OK;
        }

        n_args = (unsigned) (argc - optind - 1);
        if (arg_all && !streq(v->name, "reset"))
                s = ctl_usage_error("--all only applies to reset");
        else if (arg_once && !streq(v->name, "monitor"))
                s = ctl_usage_error("--once only applies to monitor");
        else if ((arg_output || arg_tuned_dirs) &&
                 !(streq(v->name, "profile") && n_args >= 1 && streq(argv[optind + 1], "import-tuned")))
                s = ctl_usage_error("--output and --tuned-dir only apply to profile import-tuned");
        else if (n_args < v->min_args)
                s = ctl_usage_error("%s needs %s%u argument%s", v->name,
                                    v->max_args != v->min_args ? "at least " : "",
                                    v->min_args, v->min_args == 1 ? "" : "s");
        else if (n_args > v->max_args)
                s = v->max_args == 0 ? ctl_usage_error("%s takes no arguments", v->name)
                                     : ctl_usage_error("%s takes at most %u arguments", v->name, v->max_args);
        else
                s = v->fn(argc - optind, argv + optind);

        if (s == CTL_USAGE)
                fprintf(stderr, "Usage: netpollctl [--json] [--bus-address=ADDR] %s\n", v->usage);
        return s;
}

int main(int argc, char **argv) {
        int code = exit_code(run(argc, argv));

        arg_tuned_dirs = strv_free(arg_tuned_dirs);
        /* Output that did not reach its reader is a failure, not success. */
        if (fflush(stdout) != 0 || ferror(stdout)) {
                fprintf(stderr, "netpollctl: cannot write output: %s\n", strerror(errno ?: EIO));
                return exit_code(CTL_FAILED);
        }
        return code;
}
