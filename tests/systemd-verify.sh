#!/bin/bash
# systemd-analyze verify on the generated unit, with ExecStart= pointing at the
# binary just built (verify checks that the executable exists; the installed
# path does not exist in a build tree). Usage: systemd-verify.sh UNIT NETPOLLD
set -euo pipefail
unit=$1 binary=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
sed "s|^ExecStart=.*|ExecStart=$binary|" "$unit" >"$dir/netpolld.service"
out=$(systemd-analyze verify --man=no "$dir/netpolld.service" 2>&1) || { echo "$out"; exit 1; }
# verify exits 0 on some warnings: treat any output as a failure.
if [ -n "$out" ]; then
        echo "$out"
        exit 1
fi
echo "systemd-analyze verify: clean"
# Ordering the verifier cannot judge: boot-time sysctl.d values are in place
# before netpolld records originals (README.Debian, netpolld.conf(5)).
after=$(sed -n 's/^After=//p' "$unit" | tr ' ' '\n')
if ! grep -qx 'systemd-sysctl.service' <<<"$after"; then
        echo "$unit: no After=systemd-sysctl.service: netpolld could record originals before /etc/sysctl.d is applied"
        exit 1
fi
echo "ordered after systemd-sysctl.service"
