#!/usr/bin/env python3
"""--max-size stops sampling rather than fill a disk: a loop of small
malloc/free pairs with every allocation of 64 bytes sampled writes far
more than 256 KiB of sampled allocations and releases; with --max-size=256K the
spool stays within 256 KiB, the program's output and exit status are
its own, stderr says once that sampling stopped (naming the spool by
its final name), and profanalyze reads
the spool whole (footer included) and says when the limit was reached.
A size below the 256 KiB minimum is refused before the program runs.

usage: test_max_size.py SPACE_BENCH
"""
import os
import sys

import prof

LIMIT = 256 * 1024


def test():
    target = sys.argv[1]
    bare = prof.run([target, '2'])
    d = prof.tmpdir()
    spool = os.path.join(d, 'x.spool')
    r = prof.profrun(['-o', spool, '--no-time', '--space-interval=64',
                      '--max-size=256K', '--', target, '2'])
    print(r.stderr.strip())
    if (r.returncode, r.stdout) != (bare.returncode, bare.stdout):
        raise prof.Fail(f'the program ended differently under --max-size: '
                        f'exit {r.returncode}, want {bare.returncode}')
    lines = [l for l in r.stderr.splitlines() if 'size limit' in l]
    if len(lines) != 1 or '262144 bytes' not in lines[0]:
        raise prof.Fail(f'want one line on stderr naming the size limit, '
                        f'got {lines}')
    # The line names the spool the user will find, not the temporary
    # file profrun renames into place when the program has ended.
    named = f'profrun: {os.path.abspath(spool)}: the spool reached'
    if not lines[0].startswith(named):
        raise prof.Fail(f'the line does not name the spool {spool}: '
                        f'{lines[0]}')
    size = os.path.getsize(spool)
    print(f'spool: {size} bytes')
    if size > LIMIT:
        raise prof.Fail(f'the spool has {size} bytes, over the limit {LIMIT}')
    a, rep = prof.analyze(spool)
    if not prof.field(rep, 'complete'):
        raise prof.Fail('the spool has no footer')
    if prof.field(rep, 'max_size_bytes') != LIMIT:
        raise prof.Fail(f'max_size_bytes {rep["max_size_bytes"]}')
    at = prof.field(rep, 'max_size_reached_seconds')
    if at is None:
        raise prof.Fail('the report does not say when the limit was reached')
    # The limit stopped sampling: no more allocations were sampled than
    # ALLOCS entries (7 bytes at least: a byte for each of key, time,
    # address, size, weight, fn and flags) fit in the limit, against
    # over a million that 2 million pairs of 16 to 256 bytes, one sample
    # per 64 bytes, would give without it.
    taken = prof.field(rep, 'samples_taken')
    print(f'limit reached at {at} s; {taken} allocations sampled')
    if not 0 < taken <= LIMIT // 7:
        raise prof.Fail(f'{taken} allocations sampled: the limit did not '
                        f'stop sampling')
    t, _ = prof.analyze(spool, args=('--flat',))
    if 'reached its size limit (--max-size=262144 bytes)' not in t.stdout:
        raise prof.Fail('the text report does not name the size limit')
    small = prof.profrun(['-o', os.path.join(d, 'y.spool'),
                          '--max-size=100K', '--', target, '0.1'])
    if small.returncode != 2 or '--max-size=100K' not in small.stderr:
        raise prof.Fail(f'--max-size=100K: exit {small.returncode}, '
                        f'{small.stderr.strip()}')


prof.main(test)
