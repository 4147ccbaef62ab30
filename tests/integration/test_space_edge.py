#!/usr/bin/env python3
"""The wrappers keep the malloc family's corner cases as the C library
defines them (space_edge checks them from inside: failed allocations,
overflows, realloc(p, 0), alignment, calloc's zeroing, errno), whether
every call is sampled (--space-interval=1) or none (--no-space) or some;
the exact call counts are the calls space_edge made; and everything it
frees is freed in the profile too.

usage: test_space_edge.py SPACE_EDGE
"""
import sys

import prof
import space

FUNCS = ('malloc', 'calloc', 'realloc', 'reallocarray', 'free',
         'posix_memalign', 'aligned_alloc', 'memalign', 'valloc', 'pvalloc',
         'malloc_usable_size')


def test():
    target = sys.argv[1]
    for opts in (['--space-interval=1'], [], ['--no-space'],
                 ['--no-time', '--space-interval=64']):
        label = ' '.join(opts) or 'default'
        p = prof.profile(target, opts=opts)
        if not p.stdout.startswith('ok '):
            raise prof.Fail(f'{label}: {p.stdout}')
        made = space.truth(p.stdout)
        total, _ = space.call_counts(p.spool)
        for f in FUNCS:
            # The C library allocates stdout's buffer with one malloc.
            extra = 1 if f == 'malloc' else 0
            if total.get(f, 0) != made[f] + extra:
                raise prof.Fail(f'{label}: {total.get(f, 0)} calls of {f} '
                                f'counted, {made[f]} made')
        print(f'{label}: call counts exact')
        if '--no-space' in opts:
            continue
        u = space.report(p.spool, 'inuse')
        for f in prof.field(u, 'functions'):
            if f['name'].startswith('check_') and f['self']:
                raise prof.Fail(f'{label}: {f["name"]} has {f["self"]} '
                                'bytes in use at exit')
        a = space.report(p.spool, 'alloc')
        print(f'{label}: {a["samples_taken"]} allocation samples, '
              f'{u["samples"]} in use at exit')
        if opts == ['--space-interval=1'] and a['samples_taken'] < 1000:
            raise prof.Fail(f'{label}: only {a["samples_taken"]} samples')


prof.main(test)
