#!/usr/bin/env python3
"""Memory a program maps itself is not in the space profile, and the
header says so: with 96 MiB taken by mmap and a little by malloc, a
"Not seen:" line gives the process's anonymous memory beyond the heap;
with the same 96 MiB through malloc the profile sees it and no such line
is printed.

usage: test_space_unseen.py MMAP_HEAP
"""
import sys

import prof


def header(target, mode):
    p = prof.profile(target, [mode], ['--no-time'])
    text = prof.run([prof.profanalyze_path(), '--space', p.spool]).stdout
    lines = [l for l in text.splitlines() if l.startswith('Not seen:')]
    print(f'{mode}: {lines}')
    return lines


def test():
    target = sys.argv[1]
    lines = header(target, 'mmap')
    if len(lines) != 1 or 'mmap' not in lines[0]:
        raise prof.Fail('mmap: no "Not seen:" line for 96 MiB mapped '
                        'directly')
    mb = float(lines[0].split('about ')[1].split(' Mbytes')[0])
    if not 90 <= mb <= 200:
        raise prof.Fail(f'mmap: {mb} Mbytes of anonymous memory, want '
                        f'about 96 and more')
    if header(target, 'malloc'):
        raise prof.Fail('malloc: "Not seen:" for memory the profile saw')


prof.main(test)
