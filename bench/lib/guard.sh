#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# bench/lib/guard.sh PID: the harness's restore journal, replayed should bench/run
# (PID) end without cleaning up. Started by bench/run in a session of its own (so a
# Ctrl-C to the run's process group does not reach it), with GUARD_WORK (the run's
# work directory, holding the journal) and GUARD_OUT (its output directory) in the
# environment, not in its arguments: processes started with a work-directory path
# in their arguments are the ones it stops.
#
# bench/run's own cleanup deletes the work directory last: if it is still there when
# the run has ended, the shell died in the middle (bash 5.2 has been seen to abort,
# SIGABRT, on a Ctrl-C). Then, in the order the cleanup would have:
#   1. every process still running in the run's namespaces, or with the work
#      directory or the run's log directory in its arguments (netpolld, its buses,
#      tuned, the neighbours) gets SIGTERM (netpolld restores what it changed),
#      SIGKILL 10 s later;
#   2. every value and file in the journal is put back (restore.sh, written by
#      host_remember and file_remember before their first change);
#   3. the namespaces are deleted and the work directory removed.
set -uo pipefail
export LC_ALL=C
main=$1 work=${GUARD_WORK:?} out=${GUARD_OUT:?}
trap '' INT HUP

# host_restore and file_restore, as the harness's own cleanup uses them.
# shellcheck source=bench/lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
log() { printf 'bench guard: %s\n' "$*" >&2; }

# nap (common.sh), not sleep(1): a process started every 0.5 s through the whole run
# would wait for a CPU behind the busy-polling apps, and netpolld counts such waits.
while kill -0 "$main" 2>/dev/null; do
        nap 0.5
done
[[ -d $work ]] || exit 0
log "bench/run (pid $main) ended without cleaning up; replaying $work/restore.sh"

# The journal, read twice: first for the namespaces, then, once the processes are
# stopped (a netpolld or tuned stopping restores its own first), for the values.
NETNS=()
restore_value() { :; }
restore_file() { :; }
delete_netns() { NETNS+=("$1"); }
replay() {
        # shellcheck source=/dev/null
        [[ -f $work/restore.sh ]] && source "$work/restore.sh"
}
replay

pids() {
        local ns
        for ns in "${NETNS[@]}"; do
                ip netns pids "$ns" 2>/dev/null
        done
        pgrep -f -- "$work/" 2>/dev/null
        pgrep -f -- "$out/logs/" 2>/dev/null
}
list=$(pids | sort -un | grep -vx "$$")
if [[ -n $list ]]; then
        log "stopping $(wc -w <<<"$list") process(es) of the run"
        # shellcheck disable=SC2086
        kill -TERM $list 2>/dev/null
        for ((i = 0; i < 100; i++)); do
                list=$(for p in $list; do kill -0 "$p" 2>/dev/null && echo "$p"; done)
                [[ -n $list ]] || break
                sleep 0.1
        done
        # shellcheck disable=SC2086
        [[ -n $list ]] && kill -KILL $list 2>/dev/null
fi

# The values and files go back through the cleanup's own functions.
restore_value() { HOST_ORIG[$1]=$2; HOST_ORDER+=("$1"); }
restore_file() { FILE_SAVED[$1]=$2; }
delete_netns() { :; }
replay
host_restore
file_restore

for ns in "${NETNS[@]}"; do
        ip netns del "$ns" 2>/dev/null
done
rm -rf "$work"
log "done"
