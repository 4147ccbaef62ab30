#!/usr/bin/env python3
"""The CI recipe of the README, end to end: profile a benchmark's base and
head versions, five runs each as the recipe does, and gate with
`profanalyze --diff --fail-above=5`. diff_bench's head doubles bench_b's
work (ground truth by construction; its loops call nothing): the gate
must fail (exit 3) and name bench_b and nothing else; two sets of runs of
the same version must pass (exit 0).

The second check is a statistical claim: the test is at 5 % family-wise,
and a false alarm also needs a growth above 5 %, so it fails far less than
once in twenty; BENCHMARKS.md records the identical pair run 20 times
(--identical=20, which only counts and does not fail).

usage: test_diff_gate.py DIFF_BENCH DIFF_BENCH_HEAD [--identical=N]
"""
import json
import os
import sys

import prof

# The README's recipe runs five a side. With three, a machine whose speed
# drifted by 15 % between the head runs (bench_b 0.37, 0.35, 0.30 s
# against 0.18, 0.17, 0.16) left Welch's t some 2 degrees of freedom and
# the doubling unproven at 5 % over 9 comparisons (p about 0.01): the test
# failed in one of six runs, two tests running at a time.
REPS = 5
# Samples a base run must have: bench_b's 30 % of them then has at least
# 150, and its doubling is some 8 standard errors (the gate needs about 3).
MIN_RUN_SAMPLES = 400
# The CPU time a base run is sized to: diff_bench does a fixed number of
# iterations, 0.40 s of CPU at scale 1 on one machine and 0.5 s on
# another, and a run at 1 kHz has about as many samples as milliseconds.
# 0.6 s leaves MIN_RUN_SAMPLES a third of margin for a machine whose speed
# drifts between the calibration and the runs.
BASE_CPU_S = 0.6
SCALE = '1'


def calibrate(target):
    """Sets SCALE so that a bare run of target takes about BASE_CPU_S of
    CPU."""
    global SCALE
    SCALE = prof.scale_for_cpu(target, BASE_CPU_S)


def runs(target, tag, reps=REPS):
    """reps spools of target, as the recipe's loop makes them."""
    spools = []
    for i in range(reps):
        spool = os.path.join(prof.tmpdir(), f'{tag}.{i}.spool')
        r = prof.profrun(['-q', '-F', '1000', '-o', spool, '--', target,
                          SCALE])
        if r.returncode != 0:
            raise prof.Fail(f'profrun {target}: exit {r.returncode}\n'
                            f'{r.stderr[-2000:]}')
        spools.append(spool)
    return spools


def gate(base, new, fmt):
    """The recipe's comparison; returns (exit status, output)."""
    # --no-inline: bench_a and bench_b both inline work.h's work_spin,
    # whose frame would grow with bench_b's work.
    args = [prof.profanalyze_path(), '--diff', '--no-inline',
            '--fail-above=5', f'--format={fmt}'] + [f'--base={s}' for s in base] + new
    r = prof.run(args)
    if r.returncode not in (0, 3):
        raise prof.Fail(f'profanalyze --diff: exit {r.returncode}\n'
                        f'{r.stderr[-2000:]}')
    return r.returncode, r.stdout


def check_samples(base):
    for s in base:
        _, report = prof.analyze(s)
        n = prof.field(report, 'samples')
        if n < MIN_RUN_SAMPLES:
            raise prof.Fail(f'{s}: {n} samples, too few for the check '
                            f'(want {MIN_RUN_SAMPLES})')


def identical(base_target, n):
    passed = 0
    for k in range(n):
        rc, out = gate(runs(base_target, f'i{k}a'), runs(base_target,
                                                           f'i{k}b'), 'json')
        failed = json.loads(out)['verdict']['failed']
        print(f'identical pair {k + 1}: exit {rc} {failed}')
        passed += rc == 0
    print(f'identical pair passed {passed} of {n}')


def test():
    base_target, head_target = sys.argv[1], sys.argv[2]
    calibrate(base_target)
    if len(sys.argv) > 3 and sys.argv[3].startswith('--identical='):
        identical(base_target, int(sys.argv[3].split('=', 1)[1]))
        return
    base = runs(base_target, 'base')
    check_samples(base)
    head = runs(head_target, 'head')
    rc, md = gate(base, head, 'markdown')
    print(md)
    if rc != 3 or not md.startswith('**profrun: FAIL**'):
        raise prof.Fail(f'head doubles bench_b: exit {rc}, want 3\n{md}')
    rc, out = gate(base, head, 'json')
    failed = json.loads(out)['verdict']['failed']
    print(f'the gate named {failed}')
    if failed != ['bench_b']:
        raise prof.Fail(f'the gate named {failed}, want only bench_b')
    again = runs(base_target, 'again')
    rc, out = gate(base, again, 'text')
    print(out)
    if rc != 0:
        raise prof.Fail(f'two runs of one version: exit {rc}, want 0\n{out}')


prof.main(test)
