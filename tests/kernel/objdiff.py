#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""objdiff.py OLD.o NEW.o [FUNCTION...]: compare two builds of one object by
function, to check that a kernel patch changes only the code it means to.

Not run by the test suite: kernel-patches/README.md describes its use. Each
function's disassembly (objdump -d -r, x86_64) is normalised so that layout
does not count: addresses, branch target offsets and numbered local symbols
are dropped. Without FUNCTION arguments it lists the functions that differ
once immediates and relocation addends are ignored too (WARN()'s __LINE__
and string offsets move whenever lines are added above them), and those
that exist in one object only; with them it prints their full diffs.
"""
import difflib
import re
import subprocess
import sys


def functions(path):
    out = subprocess.run(['objdump', '-d', '-r', '--no-show-raw-insn', path],
                         capture_output=True, text=True, check=True).stdout
    funcs, cur = {}, None
    for line in out.splitlines():
        m = re.match(r'^[0-9a-f]+ <(.+)>:$', line)
        if m:
            cur = m.group(1)
            funcs[cur] = []
            continue
        if cur is None or not line.strip() or line.startswith('Disassembly of section'):
            continue
        line = re.sub(r'^\s*[0-9a-f]+:\s*', '', line)
        line = re.sub(r'\b[0-9a-f]+ <([^>+]+)(\+0x[0-9a-f]+)?>', r'<\1>', line)
        line = re.sub(r'\.\d+\b', '.N', line)
        line = re.sub(r'__UNIQUE_ID_(\w+?)\d+', r'__UNIQUE_ID_\1N', line)
        funcs[cur].append(line.strip())
    return funcs


def loose(lines):
    return [re.sub(r'\$0x[0-9a-f]+', '$IMM', re.sub(r'[+-]0x[0-9a-f]+$', '', l)) for l in lines]


def main(argv):
    if len(argv) < 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    old, new = functions(argv[1]), functions(argv[2])
    if argv[3:]:
        for name in argv[3:]:
            a, b = old.get(name), new.get(name)
            if a is None or b is None:
                print(f'{name}: only in {"new" if a is None else "old"}' if a or b else f'{name}: in neither')
            elif a == b:
                print(f'{name}: identical')
            else:
                print('\n'.join(difflib.unified_diff(a, b, 'old/' + name, 'new/' + name, n=1, lineterm='')))
        return 0
    for name in sorted(set(old) | set(new)):
        if name not in old or name not in new:
            print(f'only in {"new" if name in new else "old"}: {name}')
        elif loose(old[name]) != loose(new[name]):
            print(f'differs: {name}')
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
