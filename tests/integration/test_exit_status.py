#!/usr/bin/env python3
"""profrun exits with the program's status: exit(7) gives 7, death by
SIGTERM 128+15 and by a real SIGSEGV 128+11; the spool of a crashed program
is still there and readable.

usage: test_exit_status.py EXIT_STATUS
"""
import os
import signal
import sys

import prof

CASES = [
    (['exit', '0'], 0),
    (['exit', '7'], 7),
    (['exit', '255'], 255),
    (['signal', str(int(signal.SIGTERM))], 128 + signal.SIGTERM),
    # The sampling signal itself, sent by the program with the default
    # disposition: it must die of it as without the profiler.
    (['signal', str(int(signal.SIGPROF))], 128 + signal.SIGPROF),
    (['-w', '0.4', 'segv'], 128 + signal.SIGSEGV),
]


def test():
    target = sys.argv[1]
    for args, want in CASES:
        spool = os.path.join(prof.tmpdir(), 'x.spool')
        r = prof.profrun(['-q', '-o', spool, '--', target] + args)
        print(f'{" ".join(args)}: exit {r.returncode}, want {want}')
        if r.returncode != want:
            raise prof.Fail(f'{" ".join(args)}: profrun exit '
                            f'{r.returncode}, want {want}\n{r.stderr}')
        if not os.path.isfile(spool):
            raise prof.Fail(f'{" ".join(args)}: no spool left')
        _, report = prof.analyze(spool)
        print(f'  spool readable: {report.get("samples")} samples, '
              f'complete {report.get("complete")}')
        if args[-1] == 'segv' and prof.field(report, 'samples') == 0:
            raise prof.Fail('crashed after 0.2 s of work with no sample')


prof.main(test)
