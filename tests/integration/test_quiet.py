#!/usr/bin/env python3
"""profrun -q prints nothing; without it, profrun prints one summary line
on stderr: "profrun: SPOOL: N samples, N threads, N dropped", with the
numbers of the spool (as profanalyze reads them) and the singular for 1
("1 thread").

usage: test_quiet.py WORK_SPLIT THREADS
"""
import os
import re
import sys

import prof

SUMMARY = re.compile(r'profrun: (?P<spool>.+): (?P<samples>\d+) '
                     r'(?P<s_word>samples?), (?P<threads>\d+) '
                     r'(?P<t_word>threads?), (?P<dropped>\d+) dropped')


def plural(n, word):
    return word if n == 1 else word + 's'


def check_summary(target, spool, threads):
    r = prof.profrun(['--no-space', '-o', spool, '--', target, '0.1'])
    if r.returncode != 0:
        raise prof.Fail(f'exit {r.returncode}: {r.stderr}')
    line = prof.one_line(r.stderr, 'summary')
    print(f'summary: {line}')
    m = SUMMARY.fullmatch(line)
    if not m:
        raise prof.Fail(f'summary is not "profrun: SPOOL: N samples, N '
                        f'threads, N dropped": {line!r}')
    _, report = prof.analyze(spool)
    samples = prof.field(report, 'samples')
    dropped = sum(prof.field(report, 'dropped').values())
    want = {'spool': spool, 'samples': str(samples),
            's_word': plural(samples, 'sample'), 'threads': str(threads),
            't_word': plural(threads, 'thread'), 'dropped': str(dropped)}
    wrong = {k: (m.group(k), v) for k, v in want.items() if m.group(k) != v}
    if wrong:
        raise prof.Fail(f'summary {line!r}: (got, want) {wrong}')


def test():
    work_split, threads = sys.argv[1], sys.argv[2]
    d = prof.tmpdir()
    spool = os.path.join(d, 'quiet.spool')
    r = prof.profrun(['-q', '-o', spool, '--', work_split, '0.1'])
    if r.returncode != 0 or r.stderr or r.stdout:
        raise prof.Fail(f'-q: exit {r.returncode}, stdout {r.stdout!r}, '
                        f'stderr {r.stderr!r}')
    check_summary(work_split, os.path.join(d, 'one.spool'), 1)
    check_summary(threads, os.path.join(d, 'five.spool'), 5)


prof.main(test)
