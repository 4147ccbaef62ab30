#!/usr/bin/env python3
"""Libraries the user already has in LD_PRELOAD stay there: profrun adds
its own rather than replacing them, and profiling still works.

usage: test_ld_preload.py WORK_SPLIT PRELOAD_MARKER_LIB
"""
import sys

import prof

MARKER = 'profrun-test: preload marker loaded'


def test():
    target, lib = sys.argv[1], sys.argv[2]
    p = prof.profile(target, args=['0.1'], env={'LD_PRELOAD': lib})
    print(f'stderr: {p.stderr.strip()}; {p.report.get("samples")} samples')
    if MARKER not in p.stderr:
        raise prof.Fail(f'the user\'s LD_PRELOAD library was not loaded:\n'
                        f'{p.stderr}')
    if prof.field(p.report, 'samples') <= 0:
        raise prof.Fail('no samples: the profiler was not loaded')


prof.main(test)
