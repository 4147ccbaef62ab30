#!/usr/bin/env python3
"""A program killed by SIGKILL leaves a spool without footer: profanalyze
warns that the run is incomplete and still reports the samples written.

usage: test_killed.py EXIT_STATUS
"""
import os
import re
import signal
import sys

import prof


def test():
    spool = os.path.join(prof.tmpdir(), 'x.spool')
    r = prof.profrun(['-q', '-o', spool, '--', sys.argv[1], '-w', '1',
                      'signal', str(int(signal.SIGKILL))])
    if r.returncode != 128 + signal.SIGKILL:
        raise prof.Fail(f'exit {r.returncode}, want {128 + signal.SIGKILL}')
    a, report = prof.analyze(spool)
    print(f'warning: {a.stderr.strip()}; {report.get("samples")} samples, '
          f'complete {report.get("complete")}')
    if prof.field(report, 'complete') is not False:
        raise prof.Fail('report of a killed run says complete')
    if not re.search(r'footer|incomplete|killed|truncat', a.stderr, re.I):
        raise prof.Fail(f'no warning about the missing footer: '
                        f'{a.stderr!r}')
    if prof.field(report, 'samples') <= 0:
        raise prof.Fail('no samples from 0.5 s of work before the kill')
    flat, _ = prof.analyze(spool, args=())
    if not flat.stdout.strip():
        raise prof.Fail('empty flat report')


prof.main(test)
