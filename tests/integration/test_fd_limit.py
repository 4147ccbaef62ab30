#!/usr/bin/env python3
"""Under a descriptor limit so low that some threads cannot get a timer
(RLIMIT_NOFILE 516, soft and hard: the library keeps its descriptors at
512 and above, out of the program's way, and there its spool, libunwind's
pipe and the main thread's perf event take what is left), the program
runs on unaffected, the message says why in words ("Too many open
files", not "error 24"), and the report names each thread that went
unsampled with its CPU time. (Below 512, --timer=perf is refused
outright: test_hostile.py's fd-limit case.)

usage: test_fd_limit.py SIGPROF_USER
"""
import os
import resource
import sys

import prof


def low_limit():
    resource.setrlimit(resource.RLIMIT_NOFILE, (516, 516))


def test():
    target = sys.argv[1]
    bare = prof.run([target, 'workers'], preexec_fn=low_limit)
    spool = os.path.join(prof.tmpdir(), 'l.spool')
    r = prof.profrun(['-o', spool, '--timer=perf', '--', target, 'workers'],
                     preexec_fn=low_limit)
    print(f'bare exit {bare.returncode}, profiled exit {r.returncode}')
    print(r.stderr.strip())
    if (r.returncode, r.stdout) != (bare.returncode, bare.stdout):
        raise prof.Fail('the program ran differently under the profiler')
    if 'cannot arm the CPU timer' not in r.stderr:
        raise prof.Fail('no thread lost its timer: the limit did not bite '
                        '(the test needs it to)')
    if 'Too many open files' not in r.stderr or 'error 24' in r.stderr:
        raise prof.Fail('the message does not say why in words')
    text = prof.run([prof.profanalyze_path(), spool]).stdout
    lines = [l for l in text.splitlines() if l.startswith('Unsampled:')]
    print('\n'.join(lines))
    if not lines:
        raise prof.Fail('the report does not name the unsampled threads')


prof.main(test)
