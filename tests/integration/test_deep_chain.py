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
    # Nearly all the work is in the leaf; "most" with the usual slack.
    if leaf['self_samples'] < (0.5 + prof.tolerance(0.5, samples)) * samples:
        raise prof.Fail(f'bottom_work has only {leaf["self_samples"]} of '
                        f'{samples} samples')


prof.main(test)
