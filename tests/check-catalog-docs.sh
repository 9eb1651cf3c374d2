#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# check-catalog-docs.sh: the knob tables in the documents are what the knob
# catalog (knob_catalog[], daemon/kernel/knob.c) says. Each table sits between a
# "BEGIN knob table" and an "END knob table" comment and must be exactly the
# output of `netpolld --dump-catalog=FORMAT` (man pages: man, Markdown:
# markdown). man/netpolld.conf.5 and docs/dbus.md must hold one; any other
# man page or Markdown file under docs/ that holds one is checked too.
#
# Usage: check-catalog-docs.sh            compare, show the difference, exit 1 on one
#        check-catalog-docs.sh --update   rewrite the tables from the catalog
# NETPOLLD_SOURCE_ROOT (default: this script's ..) and NETPOLLD_BINARY
# (default: $NETPOLLD_SOURCE_ROOT/build/netpolld) say what to check with what.
set -euo pipefail

root=${NETPOLLD_SOURCE_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
netpolld=${NETPOLLD_BINARY:-$root/build/netpolld}
update=false
case "${1:-}" in
"") ;;
--update) update=true ;;
*) echo "usage: $0 [--update]" >&2; exit 2 ;;
esac

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The lines of FILE before the table (up to the end of its BEGIN comment),
# the table, and the lines from its END comment on, into $tmp/{head,table,tail}.
# Exit status 1 when FILE has no table or more than one.
split_file() {
        awk -v head="$tmp/head" -v table="$tmp/table" -v tail="$tmp/tail" '
                state == 0 {
                        print > head
                        if (/BEGIN knob table/) {
                                n_begin++
                                roff = /^\.\\"/
                                state = roff || !/-->/ ? 1 : 2
                        }
                        next
                }
                # The BEGIN comment goes on: further .\" lines in roff, up to the --> in Markdown.
                state == 1 && roff {
                        if (/^\.\\"/ && !/END knob table/) { print > head; next }
                        state = 2
                }
                state == 1 {
                        print > head
                        if (/-->/) state = 2
                        next
                }
                state == 2 && /END knob table/ { n_end++; state = 3; print > tail; next }
                state == 2 { print > table; next }
                state == 3 {
                        if (/BEGIN knob table/) n_begin++
                        if (/END knob table/) n_end++
                        print > tail
                }
                END { exit !(n_begin == 1 && n_end == 1) }
        ' "$1"
}

failed=0
checked=0
files=$(cd "$root" && { ls man/*.[0-9] docs/*.md 2>/dev/null; } | sort)
for rel in $files; do
        file=$root/$rel
        required=false
        case "$rel" in
        man/netpolld.conf.5 | docs/dbus.md) required=true ;;
        esac
        if ! grep -q 'BEGIN knob table' "$file"; then
                if $required; then
                        echo "FAIL: $rel has no knob table (a 'BEGIN knob table' comment)" >&2
                        failed=1
                fi
                continue
        fi
        case "$rel" in
        *.md) format=markdown ;;
        *) format=man ;;
        esac

        rm -f "$tmp/head" "$tmp/table" "$tmp/tail"
        touch "$tmp/head" "$tmp/table" "$tmp/tail"
        if ! split_file "$file"; then
                echo "FAIL: $rel: expected one 'BEGIN knob table' comment and one 'END knob table' after it" >&2
                failed=1
                continue
        fi
        "$netpolld" --dump-catalog="$format" > "$tmp/want"
        checked=$((checked + 1))
        if cmp -s "$tmp/table" "$tmp/want"; then
                echo "ok: $rel: knob table is netpolld --dump-catalog=$format"
        elif $update; then
                cat "$tmp/head" "$tmp/want" "$tmp/tail" > "$tmp/new"
                cat "$tmp/new" > "$file"
                echo "updated: $rel"
        else
                echo "FAIL: $rel: the knob table differs from the catalog (- document, + catalog);" \
                     "run tests/check-catalog-docs.sh --update" >&2
                diff -u --label "$rel" --label "netpolld --dump-catalog=$format" "$tmp/table" "$tmp/want" >&2 || true
                failed=1
        fi
done

if [ "$checked" -eq 0 ] && [ "$failed" -eq 0 ]; then
        echo "FAIL: no knob table found under $root" >&2
        failed=1
fi
exit "$failed"
