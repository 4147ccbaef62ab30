#!/usr/bin/env python3
"""The error bars are honest: the truth lies inside the 95 % interval of
a share in about 95 % of the cases, for time and for space.

tests/targets/calib runs six functions whose shares are known by
construction (5, 10, 15, 20, 25 and 25 %; see calib.c) in many short runs;
each run's --json gives every function's self_pct and self_pct_err, the
half-width of its 95 % interval. The shares are taken among the six (the
rest of the program, start-up and exit, is a fraction of a percent), the
half-widths scaled alike. Over all runs and functions the truth must fall
outside its interval in about 5 % of the cases:

- time: 40 runs of 0.25 s of CPU at 4 kHz (about 900 samples each),
  240 intervals: 12 misses expected, the test accepts 2 to 30 (20 runs
  of the test under a load average of 10 gave 9 to 22, a little more
  spread than binomial: the six shares of a run are not independent);
- space: 100 runs of 64 MiB allocated, sampled every 64 KiB on average
  (about 650 sampled blocks each), 600 intervals: 30 misses expected,
  the test accepts 10 to 55.

Both bounds are 3.5 binomial standard deviations or more from the
expectation (a false failure about once in 5,000 runs of the test), and
both ends matter: intervals 1.5 times too narrow miss about 19 % of the
time, far above the upper bound, and intervals twice too wide miss 0.01 %,
below the lower one. A run with too few samples for the intervals to be
normal (under 400) fails rather than passing on a wide bound.

usage: test_error_bars.py CALIB time|space
"""
import sys

import prof

TRUTH = {1: 0.05, 2: 0.10, 3: 0.15, 4: 0.20, '5a': 0.25, '5b': 0.25}
MIN_SAMPLES = 400

MODES = {
    # runs, target arguments, profrun options, analyzer options, names,
    # accepted misses
    'time': (40, ['time', '0.25'], ['--timer=perf', '-F', '4000'], [],
             'spin_{}', (2, 30)),
    'space': (100, ['space', '64'], ['--no-time', '--space-interval=64K'],
              ['--space'], 'alloc_{}', (10, 55)),
}


def one_run(target, mode):
    runs, args, opts, aopts, pattern, _ = MODES[mode]
    try:
        p = prof.profile(target, args, opts)
    except prof.TimerUnavailable as e:
        raise prof.Skip(str(e))
    if aopts:
        _, rep = prof.analyze(p.spool, args=aopts + ['--json'])
    else:
        rep = p.report
    if rep['samples'] < MIN_SAMPLES:
        raise prof.Fail(f'{mode}: {rep["samples"]} samples, too few for '
                        f'normal intervals (want {MIN_SAMPLES})')
    fns = {k: prof.need_func(rep, pattern.format(k)) for k in TRUTH}
    six = sum(f['self_pct'] for f in fns.values())
    out = []
    for k, f in fns.items():
        got = f['self_pct'] / six
        half = f['self_pct_err'] / six
        out.append((k, got, half, abs(got - TRUTH[k]) <= half))
    return out


def test():
    target, mode = sys.argv[1], sys.argv[2]
    runs, _, _, _, _, (lo, hi) = MODES[mode]
    misses = total = 0
    widths = []
    for i in range(runs):
        for k, got, half, inside in one_run(target, mode):
            total += 1
            widths.append(half)
            if not inside:
                misses += 1
                print(f'run {i + 1}: {k}: {100 * got:.2f} % +- '
                      f'{100 * half:.2f}, truth {100 * TRUTH[k]:.0f} %: '
                      f'outside')
    print(f'{mode}: the truth was outside the 95 % interval in {misses} '
          f'of {total} cases ({100 * misses / total:.1f} %; accepted '
          f'{lo} to {hi}); mean half-width {100 * sum(widths) / total:.2f} '
          f'points')
    if misses < lo:
        raise prof.Fail(f'{mode}: only {misses} of {total} intervals missed '
                        f'the truth: the error bars are too wide')
    if misses > hi:
        raise prof.Fail(f'{mode}: {misses} of {total} intervals missed the '
                        f'truth: the error bars are too narrow')


prof.main(test)
