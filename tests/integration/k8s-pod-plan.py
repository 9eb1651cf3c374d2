#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""What the kubelet would give one container of a DaemonSet in a manifest,
read from the manifest so that it stays the one source
(tests/integration/test-kubernetes.sh runs the pod with it):

  k8s-pod-plan.py FILE DAEMONSET CONFIGMAP-DIR [--host-path FROM=TO]... [--podman]

Without --podman, lines a shell reads (the chroot emulation uses them):

  command ARG...                    the container's command and args
  env NAME=VALUE                    its environment (literal values only)
  cap NAME                          a capability it adds (after drop ALL)
  mount configmap DIR MOUNTPATH ro|rw   DIR holds the ConfigMap's data files
  mount hostpath PATH MOUNTPATH ro|rw
  mount emptydir - MOUNTPATH rw
  ro-root yes|no                    securityContext.readOnlyRootFilesystem
  probe startup|readiness|liveness ARG...   an exec probe's command

With --podman, the arguments of `podman run` (one a line, before the image;
the command's args, if any, after it as "arg ARG" lines) that give the
container what the pod spec says: host network and PID namespace,
capabilities, no_new_privs, read-only root (without podman's extra tmpfs
mounts), user, memory limit, stop timeout, environment and volumes.

Mounts come parents first (by the depth of their mount path), as container
runtimes order them. ConfigMaps named by volumes are written below
CONFIGMAP-DIR/NAME/. --host-path puts a directory of the test in place of a
hostPath of the node (the journal's /run/netpolld). Fails on what it
cannot give (secrets, a pod network, a securityContext field, volume kind or
seccomp profile it does not know). Left out, as nothing on a single host acts
on them: nodeSelector, dnsPolicy, resources.requests, the service account
token, service links, the probes' timings and the image's name.
"""
import json
import os
import re
import sys

import yaml

SECURITY_KNOWN = {"capabilities", "privileged", "allowPrivilegeEscalation", "readOnlyRootFilesystem",
                  "runAsUser", "seccompProfile"}


def memory(q):
    """A Kubernetes memory quantity (64Mi, 1Gi, 1000000) as podman's bytes."""
    m = re.fullmatch(r"(\d+)(Ki|Mi|Gi)?", str(q))
    if not m:
        raise SystemExit(f"memory quantity {q!r}: only plain, Ki, Mi and Gi are translated")
    return str(int(m.group(1)) * {None: 1, "Ki": 1 << 10, "Mi": 1 << 20, "Gi": 1 << 30}[m.group(2)])


def plan(path, ds_name, cm_dir, host_map):
    docs = [d for d in yaml.safe_load_all(open(path)) if d]
    cms = {d["metadata"]["name"]: d.get("data") or {} for d in docs if d["kind"] == "ConfigMap"}
    ds = next(d for d in docs if d["kind"] == "DaemonSet" and d["metadata"]["name"] == ds_name)
    pod = ds["spec"]["template"]["spec"]
    (c,) = pod["containers"]
    sc = c.get("securityContext", {})
    unknown = set(sc) - SECURITY_KNOWN
    if unknown:
        raise SystemExit(f"securityContext {sorted(unknown)}: not translated")
    caps = sc.get("capabilities", {})
    if caps.get("drop") != ["ALL"]:
        raise SystemExit("the container must drop ALL capabilities")
    vols = {v["name"]: v for v in pod["volumes"]}
    mounts = []
    for m in c["volumeMounts"]:
        v = vols[m["name"]]
        mode = "ro" if m.get("readOnly") else "rw"
        if "configMap" in v:
            name = v["configMap"]["name"]
            d = os.path.join(cm_dir, name)
            os.makedirs(d, exist_ok=True)
            for key, text in cms[name].items():
                with open(os.path.join(d, key), "w") as f:
                    f.write(text)
            mounts.append(("configmap", d, m["mountPath"], mode))
        elif "hostPath" in v:
            src = v["hostPath"]["path"]
            src = host_map.get(src, src)
            if v["hostPath"].get("type") == "DirectoryOrCreate":
                os.makedirs(src, exist_ok=True)
            mounts.append(("hostpath", src, m["mountPath"], mode))
        elif "emptyDir" in v:
            if v["emptyDir"].get("medium") != "Memory":
                raise SystemExit(f"volume {m['name']}: only emptyDir in memory is translated")
            mounts.append(("emptydir", "-", m["mountPath"], mode))
        else:
            raise SystemExit(f"volume {m['name']}: no emulation for {sorted(v)}")
    mounts.sort(key=lambda t: t[2].rstrip("/").count("/"))
    probes = {k: c[k + "Probe"]["exec"]["command"] for k in ("startup", "readiness", "liveness")
              if k + "Probe" in c}
    return pod, c, sc, caps, mounts, vols, probes


def lines(path, ds_name, cm_dir, host_map):
    pod, c, sc, caps, mounts, _, probes = plan(path, ds_name, cm_dir, host_map)
    out = ["command " + " ".join(c.get("command", []) + c.get("args", []))]
    out += [f"env {e['name']}={e['value']}" for e in c.get("env", [])]
    out += [f"cap {n}" for n in caps.get("add", [])]
    out.append("ro-root " + ("yes" if sc.get("readOnlyRootFilesystem") else "no"))
    out += ["mount " + " ".join(t) for t in mounts]
    out += [f"probe {k} " + " ".join(cmd) for k, cmd in probes.items()]
    return out


def podman(path, ds_name, cm_dir, host_map):
    pod, c, sc, caps, mounts, vols, _ = plan(path, ds_name, cm_dir, host_map)
    if not pod.get("hostNetwork"):
        raise SystemExit("a pod network is not translated (hostNetwork: true only)")
    out = ["--network=host"]
    if pod.get("hostPID"):
        out.append("--pid=host")
    if "terminationGracePeriodSeconds" in pod:
        out.append(f"--stop-timeout={pod['terminationGracePeriodSeconds']}")
    out.append("--cap-drop=all")
    out += [f"--cap-add={n}" for n in caps.get("add", [])]
    if sc.get("privileged"):
        out.append("--privileged")
    if sc.get("allowPrivilegeEscalation") is False:
        out.append("--security-opt=no-new-privileges")
    # The kubelet adds no tmpfs to a read-only root; podman does unless told not to.
    if sc.get("readOnlyRootFilesystem"):
        out += ["--read-only", "--read-only-tmpfs=false"]
    if "runAsUser" in sc:
        out.append(f"--user={sc['runAsUser']}")
    seccomp = sc.get("seccompProfile", {}).get("type", "RuntimeDefault")
    if seccomp == "Unconfined":
        out.append("--security-opt=seccomp=unconfined")
    elif seccomp != "RuntimeDefault":  # RuntimeDefault: podman's default filter
        raise SystemExit(f"seccompProfile {seccomp}: not translated")
    limit = c.get("resources", {}).get("limits", {}).get("memory")
    if limit:
        out.append(f"--memory={memory(limit)}")
    if c.get("command"):
        out.append("--entrypoint=" + json.dumps(c["command"]))
    out += [f"--env={e['name']}={e['value']}" for e in c.get("env", [])]
    by_path = {m["mountPath"]: vols[m["name"]] for m in c["volumeMounts"]}
    for kind, src, dest, mode in mounts:
        if kind == "emptydir":
            size = by_path[dest]["emptyDir"].get("sizeLimit")
            out.append(f"--tmpfs={dest}:rw,mode=1777" + (f",size={memory(size)}" if size else ""))
        else:
            # A ConfigMap volume is always read-only in Kubernetes.
            ro = mode == "ro" or kind == "configmap"
            out.append(f"--volume={src}:{dest}" + (":ro" if ro else ""))
    out += [f"arg {a}" for a in c.get("args", [])]
    return out


def main(argv):
    podman_mode = "--podman" in argv
    argv = [a for a in argv if a != "--podman"]
    host_map, rest = {}, []
    while argv:
        a = argv.pop(0)
        if a == "--host-path":
            k, _, v = argv.pop(0).partition("=")
            host_map[k] = v
        else:
            rest.append(a)
    print("\n".join((podman if podman_mode else lines)(*rest, host_map)))


if __name__ == "__main__":
    main(sys.argv[1:])
