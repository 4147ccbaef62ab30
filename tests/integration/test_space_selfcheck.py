#!/usr/bin/env python3
"""The allocation wrappers take nothing from the target's heap for their
own needs: alloc_selfcheck defines the malloc family in the executable
(which comes before the profiler's in symbol lookup, so it sees every call
in the process, the profiler's included) and counts the calls made on its
thread during a loop of exactly N malloc/free pairs. With every pair
sampled (--space-interval=1, the slow path: unwinding, recording, the set
of sampled blocks) and with the default interval (the fast path), the
count must be exactly 2N.

usage: test_space_selfcheck.py ALLOC_SELFCHECK
"""
import sys

import prof
import space


def test():
    n = 100000
    for opts in (['--space-interval=1'], []):
        label = ' '.join(opts) or 'default'
        p = prof.profile(sys.argv[1], args=[str(n)], opts=opts,
                         expect_rc=None)
        print(f'{label}: {p.stdout.strip()}')
        if p.rc != 0 or f'calls={2 * n} ' not in p.stdout:
            raise prof.Fail(f'{label}: exit {p.rc}: the profiler called '
                            f'the malloc family: {p.stdout.strip()}')
        r = space.report(p.spool)
        print(f'{label}: {r["samples_taken"]} allocation samples')
        if opts and r['samples_taken'] < n // 10:
            raise prof.Fail(f'{label}: only {r["samples_taken"]} samples: '
                            'the slow path barely ran')


prof.main(test)
