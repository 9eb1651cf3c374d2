/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * journal.h: the restore journal. Before netpolld first changes a kernel file
 * it records the file's original content here; the journal is rewritten
 * atomically (temporary file, fsync, rename, fsync of the directory) on
 * every change, so after a crash the next start finds every original and
 * puts it back. Paths are stored relative to the sysroot ("/proc/sys/...").
 *
 * Values that are not files (per-NAPI knobs, set with netdev netlink
 * napi-set) are journaled too, under a path that cannot be a file:
 *   napi:NETNS:ID:KNOB
 * NETNS is "-" for netpolld's own network namespace, else the namespace
 * file ("/run/netns/NAME") with '%', ':' and bytes outside printable ASCII
 * written as %XX; ID is the NAPI instance (decimal, not 0); KNOB is the
 * knob's name ([a-z0-9-]). The journal cannot write these itself: a
 * restore hook (journal_set_restore_hook) does. They came in without a new
 * format version: old journals stay valid, and an older netpolld refuses a
 * journal holding them as corrupt and leaves it in place (fails safe).
 *
 * File format (text, one entry per line, fields separated by one TAB):
 *   netpolld-journal 1
 *   <knob instance>\t<path>\t<original content>
 *   end <number of entries>
 * Anything else, including a missing or wrong "end" line, is corruption:
 * journal_open() refuses the file with -EBADMSG and leaves it in place.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define JOURNAL_FILE "restore.journal"

typedef struct Journal Journal;

/*
 * Opens the journal of state_dir and loads any entries a previous run left.
 * The directory is created on the first record, not here. On -EBADMSG,
 * *ret_reason (when not NULL) names the line and problem.
 */
int journal_open(Journal **ret, const char *state_dir, char **ret_reason);
Journal *journal_free(Journal *j);
static inline void journal_freep(Journal **j) {
        if (*j)
                journal_free(*j);
}

size_t journal_size(const Journal *j);
/* The path of entry i (recording order), or NULL past the end. Owned by the journal. */
const char *journal_path_at(const Journal *j, size_t i);
/* The recorded original for path, or NULL. Owned by the journal. */
const char *journal_original(const Journal *j, const char *path);
/* Full path of the journal file. Owned by the journal. */
const char *journal_path(const Journal *j);

/* Records path's original unless already recorded; persisted before returning. */
int journal_record(Journal *j, const char *knob, const char *path, const char *original);
/* Drops path's entry (the knob is no longer netpolld's to restore); persisted. */
int journal_forget(Journal *j, const char *path);

/* The path of a per-NAPI entry; netns NULL: our own namespace. Caller frees. -EINVAL for bad fields. */
int journal_napi_path(const char *netns, uint32_t napi_id, const char *knob, char **ret);
/*
 * Splits a "napi:NETNS:ID:KNOB" path (each ret_* may be NULL; *ret_netns
 * NULL for our own namespace, else the unescaped file name; caller frees
 * the strings). -EINVAL when path is not of that form.
 */
int journal_napi_path_parse(const char *path, char **ret_netns, uint32_t *ret_napi_id, char **ret_knob);

/*
 * Puts back the original of an entry that is not a file ("napi:" paths).
 * Returns 0 when restored (a NAPI instance or namespace that is gone counts
 * as restored), else a negative errno (the entry then stays).
 */
typedef int (*journal_restore_fn)(const char *knob, const char *path, const char *original, void *userdata);
/* Sets (fn NULL: clears) the hook journal_restore/journal_replay call for "napi:" paths. */
void journal_set_restore_hook(Journal *j, journal_restore_fn fn, void *userdata);

/*
 * Writes path's original back below sysroot and drops the entry. A file that
 * no longer exists (device gone) counts as restored. A "napi:" path goes to
 * the restore hook; without one it fails with -EOPNOTSUPP and stays.
 * Unknown path: -ENOENT.
 */
int journal_restore(Journal *j, const char *sysroot, const char *path);

typedef void (*journal_report_fn)(const char *knob, const char *path, const char *original, int error, void *userdata);

/*
 * Restores every entry (journal_restore), calling report (may be NULL) for
 * each with 0 or the error; entries the kernel refused are tried again
 * after the others as long as a round restores something (values that
 * depend on each other), and reported once, last. Entries that could not be written stay in the
 * journal; when none remain the file is removed. Returns the number of
 * entries that failed, or a negative errno if the journal file itself could
 * not be updated.
 */
int journal_replay(Journal *j, const char *sysroot, journal_report_fn report, void *userdata);

/* Drops every entry and removes the journal file (rollback = not-on-exit). */
int journal_discard(Journal *j);
