#!/usr/bin/env python3
"""Every process image writes its own complete spool: a fork/exec tree
three levels deep gives FILE (the first process) and FILE.PID / FILE.PID.N
for each forked child and each exec'd image, each with the samples of its
own level and its parent's pid; children started with posix_spawn and vfork are profiled too, and the
vfork child does not disturb its parent's spool;
--no-follow leaves only FILE.

The analyzer puts the tree together again: --processes lists each image
under its parent (pid, parent pid, samples, ending, command line);
--children merges the whole tree under a spool into one profile whose
counts are the sums of its spools'; several spools named together merge
the same way.

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


def processes(spool):
    """The --processes listing as (depth, pid, ppid, samples, ended, spool,
    command) tuples."""
    r = prof.run([prof.profanalyze_path(), '--processes', spool])
    if r.returncode != 0:
        raise prof.Fail(f'--processes {spool}: exit {r.returncode}\n'
                        f'{r.stderr}')
    lines = r.stdout.splitlines()
    if not lines or not lines[0].startswith('PID'):
        raise prof.Fail(f'--processes: no heading:\n{r.stdout}')
    rows = []
    for line in lines[1:]:
        depth = (len(line) - len(line.lstrip(' '))) // 2
        f = line.split()
        # PID PPID SAMPLES ALLOCS CPU ENDED SPOOL COMMAND...
        rows.append((depth, int(f[0]), int(f[1]), int(f[2]), f[5], f[6],
                     ' '.join(f[7:])))
    return rows


def check_processes(base, others):
    rows = processes(base)
    for row in rows:
        print('  ' * row[0], row[1:])
    if len(rows) != 1 + len(others):
        raise prof.Fail(f'--processes lists {len(rows)} images, want '
                        f'{1 + len(others)}')
    if rows[0][5] != base or rows[0][0] != 0:
        raise prof.Fail(f'--processes: the first line is not {base}')
    # tree 3: every image is one level below the one before it (fork,
    # then exec, in turn), and the command line says which level.
    by_pid = {}
    for i, (depth, pid, ppid, samples, ended, spool, cmd) in \
            enumerate(rows):
        if depth != i:
            raise prof.Fail(f'{spool}: depth {depth}, want {i}')
        _, rep = prof.analyze(spool)
        if samples != prof.field(rep, 'samples'):
            raise prof.Fail(f'{spool}: --processes says {samples} samples, '
                            f'the report {rep["samples"]}')
        if i > 0:
            prev = rows[i - 1]
            # An exec'd image keeps its pid; a forked one's parent is the
            # image before it.
            if pid != prev[1] and ppid != prev[1]:
                raise prof.Fail(f'{spool}: pid {pid} ppid {ppid} is not a '
                                f'child of {prev[1]}')
            want_end = 'exec' if pid != prev[1] else 'exit'
        else:
            want_end = 'exit'
        if ended != want_end:
            raise prof.Fail(f'{spool}: ended {ended}, want {want_end}')
        by_pid.setdefault(pid, []).append(cmd)
    levels = [r[6].split()[-1] for r in rows if r[4] == 'exit']
    if levels != ['3', '2', '1', '0']:
        raise prof.Fail(f'--processes: the images that did the work ran '
                        f'levels {levels}, want 3 2 1 0')
    # A spool in the middle of the tree: its own subtree only.
    mid = rows[3][5]
    sub = processes(mid)
    if [r[5] for r in sub] != [r[5] for r in rows[3:]]:
        raise prof.Fail(f'--processes {mid}: lists {[r[5] for r in sub]}')
    print('--processes: tree of', len(rows), 'images, subtree of', mid, 'ok')


def check_merge(base, others):
    singles = [prof.analyze(s)[1] for s in [base] + others]
    want = sum(prof.field(r, 'samples') for r in singles)
    _, merged = prof.analyze(base, args=('--json', '--children'))
    if prof.field(merged, 'spools') != 1 + len(others):
        raise prof.Fail(f'--children merged {merged["spools"]} spools, want '
                        f'{1 + len(others)}')
    if prof.field(merged, 'samples') != want:
        raise prof.Fail(f'--children: {merged["samples"]} samples, want the '
                        f'sum {want}')
    for lvl in range(4):
        name = f'tree_level_{lvl}'
        got = prof.need_func(merged, name)['self_samples']
        own = sum((prof.func(r, name) or {'self_samples': 0})['self_samples']
                  for r in singles)
        if got != own:
            raise prof.Fail(f'--children: {name} {got} samples, want {own}')
    # One function of every image, not one per image: main is listed once.
    mains = [f for f in merged['functions'] if f['name'] == 'main']
    if len(mains) != 1:
        raise prof.Fail(f'--children: main listed {len(mains)} times')
    # Spools named together merge alike.
    _, two = prof.analyze(base, args=('--json', others[-1]))
    want2 = prof.field(singles[0], 'samples') + \
        prof.field(singles[-1], 'samples')
    if prof.field(two, 'samples') != want2 or two['spools'] != 2:
        raise prof.Fail(f'two spools: {two["samples"]} samples, want {want2}')
    r = prof.run([prof.profanalyze_path(), '--children', base])
    if 'Merged from 7 spools' not in r.stdout:
        raise prof.Fail(f'--children: the header does not say it merged:\n'
                        f'{r.stdout[:600]}')
    print(f'--children: {want} samples from {1 + len(others)} spools; two '
          f'spools: {want2}')


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

    check_processes(base, others)
    check_merge(base, others)

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

    check_reexec(target)


def check_reexec(target):
    """A process that execs itself twice leaves three images' spools, and
    each counts only its own CPU time: about what its samples stand for,
    not its predecessors' too (which once made an image of 0.15 s of
    work report 0.45 s). The bound, 1.5 times the sampled time plus 50 ms,
    is far from both: sampling loses no more than a few percent here."""
    d = prof.tmpdir()
    base = os.path.join(d, 'r.spool')
    r = prof.profrun(['-q', '-o', base, '--', target, 'reexec', '2'])
    if r.returncode != 0:
        raise prof.Fail(f'reexec: exit {r.returncode}\n{r.stderr}')
    images = [base] + spools(base)
    if len(images) != 3:
        raise prof.Fail(f'reexec: want 3 spools, got {images}')
    total = 0.0
    for s in images:
        _, rep = prof.analyze(s)
        cpu = prof.field(rep, 'cpu_seconds')
        sampled = prof.field(rep, 'sampled_seconds')
        total += cpu
        print(f'reexec: {os.path.basename(s)}: {cpu:.3f} s of CPU, '
              f'{sampled:.3f} s sampled')
        if cpu > 1.5 * sampled + 0.05:
            raise prof.Fail(f'reexec: {s} counts {cpu:.3f} s of CPU for '
                            f'{sampled:.3f} s sampled: an earlier image\'s '
                            f'time too')
    _, merged = prof.analyze(base, args=('--json', '--children'))
    got = prof.field(merged, 'cpu_seconds')
    if abs(got - total) > 0.002:
        raise prof.Fail(f'reexec: --children says {got:.3f} s of CPU, the '
                        f'images {total:.3f} s')


prof.main(test)
