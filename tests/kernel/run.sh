#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# run.sh: the patched-kernel test (tier 4). Applies a series of kernel-patches/
# to Debian's linux-source of its version, builds a minimal x86_64 kernel from
# tinyconfig + kernel.config + kernel-VERSION.config, packs busybox, vmtool,
# netpolld, netpollctl and
# dbus-daemon into an initramfs whose /init is init.sh, boots it under qemu
# (TCG, never KVM) with a time limit and reports the VM's verdict as TAP.
#
#   --kernel 7.2    kernel-patches/ on linux-source-7.2 (the default): Debian
#                   sid's package, downloaded through a private apt
#                   configuration in the cache (the host's sources stay as
#                   they are) and unpacked there
#   --kernel 6.12   kernel-patches/6.12/ on Debian 12's linux-source-6.12
#
# Installs what it needs with apt-get when missing (CI starts from a fresh
# machine). Work trees and build output live in a cache directory outside the
# repository, reused by later runs:
#   NETPOLLD_KERNEL_CACHE   cache directory (default /var/tmp/netpolld-kernel)
#   NETPOLLD_KERNEL_DEBUG=1 also build and boot the KASAN + lockdep variant;
#                           =only: that variant alone (meson suite kernel-debug)
#   NETPOLLD_KERNEL_RT=1    also build and boot a PREEMPT_RT variant (7.2;
#                           rt.config), which runs the same cases
#   NETPOLLD_KERNEL_EXT=1   also build and boot a variant with sched_ext (7.2;
#                           ext.config: BPF, BTF from pahole, SCHED_CLASS_EXT),
#                           which runs the same cases
#   NETPOLLD_KERNEL_BOOT_TIMEOUT  seconds one boot may take (default 600,
#                           doubled for the debug variant)
#   NETPOLLD_KERNEL_BZIMAGE boot this kernel instead of building one (for
#                           work on init.sh; the series is then not checked)
#   NETPOLLD_KERNEL_SKIP=REASON   skip, saying why (TAP "1..0 # SKIP REASON")
#   NETPOLLD_KERNEL_APPEND  more kernel command line, e.g. ktest.only=FUNCTION
#   NETPOLLD_KERNEL_ICOUNT=0  --seeds without -icount: wall-clock time under TCG (the
#                           dedicated-poller seed: a vCPU that never idles stalls the
#                           others' progress under -icount; see docs/KERNEL-SEEDS.md)
#                           (init.sh runs the network setup and that case only)
#   NETPOLLD_BINARY, NETPOLLCTL_BINARY, NETPOLLD_SOURCE_ROOT (set by meson)
# `run.sh --install-only` installs the packages, fetches linux-source-7.2 and
# exits (tools/install-deps --tests).
# `run.sh --build-only` applies the series and builds the kernel(s) a check run
# of the same options would boot, then exits: tools/test-all builds the 6.12
# kernel this way early, at idle priority, in the CPU the suites before it leave
# free. A run that needs a kernel another one is building waits for it (one lock
# per kernel version, $CACHE/build-VERSION.lock), then finds it built.
#
# `run.sh --seeds [--smp 1|2|4] [--out FILE]` measures instead of checking: the
# VM runs the seed scenarios of kernel-patches/ (init.sh, ktest.mode=seeds)
# under `qemu -icount shift=3,sleep=off`, where the guest's clock counts
# instructions, so runs compare across host load; the "KTEST seed" lines go
# to FILE (default $CACHE/seeds-smpN.txt) and tests/kernel/seeds-report.py
# turns them into the tables of docs/KERNEL-SEEDS.md.
#
# `run.sh --neutered` boots the checks on a kernel whose series sysctls exist
# but do nothing (tests/kernel/neuter.sh): the cases that test what a patch
# does must fail there. Not part of the suite (a second kernel build).
# `--neutered=nr-running` and `--neutered=class` take away only a part of
# patch 1 (neuter.sh says which).
#
# `run.sh --unpatched [--out FILE]` builds the same kernel without the series
# and measures its softirq run lengths, ksoftirqd's runs and the flood's
# throughput under the flood of case_softirq_budget_holds (init.sh,
# ktest.mode=budget): upstream's jiffies deadline and 10 restarts, for
# docs/KERNEL-SEEDS.md. `run.sh --budget [--out FILE]` measures the same on
# the patched kernel at the series' defaults. Both run under -icount, so the
# two compare across host load. "KTEST seed" lines go to FILE (default
# $CACHE/budget-unpatched-VERSION.txt, $CACHE/budget-patched-VERSION.txt).
set -uo pipefail

HERE=$(dirname "$(readlink -f "$0")")
# shellcheck source=../../tools/kernel-series.sh
. "$HERE/../../tools/kernel-series.sh"
SOURCE_ROOT=${NETPOLLD_SOURCE_ROOT:-$(readlink -f "$HERE/../..")}
CACHE=${NETPOLLD_KERNEL_CACHE:-/var/tmp/netpolld-kernel}
BOOT_TIMEOUT=${NETPOLLD_KERNEL_BOOT_TIMEOUT:-600}
START=$SECONDS
MODE=check SMP=2 SEEDS_OUT= KERNEL=7.2 INSTALL_ONLY=0 BUILD_ONLY=0 NEUTER=
while [ $# -gt 0 ]; do
        case $1 in
        --install-only) INSTALL_ONLY=1 ;;
        --build-only) BUILD_ONLY=1 ;;
        --kernel) KERNEL=${2:?--kernel needs 7.2 or 6.12}; shift ;;
        --seeds) MODE=seeds ;;
        --neutered) MODE=neutered ;;
        --neutered=*) MODE=neutered NEUTER=${1#--neutered=} ;;
        --unpatched) MODE=unpatched ;;
        --budget) MODE=budget ;;
        --smp) SMP=${2:?--smp needs a CPU count}; shift ;;
        --out) SEEDS_OUT=${2:?--out needs a file}; shift ;;
        *) echo "run.sh: unknown option '$1' (--install-only, --build-only, --kernel 7.2|6.12, --seeds [--smp N] [--out FILE], --neutered[=nr-running|class], --unpatched, --budget)" >&2; exit 2 ;;
        esac
        shift
done
case $SMP in 1 | 2 | 4) ;; *) echo "run.sh: --smp takes 1, 2 or 4 (the dedicated-poller seed), got '$SMP'" >&2; exit 2 ;; esac
SID_TARBALL=$CACHE/linux-source-7.2.tar.xz    # fetch_source_7_2 puts it there
case $KERNEL in
7.2) PATCHES=$SOURCE_ROOT/kernel-patches TARBALL=$SID_TARBALL ;;
6.12) PATCHES=$SOURCE_ROOT/kernel-patches/6.12 TARBALL=/usr/src/linux-source-6.12.tar.xz ;;
*) echo "run.sh: --kernel takes 7.2 or 6.12, got '$KERNEL'" >&2; exit 2 ;;
esac
SRC=$CACHE/src-$KERNEL
[ "$MODE" = unpatched ] && SRC=$CACHE/src-$KERNEL-unpatched

# ---------------------------------------------------------------- TAP

N=0
FAILED=0
ok() { N=$((N + 1)); echo "ok $N - $*"; }
not_ok() { N=$((N + 1)); FAILED=1; echo "not ok $N - $*"; }
# skip DESCRIPTION REASON: a check this run cannot make, with the reason in the TAP line.
skip() { N=$((N + 1)); echo "ok $N - $1 # SKIP $2"; }
diag() { sed 's/^/# /'; }
finish() {
        echo "# total $((SECONDS - START))s"
        echo "1..$N"
        exit "$FAILED"
}
# bail DESCRIPTION [LOG]: a step the rest depends on failed.
bail() {
        not_ok "$1"
        [ -n "${2:-}" ] && [ -f "$2" ] && tail -n 60 "$2" | diag
        finish
}

if [ -n "${NETPOLLD_KERNEL_SKIP:-}" ]; then
        echo "1..0 # SKIP $NETPOLLD_KERNEL_SKIP"
        exit 0
fi
if [ "$(id -u)" != 0 ]; then
        echo "1..0 # SKIP needs root (installs packages, builds in $CACHE)"
        exit 0
fi

# ---------------------------------------------------------------- dependencies

packages=(
        linux-source-6.12 busybox-static qemu-system-x86
        git gcc libc6-dev make flex bison bc libelf-dev libssl-dev cpio xz-utils gzip ccache
        dbus-daemon
        # upstream's busy_poll_test.sh in the 7.2 guest: its YNL client is generated
        # from the netdev spec (python3-yaml, python3-jsonschema); the script runs
        # under bash with iproute2's ip netns, ethtool, socat and coreutils, and
        # nl_netdev.py under python3 with udevadm settle after netdevsim changes
        python3 python3-yaml python3-jsonschema bash iproute2 ethtool socat coreutils udev
)
# the sched_ext variant's BTF
[ "${NETPOLLD_KERNEL_EXT:-0}" = 0 ] || packages+=(dwarves)
missing=()
for p in "${packages[@]}"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
mkdir -p "$CACHE" || bail "cannot create $CACHE"
if [ ${#missing[@]} -gt 0 ]; then
        echo "# installing ${missing[*]}"
        { apt-get update -qq &&
          DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"; } \
                >"$CACHE/apt.log" 2>&1 || bail "apt-get install ${missing[*]}" "$CACHE/apt.log"
fi

# fetch_source_7_2: linux-source-7.2 from Debian sid into $CACHE, through an apt
# configuration of its own under $CACHE/sid-apt (tools/sid-fetch): the host's
# /etc/apt and its package lists are neither read for it nor changed.
fetch_source_7_2() {
        local apt=$CACHE/sid-apt deb
        [ -s "$SID_TARBALL" ] && return 0
        deb=$(bash "$SOURCE_ROOT/tools/sid-fetch" "$apt" linux-source-7.2 2>"$CACHE/fetch-7.2.log") || return 1
        rm -rf "$apt/x"
        dpkg-deb -x "$deb" "$apt/x" && mv "$apt"/x/usr/src/linux-source-7.2.tar.xz "$SID_TARBALL.tmp" &&
                dpkg-deb -f "$deb" Version >"$SID_TARBALL.version" && mv "$SID_TARBALL.tmp" "$SID_TARBALL" || return 1
        rm -rf "$apt/x" "$deb"
}
if [ "$KERNEL" = 7.2 ] || [ "$INSTALL_ONLY" = 1 ]; then
        fetch_source_7_2 ||
                bail "linux-source-7.2 downloaded from Debian sid (private apt configuration in $CACHE/sid-apt)" "$CACHE/fetch-7.2.log"
fi
[ "$INSTALL_ONLY" = 1 ] && exit 0
ok "dependencies installed"

NETPOLLD=${NETPOLLD_BINARY:-$SOURCE_ROOT/build/netpolld}
NETPOLLCTL=${NETPOLLCTL_BINARY:-$SOURCE_ROOT/build/netpollctl}
for b in "$NETPOLLD" "$NETPOLLCTL"; do
        [ "$BUILD_ONLY" = 1 ] || [ -x "$b" ] || bail "$b not built (set NETPOLLD_BINARY and NETPOLLCTL_BINARY)"
done

# ---------------------------------------------------------------- source tree

# prepare_tree: $SRC is the packaged source with the series applied
# (tools/kernel-series.sh); sets src_stamp. The tree is rebuilt when the
# package or any patch changes; tar keeps the files' times, so make then
# recompiles only what changed.
prepare_tree() {
        local n=0 version bad
        if [ "$KERNEL" = 6.12 ]; then version=$(dpkg-query -W -f='${Version}' linux-source-6.12)
        else version=$(cat "$TARBALL.version"); fi
        if [ "$MODE" = unpatched ]; then
                src_stamp=$(echo "$version" | sha256sum | cut -d' ' -f1)
        else
                n=$(series_patches "$PATCHES" | wc -l)
                [ "$n" -gt 0 ] || bail "$PATCHES/series lists no patch"
                src_stamp=$(series_stamp "$version" "$PATCHES")
        fi
        if [ "$(cat "$SRC.stamp" 2>/dev/null)" = "$src_stamp" ]; then
                ok "$n patches applied to the cached linux-source-$KERNEL tree"
                return
        fi
        rm -rf "$SRC" "$SRC.stamp"
        mkdir -p "$SRC"
        tar -xf "$TARBALL" -C "$SRC" --strip-components=1 || bail "cannot unpack $TARBALL"
        if [ "$MODE" != unpatched ]; then
                bad=$(series_apply "$SRC" "$PATCHES" "$CACHE/apply-$KERNEL.log") ||
                        bail "$bad applies to $(basename "$TARBALL")" "$CACHE/apply-$KERNEL.log"
        fi
        echo "$src_stamp" >"$SRC.stamp"
        ok "$n patches apply to linux-source-$KERNEL $(make -s -C "$SRC" kernelversion 2>/dev/null) (git apply --check)"
}

# ---------------------------------------------------------------- kernel

export CCACHE_DIR=$CACHE/ccache
# paths relative to the cache: a moved or second cache still hits
export CCACHE_BASEDIR=$CACHE CCACHE_NOHASHDIR=1
export KBUILD_BUILD_USER=netpolld KBUILD_BUILD_HOST=ktest
CC_ARG=(CC="ccache gcc")
command -v ccache >/dev/null || CC_ARG=()

# build_kernel VARIANT: sets BZIMAGE; bails on failure. Every variant is
# kernel.config and kernel-VERSION.config; debug adds debug.config.
build_kernel() {
        local variant=$1 out=$CACHE/build-$KERNEL-$1 t0=$SECONDS stamp line
        set -- "$HERE/kernel.config" "$HERE/kernel-$KERNEL.config"
        [ "$variant" != debug ] || set -- "$@" "$HERE/debug.config"
        [ "$variant" != rt ] || set -- "$@" "$HERE/rt.config"
        [ "$variant" != ext ] || set -- "$@" "$HERE/ext.config"
        mkdir -p "$out"
        stamp=$({ echo "$src_stamp"; cat "$@"; } | sha256sum | cut -d' ' -f1)
        if [ "$(cat "$out/config.stamp" 2>/dev/null)" != "$stamp" ]; then
                {
                        make -C "$SRC" O="$out" tinyconfig &&
                        "$SRC/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" "$@" &&
                        make -C "$SRC" O="$out" olddefconfig
                } >"$out/config.log" 2>&1 || bail "kernel config ($variant)" "$out/config.log"
                # every option the fragments ask for must survive the dependencies
                for line in $(grep -h '^CONFIG_.*=y$' "$@"); do
                        grep -qx "$line" "$out/.config" || bail "$line dropped by kconfig ($variant)"
                done
                echo "$stamp" >"$out/config.stamp"
        fi
        make -C "$SRC" O="$out" "${CC_ARG[@]}" -j"$(nproc)" bzImage >"$out/make.log" 2>&1 ||
                bail "kernel build ($variant)" "$out/make.log"
        BZIMAGE=$out/arch/x86/boot/bzImage
        ok "kernel $KERNEL ($variant) built in $((SECONDS - t0))s"
}

DEBUG_VARIANT=${NETPOLLD_KERNEL_DEBUG:-0}
# check_variants: the kernels a check run builds and boots, in that order.
check_variants() {
        [ "$DEBUG_VARIANT" = only ] || echo normal
        [ "$DEBUG_VARIANT" = 0 ] || echo debug
        [ "${NETPOLLD_KERNEL_RT:-0}" = 0 ] || [ "$DEBUG_VARIANT" = only ] || echo rt
        [ "${NETPOLLD_KERNEL_EXT:-0}" = 0 ] || [ "$DEBUG_VARIANT" = only ] || echo ext
}
case $DEBUG_VARIANT in 0 | 1 | only) ;; *) bail "NETPOLLD_KERNEL_DEBUG is '$DEBUG_VARIANT': expected 0, 1 or only" ;; esac

# take_build_lock: one build of a version at a time. A run that needs the tree
# or a kernel another run is preparing (test-all's early --build-only) waits
# here, then finds them up to date. Held until this run exits; not taken for a
# prebuilt kernel (NETPOLLD_KERNEL_BZIMAGE).
take_build_lock() {
        local t0=$SECONDS
        [ -z "${NETPOLLD_KERNEL_BZIMAGE:-}" ] || return 0
        exec {build_lock}>"$CACHE/build-$KERNEL.lock"
        flock -n "$build_lock" && return 0
        flock "$build_lock"
        echo "# waited $((SECONDS - t0))s for another run's $KERNEL build ($CACHE/build-$KERNEL.lock)"
}

if [ "$BUILD_ONLY" = 1 ]; then
        [ "$MODE" = check ] || bail "--build-only builds what a check run boots: not with --seeds, --neutered, --unpatched or --budget"
        [ -z "${NETPOLLD_KERNEL_BZIMAGE:-}" ] || bail "--build-only builds its own kernel: unset NETPOLLD_KERNEL_BZIMAGE"
        take_build_lock
        prepare_tree
        for variant in $(check_variants); do
                build_kernel "$variant"
        done
        finish
fi

# ---------------------------------------------------------------- initramfs

VMTOOL=$CACHE/vmtool
gcc -static -O2 -Wall -Wextra -D_GNU_SOURCE -o "$VMTOOL" "$HERE/vmtool.c" >"$CACHE/vmtool.log" 2>&1 ||
        bail "vmtool builds (gcc -static)" "$CACHE/vmtool.log"

# Upstream's own selftests that need no real NIC, built from the kernel
# source of this run, once per source version (only their files are
# unpacked): net/epoll_busy_poll (the epoll busy-poll ioctls) and, where the
# source has it (7.2), net/busy_poll_test.sh with busy_poller, which moves a
# file between two linked netdevsim devices with busy polling, with IRQ
# suspension, and with the NAPI thread in busy-poll mode, and net/nl_netdev.py
# (netdev genl: NAPI lists, per-NAPI and device threaded modes, page pools on
# netdevsim). busy_poller talks netdev genl through YNL, whose C client
# tools/net/ynl generates from the netdev spec of the same source;
# nl_netdev.py uses YNL's Python library with the same spec.
SELFTESTS=$CACHE/selftests-$KERNEL
SELFTEST_FILES=('*/tools/testing/selftests/kselftest.h' '*/tools/testing/selftests/kselftest_harness.h'
                '*/tools/testing/selftests/net/epoll_busy_poll.c')
[ "$KERNEL" = 7.2 ] && SELFTEST_FILES+=('*/MAINTAINERS' '*/tools/scripts/Makefile.arch'
        '*/tools/testing/selftests/net/busy_poll_test.sh' '*/tools/testing/selftests/net/busy_poller.c'
        '*/tools/testing/selftests/net/Makefile'
        '*/tools/testing/selftests/net/lib.sh' '*/tools/testing/selftests/net/lib/sh/*'
        '*/tools/net/ynl/Makefile*' '*/tools/net/ynl/lib/*' '*/tools/net/ynl/generated/*' '*/tools/net/ynl/pyynl/*'
        '*/Documentation/netlink/*.yaml' '*/include/uapi/linux/netdev.h'
        '*/tools/testing/selftests/net/nl_netdev.py' '*/tools/testing/selftests/net/lib/py/*')
# The series' own selftest changes (tools/testing/selftests/ hunks) are
# applied to them, except in an --unpatched run.
build_selftests() {
        local stamp=$SELFTESTS/stamp want st=$SELFTESTS/tools/testing/selftests ynl=$SELFTESTS/tools/net/ynl p
        want=$({ stat -c '%s %Y' "$TARBALL"; printf '%s\n' "${SELFTEST_FILES[@]}"
                 [ "$MODE" = unpatched ] || series_stamp "" "$PATCHES"; } | sha256sum)
        [ "$(cat "$stamp" 2>/dev/null)" = "$want" ] && return 0
        rm -rf "$SELFTESTS" && mkdir -p "$SELFTESTS" &&
        tar -xf "$TARBALL" -C "$SELFTESTS" --strip-components=1 --wildcards "${SELFTEST_FILES[@]}" || return 1
        if [ "$MODE" != unpatched ]; then
                for p in $(series_patches "$PATCHES"); do
                        (cd "$SELFTESTS" && GIT_CEILING_DIRECTORIES=$(dirname "$SELFTESTS") \
                                git apply --include='tools/testing/selftests/*' "$PATCHES/$p") || return 1
                done
        fi
        gcc -static -O2 -I"$st" -o "$SELFTESTS/epoll_busy_poll" "$st/net/epoll_busy_poll.c" -lcap || return 1
        if [ -f "$st/net/busy_poller.c" ]; then
                # Debian's python3 (with yaml), not one a PATH may put first
                PATH=/usr/bin:$PATH make -C "$ynl" GENS=netdev RSTS= libynl.a &&
                gcc -static -O2 -D_GNU_SOURCE -I"$ynl/lib" -I"$ynl/generated" -idirafter "$SELFTESTS/include/uapi" \
                        -o "$SELFTESTS/busy_poller" "$st/net/busy_poller.c" "$ynl/libynl.a" || return 1
        fi
        echo "$want" >"$stamp"
}
build_selftests >"$CACHE/selftests.log" 2>&1 || bail "upstream selftests build (gcc -static)" "$CACHE/selftests.log"

# copy_libs ROOT ELF: every shared library ldd names for ELF, into ROOT.
copy_libs() {
        local root=$1 lib
        for lib in $(ldd "$2" | grep -o '/[^ ]*'); do
                [ -e "$root$lib" ] || install -D -m 0755 "$(readlink -f "$lib")" "$root$lib" || return 1
        done
}
# copy_elf ROOT BINARY DEST_DIR: the binary and its shared libraries.
copy_elf() {
        install -D -m 0755 "$2" "$1$3/$(basename "$2")" && copy_libs "$1" "$2"
}

make_initramfs() {
        local root=$CACHE/initramfs a
        rm -rf "$root"
        mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,etc/ktest/profiles,proc,sys,dev,tmp,run,var}
        ln -s ../run "$root/var/run"    # as on Debian: iproute2 keeps named netns in /run/netns
        install -m 0755 /bin/busybox "$root/bin/busybox"
        for a in $(/bin/busybox --list); do
                [ -e "$root/bin/$a" ] || ln -s busybox "$root/bin/$a"
        done
        install -m 0755 "$VMTOOL" "$root/bin/vmtool"
        install -m 0755 "$SELFTESTS/epoll_busy_poll" "$root/bin/epoll_busy_poll"
        # The 7.2 selftests where built: the kernel tree's files they use at
        # their upstream paths under /opt/kselftest, and the tools they run
        # under /opt/kselftest/bin, which only their cases put first in PATH
        # (init.sh itself keeps busybox's ip). nl_netdev.py runs on Debian's
        # python3 with its standard library and PyYAML.
        if [ -x "$SELFTESTS/busy_poller" ]; then
                local k=/opt/kselftest py
                mkdir -p "$root$k" &&
                cp -a "$SELFTESTS/tools" "$SELFTESTS/Documentation" "$root$k/" &&
                install -m 0755 "$SELFTESTS/busy_poller" "$root$k/tools/testing/selftests/net/" || return 1
                for a in bash ip ethtool socat readlink timeout mktemp md5sum udevadm python3; do
                        # Debian's own binaries, not what a PATH may put first
                        copy_elf "$root" "$(PATH=/usr/sbin:/usr/bin:/sbin:/bin command -v "$a")" "$k/bin" || return 1
                done
                py=$(/usr/bin/python3 -c 'import sys; print(sys.prefix + "/lib/python%d.%d" % sys.version_info[:2])')
                mkdir -p "$root$py" "$root/usr/lib/python3/dist-packages" &&
                tar -C "$py" -c --exclude=__pycache__ --exclude='config-*' --exclude=test --exclude=idlelib \
                        --exclude=tkinter --exclude=ensurepip --exclude=lib2to3 --exclude=pydoc_data . |
                        tar -C "$root$py" -x &&
                cp -a "$(/usr/bin/python3 -c 'import os, yaml; print(os.path.dirname(yaml.__file__))')" \
                        "$root/usr/lib/python3/dist-packages/" || return 1
                for a in "$root$py"/lib-dynload/*.so; do
                        copy_libs "$root" "$a" || return 1
                done
        fi
        copy_elf "$root" "$NETPOLLD" /usr/sbin &&
        copy_elf "$root" "$NETPOLLCTL" /usr/bin &&
        copy_elf "$root" "$(command -v dbus-daemon)" /usr/bin || return 1
        install -m 0755 "$HERE/init.sh" "$root/init"
        install -m 0644 "$HERE/dbus.conf" "$root/etc/ktest/dbus.conf"
        install -m 0644 "$HERE/netpolld.conf" "$root/etc/ktest/netpolld.conf"
        install -m 0644 "$HERE/ktest.conf" "$HERE/ktest-latency.conf" "$HERE/ktest-nothreshold.conf" \
                "$SOURCE_ROOT/conf/profiles/latency.conf" "$SOURCE_ROOT/conf/profiles/balanced.conf" \
                "$root/etc/ktest/profiles/"
        printf 'root:x:0:0:root:/:/bin/sh\nnobody:x:65534:65534:nobody:/:/bin/false\n' >"$root/etc/passwd"
        printf 'root:x:0:\nnogroup:x:65534:\n' >"$root/etc/group"
        echo 6e6574706f6c6c642d6b74657374aa01 >"$root/etc/machine-id"
        (cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) >"$CACHE/initramfs.cpio.gz"
}
make_initramfs >"$CACHE/initramfs.log" 2>&1 || bail "initramfs" "$CACHE/initramfs.log"
ok "initramfs with busybox, vmtool, netpolld, netpollctl, dbus-daemon and upstream's epoll_busy_poll$([ -x "$SELFTESTS/busy_poller" ] && echo ", busy_poll_test.sh and nl_netdev.py")"

# ---------------------------------------------------------------- boot

# boot VARIANT MEMORY TIMEOUT: runs the VM and turns its results into TAP.
boot() {
        local variant=$1 mem=$2 limit=$3 console=$CACHE/console-$KERNEL-$1.log results=$CACHE/results-$KERNEL-$1.log
        local t0=$SECONDS rc line done=0 bad
        rm -f "$console" "$results"
        # Two virtio-net devices on a qemu hub with no other port: traffic
        # between them never leaves qemu. romfile= avoids needing ipxe's ROMs.
        local extra=() append="ktest.variant=$variant${NETPOLLD_KERNEL_APPEND:+ $NETPOLLD_KERNEL_APPEND}"
        if [ "$MODE" = seeds ]; then
                [ "${NETPOLLD_KERNEL_ICOUNT:-1}" = 0 ] || extra=(-icount shift=3,sleep=off)
                append="$append ktest.mode=seeds"
                : >"${SEEDS_OUT:=$CACHE/seeds-smp$SMP.txt}"
        elif [ "$MODE" = unpatched ] || [ "$MODE" = budget ]; then
                extra=(-icount shift=3,sleep=off)
                append="$append ktest.mode=budget"
                if [ "$MODE" = unpatched ]; then : >"${SEEDS_OUT:=$CACHE/budget-unpatched-$KERNEL.txt}"
                else : >"${SEEDS_OUT:=$CACHE/budget-patched-$KERNEL.txt}"; fi
        fi
        timeout "$limit" qemu-system-x86_64 -accel tcg -smp "$SMP" -m "$mem" "${extra[@]}" \
                -nodefaults -display none -no-reboot \
                -kernel "$BZIMAGE" -initrd "$CACHE/initramfs.cpio.gz" \
                -append "console=ttyS0 loglevel=5 panic=-1 $append" \
                -serial "file:$console" -serial "file:$results" \
                -netdev hubport,id=h0,hubid=0 -device virtio-net-pci,netdev=h0,romfile= \
                -netdev hubport,id=h1,hubid=0 -device virtio-net-pci,netdev=h1,romfile= \
                >"$CACHE/qemu-$KERNEL-$variant.log" 2>&1
        rc=$?
        while IFS= read -r line || [ -n "$line" ]; do
                line=${line%$'\r'}
                case $line in
                "KTEST ok "*) ok "vm($variant): ${line#KTEST ok }" ;;
                "KTEST fail "*) not_ok "vm($variant): ${line#KTEST fail }" ;;
                "KTEST skip "*)
                        line=${line#KTEST skip }
                        skip "vm($variant): ${line%% # *}" "${line#* # }" ;;
                "KTEST diag "*) echo "# ${line#KTEST diag }" ;;
                "KTEST seed "*)
                        [ -n "$SEEDS_OUT" ] && echo "${line#KTEST seed }" >>"$SEEDS_OUT"
                        echo "# ${line#KTEST }" ;;
                "KTEST done") done=1 ;;
                esac
        done <"$results"
        if [ "$rc" = 124 ]; then
                not_ok "vm($variant) powered off within ${limit}s"
        elif [ "$done" != 1 ]; then
                not_ok "vm($variant) ran every case (qemu exit $rc)"
        else
                ok "vm($variant) ran every case and powered off ($((SECONDS - t0))s)"
        fi
        # (the VM echoes its own KTEST lines to the console too: not kernel output)
        bad=$(grep -a -v '^KTEST ' "$console" | grep -a -E 'BUG:|WARNING:|Oops|Kernel panic|KASAN|UBSAN|circular locking|inconsistent lock state|suspicious RCU|general protection|Call Trace' | head -n 20)
        if [ -n "$bad" ]; then
                not_ok "vm($variant): console free of kernel warnings"
                echo "$bad" | diag
        else
                ok "vm($variant): console free of kernel warnings"
        fi
        if [ "$FAILED" != 0 ]; then
                echo "# console tail ($console):"
                tail -n 80 "$console" | tr -d '\r' | diag
                [ -s "$CACHE/qemu-$KERNEL-$variant.log" ] && diag <"$CACHE/qemu-$KERNEL-$variant.log"
        fi
}

take_build_lock
if [ "$DEBUG_VARIANT" = only ]; then
        [ -z "${NETPOLLD_KERNEL_BZIMAGE:-}" ] || bail "NETPOLLD_KERNEL_DEBUG=only builds its own kernel: unset NETPOLLD_KERNEL_BZIMAGE"
elif [ -n "${NETPOLLD_KERNEL_BZIMAGE:-}" ]; then
        BZIMAGE=$NETPOLLD_KERNEL_BZIMAGE
        ok "using the prebuilt kernel $BZIMAGE"
        skip "kernel-patches/ apply to linux-source-$KERNEL and build" \
                "NETPOLLD_KERNEL_BZIMAGE is set: the series is not applied nor built"
else
        prepare_tree
        [ "$MODE" = unpatched ] || build_kernel normal
fi
if [ "$MODE" = neutered ]; then
        rm -rf "$CACHE/src-$KERNEL-neutered"
        cp -a "$SRC" "$CACHE/src-$KERNEL-neutered" && bash "$HERE/neuter.sh" "$CACHE/src-$KERNEL-neutered" $NEUTER \
                >"$CACHE/neuter.log" 2>&1 || bail "neuter.sh $NEUTER" "$CACHE/neuter.log"
        ok "series sysctls neutered (tests/kernel/neuter.sh ${NEUTER:-all})"
        SRC=$CACHE/src-$KERNEL-neutered
        build_kernel neutered
        boot neutered 512M "$BOOT_TIMEOUT"
        finish
fi
if [ "$MODE" = unpatched ] || [ "$MODE" = budget ]; then
        [ "$MODE" = budget ] || build_kernel unpatched
        boot "$MODE" 512M "$BOOT_TIMEOUT"
        [ -s "$SEEDS_OUT" ] && ok "softirq runs measured: $SEEDS_OUT" || not_ok "softirq runs measured (no KTEST seed line)"
        finish
fi
if [ "$MODE" = seeds ]; then
        boot normal 512M $((BOOT_TIMEOUT * 12))
        if [ -s "$SEEDS_OUT" ]; then
                ok "seed scenarios measured: $(wc -l <"$SEEDS_OUT") runs in $SEEDS_OUT"
                python3 "$HERE/seeds-report.py" --smp "$SMP" \
                        $([ "${NETPOLLD_KERNEL_ICOUNT:-1}" = 0 ] && echo --wall-clock) "$SEEDS_OUT" | diag
        else
                not_ok "seed scenarios measured (no KTEST seed line)"
        fi
        finish
fi
# normal was built above (or given); debug is built after normal's boot, so a
# debug build that fails still leaves normal's results.
for variant in $(check_variants); do
        case $variant in
        normal) boot normal 512M "$BOOT_TIMEOUT" ;;
        debug | rt | ext)
                [ -n "${src_stamp:-}" ] || prepare_tree
                build_kernel "$variant"
                if [ "$variant" = debug ]; then boot debug 1G $((BOOT_TIMEOUT * 2))
                else boot "$variant" 512M "$BOOT_TIMEOUT"; fi
                ;;
        esac
done
finish
