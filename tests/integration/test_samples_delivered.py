#!/usr/bin/env python3
"""The perf source delivers the rate asked for, as a count of samples per
CPU-second (never a timing: the work is CPU time, and a loaded machine
stretches the wall time, not the count).

- At -F 1000 nearly every period of CPU time yields a sample: samples >=
  0.9 x cpu_seconds x 1000. A correctness property of the sampler (signals
  are not lost or coalesced), with a loose bound since cpu_seconds also
  counts start-up and system time, which the user-mode counter does not
  sample.
- At -F 10000, samples >= 0.25 x cpu_seconds x 10000. Loose on purpose:
  at 10 kHz the signal delivery and the handler's system calls add system
  time that cpu_seconds counts and the user-mode counter does not (about
  20 % here), and a loaded 2-core CI machine adds more. What it must catch
  is a silent fall-back to a source driven by the kernel tick (posix,
  itimer: 250 Hz here, 0.025 of the rate asked) or one capped anywhere
  near 1 kHz (0.1), which still report timer "perf" or a plausible
  profile.

usage: test_samples_delivered.py WORK_SPLIT
"""
import sys

import prof

# (rate, the least share of cpu_seconds x rate that must be delivered)
RATES = [(1000, 0.9), (10000, 0.25)]


def check(target, hz, share):
    try:
        p = prof.profile(target, opts=['-F', str(hz), '--timer=perf'])
    except prof.TimerUnavailable as e:
        raise prof.Skip(f'perf timer unavailable: {e}')
    r = p.report
    if prof.field(r, 'requested_hz') != hz:
        raise prof.Fail(f'requested_hz {r["requested_hz"]}, want {hz}')
    if prof.field(r, 'timer') != 'perf':
        raise prof.Fail(f'--timer=perf ran with the {r["timer"]} timer')
    cpu = prof.field(r, 'cpu_seconds')
    if cpu is None:
        raise prof.Fail('cpu_seconds is null: the spool has no footer')
    samples = prof.field(r, 'samples')
    want = share * cpu * hz
    print(f'-F {hz}: {samples} samples for {cpu:.3f} s of CPU '
          f'({samples / cpu:.0f} per CPU-second; want >= {want:.0f}); '
          f'dropped {r.get("dropped")}')
    if samples < want:
        raise prof.Fail(f'-F {hz}: {samples} samples < {want:.0f} = {share} '
                        f'x {cpu:.3f} s x {hz} Hz')


def test():
    for hz, share in RATES:
        check(sys.argv[1], hz, share)


prof.main(test)
