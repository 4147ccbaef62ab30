#!/usr/bin/env python3
"""space_split (60/30/10 % of the bytes in blocks of 64 bytes, 256 KiB
and 4 MiB) with jemalloc as the allocator, preloaded under profrun
(`preloaded SPACE_SPLIT`) or linked in (`linked SPACE_SPLIT_JEMALLOC`):
the profiler must find jemalloc's malloc as the next one and profile it
as it does the C library's, shares within 3 points and the total within
5 % of the truth.

That jemalloc really served the blocks is checked, not assumed: the spool's
module map must list libjemalloc, and jemalloc's own count of the bytes it
allocated on the target's thread (mallctl "thread.allocated", which
space_split prints as je_allocated) must cover every block: at least the
bytes of the three sites (their block sizes are jemalloc size classes, so
counted exactly), and at most 1 MiB more (the C library's and the runtime
linker's few blocks; the profiler takes nothing from the target's heap).
Had the wrappers forwarded to the C library's malloc, jemalloc would have
counted almost nothing.

Without libjemalloc (preloaded) or without space_split_jemalloc (linked,
built when libjemalloc-dev is installed) the test is skipped, saying so.

usage: test_space_split_jemalloc.py preloaded|linked TARGET
"""
import os
import sys

import prof
import space

SITES = ('site_small_60', 'site_medium_30', 'site_large_10')
SLACK = 1 << 20


def test():
    mode = sys.argv[1]
    target = sys.argv[2] if len(sys.argv) > 2 else None
    env = None
    if mode == 'preloaded':
        je = space.jemalloc_lib()
        if not je:
            raise prof.Skip('libjemalloc not found: nothing to preload')
        env = {'LD_PRELOAD': je}
    elif mode != 'linked':
        raise prof.Fail(f'unknown mode {mode}')
    if not target or not os.path.exists(target):
        raise prof.Skip('space_split_jemalloc not built (no libjemalloc-dev)')

    p = prof.profile(target, args=['0.5'], opts=['--space-interval=128K'],
                     env=env)
    t = space.truth(p.stdout)
    want = sum(t[s] for s in SITES)
    mods = [m['path'] for m in prof.field(p.report, 'modules')]
    if not any('libjemalloc' in os.path.basename(m or '') for m in mods):
        raise prof.Fail(f'{mode}: no libjemalloc in the spool\'s modules: '
                        f'{mods}')
    if 'je_allocated' not in t:
        raise prof.Fail(f'{mode}: space_split found no mallctl: jemalloc '
                        f'is not in the process\n{p.stdout}')
    print(f'{mode}: jemalloc allocated {t["je_allocated"]} bytes on the '
          f'thread, the sites {want}')
    if not want <= t['je_allocated'] <= want + SLACK:
        raise prof.Fail(f'{mode}: jemalloc allocated {t["je_allocated"]} '
                        f'bytes on the thread, the sites {want}: jemalloc '
                        'did not serve the blocks')

    r = space.report(p.spool)
    space.check_shares(r, {s: t[s] for s in SITES}, mode)
    space.check_total(mode, prof.field(r, 'allocated_bytes'),
                      prof.field(r, 'allocated_bytes_error'), want)


prof.main(test)
