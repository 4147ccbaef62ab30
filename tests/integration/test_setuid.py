#!/usr/bin/env python3
"""The dynamic loader ignores LD_PRELOAD paths for set-user-ID programs, so
profrun refuses them in one line and does not start them.

usage: test_setuid.py MARKER
"""
import os
import re
import shutil
import sys

import prof


def test():
    d = prof.tmpdir()
    target = os.path.join(d, 'marker-setuid')
    shutil.copy(sys.argv[1], target)
    os.chmod(target, 0o4755)
    if not os.stat(target).st_mode & 0o4000:
        raise prof.Skip(f'cannot set the set-user-ID bit in {d}')
    started = os.path.join(d, 'started')
    r = prof.profrun(['-q', '-o', os.path.join(d, 'x.spool'), '--', target,
                      started])
    print(f'exit {r.returncode}: {r.stderr.strip()}')
    if r.returncode == 0:
        raise prof.Fail('profrun ran a set-user-ID program')
    if os.path.exists(started):
        raise prof.Fail('the set-user-ID program was started')
    line = prof.one_line(r.stderr, 'setuid program')
    if not re.search(r'set.?u(ser.?)?id', line, re.I):
        raise prof.Fail(f'error does not say set-user-ID: {line}')


prof.main(test)
