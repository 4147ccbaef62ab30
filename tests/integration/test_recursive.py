#!/usr/bin/env python3
"""recurse() calls itself 50 deep and does 60 % of the work, sibling() 40 %.
A sample counts once in recurse's total however many recurse frames are on
its stack: totals stay within 100 % and split 60/40.

usage: test_recursive.py RECURSIVE
"""
import sys

import prof


def test():
    p = prof.profile(sys.argv[1], [prof.SHARE_SCALE], opts=['-F', '1000'])
    r = p.report
    rec = prof.need_func(r, 'recurse')
    samples = prof.field(r, 'samples')
    print(f'recurse: total {rec["total_samples"]} self {rec["self_samples"]} '
          f'total_pct {rec["total_pct"]} of {samples} samples')
    if prof.field(rec, 'total_samples') > samples:
        raise prof.Fail(f'recurse total {rec["total_samples"]} > '
                        f'{samples} samples: counted once per frame')
    if prof.field(rec, 'total_pct') > 100.0 + 1e-6:
        raise prof.Fail(f'recurse total_pct {rec["total_pct"]} > 100')
    # All of recurse's work is its own, so its total is its self time; a
    # total counted per frame would be about 25 times larger.
    prof.check_shares(r, {'recurse': 3, 'sibling': 2}, key='total_samples',
                      label='total')
    prof.check_shares(r, {'recurse': 3, 'sibling': 2}, key='self_samples',
                      label='self')


prof.main(test)
