#!/usr/bin/env python3
"""A child made by a raw clone() (no CLONE_VM, no atfork handlers) has a
copy of the parent's memory, the parent's mappings of its spool included:
it must never write into them. rawclone's child allocates 2000 blocks of
777 bytes, then the parent 2000 of 555, all sampled (--space-interval=1):
the parent's spool reads whole, with the parent's 2000 and none of the
child's, and the report says one child started by clone() ran
unprofiled.

usage: test_clone_child.py RAWCLONE
"""
import sys

import prof


def test():
    p = prof.profile(sys.argv[1], opts=['--space-interval=1'])
    if p.stdout.split() != ['child', '0', 'done']:
        raise prof.Fail(f'target output {p.stdout!r}, stderr {p.stderr!r}')
    sizes = {}
    for ev in prof.space_events(p.spool, strict=True):
        if ev[0] == 'alloc':
            sizes[ev[2]] = sizes.get(ev[2], 0) + 1
    print(f'sampled allocations of 555 bytes: {sizes.get(555, 0)}, of 777 '
          f'bytes: {sizes.get(777, 0)}')
    if sizes.get(777, 0):
        raise prof.Fail(f'{sizes[777]} allocations of the cloned child in '
                        'the parent\'s spool')
    if sizes.get(555, 0) != 2000:
        raise prof.Fail(f'{sizes.get(555, 0)} of the parent\'s 2000 '
                        'allocations in its spool')
    # The report says what it does not cover: the child ran unprofiled.
    text = prof.run([prof.profanalyze_path(), p.spool]).stdout
    line = [l for l in text.splitlines() if l.startswith('Not profiled:')]
    print(line)
    if line != ['Not profiled: 1 child process started with clone() (not '
                'fork), which the profiler cannot follow.']:
        raise prof.Fail('the report does not say that the clone()d child '
                        'ran unprofiled')


prof.main(test)
