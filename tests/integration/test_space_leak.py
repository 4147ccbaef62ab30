#!/usr/bin/env python3
"""The in-use view shows leaks: space_leak's leaky_site never frees what
it allocates, churn_site frees every block at once. At exit the sampled
blocks still allocated must be leaky_site's, adding up to the bytes it
leaked (within 5 %), with nothing of churn_site's: every free of a sampled
block was recorded. The allocation view has churn_site at 16/17.

usage: test_space_leak.py SPACE_LEAK
"""
import sys

import prof
import space


def test():
    p = prof.profile(sys.argv[1], opts=['--space-interval=16K'])
    t = space.truth(p.stdout)
    r = space.report(p.spool, 'inuse')
    if space.site_bytes(r, 'churn_site'):
        raise prof.Fail('churn_site in use at exit: a free was lost\n' +
                        prof.top(r, key='self'))
    f = prof.need_func(r, 'leaky_site')
    # The leaked blocks' own error: every in-use sample is leaky_site's
    # but for the C library's few (stdio buffers).
    space.check_total('in use', f['self'], r['sampled_bytes_error'],
                      t['leaky_site'])
    if f['self'] < 0.95 * r['sampled_bytes']:
        raise prof.Fail(f'leaky_site has {f["self"]} of '
                        f'{r["sampled_bytes"]} bytes in use')
    a = space.report(p.spool, 'alloc')
    space.check_shares(a, {'leaky_site': t['leaky_site'],
                           'churn_site': t['churn_site']}, 'allocated')


prof.main(test)
