#!/usr/bin/env python3
"""At 10 kHz, nothing the profiler runs in its signal handler calls malloc,
free, calloc, realloc or dl_iterate_phdr: nomalloc_check interposes them
and counts the calls made while a profiling signal is being handled.

usage: test_nomalloc.py NOMALLOC_CHECK
"""
import sys

import prof


def test():
    target = sys.argv[1]

    def one(timer):
        p = prof.profile(target, args=['0.5'],
                         opts=['-F', '10000', f'--timer={timer}'],
                         expect_rc=None, timeout=240)
        print(f'{timer}: {p.stdout.strip()}')
        if p.rc == 4:
            raise prof.Fail(f'{timer}: the interposition did not work: '
                            f'{p.stderr.strip()}')
        if p.rc != 0 or 'violations=0 ' not in p.stdout:
            raise prof.Fail(f'{timer}: exit {p.rc}: calls from the signal '
                            f'handler: {p.stdout.strip()}')
        if prof.field(p.report, 'samples') < prof.MIN_SAMPLES:
            raise prof.Fail(f'{timer}: only {p.report["samples"]} samples: '
                            'the handler barely ran')

    prof.for_each_timer(one)


prof.main(test)
