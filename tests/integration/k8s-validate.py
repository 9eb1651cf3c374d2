#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Validates Kubernetes manifests offline against the API schema that
python3-kubernetes (Debian 12: 22.6, Kubernetes 1.22) carries in its
generated models: each model's openapi_types and attribute_map name every
field a kind has and its type, and its constructor refuses a missing
required field. kubectl cannot do this without a cluster (it downloads the
schema from the API server, even with --dry-run=client).

  k8s-validate.py FILE...

Every document must name an apiVersion and kind the client knows (the group
and version have an API class with that kind's create method). Every field
must exist in its kind's schema, with the schema's type (int, bool and str
are not converted into each other: "60" is not an int), and every required
field must be there. A DaemonSet's selector must also match its template's
labels (the API server refuses it otherwise). Prints one line per document
and every error as FILE:DOC-NUMBER: PATH: MESSAGE; exits 1 on any error.
"""
import datetime
import re
import sys

import yaml
import kubernetes.client as k8s


def snake(name):
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def model_for(api_version, kind):
    """The model class of apiVersion/kind, or an error message."""
    if not isinstance(api_version, str) or not isinstance(kind, str):
        return None, "apiVersion and kind must be strings"
    group, _, version = api_version.rpartition("/")
    api_name = "".join(p.capitalize() for p in group.replace(".k8s.io", "").split(".")) if group else "Core"
    api = getattr(k8s, api_name + version.capitalize() + "Api", None)
    if api is None:
        return None, f"unknown apiVersion {api_version}"
    method = snake(kind)
    if not any(hasattr(api, f"create{s}_{method}") for s in ("", "_namespaced")):
        return None, f"apiVersion {api_version} has no kind {kind}"
    model = getattr(k8s, version.capitalize() + kind, None)
    if model is None:
        return None, f"no model for {api_version} {kind}"
    return model, None


class Validator:
    def __init__(self):
        self.errors = []

    def error(self, path, message):
        self.errors.append(f"{path}: {message}")

    def value(self, data, type_name, path):
        """Checks data against an openapi type name; returns the value for the model."""
        if data is None:
            return None
        m = re.fullmatch(r"list\[(.+)\]", type_name)
        if m:
            if not isinstance(data, list):
                self.error(path, f"expected a list, got {type(data).__name__}")
                return None
            return [self.value(v, m.group(1), f"{path}[{i}]") for i, v in enumerate(data)]
        m = re.fullmatch(r"dict\(str, (.+)\)", type_name)
        if m:
            if not isinstance(data, dict):
                self.error(path, f"expected a map, got {type(data).__name__}")
                return None
            return {k: self.value(v, m.group(1), f"{path}.{k}") for k, v in data.items()}
        primitive = {"str": str, "int": int, "float": (int, float), "bool": bool}
        if type_name in primitive:
            ok = isinstance(data, primitive[type_name]) and (type_name == "bool" or not isinstance(data, bool))
            if not ok:
                self.error(path, f"expected {type_name}, got {type(data).__name__} {data!r}")
            return data
        if type_name == "object":  # IntOrString, RawExtension, Quantity-like
            return data
        if type_name in ("datetime", "date"):
            if not isinstance(data, (str, datetime.date)):
                self.error(path, f"expected a {type_name}, got {data!r}")
            return data
        return self.model(data, getattr(k8s, type_name), path)

    def model(self, data, cls, path):
        if not isinstance(data, dict):
            self.error(path, f"expected an object ({cls.__name__}), got {type(data).__name__}")
            return None
        by_json = {j: p for p, j in cls.attribute_map.items()}
        kwargs = {}
        for key, v in data.items():
            if key not in by_json:
                self.error(f"{path}.{key}", f"unknown field in {cls.__name__}")
                continue
            kwargs[by_json[key]] = self.value(v, cls.openapi_types[by_json[key]], f"{path}.{key}")
        try:
            return cls(**kwargs)
        except ValueError as e:  # the generated setters refuse a missing required field
            self.error(path, f"{cls.__name__}: {e}")
            return None


def semantic(doc, v):
    if doc.get("kind") == "DaemonSet":
        spec = doc.get("spec") or {}
        want = ((spec.get("selector") or {}).get("matchLabels") or {})
        have = (((spec.get("template") or {}).get("metadata") or {}).get("labels") or {})
        for k, val in want.items():
            if have.get(k) != val:
                v.error("spec.selector.matchLabels", f"{k}={val} does not match the template's labels")


def main(files):
    failed = False
    for name in files:
        with open(name) as f:
            try:
                docs = [d for d in yaml.safe_load_all(f) if d is not None]
            except yaml.YAMLError as e:
                print(f"{name}: YAML: {e}")
                failed = True
                continue
        for i, doc in enumerate(docs, 1):
            v = Validator()
            if not isinstance(doc, dict):
                v.error("", "a document must be a mapping")
            else:
                cls, err = model_for(doc.get("apiVersion"), doc.get("kind"))
                if err:
                    v.error("", err)
                else:
                    v.model(doc, cls, doc["kind"])
                    semantic(doc, v)
            label = f"{doc.get('kind')}/{(doc.get('metadata') or {}).get('name')}" if isinstance(doc, dict) else "?"
            if v.errors:
                failed = True
                for e in v.errors:
                    print(f"{name}:{i}: {label}: {e}")
            else:
                print(f"{name}:{i}: {label}: valid")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
