#!/usr/bin/env python3
"""At -F 1000 with the perf timer, nearly every period of CPU time yields a
sample: samples >= 0.9 x cpu_seconds x 1000. A correctness property of the
sampler (signals are not lost or coalesced), with a loose bound since
cpu_seconds also counts start-up and the profiler's own writer thread.

usage: test_samples_delivered.py WORK_SPLIT
"""
import sys

import prof

HZ = 1000


def test():
    try:
        p = prof.profile(sys.argv[1], opts=['-F', str(HZ), '--timer=perf'])
    except prof.TimerUnavailable as e:
        raise prof.Skip(f'perf timer unavailable: {e}')
    r = p.report
    if prof.field(r, 'requested_hz') != HZ:
        raise prof.Fail(f'requested_hz {r["requested_hz"]}, want {HZ}')
    cpu = prof.field(r, 'cpu_seconds')
    if cpu is None:
        raise prof.Fail('cpu_seconds is null: the spool has no footer')
    samples = prof.field(r, 'samples')
    want = 0.9 * cpu * HZ
    print(f'{samples} samples for {cpu:.3f} s of CPU at {HZ} Hz '
          f'(want >= {want:.0f}); dropped {r.get("dropped")}')
    if samples < want:
        raise prof.Fail(f'{samples} samples < {want:.0f} = 0.9 x {cpu:.3f} '
                        f's x {HZ} Hz')


prof.main(test)
