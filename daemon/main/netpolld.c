/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * netpolld.c: main(): options, --check-config and --dump-catalog; the
 * daemon itself is the Manager's (manager_run(), core/manager-run.c).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bus.h"
#include "check-config.h"
#include "knob-doc.h"
#include "log.h"
#include "manager.h"
#include "strv.h"

static char *arg_config = NULL;
static char *arg_profile = NULL;
static char **arg_profile_dirs = NULL;
static const char *arg_sysroot = NULL;
static const char *arg_state_dir = NULL;
static const char *arg_bus_address = NULL;
static bool arg_dry_run = false;
static bool arg_check_config = false;
static const char *arg_log_level = NULL;
static int arg_dump_catalog = -1; /* a KnobDocFormat: print the catalog for the documents and exit */

/*
 * Paths from the command line are made absolute: they show up in D-Bus
 * properties and logs, where a path relative to an unknown directory helps
 * nobody.
 */
static int absolute(const char *path, char **ret) {
        _cleanup_(freep) char *cwd = NULL;
        char *p;

        if (path[0] == '/')
                p = strdup(path);
        else {
                cwd = get_current_dir_name();
                if (!cwd)
                        return negative_errno();
                if (asprintf(&p, "%s/%s", cwd, path) < 0)
                        p = NULL;
        }
        if (!p)
                return -ENOMEM;
        free(*ret);
        *ret = p;
        return 0;
}

static void help(void) {
        printf("Usage: netpolld [OPTIONS...]\n\n"
               "Tunes the kernel's network polling knobs according to a profile.\n\n"
               "  -c --config FILE       Read FILE instead of " NETPOLLD_CONF_FILE "\n"
               "  -p --profile NAME|PATH Use this profile instead of the configured one\n"
               "  -P --profile-dir DIR   Look for profiles in DIR first (repeatable)\n"
               "     --sysroot DIR       Read and write /proc and /sys below DIR\n"
               "                         (default: $NETPOLLD_SYSROOT or /)\n"
               "     --state-dir DIR     Keep the restore journal in DIR\n"
               "     --bus-address ADDR  Use this D-Bus address instead of the system bus\n"
               "                         (default: $NETPOLLD_BUS_ADDRESS)\n"
               "     --dry-run           Log every write and make none\n"
               "     --check-config      Validate the configuration and profile, print the\n"
               "                         resolved profile, and exit\n"
               "     --log-level LEVEL   Log up to LEVEL: emerg alert crit err warning notice\n"
               "                         info debug, or 0-7 (default: $NETPOLLD_LOG_LEVEL, info)\n"
               "  -h --help              Show this help\n"
               "     --version           Show the version\n\n"
               "See netpolld(8) and netpolld.conf(5).\n");
}

/* --log-level, else $NETPOLLD_LOG_LEVEL (unset or empty: info). A bad value is a usage error. */
static int set_log_level(void) {
        const char *what = "--log-level", *value = arg_log_level;
        int level;

        if (!value) {
                what = "NETPOLLD_LOG_LEVEL";
                value = getenv(what);
                if (!value || !*value)
                        return 1;
        }
        level = log_level_from_string(value);
        if (level < 0) {
                fprintf(stderr, "netpolld: invalid %s value '%s': expected one of " LOG_LEVEL_NAMES ", or 0-7\n",
                        what, value);
                return -EINVAL;
        }
        log_set_max_level(level);
        return 1;
}

static int parse_argv(int argc, char *argv[]) {
        enum {
                ARG_SYSROOT = 0x100,
                ARG_STATE_DIR,
                ARG_BUS_ADDRESS,
                ARG_DRY_RUN,
                ARG_CHECK_CONFIG,
                ARG_LOG_LEVEL,
                ARG_VERSION,
                ARG_DUMP_CATALOG,
        };
        static const struct option options[] = {
                { "config", required_argument, NULL, 'c' },
                { "profile", required_argument, NULL, 'p' },
                { "profile-dir", required_argument, NULL, 'P' },
                { "sysroot", required_argument, NULL, ARG_SYSROOT },
                { "state-dir", required_argument, NULL, ARG_STATE_DIR },
                { "bus-address", required_argument, NULL, ARG_BUS_ADDRESS },
                { "dry-run", no_argument, NULL, ARG_DRY_RUN },
                { "check-config", no_argument, NULL, ARG_CHECK_CONFIG },
                { "log-level", required_argument, NULL, ARG_LOG_LEVEL },
                { "help", no_argument, NULL, 'h' },
                { "version", no_argument, NULL, ARG_VERSION },
                /* Not in --help: for documentation tooling (netpolld(8), tests/check-catalog-docs.sh). */
                { "dump-catalog", optional_argument, NULL, ARG_DUMP_CATALOG },
                {}
        };
        int c;

        opterr = 0; /* our own messages, without argv[0]'s path */
        while ((c = getopt_long(argc, argv, ":c:p:P:h", options, NULL)) >= 0)
                switch (c) {
                case 'c':
                        if (absolute(optarg, &arg_config) < 0)
                                return log_oom();
                        break;
                case 'p':
                        /* A name stays a name; a path (it has a '/') becomes absolute. */
                        if (!strchr(optarg, '/')) {
                                free(arg_profile);
                                arg_profile = strdup(optarg);
                                if (!arg_profile)
                                        return log_oom();
                        } else if (absolute(optarg, &arg_profile) < 0)
                                return log_oom();
                        break;
                case 'P': {
                        _cleanup_(freep) char *dir = NULL;
                        if (absolute(optarg, &dir) < 0 || strv_push(&arg_profile_dirs, dir) < 0)
                                return log_oom();
                        dir = NULL;
                        break;
                }
                case ARG_SYSROOT: arg_sysroot = optarg; break;
                case ARG_STATE_DIR:
                        if (optarg[0] != '/')
                                return log_error_errno(-EINVAL, "--state-dir needs an absolute path, got '%s'", optarg);
                        arg_state_dir = optarg;
                        break;
                case ARG_BUS_ADDRESS: arg_bus_address = optarg; break;
                case ARG_DRY_RUN: arg_dry_run = true; break;
                case ARG_CHECK_CONFIG: arg_check_config = true; break;
                case ARG_LOG_LEVEL: arg_log_level = optarg; break;
                case 'h': help(); return 0;
                case ARG_VERSION: printf("netpolld %s\n", PACKAGE_VERSION); return 0;
                case ARG_DUMP_CATALOG: {
                        KnobDocFormat format = KNOB_DOC_MARKDOWN;
                        if (optarg && knob_doc_format_from_string(optarg, &format) < 0) {
                                fprintf(stderr, "netpolld: invalid --dump-catalog format '%s': expected markdown or man\n",
                                        optarg);
                                return -EINVAL;
                        }
                        arg_dump_catalog = (int)format;
                        break;
                }
                case ':':
                        fprintf(stderr, "netpolld: option '%s' needs an argument\nTry 'netpolld --help'.\n",
                                argv[optind - 1]);
                        return -EINVAL;
                default:
                        fprintf(stderr, "netpolld: unrecognized option '%s'\nTry 'netpolld --help'.\n",
                                argv[optind - 1]);
                        return -EINVAL;
                }
        if (optind < argc) {
                fprintf(stderr, "netpolld: unexpected argument '%s'\nTry 'netpolld --help'.\n", argv[optind]);
                return -EINVAL;
        }
        if (!arg_sysroot)
                arg_sysroot = getenv("NETPOLLD_SYSROOT") ?: "/";
        if (!arg_bus_address)
                arg_bus_address = getenv("NETPOLLD_BUS_ADDRESS");
        return set_log_level();
}

static int run(void) {
        _cleanup_(manager_freep) Manager *m = NULL;
        ManagerOptions o = {
                .config_path = arg_config,
                .profile = arg_profile,
                .profile_dirs = arg_profile_dirs,
                .sysroot = arg_sysroot,
                .state_dir = arg_state_dir,
                .dry_run = arg_dry_run,
        };
        int r;

        r = manager_new(&m, &o);
        if (r < 0)
                return log_error_errno(r, "cannot set up: %m");
        return manager_run(m, bus_attach, (void *)arg_bus_address);
}

int main(int argc, char *argv[]) {
        int r;

        log_set_program("netpolld");
        /* Under systemd, structured journal entries instead of prefixed stderr lines. */
        log_set_target(LOG_TARGET_AUTO);
        r = parse_argv(argc, argv);
        if (r <= 0) {
                strv_free(arg_profile_dirs);
                free(arg_config);
                free(arg_profile);
                return r < 0 ? 2 : EXIT_SUCCESS;
        }
        if (arg_dump_catalog >= 0) {
                r = knob_doc_dump(stdout, (KnobDocFormat)arg_dump_catalog);
                if (r < 0)
                        log_error_errno(r, "cannot print the knob catalog: %m");
        } else if (arg_check_config)
                r = check_config(arg_config, arg_profile, arg_profile_dirs, arg_sysroot, stdout, stderr) == 0
                            ? 0 : -EINVAL;
        else
                r = run();
        strv_free(arg_profile_dirs);
        free(arg_config);
        free(arg_profile);
        return r < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
