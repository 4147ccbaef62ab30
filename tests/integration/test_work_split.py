#!/usr/bin/env python3
"""work_split's three leaves do 50, 30 and 20 % of the work: their samples
split the same way, with every timer profrun offers on this machine.

And the samples' weights add up to the CPU time they stand for, whatever
rate the source really delivers: posix at -F 1000 delivers about 250 Hz
(the kernel tick) and each sample stands for about 4 ms (1 + si_overrun
periods), itimer weighs each sample by the process CPU time since the
last one. So sampled_seconds must be close to the CPU time: to
cpu_seconds (user + system, from the footer), or for a source that samples
user mode only (user_mode_only: perf) to the user CPU time of the run.

usage: test_work_split.py WORK_SPLIT
"""
import math
import sys

import prof

# CPU time no sample can cover, as a share of it: start-up before the
# library arms the timer, the exit path, and the last partial period of
# each thread.
UNCOVERED = 0.03
# The bound on sampled time against CPU time: fixed. Seen as a count of n
# random events, the sampled time has a relative standard deviation of
# 1/sqrt(n); the bound must be 4 of them plus what no sample covers, so a
# run needs MIN_WEIGHT_SAMPLES (1,976) samples for it, and fails with fewer
# rather than widen it. (A source whose samples are all weighed as one
# period while it delivers a quarter of them is 75 % short.)
WEIGHT_BOUND = 0.12
MIN_WEIGHT_SAMPLES = math.ceil((4 / (WEIGHT_BOUND - UNCOVERED)) ** 2)


def check_weights(timer, p):
    r = p.report
    n = prof.field(r, 'samples')
    sampled = prof.field(r, 'sampled_seconds')
    if prof.field(r, 'user_mode_only'):
        # The kernel splits a thread's CPU time into user and system by
        # sampling at its tick: the user time is itself an estimate.
        truth, what = p.user_seconds, 'user CPU seconds'
    else:
        truth, what = prof.field(r, 'cpu_seconds'), 'cpu_seconds'
    if truth is None:
        raise prof.Fail(f'{timer}: no {what}: the spool has no footer')
    if n < MIN_WEIGHT_SAMPLES:
        raise prof.Fail(f'{timer}: {n} samples, too few for the '
                        f'{WEIGHT_BOUND:.0%} bound on their weight (it '
                        f'needs {MIN_WEIGHT_SAMPLES})')
    tol = WEIGHT_BOUND
    off = sampled / truth - 1 if truth else math.inf
    ok = abs(off) <= tol
    print(f'{timer}: {n} samples weigh {sampled:.3f} s; {what} '
          f'{truth:.3f} s: {off:+.1%}, want within {tol:.1%} '
          f'{"ok" if ok else "WRONG"}')
    if not ok:
        raise prof.Fail(f'{timer}: {n} samples stand for {sampled:.3f} s '
                        f'of CPU, the run used {truth:.3f} ({what}): '
                        f'{off:+.1%}, beyond {tol:.1%}')


def test():
    target = sys.argv[1]

    def one(timer):
        shares = {'leaf_50': 5, 'leaf_30': 3, 'leaf_20': 2}
        p = prof.profile_shares(target, shares, prof.share_scale(timer),
                                opts=['-F', '1000', f'--timer={timer}'])
        got = prof.field(p.report, 'timer')
        if got != timer:
            raise prof.Fail(f'asked for --timer={timer}, report says {got}')
        prof.check_shares(p.report, shares, label=timer)
        check_weights(timer, p)

    prof.for_each_timer(one)


prof.main(test)
