#!/usr/bin/env python3
"""profrun -q prints nothing; without it, profrun prints one summary line
on stderr naming the spool and the number of samples.

usage: test_quiet.py WORK_SPLIT
"""
import os
import sys

import prof


def test():
    target = sys.argv[1]
    d = prof.tmpdir()
    spool = os.path.join(d, 'quiet.spool')
    r = prof.profrun(['-q', '-o', spool, '--', target, '0.1'])
    if r.returncode != 0 or r.stderr or r.stdout:
        raise prof.Fail(f'-q: exit {r.returncode}, stdout {r.stdout!r}, '
                        f'stderr {r.stderr!r}')
    spool = os.path.join(d, 'loud.spool')
    r = prof.profrun(['-o', spool, '--', target, '0.1'])
    if r.returncode != 0:
        raise prof.Fail(f'exit {r.returncode}: {r.stderr}')
    line = prof.one_line(r.stderr, 'summary')
    print(f'summary: {line}')
    if spool not in line or 'sample' not in line:
        raise prof.Fail(f'summary does not name {spool} and the samples: '
                        f'{line}')


prof.main(test)
