#!/usr/bin/env python3
"""libprofrun.so exports exactly the symbols its version script lists: the
wrapped functions and the public API. Anything else exported would be
interposed on the target's own symbols of the same name.

usage: check-symbols.py LIBPROFRUN.so libprofrun.sym
"""
import re
import subprocess
import sys


def listed(symfile):
    text = re.sub(r'/\*.*?\*/', '', open(symfile).read(), flags=re.S)
    globl = text.split('global:', 1)[1].split('local:', 1)[0]
    return {s.strip() for s in globl.split(';') if s.strip()}


def exported(lib):
    out = subprocess.run(['nm', '-D', '--defined-only', lib], check=True,
                         capture_output=True, text=True).stdout
    names = set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in 'TtWiDdBbVv':
            names.add(parts[2].split('@')[0])
    return names


def main():
    lib, symfile = sys.argv[1:3]
    want, have = listed(symfile), exported(lib)
    extra, missing = sorted(have - want), sorted(want - have)
    print(f'{len(have)} exported, {len(want)} listed')
    if extra:
        print('exported but not in the version script:', ' '.join(extra))
    if missing:
        print('in the version script but not exported:', ' '.join(missing))
    return 1 if extra or missing else 0


sys.exit(main())
