#!/usr/bin/env python3
"""Four threads of space_threads allocate at once (40/30/20/10 % of the
bytes) while CPU time is sampled at 10 kHz, so the sampling signal keeps
landing inside the allocation wrappers: the run must end (a deadlock times
out), the shares must be right, no free may be lost (nothing of the sites
in use at exit), and each thread's exact call counts must be the calls it
made.

A time sample is dropped as "reentrant" exactly when the signal lands
while its thread is busy recording something itself: a sampled allocation
or free (unwinding, pushing the record), or its own start, exit and call
counts (3 records a thread). So the odds of a drop, dropped / kept, are
the user CPU time of those busy sections over the rest: proportional to
their number, at a cost per section that depends on the machine but not
on the interval. A second run at the default interval (512 KiB, twice the
work: about 8200 sections instead of 31500) must then give the same odds
per section, within a factor 3 (measured: 1.2 to 2, the 64K run's
sections being a little dearer; the noise of a hundred drops or more is
10 % or less). Drops that do not come from the sections, such as a busy
flag left set after a rare path, are not proportional to them and put
one run far off the other's prediction. And a signal in a wrapper's fast
path must be taken: at the default interval the wrappers' own code is the
leaf of 5 to 10 % of the samples kept, and must be of at least 1 %.

usage: test_space_threads.py SPACE_THREADS
"""
import re
import sys

import prof
import space

SITES = {'site_40': 'alloc-40', 'site_30': 'alloc-30', 'site_20': 'alloc-20',
         'site_10': 'alloc-10'}


def run(interval, scale=1):
    """space_threads SCALE at 10 kHz with --space-interval=interval: the
    time report, the allocation report and what the threads made."""
    p = prof.profile(sys.argv[1], args=[str(scale)],
                     opts=['-F', '10000', f'--space-interval={interval}'],
                     timeout=240)
    made = {m.group(1): (int(m.group(2)), int(m.group(3))) for m in
            re.finditer(r'(alloc-\d+) calls=(\d+) bytes=(\d+)', p.stdout)}
    if len(made) != 4:
        raise prof.Fail(f'target output: {p.stdout}')
    if p.report['samples'] < prof.MIN_SAMPLES:
        raise prof.Fail(f'only {p.report["samples"]} time samples at '
                        '10 kHz: the signal did not hit the wrappers')
    check_counts(p, made)
    return p, space.report(p.spool), made


def check_counts(p, made):
    """Each worker thread's counts: exactly its mallocs and frees. Thread
    names may not be known, so the counts themselves are matched."""
    _, threads = space.call_counts(p.spool)
    got = sorted((c.get('malloc', 0), c.get('free', 0)) for c in threads
                 if c.get('free', 0) > 1000)
    want = sorted((calls, calls) for calls, _ in made.values())
    print(f'per-thread (malloc, free): {got}, want {want}')
    if got != want:
        raise prof.Fail(f'per-thread call counts {got}, want {want}')


def busy_odds(label, p, r):
    """(reentrant drops, samples kept, busy sections) of a run."""
    drops = prof.field(prof.field(p.report, 'dropped'), 'reentrant')
    kept = p.report['samples']
    threads = len(prof.field(p.report, 'thread_list'))
    sections = r['samples_taken'] + r['frees'] + 3 * threads
    print(f'{label}: {drops} of {kept + drops} time samples dropped as '
          f'reentrant ({100 * drops / (kept + drops):.1f} %), '
          f'{sections} busy sections')
    return drops, kept, sections


def check_odds(a, b):
    """Each run's drops as the other's odds per section predict, within
    a factor 3 (and 10 drops, for small numbers)."""
    for (la, (da, ka, sa)), (lb, (db, kb, sb)) in ((a, b), (b, a)):
        want = ka * sa * db / (kb * sb)
        print(f'{la}: {da} reentrant drops, {want:.0f} predicted by {lb}')
        if not want / 3 - 10 <= da <= 3 * want + 10:
            raise prof.Fail(f'{la}: {da} time samples dropped as reentrant,'
                            f' but {lb}\'s drops per busy section predict '
                            f'{want:.0f}: drops that do not come from the '
                            'sections where the threads record')


def test():
    p, r, made = run('64K')
    space.check_shares(r, {s: made[n][1] for s, n in SITES.items()},
                       'threads')
    u = space.report(p.spool, 'inuse')
    for s in SITES:
        if space.site_bytes(u, s):
            raise prof.Fail(f'{s} in use at exit: a free was lost')
    a = ('64K', busy_odds('64K', p, r))

    p, r, _ = run('512K', 2)
    b = ('512K', busy_odds('512K', p, r))
    check_odds(a, b)
    _, shown = prof.analyze(p.spool, args=('--show-all', '--json'))
    fast = sum(prof.field(f, 'self_samples')
               for f in prof.field(shown, 'functions')
               if f['name'] in ('malloc', 'free') and
               str(f['module']).endswith('/libprofrun.so'))
    print(f'512K: {fast} of {p.report["samples"]} time samples in the '
          'wrappers\' own code')
    if fast < 0.01 * p.report['samples']:
        raise prof.Fail(f'512K: {fast} of {p.report["samples"]} time '
                        'samples in the wrappers\' own code: signals in '
                        'their fast path were not taken')


prof.main(test)
