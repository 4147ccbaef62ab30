#!/usr/bin/env python3
"""Usage errors exit 2 with one line on stderr, and start nothing.

usage: test_bad_option.py MARKER
"""
import os
import sys

import prof

CASES = [
    ['--no-such-option'],
    ['-F', '0'],
    ['-F', 'abc'],
    ['-F', '-5'],
    ['--timer=no-such-timer'],
    ['--clock=sundial'],
    ['--clock=wall', '--no-time'],
    ['-o'],
]


def test():
    marker = sys.argv[1]
    d = prof.tmpdir()
    for opts in CASES:
        started = os.path.join(d, 'started')
        spool = os.path.join(d, 'x.spool')
        argv = opts if opts == ['-o'] else \
            ['-q', '-o', spool] + opts + ['--', marker, started]
        r = prof.profrun(argv)
        print(f'{" ".join(opts)}: exit {r.returncode}: {r.stderr.strip()}')
        if r.returncode != 2:
            raise prof.Fail(f'{" ".join(opts)}: exit {r.returncode}, want 2')
        # Exactly one line of error, not a usage dump.
        line = prof.one_line(r.stderr, ' '.join(opts))
        if not line.startswith('profrun:'):
            raise prof.Fail(f'error does not start with "profrun:": {line}')
        if os.path.exists(started):
            raise prof.Fail(f'{" ".join(opts)}: the program was started')
    # No program at all: a usage error too (the message may be a usage).
    r = prof.profrun(['-q'])
    if r.returncode != 2 or not r.stderr.strip():
        raise prof.Fail(f'no program: exit {r.returncode}, want 2 and a '
                        'message')


prof.main(test)
