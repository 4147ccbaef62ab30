#!/usr/bin/env python3
"""Threads the profiler must not miss or disturb:
- a thread started by a library constructor before the profiler's own
  constructor ran is adopted and sampled;
- 200 threads created and exiting in waves at 10 kHz: the program
  completes, every thread is counted, and their work shows in its share
  (the threads' last samples are kept when they exit);
- blocking calls (sleep, read, poll, select) under 10 kHz sampling never
  fail with EINTR.

usage: test_thread_life.py EARLY_MAIN CHURN BLOCKING
"""
import sys

import prof


def test():
    early, churn, blocking = sys.argv[1:4]

    p = prof.profile(early)
    rep = p.report
    ew = prof.need_func(rep, 'early_work')
    mw = prof.need_func(rep, 'main_work')
    print(f'early: early_work {ew["self_samples"]}, main_work '
          f'{mw["self_samples"]}, threads {rep["threads"]}')
    # early_work is 3x main_work by construction.
    prof.check_shares(rep, {'early_work': 0.75, 'main_work': 0.25},
                      label='early thread')

    p = prof.profile(churn, opts=['-F', '10000'], timeout=300)
    rep = p.report
    threads = prof.field(rep, 'threads')
    print(f'churn: {rep["samples"]} samples, {threads} threads, '
          f'dropped {rep.get("dropped")}')
    if threads < 201:
        raise prof.Fail(f'churn: {threads} threads counted, want 201')
    # The 200 threads together do as much work as main.
    prof.check_shares(rep, {'churn_work': 0.5, 'main_work': 0.5},
                      label='churn')

    p = prof.profile(blocking, opts=['-F', '10000'], expect_rc=None)
    print(f'blocking: exit {p.rc}, {p.stdout.strip()}')
    if p.rc != 0:
        raise prof.Fail(f'blocking: exit {p.rc}: {p.stdout.strip()}')


prof.main(test)
