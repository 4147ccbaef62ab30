#!/usr/bin/env python3
"""A full disk is a warning, not a crash: with the spool on a 100 KiB
tmpfs and samples at 10 kHz, the program runs on with its own output and
exit status, profrun says in words that records are dropped, installs a
spool that profanalyze reads, and the report counts the lost samples
(write-failed). A chunk whose reservation failed once left a hole in the
file, and a hole in a full tmpfs raises SIGBUS in whoever maps it:
profrun died reading the spool back, and profanalyze with it.

The small file system is made in a mount namespace of the test's own
(unshare -m as root, unshare -rm otherwise); where neither is allowed
the test cannot make a full disk and says so.

usage: test_full_disk.py WORK_SPLIT
"""
import os
import shlex
import subprocess
import sys

import prof


def unshare_prefix():
    for pre in (['unshare', '-m'], ['unshare', '-rm']):
        try:
            r = subprocess.run(pre + ['true'], capture_output=True)
        except FileNotFoundError:
            raise prof.Skip('no unshare(1)')
        if r.returncode == 0:
            return pre
    raise prof.Skip('no mount namespace allowed here: cannot make a full '
                    'file system')


def test():
    target = sys.argv[1]
    bare = prof.run([target, '1'])
    d = prof.tmpdir()
    mnt = os.path.join(d, 'tiny')
    os.mkdir(mnt)
    spool = os.path.join(mnt, 'x.spool')
    script = (f'mount -t tmpfs -o size=100k tmpfs {shlex.quote(mnt)} && '
              f'{shlex.quote(prof.profrun_path())} -o {shlex.quote(spool)} '
              f'-F 10000 -- {shlex.quote(target)} 1; rc=$?; '
              f'cp {shlex.quote(spool)} {shlex.quote(d)}/copy.spool; '
              f'exit $rc')
    r = prof.run(unshare_prefix() + ['sh', '-c', script])
    print(f'bare exit {bare.returncode}; profiled exit {r.returncode}')
    print(r.stderr.strip())
    if r.returncode != bare.returncode or r.stdout != bare.stdout:
        raise prof.Fail(f'the program (or profrun) ended differently on a '
                        f'full disk: exit {r.returncode}')
    if 'no space left' not in r.stderr:
        raise prof.Fail('no warning in words about the full disk')
    copy = os.path.join(d, 'copy.spool')
    if not os.path.exists(copy):
        raise prof.Fail('no spool was installed')
    a, rep = prof.analyze(copy)
    lost = prof.field(prof.field(rep, 'dropped'), 'write-failed')
    print(f'{prof.field(rep, "samples")} samples, {lost} write-failed')
    if not lost:
        raise prof.Fail('the report counts no samples lost to the full disk')


prof.main(test)
