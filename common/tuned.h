/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tuned.h: reading tuned profiles, shared by "netpollctl profile
 * import-tuned" (cli/tuned-import.h maps them onto the catalog) and the
 * daemon's other-owner hint (which tuned profile line sets a sysctl): the
 * INI dialect tuned's loader reads (tuned-ini.c), the profile chain with its
 * includes, merge and variables (tuned-profile.c, tuned-expand.c). Pure but
 * for reading the profile files (regular files only, bounded lines and
 * expansion); nothing here logs. Errors come back as a negative errno and a
 * message naming the file and line ("FILE:LINE: what").
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "macro.h"
#include "tuned-expand.h"

/* One "key = value" of a tuned file, with where it was written. */
typedef struct TunedOption {
        char *key;
        char *value;    /* continuation lines joined with '\n', inline comment removed */
        char *file;
        unsigned line;
        char *text;     /* the line as written (trimmed), for comments and the report */
} TunedOption;

typedef struct TunedSection {
        char *name;
        TunedOption *options;
        size_t n_options;
} TunedSection;

/* A parsed tuned.conf, sections and options in file order (a repeated one keeps its first place). */
typedef struct TunedFile {
        char *path;
        TunedSection *sections;
        size_t n_sections;
} TunedFile;

/* An entry tuned sets that the import does not carry over, and why. */
typedef struct TunedNote {
        char *file;     /* NULL when not from one line */
        unsigned line;
        char *text;
        char *reason;
} TunedNote;

/* A unit (plugin instance) of the merged profile; the keys tuned's loader takes out are fields. */
typedef struct TunedUnit {
        char *name;
        char *type;             /* the plugin: "type" or the section name */
        bool enabled;
        bool replace;
        char *drop;             /* the "drop" value, or NULL */
        TunedOption *condition; /* cpuinfo_regex or uname_regex: tuned applies it on matching hosts only */
        TunedOption *options;
        size_t n_options;
} TunedUnit;

typedef struct TunedProfile {
        char *name;
        char *summary;          /* [main] summary, or NULL */
        char **files;           /* every file read, in load order */
        TunedUnit *units;
        size_t n_units;
        TunedVars vars;         /* [variables] of the merged profile, for tuned_expand() */
        TunedNote *notes;       /* what loading could not follow (unresolved includes, variables) */
        size_t n_notes;
} TunedProfile;

/*
 * The longest line of a tuned file the import reads, in bytes before the
 * newline. tuned sets no limit; the profiles tuned 2.20 ships stay under
 * 180. The netpolld profile repeats tuned lines only in comments wrapped
 * below netpolld's own limit (CONF_LINE_MAX, 199 characters), and a knob's
 * value is a short number, so a tuned line may be longer than a netpolld
 * one: room for a long [bootloader] cmdline, bounded all the same.
 */
#define TUNED_LINE_MAX 4095

/*
 * The longest profile name the import takes, in bytes. The name goes into
 * two lines of the netpolld profile (its first comment and its
 * description), which must stay within the line netpolld reads
 * (tuned-map.c asserts it); tuned's own names are a few dozen characters.
 */
#define TUNED_NAME_MAX 100

/* How much of a line, value or name a message repeats: this many bytes, then "...". */
#define TUNED_EXCERPT_MAX 64
#define TUNED_EXCERPT_SIZE (TUNED_EXCERPT_MAX + sizeof("..."))

/* s, or its first TUNED_EXCERPT_MAX bytes (a UTF-8 character is not split) and "..." in buf. */
const char *tuned_excerpt(const char *s, char buf[static TUNED_EXCERPT_SIZE]);

/* The default search path, highest priority first, as tuned 2.20 looks: /etc/tuned, /usr/lib/tuned. */
extern const char *const tuned_default_dirs[];

/* TunedOption/TunedNote helpers shared by the three files. */
void tuned_option_done(TunedOption *o);
int tuned_option_copy(const TunedOption *o, TunedOption *ret);
void tuned_note_done(TunedNote *n);
/* Appends a note (copies everything); from may be NULL. 0 or -ENOMEM. */
int tuned_notes_add(TunedNote **notes, size_t *n, const TunedOption *from, const char *fmt, ...) _printf_(4, 5);
/* "FILE:LINE: fmt..." into *ret_error (caller frees); returns r. */
int tuned_error(char **ret_error, int r, const char *file, unsigned line, const char *fmt, ...) _printf_(5, 6);
/* Grows *p (of size-byte elements) to hold need; 0 or -ENOMEM. */
int tuned_grow(void **p, size_t *allocated, size_t need, size_t size);

/*
 * Parses f (read from path) as tuned's loader does (Python's configparser:
 * '=' only, '#' and ';' comment lines, " #" inline comments, indented lines
 * continue a value, a repeated section or key merges, the later value wins).
 * -EBADMSG with *ret_error for a line that is none of these or a key before
 * any section, a line longer than TUNED_LINE_MAX or a value (continuation
 * lines joined) longer than TUNED_VALUE_MAX.
 */
int tuned_file_parse(const char *path, FILE *f, TunedFile **ret, char **ret_error);
/* A variables file: like tuned_file_parse(), keys before any header in section "variables", "KEY" alone ignored. */
int tuned_variables_file_parse(const char *path, FILE *f, TunedFile **ret, char **ret_error);
TunedFile *tuned_file_free(TunedFile *f);
DEFINE_TRIVIAL_CLEANUP_FUNC(TunedFile *, tuned_file_free);
/* The section named name, or NULL. */
TunedSection *tuned_file_section(TunedFile *f, const char *name);

/*
 * Loads a profile like tuned: NAME is looked up as DIR/NAME/tuned.conf in
 * dirs (highest priority first, NULL-terminated; NULL for the defaults), a
 * value with '/' is a tuned.conf or its directory. Includes are followed
 * (comma or semicolon separated, "-NAME" optional, a file already loaded is
 * skipped and the next directory tried, as tuned does), the profiles merged
 * (later ones override; replace=1 and drop= as tuned), [variables] and
 * ${i:PROFILE_DIR} expanded. Errors (-EINVAL a name with other characters
 * than letters, digits, '_', '.', '-', or a name, or a PATH's directory
 * name, longer than TUNED_NAME_MAX; -ENOENT missing profile, -ELOOP a
 * profile that includes one of its own includers, -EBADMSG a malformed
 * line, -E2BIG a variable or the [variables] together past TUNED_VALUE_MAX
 * once expanded, a read error) set *ret_error naming the file and line.
 */
int tuned_profile_load(const char *name_or_path, char *const *dirs, TunedProfile **ret, char **ret_error);
TunedProfile *tuned_profile_free(TunedProfile *p);
DEFINE_TRIVIAL_CLEANUP_FUNC(TunedProfile *, tuned_profile_free);
