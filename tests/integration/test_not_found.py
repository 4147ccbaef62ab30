#!/usr/bin/env python3
"""A program that does not exist gives exit 127 and one line naming it; a
file that is not executable gives 126, like the shell, and so does an
executable file that exec refuses (neither ELF nor "#!": ENOEXEC).
None leaves a spool behind.

usage: test_not_found.py
"""
import os

import prof


def expect(argv, want, name):
    spool = os.path.join(prof.tmpdir(), 'x.spool')
    r = prof.profrun(['-q', '-o', spool, '--'] + argv)
    print(f'{argv[0]}: exit {r.returncode}: {r.stderr.strip()}')
    if r.returncode != want:
        raise prof.Fail(f'{argv[0]}: exit {r.returncode}, want {want}')
    line = prof.one_line(r.stderr, argv[0])
    if name not in line:
        raise prof.Fail(f'error does not name {name}: {line}')
    left = [f for f in os.listdir(os.path.dirname(spool))
            if f.startswith('x.spool')]
    if left:
        raise prof.Fail(f'{argv[0]}: left {left} behind')


def test():
    d = prof.tmpdir()
    expect([os.path.join(d, 'no-such-program')], 127, 'no-such-program')
    expect(['profrun-test-no-such-program-in-path'], 127,
           'profrun-test-no-such-program-in-path')
    plain = os.path.join(d, 'not-executable')
    with open(plain, 'w') as f:
        f.write('#!/bin/sh\nexit 0\n')
    # Not even root may execute a file without any x bit.
    os.chmod(plain, 0o644)
    expect([plain], 126, 'not-executable')
    garbage = os.path.join(d, 'not-a-program')
    with open(garbage, 'wb') as f:
        f.write(b'\x00\x01 neither ELF nor a script\n')
    os.chmod(garbage, 0o755)
    expect([garbage], 126, 'not-a-program')


prof.main(test)
