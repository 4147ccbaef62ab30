#!/usr/bin/env python3
"""--max-size stops sampling rather than fill a disk: a loop of small
malloc/free pairs with every allocation of 64 bytes sampled writes far
more than 256 KiB of sampled allocations and releases; with --max-size=256K the
spool's records stay within 256 KiB (the file, in chunks of 64 KiB, within
a chunk more), the program's output and exit status are
its own, stderr says once that sampling stopped (naming the spool by
its final name), and profanalyze reads
the spool whole (footer included) and says when the limit was reached.
A size below the 256 KiB minimum is refused before the program runs.

Four threads that allocate at once (space_threads) each write to a chunk
of their own: the limit counts the bytes written, not the chunks taken,
so they sample until their records come near 256 KiB (issue #31, item
11: it stopped them 0.001 s after the start, with no time sample).

usage: test_max_size.py SPACE_BENCH SPACE_THREADS
"""
import os
import sys

import prof

LIMIT = 256 * 1024
CHUNK = 64 * 1024


def record_bytes(spool):
    """Bytes of the spool's file header and whole records."""
    return 16 + sum(8 + len(p) for _, p in prof.spool_records(spool))


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
    size, written = os.path.getsize(spool), record_bytes(spool)
    print(f'spool: {size} bytes, {written} of them records')
    if written > LIMIT:
        raise prof.Fail(f'the spool has {written} bytes of records, over '
                        f'the limit {LIMIT}')
    # One thread: beyond its records, the room left at the end of the
    # chunk it was filling, and of those before (less than a record).
    if size > LIMIT + CHUNK:
        raise prof.Fail(f'the spool has {size} bytes, over the limit '
                        f'{LIMIT} by more than a chunk')
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
    threads(sys.argv[2], d)
    small = prof.profrun(['-o', os.path.join(d, 'y.spool'),
                          '--max-size=100K', '--', target, '0.1'])
    if small.returncode != 2 or '--max-size=100K' not in small.stderr:
        raise prof.Fail(f'--max-size=100K: exit {small.returncode}, '
                        f'{small.stderr.strip()}')


def threads(target, d):
    """Four threads allocating, sampled in time and space, stop at the
    limit with their records near it, time samples among them."""
    spool = os.path.join(d, 't.spool')
    r = prof.profrun(['-q', '-o', spool, '-F', '10000',
                      '--space-interval=64K', '--max-size=256K', '--',
                      target, '0.5', '100'])
    if r.returncode != 0:
        raise prof.Fail(f'space_threads: exit {r.returncode}\n{r.stderr}')
    written = record_bytes(spool)
    _, rep = prof.analyze(spool)
    taken, at = prof.field(rep, 'samples_taken'), rep['max_size_reached_seconds']
    print(f'4 threads: {written} bytes of records, {taken} time samples, '
          f'limit reached at {at} s')
    if at is None:
        raise prof.Fail('4 threads: the limit was not reached')
    # The first record refused took the count past LIMIT less the room
    # kept for the footer (512 bytes); no record is 16 KiB (a stack of
    # 128 frames is under 2 KiB, the vdso's image under 10 KiB).
    if not LIMIT - 16 * 1024 <= written <= LIMIT:
        raise prof.Fail(f'4 threads: {written} bytes of records when the '
                        f'limit stopped sampling, want near {LIMIT}')
    if taken == 0:
        raise prof.Fail('4 threads: no time sample before the limit')


prof.main(test)
