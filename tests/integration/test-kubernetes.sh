#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# test-kubernetes.sh: the Kubernetes example (examples/kubernetes):
#   1. the manifests validate offline against the Kubernetes API schema
#      (k8s-validate.py: python3-kubernetes' generated models), and copies
#      broken on purpose (an unknown field, a string for an int, a missing
#      required field, a kind its apiVersion lacks, a selector that does not
#      match) are refused, each naming its path;
#   2. build-image makes the OCI image from tools/build-deb's packages of
#      HEAD (shared with test-ansible.sh, built once per commit) with
#      mmdebstrap and umoci; the unpacked image (umoci unpack) holds
#      netpolld, netpollctl, dbus-daemon, the vendor profiles and the
#      entrypoint, and its configuration starts the entrypoint the
#      DaemonSets name; every DaemonSet's profile passes --check-config in it;
#   3. the runtime: podman (runc, cgroupfs) when a trivial container of the
#      image starts here, the image pulled from build-image's OCI archive
#      under a private name that goes at the end; otherwise (podman missing,
#      or no container can start, as in a chroot without user namespaces)
#      the chroot emulation below. The output says which ran, and why not
#      podman. NETPOLLD_K8S_RUNTIME=chroot forces the emulation;
#   4. the netpolld-web DaemonSet's pod as the manifest says (k8s-pod-plan.py
#      reads it): under podman, `podman run` with the arguments it generates
#      from the pod spec (host network and PIDs, drop ALL plus the three
#      capabilities, no_new_privs, read-only root, the node's /proc
#      read-only at /host/proc with /proc/sys/net/core writable, the journal's
#      hostPath, the ConfigMaps, the bus emptyDir); podman 4.3's `kube play`
#      would drop hostPID, the readiness and startup probes and seccomp, so it
#      is not used. Emulated: a chroot into the unpacked image, read-only, in
#      a private mount namespace (nothing is mounted on the host) with the
#      same volumes, the bounding set cut to the added capabilities. The
#      journal's hostPath is a directory below the test's temporary one. The
#      pod is ready by the manifest's readiness probe (run by the test in the
#      pod, as are the startup and liveness probes), `netpollctl status`
#      answers (as `kubectl exec` would), the profile's busy_read/busy_poll
#      reach this host's /proc/sys, netpolld takes /host for the running
#      kernel and arms its CPU pressure trigger, or says it cannot where this
#      host's bounding set lacks CAP_SYS_RESOURCE; every process of the pod
#      killed with SIGKILL leaves the values journaled, the next pod replays
#      the journal and applies the profile again; on SIGTERM (podman stop)
#      every value under /proc/sys/net/core is as before and the entrypoint
#      exits 0;
#   5. a node relabelled from web to latency: the latency pod, started while
#      the web pod runs, waits for the node's lock until the web pod has
#      restored and exited, then runs its profile; after both every value
#      is as before.
# The image and its unpacked root are cached in $NETPOLLD_FLEET_CACHE (the
# build directory) by the packages' and the example's content. Speaks TAP;
# needs root, mmdebstrap, umoci, python3-kubernetes and network access to
# deb.debian.org (podman and runc for the real runtime); skips with the
# reason otherwise. Removes its containers and image and restores every
# sysctl it finds changed, also on failure.

# shellcheck source=tests/integration/lib.sh
. "$(dirname "$(readlink -f "$0")")/lib.sh"
# shellcheck source=tests/integration/fleet-debs.sh
. "$LIB_DIR/fleet-debs.sh"

EXAMPLE=$NETPOLLD_SOURCE_ROOT/examples/kubernetes
MANIFEST=$EXAMPLE/netpolld.yaml
PY=/usr/bin/python3 # Debian's: python3-kubernetes and python3-yaml are there
VALIDATE=$LIB_DIR/k8s-validate.py
IMAGE_PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin

require_root_and_tools
for t in mmdebstrap umoci unshare nsenter; do
        command -v "$t" >/dev/null || { echo "1..0 # SKIP needs $t (Debian packages mmdebstrap, umoci, util-linux)"; exit 0; }
done
"$PY" -c 'import kubernetes.client, yaml' 2>/dev/null ||
        { echo "1..0 # SKIP needs Debian's python3-kubernetes and python3-yaml for $PY"; exit 0; }

setup_tmp
POD=          # the running pod: the entrypoint's PID (chroot) or the container's name (podman)
OLD_POD=      # a pod being replaced by POD
NODE_RUN=$TMP/node-run-netpolld # stands for the node's /run/netpolld (hostPath)
mkdir -p "$NODE_RUN"
RUNTIME=          # podman or chroot, chosen by case_runtime
RUNTIME_WHY=      # why not podman
PODMAN=(podman --runtime runc --cgroup-manager cgroupfs)
PODMAN_IMAGE=     # the test's private name of the image in podman's storage
PODMAN_IMAGE_ID=  # its ID, removed at the end when the test loaded it
PODMAN_IMAGE_OURS=0
PODMAN_CTRS=()    # every container the test created, oldest first
PODMAN_PREFIX=netpolld-k8s-test-$$

# Every value below /proc/sys/net/core (and the patched kernel's softirq knobs) as FILE:VALUE lines.
sysctl_state() {
        grep -r . /proc/sys/net/core /proc/sys/kernel/softirq_budget_usecs /proc/sys/kernel/softirq_max_restart \
                2>/dev/null | LC_ALL=C sort
}
SYSCTL_BEFORE=$(sysctl_state)

# pod_processes PID: the entrypoint PID and its children (dbus-daemon, netpolld).
pod_processes() {
        [ -n "$1" ] || return 0
        ps -o pid= --ppid "$1" 2>/dev/null
        echo "$1"
}

# restore_host: stops a pod still running and removes the test's containers and
# image; then, when a pod was running (the test ended early) or a journal is
# left, writes back what differs from before the test. After pods that stopped
# normally netpolld has restored all itself, and the values are left alone:
# another test on this host may have set them.
restore_host() {
        local line f v pod forced=0
        for pod in $POD $OLD_POD; do
                pod_running "$pod" || continue
                forced=1
                pod_stop "$pod" 10
                pod_running "$pod" && pod_kill "$pod"
        done
        POD='' OLD_POD=''
        if [ ${#PODMAN_CTRS[@]} -gt 0 ]; then
                "${PODMAN[@]}" rm -f "${PODMAN_CTRS[@]}" >/dev/null 2>&1
                PODMAN_CTRS=()
        fi
        if [ -n "$PODMAN_IMAGE" ]; then
                "${PODMAN[@]}" untag "$PODMAN_IMAGE_ID" "$PODMAN_IMAGE" >/dev/null 2>&1
                [ "$PODMAN_IMAGE_OURS" = 1 ] && "${PODMAN[@]}" rmi -f "$PODMAN_IMAGE_ID" >/dev/null 2>&1
                PODMAN_IMAGE=''
        fi
        # podman's first container made its CNI lock in /etc (fresh-ci's host snapshot saw it)
        [ "$CNI_LOCK_BEFORE" = 1 ] || rm -f "$CNI_LOCK"
        [ "$forced" = 1 ] || [ -s "$NODE_RUN/restore.journal" ] || return 0
        # Whatever netpolld did not put back: the values from before the test.
        while IFS= read -r line; do
                f=${line%%:*} v=${line#*:}
                [ "$(cat "$f" 2>/dev/null)" = "$v" ] && continue
                echo "# restoring $f to $v" >&2
                printf '%s\n' "$v" >"$f" 2>/dev/null || true
        done <<<"$SYSCTL_BEFORE"
}
CNI_LOCK=/etc/cni/net.d/cni.lock
CNI_LOCK_BEFORE=0
[ -e "$CNI_LOCK" ] && CNI_LOCK_BEFORE=1
trap 'restore_host; cleanup' EXIT

# ---------------------------------------------------------------- manifests

case_manifests_valid() {
        local out
        out=$("$PY" "$VALIDATE" "$MANIFEST" 2>&1) || fail "k8s-validate.py refused the example:" "$out"
        diag "$out"
        expect_contains "both DaemonSets checked" "$out" "DaemonSet/netpolld-latency: valid"
}

# broken NAME SED-EXPRESSION EXPECTED-MESSAGE: a copy of the manifest changed by
# SED-EXPRESSION must be refused with EXPECTED-MESSAGE.
broken() {
        local copy=$TMP/broken-$1.yaml out
        sed "$2" "$MANIFEST" >"$copy"
        cmp -s "$copy" "$MANIFEST" && { fail "$1: the sed expression changed nothing: $2"; return; }
        if out=$("$PY" "$VALIDATE" "$copy" 2>&1); then
                fail "$1: the broken copy passed:" "$out"
                return
        fi
        expect_contains "$1" "$out" "$3"
        diag "$1: $(grep -v ': valid$' <<<"$out" | head -3)"
}

case_broken_manifests_refused() {
        broken unknown-field '0,/hostNetwork: true/s//hostNetworking: true/' \
                "spec.template.spec.hostNetworking: unknown field in V1PodSpec"
        broken wrong-type '0,/terminationGracePeriodSeconds: 60/s//terminationGracePeriodSeconds: "60"/' \
                "terminationGracePeriodSeconds: expected int, got str '60'"
        broken nested-type '0,/readOnlyRootFilesystem: true/s//readOnlyRootFilesystem: "yes"/' \
                "securityContext.readOnlyRootFilesystem: expected bool"
        broken missing-required '0,/- name: netpolld$/s//- tty: false/' \
                "Invalid value for \`name\`, must not be \`None\`"
        broken wrong-kind '0,/apiVersion: apps\/v1/s//apiVersion: v1/' "apiVersion v1 has no kind DaemonSet"
        broken selector '0,/      app.kubernetes.io\/name: netpolld/s//      app.kubernetes.io\/name: other/' \
                "does not match the template's labels"
}

# ---------------------------------------------------------------- image

IMAGE_OUT='' ROOTFS=''

case_image() {
        local start=$SECONDS key out tag
        if ! fleet_debs "$TMP/build-deb.log"; then
                fail "$FLEET_DEBS_ERROR"
                return
        fi
        diag "packages: $FLEET_DEBS ($((SECONDS - start)) s)"
        key=$(cat "$FLEET_DEBS"/netpolld_*.deb "$FLEET_DEBS"/netpollctl_*.deb "$EXAMPLE/build-image" "$EXAMPLE/entrypoint" |
                sha256sum | cut -c1-16)
        out=${NETPOLLD_FLEET_CACHE:-$TMP/fleet-cache}/k8s-image-$key
        if [ ! -e "$out/done" ]; then
                rm -rf "$out"
                start=$SECONDS
                # In a private mount namespace: mmdebstrap's mounts in the new root never reach the host's table.
                if ! unshare --mount --propagation private \
                        "$EXAMPLE/build-image" --debs "$FLEET_DEBS" --out "$out" >"$TMP/build-image.log" 2>&1; then
                        fail "build-image failed:" "$(tail -20 "$TMP/build-image.log")"
                        return
                fi
                diag "build-image: $((SECONDS - start)) s"
                tag=$(ls "$out/oci/index.json" >/dev/null && "$PY" -c 'import json, sys
print(json.load(open(sys.argv[1]))["manifests"][0]["annotations"]["org.opencontainers.image.ref.name"])' "$out/oci/index.json")
                start=$SECONDS
                umoci unpack --image "$out/oci:$tag" "$out/bundle" >"$TMP/unpack.log" 2>&1 ||
                        { fail "umoci unpack failed:" "$(tail "$TMP/unpack.log")"; return; }
                diag "umoci unpack: $((SECONDS - start)) s"
                # Kept: the layout, its archive and the unpacked bundle; older images go.
                rm -f "$out/rootfs.tar"
                find "${out%/*}" -mindepth 1 -maxdepth 1 -name 'k8s-image-*' ! -name "${out##*/}" -exec rm -rf {} +
                touch "$out/done"
        else
                diag "image cached in $out"
        fi
        IMAGE_OUT=$out ROOTFS=$out/bundle/rootfs
        diag "$(cd "$out" && du -sh ./*.oci.tar bundle/rootfs | tr '\n\t' '; ')"
}

case_image_contents() {
        local f cmd out ds config
        [ -n "$ROOTFS" ] || { fail "no image"; return; }
        for f in usr/sbin/netpolld usr/bin/netpollctl usr/bin/dbus-daemon usr/bin/flock usr/local/sbin/netpolld-entrypoint \
                usr/share/netpolld/profiles/balanced.conf usr/share/netpolld/profiles/latency.conf; do
                [ -f "$ROOTFS/$f" ] || fail "the image has no /$f"
        done
        cmp -s "$ROOTFS/usr/local/sbin/netpolld-entrypoint" "$EXAMPLE/entrypoint" || fail "the image's entrypoint is not examples/kubernetes/entrypoint"
        [ "$(readlink "$ROOTFS/host/sys")" = /sys ] || fail "/host/sys is not a link to the container's /sys"
        [ -e "$ROOTFS/usr/sbin/policy-rc.d" ] && fail "mmdebstrap left a policy-rc.d in the image"
        out=$(find "$ROOTFS" -xdev -name '*.deb' | head -n 3)
        [ -z "$out" ] || fail "the packages installed are left in the image:" "$out"
        # The image's configuration runs what the DaemonSets name.
        config=$("$PY" -c 'import json, sys; c = json.load(open(sys.argv[1])); print(c["process"]["args"]); print(c["process"]["env"])' \
                "$IMAGE_OUT/bundle/config.json")
        expect_contains "the image's entrypoint" "$config" "['/usr/local/sbin/netpolld-entrypoint']"
        expect_contains "the image's PATH" "$config" "PATH=$IMAGE_PATH"
        for ds in $("$PY" -c 'import sys, yaml
for d in yaml.safe_load_all(open(sys.argv[1])):
    if d and d["kind"] == "DaemonSet": print(d["metadata"]["name"])' "$MANIFEST"); do
                "$PY" "$LIB_DIR/k8s-pod-plan.py" "$MANIFEST" "$ds" "$TMP/cm-$ds" >"$TMP/plan-$ds" ||
                        { fail "k8s-pod-plan.py $ds failed"; continue; }
                cmd=$(sed -n 's/^command //p' "$TMP/plan-$ds")
                expect_eq "$ds's command" "$cmd" /usr/local/sbin/netpolld-entrypoint
                # Its profile and the ConfigMaps, checked by the image's netpolld (the ConfigMaps on /mnt).
                out=$(unshare --mount --propagation private sh -c 'mount --bind "$1" "$2/mnt" && shift 2 && exec chroot "$@"' \
                        sh "$TMP/cm-$ds" "$ROOTFS" "$ROOTFS" /usr/sbin/netpolld --check-config \
                        --config /mnt/netpolld-config/netpolld.conf --profile-dir /mnt/netpolld-profiles \
                        --profile "$(env_of "$ds" NETPOLLD_PROFILE)" 2>&1) ||
                        fail "$ds: --check-config in the image refused its configuration:" "$out"
        done
}

env_of() { sed -n "s/^env $2=//p" "$TMP/plan-$1"; }

# ---------------------------------------------------------------- the pod

# pod_script DAEMONSET: a script that, run in a private mount namespace, sets
# up the container's root as the kubelet would and execs its command there.
# shellcheck disable=SC2016  # $R is the script's own variable
pod_script() {
        local plan=$TMP/plan-$1 kind src dest mode caps envs=()
        caps=$(sed -n 's/^cap //p' "$plan" | tr '[:upper:]' '[:lower:]' | sed 's/^/+/' | paste -sd,)
        while IFS= read -r line; do envs+=("$line"); done < <(sed -n 's/^env //p' "$plan")
        {
                echo "set -e"
                echo "R=$ROOTFS"
                echo 'mount --bind "$R" "$R"'
                # What the runtime gives every container: its /proc (/proc/sys read-only), a read-only sysfs, /dev.
                echo 'mount -t proc proc "$R/proc"'
                echo 'mount --bind "$R/proc/sys" "$R/proc/sys" && mount -o remount,bind,ro "$R/proc/sys"'
                echo 'mount -t sysfs -o ro sysfs "$R/sys"'
                echo 'mount --rbind /dev "$R/dev"'
                while read -r kind src dest mode; do
                        [ "$src" = /run/netpolld ] && src=$NODE_RUN
                        echo "mkdir -p \"\$R$dest\""
                        case $kind in
                        emptydir) echo "mount -t tmpfs -o mode=0755,size=1m tmpfs \"\$R$dest\"" ;;
                        *) echo "mount --bind \"$src\" \"\$R$dest\"" ;;
                        esac
                        [ "$mode" = ro ] && echo "mount -o remount,bind,ro \"\$R$dest\""
                done < <(sed -n 's/^mount //p' "$plan")
                grep -qx 'ro-root yes' "$plan" && echo 'mount -o remount,bind,ro "$R"'
                printf 'exec chroot "$R" /usr/bin/setpriv --bounding-set=-all,%s --inh-caps=-all --no-new-privs -- ' "$caps"
                printf '/usr/bin/env -i %q' "PATH=$IMAGE_PATH"
                # shellcheck disable=SC2046  # the command's words
                printf ' %q' "${envs[@]}" $(sed -n 's/^command //p' "$plan")
                echo
        } >"$TMP/pod-$1.sh"
}

# ---------------------------------------------------------------- the runtime

# The image in podman's storage under a private name; sets PODMAN_IMAGE (empty,
# RUNTIME_WHY set, when podman cannot take it).
podman_load() {
        local archive out before
        archive=$(find "$IMAGE_OUT" -maxdepth 1 -name 'netpolld-*.oci.tar' | head -n 1)
        [ -n "$archive" ] || { RUNTIME_WHY="no OCI archive in $IMAGE_OUT"; return 1; }
        before=$("${PODMAN[@]}" images -q --no-trunc 2>/dev/null)
        if ! out=$(timeout 300 "${PODMAN[@]}" pull -q "oci-archive:$archive" 2>&1); then
                RUNTIME_WHY="podman pull oci-archive: $(tail -n 1 <<<"$out")"
                return 1
        fi
        PODMAN_IMAGE_ID=$(tail -n 1 <<<"$out")
        grep -q "$PODMAN_IMAGE_ID" <<<"$before" || PODMAN_IMAGE_OURS=1
        PODMAN_IMAGE=localhost/$PODMAN_PREFIX:${IMAGE_OUT##*/k8s-image-}
        "${PODMAN[@]}" tag "$PODMAN_IMAGE_ID" "$PODMAN_IMAGE"
        # The name pull gave it (the layout's ref.name) is not the test's to keep.
        if [ "$PODMAN_IMAGE_OURS" = 1 ]; then
                "${PODMAN[@]}" image inspect -f '{{range .RepoTags}}{{println .}}{{end}}' "$PODMAN_IMAGE_ID" |
                        grep -vxF "$PODMAN_IMAGE" | while read -r t; do
                        [ -n "$t" ] && "${PODMAN[@]}" untag "$PODMAN_IMAGE_ID" "$t"
                done
        fi
        return 0
}

# rlimits for the container: podman's defaults (and, measured here, even the
# host's own values) are refused where this root lacks CAP_SYS_RESOURCE, lower
# ones are not. 1024 files are plenty for netpolld and dbus-daemon; NPROC
# counts every process of uid 0 on the host, hence 4096 or the host's, if lower.
limit() { local v; v=$(ulimit "$1"); [ "$v" = unlimited ] || [ "$v" -gt "$2" ] && v=$2; echo "$v"; }
podman_ulimits() {
        echo "--ulimit=nofile=$(limit -Hn 1024):$(limit -Hn 1024)" "--ulimit=nproc=$(limit -Hu 4096):$(limit -Hu 4096)"
}

# The runtime the pods run in: podman where a trivial container of the image
# starts, else the chroot emulation. NETPOLLD_K8S_RUNTIME=chroot forces the latter.
case_runtime() {
        local out
        [ -n "$ROOTFS" ] || { fail "no image"; return; }
        if [ "${NETPOLLD_K8S_RUNTIME:-}" = chroot ]; then
                RUNTIME_WHY="NETPOLLD_K8S_RUNTIME=chroot"
        elif ! command -v podman >/dev/null || ! command -v runc >/dev/null; then
                RUNTIME_WHY="not installed (apt-get install podman runc)"
        elif podman_load; then
                # shellcheck disable=SC2046
                if out=$(timeout 60 "${PODMAN[@]}" run --rm --network=host $(podman_ulimits) --read-only \
                        --cap-drop=all --entrypoint=/bin/true "$PODMAN_IMAGE" 2>&1 </dev/null); then
                        RUNTIME=podman
                else
                        RUNTIME_WHY="a trivial container failed: $(grep -v '^$' <<<"$out" | tail -n 1)"
                fi
        fi
        [ -n "$RUNTIME" ] || RUNTIME=chroot
        if [ "$RUNTIME" = podman ]; then
                diag "podman ($(podman --version | sed 's/.* //'), runc $(runc --version | sed -n '1s/.* //p'), image $PODMAN_IMAGE)"
        fi
        # On the test's output, also outside TAP's diagnostics of a passing case.
        echo "# runtime: $([ "$RUNTIME" = podman ] && echo podman || echo "chroot emulation (podman: $RUNTIME_WHY)")"
}

# pod_start DAEMONSET: the DaemonSet's pod runs (POD).
pod_start() {
        local args=() after=() line name
        if [ "$RUNTIME" = chroot ]; then
                pod_script "$1"
                unshare --mount --propagation private bash "$TMP/pod-$1.sh" >>"$TMP/pod.log" 2>&1 &
                POD=$!
                return
        fi
        # Everything from the manifest (k8s-pod-plan.py --podman) but the test's own:
        # the image's name, the journal's directory, rlimits, the log driver.
        while IFS= read -r line; do
                case $line in
                "arg "*) after+=("${line#arg }") ;;
                *) args+=("$line") ;;
                esac
        done < <("$PY" "$LIB_DIR/k8s-pod-plan.py" "$MANIFEST" "$1" \
                "$TMP/cm-$1" --host-path "/run/netpolld=$NODE_RUN" --podman)
        name=$PODMAN_PREFIX-$1-${#PODMAN_CTRS[@]}
        PODMAN_CTRS+=("$name")
        # shellcheck disable=SC2046
        "${PODMAN[@]}" run -d --name "$name" --log-driver=k8s-file $(podman_ulimits) \
                "${args[@]}" "$PODMAN_IMAGE" "${after[@]}" >"$TMP/podman-run.log" 2>&1 ||
                fail "podman run failed:" "$(cat "$TMP/podman-run.log")"
        POD=$name
}

# pod_running POD
pod_running() {
        [ -n "$1" ] || return 1
        if [ "$RUNTIME" = podman ]; then
                [ "$("${PODMAN[@]}" inspect -f '{{.State.Running}}' "$1" 2>/dev/null)" = true ]
        else
                kill -0 "$1" 2>/dev/null
        fi
}

# pod_log: every pod's output so far, oldest first.
pod_log() {
        local c
        if [ "$RUNTIME" = podman ]; then
                for c in "${PODMAN_CTRS[@]}"; do "${PODMAN[@]}" logs "$c" 2>&1; done
        else
                cat "$TMP/pod.log"
        fi
}

# pod_exec COMMAND...: runs COMMAND in the pod with its environment, as `kubectl exec` does.
# How a command gets into the podman pod: "podman" (podman exec), or
# "nsenter" where podman exec does not reach the pod's root. In a chroot (CI's
# fresh root) runc makes the container's root with chroot rather than
# pivot_root, so an exec joins the pod's mount namespace but stays at the
# chroot's root (measured: the pod's /usr/bin/netpollctl missing, the CI
# root's files there); nsenter --root then takes the pod's first process's
# root, as the kubelet's exec does on a node. Found once, and said.
PODMAN_EXEC=
pod_exec_mode() {
        [ -n "$PODMAN_EXEC" ] && return
        if "${PODMAN[@]}" exec "$POD" test -x /usr/local/sbin/netpolld-entrypoint 2>/dev/null; then
                PODMAN_EXEC=podman
        else
                PODMAN_EXEC=nsenter
                diag "podman exec does not reach the pod's root here (runc without pivot_root in a chroot):" \
                     "commands in the pod run through nsenter --root into its first process"
        fi
}

pod_exec() {
        if [ "$RUNTIME" = podman ]; then
                pod_exec_mode
                if [ "$PODMAN_EXEC" = podman ]; then
                        run "${PODMAN[@]}" exec "$POD" "$@"
                else
                        run nsenter --target "$("${PODMAN[@]}" inspect -f '{{.State.Pid}}' "$POD")" --mount --root --wd \
                                -- /usr/bin/env -i "PATH=$IMAGE_PATH" \
                                "NETPOLLD_BUS_ADDRESS=$(env_of netpolld-web NETPOLLD_BUS_ADDRESS)" "$@"
                fi
        else
                run nsenter --target "$POD" --mount --root --wd -- /usr/bin/env -i "PATH=$IMAGE_PATH" \
                        "NETPOLLD_BUS_ADDRESS=$(env_of netpolld-web NETPOLLD_BUS_ADDRESS)" "$@"
        fi
}

# pod_kill POD: every process of the pod killed at once (an OOM kill, a crashed node agent): no restore.
pod_kill() {
        local pid=$1
        if [ "$RUNTIME" = podman ]; then
                pid=$("${PODMAN[@]}" inspect -f '{{.State.Pid}}' "$1")
                # shellcheck disable=SC2046
                [ "$pid" -gt 0 ] 2>/dev/null && kill -KILL $(pod_processes "$pid")
                "${PODMAN[@]}" wait "$1" >/dev/null 2>&1
        else
                # shellcheck disable=SC2046
                kill -KILL $(pod_processes "$pid")
                wait "$pid" 2>/dev/null
        fi
}

# pod_stop POD [GRACE]: SIGTERM, as the kubelet stops a pod; STOP_RC is the command's exit status.
pod_stop() {
        if [ "$RUNTIME" = podman ]; then
                "${PODMAN[@]}" stop -t "${2:-60}" "$1" >/dev/null 2>&1
                STOP_RC=$("${PODMAN[@]}" inspect -f '{{.State.ExitCode}}' "$1")
        else
                kill -TERM "$1" 2>/dev/null
                local i
                for i in $(seq $((${2:-60} * 10))); do kill -0 "$1" 2>/dev/null || break; sleep 0.1; done
                wait "$1"
                STOP_RC=$?
        fi
}

# probe KIND: the manifest's exec probe of that kind, run in the pod (RC, OUT).
probe() {
        local cmd
        read -ra cmd < <(sed -n "s/^probe $1 //p" "$TMP/plan-netpolld-web")
        [ ${#cmd[@]} -gt 0 ] || { RC=1 OUT="no $1 probe in the manifest"; return; }
        pod_exec "${cmd[@]}"
}

# pod_ready: waits (20 s) until the readiness probe passes.
pod_ready() {
        local i
        for i in $(seq 200); do
                pod_running "$POD" || { fail "the pod exited:" "$(pod_log | tail -20)"; return 1; }
                probe readiness
                [ "$RC" = 0 ] && return 0
                sleep 0.1
        done
        fail "the readiness probe did not pass within 20 s:" "$OUT $ERR" "$(pod_log | tail -20)"
        return 1
}

# The CPU pressure trigger needs CAP_SYS_RESOURCE, which a pod can have only where the node's bounding set has it.
host_has_sys_resource() {
        local bnd
        bnd=$(awk '/^CapBnd/ { print $2 }' /proc/self/status)
        (((0x$bnd >> 24) & 1))
}

case_pod_runs_profile() {
        local start=$SECONDS log
        [ -n "$ROOTFS" ] || { fail "no image"; return; }
        pod_start netpolld-web
        pod_ready || return
        diag "ready ($RUNTIME) after $((SECONDS - start)) s"
        for k in startup liveness; do
                probe "$k"
                expect_eq "the $k probe" "$RC" 0
        done
        pod_exec netpollctl status
        expect_contains "netpollctl status in the pod" "$OUT" "web"
        pod_exec netpollctl --json status
        expect_contains "the profile comes from the ConfigMap" "$OUT" "/etc/netpolld/profiles/web.conf"
        log=$(pod_log)
        # The profile's values reached this host; the adaptive controller may have let busy
        # polling yield already on a loaded host, which it says.
        expect_contains "busy_read set from the profile" "$log" "busy-read: 0 -> 25 (profile)"
        expect_contains "busy_poll set from the profile" "$log" "busy-poll: 0 -> 25 (profile)"
        if ! grep -q "busy-read: 25 -> 0 (.*yields" <<<"$log"; then
                expect_eq "net.core.busy_read on this host" "$(cat /proc/sys/net/core/busy_read)" 25
                expect_eq "net.core.busy_poll on this host" "$(cat /proc/sys/net/core/busy_poll)" 25
        fi
        # /host/proc (the node's) and /host/sys (a link to the pod's sysfs) are the running kernel.
        expect_contains "netpolld takes /host for the running kernel" "$log" "sysroot /host: the running kernel's /proc and /sys"
        if host_has_sys_resource; then
                expect_contains "the CPU pressure trigger" "$log" "CPU pressure trigger: armed while traffic flows"
        else
                expect_contains "the CPU pressure trigger (no CAP_SYS_RESOURCE in this host's bounding set)" "$log" \
                        "no CAP_SYS_RESOURCE at start, so no CPU pressure trigger"
                diag "this host's bounding set lacks CAP_SYS_RESOURCE: the trigger cannot be armed, netpolld says so"
        fi
        expect_contains "device-wide per-NAPI knobs have a netlink source" "$log" \
                "per-NAPI device knobs (irq-suspend-timeout@DEV): from the kernel over netlink"
        [ -s "$NODE_RUN/restore.journal" ] || fail "no restore journal in the node's /run/netpolld (hostPath):" "$(ls -la "$NODE_RUN")"
        if [ "$RUNTIME" = podman ]; then
                # the pod's first process, read from here: what podman gave the pod
                OUT=$(grep -E '^(CapBnd|NoNewPrivs)' "/proc/$("${PODMAN[@]}" inspect -f '{{.State.Pid}}' "$POD")/status")
                diag "in the container: $(tr '\n\t' '  ' <<<"$OUT")"
                pod_exec sh -c 'echo 1 >/host/proc/sys/net/ipv4/ip_forward'
                [ "$RC" != 0 ] || fail "the pod could write /host/proc/sys/net/ipv4 (only net/core is writable)"
                pod_exec touch /etc/netpolld-test
                [ "$RC" != 0 ] || fail "the pod's root is writable"
        fi
}

case_killed_pod_replaced() {
        local value replays
        need_pod || return
        value=$(cat /proc/sys/net/core/busy_read)
        pod_kill "$POD"
        POD=
        expect_eq "busy_read after SIGKILL (journaled, not restored)" "$(cat /proc/sys/net/core/busy_read)" "$value"
        [ -s "$NODE_RUN/restore.journal" ] || fail "the journal did not outlive the pod"
        pod_start netpolld-web
        pod_ready || return
        replays=$(pod_log | sed -n '/a previous run did not stop cleanly: restoring/,$p')
        [ -n "$replays" ] || { fail "the new pod's netpolld did not replay the journal:" "$(pod_log | tail -20)"; return; }
        expect_contains "the new pod restored, then applied the profile again" "$replays" "busy-read: 0 -> 25 (profile)"
}

need_pod() { pod_running "$POD" && return 0; fail "the pod is not running"; return 1; }

case_sigterm_restores() {
        local d
        need_pod || return
        pod_stop "$POD"
        POD=
        expect_eq "the entrypoint's exit status after SIGTERM" "$STOP_RC" 0
        d=$(diff <(printf '%s\n' "$SYSCTL_BEFORE") <(sysctl_state))
        [ -z "$d" ] || fail "/proc/sys/net/core differs from before the pod:" "$d"
        expect_contains "the entrypoint says how netpolld exited" "$(pod_log | tail -3)" "netpolld exited with status 0"
        [ -s "$NODE_RUN/restore.journal" ] && fail "the restore journal still holds entries after the stop"
        diag "the pod's last lines:" "$(pod_log | tail -n 4)"
        diag "node's /run/netpolld after the stop: $(ls -A "$NODE_RUN" | paste -sd' ')"
}

# A node relabelled from web to latency: the latency DaemonSet's pod starts while the
# web one still runs, and must wait until that one has restored and exited.
case_relabel_waits_for_restore() {
        local d
        [ -n "$ROOTFS" ] || { fail "no image"; return; }
        pod_start netpolld-web
        pod_ready || return
        OLD_POD=$POD
        pod_start netpolld-latency
        sleep 2
        pod_running "$POD" || { fail "the latency pod exited:" "$(pod_log | tail -20)"; return; }
        expect_contains "the latency pod waits" "$(pod_log)" "waiting for it to restore and exit"
        pod_exec netpollctl status
        [ "$RC" != 0 ] || fail "the latency pod's netpolld answered while the web pod ran:" "$OUT"
        pod_stop "$OLD_POD"
        OLD_POD=
        expect_eq "the web pod's exit status" "$STOP_RC" 0
        pod_ready || return
        pod_exec netpollctl status
        expect_contains "the latency pod runs its profile" "$OUT" "latency"
        pod_stop "$POD"
        POD=
        expect_eq "the latency pod's exit status" "$STOP_RC" 0
        [ "$CASE_FAILED" = 0 ] || diag "the pods' last lines:" "$(pod_log | tail -n 25)"
        d=$(diff <(printf '%s\n' "$SYSCTL_BEFORE") <(sysctl_state))
        [ -z "$d" ] || fail "/proc/sys/net/core differs from before the pods:" "$d"
}

run_case "the manifests validate offline against the Kubernetes API schema (python3-kubernetes 22.6 models)" \
        case_manifests_valid
run_case "broken copies are refused, each naming its path" case_broken_manifests_refused
run_case "the OCI image from HEAD's packages (mmdebstrap, umoci; cached by content)" case_image
run_case "the image holds netpolld, netpollctl, dbus-daemon, the profiles and the entrypoint the DaemonSets run" \
        case_image_contents
run_case "the runtime: podman (runc) where a trivial container of the image starts, else a chroot emulation" \
        case_runtime
run_case "netpolld-web's pod from the manifest: ready by its probes, netpollctl answers, the profile reached /proc/sys" \
        case_pod_runs_profile
run_case "the pod killed with SIGKILL: the journal on the hostPath outlives it, the next pod replays it" \
        case_killed_pod_replaced
run_case "SIGTERM: every value restored, the entrypoint exits with netpolld's status 0" case_sigterm_restores
run_case "a node relabelled web -> latency: the new pod waits for the old one's restore, then runs; all restored" \
        case_relabel_waits_for_restore
echo "# the whole test took $SECONDS s (runtime: $RUNTIME)"
tap_done
