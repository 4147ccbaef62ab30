#!/usr/bin/env python3
"""The library's descriptors stay out of the program's way: the program
finds the same descriptors open at main as without the profiler, also
when it was started with stdin and stdout closed, where the lowest free
numbers are 0 and 1 (libunwind's pipe once took them: the program's
write(1) then succeeded and read(0) read its own output, where bare both
fail with EBADF).

usage: test_fds.py FDS
"""
import os
import sys

import prof


def close_stdio():
    os.close(0)
    os.close(1)


def test():
    target = sys.argv[1]
    for label, pre in (('stdio open', None), ('stdin and stdout closed',
                                                close_stdio)):
        bare = prof.run([target], preexec_fn=pre)
        spool = os.path.join(prof.tmpdir(), 'f.spool')
        p = prof.profrun(['-q', '-o', spool, '--', target], preexec_fn=pre)
        want = bare.stderr.strip()
        got = [l for l in p.stderr.splitlines() if l.startswith('open:')]
        print(f'{label}: bare: {want}')
        print(f'{label}: profiled: {got}')
        if bare.returncode != 0 or p.returncode != 0:
            raise prof.Fail(f'{label}: exit {bare.returncode} bare, '
                            f'{p.returncode} profiled\n{p.stderr}')
        if got != [want]:
            raise prof.Fail(f'{label}: the program saw other descriptors '
                            f'under the profiler')
        if not os.path.exists(spool):
            raise prof.Fail(f'{label}: no spool')


prof.main(test)
