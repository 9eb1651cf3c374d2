#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""What the kubelet would give one container of a DaemonSet in a manifest,
as lines a shell reads (tests/integration/test-kubernetes.sh emulates the
pod with them in a chroot):

  k8s-pod-plan.py FILE DAEMONSET CONFIGMAP-DIR

  command ARG...                    the container's command and args
  env NAME=VALUE                    its environment (literal values only)
  cap NAME                          a capability it adds (after drop ALL)
  mount configmap DIR MOUNTPATH ro|rw   DIR holds the ConfigMap's data files
  mount hostpath PATH MOUNTPATH ro|rw
  mount emptydir - MOUNTPATH rw
  ro-root yes|no                    securityContext.readOnlyRootFilesystem

Mounts come parents first (by the depth of their mount path), as container
runtimes order them. ConfigMaps named by volumes are written below
CONFIGMAP-DIR/NAME/. Fails on anything else in a volume (secrets, ...).
"""
import os
import sys

import yaml


def main(path, ds_name, cm_dir):
    docs = [d for d in yaml.safe_load_all(open(path)) if d]
    cms = {d["metadata"]["name"]: d.get("data") or {} for d in docs if d["kind"] == "ConfigMap"}
    ds = next(d for d in docs if d["kind"] == "DaemonSet" and d["metadata"]["name"] == ds_name)
    pod = ds["spec"]["template"]["spec"]
    (c,) = pod["containers"]
    out = ["command " + " ".join(c.get("command", []) + c.get("args", []))]
    for e in c.get("env", []):
        out.append(f"env {e['name']}={e['value']}")
    sc = c.get("securityContext", {})
    caps = sc.get("capabilities", {})
    if caps.get("drop") != ["ALL"]:
        raise SystemExit("the container must drop ALL capabilities")
    out += [f"cap {n}" for n in caps.get("add", [])]
    out.append("ro-root " + ("yes" if sc.get("readOnlyRootFilesystem") else "no"))
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
            mounts.append(("hostpath", v["hostPath"]["path"], m["mountPath"], mode))
        elif "emptyDir" in v:
            mounts.append(("emptydir", "-", m["mountPath"], mode))
        else:
            raise SystemExit(f"volume {m['name']}: no emulation for {sorted(v)}")
    mounts.sort(key=lambda t: t[2].rstrip("/").count("/"))
    out += ["mount " + " ".join(t) for t in mounts]
    print("\n".join(out))


if __name__ == "__main__":
    main(*sys.argv[1:])
