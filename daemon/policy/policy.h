/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * policy.h: netpolld.conf and profiles. Files are parsed with libinih into
 * fresh structures that the caller swaps in only when everything validated,
 * so a bad file (or a bad reload) changes nothing. Every problem found is
 * reported as "FILE:LINE: [SECTION] KEY: what is wrong, what is expected";
 * unknown sections and keys are errors.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "cpuset.h"
#include "knob.h"

#define NETPOLLD_CONF_FILE "/etc/netpolld/netpolld.conf"
#define DEFAULT_STATE_DIR "/run/netpolld"
#define DEFAULT_PROFILE "balanced"
#define DEFAULT_INTERVAL_USEC UINT64_C(100000)
#define MAX_INCLUDE_DEPTH 16

typedef enum Rollback {
        ROLLBACK_AUTO,        /* restore everything on stop */
        ROLLBACK_NOT_ON_EXIT, /* leave values on a clean stop (crash recovery still restores) */
} Rollback;

typedef enum RuleKind {
        RULE_UNIT,    /* a systemd unit is active (systemd's D-Bus signals) */
        RULE_PROCESS, /* a process with this comm name runs (/proc scan) */
        RULE_CGROUP,  /* a cgroup v2 directory exists (/sys/fs/cgroup scan) */
        _RULE_KIND_MAX,
} RuleKind;

/* A [rule NAME] section of netpolld.conf: while its condition holds, profile is in force. */
typedef struct Rule {
        char *name;
        char *file;         /* where its [rule NAME] header is */
        unsigned line;
        char *profile;      /* profile name or path */
        RuleKind kind;
        char *match;        /* unit name, comm name, or cgroup path below /sys/fs/cgroup (no leading '/') */
        unsigned n_matches; /* how many of unit=, process=, cgroup= were given (1 when valid) */
        unsigned priority;  /* higher wins; equal: the rule first in the file */
        uint64_t start_delay_us; /* the condition must hold this long before the switch */
        uint64_t stop_delay_us;  /* ...and be gone this long before the switch back */
} Rule;

#define RULE_NAME_MAX 32
#define RULE_DEFAULT_STOP_DELAY_USEC (5 * UINT64_C(1000000))
#define DEFAULT_RULE_SCAN_USEC UINT64_C(1000000)

typedef struct DaemonConfig {
        char *path;           /* file read; NULL when built from defaults */
        char *profile;        /* profile name or path */
        uint64_t interval_us; /* sampling interval */
        Rollback rollback;
        bool dry_run;
        char *state_dir;
        char *metrics_file; /* NULL: off */
        uint64_t rule_scan_us; /* how often process= and cgroup= rules look */
        Rule *rules;           /* [rule NAME] sections in file order */
        size_t n_rules;
} DaemonConfig;

/*
 * Loads path (NULL: NETPOLLD_CONF_FILE, where a missing file means defaults).
 * On -EINVAL *ret_errors lists every problem (strv, caller frees).
 */
int config_load(DaemonConfig **ret, const char *path, char ***ret_errors);
DaemonConfig *config_free(DaemonConfig *c);
static inline void config_freep(DaemonConfig **c) {
        if (*c)
                config_free(*c);
}

/* Where a value came from, for `--check-config` and `netpollctl profile show`. */
typedef struct Origin {
        char *file;
        unsigned line;
} Origin;

typedef struct ProfileKnob {
        KnobRef ref;
        KnobValue value;
        Origin origin;
} ProfileKnob;

typedef struct AdaptiveConfig {
        bool enabled;
        /* busy-poll yield */
        uint64_t runqueue_threshold_milli; /* average runnable tasks waiting, x1000 */
        unsigned hold;                     /* consecutive samples before acting */
        uint64_t min_dwell_us;             /* minimum time between two moves of one knob */
        uint64_t busy_poll_floor_us;       /* busy-read/busy-poll under load */
        CpuSet poll_cpus;                  /* where tasks waiting count; empty: every CPU */
        uint64_t pay_window_us;            /* polling that delivers no packet this long is stopped; 0: never */
        /* softirq / NAPI budget */
        uint64_t squeeze_threshold;        /* time_squeeze events per second */
        unsigned budget_step_percent;      /* raise by this much of the profile value per step */
        uint64_t netdev_budget_max;        /* packets */
        uint64_t netdev_budget_time_max_us;
        uint64_t softirq_budget_max_us;
        uint64_t quiet_period_us;          /* decay back after this long without squeezes */
        /* a busy-read yield also reaches live sockets (manager-livesock.c; keeps CAP_SYS_PTRACE) */
        bool live_sockets;
} AdaptiveConfig;

typedef enum IrqStrategy {
        IRQ_STRATEGY_SPREAD, /* one queue per CPU, device-local NUMA node first, cores before SMT siblings */
        IRQ_STRATEGY_PACK,   /* as few CPUs as possible */
        IRQ_STRATEGY_CPUS,   /* exactly the CPUs in cpus=, round robin */
} IrqStrategy;

typedef enum IrqMaskMode {
        IRQ_MASK_AUTO,     /* derived from the IRQ plan */
        IRQ_MASK_OFF,      /* empty mask */
        IRQ_MASK_EXPLICIT, /* the CpuSet given */
        IRQ_MASK_KEEP,     /* not touched */
} IrqMaskMode;

typedef struct IrqConfig {
        char **devices;      /* interface names or fnmatch patterns; NULL: steering off */
        IrqStrategy strategy;
        bool cpus_set;
        CpuSet cpus;         /* strategy=cpus: the CPUs; others: restrict to these */
        CpuSet exclude_cpus;
        IrqMaskMode rps, xps;
        CpuSet rps_cpus, xps_cpus;
        bool irqbalance_ban; /* irqbalance-ban: irqbalance.service gets --banirq= for every steered IRQ */
} IrqConfig;

/* Every key of a resolved profile with its final value and origin, in file order. */
typedef struct ProfileSetting {
        char *section;
        char *key;
        char *value;
        Origin origin;
} ProfileSetting;

typedef struct Profile {
        char *name;          /* "latency" */
        char *path;          /* file it was loaded from */
        char *description;
        char **chain;        /* files from this profile up its include chain (strv) */
        ProfileKnob *knobs;  /* [knobs] after includes, child wins */
        size_t n_knobs;
        AdaptiveConfig adaptive;
        IrqConfig irq;
        ProfileSetting *settings; /* [adaptive] and [irq] keys as resolved, for display */
        size_t n_settings;
} Profile;

/* Built-in search path used after any directories given on the command line. */
extern const char *const profile_default_dirs[];

/* A profile name: [A-Za-z0-9_.-], at most 64 characters, not starting with '.'. */
bool profile_name_valid(const char *name);

/*
 * Finds NAME.conf in dirs (strv, may be NULL) then profile_default_dirs; a
 * name_or_path containing '/' is the file itself. -ENOENT when not found.
 */
int profile_find(const char *name_or_path, char *const *dirs, char **ret_path);

/*
 * Loads a profile by name or path, following include= chains (cycles and
 * chains deeper than MAX_INCLUDE_DEPTH are errors). On -EINVAL or -ENOENT
 * *ret_errors lists every problem (strv, caller frees).
 */
int profile_load(Profile **ret, const char *name_or_path, char *const *dirs, char ***ret_errors);
/* A profile with the built-in defaults and nothing else: no name, file, knobs or settings. */
int profile_new(Profile **ret);
Profile *profile_free(Profile *p);
static inline void profile_freep(Profile **p) {
        if (*p)
                profile_free(*p);
}

/*
 * Whether the profile's [irq] section steers this rps-cpus@DEV / xps-cpus@DEV
 * (DEV matches devices= and rps/xps is not "keep"): then those files are
 * irqpin's, and neither [knobs] nor a manual set may write them.
 */
bool profile_steers_mask(const Profile *p, const KnobRef *ref);

/* The profile's value for a knob instance, or NULL. */
const ProfileKnob *profile_get_knob(const Profile *p, const KnobRef *ref);

/*
 * Every profile visible through dirs + profile_default_dirs, first found per
 * name wins, sorted by name. strv of names, caller frees.
 */
int profile_list(char *const *dirs, char ***ret);

/*
 * One line about the profile NAME of profile_list(), judged by profile_load()
 * through dirs exactly as the daemon and `netpolld --check-config` load it:
 * *ret_path is its file, *ret_summary its description, or for an invalid
 * profile "invalid: " and its first error ("FILE:LINE: ..."). Reads files
 * only. -ENOENT when NAME is no longer in the search path.
 */
int profile_summary(const char *name, char *const *dirs, char **ret_path, char **ret_summary);

/* "auto", "not-on-exit"; NULL for an unknown value. */
const char *rollback_to_string(Rollback r);
bool rollback_from_string(const char *s, Rollback *ret);

/* "unit", "process", "cgroup"; NULL for an unknown kind. */
const char *rule_kind_to_string(RuleKind k);
/* The rule called name, or NULL. */
const Rule *config_find_rule(const DaemonConfig *c, const char *name);

/* A time in the largest unit that divides it exactly: "100ms", "1s", "50us", "0us". Returns buf. */
char *policy_format_usec(char *buf, size_t size, uint64_t usec);

/* Internal, for profile.c: the key table of profile files (conf-parser.h), defined in policy.c. */
struct FileSpec;
extern const struct FileSpec profile_file_spec;

/* Internal, for policy.c (rules.c): [rule NAME] keys, headers, and the checks after the file was read. */
struct ConfigItem;
extern const struct ConfigItem *const rule_items;
/* The ConfigParser of a profile name or path (include=, profile=). */
int policy_parse_profile_ref(const struct ConfigItem *it, const char *v, void *field, char **ret_msg);
int rule_open_section(void *config, const char *name, const char *file, unsigned line, char **ret_msg);
void *rule_section_target(void *config, const char *name);
int rules_check(const DaemonConfig *c, char ***errors);
void rules_free(Rule *rules, size_t n);
/*
 * Loads each rule's profile through dirs as a switch would; every one that
 * cannot be loaded is an error at its rule's header ("FILE:LINE: [rule NAME]
 * profile: ...") followed by the profile's own errors. 0, -EINVAL or -ENOMEM.
 */
int rules_check_profiles(const DaemonConfig *c, char *const *dirs, char ***errors);
