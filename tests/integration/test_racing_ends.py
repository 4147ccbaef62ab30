#!/usr/bin/env python3
"""Three threads end the process at once (racing_ends): all by exit(3),
all by SIGSEGV, all by abort(3), or one of each. One ending must win and
write the footer, whatever the others do: ten runs of each mode, every
spool complete, and profrun's exit status that of the ending (exit 3,
128+SIGSEGV, 128+SIGABRT; for the mixed mode whichever came first). The
footer used to be lost in up to 20 runs of 20 with exit, 3 with SIGSEGV.

usage: test_racing_ends.py RACING_ENDS
"""
import os
import signal
import sys

import prof

STATUS = {'exit': {3}, 'segv': {128 + signal.SIGSEGV},
          'abort': {128 + signal.SIGABRT},
          'mixed': {3, 128 + signal.SIGSEGV, 128 + signal.SIGABRT}}


def test():
    for mode, want in STATUS.items():
        lost = 0
        for i in range(10):
            spool = os.path.join(prof.tmpdir(), f'{mode}{i}.spool')
            r = prof.profrun(['-q', '-o', spool, '--', sys.argv[1], mode])
            if r.returncode not in want:
                raise prof.Fail(f'{mode}: exit {r.returncode}, want one of '
                                f'{sorted(want)}\n{r.stderr}')
            _, rep = prof.analyze(spool)
            if not prof.field(rep, 'complete'):
                lost += 1
        print(f'{mode}: {10 - lost} of 10 spools complete')
        if lost:
            raise prof.Fail(f'{mode}: {lost} of 10 spools without a footer')


prof.main(test)
