#!/usr/bin/env python3
"""The peak view: space_peak's heap is largest when grow_site has built up
its blocks (which it then frees); later churn_site keeps the heap small
and tail_site keeps 1/8 of the peak to the end. What was live at the
estimated peak must be grow_site's and add up to its bytes (within 5 %);
at exit, in use, only tail_site's.

usage: test_space_peak.py SPACE_PEAK
"""
import sys

import prof
import space


def test():
    p = prof.profile(sys.argv[1], opts=['--space-interval=16K'])
    t = space.truth(p.stdout)
    r = space.report(p.spool, 'peak')
    grow = prof.need_func(r, 'grow_site')
    space.check_total('peak', r['sampled_bytes'], r['sampled_bytes_error'],
                      t['grow_site'])
    if grow['self'] < 0.98 * r['sampled_bytes']:
        raise prof.Fail(f'grow_site has only {grow["self"]} of the '
                        f'{r["sampled_bytes"]} bytes live at the peak\n' +
                        prof.top(r, key='self'))
    if space.site_bytes(r, 'tail_site') or space.site_bytes(r, 'churn_site'):
        raise prof.Fail('blocks allocated after the peak are in it\n' +
                        prof.top(r, key='self'))
    if r['peak_seconds'] is None or r['peak_seconds'] < 0:
        raise prof.Fail(f'peak time {r["peak_seconds"]}')
    u = space.report(p.spool, 'inuse')
    if space.site_bytes(u, 'grow_site'):
        raise prof.Fail('grow_site in use at exit: a free was lost')
    space.check_total('in use', space.site_bytes(u, 'tail_site'),
                      u['sampled_bytes_error'], t['grow_site'] // 8)


prof.main(test)
