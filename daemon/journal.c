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
#include "sysroot.h"

#define JOURNAL_HEADER "netpolld-journal 1"
/* A real journal holds a few hundred short lines; anything this big is not one of ours. */
#define JOURNAL_SIZE_MAX (1024 * 1024)

typedef struct JournalEntry {
        char *knob;
        char *path;
        char *original;
} JournalEntry;

struct Journal {
        char *state_dir;
        char *path;
        JournalEntry *entries;
        size_t n;
        journal_restore_fn restore_hook; /* for "napi:" paths */
        void *restore_userdata;
};

static void entry_done(JournalEntry *e) {
        free(e->knob);
        free(e->path);
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

const char *journal_path_at(const Journal *j, size_t i) {
        return j && i < j->n ? j->entries[i].path : NULL;
}

void journal_set_restore_hook(Journal *j, journal_restore_fn fn, void *userdata) {
        j->restore_hook = fn;
        j->restore_userdata = userdata;
}

const char *journal_path(const Journal *j) {
        return j->path;
}

static ssize_t find_entry(const Journal *j, const char *path) {
        for (size_t i = 0; i < j->n; i++)
                if (streq(j->entries[i].path, path))
                        return (ssize_t)i;
        return -1;
}

const char *journal_original(const Journal *j, const char *path) {
        ssize_t i = path ? find_entry(j, path) : -1;
        return i < 0 ? NULL : j->entries[i].original;
}

static bool is_napi_path(const char *path) {
        return startswith(path, "napi:");
}

/*
 * Only kernel files may be restored: a journal must never write anywhere
 * else. "napi:" entries are never written as files (the restore hook sets
 * them over netlink), but they must still be well formed.
 */
static bool path_acceptable(const char *path) {
        if (is_napi_path(path))
                return journal_napi_path_parse(path, NULL, NULL, NULL) >= 0;
        return (startswith(path, "/proc/") || startswith(path, "/sys/")) && !strstr(path, "..");
}

static int append_entry(Journal *j, const char *knob, const char *path, const char *original) {
        JournalEntry e = {}, *a;

        a = realloc(j->entries, (j->n + 1) * sizeof(JournalEntry));
        if (!a)
                return -ENOMEM;
        j->entries = a;
        e.knob = strdup(knob);
        e.path = strdup(path);
        e.original = strdup(original);
        if (!e.knob || !e.path || !e.original) {
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

/* Parses one "KNOB\tPATH\tVALUE" line (modified in place) into j. */
static int parse_entry(Journal *j, char *line, unsigned lineno, char **ret_reason) {
        char *f[3], *p = line;

        for (size_t i = 0; i < 3; i++) {
                f[i] = p;
                p = strchr(p, '\t');
                if (i < 2) {
                        if (!p)
                                return fail(ret_reason, lineno, "expected KNOB<TAB>PATH<TAB>VALUE");
                        *p++ = 0;
                }
        }
        if (p || !*f[0] || !*f[1] || !*f[2])
                return fail(ret_reason, lineno, "expected KNOB<TAB>PATH<TAB>VALUE");
        if (!path_acceptable(f[1]))
                return fail(ret_reason, lineno, "path must start with /proc/ or /sys/ and must not contain \"..\", "
                                                      "or be napi:NETNS:ID:KNOB");
        if (find_entry(j, f[1]) >= 0)
                return fail(ret_reason, lineno, "duplicate path");
        return append_entry(j, f[0], f[1], f[2]);
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
        unsigned lineno = 1;
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
                        if (!streq(line, JOURNAL_HEADER))
                                return fail(ret_reason, lineno, "expected \"" JOURNAL_HEADER "\"");
                } else if (startswith(line, "end ") || streq(line, "end")) {
                        r = parse_trailer(j, line, lineno, ret_reason);
                        if (r < 0)
                                return r;
                        ended = true;
                } else {
                        r = parse_entry(j, line, lineno, ret_reason);
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
                fprintf(f, "%s\t%s\t%s\n", j->entries[i].knob, j->entries[i].path, j->entries[i].original);
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

static bool field_ok(const char *s) {
        return s && *s && !strpbrk(s, "\t\n");
}

int journal_record(Journal *j, const char *knob, const char *path, const char *original) {
        int r;

        if (!j || !field_ok(knob) || !field_ok(path) || !field_ok(original) || !path_acceptable(path))
                return -EINVAL;
        if (find_entry(j, path) >= 0)
                return 0;
        r = append_entry(j, knob, path, original);
        if (r < 0)
                return r;
        r = persist(j);
        if (r < 0)
                entry_done(&j->entries[--j->n]);
        return r;
}

/* Takes entry i out of memory and persists; on failure puts it back. *ret holds the entry either way. */
static int drop_entry(Journal *j, size_t i, JournalEntry *ret) {
        JournalEntry e = j->entries[i];
        int r;

        memmove(j->entries + i, j->entries + i + 1, (j->n - i - 1) * sizeof(JournalEntry));
        j->n--;
        r = persist(j);
        if (r < 0) {
                /* The array never shrinks, so slot n is still allocated. */
                memmove(j->entries + i + 1, j->entries + i, (j->n - i) * sizeof(JournalEntry));
                j->entries[i] = e;
                j->n++;
        }
        *ret = e;
        return r;
}

int journal_forget(Journal *j, const char *path) {
        ssize_t i = path ? find_entry(j, path) : -1;
        JournalEntry e;
        int r;

        if (i < 0)
                return -ENOENT;
        r = drop_entry(j, (size_t)i, &e);
        if (r >= 0)
                entry_done(&e);
        return r;
}

/* Writes entry i's original back; a vanished file (device removed) counts as done. */
static int write_original(const Journal *j, size_t i, const char *sysroot) {
        int r;

        if (is_napi_path(j->entries[i].path)) {
                /* Not a file: only the hook knows how (netlink); without one the entry waits. */
                if (!j->restore_hook)
                        return -EOPNOTSUPP;
                return j->restore_hook(j->entries[i].knob, j->entries[i].path, j->entries[i].original,
                                       j->restore_userdata);
        }
        r = sysroot_write_value(sysroot, j->entries[i].path, j->entries[i].original);
        return r == -ENOENT ? 0 : r;
}

int journal_restore(Journal *j, const char *sysroot, const char *path) {
        ssize_t i = path ? find_entry(j, path) : -1;
        int r;

        if (i < 0)
                return -ENOENT;
        r = write_original(j, (size_t)i, sysroot);
        if (r < 0)
                return r;
        return journal_forget(j, path);
}

int journal_replay(Journal *j, const char *sysroot, journal_report_fn report, void *userdata) {
        int persist_error = 0, failed;
        bool progress;

        /*
         * Keep going after any failure: every other original still belongs back
         * in the kernel. And go round again while a round restored something:
         * some values depend on others (the patched kernel refuses
         * napi_skb_cache_size below twice napi_skb_cache_bulk), so a value
         * refused before its partner was restored may be accepted after it.
         */
        do {
                progress = false;
                failed = 0;
                for (size_t i = 0; i < j->n;) {
                        JournalEntry e;
                        int r = write_original(j, i, sysroot);

                        if (r < 0) {
                                failed++;
                                i++;
                                continue;
                        }
                        progress = true;
                        r = drop_entry(j, i, &e);
                        if (report)
                                report(e.knob, e.path, e.original, r, userdata);
                        if (r < 0) {
                                if (!persist_error)
                                        persist_error = r;
                                i++;
                        } else
                                entry_done(&e);
                }
        } while (failed > 0 && progress);

        /* What is left failed in the last round too: say why, once each. */
        for (size_t i = 0; report && i < j->n; i++) {
                int r = write_original(j, i, sysroot);
                if (r < 0)
                        report(j->entries[i].knob, j->entries[i].path, j->entries[i].original, r, userdata);
        }
        return persist_error < 0 ? persist_error : failed;
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
