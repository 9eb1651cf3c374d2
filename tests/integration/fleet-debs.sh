# SPDX-License-Identifier: LGPL-2.1-or-later
# shellcheck shell=bash disable=SC2034  # FLEET_DEBS_ERROR is for the caller
# fleet-debs.sh: the Debian packages of HEAD for the fleet suite's tests
# (test-ansible.sh, test-kubernetes.sh), built once per commit (sourced).
#
# fleet_debs LOG: sets FLEET_DEBS to a directory holding netpolld_*.deb and
# netpollctl_*.deb: $NETPOLLD_FLEET_DEBS (or the Ansible test's older name
# NETPOLLD_ANSIBLE_DEBS) when set; otherwise tools/build-deb's packages of
# HEAD (nocheck: the unit suite runs on its own) in
# $NETPOLLD_FLEET_CACHE/debs-COMMIT, built only when that is not there yet,
# so that the suite's tests build them once (older commits' are removed).
# The build's output goes to LOG.
# Returns 1 (FLEET_DEBS_ERROR says why) when there are none.
fleet_debs() {
        local log=$1 commit dir tmp
        FLEET_DEBS=${NETPOLLD_FLEET_DEBS:-${NETPOLLD_ANSIBLE_DEBS:-}}
        FLEET_DEBS_ERROR=
        if [ -z "$FLEET_DEBS" ]; then
                commit=$(git -C "$NETPOLLD_SOURCE_ROOT" rev-parse --verify -q HEAD) ||
                        { FLEET_DEBS_ERROR="no git checkout at $NETPOLLD_SOURCE_ROOT and no NETPOLLD_FLEET_DEBS"; return 1; }
                dir=${NETPOLLD_FLEET_CACHE:-${TMP:?}/fleet-cache}/debs-$commit
                if ! compgen -G "$dir/netpolld_*.deb" >/dev/null || ! compgen -G "$dir/netpollctl_*.deb" >/dev/null; then
                        mkdir -p "${dir%/*}"
                        tmp=$(mktemp -d "$dir.XXXXXX")
                        if ! DEB_BUILD_OPTIONS=nocheck "$NETPOLLD_SOURCE_ROOT/tools/build-deb" "$tmp" >"$log" 2>&1; then
                                rm -rf "$tmp"
                                FLEET_DEBS_ERROR="tools/build-deb failed: $(tail -20 "$log")"
                                return 1
                        fi
                        rm -rf "$dir"
                        mv "$tmp" "$dir"
                        # Older commits' packages are not used again.
                        find "${dir%/*}" -mindepth 1 -maxdepth 1 -name 'debs-*' ! -name "${dir##*/}" -exec rm -rf {} +
                fi
                FLEET_DEBS=$dir
        fi
        if ! compgen -G "$FLEET_DEBS/netpolld_*.deb" >/dev/null || ! compgen -G "$FLEET_DEBS/netpollctl_*.deb" >/dev/null; then
                FLEET_DEBS_ERROR="no netpolld_*.deb and netpollctl_*.deb in $FLEET_DEBS"
                return 1
        fi
}
