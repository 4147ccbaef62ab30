#!/usr/bin/env python3
"""SIGKILL at any moment loses no record a thread finished before the
kill. killrec's three threads each allocate in a loop and, after each
allocation returned, write a byte of their own to a pipe; with
--space-interval=1 every allocation is sampled, so each byte read from the
pipe stands for a sampled allocation (an ALLOCS entry, as the library
writes them, or an ALLOC record) that must be in the spool. The main thread
spins under 10 kHz time sampling meanwhile. The whole run is killed with
SIGKILL at a random moment (0 to 0.5 s after the first allocation), eight
times; each time the spool (read here by
an independent reader of profspool(5) format 2, and by profanalyze) must
hold, for each thread, at least the allocations the pipe counted and at
most one more (the one whose byte was not written yet), and nothing that
does not read.

usage: test_kill_records.py KILLREC
"""
import os
import random
import signal
import subprocess
import sys
import time

import prof

THREADS = 3


def read_spool(path):
    """Counts sampled allocations by size, and all records."""
    sizes = {}
    for ev in prof.space_events(path, strict=True):
        if ev[0] == 'alloc':
            sizes[ev[2]] = sizes.get(ev[2], 0) + 1
    records = sum(1 for _ in prof.spool_records(path, strict=True))
    return sizes, records


def one_run(target, spool, delay):
    r, w = os.pipe()
    p = subprocess.Popen([prof.profrun_path(), '-q', '-o', spool,
                          '--space-interval=1', '-F', '10000', '--',
                          target, str(w), str(THREADS)],
                         pass_fds=(w,), start_new_session=True,
                         stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE)
    os.close(w)
    counts = [0] * THREADS
    # The delay runs from the first allocation the pipe tells of: on a
    # loaded machine the start-up alone can take longer than the delay.
    end = None
    os.set_blocking(r, False)
    killed = False
    while True:
        if end is None and sum(counts):
            end = time.monotonic() + delay
        if not killed and end is not None and time.monotonic() >= end:
            # The target, profrun's child: profrun lives on to put the
            # spool in place, as it does for a target killed by anyone.
            with open(f'/proc/{p.pid}/task/{p.pid}/children') as f:
                target_pid = int(f.read().split()[0])
            os.kill(target_pid, signal.SIGKILL)
            killed = True
        try:
            chunk = os.read(r, 65536)
        except BlockingIOError:
            time.sleep(0.001)
            continue
        if not chunk:
            break  # every writer is gone
        for i in range(THREADS):
            counts[i] += chunk.count(ord('a') + i)
    os.close(r)
    _, err = p.communicate(timeout=30)
    return counts, err.decode(errors='replace')


def test():
    target = sys.argv[1]
    rng = random.Random(os.getpid())
    total = 0
    for run in range(8):
        spool = os.path.join(prof.tmpdir(), f'k{run}.spool')
        delay = rng.uniform(0.0, 0.5)
        piped, err = one_run(target, spool, delay)
        sizes, records = read_spool(spool)
        disk = [sizes.get(100 + i, 0) for i in range(THREADS)]
        print(f'kill after {delay:.3f} s: pipe {piped}, spool {disk}, '
              f'{records} records')
        total += sum(piped)
        for i in range(THREADS):
            if not piped[i] <= disk[i] <= piped[i] + 1:
                raise prof.Fail(f'thread {i}: {piped[i]} allocations '
                                f'returned, {disk[i]} sampled in the '
                                f'spool\nstderr: {err}')
        a, report = prof.analyze(spool)
        if prof.field(report, 'complete') is not False:
            raise prof.Fail('the report of a killed run says complete')
        if 'corrupt' in a.stderr or 'malformed' in a.stderr:
            raise prof.Fail(f'profanalyze: {a.stderr.strip()}')
    # Thousands of records per run, so that kills land in the middle of
    # writing one; fewer in all means the runs tested little.
    if total < 1000:
        raise prof.Fail(f'only {total} allocations before the kills: too '
                        'few to test anything')


prof.main(test)
