#!/usr/bin/env python3
"""A program that closes every descriptor it does not know of and reuses
the numbers (as daemons do, and every child about to exec under Python's
subprocess): the profiler must not close or write to the program's files
at those numbers, and carries on with its spool reopened and its timers
renewed.

closefrom closes 3..4095, then fills 3..799 with duplicates of one empty
file of its own (the profiler's spool was at 512, its perf events at 512
and up, the wall clock's poller at 600 and up), works and sleeps, and
exits 1 if one of its descriptors was closed behind it or its file got a
byte. Under both clocks: exit 0, nothing on stderr about profiling being
disabled, a complete spool, and most of the CPU time still sampled (the
timers are renewed 200 to 300 ms after the program closed them; the
program then works 1 s more).

usage: test_closefrom.py CLOSEFROM
"""
import os
import sys

import prof


def test():
    target = sys.argv[1]
    for clock in ('cpu', 'wall'):
        victim = os.path.join(prof.tmpdir(), 'program.file')
        p = prof.profile(target, args=[victim], opts=[f'--clock={clock}'])
        r = p.report
        print(f'--clock={clock}: {p.stdout.strip()}; {r["samples"]} '
              f'samples, cpu {r["cpu_seconds"]} s; stderr: '
              f'{p.stderr.strip()!r}')
        if 'disabled' in p.stderr:
            raise prof.Fail(f'--clock={clock}: profiling was disabled')
        if not prof.field(r, 'complete'):
            raise prof.Fail(f'--clock={clock}: the spool has no footer')
        # Samples of running threads: their seconds, at 1 kHz.
        running = (r['sampled_seconds'] - r['blocked_seconds']) * 1000
        want = 0.5 * prof.field(r, 'cpu_seconds') * 1000
        if running < want:
            raise prof.Fail(f'--clock={clock}: {running:.0f} samples for '
                            f'{r["cpu_seconds"]} s of CPU at 1 kHz: the '
                            'timers were not renewed')


prof.main(test)
