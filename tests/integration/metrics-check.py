#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# metrics-check.py LIST_JSON METRICS_TEXT: compares the knob families of
# `netpollctl metrics` with `netpollctl --json list`: every listed knob has
# netpolld_knob_supported, and every knob with a value has exactly one value
# sample, in base units (seconds for times, CPU count for CPU sets), with the
# same origin. Prints one line per difference; exit 1 when there is one.
import json
import re
import sys

UNITS = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}
SAMPLE = re.compile(r'^(netpolld_knob_[a-z]+)\{knob="([^"]*)"(?:,origin="([^"]*)")?\} (\S+)$')


def expected(k):
    v = k["value"]
    if k["unit"] == "cpus":
        if v in ("none", ""):
            return "netpolld_knob_cpus", 0.0
        n = 0
        for part in v.split(","):
            a, _, b = part.partition("-")
            n += int(b or a) - int(a) + 1
        return "netpolld_knob_cpus", float(n)
    m = re.fullmatch(r"([0-9]+)([a-z]*)", v)
    if m and m.group(2) in UNITS:
        return "netpolld_knob_seconds", int(m.group(1)) * UNITS[m.group(2)]
    return "netpolld_knob_value", float(int(m.group(1)))


def main():
    knobs = json.load(open(sys.argv[1]))
    samples = {}
    for line in open(sys.argv[2]):
        m = SAMPLE.match(line.rstrip("\n"))
        if m:
            samples.setdefault((m.group(2), m.group(1)), []).append((m.group(3), float(m.group(4))))
    bad = []
    for k in knobs:
        name = k["name"]
        sup = samples.get((name, "netpolld_knob_supported"), [])
        if sup != [(None, 1.0 if k["supported"] else 0.0)]:
            bad.append(f"{name}: netpolld_knob_supported {sup}, list says supported={k['supported']}")
        if not k["supported"] or not k["value"]:
            continue
        family, value = expected(k)
        got = samples.get((name, family), [])
        if len(got) != 1 or got[0][0] != k["origin"] or abs(got[0][1] - value) > 1e-12:
            bad.append(f"{name}: {family} {got}, list says {k['value']} ({value}) origin {k['origin']}")
    for line in bad:
        print(line)
    return 1 if bad else 0


sys.exit(main())
