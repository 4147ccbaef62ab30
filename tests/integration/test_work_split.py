#!/usr/bin/env python3
"""work_split's three leaves do 50, 30 and 20 % of the work: their samples
split the same way, with every timer profrun offers on this machine.

usage: test_work_split.py WORK_SPLIT
"""
import sys

import prof


def test():
    target = sys.argv[1]

    def one(timer):
        p = prof.profile(target, opts=['-F', '1000', f'--timer={timer}'])
        got = prof.field(p.report, 'timer')
        if got != timer:
            raise prof.Fail(f'asked for --timer={timer}, report says {got}')
        prof.check_shares(p.report,
                          {'leaf_50': 5, 'leaf_30': 3, 'leaf_20': 2},
                          label=timer)

    prof.for_each_timer(one)


prof.main(test)
