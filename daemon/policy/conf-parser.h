/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * conf-parser.h: the INI layer under netpolld.conf and the profiles. A
 * FileSpec names a file's sections and its table of {section, key, parser,
 * offset, min, max}; conf_parse_file() runs one file through libinih,
 * validates every key into a target structure, records it as an Entry with
 * its origin, and collects every problem as "FILE:LINE: [SECTION] KEY:
 * message" instead of stopping at the first. Also the value parsers that are
 * not specific to one file (conf-values.c: yes/no, times, counts, CPU
 * lists). Error lists are strv (common/strv.h).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "knob.h"
#include "macro.h"

/* inih splits longer lines silently (INI_MAX_LINE), so they are refused first. */
#define CONF_LINE_MAX 200
/* ConfigItem.offset of a key that is validated but stored nowhere (include=). */
#define CONF_NO_FIELD SIZE_MAX

typedef struct ConfigItem ConfigItem;
/* Parses value into field (NULL: validate only); -EINVAL with *ret_msg saying what was wrong and expected. */
typedef int (*ConfigParser)(const ConfigItem *it, const char *value, void *field, char **ret_msg);

struct ConfigItem {
        const char *section;
        const char *key;
        ConfigParser parse;
        size_t offset; /* into the structure being filled, CONF_NO_FIELD for validate-only keys */
        uint64_t min, max;
};

/* Where it stores into target; NULL for a validate-only key. */
void *config_item_field(const ConfigItem *it, void *target);

typedef struct FileSpec {
        const ConfigItem *items;   /* terminated by an entry with a NULL section */
        const char *const *sections;
        const char *sections_text; /* for the unknown-section message */
        bool knobs;                /* [knobs] takes knob references as keys */
        /*
         * Named sections "[WORD NAME]" (netpolld.conf's [rule NAME]), NULL for none.
         * Their keys are looked up in named_items. open_named() is
         * called at each header (-EINVAL with *ret_msg refuses it: its keys are
         * skipped); named_target() gives the structure its keys fill.
         */
        const char *named;
        const ConfigItem *named_items; /* their keys, section WORD */
        int (*open_named)(void *target, const char *name, const char *file, unsigned line, char **ret_msg);
        void *(*named_target)(void *target, const char *name);
} FileSpec;

/* NAME of a "[WORD NAME]" header of spec's named kind, or NULL when section is not one. */
const char *conf_named_section(const FileSpec *spec, const char *section);

/* One key as read from a file: validated, with its origin. */
typedef struct Entry {
        const ConfigItem *item; /* NULL for a [knobs] entry */
        const char *section;    /* static: the table's, or "knobs" */
        char *instance;         /* NAME of a named section ([rule NAME]), else NULL */
        char *key;              /* the table's key, or the canonical knob reference */
        char *value;
        char *file;
        unsigned line;
        bool valid;
        KnobRef ref;
        KnobValue kv;
} Entry;

typedef struct EntryList {
        Entry *v;
        size_t n;
} EntryList;

void entry_done(Entry *e);
void entry_list_done(EntryList *l);
Entry *entry_list_find(const EntryList *l, const char *section, const char *key);
/* The same within one named section ([rule NAME]: section "rule", instance NAME). */
Entry *entry_list_find_in(const EntryList *l, const char *section, const char *instance, const char *key);
/* Moves *e into l (also on failure, where it is freed). */
int entry_list_add(EntryList *l, Entry *e);

/*
 * Parses file into target and appends its keys to entries; problems are
 * appended to *errors. Returns the fopen() errno without reporting it (the
 * caller knows how to word it), -ENOMEM, or 0.
 */
int conf_parse_file(const FileSpec *spec, const char *file, void *target, EntryList *entries, char ***errors);

/* Appends "FILE:LINE: [SECTION] KEY: message"; line 0 and NULL section or key leave their part out. */
int conf_push_error(char ***errors, const char *file, unsigned line, const char *section, const char *key,
                    const char *fmt, ...) _printf_(6, 7);

/*
 * Ends a load: on failure other than -ENOMEM the errors go to *ret_errors (if
 * given); otherwise they are freed and, on success, *ret_errors is cleared.
 * Returns r.
 */
int conf_return_errors(int r, char **errors, char ***ret_errors);

/* Appends ", word" to *list (word alone when *list is NULL), for "one of: a, b, c" messages. */
int conf_list_append(char **list, const char *word);

/* For parsers: formats *ret_msg and returns -EINVAL (-ENOMEM when that fails). */
int conf_msgf(char **ret_msg, const char *fmt, ...) _printf_(2, 3);
/* For parsers: replaces the string in *(char **)field with a copy of v. */
int conf_set_string(void *field, const char *v);

/* A time in the largest unit that divides it exactly: "100ms", "1s", "50us", "0us". Returns buf. */
char *conf_format_usec(char *buf, size_t size, uint64_t usec);

/* Value parsers for ConfigItem tables; ranges come from the item's min and max. */
int conf_parse_text(const ConfigItem *it, const char *v, void *field, char **ret_msg);       /* char *, max = length */
int conf_parse_bool(const ConfigItem *it, const char *v, void *field, char **ret_msg);       /* bool */
int conf_parse_time_ms(const ConfigItem *it, const char *v, void *field, char **ret_msg);    /* uint64_t us, bare ms */
int conf_parse_time_us(const ConfigItem *it, const char *v, void *field, char **ret_msg);    /* uint64_t us, bare us */
int conf_parse_count(const ConfigItem *it, const char *v, void *field, char **ret_msg);      /* uint64_t */
int conf_parse_count_uint(const ConfigItem *it, const char *v, void *field, char **ret_msg); /* unsigned */
int conf_parse_percent(const ConfigItem *it, const char *v, void *field, char **ret_msg);    /* unsigned, "25%" */
int conf_parse_milli(const ConfigItem *it, const char *v, void *field, char **ret_msg);      /* uint64_t x1000 */
int conf_parse_cpuset(const ConfigItem *it, const char *v, void *field, char **ret_msg);     /* CpuSet, may be empty */
