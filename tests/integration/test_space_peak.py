#!/usr/bin/env python3
"""The peak view: space_peak's heap is largest when grow_site has built up
its blocks (which it then frees); later churn_site keeps the heap small
and tail_site keeps 1/8 of the peak to the end. What was live at the
estimated peak must be grow_site's and add up to its bytes (within 5 %);
at exit, in use, only tail_site's.

And the peak must be when the target built it: the estimated heap is
largest at the last sampled grow_site block, so peak_seconds (from the
spool's start_mono_ns) must fall between the moment all but the last 16
blocks were allocated and the moment all were, both CLOCK_MONOTONIC
times that space_peak prints. Each 64 KiB block is sampled at the 16 KiB
interval with probability 1 - exp(-4) = 0.98, so the chance that none
of the last 16 was, and the peak may rightly lie earlier, is 0.018^16,
about 1e-28; the bounds are event times, not durations, so a loaded
machine moves them together with the peak.

usage: test_space_peak.py SPACE_PEAK
"""
import struct
import sys

import prof
import space


def start_mono_ns(spool):
    """The PROCESS record's start_mono_ns (profspool(5): the 16-byte file
    header, then PROCESS, type 1, first, with start_mono_ns at offset 16
    of its payload)."""
    with open(spool, 'rb') as f:
        head = f.read(16 + 8 + 24)
    if len(head) < 48 or head[:8] != b'PRFSPOOL':
        raise prof.Fail(f'{spool}: not a spool')
    rtype, _ = struct.unpack_from('<II', head, 16)
    if rtype != 1:
        raise prof.Fail(f'{spool}: first record of type {rtype}, not PROCESS')
    return struct.unpack_from('<Q', head, 24 + 16)[0]


def check_peak_time(spool, peak_seconds, t):
    """The peak between peak_from_ns and peak_to_ns (see above). The JSON
    has nanoseconds (9 decimals); half of one is allowed for rounding."""
    if peak_seconds is None:
        raise prof.Fail('no peak time in the --peak view')
    start = start_mono_ns(spool)
    lo = (t['peak_from_ns'] - start) / 1e9
    hi = (t['peak_to_ns'] - start) / 1e9
    print(f'peak at {peak_seconds:.6f} s, built between {lo:.6f} and '
          f'{hi:.6f} s after the start')
    if not lo - 5e-10 <= peak_seconds <= hi + 5e-10:
        raise prof.Fail(f'peak at {peak_seconds:.6f} s, but space_peak '
                        f'built it between {lo:.6f} and {hi:.6f} s')


def test():
    p = prof.profile(sys.argv[1], opts=['--space-interval=16K'])
    t = space.truth(p.stdout)
    r = space.report(p.spool, 'peak')
    grow = prof.need_func(r, 'grow_site')
    space.check_total('peak', r['sampled_bytes'], r['sampled_bytes_error'],
                      t['grow_site'])
    if grow['self'] < 0.98 * r['sampled_bytes']:
        raise prof.Fail(f'grow_site has only {grow["self"]} of the '
                        f'{r["sampled_bytes"]} bytes live at the peak\n' +
                        prof.top(r, key='self'))
    if space.site_bytes(r, 'tail_site') or space.site_bytes(r, 'churn_site'):
        raise prof.Fail('blocks allocated after the peak are in it\n' +
                        prof.top(r, key='self'))
    check_peak_time(p.spool, r['peak_seconds'], t)
    u = space.report(p.spool, 'inuse')
    if space.site_bytes(u, 'grow_site'):
        raise prof.Fail('grow_site in use at exit: a free was lost')
    space.check_total('in use', space.site_bytes(u, 'tail_site'),
                      u['sampled_bytes_error'], t['grow_site'] // 8)


prof.main(test)
