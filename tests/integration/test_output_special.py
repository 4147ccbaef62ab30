#!/usr/bin/env python3
"""profanalyze -o onto something that is not a regular file: a character
device (/dev/null) and a FIFO are written to as they are and stay what
they were; a directory is refused with one line naming it and is left
alone (not renamed away, no temporary file beside it). A symbolic link to
a regular file stays a link; the file it names gets the report.

usage: test_output_special.py MKSPOOL
"""
import os
import stat
import sys
import threading

import prof


def spool(d):
    desc = os.path.join(os.environ['PROFRUN_SOURCE_ROOT'], 'tests', 'golden',
                        'calls.desc')
    path = os.path.join(d, 'calls.spool')
    r = prof.run([sys.argv[1], desc, path])
    if r.returncode != 0:
        raise prof.Fail(f'mkspool: {r.stderr}')
    return path


def analyze(args, want_rc):
    r = prof.run([prof.profanalyze_path()] + args, timeout=30)
    print(f'{" ".join(args)}: exit {r.returncode}: {r.stderr.strip()}')
    if r.returncode != want_rc:
        raise prof.Fail(f'{args}: exit {r.returncode}, want {want_rc}')
    return r


def kind(path):
    st = os.lstat(path)
    return stat.S_IFMT(st.st_mode), st.st_rdev, st.st_ino


def device(sp, report):
    # A null device of our own where mknod is allowed (root), so that a
    # regression cannot replace the system's /dev/null; else /dev/null,
    # which a user cannot rename.
    d = prof.tmpdir()
    dev = os.path.join(d, 'null')
    try:
        os.mknod(dev, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    except PermissionError:
        dev = '/dev/null'
    before = kind(dev)
    r = analyze(['-o', dev, sp], 0)
    if r.stdout or r.stderr:
        raise prof.Fail(f'-o {dev} printed something: {r}')
    if kind(dev) != before:
        raise prof.Fail(f'{dev} is no longer the device it was')
    where = os.path.dirname(dev)
    if [n for n in os.listdir(where) if n.startswith('null.')]:
        raise prof.Fail(f'a temporary file was left in {where}')


def fifo(d, sp, report):
    path = os.path.join(d, 'out.fifo')
    os.mkfifo(path)
    got = []

    def reader():
        with open(path, 'r') as f:
            got.append(f.read())
    t = threading.Thread(target=reader, daemon=True)
    t.start()
    analyze(['-o', path, sp], 0)
    t.join(30)
    if not got:
        raise prof.Fail('the reader of the FIFO got nothing (replaced?)')
    if got[0] != report:
        raise prof.Fail(f'the FIFO carried another report:\n{got[0]}')
    if not stat.S_ISFIFO(os.lstat(path).st_mode):
        raise prof.Fail(f'{path} is no longer a FIFO')


def directory(d, sp):
    path = os.path.join(d, 'outdir')
    os.mkdir(path)
    before = kind(path)
    r = analyze(['-o', path, sp], 1)
    line = prof.one_line(r.stderr, 'profanalyze')
    if not line.endswith(f'{path}: is a directory'):
        raise prof.Fail(f'error does not name the directory: {line}')
    if kind(path) != before or os.listdir(path):
        raise prof.Fail(f'{path} was changed')
    left = [n for n in os.listdir(d) if n.startswith('outdir.')]
    if left:
        raise prof.Fail(f'files left beside it: {left}')


def symlink(d, sp, report):
    target = os.path.join(d, 'target.txt')
    link = os.path.join(d, 'link.txt')
    with open(target, 'w') as f:
        f.write('old\n')
    os.symlink(target, link)
    analyze(['-o', link, sp], 0)
    if not os.path.islink(link):
        raise prof.Fail(f'{link} was replaced by a file')
    with open(target) as f:
        if f.read() != report:
            raise prof.Fail(f'{target} did not get the report')


def test():
    d = prof.tmpdir()
    sp = spool(d)
    report = analyze([sp], 0).stdout
    device(sp, report)
    fifo(d, sp, report)
    directory(d, sp)
    symlink(d, sp, report)


prof.main(test)
