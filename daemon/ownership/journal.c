/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * journal.c: the restore journal: entries in memory in recording order, a
 * strict parser for the file a previous run left, and an atomic rewrite of
 * the whole file on every change so memory and disk always agree.
 */
#include "journal.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "macro.h"

#define JOURNAL_HEADER "netpolld-journal 2"
#define JOURNAL_HEADER_V1 "netpolld-journal 1"
/* A real journal holds a few hundred short lines; anything this big is not one of ours. */
#define JOURNAL_SIZE_MAX (1024 * 1024)

struct Journal {
        char *state_dir;
        char *path;
        JournalEntry *entries;
        size_t n;
};

static void entry_done(JournalEntry *e) {
        free(e->kind);
        free(e->name);
        free(e->device);
        free(e->key);
        free(e->original);
}

Journal *journal_free(Journal *j) {
        if (!j)
                return NULL;
        for (size_t i = 0; i < j->n; i++)
                entry_done(&j->entries[i]);
        free(j->entries);
        free(j->state_dir);
        free(j->path);
        free(j);
        return NULL;
}

size_t journal_size(const Journal *j) {
        return j ? j->n : 0;
}

const JournalEntry *journal_at(const Journal *j, size_t i) {
        return j && i < j->n ? &j->entries[i] : NULL;
}

const char *journal_path(const Journal *j) {
        return j->path;
}

const char *journal_dir(const Journal *j) {
        return j->state_dir;
}

static ssize_t find_entry(const Journal *j, const char *key) {
        for (size_t i = 0; j && i < j->n; i++)
                if (streq(j->entries[i].key, key))
                        return (ssize_t)i;
        return -1;
}

const JournalEntry *journal_get(const Journal *j, const char *key) {
        ssize_t i = key ? find_entry(j, key) : -1;
        return i < 0 ? NULL : &j->entries[i];
}

static bool word_ok(const char *s, size_t len) {
        if (len == 0)
                return false;
        for (size_t i = 0; i < len; i++)
                if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '-'))
                        return false;
        return true;
}

/* "napi:ID:KNOB" with ID a decimal NAPI id (not 0) and KNOB [a-z0-9-]+. */
static bool napi_key_ok(const char *key) {
        const char *p = startswith(key, "napi:"), *colon;
        char *end;

        if (!p || !(*p >= '1' && *p <= '9'))
                return false;
        errno = 0;
        unsigned long long id = strtoull(p, &end, 10);
        if (errno || id > UINT32_MAX || *end != ':')
                return false;
        colon = end + 1;
        return word_ok(colon, strlen(colon));
}

/*
 * Only kernel files and per-NAPI values may be restored: a journal must
 * never make netpolld write anywhere else.
 */
bool journal_key_valid(const char *key) {
        if (!key)
                return false;
        if (startswith(key, "napi:"))
                return napi_key_ok(key);
        return (startswith(key, "/proc/") || startswith(key, "/sys/")) && !strstr(key, "..") &&
               !strpbrk(key, "\t\n");
}

bool journal_entry_key_valid(const char *kind, const char *key) {
        if (kind && streq(kind, JOURNAL_KIND_DROPIN))
                return key && startswith(key, "/run/systemd/system/") && endswith(key, ".conf") &&
                       !strstr(key, "..") && !strpbrk(key, "\t\n");
        return journal_key_valid(key);
}

static bool field_ok(const char *s) {
        return s && *s && !strpbrk(s, "\t\n");
}

static int append_entry(Journal *j, const JournalEntry *in) {
        JournalEntry e = {}, *a;

        a = realloc(j->entries, (j->n + 1) * sizeof(JournalEntry));
        if (!a)
                return -ENOMEM;
        j->entries = a;
        e.kind = strdup(in->kind);
        e.name = strdup(in->name);
        e.device = strdup(in->device ?: "");
        e.ifindex = in->ifindex;
        e.key = strdup(in->key);
        e.original = strdup(in->original);
        if (!e.kind || !e.name || !e.device || !e.key || !e.original) {
                entry_done(&e);
                return -ENOMEM;
        }
        j->entries[j->n++] = e;
        return 0;
}

static int fail(char **ret_reason, unsigned line, const char *what) {
        if (ret_reason && asprintf(ret_reason, "line %u: %s", line, what) < 0)
                *ret_reason = NULL;
        return -EBADMSG;
}

/* Splits line (modified in place) at TABs into exactly n fields; false otherwise. */
static bool split_fields(char *line, char **f, size_t n) {
        char *p = line;

        for (size_t i = 0; i < n; i++) {
                f[i] = p;
                p = strchr(p, '\t');
                if (i + 1 < n) {
                        if (!p)
                                return false;
                        *p++ = 0;
                }
        }
        return !p;
}

/* The kind of a version 1 entry, which had none: told by its path. */
static const char *v1_kind(const char *path) {
        if (startswith(path, "napi:"))
                return "napi";
        if (startswith(path, "/proc/irq/"))
                return "irq";
        if (endswith(path, "/rps_cpus"))
                return "rps";
        if (endswith(path, "/xps_cpus"))
                return "xps";
        return startswith(path, "/sys/") ? "sysfs" : "sysctl";
}

/*
 * Parses one entry line (modified in place) into j:
 *   version 2: KIND<TAB>NAME<TAB>DEVICE<TAB>IFINDEX<TAB>KEY<TAB>ORIGINAL (DEVICE "-": none)
 *   version 1: NAME<TAB>PATH<TAB>ORIGINAL (no device identity: restored as before)
 * Version 1 "napi:NETNS:ID:KNOB" paths are accepted for netpolld's own namespace only.
 */
static int parse_entry(Journal *j, char *line, unsigned version, unsigned lineno, char **ret_reason) {
        static const char *const v2_form = "expected KIND<TAB>NAME<TAB>DEVICE<TAB>IFINDEX<TAB>KEY<TAB>VALUE";
        JournalEntry e = {};
        char *f[6], *end;
        _cleanup_(freep) char *v1_key = NULL;

        if (version == 1) {
                if (!split_fields(line, f, 3) || !*f[0] || !*f[1] || !*f[2])
                        return fail(ret_reason, lineno, "expected KNOB<TAB>PATH<TAB>VALUE");
                const char *own = startswith(f[1], "napi:-:");
                if (own && asprintf(&v1_key, "napi:%s", own) < 0)
                        return -ENOMEM;
                e = (JournalEntry){ .kind = (char *)v1_kind(f[1]), .name = f[0], .device = (char *)"",
                                    .key = v1_key ?: f[1], .original = f[2] };
        } else {
                if (!split_fields(line, f, 6) || !*f[0] || !*f[1] || !*f[2] || !*f[3] || !*f[4] || !*f[5])
                        return fail(ret_reason, lineno, v2_form);
                if (!word_ok(f[0], strlen(f[0])))
                        return fail(ret_reason, lineno, "KIND must be a word of a-z, 0-9 and -");
                errno = 0;
                long ifindex = strtol(f[3], &end, 10);
                if (errno || *end || ifindex < 0 || ifindex > INT32_MAX)
                        return fail(ret_reason, lineno, "IFINDEX must be a number from 0");
                if (streq(f[2], "-") != (ifindex == 0))
                        return fail(ret_reason, lineno, "DEVICE \"-\" goes with IFINDEX 0, a device with its ifindex");
                e = (JournalEntry){ .kind = f[0], .name = f[1], .device = streq(f[2], "-") ? (char *)"" : f[2],
                                    .ifindex = (int)ifindex, .key = f[4], .original = f[5] };
        }
        if (!journal_entry_key_valid(e.kind, e.key))
                return fail(ret_reason, lineno, streq(e.kind, JOURNAL_KIND_DROPIN) ?
                            "a dropin's key must be a .conf below /run/systemd/system/ without \"..\"" :
                            "the key must be a path below /proc/ or /sys/ without \"..\", or napi:ID:KNOB");
        if (find_entry(j, e.key) >= 0)
                return fail(ret_reason, lineno, "duplicate key");
        return append_entry(j, &e);
}

static int parse_trailer(const Journal *j, const char *line, unsigned lineno, char **ret_reason) {
        const char *n = startswith(line, "end ");
        char want[32];

        snprintf(want, sizeof(want), "%zu", j->n);
        if (!n || !streq(n, want)) {
                _cleanup_(freep) char *msg = NULL;
                if (asprintf(&msg, "expected \"end %s\" (the number of entries)", want) < 0)
                        return -ENOMEM;
                return fail(ret_reason, lineno, msg);
        }
        return 0;
}

/* Parses the whole file text (NUL-terminated, len bytes, modified in place). */
static int parse_journal(Journal *j, char *text, size_t len, char **ret_reason) {
        char *line = text, *nl;
        unsigned lineno = 1, version = 0;
        bool ended = false;
        int r;

        if (memchr(text, 0, len)) {
                unsigned l = 1;
                for (const char *c = text; *c; c++)
                        l += *c == '\n';
                return fail(ret_reason, l, "contains a NUL byte");
        }
        for (; *line; line = nl + 1, lineno++) {
                nl = strchr(line, '\n');
                if (!nl)
                        return fail(ret_reason, lineno, "line is not terminated by a newline");
                *nl = 0;
                if (ended)
                        return fail(ret_reason, lineno, "unexpected content after the end line");
                if (lineno == 1) {
                        if (streq(line, JOURNAL_HEADER))
                                version = 2;
                        else if (streq(line, JOURNAL_HEADER_V1))
                                version = 1;
                        else
                                return fail(ret_reason, lineno, "expected \"" JOURNAL_HEADER "\"");
                } else if (startswith(line, "end ") || streq(line, "end")) {
                        r = parse_trailer(j, line, lineno, ret_reason);
                        if (r < 0)
                                return r;
                        ended = true;
                } else {
                        r = parse_entry(j, line, version, lineno, ret_reason);
                        if (r < 0)
                                return r;
                }
        }
        if (lineno == 1)
                return fail(ret_reason, lineno, "expected \"" JOURNAL_HEADER "\"");
        if (!ended)
                return fail(ret_reason, lineno, "missing \"end N\" line (the file is truncated)");
        return 0;
}

/* Whole file into a NUL-terminated buffer; -EBADMSG (with reason) when too large. */
static int read_journal_file(const char *path, char **ret, size_t *ret_len, char **ret_reason) {
        _cleanup_(closep) int fd = -EBADF;
        _cleanup_(freep) char *buf = NULL;
        size_t len = 0;

        fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
        if (fd < 0)
                return negative_errno();
        buf = malloc(JOURNAL_SIZE_MAX + 2);
        if (!buf)
                return -ENOMEM;
        /* Read one byte past the limit to see whether the file exceeds it. */
        while (len <= JOURNAL_SIZE_MAX) {
                ssize_t n = read(fd, buf + len, JOURNAL_SIZE_MAX + 1 - len);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0)
                        return negative_errno();
                if (n == 0)
                        break;
                len += (size_t)n;
        }
        if (len > JOURNAL_SIZE_MAX) {
                if (ret_reason && asprintf(ret_reason, "file larger than %d bytes", JOURNAL_SIZE_MAX) < 0)
                        *ret_reason = NULL;
                return -EBADMSG;
        }
        buf[len] = 0;
        *ret = TAKE_PTR(buf);
        *ret_len = len;
        return 0;
}

int journal_open(Journal **ret, const char *state_dir, char **ret_reason) {
        _cleanup_(journal_freep) Journal *j = NULL;
        _cleanup_(freep) char *text = NULL;
        size_t len;
        int r;

        if (!state_dir || !*state_dir)
                return -EINVAL;
        j = calloc(1, sizeof(Journal));
        if (!j)
                return -ENOMEM;
        j->state_dir = strdup(state_dir);
        if (!j->state_dir || asprintf(&j->path, "%s/%s", state_dir, JOURNAL_FILE) < 0) {
                j->path = NULL;
                return -ENOMEM;
        }
        r = read_journal_file(j->path, &text, &len, ret_reason);
        if (r == -ENOENT) {
                *ret = TAKE_PTR(j);
                return 0;
        }
        if (r < 0)
                return r;
        r = parse_journal(j, text, len, ret_reason);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(j);
        return 0;
}

static int mkdir_p(const char *dir) {
        _cleanup_(freep) char *p = strdup(dir);

        if (!p)
                return -ENOMEM;
        for (char *s = strchr(p + 1, '/');; s = strchr(s + 1, '/')) {
                if (s)
                        *s = 0;
                if (*p && mkdir(p, 0755) < 0 && errno != EEXIST)
                        return negative_errno();
                if (!s)
                        return 0;
                *s = '/';
        }
}

static int fsync_dir(const char *dir) {
        _cleanup_(closep) int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

        if (fd < 0 || fsync(fd) < 0)
                return negative_errno();
        return 0;
}

static int write_all(int fd, const char *buf, size_t len) {
        while (len > 0) {
                ssize_t n = write(fd, buf, len);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0)
                        return negative_errno();
                buf += n;
                len -= (size_t)n;
        }
        return 0;
}

static char *format_journal(const Journal *j, size_t *ret_len) {
        char *buf = NULL;
        size_t size = 0;
        FILE *f = open_memstream(&buf, &size);

        if (!f)
                return NULL;
        fputs(JOURNAL_HEADER "\n", f);
        for (size_t i = 0; i < j->n; i++)
                fprintf(f, "%s\t%s\t%s\t%d\t%s\t%s\n", j->entries[i].kind, j->entries[i].name,
                        *j->entries[i].device ? j->entries[i].device : "-", j->entries[i].ifindex, j->entries[i].key,
                        j->entries[i].original);
        fprintf(f, "end %zu\n", j->n);
        if (fclose(f) != 0) {
                free(buf);
                return NULL;
        }
        *ret_len = size;
        return buf;
}

/* Writes the in-memory state to disk atomically; an empty journal is no file at all. */
static int persist(Journal *j) {
        _cleanup_(freep) char *tmp = NULL, *text = NULL;
        _cleanup_(closep) int fd = -EBADF;
        size_t len;
        int r;

        if (j->n == 0) {
                if (unlink(j->path) < 0)
                        return errno == ENOENT ? 0 : negative_errno();
                return fsync_dir(j->state_dir);
        }
        text = format_journal(j, &len);
        if (!text)
                return -ENOMEM;
        r = mkdir_p(j->state_dir);
        if (r < 0)
                return r;
        if (asprintf(&tmp, "%s/." JOURNAL_FILE ".XXXXXX", j->state_dir) < 0) {
                tmp = NULL;
                return -ENOMEM;
        }
        fd = mkostemp(tmp, O_CLOEXEC);
        if (fd < 0)
                return negative_errno();
        r = write_all(fd, text, len);
        if (r >= 0 && fsync(fd) < 0)
                r = negative_errno();
        if (r >= 0 && close(TAKE_FD(fd)) < 0)
                r = negative_errno();
        if (r >= 0 && rename(tmp, j->path) < 0)
                r = negative_errno();
        if (r < 0) {
                (void)unlink(tmp);
                return r;
        }
        return fsync_dir(j->state_dir);
}

int journal_record(Journal *j, const JournalEntry *e) {
        int r;

        if (!j || !e || !field_ok(e->kind) || !word_ok(e->kind, strlen(e->kind)) || !field_ok(e->name) ||
            !field_ok(e->original) || !journal_entry_key_valid(e->kind, e->key) || e->ifindex < 0 ||
            (e->device && strpbrk(e->device, "\t\n")) || (e->device && *e->device) != (e->ifindex > 0) ||
            /* "-" means "no device" in the file: a device of that name (a valid one) would not read back. */
            (e->device && streq(e->device, "-")))
                return -EINVAL;
        if (find_entry(j, e->key) >= 0)
                return 0;
        r = append_entry(j, e);
        if (r < 0)
                return r;
        r = persist(j);
        if (r < 0)
                entry_done(&j->entries[--j->n]);
        return r;
}

int journal_forget(Journal *j, const char *key) {
        ssize_t i = key ? find_entry(j, key) : -1;
        JournalEntry e;
        int r;

        if (i < 0)
                return -ENOENT;
        e = j->entries[i];
        memmove(j->entries + i, j->entries + i + 1, (j->n - i - 1) * sizeof(JournalEntry));
        j->n--;
        r = persist(j);
        if (r < 0) {
                /* The array never shrinks, so slot n is still allocated. */
                memmove(j->entries + i + 1, j->entries + i, (j->n - i) * sizeof(JournalEntry));
                j->entries[i] = e;
                j->n++;
                return r;
        }
        entry_done(&e);
        return 0;
}

int journal_discard(Journal *j) {
        size_t n = j->n;
        int r;

        j->n = 0;
        r = persist(j);
        if (r < 0) {
                j->n = n;
                return r;
        }
        for (size_t i = 0; i < n; i++)
                entry_done(&j->entries[i]);
        return 0;
}
