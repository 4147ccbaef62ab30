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

    # Scale 5: 2 s of work, about 1,900 samples at 1 kHz, for the 5-point
    # bound of check_shares (1,481 for shares of 0.75 and 0.25).
    p = prof.profile(early, ['5'])
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
    # Every thread renamed itself (pthread_setname_np, prctl): --threads
    # lists the new names, and --thread restricts the reports to one.
    r, _ = prof.analyze(p.spool, args=('--threads',))
    names = [line.split()[1] for line in r.stdout.splitlines()[1:]]
    churners = [n for n in names if n.startswith('churn-') and n != 'churn-main']
    print(f'--threads: {len(names)} threads, {len(churners)} named churn-N')
    if 'churn-main' not in names or len(churners) != 200:
        raise prof.Fail(f'--threads: names not recorded: {names[:10]}')
    _, only = prof.analyze(p.spool, args=('--json', '--thread=churn-main'))
    if prof.func(only, 'churn_work') or not prof.func(only, 'main_work'):
        raise prof.Fail('--thread=churn-main still has other threads\' work')
    _, some = prof.analyze(p.spool, args=('--json', '--thread=churn-1?'))
    cw = prof.need_func(some, 'churn_work')['self_samples']
    print(f'--thread=churn-1?: churn_work {cw} samples (10 threads)')
    if prof.func(some, 'main_work') or not 0 < cw < rep['samples'] / 10:
        raise prof.Fail(f'--thread=churn-1?: churn_work {cw} samples')

    p = prof.profile(blocking, opts=['-F', '10000'], expect_rc=None)
    print(f'blocking: exit {p.rc}, {p.stdout.strip()}')
    if p.rc != 0:
        raise prof.Fail(f'blocking: exit {p.rc}: {p.stdout.strip()}')


prof.main(test)
