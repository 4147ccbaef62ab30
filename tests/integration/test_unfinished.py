#!/usr/bin/env python3
"""profrun killed with SIGKILL while its program runs on (issue #31, item
14): the program writes its spool to the end under profrun's temporary
name, SPOOL.PID.0.tmp, which nobody renames. profanalyze SPOOL reads that
file, with one warning line that names it and says why, and finds the
rest of the process tree (SPOOL.CHILDPID, named as ever) from it.

usage: test_unfinished.py LIFECYCLE
"""
import os
import signal
import subprocess
import sys
import time

import prof


def alive(pid):
    """Whether pid runs (a zombie nobody reaps has ended)."""
    try:
        with open(f'/proc/{pid}/stat') as f:
            return f.read().rsplit(')', 1)[1].split()[0] != 'Z'
    except FileNotFoundError:
        return False


def child_of(pid, deadline):
    path = f'/proc/{pid}/task/{pid}/children'
    while time.monotonic() < deadline:
        with open(path) as f:
            kids = f.read().split()
        if kids:
            return int(kids[0])
        time.sleep(0.01)
    raise prof.Fail('profrun started no program')


def test():
    target = sys.argv[1]
    d = prof.tmpdir()
    spool = os.path.join(d, 'k.spool')
    deadline = time.monotonic() + 60
    run = subprocess.Popen([prof.profrun_path(), '-q', '-o', spool, '--',
                            target, 'tree', '2'], stdout=subprocess.DEVNULL,
                           start_new_session=True)
    program = child_of(run.pid, deadline)
    tmp = f'{spool}.{run.pid}.0.tmp'
    # Killed once the library has started writing there: a program that
    # finds profrun gone before its library starts is not profrun's
    # primary process, and writes SPOOL.PID.
    while os.path.getsize(tmp) == 0:
        if time.monotonic() > deadline:
            raise prof.Fail(f'{tmp} stayed empty')
        time.sleep(0.002)
    run.kill()
    run.wait()
    # The program runs on to its end (tree 2: it and two levels of
    # children), unaware of profrun's death.
    while alive(program):
        if time.monotonic() > deadline:
            os.kill(program, signal.SIGKILL)
            raise prof.Fail('the program did not end within 60 s')
        time.sleep(0.05)
    names = sorted(os.listdir(d))
    print(f'left: {names}')
    if os.path.exists(spool) or not os.path.exists(tmp):
        raise prof.Fail(f'want {tmp} and no {spool}: {names}')

    a, rep = prof.analyze(spool)
    want = (f'profanalyze: warning: {spool}: no such file; reading {tmp}, '
            f'the spool of a run whose profrun did not finish (killed?) '
            f'and never renamed it')
    print(f'stderr: {a.stderr.strip()}; {prof.field(rep, "samples")} '
          f'samples')
    if a.stderr.splitlines() != [want]:
        raise prof.Fail(f'stderr {a.stderr!r}, want the one line {want!r}')
    if prof.field(rep, 'samples') <= 0:
        raise prof.Fail('no samples read from the temporary spool')

    r = prof.run([prof.profanalyze_path(), '--processes', spool])
    print(r.stdout)
    if r.returncode != 0 or r.stderr.splitlines() != [want]:
        raise prof.Fail(f'--processes: exit {r.returncode}, stderr '
                        f'{r.stderr!r}')
    rows = [line.split() for line in r.stdout.splitlines()[1:]]
    # PID PPID SAMPLES ALLOCS CPU ENDED SPOOL COMMAND...: tree 2 is five
    # images (two levels of a fork, then an exec), the first in the
    # temporary spool, the others in SPOOL.PID[.N].
    if len(rows) != 5 or rows[0][6] != tmp or \
            not all(row[6].startswith(spool + '.') and
                    not row[6].endswith('.tmp') for row in rows[1:]):
        raise prof.Fail(f'--processes lists {rows}, want {tmp} and the '
                        f'four images after it')


prof.main(test)
