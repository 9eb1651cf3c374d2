/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * table.h: the aligned text tables netpollctl prints for people: a header
 * row in capitals, then rows of cells, each column as wide as its widest
 * cell, two spaces between columns and no trailing blanks. Pure: it formats
 * into a FILE and never logs.
 */
#pragma once

#include <stddef.h>
#include <stdio.h>

#include "macro.h"

typedef struct Table Table;

/*
 * A table with n_columns columns (at least one) and these headers (copied
 * and upper-cased: the header row is always in capitals; an empty header
 * leaves its column blank, e.g. for a marker column). -EINVAL for no
 * columns or a NULL header.
 */
int table_new(Table **ret, size_t n_columns, const char *const *headers);
Table *table_free(Table *t);
DEFINE_TRIVIAL_CLEANUP_FUNC(Table *, table_free);

/*
 * Appends a row of exactly n_columns cells (copied). An empty cell is shown
 * as "-" so that a column never looks shifted; a NULL cell stays blank (for
 * marker columns). Control characters are shown as spaces so that a cell can
 * never break a line.
 */
int table_add_row(Table *t, const char *const *cells);

/* Same with the cells as arguments; exactly n_columns of them. */
int table_add_cells(Table *t, ...);

size_t table_get_rows(const Table *t);

/*
 * Prints the header row and every row. Widths count UTF-8 characters, not bytes. Returns 0 or -EIO when f fails.
 */
int table_print(const Table *t, FILE *f);
