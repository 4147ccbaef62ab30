#!/usr/bin/env python3
"""At 10 kHz, nothing the profiler runs in its signal handler calls malloc,
free, calloc, realloc or dl_iterate_phdr: nomalloc_check interposes them
and counts the calls made while a profiling signal is being handled.

Blind spots (what this test cannot see):
- Locks and stdio: a handler that takes a mutex, waits on a futex or
  calls printf passes. Rule 1's "no lock, no stdio" rests on review and on
  test_dlopen_stress's deadlock run.
- Other allocation entry points: posix_memalign, aligned_alloc, memalign,
  valloc, pvalloc, mmap and glibc's __libc_malloc called directly.
- What counts as "in the handler": a call is counted only while a
  sampling signal (SIGPROF, SIGVTALRM or a real-time signal) is blocked on
  one of the program's own threads, between its start of work and its end
  (checked_thread). A handler that unblocked its signal before calling
  malloc, the profiler's own threads (writer, poller), and the start-up
  and exit paths are not checked. The violation is also only seen when a
  sample happens to run the bad path: the handler runs about 500 times
  per timer limited by the kernel's tick (posix, itimer) at scale 0.1 and
  3,000 at 0.5 (perf: 75,000 and 370,000), so a call on every sample
  cannot be missed; one on a rare path (a ring full, a module not yet
  known) can, and is likelier seen in the long run.

Two variants: scale 0.1 (preload-nomalloc, suite preload: about 2 s of
CPU per timer) and scale 0.5 (preload-nomalloc-long, suite slow only:
about 10 s of CPU per timer, and perf's run at 10 kHz several times that).

usage: test_nomalloc.py NOMALLOC_CHECK [SCALE]
"""
import sys

import prof


def test():
    target = sys.argv[1]
    scale = sys.argv[2] if len(sys.argv) > 2 else '0.5'

    def one(timer):
        p = prof.profile(target, args=[scale],
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
