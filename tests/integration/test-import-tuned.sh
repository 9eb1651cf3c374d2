#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# test-import-tuned.sh: netpollctl profile import-tuned against every profile
# Debian's tuned package ships. The package is fetched once per run with
# `apt-get download tuned` (or taken from $NETPOLLD_TUNED_DEB, or from the
# cache $NETPOLLD_TUNED_CACHE) and unpacked with dpkg-deb into the test's
# temporary directory: never installed. For each profile: the import exits 0
# without a bus, the result passes netpolld --check-config, and netpolld,
# started with it on a fixture sysroot, writes into each file exactly what
# tuned's own loader (python, from the unpacked package, nothing applied)
# says tuned writes for the same sysctl keys. Speaks TAP; skips the whole
# script when the package cannot be fetched.

# shellcheck source=tests/integration/lib.sh
. "$(dirname "$(readlink -f "$0")")/lib.sh"

CORE=proc/sys/net/core
PKG=
TUNED_LIB=
TUNED_PY=
declare -A KNOB_OF_PATH=()      # /proc/sys/... -> knob name, from netpolld --dump-catalog

# The package, fetched once for the run; prints the .deb's path or a reason on stderr.
fetch_tuned_deb() {
        local cache=${NETPOLLD_TUNED_CACHE:-$TMP/tuned-cache} deb
        if [ -n "${NETPOLLD_TUNED_DEB:-}" ]; then
                echo "$NETPOLLD_TUNED_DEB"
                return 0
        fi
        mkdir -p "$cache" || return 1
        deb=$(find "$cache" -maxdepth 1 -name 'tuned_*.deb' | sort | tail -n 1)
        if [ -z "$deb" ] || ! dpkg-deb --info "$deb" >/dev/null 2>&1; then
                rm -f "$cache"/tuned_*.deb
                # apt-get download writes into the current directory; _apt cannot write to a
                # private one, so apt says so and downloads as root: quiet that warning.
                (cd "$cache" && timeout 120 apt-get -q download tuned) >"$TMP/apt.log" 2>&1 || {
                        echo "apt-get download tuned failed: $(grep -v '^W: Download is performed unsandboxed' "$TMP/apt.log" | tail -n 2 | tr '\n' ' ')" >&2
                        return 1
                }
                deb=$(find "$cache" -maxdepth 1 -name 'tuned_*.deb' | sort | tail -n 1)
        fi
        [ -n "$deb" ] || { echo "apt-get download tuned left no tuned_*.deb" >&2; return 1; }
        echo "$deb"
}

setup_package() {
        local deb reason
        for t in apt-get dpkg-deb; do
                command -v "$t" >/dev/null || { echo "1..0 # SKIP needs $t to fetch tuned's package"; exit 0; }
        done
        if ! deb=$(fetch_tuned_deb 2>"$TMP/fetch.err"); then
                reason=$(tr '\n' ' ' <"$TMP/fetch.err")
                echo "1..0 # SKIP cannot fetch Debian's tuned package (${reason:-unknown reason}); run apt-get update, or set NETPOLLD_TUNED_DEB=FILE"
                exit 0
        fi
        PKG=$TMP/tuned-pkg
        dpkg-deb -x "$deb" "$PKG" || { echo "Bail out! dpkg-deb -x $deb failed"; exit 1; }
        TUNED_LIB=$PKG/usr/lib/tuned
        TUNED_PY=$PKG/usr/lib/python3/dist-packages
        if [ ! -d "$TUNED_LIB" ] || [ ! -d "$TUNED_PY/tuned" ]; then
                echo "Bail out! $deb has no usr/lib/tuned or tuned python package"
                exit 1
        fi
        echo "# tuned package: $(basename "$deb") ($(dpkg-deb -f "$deb" Version))"
}

# The global knobs' kernel files, from the catalog netpolld itself uses.
load_catalog() {
        local name path
        while IFS='|' read -r _ name path _; do
                name=$(tr -d '` ' <<<"$name")
                path=$(tr -d '` ' <<<"$path")
                [[ $path == /proc/sys/* ]] && KNOB_OF_PATH[$path]=$name
        done < <("$NETPOLLD" --dump-catalog)
        [ "${#KNOB_OF_PATH[@]}" -ge 6 ] || { echo "Bail out! netpolld --dump-catalog lists no /proc/sys knobs"; exit 1; }
}

# Values unlike any tuned sets, so that a file netpolld did not write cannot pass for one it did.
make_odd_fixture() {
        printf '7\n' >"$ROOT/$CORE/busy_read"
        printf '7\n' >"$ROOT/$CORE/busy_poll"
        printf '301\n' >"$ROOT/$CORE/netdev_budget"
        printf '8001\n' >"$ROOT/$CORE/netdev_budget_usecs"
        printf '65\n' >"$ROOT/$CORE/dev_weight"
        printf '1001\n' >"$ROOT/$CORE/netdev_max_backlog"
        snapshot initial
        SNAP=$TMP/initial
}

# What tuned writes for PROFILE's sysctl keys: "KEY<TAB>VALUE[<TAB>FLAG]" lines.
tuned_values() {
        mkdir -p "$TMP/tuned-tmp"
        # tuned's loader expands [variables] functions, one of which runs mktemp -d: keep it in $TMP.
        TMPDIR=$TMP/tuned-tmp python3 "$LIB_DIR/tuned-sysctl.py" "$TUNED_PY" "$TUNED_LIB" "$1"
}

COMPARED_TOTAL=0
declare -A COMPARED_BY=()

case_profile() {
        local profile=$1 out=$PROFILES/tuned-$1.conf tv key value flag path knob expected=0 compared=() lines report
        # No bus at all: the import must not need one.
        NETPOLLD_BUS_ADDRESS=unix:path=$TMP/no-such-bus run "$NETPOLLCTL" profile import-tuned "$profile" \
                --tuned-dir "$TUNED_LIB" --output "$out"
        expect_rc 0
        [ "$RC" = 0 ] || return 0
        report=$ERR
        expect_contains "import report on stderr" "$report" "from tuned profile $profile"

        run "$NETPOLLD" --check-config --config "$CONF" --profile-dir "$PROFILES" --profile "tuned-$profile"
        [ "$RC" = 0 ] || { fail "netpolld --check-config refuses the import (rc $RC):" "$ERR" "$(cat "$out")"; return 0; }

        if ! tv=$(tuned_values "$profile" 2>"$TMP/tuned-py.err"); then
                fail "tuned's own loader failed on $profile:" "$(tail -n 5 "$TMP/tuned-py.err")"
                return 0
        fi

        write_config "tuned-$profile"
        # shellcheck disable=SC2119  # no extra options: the configured daemon
        start_daemon || return 0
        while IFS=$'\t' read -r key value flag; do
                [ -n "$key" ] || continue
                path=/proc/sys/${key//./\/}
                knob=${KNOB_OF_PATH[$path]:-}
                [ -n "$knob" ] || continue
                if [ -n "$flag" ] || ! [[ $value =~ ^(0|[1-9][0-9]*)$ ]]; then
                        # Written by tuned only on some hosts or not as one number: must be reported, not set.
                        expect_contains "$key ($flag) reported" "$report" "$key"
                        continue
                fi
                expected=$((expected + 1))
                expect_file "${path#/}" "$value"
                expect_eq "origin of $knob" "$(get_value_origin "$knob" | awk '{ print $2 }')" profile
                compared+=("$key=$value")
        done <<<"$tv"
        lines=$(grep -cE '^[a-z0-9@:-]+ = ' <(sed -n '/^\[knobs\]/,/^\[/p' "$out"))
        expect_eq "knob lines in the import (one per tuned key with a netpolld knob)" "$lines" "$expected"
        stop_and_expect_restored
        COMPARED_TOTAL=$((COMPARED_TOTAL + ${#compared[@]}))
        COMPARED_BY[$profile]="${compared[*]}"
        diag "$profile: ${#compared[@]} key(s) compared${compared[*]:+: ${compared[*]}}"
}

# Guards against a comparison that passes because nothing was compared.
case_something_compared() {
        [ "$COMPARED_TOTAL" -gt 0 ] || fail "no tuned value was compared in any profile"
        expect_eq "network-latency's compared keys" "${COMPARED_BY[network-latency]:-}" \
                "net.core.busy_read=50 net.core.busy_poll=50"
        diag "$COMPARED_TOTAL values compared over ${#COMPARED_BY[@]} profiles"
}

case_bad_input_writes_nothing() {
        local out=$TMP/out.conf bad=$TMP/bad-tuned
        printf 'keep\n' >"$out"
        run "$NETPOLLCTL" profile import-tuned no-such-profile --tuned-dir "$TUNED_LIB" --output "$out"
        expect_rc 1
        expect_contains "missing profile named" "$ERR" "no-such-profile"
        expect_eq "output after a missing profile" "$(cat "$out")" keep

        # A shipped profile with a malformed line added: the error names the file and line.
        mkdir -p "$bad/broken" "$bad/loop"
        cp "$TUNED_LIB/network-latency/tuned.conf" "$bad/broken/tuned.conf"
        echo "this line has no equals sign" >>"$bad/broken/tuned.conf"
        local n
        n=$(wc -l <"$bad/broken/tuned.conf")
        run "$NETPOLLCTL" profile import-tuned broken --tuned-dir "$bad" --tuned-dir "$TUNED_LIB" --output "$out"
        expect_rc 1
        expect_contains "malformed line named" "$ERR" "$bad/broken/tuned.conf:$n:"
        expect_eq "output after a malformed line" "$(cat "$out")" keep

        printf '[main]\ninclude=loop\n' >"$bad/loop/tuned.conf"
        run "$NETPOLLCTL" profile import-tuned loop --tuned-dir "$bad" --output "$out"
        expect_rc 1
        expect_contains "include loop named" "$ERR" "$bad/loop/tuned.conf:2: include loop"
        expect_eq "output after an include loop" "$(cat "$out")" keep
        [ -z "$(find "$TMP" -maxdepth 1 -name '.out.conf.*')" ] || fail "a temporary file was left beside the output"

        # The same profile by path, to stdout.
        NETPOLLD_TUNED_PATH=$TUNED_LIB run "$NETPOLLCTL" profile import-tuned "$TUNED_LIB/network-latency"
        expect_rc 0
        expect_contains "by path, to stdout" "$OUT" "busy-read = "
}

require_root_and_tools
setup_tmp
setup_package
load_catalog
make_fixture
make_odd_fixture
mkdir -p "$PROFILES"
write_config balanced
start_bus

for dir in "$TUNED_LIB"/*/; do
        p=$(basename "$dir")
        [ -f "$dir/tuned.conf" ] || continue
        run_case "tuned $p: imports offline, passes --check-config, netpolld writes what tuned writes" case_profile "$p"
done
run_case "a missing profile, a malformed line, an include loop: error naming file and line, output untouched" \
        case_bad_input_writes_nothing
run_case "tuned's loader gave values to compare: network-latency's busy_read and busy_poll" case_something_compared
tap_done
