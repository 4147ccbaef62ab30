#!/usr/bin/env python3
"""profrun --space-seed=N fixes the byte sampling's random numbers: a
deterministic program (space_split: the same allocations in the same
order every run) gets the same space profile run after run, sample for
sample, so a CI gate on it (profanalyze --diff --space) has no noise.
Three runs with one seed must agree exactly; a run with another seed
must still be a valid profile (the seed is not ignored: the samples
differ from the first seed's unless by chance, which is not asserted).

usage: test_space_seed.py SPACE_SPLIT
"""
import sys

import prof

SCALE = '0.02'  # 40 MiB: some 80 samples at the default interval


def space_profile(target, seed):
    p = prof.profile(target, args=[SCALE],
                     opts=['--no-time', f'--space-seed={seed}'])
    _, report = prof.analyze(p.spool, args=('--space', '--json'))
    funcs = sorted((f['name'], f['self_samples'], f['self'])
                   for f in report['functions'] if f['self_samples'])
    return prof.field(report, 'samples'), funcs


def test():
    target = sys.argv[1]
    first = space_profile(target, 7)
    if first[0] < 20:
        raise prof.Fail(f'{first[0]} space samples: too few to compare')
    for run in range(2):
        again = space_profile(target, 7)
        if again != first:
            raise prof.Fail(f'--space-seed=7 run {run + 2} differs from '
                            f'run 1:\n{again}\n{first}')
    print(f'--space-seed=7: 3 runs, {first[0]} samples each, identical')
    other = space_profile(target, 8)
    print(f'--space-seed=8: {other[0]} samples'
          f'{" (the same as seed 7)" if other == first else ""}')
    r = prof.profrun(['--space-seed=0', '--', target, SCALE])
    if r.returncode != 2 or '--space-seed' not in r.stderr:
        raise prof.Fail(f'--space-seed=0: exit {r.returncode}, want 2 '
                        f'naming the option\n{r.stderr}')


prof.main(test)
