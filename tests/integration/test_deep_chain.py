#!/usr/bin/env python3
"""A call chain 200 deep, beyond the 128 frames a sample holds, with the
work at its bottom: samples are flagged truncated, and the leaf still gets
them (the innermost frames are kept, the outermost dropped).

usage: test_deep_chain.py DEEP_CHAIN
"""
import sys

import prof


def test():
    p = prof.profile(sys.argv[1], opts=['-F', '1000'])
    r = p.report
    samples = prof.field(r, 'samples')
    truncated = prof.field(r, 'truncated_stacks')
    leaf = prof.need_func(r, 'bottom_work')
    print(f'{samples} samples, {truncated} truncated, bottom_work self '
          f'{leaf["self_samples"]}')
    if samples < prof.MIN_SAMPLES:
        raise prof.Fail(f'only {samples} samples')
    if truncated <= 0:
        raise prof.Fail('no truncated stack reported for a 200-deep chain')
    heaviest = max(prof.field(r, 'functions'),
                   key=lambda f: f['self_samples'])
    if heaviest is not leaf:
        raise prof.Fail(f'heaviest function is {heaviest["name"]}, not '
                        f'bottom_work:\n{prof.top(r)}')
    # All the work is in the leaf but for work_spin's clock reads, which
    # may be samples of the vdso's own (1 to 3 %): the truth is about 98 %.
    prof.check_share('bottom_work share of all samples',
                     leaf['self_samples'] / samples, 0.98, samples)

    check_max_depth(sys.argv[1])


def check_max_depth(target):
    """--max-depth=400 keeps the whole 200-deep chain: no sample is
    truncated, and main is an ancestor of the leaf's samples (it is in
    every sample's stack: its total is all the samples but the vdso's
    few). Under the default the header gives the truncated share."""
    p = prof.profile(target, opts=['-F', '1000', '--max-depth=400'])
    r = p.report
    samples = prof.field(r, 'samples')
    truncated = prof.field(r, 'truncated_stacks')
    main = prof.need_func(r, 'main')
    print(f'--max-depth=400: {samples} samples, {truncated} truncated, main '
          f'total {main["total_samples"]}')
    if truncated:
        raise prof.Fail(f'--max-depth=400: {truncated} samples truncated')
    if main['total_samples'] < 0.9 * samples:
        raise prof.Fail('--max-depth=400: main is not above the leaf')
    text = prof.run([prof.profanalyze_path(), p.spool]).stdout
    if 'Truncated stacks' in text:
        raise prof.Fail('--max-depth=400: the header says truncated')
    r = prof.profrun(['--max-depth=1025', '--', target])
    if r.returncode != 2 or '--max-depth=1025' not in r.stderr:
        raise prof.Fail(f'--max-depth=1025 accepted: {r.returncode}')


prof.main(test)
