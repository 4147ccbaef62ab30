#!/usr/bin/env python3
"""The target keeps its shape: a single-threaded program profiled with
time and space sampling (the default, and each alone, and at 10 kHz with a
small space interval) stays single-threaded for its whole life. It sees
__libc_single_threaded == 1 and one entry in /proc/self/task at the start,
after samples were taken, after a dlopen/dlclose and in a forked child,
and prints what it prints bare. --clock=wall, documented as the one option
that starts a thread of the profiler's, shows one.

usage: test_shape.py SHAPE
"""
import re
import sys

import prof

SINGLE = ['start: single=1 tasks=1', 'worked: single=1 tasks=1',
          'dlopen: single=1 tasks=1', 'child: single=1 tasks=1',
          'end: single=1 tasks=1']


def lines(out):
    return sorted(line for line in out.splitlines() if line.strip())


def test():
    target = sys.argv[1]
    bare = prof.run([target])
    if bare.returncode != 0 or lines(bare.stdout) != sorted(SINGLE):
        raise prof.Fail(f'bare run: exit {bare.returncode}, {bare.stdout!r}')
    for opts in ([], ['--no-time'], ['--no-space'],
                 ['-F', '10000', '--space-interval=4K']):
        p = prof.profile(target, opts=opts)
        print(f'{" ".join(opts) or "default"}: {p.stdout.strip()!r}; '
              f'{p.report["samples"]} samples')
        if lines(p.stdout) != sorted(SINGLE):
            raise prof.Fail(f'{opts}: the target changed shape:\n'
                            f'{p.stdout}\nstderr: {p.stderr}')
        if '--no-time' not in opts and prof.field(p.report, 'samples') < 50:
            raise prof.Fail(f'{opts}: only {p.report["samples"]} samples: '
                            'was it profiled at all?')
        if not prof.field(p.report, 'complete'):
            raise prof.Fail(f'{opts}: the spool has no footer')
    # The wall clock's poller is a thread, and profrun(1) says so.
    p = prof.profile(target, opts=['--clock=wall'])
    worked = re.search(r'worked: single=(\d) tasks=(\d)', p.stdout)
    print(f'--clock=wall: {worked and worked.group(0)!r}')
    if not worked or worked.group(1) != '0' or worked.group(2) != '2':
        raise prof.Fail(f'--clock=wall: expected the poller thread, got '
                        f'{p.stdout!r}')


prof.main(test)
