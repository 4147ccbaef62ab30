#!/usr/bin/env python3
"""Four threads do 10, 20, 30 and 40 % of the work: the report counts five
threads (main and four) and splits the samples 1:2:3:4.

usage: test_threads.py THREADS
"""
import sys

import prof


def test():
    p = prof.profile(sys.argv[1], opts=['-F', '1000'])
    r = p.report
    threads = prof.field(r, 'threads')
    if threads != 5:
        raise prof.Fail(f'{threads} threads, want 5 (main + 4)')
    prof.check_shares(r, {f'thread_work_{i}': i for i in range(1, 5)})


prof.main(test)
