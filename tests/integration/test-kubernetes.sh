#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# test-kubernetes.sh: the Kubernetes example (examples/kubernetes). No
# container can start on this machine (podman's runtimes fail at
# setrlimit), so what can be tested is:
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
#   3. the netpolld-web DaemonSet's container emulated as the kubelet would
#      set it up (k8s-pod-plan.py reads its command, environment,
#      capabilities and volumes): a chroot into the unpacked image, read-only,
#      in a private mount namespace (nothing is mounted on the host) with
#      the ConfigMaps, the node's /proc read-only, /proc/sys/net/core
#      writable, the journal's hostPath (a directory below the test's
#      temporary one stands for the node's /run/netpolld) and the bus
#      emptyDir, the bounding set cut to the added capabilities. The
#      entrypoint starts, `netpollctl status` answers through its bus (as
#      `kubectl exec` would), and the profile's busy_read/busy_poll reach
#      this host's /proc/sys; the pod killed with SIGKILL leaves them, a new
#      pod with the same journal starts; on SIGTERM every value under
#      /proc/sys/net/core is as before and the entrypoint exits 0;
#   4. a node relabelled from web to latency: the latency pod, started while
#      the web pod runs, waits for the node's lock until the web pod has
#      restored and exited, then runs its profile; after both every value
#      is as before.
# The image and its unpacked root are cached in $NETPOLLD_FLEET_CACHE (the
# build directory) by the packages' and the example's content. Speaks TAP;
# needs root, mmdebstrap, umoci, python3-kubernetes and network access to
# deb.debian.org; skips with the reason otherwise. Restores every sysctl it
# finds changed, also on failure.

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
POD_PID=          # the pod's entrypoint (its PID from the chroot on)
OLD_POD_PID=      # a pod being replaced by POD_PID
NODE_RUN=$TMP/node-run-netpolld # stands for the node's /run/netpolld (hostPath)
mkdir -p "$NODE_RUN"

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

# restore_host: stops a pod still running; then, when one was (the test ended
# early) or a journal is left, writes back what differs from before the test.
# After pods that stopped normally netpolld has restored all itself, and the
# values are left alone: another test on this host may have set them.
restore_host() {
        local line f v pid forced=0
        for pid in $POD_PID $OLD_POD_PID; do
                kill -0 "$pid" 2>/dev/null || continue
                forced=1
                kill -TERM "$pid" 2>/dev/null
                for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
                # shellcheck disable=SC2046
                kill -KILL $(pod_processes "$pid") 2>/dev/null
                wait "$pid" 2>/dev/null
        done
        POD_PID='' OLD_POD_PID=''
        [ "$forced" = 1 ] || [ -s "$NODE_RUN/restore.journal" ] || return 0
        # Whatever netpolld did not put back: the values from before the test.
        while IFS= read -r line; do
                f=${line%%:*} v=${line#*:}
                [ "$(cat "$f" 2>/dev/null)" = "$v" ] && continue
                echo "# restoring $f to $v" >&2
                printf '%s\n' "$v" >"$f" 2>/dev/null || true
        done <<<"$SYSCTL_BEFORE"
}
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

# pod_start DAEMONSET: the pod runs (POD_PID); its output goes to $TMP/pod.log.
pod_start() {
        pod_script "$1"
        unshare --mount --propagation private bash "$TMP/pod-$1.sh" >>"$TMP/pod.log" 2>&1 &
        POD_PID=$!
}

# pod_exec COMMAND...: runs COMMAND in the pod's root with its environment, as `kubectl exec` does.
pod_exec() {
        run nsenter --target "$POD_PID" --mount --root --wd -- /usr/bin/env -i "PATH=$IMAGE_PATH" \
                "NETPOLLD_BUS_ADDRESS=$(env_of netpolld-web NETPOLLD_BUS_ADDRESS)" "$@"
}

# pod_ready: waits (10 s) for `netpollctl status` to answer, as the readiness probe does.
pod_ready() {
        local i
        for i in $(seq 100); do
                kill -0 "$POD_PID" 2>/dev/null || { fail "the pod exited:" "$(tail -20 "$TMP/pod.log")"; return 1; }
                pod_exec netpollctl status
                [ "$RC" = 0 ] && return 0
                sleep 0.1
        done
        fail "netpollctl status did not answer in the pod within 10 s:" "$OUT $ERR" "$(tail -20 "$TMP/pod.log")"
        return 1
}

case_pod_runs_profile() {
        local start=$SECONDS
        [ -n "$ROOTFS" ] || { fail "no image"; return; }
        pod_start netpolld-web
        pod_ready || return
        diag "ready after $((SECONDS - start)) s"
        expect_contains "netpollctl status in the pod" "$OUT" "web"
        expect_eq "net.core.busy_read on this host" "$(cat /proc/sys/net/core/busy_read)" 25
        expect_eq "net.core.busy_poll on this host" "$(cat /proc/sys/net/core/busy_poll)" 25
        pod_exec netpollctl --json status
        expect_contains "the profile comes from the ConfigMap" "$OUT" "/etc/netpolld/profiles/web.conf"
        # /host/proc (the node's, bound) and /host/sys (a link to the pod's sysfs) are the running kernel.
        grep -qF "sysroot /host: the running kernel's /proc and /sys" "$TMP/pod.log" ||
                fail "netpolld does not take /host for the running kernel:" "$(tail -20 "$TMP/pod.log")"
        grep -qE "CPU pressure trigger: armed while traffic flows|no CAP_SYS_RESOURCE at start" "$TMP/pod.log" ||
                fail "no word on the CPU pressure trigger in the pod:" "$(tail -20 "$TMP/pod.log")"
        grep -qF "per-NAPI device knobs (irq-suspend-timeout@DEV): from the kernel over netlink" "$TMP/pod.log" ||
                fail "device-wide per-NAPI knobs have no netlink source in the pod:" "$(tail -20 "$TMP/pod.log")"
        [ -s "$NODE_RUN/restore.journal" ] || fail "no restore journal in the node's /run/netpolld (hostPath):" "$(ls -la "$NODE_RUN")"
}

case_killed_pod_replaced() {
        need_pod || return
        # A container killed outright: every process of it at once, no restore.
        # shellcheck disable=SC2046
        kill -KILL $(pod_processes "$POD_PID")
        wait "$POD_PID" 2>/dev/null
        POD_PID=
        expect_eq "busy_read after SIGKILL (journaled, not restored)" "$(cat /proc/sys/net/core/busy_read)" 25
        [ -s "$NODE_RUN/restore.journal" ] || fail "the journal did not outlive the pod"
        pod_start netpolld-web
        pod_ready || return
        expect_contains "the new pod's netpolld replayed the journal" "$(cat "$TMP/pod.log")" \
                "a previous run did not stop cleanly: restoring"
        expect_eq "busy_read with the new pod" "$(cat /proc/sys/net/core/busy_read)" 25
}

need_pod() { [ -n "$POD_PID" ] && kill -0 "$POD_PID" 2>/dev/null && return 0; fail "the pod is not running"; return 1; }

case_sigterm_restores() {
        local rc d
        need_pod || return
        kill -TERM "$POD_PID"
        wait "$POD_PID"
        rc=$?
        POD_PID=
        expect_eq "the entrypoint's exit status after SIGTERM" "$rc" 0
        d=$(diff <(printf '%s\n' "$SYSCTL_BEFORE") <(sysctl_state))
        [ -z "$d" ] || fail "/proc/sys/net/core differs from before the pod:" "$d"
        expect_contains "the entrypoint says how netpolld exited" "$(tail -3 "$TMP/pod.log")" "netpolld exited with status 0"
        [ -s "$NODE_RUN/restore.journal" ] && fail "the restore journal still holds entries after the stop"
        diag "the pod's last lines:" "$(tail -n 4 "$TMP/pod.log")"
        diag "node's /run/netpolld after the stop: $(ls -A "$NODE_RUN" | paste -sd' ')"
}

# A node relabelled from web to latency: the latency DaemonSet's pod starts while the
# web one still runs, and must wait until that one has restored and exited.
case_relabel_waits_for_restore() {
        local rc
        [ -n "$ROOTFS" ] || { fail "no image"; return; }
        pod_start netpolld-web
        pod_ready || return
        OLD_POD_PID=$POD_PID
        pod_start netpolld-latency
        sleep 2
        kill -0 "$POD_PID" 2>/dev/null || { fail "the latency pod exited:" "$(tail -20 "$TMP/pod.log")"; return; }
        expect_contains "the latency pod waits" "$(cat "$TMP/pod.log")" "waiting for it to restore and exit"
        pod_exec netpollctl status
        [ "$RC" != 0 ] || fail "the latency pod's netpolld answered while the web pod ran:" "$OUT"
        expect_eq "busy_read while the web pod still runs" "$(cat /proc/sys/net/core/busy_read)" 25
        kill -TERM "$OLD_POD_PID"
        wait "$OLD_POD_PID"
        rc=$?
        OLD_POD_PID=
        expect_eq "the web pod's exit status" "$rc" 0
        pod_ready || return
        expect_contains "the latency pod runs its profile" "$OUT" "latency"
        kill -TERM "$POD_PID"
        wait "$POD_PID"
        rc=$?
        POD_PID=
        expect_eq "the latency pod's exit status" "$rc" 0
        [ "$CASE_FAILED" = 0 ] || diag "the pods' last lines:" "$(tail -n 25 "$TMP/pod.log")"
        rc=$(diff <(printf '%s\n' "$SYSCTL_BEFORE") <(sysctl_state))
        [ -z "$rc" ] || fail "/proc/sys/net/core differs from before the pods:" "$rc"
}

run_case "the manifests validate offline against the Kubernetes API schema (python3-kubernetes 22.6 models)" \
        case_manifests_valid
run_case "broken copies are refused, each naming its path" case_broken_manifests_refused
run_case "the OCI image from HEAD's packages (mmdebstrap, umoci; cached by content)" case_image
run_case "the image holds netpolld, netpollctl, dbus-daemon, the profiles and the entrypoint the DaemonSets run" \
        case_image_contents
run_case "netpolld-web's container emulated in a chroot: ready, netpollctl answers, the profile reached /proc/sys" \
        case_pod_runs_profile
run_case "the pod killed with SIGKILL: the journal on the hostPath outlives it, a new pod starts" \
        case_killed_pod_replaced
run_case "SIGTERM: every value restored, the entrypoint exits with netpolld's status 0" case_sigterm_restores
run_case "a node relabelled web -> latency: the new pod waits for the old one's restore, then runs; all restored" \
        case_relabel_waits_for_restore
echo "# the whole test took $SECONDS s"
tap_done
