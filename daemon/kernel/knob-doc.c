/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * knob-doc.c: the knob catalog written out as a Markdown table and as roff
 * .TP entries (see knob-doc.h). Every word about a knob comes from its
 * catalog entry; only the layout is here.
 */
#include "knob-doc.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <string.h>

#include "knob.h"
#include "macro.h"
#include "units.h"

int knob_doc_format_from_string(const char *s, KnobDocFormat *ret) {
        static const char *const names[_KNOB_DOC_FORMAT_MAX] = {
                [KNOB_DOC_MARKDOWN] = "markdown",
                [KNOB_DOC_MAN] = "man",
        };

        for (KnobDocFormat f = 0; s && f < _KNOB_DOC_FORMAT_MAX; f++)
                if (streq(s, names[f])) {
                        *ret = f;
                        return 0;
                }
        return -EINVAL;
}

/* "microseconds" for a man page reader; NULL for a size that is not a unit. */
static const char *time_unit_long(uint64_t base_ns) {
        switch (base_ns) {
        case 1: return "nanoseconds";
        case NSEC_PER_USEC: return "microseconds";
        case NSEC_PER_MSEC: return "milliseconds";
        case NSEC_PER_SEC: return "seconds";
        default: return NULL;
        }
}

/* "100us to 100000us", "1 to 1000"; CPU sets have no range. */
static void format_range(const KnobDesc *d, char *buf, size_t size) {
        char lo[32], hi[32];

        if (d->type == KNOB_TIME)
                snprintf(buf, size, "%s to %s", format_time(lo, sizeof(lo), d->min, d->unit_ns),
                         format_time(hi, sizeof(hi), d->max, d->unit_ns));
        else
                snprintf(buf, size, "%" PRIu64 " to %" PRIu64, d->min, d->max);
}

/* The directory of a queue knob's files below /sys/class/net/DEV. */
static const char *queue_glob(const KnobDesc *d) {
        return d->scope == KNOB_RX_QUEUES ? "queues/rx-*" : "queues/tx-*";
}

static bool entry_complete(const KnobDesc *d) {
        return d->name && d->path && d->unit && d->summary && (d->type != KNOB_TIME || time_unit_long(d->unit_ns));
}

/* ---- Markdown ---- */

/* s as the text of a table cell: '|' would end the cell. */
static void md_put(FILE *f, const char *s) {
        for (; *s; s++) {
                if (*s == '|')
                        fputc('\\', f);
                fputc(*s, f);
        }
}

static void md_entry(FILE *f, const KnobDesc *d) {
        const char *dev = d->scope == KNOB_GLOBAL ? "" : "@DEV";
        const char *pct = strstr(d->path, "%s");
        char range[96];

        fprintf(f, "| `%s%s` | `", d->name, dev);
        if (d->scope == KNOB_GLOBAL)
                md_put(f, d->path);
        else if (d->scope == KNOB_DEVICE && pct)
                fprintf(f, "%.*sDEV%s", (int)(pct - d->path), d->path, pct + 2);
        else if (d->scope == KNOB_NAPIS && d->device_file) {
                pct = strstr(d->device_file, "%s");
                fprintf(f, "netlink netdev napi-set %s`, older kernels `%.*sDEV%s", d->path,
                        (int)(pct - d->device_file), d->device_file, pct + 2);
        } else if (d->scope == KNOB_NAPIS)
                fprintf(f, "netlink netdev napi-set %s", d->path);
        else
                fprintf(f, "/sys/class/net/DEV/%s/%s", queue_glob(d), d->path);
        fputs("` | ", f);
        md_put(f, d->unit);
        fputs(" | ", f);
        if (d->type == KNOB_CPUSET)
                fputs("CPU list such as `0-3,8`, or `none`", f);
        else if (d->type == KNOB_ENUM)
                for (size_t i = 0; d->values[i]; i++)
                        fprintf(f, "%s`%s`", i ? ", " : "", d->values[i]);
        else {
                format_range(d, range, sizeof(range));
                md_put(f, range);
        }
        if (d->kernel_limit) {
                fputs("; ", f);
                md_put(f, d->kernel_limit);
        }
        fputs(" | ", f);
        if (d->patch)
                fprintf(f, "`%s`", d->patch);
        else if (d->kernel)
                fprintf(f, "upstream, %s", d->kernel);
        else
                fputs("upstream", f);
        fputs(" | ", f);
        md_put(f, d->summary);
        fputs(" |\n", f);
}

/* ---- roff ---- */

/*
 * s for a man page: backslashes escaped, a leading '.' or '\'' kept from
 * becoming a request, and with minus set '-' as \- (names and paths, so that
 * they can be copied; prose keeps its hyphens).
 */
static void roff_put(FILE *f, const char *s, size_t n, bool minus) {
        if (n > 0 && (s[0] == '.' || s[0] == '\''))
                fputs("\\&", f);
        for (size_t i = 0; i < n && s[i]; i++) {
                if (s[i] == '\\')
                        fputs("\\e", f);
                else if (s[i] == '-' && minus)
                        fputs("\\-", f);
                else
                        fputc(s[i], f);
        }
}

static void roff_puts(FILE *f, const char *s, bool minus) {
        roff_put(f, s, strlen(s), minus);
}

/* A summary as a sentence: capital first letter, full stop. */
static void roff_sentence(FILE *f, const char *s) {
        char first[2] = { s[0] >= 'a' && s[0] <= 'z' ? (char)(s[0] - 'a' + 'A') : s[0], 0 };

        roff_puts(f, first, false);
        if (s[0])
                roff_puts(f, s + 1, false);
        fputs(".\n", f);
}

static void man_entry(FILE *f, const KnobDesc *d) {
        const char *pct = strstr(d->path, "%s");
        char range[96];

        fputs(".TP\n", f);
        if (d->scope == KNOB_GLOBAL) {
                fputs(".B ", f);
                roff_puts(f, d->name, true);
                fputs("\n", f);
        } else {
                fputs(".BI ", f);
                roff_puts(f, d->name, true);
                fputs("@ DEVICE\n", f);
        }
        roff_sentence(f, d->summary);

        /* The value: what is typed, its range, and what else the kernel refuses. */
        fputs(".br\n", f);
        format_range(d, range, sizeof(range));
        switch (d->type) {
        case KNOB_TIME:
                fprintf(f, "Time (a bare number is %s), %s", time_unit_long(d->unit_ns), range);
                break;
        case KNOB_COUNT:
                fprintf(f, "Count%s%s, %s", d->unit[0] ? " of " : "", d->unit, range);
                break;
        case KNOB_CPUSET:
                fputs("CPU list such as\n.BR 0\\-3,8 ,\nor\n.B none\nfor the empty set", f);
                break;
        case KNOB_ENUM:
                /* "One of .BR a , .BR b or .B c" then "\&" so the text after goes on a line of its own. */
                fputs("One of", f);
                for (size_t i = 0; d->values[i]; i++) {
                        bool last = !d->values[i + 1];
                        fputs(last ? (i ? "\nor\n.B " : "\n.B ") : "\n.BR ", f);
                        roff_puts(f, d->values[i], true);
                        if (!last && d->values[i + 2])
                                fputs(" ,", f);
                }
                fputs("\n\\&", f);
                break;
        }
        if (d->scope == KNOB_RX_QUEUES || d->scope == KNOB_TX_QUEUES)
                fprintf(f, "; written to every %s queue of the device",
                        d->scope == KNOB_RX_QUEUES ? "receive" : "transmit");
        if (d->scope == KNOB_NAPIS)
                fputs("; written to every NAPI instance of the device", f);
        if (d->kernel_limit) {
                fputs("; ", f);
                roff_puts(f, d->kernel_limit, false);
        }
        fputs(".\n", f);

        /* Where it lives in the kernel, and the patch that adds it when upstream lacks it. */
        if (d->scope == KNOB_NAPIS) {
                fputs(".br\nKernel setting \\fI", f);
                roff_puts(f, d->path, true);
                fputs("\\fR of every NAPI instance, through the netdev generic netlink family (napi-set)", f);
                if (d->device_file) {
                        pct = strstr(d->device_file, "%s");
                        fputs("; on kernels whose instances lack it, the file \\fI\\%", f);
                        roff_put(f, d->device_file, (size_t)(pct - d->device_file), true);
                        fputs("\\fBDEVICE\\fI", f);
                        roff_puts(f, pct + 2, true);
                        fputs("\\fR", f);
                }
                fputs(".\n", f);
        } else {
                fputs(".br\nKernel file \\fI\\%", f);
                if (d->scope == KNOB_GLOBAL)
                        roff_puts(f, d->path, true);
                else if (d->scope == KNOB_DEVICE && pct) {
                        roff_put(f, d->path, (size_t)(pct - d->path), true);
                        fputs("\\fBDEVICE\\fI", f);
                        roff_puts(f, pct + 2, true);
                } else {
                        fputs("/sys/class/net/\\fBDEVICE\\fI/", f);
                        roff_puts(f, queue_glob(d), true);
                        fputs("/", f);
                        roff_puts(f, d->path, true);
                }
                fputs("\\fR.\n", f);
        }
        if (d->patch) {
                /* On lines of their own: a long file name would stretch the line before it. \% keeps it whole. */
                fputs(".br\nAdded by the kernel patch\n.br\n.IR \\%", f);
                roff_puts(f, d->patch, true);
                fputs(" .\n", f);
        }
        if (d->kernel) {
                fputs(d->device_file ? ".br\nPer NAPI instance from " : ".br\nNeeds ", f);
                roff_puts(f, d->kernel, false);
                fputs(d->device_file ? ".\n" : "; older kernels list it as unsupported.\n", f);
        }
}

int knob_doc_dump(FILE *f, KnobDocFormat format) {
        if (format < 0 || format >= _KNOB_DOC_FORMAT_MAX)
                return -EINVAL;
        for (size_t i = 0; i < knob_catalog_size; i++)
                if (!entry_complete(&knob_catalog[i]))
                        return -EINVAL;

        if (format == KNOB_DOC_MARKDOWN)
                fputs("| knob | kernel file | unit | range | kernel patch | summary |\n"
                      "|---|---|---|---|---|---|\n", f);
        for (size_t i = 0; i < knob_catalog_size; i++)
                if (format == KNOB_DOC_MARKDOWN)
                        md_entry(f, &knob_catalog[i]);
                else
                        man_entry(f, &knob_catalog[i]);
        return fflush(f) != 0 || ferror(f) ? -EIO : 0;
}
