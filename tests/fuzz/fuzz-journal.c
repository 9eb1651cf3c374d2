/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * fuzz-journal.c: the restore journal as journal_open() reads it after a
 * crash. A file is either refused (-EBADMSG with a reason naming the line)
 * or every entry it yields has a key the journal accepts, and the entries
 * survive a round trip: recorded into a fresh journal and read back, they
 * are the same. That is what the owner relies on when it rewrites the file
 * after restoring part of it.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz.h"
#include "journal.h"
#include "macro.h"

static bool entry_eq(const JournalEntry *a, const JournalEntry *b) {
        return streq(a->kind, b->kind) && streq(a->name, b->name) && streq(a->device, b->device) &&
               a->ifindex == b->ifindex && streq(a->key, b->key) && streq(a->original, b->original);
}

static void round_trip(const Journal *j) {
        _cleanup_(journal_freep) Journal *copy = NULL, *back = NULL;
        _cleanup_(freep) char *reason = NULL;
        char dir[4096];

        snprintf(dir, sizeof(dir), "%s/copy", fuzz_dir());
        fuzz_assert(journal_open(&copy, dir, NULL) == 0);
        fuzz_assert(journal_discard(copy) == 0);
        for (size_t i = 0; i < journal_size(j); i++)
                fuzz_assert(journal_record(copy, journal_at(j, i)) == 0);
        fuzz_assert(journal_open(&back, dir, &reason) == 0);
        fuzz_assert(journal_size(back) == journal_size(j));
        for (size_t i = 0; i < journal_size(j); i++)
                fuzz_assert(entry_eq(journal_at(back, i), journal_at(j, i)));
        fuzz_assert(journal_discard(back) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        _cleanup_(journal_freep) Journal *j = NULL;
        _cleanup_(freep) char *reason = NULL;
        int r;

        if (size > 64 * 1024)
                return 0;
        fuzz_write(JOURNAL_FILE, data, size);
        r = journal_open(&j, fuzz_dir(), &reason);
        if (r < 0) {
                fuzz_assert(!j);
                if (r == -EBADMSG)
                        fuzz_assert(reason && strncmp(reason, "line ", 5) == 0);
                return 0;
        }
        fuzz_assert(j);
        for (size_t i = 0; i < journal_size(j); i++) {
                const JournalEntry *e = journal_at(j, i);
                fuzz_assert(journal_key_valid(e->key));
                fuzz_assert(journal_get(j, e->key) == e);
                fuzz_assert(e->ifindex >= 0 && (*e->device != 0) == (e->ifindex > 0));
        }
        if (journal_size(j) > 0)
                round_trip(j);
        return 0;
}
