#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# json-validate.py SCHEMA [--lines] < OUTPUT: validates netpollctl --json
# output against one of docs/schema/*.json (python3-jsonschema, draft
# 2020-12). --lines: one document per line (netpollctl --json monitor).
# Prints every violation with its JSON path; exit 1 when there is one, 2
# when the input is not JSON.
# json-validate.py --check-schemas FILE...: each file is a valid draft
# 2020-12 schema whose $id and "schema" const match its file name.
import json
import os
import re
import sys

import jsonschema


def check_schemas(paths):
    bad = 0
    for p in paths:
        s = json.load(open(p))
        try:
            jsonschema.Draft202012Validator.check_schema(s)
        except jsonschema.SchemaError as e:
            print(f"{p}: not a valid schema: {e.message}")
            bad = 1
            continue
        m = re.fullmatch(r"netpollctl-([a-z-]+)\.v([0-9]+)\.json", os.path.basename(p))
        if not m:
            print(f"{p}: name is not netpollctl-NAME.vN.json")
            bad = 1
            continue
        name, version = m.groups()
        if s.get("$id") != f"urn:netpolld:schema:netpollctl-{name}:v{version}":
            print(f"{p}: $id {s.get('$id')!r} does not match the file name")
            bad = 1
        const = s.get("properties", {}).get("schema", {}).get("const")
        if const is not None and const != f"netpolld.{name}/{version}":
            print(f"{p}: schema const {const!r} does not match the file name")
            bad = 1
    return bad


def main():
    if sys.argv[1] == "--check-schemas":
        return check_schemas(sys.argv[2:])
    validator = jsonschema.Draft202012Validator(json.load(open(sys.argv[1])))
    text = sys.stdin.read()
    try:
        docs = [json.loads(l) for l in text.splitlines() if l.strip()] if "--lines" in sys.argv else [json.loads(text)]
    except ValueError as e:
        print(f"not JSON: {e}: {text[:200]!r}")
        return 2
    if not docs:
        print("no document")
        return 1
    bad = 0
    for d in docs:
        for e in sorted(validator.iter_errors(d), key=lambda e: list(e.absolute_path)):
            print(f"{'/'.join(str(p) for p in e.absolute_path) or '(top)'}: {e.message}")
            bad = 1
    return bad


sys.exit(main())
