# SPDX-License-Identifier: LGPL-2.1-or-later
# kernel-series.sh: the kernel series of kernel-patches/, for the scripts that
# build kernels from it (tests/kernel/run.sh, tools/build-kernel-deb). Sourced,
# not run; bash.

# series_patches DIR: the patches DIR/series lists, in order, one per line
# (comment and blank lines left out).
series_patches() {
        grep -v -e '^#' -e '^[[:space:]]*$' "$1/series"
}

# series_stamp VERSION DIR: a hash of the source version and every patch of
# DIR's series, which changes when either does.
series_stamp() {
        local p
        { echo "$1"; series_patches "$2" | while read -r p; do sha256sum <"$2/$p"; done; } | sha256sum | cut -d' ' -f1
}

# series_apply SRC DIR LOG: applies DIR's series to the unpacked tree SRC, each
# patch checked with `git apply --check` first, so one that does not fit
# changes nothing. On failure it prints the patch's name and returns 1, git's
# words in LOG. GIT_CEILING_DIRECTORIES keeps git from taking an enclosing
# repository for the tree to patch.
series_apply() {
        local src=$1 dir=$2 log=$3 p
        for p in $(series_patches "$dir"); do
                (cd "$src" && export GIT_CEILING_DIRECTORIES=$(dirname "$src") &&
                 git apply --check "$dir/$p" && git apply "$dir/$p") >"$log" 2>&1 || { echo "$p"; return 1; }
        done
}
