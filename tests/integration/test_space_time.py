#!/usr/bin/env python3
"""Time samples that come while the space sampler records an allocation
(or the release of a sampled block) on the same thread are time spent in
the program's call to malloc or free: they are counted, with the
allocation's stack, not dropped as "reentrant" (issue #31, item 13).

space_bench (malloc/free pairs only) at --space-interval=4096 spends
most of its time recording allocation samples; before the fix a quarter
of its time samples were dropped as reentrant (86 of 356 in a 0.4 s run)
and the report covered 0.69 of the CPU time.

- dropped.reentrant <= 1 % of the samples taken. What may still drop is
  a sample landing on another record's push (a thread's or a module's:
  a handful per run), against several hundred before the fix.
- sampled_seconds, the CPU time the samples stand for, is at least 0.9
  of the CPU time the source samples, read from the spool's FOOTER (user
  time for the user-mode perf source, user + system otherwise; profrun's
  own time, which getrusage of the children would add, is not in it),
  and at most 1.02 of the user + system time, plus 2 periods. Not a
  statistical bound: each sample's weight is the CPU time of the period
  that ended (perf: the period it was armed with; posix: the period
  times the overruns), so the sum misses only what comes before the
  timer is armed and after it is stopped, and the last period (a few ms
  of a run of about a second). The footer's user time is the kernel's
  tick-based share of the total (about 2 % expected error here, where a
  tenth of the time is system time): 0.9 is five of those below what
  the fixed library delivers (1.0 to 1.02 of it), and leaves room for
  samples dropped for other causes (counted, printed). The upper bound
  is against user + system, which the kernel measures exactly: time
  counted twice (a deferred weight stored and also taken again) would
  pass it.

usage: test_space_time.py SPACE_BENCH
"""
import struct
import sys

import prof

FOOTER = 6  # profspool(5): u64 end_mono_ns, utime_ns, stime_ns, ...

PAIRS = '80'  # millions of malloc/free pairs: about a second of CPU here
LOW, HIGH = 0.9, 1.02


def footer_cpu(spool, user_only):
    """The user (user_only) or user + system CPU seconds of the image, from
    the last FOOTER of spool."""
    footers = [d for t, d in prof.spool_records(spool) if t == FOOTER]
    if not footers:
        raise prof.Fail(f'{spool}: no FOOTER')
    _, utime, stime = struct.unpack_from('<QQQ', footers[-1])
    return (utime + (0 if user_only else stime)) / 1e9


def test():
    p = prof.profile(sys.argv[1], args=[PAIRS],
                     opts=['--space-interval=4096'], timeout=240)
    r = p.report
    taken = prof.field(r, 'samples_taken')
    reentrant = r['dropped']['reentrant']
    user_only = prof.field(r, 'user_mode_only')
    cpu = footer_cpu(p.spool, user_only)
    total = footer_cpu(p.spool, False)
    sampled = prof.field(r, 'sampled_seconds')
    period = prof.field(r, 'period_ns') / 1e9
    print(f'timer {r["timer"]}: {taken} samples taken, {reentrant} dropped '
          f'as reentrant; dropped: {r["dropped"]}')
    print(f'sampled {sampled:.3f} s of {cpu:.3f} s of '
          f'{"user" if user_only else "user+system"} CPU '
          f'({sampled / cpu:.3f}; want >= {LOW}), of {total:.3f} s of '
          f'user+system ({sampled / total:.3f}; want <= {HIGH} + 2 '
          f'periods)')
    if taken < 5 * prof.MIN_SAMPLES:
        raise prof.Fail(f'only {taken} samples: the run is too short for '
                        f'a 1 % bound on the drops')
    if reentrant > 0.01 * taken:
        raise prof.Fail(f'{reentrant} of {taken} time samples dropped as '
                        f'reentrant (> 1 %): the time the space sampler '
                        f'runs is not counted')
    if sampled < LOW * cpu:
        raise prof.Fail(f'the samples stand for {sampled:.3f} s, under '
                        f'{LOW} x {cpu:.3f} s of CPU')
    if sampled > HIGH * total + 2 * period:
        raise prof.Fail(f'the samples stand for {sampled:.3f} s, over '
                        f'{HIGH} x {total:.3f} s of user+system CPU: time '
                        f'counted twice')


prof.main(test)
