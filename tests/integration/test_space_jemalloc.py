#!/usr/bin/env python3
"""jemalloc's own API is wrapped too: space_jemalloc allocates through
mallocx (50 % of the bytes), mallocx + rallocx (30 %) and mallocx +
xallocx growing in place (20 %), and frees with sdallocx and dallocx. The
shares must match and the call counts be exact; and since every block is
freed at once, nothing of the sites may be in use at exit: every sampled
block freed by sdallocx or dallocx (after a rallocx moved it, or an
xallocx grew it) must be recorded as freed.

usage: test_space_jemalloc.py SPACE_JEMALLOC
"""
import os
import sys

import prof
import space

SITES = ('site_mallocx', 'site_rallocx', 'site_xallocx')
FUNCS = ('mallocx', 'rallocx', 'xallocx', 'sdallocx', 'dallocx')


def test():
    if len(sys.argv) < 2 or not os.path.exists(sys.argv[1]):
        raise prof.Skip('space_jemalloc not built (no libjemalloc-dev)')
    p = prof.profile(sys.argv[1], args=['0.5'],
                     opts=['--space-interval=64K'])
    t = space.truth(p.stdout)
    r = space.report(p.spool)
    space.check_shares(r, {s: t[s] for s in SITES}, 'jemalloc API')
    space.check_total('jemalloc API', r['allocated_bytes'],
                      r['allocated_bytes_error'], sum(t[s] for s in SITES))
    total, _ = space.call_counts(p.spool)
    for f in FUNCS:
        if total.get(f, 0) != t[f]:
            raise prof.Fail(f'{total.get(f, 0)} calls of {f} counted, '
                            f'{t[f]} made')
    print('call counts exact')
    u = space.report(p.spool, 'inuse')
    for site in SITES:
        if space.site_bytes(u, site):
            raise prof.Fail(f'{site} has {space.site_bytes(u, site)} bytes '
                            'in use at exit: a sdallocx or dallocx of a '
                            'sampled block was lost\n' +
                            prof.top(u, key='self'))
    print(f'in use at exit: {u["samples"]} sampled blocks, none of the '
          'sites\'')


prof.main(test)
