#!/usr/bin/env python3
"""The malloc family's wrappers keep their layout (preload/sources/alloc_int.h,
WRAPPER): each exported wrapper starts a 64-byte line, and in an optimized
build without sanitizers the fast path of the wrappers programs call most,
from the entry to the first indirect jump into the real function, ends
within that line. A fast path split over two lines cost the malloc+free
loop of scripts/bench-shape 3 to 6 points (BENCHMARKS.md); this test keeps
an edit from splitting one again unnoticed.

usage: test_wrapper_layout.py LIBPROFRUN
"""
import json
import os
import re
import shutil
import sys

import prof

LINE = 64
# The ones whose fast path must fit: what programs call most.
HOT = ['malloc', 'calloc', 'realloc', 'free', '_Znwm', '_Znam', '_ZdlPv',
       '_ZdaPv', '_ZdlPvm', '_ZdaPvm']


def wrappers():
    """The functions preload/sources/alloc.c and alloc_cxx.c define with WRAPPER:
    the name on the line after each WRAPPER line."""
    names = []
    for f in ('alloc.c', 'alloc_cxx.c'):
        path = os.path.join(os.environ['PROFRUN_SOURCE_ROOT'], 'preload',
                            'sources', f)
        with open(path) as src:
            lines = src.read().splitlines()
        names += [lines[i + 1].split('(')[0] for i, line in
                  enumerate(lines) if line.startswith('WRAPPER ')]
    return names


def symbols(lib):
    """{name: address} of the defined functions in lib's dynamic table."""
    r = prof.run(['nm', '-D', '--defined-only', lib])
    if r.returncode != 0:
        raise prof.Fail(f'nm -D {lib}: exit {r.returncode}: {r.stderr}')
    out = {}
    for line in r.stdout.splitlines():
        f = line.split()
        if len(f) == 3 and f[1] in 'TtWi':
            out[f[2].split('@')[0]] = int(f[0], 16)
    return out


def fast_path_end(lib, name, addr):
    """The offset from name's entry of the end of its first indirect
    jump (jmp *...), the tail call into the real function."""
    r = prof.run(['objdump', '-d', '--no-show-raw-insn',
                  f'--start-address={addr:#x}',
                  f'--stop-address={addr + 4 * LINE:#x}', lib])
    if r.returncode != 0:
        raise prof.Fail(f'objdump {lib}: exit {r.returncode}: {r.stderr}')
    insns = []
    for line in r.stdout.splitlines():
        m = re.match(r'\s*([0-9a-f]+):\s+(\S+)\s*(.*)$', line)
        if m:
            insns.append((int(m.group(1), 16), m.group(2), m.group(3)))
    for i, (a, mnemonic, operands) in enumerate(insns):
        if mnemonic == 'jmp' and operands.startswith('*'):
            end = insns[i + 1][0] if i + 1 < len(insns) else None
            if end is None:
                raise prof.Fail(f'{name}: cannot tell where its jump ends')
            return end - addr
    raise prof.Fail(f'{name}: no indirect jump within {4 * LINE} bytes of '
                    f'its entry:\n{r.stdout}')


def build_options():
    path = os.path.join(prof.build_root(), 'meson-info',
                        'intro-buildoptions.json')
    with open(path) as f:
        return {o['name']: o['value'] for o in json.load(f)}


def test():
    lib = sys.argv[1]
    for tool in ('nm', 'objdump'):
        if not shutil.which(tool):
            raise prof.Fail(f'{tool} not found (binutils is a build '
                            f'dependency)')
    WRAPPERS = wrappers()
    if not set(HOT) <= set(WRAPPERS):
        raise prof.Fail(f'not defined with WRAPPER: '
                        f'{sorted(set(HOT) - set(WRAPPERS))}')
    syms = symbols(lib)
    missing = [w for w in WRAPPERS if w not in syms]
    if missing:
        raise prof.Fail(f'{lib} does not export {missing}')
    off = {w: syms[w] % LINE for w in WRAPPERS if syms[w] % LINE}
    if off:
        raise prof.Fail('wrappers not at the start of a 64-byte line: ' +
                        ', '.join(f'{w} at {syms[w]:#x}' for w in off))
    print(f'{len(WRAPPERS)} wrappers, each at the start of a 64-byte line')
    opts = build_options()
    if opts.get('optimization') not in ('2', '3', 's') or \
            opts.get('b_sanitize') not in ('none', []):
        print(f'fast paths not measured: optimization '
              f'{opts.get("optimization")}, sanitizers '
              f'{opts.get("b_sanitize")} (they fit in the default '
              f'debugoptimized build)')
        return
    for w in HOT:
        end = fast_path_end(lib, w, syms[w])
        print(f'{w}: fast path {end} bytes')
        if end > LINE:
            raise prof.Fail(f'{w}: its fast path ends {end} bytes after its '
                            f'entry, past the 64-byte line it starts')


prof.main(test)
