#!/usr/bin/env python3
"""profanalyze --lines on a real run of work_split (built with -g): the
leaves are split by source line, every piece carries the file and line
of its code, the loop the leaves spend their time in is found in work.h
(inlined from work_spin), and the pieces of each leaf still add up to
the 50:30:20 split. The flat report prints them as name (file:line), and
the JSON gives each file's absolute path.

usage: test_lines.py WORK_SPLIT
"""
import collections
import os
import re
import sys

import prof


def loop_lines():
    """The lines of work_spin's loop in work.h."""
    path = os.path.join(os.environ['PROFRUN_SOURCE_ROOT'], 'tests',
                        'targets', 'work.h')
    with open(path) as f:
        lines = f.read().split('\n')
    first = next(i for i, l in enumerate(lines) if 'work_spin(' in l) + 1
    last = next(i for i, l in enumerate(lines)
                if 'acc += i ^ (acc >> 3)' in l) + 1
    return first, last + 1


def test():
    p = prof.profile(sys.argv[1], [prof.SHARE_SCALE], opts=['-F', '1000'])
    _, r = prof.analyze(p.spool, args=('--lines', '--json'))
    by_leaf = collections.Counter()
    in_loop = 0
    first, last = loop_lines()
    for f in prof.field(r, 'functions'):
        m = re.match(r'^(leaf_\d+) \(([^:]+):(\d+)\)$', f['name'])
        if not m:
            if f['name'].startswith('leaf_'):
                raise prof.Fail(f'leaf without a line: {f["name"]}')
            continue
        if os.path.basename(prof.field(f, 'file')) != m.group(2) or \
                prof.field(f, 'line') != int(m.group(3)):
            raise prof.Fail(f'{f["name"]}: file {f["file"]} line '
                            f'{f["line"]} do not match its name')
        # Absolute, as pprof's and callgrind's are: the build's DWARF
        # names it relative to the build directory.
        if not os.path.isabs(f['file']) or not os.path.isfile(f['file']):
            raise prof.Fail(f'{f["name"]}: file {f["file"]} is not the '
                            f'absolute path of a source file')
        by_leaf[m.group(1)] += f['self_samples']
        if f['file'].endswith('/work.h') and first <= f['line'] <= last:
            in_loop += f['self_samples']
    n = sum(by_leaf.values())
    print(f'{n} samples in the leaves, {in_loop} in work.h:{first}-{last}')
    if n < prof.MIN_SAMPLES:
        raise prof.Fail(f'only {n} samples in the leaves:\n{prof.top(r)}')
    if in_loop < n * 0.5:
        raise prof.Fail(f'only {in_loop} of {n} samples in the loop of '
                        f'work.h:{first}-{last}:\n{prof.top(r)}')
    shares = {k: {'leaf_50': 5, 'leaf_30': 3, 'leaf_20': 2}[k]
              for k in by_leaf}
    fake = {'functions': [{'name': k, 'self_samples': v}
                          for k, v in by_leaf.items()]}
    prof.check_shares(fake, shares, label='lines')
    flat, _ = prof.analyze(p.spool, args=('--lines',))
    if not re.search(r' leaf_50 \(work\.h:\d+\)$', flat.stdout, re.M):
        raise prof.Fail('flat report has no "leaf_50 (work.h:N)" row:\n'
                        + flat.stdout)


prof.main(test)
