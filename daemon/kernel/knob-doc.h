/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * knob-doc.h: the knob catalog (knob.h) as documentation, for the hidden
 * option `netpolld --dump-catalog`: the Markdown table of docs/dbus.md and
 * the roff entries of netpolld.conf(5) [knobs]. tests/check-catalog-docs.sh
 * fails when those files hold anything else, so the documents cannot drift
 * from the table the daemon runs on.
 */
#pragma once

#include <stdio.h>

typedef enum KnobDocFormat {
        KNOB_DOC_MARKDOWN,
        KNOB_DOC_MAN,
        _KNOB_DOC_FORMAT_MAX,
} KnobDocFormat;

/* "markdown" or "man"; -EINVAL for anything else. */
int knob_doc_format_from_string(const char *s, KnobDocFormat *ret);

/* Writes every catalog entry to f. -EINVAL for an entry without name, unit or summary; -EIO when f fails. */
int knob_doc_dump(FILE *f, KnobDocFormat format);
