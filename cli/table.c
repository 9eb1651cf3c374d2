/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * table.c: aligned text tables for netpollctl's human output (see table.h).
 */
#include "table.h"

#include <ctype.h>
#include <stdbool.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

struct Table {
        size_t n_columns;
        char **headers;         /* n_columns strings */
        char **cells;           /* n_rows * n_columns strings, row-major */
        size_t n_rows;
        size_t allocated_rows;
};

/* Cells come from the daemon (profile descriptions, paths): never let one break the layout. */
static char *cell_dup(const char *s, bool upper) {
        char *d;

        if (!s)
                s = "";
        d = strdup(s);
        if (!d)
                return NULL;
        for (char *p = d; *p; p++) {
                unsigned char c = (unsigned char) *p;

                if (c < 0x20 || c == 0x7f)
                        *p = ' ';
                else if (upper)
                        *p = (char) toupper(c);
        }
        return d;
}

/* Characters on screen, assuming one column per code point (good enough for names and units). */
static size_t text_width(const char *s) {
        size_t n = 0;

        for (; *s; s++)
                if (((unsigned char) *s & 0xC0) != 0x80)
                        n++;
        return n;
}

static void strings_free(char **l, size_t n) {
        if (!l)
                return;
        for (size_t i = 0; i < n; i++)
                free(l[i]);
        free(l);
}

Table *table_free(Table *t) {
        if (!t)
                return NULL;
        strings_free(t->headers, t->n_columns);
        strings_free(t->cells, t->n_rows * t->n_columns);
        free(t);
        return NULL;
}

int table_new(Table **ret, size_t n_columns, const char *const *headers) {
        _cleanup_(table_freep) Table *t = NULL;

        if (!ret || n_columns == 0 || !headers)
                return -EINVAL;
        for (size_t i = 0; i < n_columns; i++)
                if (!headers[i])
                        return -EINVAL;

        t = calloc(1, sizeof(Table));
        if (!t)
                return -ENOMEM;
        t->headers = calloc(n_columns, sizeof(char *));
        if (!t->headers)
                return -ENOMEM;
        /* Set only now: table_free() frees n_columns headers. */
        t->n_columns = n_columns;
        for (size_t i = 0; i < n_columns; i++) {
                t->headers[i] = cell_dup(headers[i], true);
                if (!t->headers[i])
                        return -ENOMEM;
        }

        *ret = TAKE_PTR(t);
        return 0;
}

int table_add_row(Table *t, const char *const *cells) {
        char **row;

        if (!t || !cells)
                return -EINVAL;

        if (t->n_rows == t->allocated_rows) {
                size_t n = MAX(t->allocated_rows * 2, (size_t) 8);
                char **c = reallocarray(t->cells, n * t->n_columns, sizeof(char *));

                if (!c)
                        return -ENOMEM;
                t->cells = c;
                t->allocated_rows = n;
        }

        row = t->cells + t->n_rows * t->n_columns;
        for (size_t i = 0; i < t->n_columns; i++) {
                const char *s = !cells[i] ? "" : cells[i][0] ? cells[i] : "-";

                row[i] = cell_dup(s, false);
                if (!row[i]) {
                        for (size_t j = 0; j < i; j++)
                                free(row[j]);
                        return -ENOMEM;
                }
        }
        t->n_rows++;
        return 0;
}

int table_add_cells(Table *t, ...) {
        _cleanup_(freep) const char **cells = NULL;
        va_list ap;

        if (!t)
                return -EINVAL;
        cells = calloc(t->n_columns, sizeof(char *));
        if (!cells)
                return -ENOMEM;
        va_start(ap, t);
        for (size_t i = 0; i < t->n_columns; i++)
                cells[i] = va_arg(ap, const char *);
        va_end(ap);

        return table_add_row(t, cells);
}

size_t table_get_rows(const Table *t) {
        return t ? t->n_rows : 0;
}

static void print_row(char *const *row, const size_t *widths, size_t n_columns, FILE *f) {
        size_t last = 0;

        /* Stop after the last non-empty cell so that no line ends in blanks. */
        for (size_t i = 0; i < n_columns; i++)
                if (row[i][0])
                        last = i;

        for (size_t i = 0; i <= last; i++) {
                fputs(row[i], f);
                if (i < last)
                        fprintf(f, "%*s", (int) (widths[i] - text_width(row[i]) + 2), "");
        }
        fputc('\n', f);
}

int table_print(const Table *t, FILE *f) {
        _cleanup_(freep) size_t *widths = NULL;

        if (!t || !f)
                return -EINVAL;

        widths = calloc(t->n_columns, sizeof(size_t));
        if (!widths)
                return -ENOMEM;
        for (size_t i = 0; i < t->n_columns; i++)
                widths[i] = text_width(t->headers[i]);
        for (size_t r = 0; r < t->n_rows; r++)
                for (size_t i = 0; i < t->n_columns; i++)
                        widths[i] = MAX(widths[i], text_width(t->cells[r * t->n_columns + i]));

        print_row(t->headers, widths, t->n_columns, f);
        for (size_t r = 0; r < t->n_rows; r++)
                print_row(t->cells + r * t->n_columns, widths, t->n_columns, f);

        return ferror(f) ? -EIO : 0;
}
