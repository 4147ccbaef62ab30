#!/usr/bin/env python3
"""Children's spools: where they land and what their counters say.

- A relative -o and a program that changes directory before it forks and
  execs (`sh -c 'cd sub && exec lifecycle tree 1'`, like `make -C` or
  `git -C`): every image's spool lands beside the first, in the directory
  -o named, none in sub/.
- A parent that blocks every signal around fork, as spawners do
  (lifecycle forkmask): the child's drop counts, all causes, are at most
  what its CPU time at the sampling rate allows (one used to underflow
  to about 1.8e13), and its work is sampled: before_end has its samples
  and no thread is reported unsampled.

usage: test_child_spools.py LIFECYCLE
"""
import glob
import os
import sys

import prof


def check_relative(target):
    top = prof.tmpdir()
    os.makedirs(os.path.join(top, 'out'))
    os.makedirs(os.path.join(top, 'sub'))
    r = prof.profrun(['-q', '-o', 'out/p.spool', '--', '/bin/sh', '-c',
                      f'cd sub && exec {os.path.abspath(target)} tree 1'], cwd=top)
    if r.returncode != 0:
        raise prof.Fail(f'exit {r.returncode}: {r.stderr}')
    beside = sorted(os.path.basename(p) for p in
                    glob.glob(os.path.join(top, 'out', 'p.spool*')))
    astray = glob.glob(os.path.join(top, 'sub', '*'))
    print(f'in out/: {beside}; in sub/: {astray}')
    if astray:
        raise prof.Fail(f'spools landed where the program changed '
                        f'directory to: {astray}')
    # The shell's image, the exec'd lifecycle, its forked child and the
    # child's exec'd image: four spools.
    if len(beside) != 4 or 'cannot create' in r.stderr:
        raise prof.Fail(f'{len(beside)} spools in out/, want 4: {beside}\n'
                        f'{r.stderr}')


def check_forkmask(target):
    base = os.path.join(prof.tmpdir(), 'm.spool')
    r = prof.profrun(['-q', '-o', base, '--', target, 'forkmask'])
    if r.returncode != 0:
        raise prof.Fail(f'forkmask: exit {r.returncode}: {r.stderr}')
    children = glob.glob(base + '.*')
    if len(children) != 1:
        raise prof.Fail(f'forkmask: child spools {children}')
    _, rep = prof.analyze(children[0])
    dropped = sum(prof.field(rep, 'dropped').values())
    possible = prof.field(rep, 'cpu_seconds') * 1000 + 10
    work = prof.need_func(rep, 'before_end')['self_samples']
    unsampled = [t['tid'] for t in prof.field(rep, 'thread_list')
                 if t.get('unsampled')]
    print(f'forkmask child: {dropped} samples dropped, at most '
          f'{possible:.0f} possible; before_end {work} samples; unsampled '
          f'threads {unsampled}')
    if dropped > possible:
        raise prof.Fail(f'forkmask child: {dropped} drops for '
                        f'{rep["cpu_seconds"]} s of CPU at 1 kHz')
    if work < 100 or unsampled:
        raise prof.Fail('forkmask child: its 0.2 s of work went unsampled')


def test():
    check_relative(sys.argv[1])
    check_forkmask(sys.argv[1])


prof.main(test)
