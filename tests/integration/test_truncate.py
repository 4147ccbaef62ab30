#!/usr/bin/env python3
"""A spool truncated under the running program (issue #31, item 7) costs
the profile, never the program: hostile_truncate prints "started", waits
for a line on its standard input, then allocates and is sampled for about
a second. The test truncates the spool (profrun's temporary file) to 0
bytes between the two, so that the program's next stores into its mapped
chunk land past the file's end. The program must end as it does bare
(exit status, output; a SIGBUS handler of its own not called either),
and profrun must say that the spool was truncated, not that the profiler
was not loaded.

A SIGBUS of the program's own (hostile_sigbus, no handler) still kills it
as it does bare: profrun exits 128 + SIGBUS where the bare run died of it.

usage: test_truncate.py HOSTILE_TRUNCATE HOSTILE_SIGBUS
"""
import glob
import os
import signal
import subprocess
import sys

import prof


def run(argv, d=None):
    """Runs argv to its "started" line; truncates the spool in d (when
    given) and lets it go on. Returns (exit status, stdout, stderr)."""
    p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    first = p.stdout.readline()
    if d is not None:
        tmps = glob.glob(os.path.join(d, '*.tmp'))
        if first == 'started\n' and len(tmps) != 1:
            p.kill()
            raise prof.Fail(f'want one temporary spool, found {tmps}')
        for t in tmps:
            os.truncate(t, 0)
    try:
        out, err = p.communicate('go\n', timeout=60)
    except subprocess.TimeoutExpired:
        p.kill()
        raise prof.Fail(f'{" ".join(argv)}: hangs after the truncation')
    return p.returncode, first + out, err


def test():
    target = sys.argv[1]
    for variant in (['handler'], []):
        bare = run([target] + variant)
        d = prof.tmpdir()
        spool = os.path.join(d, 'x.spool')
        for opts in ([], ['--space-interval=4K']):
            rc, out, err = run([prof.profrun_path(), '-o', spool] + opts +
                               ['--', target] + variant, d)
            what = f'{" ".join(variant + opts) or "(defaults)"}'
            print(f'{what}: exit {rc}; stderr:\n{err.strip()}')
            if (rc, out) != bare[:2]:
                raise prof.Fail(f'{what}: exit {rc}, output {out!r}; bare: '
                                f'exit {bare[0]}, output {bare[1]!r}')
            if prof.without_profiler_lines(err) != bare[2]:
                raise prof.Fail(f'{what}: stderr differs from bare')
            if 'did not load the profiler' in err:
                raise prof.Fail(f'{what}: profrun blames the loader')
            if 'truncated or replaced while the program ran' not in err:
                raise prof.Fail(f'{what}: nothing says the spool was '
                                f'truncated')
    own_sigbus(sys.argv[2])


def own_sigbus(target):
    bare = prof.run([target])
    if bare.returncode != -signal.SIGBUS:
        raise prof.Fail(f'hostile_sigbus bare: exit {bare.returncode}')
    for opts in ([], ['--space-interval=1K']):
        spool = os.path.join(prof.tmpdir(), 'b.spool')
        r = prof.profrun(['-q', '-o', spool] + opts + ['--', target])
        print(f'hostile_sigbus {" ".join(opts)}: exit {r.returncode}')
        if r.returncode != 128 + signal.SIGBUS or r.stdout != bare.stdout:
            raise prof.Fail(f'hostile_sigbus {" ".join(opts)}: exit '
                            f'{r.returncode}, output {r.stdout!r}; bare: '
                            f'killed by SIGBUS, output {bare.stdout!r}')


prof.main(test)
