#!/usr/bin/env python3
"""Four threads of space_threads allocate at once (40/30/20/10 % of the
bytes) while CPU time is sampled at 10 kHz, so the sampling signal keeps
landing inside the allocation wrappers: the run must end (a deadlock times
out), the shares must be right, no free may be lost (nothing of the sites
in use at exit), and each thread's exact call counts must be the calls it
made.

usage: test_space_threads.py SPACE_THREADS
"""
import re
import sys

import prof
import space

SITES = {'site_40': 'alloc-40', 'site_30': 'alloc-30', 'site_20': 'alloc-20',
         'site_10': 'alloc-10'}


def test():
    p = prof.profile(sys.argv[1], opts=['-F', '10000',
                                        '--space-interval=64K'],
                     timeout=240)
    made = {m.group(1): (int(m.group(2)), int(m.group(3))) for m in
            re.finditer(r'(alloc-\d+) calls=(\d+) bytes=(\d+)', p.stdout)}
    if len(made) != 4:
        raise prof.Fail(f'target output: {p.stdout}')
    r = space.report(p.spool)
    space.check_shares(r, {s: made[n][1] for s, n in SITES.items()},
                       'threads')
    u = space.report(p.spool, 'inuse')
    for s in SITES:
        if space.site_bytes(u, s):
            raise prof.Fail(f'{s} in use at exit: a free was lost')

    # Each worker thread's counts: exactly its mallocs and frees. Thread
    # names may not be known, so the counts themselves are matched.
    _, threads = space.call_counts(p.spool)
    got = sorted((c.get('malloc', 0), c.get('free', 0)) for c in threads
                 if c.get('free', 0) > 1000)
    want = sorted((calls, calls) for calls, _ in made.values())
    print(f'per-thread (malloc, free): {got}, want {want}')
    if got != want:
        raise prof.Fail(f'per-thread call counts {got}, want {want}')
    if p.report['samples'] < prof.MIN_SAMPLES:
        raise prof.Fail(f'only {p.report["samples"]} time samples at '
                        '10 kHz: the signal did not hit the wrappers')


prof.main(test)
