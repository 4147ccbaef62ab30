#!/usr/bin/env python3
"""The spool file: an existing FILE is kept as FILE.old, the new one has
mode 0600 whatever the umask, and a symlink planted at FILE is not followed.
Without -o, FILE is prof.spool in the current directory (and a second run
keeps the first one's as prof.spool.old).

usage: test_spool_file.py WORK_SPLIT
"""
import glob
import os
import stat
import stat
import sys

import prof

MAGIC = b'PRFSPOOL'


def run(target, spool):
    # umask 0: the mode must come from profrun, not from the umask.
    r = prof.profrun(['-q', '-o', spool, '--', target, '0.05'],
                     preexec_fn=lambda: os.umask(0))
    return r


def check_spool(spool):
    st = os.lstat(spool)
    if not stat.S_ISREG(st.st_mode):
        raise prof.Fail(f'{spool} is not a regular file')
    if stat.S_IMODE(st.st_mode) != 0o600:
        raise prof.Fail(f'{spool} has mode {stat.S_IMODE(st.st_mode):o}, '
                        'want 600')
    with open(spool, 'rb') as f:
        if f.read(len(MAGIC)) != MAGIC:
            raise prof.Fail(f'{spool} is not a spool')


def check_default_name(target):
    d = prof.tmpdir()
    spool = os.path.join(d, 'prof.spool')
    ids = []
    for n in (1, 2):
        r = prof.profrun(['-q', '--', target, '0.05'], cwd=d)
        if r.returncode != 0:
            raise prof.Fail(f'without -o, run {n}: exit {r.returncode}: '
                            f'{r.stderr}')
        left = sorted(os.listdir(d))
        want = ['prof.spool'] + (['prof.spool.old'] if n == 2 else [])
        if left != want:
            raise prof.Fail(f'without -o, run {n} left {left} in the current '
                            f'directory, want {want}')
        check_spool(spool)
        st = os.stat(spool)
        ids.append((st.st_ino, st.st_mtime_ns))
    old = os.stat(spool + '.old')
    if (old.st_ino, old.st_mtime_ns) != ids[0]:
        raise prof.Fail('prof.spool.old is not the first run\'s spool')
    print('without -o: ./prof.spool, then the first kept as prof.spool.old')


def test():
    target = sys.argv[1]
    check_default_name(os.path.abspath(target))
    d = prof.tmpdir()

    spool = os.path.join(d, 'prof.spool')
    with open(spool, 'w') as f:
        f.write('previous run\n')
    r = run(target, spool)
    if r.returncode != 0:
        raise prof.Fail(f'exit {r.returncode}: {r.stderr}')
    check_spool(spool)
    with open(spool + '.old') as f:
        if f.read() != 'previous run\n':
            raise prof.Fail(f'{spool}.old does not hold the previous file')
    print('existing file kept as .old; new spool mode 600')

    victim = os.path.join(d, 'victim')
    with open(victim, 'w') as f:
        f.write('not yours\n')
    link = os.path.join(d, 'link.spool')
    os.symlink(victim, link)
    r = run(target, link)
    with open(victim) as f:
        if f.read() != 'not yours\n':
            raise prof.Fail('profrun wrote through a symlink at -o FILE')
    if r.returncode == 0:
        check_spool(link)
        print('symlink at FILE not followed; spool written in its place')
    else:
        print(f'symlink at FILE refused: {prof.one_line(r.stderr, "link")}')

    check_not_regular(target, d)


def check_not_regular(target, d):
    """-o naming a directory, a FIFO or a device is refused before the
    program runs, with one line, and the thing is left where it was:
    profrun once renamed a directory to DIR.old (and, as root, /dev/null
    to /dev/null.old) to put its spool in its place."""
    dirname = os.path.join(d, 'adir')
    os.mkdir(dirname)
    fifo = os.path.join(d, 'afifo')
    os.mkfifo(fifo)
    cases = [(dirname, 'is a directory'), (fifo, 'not a regular file')]
    # A character device of our own (a regression must not rename the
    # system's /dev/null away): /dev/null's numbers, where mknod is
    # allowed (root); else /dev/null itself, which a user cannot rename.
    dev = os.path.join(d, 'anull')
    try:
        os.mknod(dev, 0o600 | stat.S_IFCHR, os.makedev(1, 3))
    except PermissionError:
        dev = '/dev/null'
    cases.append((dev, 'not a regular file'))
    for path, what in cases:
        before = os.lstat(path)
        r = run(target, path)
        line = prof.one_line(r.stderr, path)
        after = os.lstat(path)
        print(f'-o {path}: exit {r.returncode}: {line}')
        if r.returncode != 2 or what not in line or path not in line:
            raise prof.Fail(f'-o {path}: want exit 2 and "{what}", got '
                            f'{r.returncode}: {r.stderr}')
        if (before.st_ino, before.st_mode) != (after.st_ino, after.st_mode):
            raise prof.Fail(f'-o {path}: it was replaced')
        if os.path.exists(path + '.old') or glob.glob(path + '.*.tmp'):
            raise prof.Fail(f'-o {path}: left {path}.old or a .tmp')


prof.main(test)
