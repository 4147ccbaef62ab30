#!/usr/bin/env python3
"""work_split built as a non-PIE executable (linked at a fixed address,
loaded with a bias of 0): its leaves are named and split 50:30:20 as in
the PIE build.

usage: test_nonpie.py WORK_SPLIT_NOPIE
"""
import os
import sys

import prof

ET_EXEC = 2


def test():
    target = sys.argv[1]
    with open(target, 'rb') as f:
        head = f.read(18)
    if int.from_bytes(head[16:18], 'little') != ET_EXEC:
        raise prof.Fail(f'{target} is not a non-PIE executable (ET_EXEC): '
                        'the build did not make one')
    p = prof.profile(target, [prof.SHARE_SCALE], opts=['-F', '1000'])
    leaf = prof.need_func(p.report, 'leaf_50')
    if os.path.basename(str(leaf.get('module'))) != os.path.basename(target):
        raise prof.Fail(f'leaf_50 in {leaf.get("module")}')
    prof.check_shares(p.report, {'leaf_50': 5, 'leaf_30': 3, 'leaf_20': 2},
                      label='non-PIE')


prof.main(test)
