#!/usr/bin/env python3
"""Every ending of a profiled program leaves a finished spool (footer
present, the samples of the work before the end in it), and the program
ends exactly as it does without the profiler: same exit status, same
signal. A program asking for the disposition of a fatal signal sees the
default, as without the profiler, although the profiler has a handler
there.

usage: test_endings.py LIFECYCLE
"""
import os
import sys

import prof

import signal

# mode: what the footer must say of the ending (ended, end_signal)
ENDINGS = {
    'exit': ('exit', None),
    '_exit': ('_exit', None),
    'abort': ('signal', int(signal.SIGABRT)),
    'segv': ('signal', int(signal.SIGSEGV)),
    'term': ('signal', int(signal.SIGTERM)),
    'int': ('signal', int(signal.SIGINT)),
    'execfail': ('exit', None),
}


def bare_status(target, mode):
    r = prof.run([target, mode])
    return r.returncode if r.returncode >= 0 else 128 - r.returncode


def test():
    target = sys.argv[1]
    for mode, (ended, sig) in ENDINGS.items():
        want = bare_status(target, mode)
        p = prof.profile(target, [mode], expect_rc=want)
        rep = p.report
        print(f'{mode}: exit {p.rc} (bare {want}), complete '
              f'{rep.get("complete")}, {rep.get("samples")} samples')
        if not prof.field(rep, 'complete'):
            raise prof.Fail(f'{mode}: the spool has no footer')
        got = (prof.field(rep, 'ended'), prof.field(rep, 'end_signal'))
        if got != (ended, sig):
            raise prof.Fail(f'{mode}: the footer says {got}, want '
                            f'{(ended, sig)}')
        work = prof.need_func(rep, 'before_end')
        if work['self_samples'] < 50:
            raise prof.Fail(f'{mode}: only {work["self_samples"]} samples '
                            f'of the work before the end')
        if mode == 'execfail':
            # Profiling goes on after an exec that failed.
            prof.need_func(rep, 'after_failed_exec')
    p = prof.profile(target, ['disposition'], expect_rc=None)
    if p.rc != 0:
        raise prof.Fail('under profrun the program does not see the default '
                        'disposition of SIGINT/SIGTERM/SIGSEGV')
    print('dispositions: default, as without the profiler')


prof.main(test)
