#!/usr/bin/env python3
"""The wrappers keep the malloc family's corner cases as the C library
defines them (space_edge checks them from inside: failed allocations,
overflows, realloc(p, 0), alignment, calloc's zeroing, errno, C23's
free_sized and free_aligned_sized found through dlsym), whether
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
         'malloc_usable_size', 'free_sized', 'free_aligned_sized')
# C23; glibc 2.36 lacks them and libprofrun.so provides them, so under the
# profiler space_edge must find them through dlsym and call them.
C23 = ('free_sized', 'free_aligned_sized')
# space_edge's functions that allocate (kept out of line).
CHECKS = ('check_failures', 'check_realloc', 'check_alignment',
          'check_contents', 'check_sized', 'check_errno')


def test():
    target = sys.argv[1]
    for opts in (['--space-interval=1'], [], ['--no-space'],
                 ['--no-time', '--space-interval=64']):
        label = ' '.join(opts) or 'default'
        p = prof.profile(target, opts=opts)
        if not p.stdout.startswith('ok '):
            raise prof.Fail(f'{label}: {p.stdout}')
        made = space.truth(p.stdout)
        for f in C23:
            if not made.get(f):
                raise prof.Fail(f'{label}: {f} not found or not called '
                                f'through dlsym: {p.stdout.strip()}')
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
            if (f['name'].startswith('check_') or f['name'] == 'main') \
                    and f['self']:
                raise prof.Fail(f'{label}: {f["name"]} has {f["self"]} '
                                'bytes in use at exit')
        a = space.report(p.spool, 'alloc')
        if opts == ['--space-interval=1']:
            # Every allocation is sampled: each check must show, or the
            # in-use check above looked for names that are not there.
            for name in CHECKS:
                if not space.site_bytes(a, name):
                    raise prof.Fail(f'{label}: no bytes allocated by '
                                    f'{name}:\n{prof.top(a, key="self")}')
        print(f'{label}: {a["samples_taken"]} allocation samples, '
              f'{u["samples"]} in use at exit')
        if opts == ['--space-interval=1'] and a['samples_taken'] < 1000:
            raise prof.Fail(f'{label}: only {a["samples_taken"]} samples')


prof.main(test)
