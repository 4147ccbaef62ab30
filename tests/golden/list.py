#!/usr/bin/env python3
"""The golden cases of tests/golden: every NAME.expected is one (see
run-golden.sh), less those that need what this build lacks (REQUIRES).
tests/meson.build registers what this prints when it configures; a case
added later is found by the test that runs this with --check.

usage: list.py GOLDEN_DIR [FEATURE...]
       list.py GOLDEN_DIR --check [FEATURE...] -- NAME...
  FEATURE: what the build has, of dw (libdw), capstone, cxx (a C++
  compiler) and x86_64 (the host: hand-written fixtures are x86-64).
  --check: exits 1, naming them, when the cases found differ from NAMEs
  (the build must be configured again: meson setup --reconfigure).
"""
import fnmatch
import os
import sys

# (name patterns, what they need); the first row whose pattern matches
# a name decides, and a name no row matches needs nothing.
REQUIRES = [
    (['lines', 'lines.*', 'export-names.sympro-lines'], {'dw'}),
    (['cxx', 'cxx.*'], {'cxx'}),
    # --disassemble and --list: the source listings need libdw, the
    # disassembly Capstone; they disassemble hand-written x86-64.
    (['inline.disasm', 'inline.disasm-*', 'inline.list-*', 'annotate',
      'annotate.*', 'annotate-*'], {'capstone', 'dw', 'x86_64'}),
    # inlined frames from fixture-inline.S's DWARF (x86-64)
    (['inline', 'inline.*'], {'dw', 'x86_64'}),
]


def cases(golden, features):
    names = sorted(f[:-len('.expected')] for f in os.listdir(golden)
                   if f.endswith('.expected'))
    out = []
    for n in names:
        need = next((req for pats, req in REQUIRES
                     if any(fnmatch.fnmatchcase(n, p) for p in pats)), set())
        if need <= features:
            out.append(n)
    return out


def main():
    args = sys.argv[1:]
    if not args:
        print(__doc__.strip().split('\n\n')[-1], file=sys.stderr)
        return 2
    golden, rest = args[0], args[1:]
    if rest[:1] == ['--check']:
        sep = rest.index('--') if '--' in rest else len(rest)
        found = cases(golden, set(rest[1:sep]))
        registered = rest[sep + 1:]
        new = sorted(set(found) - set(registered))
        gone = sorted(set(registered) - set(found))
        for n in new:
            print(f'{golden}/{n}.expected: a case the build does not run '
                  f'(meson setup --reconfigure)')
        for n in gone:
            print(f'{golden}/{n}.expected: registered, but no longer there')
        print(f'{len(found)} golden cases, {len(registered)} registered')
        return 1 if new or gone else 0
    for n in cases(golden, set(rest)):
        print(n)
    return 0


sys.exit(main())
