#!/usr/bin/env python3
"""A binary stripped of every symbol (work_split_stripped: strip
--strip-all of work_split, as distributions ship theirs): its unnamed PCs
are grouped by the function that holds them, as .eh_frame_hdr gives its
start, and named work_split_stripped+0xSTART. By construction the starts
of the three leaves are those nm gives for leaf_50, leaf_30 and leaf_20
in the unstripped work_split, each leaf is one row, and the rows split
5:3:2. Without the grouping, each leaf's samples spread over one row per
distinct PC, none named by the leaf's start. The flat report's footer
counts the samples that ran in the binary without symbols and names it.

On a system with dpkg, the same footer for Debian's own sha256sum (no
symbols, as Debian ships it) names the package of its debug symbols,
the owner dpkg -S gives plus -dbgsym; skipped where there is no dpkg or
sha256sum is no package's.

usage: test_stripped.py WORK_SPLIT WORK_SPLIT_STRIPPED
"""
import os
import shutil
import sys

import prof

LEAVES = {'leaf_50': 5, 'leaf_30': 3, 'leaf_20': 2}


def starts(target):
    """{ELF address: name} of the leaves in target's symbol table."""
    r = prof.run(['nm', target])
    out = {}
    for line in r.stdout.split('\n'):
        f = line.split()
        if len(f) == 3 and f[2] in LEAVES:
            out[int(f[0], 16)] = f[2]
    if len(out) != len(LEAVES):
        raise prof.Fail(f'nm {target}: leaves {out}, want {list(LEAVES)}')
    return out


def test():
    if len(sys.argv) != 3:
        raise prof.Fail('usage: test_stripped.py WORK_SPLIT '
                        'WORK_SPLIT_STRIPPED')
    plain, stripped = sys.argv[1:3]
    at = starts(plain)
    if prof.run(['nm', stripped]).stdout.strip():
        raise prof.Fail(f'{stripped} still has symbols')
    p = prof.profile(stripped, [prof.SHARE_SCALE])
    base = os.path.basename(stripped)
    rows = {}
    for f in prof.field(p.report, 'functions'):
        name = f['name']
        if not name.startswith(base + '+0x') or not f['self_samples']:
            continue
        start = int(name[len(base) + 1:], 16)
        rows[at.get(start, name)] = f['self_samples']
    print(f'{len(rows)} rows of {base} with self samples: '
          f'{sorted(rows.items(), key=lambda x: -x[1])[:6]}')
    missing = [n for n in LEAVES if n not in rows]
    if missing:
        raise prof.Fail(f'no row at the start of {missing}: the unnamed PCs '
                        'are not grouped by function')
    fake = {'functions': [{'name': n, 'self_samples': rows[n]}
                          for n in LEAVES]}
    prof.check_shares(fake, LEAVES, label='stripped')
    footer(p.spool, stripped, None)
    test_debian()


def footer(spool, path, pkg):
    """The flat report's line about binaries without symbols names path
    (and pkg, when not None)."""
    r, _ = prof.analyze(spool, args=())
    lines = [l for l in r.stdout.split('\n')
             if 'without symbols:' in l]
    print('footer: ' + ' | '.join(lines))
    if len(lines) != 1 or path not in lines[0] or \
            (pkg and f'({pkg} would name them)' not in lines[0]):
        raise prof.Fail(f'want one footer line naming {path} and {pkg}, '
                        f'got {lines}')


def test_debian():
    tool = shutil.which('sha256sum')
    dpkg = shutil.which('dpkg')
    if not tool or not dpkg:
        raise prof.Skip('no dpkg or sha256sum: the Debian part is not run '
                        '(the stripped target passed)')
    tool = os.path.realpath(tool)
    r = prof.run([dpkg, '-S', tool])
    if r.returncode != 0:
        raise prof.Skip(f'{tool} is no package\'s (the stripped target '
                        'passed)')
    if prof.run(['nm', tool]).stdout.strip():
        raise prof.Skip(f'{tool} has symbols here (the stripped target '
                        'passed)')
    owner = r.stdout.split(':')[0].strip()
    data = os.path.join(prof.tmpdir(), 'data')
    with open(data, 'wb') as f:
        f.write(os.urandom(1 << 20) * 64)
    p = prof.profile(tool, [data])
    footer(p.spool, tool, owner + '-dbgsym')


prof.main(test)
