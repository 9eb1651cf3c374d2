/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * journal.h: the restore journal. Before netpolld first changes a kernel file
 * it records the file's original content here; the journal is rewritten
 * atomically (temporary file, fsync, rename, fsync of the directory) on
 * every change, so after a crash the next start finds every original and
 * puts it back. Paths are stored relative to the sysroot ("/proc/sys/...").
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
/* The recorded original for path, or NULL. Owned by the journal. */
const char *journal_original(const Journal *j, const char *path);
/* Full path of the journal file. Owned by the journal. */
const char *journal_path(const Journal *j);

/* Records path's original unless already recorded; persisted before returning. */
int journal_record(Journal *j, const char *knob, const char *path, const char *original);
/* Drops path's entry (the knob is no longer netpolld's to restore); persisted. */
int journal_forget(Journal *j, const char *path);

/*
 * Writes path's original back below sysroot and drops the entry. A file that
 * no longer exists (device gone) counts as restored. Unknown path: -ENOENT.
 */
int journal_restore(Journal *j, const char *sysroot, const char *path);

typedef void (*journal_report_fn)(const char *knob, const char *path, const char *original, int error, void *userdata);

/*
 * Restores every entry (journal_restore), calling report (may be NULL) for
 * each with 0 or the error. Entries that could not be written stay in the
 * journal; when none remain the file is removed. Returns the number of
 * entries that failed, or a negative errno if the journal file itself could
 * not be updated.
 */
int journal_replay(Journal *j, const char *sysroot, journal_report_fn report, void *userdata);

/* Drops every entry and removes the journal file (rollback = not-on-exit). */
int journal_discard(Journal *j);
