/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * journal.h: the restore journal, a durable map from a kernel value's key to
 * its original. Before netpolld first changes a value the owner (owner.h)
 * records the original here; the file is rewritten atomically (temporary
 * file, fsync, rename, fsync of the directory) on every change, so after a
 * crash the next start finds every original. The journal never touches the
 * kernel itself: the owner restores what it lists.
 *
 * An entry names its value by kind, name, device (by name and ifindex, so
 * that a value of a device that went away is never written onto another
 * device that took its name) and key: the file below the sysroot
 * ("/proc/sys/net/core/busy_read") or "napi:ID:KNOB" for a per-NAPI value.
 *
 * File format (text, one entry per line, fields separated by one TAB):
 *   netpolld-journal 2
 *   KIND<TAB>NAME<TAB>DEVICE<TAB>IFINDEX<TAB>KEY<TAB>ORIGINAL   (DEVICE "-", IFINDEX 0: no device)
 *   end <number of entries>
 * KIND "dropin" is a systemd unit drop-in netpolld wrote (the irqbalance
 * ban, irqbalance-ban.h): KEY is its path below the sysroot, a .conf below
 * /run/systemd/system/, and ORIGINAL "absent"; restoring it removes it.
 * Version 1 journals (NAME<TAB>PATH<TAB>ORIGINAL, no device identity) are
 * still read. Anything else, including a missing or wrong "end" line, is
 * corruption: journal_open() refuses the file with -EBADMSG and leaves it
 * in place.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#define JOURNAL_FILE "restore.journal"

typedef struct Journal Journal;

typedef struct JournalEntry {
        char *kind;     /* target_kind_to_string() */
        char *name;     /* "busy-read", "rps-cpus@eth1:rx-0" */
        char *device;   /* "" when the value belongs to no device */
        int ifindex;    /* the device's ifindex when the original was taken; 0: none or unknown */
        char *key;
        char *original;
} JournalEntry;

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
/* Entry i (recording order), or NULL past the end. Owned by the journal; valid until the next change. */
const JournalEntry *journal_at(const Journal *j, size_t i);
/* The entry for key, or NULL. Owned by the journal; valid until the next change. */
const JournalEntry *journal_get(const Journal *j, const char *key);
/* Full path of the journal file. Owned by the journal. */
const char *journal_path(const Journal *j);
/* The directory it was opened in. Owned by the journal. */
const char *journal_dir(const Journal *j);
/* Whether key is one the journal accepts: a path below /proc/ or /sys/ without "..", or napi:ID:KNOB. */
bool journal_key_valid(const char *key);

/* The kind of a journaled systemd drop-in (see above). */
#define JOURNAL_KIND_DROPIN "dropin"
/* journal_key_valid(), or for kind JOURNAL_KIND_DROPIN a .conf path below /run/systemd/system/. */
bool journal_entry_key_valid(const char *kind, const char *key);

/* Records e (copied) unless its key is recorded already; on disk before returning. -EINVAL for bad fields. */
int journal_record(Journal *j, const JournalEntry *e);
/* Drops key's entry; persisted. -ENOENT when there is none. */
int journal_forget(Journal *j, const char *key);
/* Drops every entry and removes the journal file (rollback = not-on-exit). */
int journal_discard(Journal *j);
