#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""journal-covers.py ROOT SNAP JOURNAL: the crash soak's invariant after a kill -9.

Every file of the fixture sysroot ROOT whose bytes differ from the snapshot SNAP
(the originals) must be listed in the restore journal JOURNAL with exactly the
snapshot's value as its original: netpolld journals before it writes, so a
crash at any moment leaves nothing changed that the next start cannot put
back. Prints the number of changed files; exits 1 with one line per violation
(or a malformed journal). A missing JOURNAL is an empty one.
"""
import os
import sys


def read_journal(path):
    try:
        with open(path, "rb") as f:
            text = f.read().decode("utf-8")
    except FileNotFoundError:
        return {}, []
    lines = text.split("\n")
    errors = []
    if not lines or not lines[0].startswith("netpolld-journal "):
        return {}, ["journal has no header: %r" % lines[:1]]
    if lines[-1] != "":
        errors.append("journal does not end in a newline")
    body = [line for line in lines[1:] if line != ""]
    if not body or not body[-1].startswith("end "):
        return {}, errors + ["journal has no 'end N' trailer"]
    entries = {}
    for line in body[:-1]:
        fields = line.split("\t")
        if len(fields) != 6:
            errors.append("journal line with %d fields: %r" % (len(fields), line))
            continue
        entries[fields[4]] = fields[5]
    if body[-1] != "end %d" % (len(body) - 1):
        errors.append("journal trailer %r does not count %d entries" % (body[-1], len(body) - 1))
    return entries, errors


def main():
    root, snap, journal = sys.argv[1:4]
    entries, errors = read_journal(journal)
    changed = 0
    for dirpath, _, files in os.walk(snap):
        for name in files:
            orig_path = os.path.join(dirpath, name)
            rel = os.path.relpath(orig_path, snap)
            with open(orig_path, "rb") as f:
                orig = f.read()
            try:
                with open(os.path.join(root, rel), "rb") as f:
                    now = f.read()
            except FileNotFoundError:
                errors.append("/%s is missing" % rel)
                continue
            if now == orig:
                continue
            changed += 1
            key = "/" + rel
            if key not in entries:
                errors.append("/%s changed (%r -> %r) but is not in the journal" % (rel, orig, now))
            elif entries[key] != orig.decode().rstrip("\n"):
                errors.append("/%s: journal original %r, the original was %r" % (rel, entries[key], orig))
    print(changed)
    for e in errors:
        print(e, file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
