#!/usr/bin/env python3
"""Space sampling across fork: the child samples on in its own spool, and
forgets the blocks sampled in the parent (their frees are not in its
spool, which has no ALLOC for them). space_fork's parent keeps
parent_site's blocks to its end; its child frees them all and keeps
child_site's. In use at exit: parent_site's bytes in the parent's spool,
child_site's alone in the child's, each within 5 %.

usage: test_space_fork.py SPACE_FORK
"""
import os
import sys

import prof
import space


def test():
    p = prof.profile(sys.argv[1], opts=['--space-interval=16K'])
    t = space.truth(p.stdout)
    parent = space.report(p.spool, 'inuse')
    space.check_total('parent in use', space.site_bytes(parent, 'parent_site'),
                      parent['sampled_bytes_error'], t['parent_site'])
    child_spool = f'{p.spool}.{t["child"]}'
    if not os.path.exists(child_spool):
        raise prof.Fail(f'no child spool {child_spool}')
    child = space.report(child_spool, 'inuse')
    if space.site_bytes(child, 'parent_site'):
        raise prof.Fail('the child spool has parent_site blocks in use\n' +
                        prof.top(child, key='self'))
    space.check_total('child in use', space.site_bytes(child, 'child_site'),
                      child['sampled_bytes_error'], t['child_site'])
    if child['frees'] != 0:
        raise prof.Fail(f'the child recorded {child["frees"]} frees of '
                        'blocks it never sampled')


prof.main(test)
