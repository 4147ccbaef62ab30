#!/usr/bin/env python3
"""Space profiling against ground truth: space_split's three call sites
allocate 60, 30 and 10 % of the bytes in blocks of 64 bytes, 256 KiB and
4 MiB. Their shares of the space profile must be within 3 points of the
truth and the estimate of all bytes allocated within 5 %: at the default
interval (4 GiB allocated) and at a smaller one (jemalloc's turn is
test_space_split_jemalloc.py). --no-space and --no-time turn either kind
off.

usage: test_space_split.py SPACE_SPLIT
"""
import sys

import prof
import space

SITES = ('site_small_60', 'site_medium_30', 'site_large_10')


def check(label, target, scale, opts=(), env=None):
    p = prof.profile(target, args=[str(scale)], opts=list(opts), env=env)
    t = space.truth(p.stdout)
    r = space.report(p.spool)
    space.check_shares(r, {s: t[s] for s in SITES}, label)
    space.check_total(label, prof.field(r, 'allocated_bytes'),
                      prof.field(r, 'allocated_bytes_error'),
                      sum(t[s] for s in SITES))
    dropped = sum((r.get('dropped') or {}).values())
    print(f'{label}: {r["samples_taken"]} samples, {dropped} dropped')
    return p, r


def test():
    target = sys.argv[1]
    check('default interval', target, 2)
    check('128K', target, 0.5, ['--space-interval=128K'])

    # --no-space: no allocation samples, but the calls are still counted.
    p = prof.profile(target, args=['0.05'], opts=['--no-space'])
    r = space.report(p.spool)
    if r['samples_taken'] != 0 or r['interval_bytes'] is not None:
        raise prof.Fail(f'--no-space: {r["samples_taken"]} allocation '
                        f'samples, interval {r["interval_bytes"]}')
    calls = prof.field(r, 'call_counts')
    if not calls or calls['malloc'] < 1000000:
        raise prof.Fail(f'--no-space: call counts {calls}')
    if p.report['kind'] != 'time' or p.report['samples'] == 0:
        raise prof.Fail('--no-space: no time profile')

    # --no-time: no CPU samples; profanalyze then shows space by itself.
    p = prof.profile(target, args=['0.25'], opts=['--no-time'])
    if p.report['kind'] != 'space' or p.report['samples'] == 0:
        raise prof.Fail(f'--no-time: profanalyze shows kind '
                        f'{p.report["kind"]} with {p.report["samples"]} '
                        'samples, want the space profile')
    _, tr = prof.analyze(p.spool, args=('--time', '--json'))
    if tr['samples'] != 0:
        raise prof.Fail(f'--no-time: {tr["samples"]} time samples')


prof.main(test)
