#!/bin/sh
# Builds and runs the NAPI skb cache model (napi_cache_model.c): the port
# must pass, and the port without the room clamp must be caught overrunning.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
${CC:-cc} -std=c11 -O2 -Wall -Wextra -Werror -o "$tmp/model" "$here/napi_cache_model.c"
"$tmp/model" || { echo "FAIL: the ported cache model failed" >&2; exit 1; }
if "$tmp/model" --unclamped >"$tmp/unclamped.out"; then
	echo "FAIL: the model did not catch the unclamped port's overrun" >&2
	exit 1
fi
grep -m1 'overrun YES' "$tmp/unclamped.out"
echo "OK: port passes, unclamped port caught"
