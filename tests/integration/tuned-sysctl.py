#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""tuned-sysctl.py TUNED_TREE PROFILE_DIR[:DIR...] NAME: what tuned itself would write for NAME's [sysctl].

Runs tuned's own profile loader (its locator, merger and variables, from the
python tree TUNED_TREE of an extracted tuned package) and prints one line per
key of every enabled sysctl unit: "KEY<TAB>VALUE", VALUE expanded as tuned's
sysctl plugin expands it before writing. Units that tuned applies only on
matching hosts (cpuinfo_regex, uname_regex) print as "KEY<TAB>VALUE<TAB>conditional",
values whose write depends on the current value (">N", "<N") as
"KEY<TAB>VALUE<TAB>modifier". Nothing is written anywhere: no plugin runs.
"""
import sys

tree, dirs, name = sys.argv[1], sys.argv[2], sys.argv[3]
sys.path.insert(0, tree)

import tuned.logs  # noqa: E402
from tuned.profiles.factory import Factory  # noqa: E402
from tuned.profiles.loader import Loader  # noqa: E402
from tuned.profiles.locator import Locator  # noqa: E402
from tuned.profiles.merger import Merger  # noqa: E402
from tuned.profiles.variables import Variables  # noqa: E402
from tuned.utils.commands import commands  # noqa: E402

tuned.logs.get().setLevel("CRITICAL")

variables = Variables()
# tuned's locator takes its directories lowest priority first.
locator = Locator(list(reversed(dirs.split(":"))))
profile = Loader(locator, Factory(), Merger(), None, variables).load([name])
cmd = commands()
for unit in profile.units.values():
    if unit.type != "sysctl" or not unit.enabled:
        continue
    tag = "\tconditional" if unit.cpuinfo_regex is not None or unit.uname_regex is not None else ""
    for key, value in unit.options.items():
        v = variables.expand(cmd.unquote(value))
        mod = "\tmodifier" if len(v) > 1 and v[0] in "<>" else ""
        print("%s\t%s%s%s" % (key, v, tag, mod))
