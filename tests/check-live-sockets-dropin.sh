#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# check-live-sockets-dropin.sh UNIT DROPIN: the unit with systemd/live-sockets.conf
# applied stays within the exposure docs/ARCHITECTURE.md and netpolld(8) state
# (2.3), and the drop-in grants what live sockets need and nothing else.
set -u
unit=$1 dropin=$2
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
# Offline analysis reads one file: the drop-in's [Service] lines go after the unit's.
cat "$unit" "$dropin" >"$tmp/netpolld.service"
out=$(systemd-analyze security --offline=true --threshold=23 --no-pager "$tmp/netpolld.service" 2>&1)
rc=$?
echo "$out" | tail -n 1
[ "$rc" = 0 ] || { echo "exposure with the live-sockets drop-in above 2.3:"; echo "$out"; exit 1; }
settings=$(grep -vE '^(#|\[|$)' "$dropin" | sort | tr '\n' ';')
want='CapabilityBoundingSet=CAP_SYS_PTRACE;SystemCallFilter=pidfd_getfd;'
[ "$settings" = "$want" ] || { echo "the drop-in sets '$settings', expected '$want'"; exit 1; }
grep -q '^CapabilityBoundingSet=CAP_NET_ADMIN CAP_SYS_NICE CAP_SYS_RESOURCE$' "$unit" ||
        { echo "the unit's own bounding set changed: check the drop-in's comment still holds"; exit 1; }
