#!/usr/bin/env python3
"""A statically linked program cannot load the preload library: profrun
says so in one line and does not start it.

usage: test_static.py [MARKER_STATIC]   (skipped when it could not be built)
"""
import os
import sys

import prof


def test():
    if len(sys.argv) < 2:
        raise prof.Skip('no statically linked target (needs libc.a, and no '
                        'sanitizer)')
    target = sys.argv[1]
    d = prof.tmpdir()
    started = os.path.join(d, 'started')
    r = prof.profrun(['-q', '-o', os.path.join(d, 'x.spool'), '--', target,
                      started])
    print(f'exit {r.returncode}: {r.stderr.strip()}')
    if r.returncode == 0:
        raise prof.Fail('profrun ran a static program as if profiled')
    if os.path.exists(started):
        raise prof.Fail('the static program was started')
    line = prof.one_line(r.stderr, 'static program')
    if 'static' not in line.lower():
        raise prof.Fail(f'error does not say "static": {line}')

    # A script whose interpreter is static runs (profrun checks the
    # script, the kernel starts the interpreter) and writes no spool: the
    # message says why it may be, not "see the profiler's message above"
    # with no message above.
    # (The interpreter gets the script's path as its FILE to mark.)
    script = os.path.join(d, 'script')
    with open(script, 'w') as f:
        f.write(f'#!{target}\n')
    os.chmod(script, 0o755)
    r = prof.profrun(['-q', '-o', os.path.join(d, 'y.spool'), '--', script])
    print(f'script: exit {r.returncode}: {r.stderr.strip()}')
    if r.returncode != 0:
        raise prof.Fail('the script with a static interpreter did not run')
    line = prof.one_line(r.stderr, 'static interpreter')
    if 'no spool was written' not in line or 'static' not in line:
        raise prof.Fail(f'the message does not say why there is no spool: '
                        f'{line}')


prof.main(test)
