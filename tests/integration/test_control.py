#!/usr/bin/env python3
"""Sampling control: the public API with --start-paused (nested pauses),
the toggle signal, --max-samples, --delay and --duration. Samples fall
only inside the sampled window; a program using the API runs unchanged
without profrun.

usage: test_control.py CONTROL
"""
import signal
import sys

import prof

OUTSIDE = ('outside_window', 'outside_window_2', 'paused_inside')


def samples_of(rep, name):
    f = prof.func(rep, name)
    return f['self_samples'] if f else 0


def check_window(rep, label):
    inside = samples_of(rep, 'inside_window')
    outside = {n: samples_of(rep, n) for n in OUTSIDE}
    print(f'{label}: inside {inside}, outside {outside}')
    if inside < 100:
        raise prof.Fail(f'{label}: only {inside} samples inside the window')
    if any(outside.values()):
        raise prof.Fail(f'{label}: samples outside the window: {outside}')


def test():
    target = sys.argv[1]
    r = prof.run([target, 'api'])
    if r.returncode != 0 or r.stdout.strip() != 'not profiled':
        raise prof.Fail(f'without profrun: exit {r.returncode}, '
                        f'{r.stdout!r} {r.stderr!r}')
    print('without profrun: runs, API returns -ENOSYS')

    p = prof.profile(target, ['api'], ['--start-paused'])
    if p.stdout.strip() != 'profiled':
        raise prof.Fail(f'under profrun the API says {p.stdout!r}')
    check_window(p.report, 'api --start-paused')

    p = prof.profile(target, ['overstart'])
    check_window(p.report, 'profrun_start() without a pause, then a stop')

    usr2 = int(signal.SIGUSR2)
    p = prof.profile(target, ['toggle', str(usr2)],
                     ['--start-paused', f'--toggle-signal={usr2}'])
    check_window(p.report, 'toggle signal')

    p = prof.profile(target, ['plain'], ['--max-samples=50'])
    n = prof.field(p.report, 'samples')
    print(f'--max-samples=50: {n} samples')
    if n != 50:
        raise prof.Fail(f'--max-samples=50: {n} samples')

    # Delay and duration are wall time, which on a loaded machine is not
    # the program's CPU time, so the checks are ones no load can upset: a
    # delay longer than the whole run leaves no sample, and a 1 ms
    # duration (enforced within a writer cycle, 20 ms) leaves far fewer
    # than the whole run.
    full = prof.profile(target, ['plain']).report['samples']
    late = prof.profile(target, ['plain'], ['--delay=60']).report['samples']
    short = prof.profile(target, ['plain'],
                         ['--duration=0.001']).report['samples']
    print(f'full {full}, --delay=60: {late}, --duration=0.001: {short}')
    if late != 0:
        raise prof.Fail(f'--delay=60: {late} samples in a shorter run')
    if not short < full / 3:
        raise prof.Fail(f'--duration=0.001: {short} samples of {full}')

prof.main(test)
