#!/usr/bin/env python3
"""Every process image writes its own complete spool: a fork/exec tree
three levels deep gives FILE (the first process) and FILE.PID / FILE.PID.N
for each forked child and each exec'd image, each with the samples of its
own level and its parent's pid; children started with posix_spawn and vfork are profiled too, and the
vfork child does not disturb its parent's spool;
--no-follow leaves only FILE.

usage: test_processes.py LIFECYCLE
"""
import glob
import os
import sys

import prof


def spools(base):
    return sorted(glob.glob(glob.escape(base) + '.*'))


def run_tree(target, opts):
    d = prof.tmpdir()
    base = os.path.join(d, 't.spool')
    r = prof.profrun(['-q', '-o', base] + opts + ['--', target, 'tree', '3'])
    if r.returncode != 0:
        raise prof.Fail(f'tree: exit {r.returncode}\n{r.stderr}')
    return base


def test():
    target = sys.argv[1]
    base = run_tree(target, [])
    others = spools(base)
    print('spools:', [os.path.basename(s) for s in [base] + others])
    # tree 3: the first process works at level 3 and forks; each child
    # (a forked image, then the exec'd image in the same pid) for levels
    # 2, 1, 0: 1 + 3 * 2 images.
    if len(others) != 6:
        raise prof.Fail(f'want 6 spools besides {base}, got {len(others)}')
    levels = {}
    for s in [base] + others:
        _, rep = prof.analyze(s)
        if not prof.field(rep, 'complete'):
            raise prof.Fail(f'{s}: no footer')
        for lvl in range(4):
            f = prof.func(rep, f'tree_level_{lvl}')
            if f and f['self_samples'] > 50:
                levels.setdefault(lvl, []).append(os.path.basename(s))
    print('levels:', levels)
    for lvl in range(4):
        if len(levels.get(lvl, [])) != 1:
            raise prof.Fail(f'tree_level_{lvl}: want its samples in exactly '
                            f'one spool, found {levels.get(lvl)}')
    if base not in [os.path.join(os.path.dirname(base), n)
                    for n in levels[3]]:
        raise prof.Fail('level 3 (the first process) is not in FILE')

    base = run_tree(target, ['--no-follow'])
    if spools(base):
        raise prof.Fail(f'--no-follow: child spools {spools(base)}')
    _, rep = prof.analyze(base)
    prof.need_func(rep, 'tree_level_3')
    print('--no-follow: only', os.path.basename(base))

    for mode in ('spawn', 'vfork'):
        d = prof.tmpdir()
        base = os.path.join(d, 's.spool')
        r = prof.profrun(['-q', '-o', base, '--', target, mode])
        if r.returncode != 3:
            raise prof.Fail(f'{mode}: exit {r.returncode}, want 3\n{r.stderr}')
        kids = spools(base)
        if len(kids) != 1:
            raise prof.Fail(f'{mode}: want one child spool, got {kids}')
        for s in (base, kids[0]):
            _, rep = prof.analyze(s)
            if not prof.field(rep, 'complete'):
                raise prof.Fail(f'{mode}: {s} has no footer')
            prof.need_func(rep, 'before_end')
        print(f'{mode}: parent and child spools complete:',
              os.path.basename(kids[0]))


prof.main(test)
