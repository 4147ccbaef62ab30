#!/usr/bin/env python3
"""A program that uses SIGPROF itself gets its way: its own handler gets
its own timer's signals and reads back as installed, while the profiler
goes on sampling with its perf timer. A program that blocks the sampling
signal loses those samples, and the report counts them as dropped
(signal-blocked) instead of pretending the time was not spent.

usage: test_sigprof_user.py SIGPROF_USER
"""
import sys

import prof


def test():
    target = sys.argv[1]
    try:
        p = prof.profile(target, ['handler'], ['--timer=perf'],
                         expect_rc=None)
    except prof.TimerUnavailable as e:
        raise prof.Skip(str(e))
    print(f'handler: exit {p.rc}, {p.stdout.strip()}')
    if p.rc != 0:
        raise prof.Fail(f'the program\'s own SIGPROF handler did not get its '
                        f'signals or did not read back: {p.stdout.strip()}')
    w = prof.need_func(p.report, 'own_timer_work')
    if w['self_samples'] < 200:
        raise prof.Fail(f'sampling stopped: own_timer_work has '
                        f'{w["self_samples"]} samples')

    p = prof.profile(target, ['block'], ['--timer=perf'])
    rep = p.report
    blocked = prof.func(rep, 'blocked_work')
    unblocked = prof.need_func(rep, 'unblocked_work')
    lost = prof.field(prof.field(rep, 'dropped'), 'signal-blocked')
    b = blocked['self_samples'] if blocked else 0
    print(f'block: blocked_work {b}, unblocked_work '
          f'{unblocked["self_samples"]}, dropped signal-blocked {lost}')
    if b > 2:
        raise prof.Fail(f'{b} samples while the signal was blocked')
    # About as many samples lost as unblocked_work got (same work).
    u = unblocked['self_samples']
    if not (0.7 * u <= lost <= 1.3 * u):
        raise prof.Fail(f'{lost} samples counted lost, want about {u}')


prof.main(test)
