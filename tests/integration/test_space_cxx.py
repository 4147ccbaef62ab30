#!/usr/bin/env python3
"""C++'s operator new and delete (space_cxx.cc): sites allocating 60, 30
and 10 % of the bytes through new and sized delete, new[] and delete[],
and aligned new (throwing and nothrow) and aligned delete, and a site
leaking 16 MiB through new[]; then a throwing new that must throw
std::bad_alloc through the wrappers and a nothrow new[] that must return
nullptr (the target exits 1 otherwise). Four ways the program gets its
operator new:

- `libstdcxx SPACE_CXX`: the C++ runtime's, which calls malloc;
- `jemalloc-preloaded SPACE_CXX`: jemalloc preloaded, whose operator new
  serves from its own heap without calling malloc (but its aligned new
  calls aligned_alloc, and its unsized delete free);
- `jemalloc-linked SPACE_CXX_JEMALLOC`: the same, jemalloc linked in;
- `rtld-local HOST LIBRARY`: a C program that loads the C++ code as a
  library with RTLD_LOCAL, as Python loads extensions: the C++ runtime
  is outside the global scope, where dlsym(RTLD_NEXT) cannot find it (a
  stand-in that cannot throw would end the program at the bad_alloc).
  Then it closes the library, which must unload (the profiler keeps no
  hold on it), and loads it again: new, delete and the failures must
  still work.

Each way, at --space-interval=16K:
- the sites' shares within 3 points and the total within 5 % of the
  truth (bytes counted once, whichever of new or malloc saw them);
- the in-use view at exit: the leak within 5 % and nothing of the other
  sites (every delete of a sampled block recorded);
- under 1 % of the bytes in stacks cut short (with RTLD_LOCAL the work
  starts as soon as the library is loaded, before the profiler's table of
  modules has it: the walk must find its unwind tables all the same);
- operator new and delete named in no report (they allocate for their
  caller), and the exact call counts: with jemalloc exactly the calls
  the program made, and malloc almost never (so new was not sampled
  through malloc); with the C++ runtime at least those (its forms call
  each other).
- with jemalloc, jemalloc's own count of the bytes it allocated on the
  thread (mallctl) covers the sites: jemalloc really served them.

usage: test_space_cxx.py MODE TARGET [LIBRARY]
"""
import os
import sys

import prof
import space

NS = '(anonymous namespace)::'
SITES = {
    'site_new_60': NS + 'site_new_60(unsigned long)',
    'site_array_30': NS + 'site_array_30(unsigned long)',
    'site_aligned_10': NS + 'site_aligned_10(unsigned long)',
    'site_leak': NS + 'site_leak()',
}
SLACK = 1 << 20


def test():
    mode = sys.argv[1]
    rest = sys.argv[2:]
    env = None
    if mode == 'jemalloc-preloaded':
        je = space.jemalloc_lib()
        if not je:
            raise prof.Skip('libjemalloc not found: nothing to preload')
        env = {'LD_PRELOAD': je}
    elif mode not in ('libstdcxx', 'jemalloc-linked', 'rtld-local'):
        raise prof.Fail(f'unknown mode {mode}')
    if not rest or not all(os.path.exists(x) for x in rest):
        raise prof.Skip(f'{mode}: target not built (no C++ compiler, or no '
                        'libjemalloc-dev)')
    target, args = rest[0], rest[1:] + ['0.25']

    p = prof.profile(target, args=args, opts=['--space-interval=16K'],
                     env=env)
    t = space.truth(p.stdout)
    if t.get('bad_alloc') != 1 or t.get('nothrow_null') != 1:
        raise prof.Fail(f'{mode}: the failing new did not fail as C++ '
                        f'says:\n{p.stdout}')
    if mode == 'rtld-local':
        if t.get('library_unloaded') != 1:
            raise prof.Fail('the library stayed loaded after dlclose: the '
                            f'profiler holds it\n{p.stdout}')
        if t.get('reloaded_ok') != 1:
            raise prof.Fail('C++ failed in the library loaded again\n'
                            f'{p.stdout}')
    truth = {SITES[k]: t[k] for k in SITES}

    r = space.report(p.spool)
    shown = [f['name'] for f in prof.field(r, 'functions')]
    leaked = [n for n in shown if n.startswith('operator new') or
              n.startswith('operator delete')]
    if leaked:
        raise prof.Fail(f'{mode}: {leaked} shown in the space profile')
    # Stacks cut short: a walk through code the profiler's module table
    # did not have yet (a library just loaded) must still get through.
    cut = space.site_bytes(r, '[incomplete stack]')
    total = prof.field(r, 'allocated_bytes')
    print(f'{mode}: {cut} bytes in stacks cut short, of {total:.0f}')
    if cut > 0.01 * total:
        raise prof.Fail(f'{mode}: {cut} of {total:.0f} bytes in stacks cut '
                        'short')
    space.check_shares(r, truth, mode)
    space.check_total(mode, prof.field(r, 'allocated_bytes'),
                      prof.field(r, 'allocated_bytes_error'),
                      sum(truth.values()))

    u = space.report(p.spool, 'inuse')
    for k, name in SITES.items():
        if k != 'site_leak' and space.site_bytes(u, name):
            raise prof.Fail(f'{mode}: {k} in use at exit: a delete was '
                            f'lost\n{prof.top(u, key="self")}')
    f = prof.need_func(u, SITES['site_leak'])
    space.check_total(f'{mode} in use', f['self'],
                      prof.field(u, 'sampled_bytes_error'), t['site_leak'])

    counts, _ = space.call_counts(p.spool)
    new, delete = counts.get('operator new', 0), counts.get(
        'operator delete', 0)
    print(f'{mode}: operator new {new} (program {t["news"]}), operator '
          f'delete {delete} (program {t["deletes"]}), malloc '
          f'{counts.get("malloc", 0)}')
    if mode.startswith('jemalloc'):
        if new != t['news'] or delete != t['deletes']:
            raise prof.Fail(f'{mode}: call counts new {new} delete '
                            f'{delete}, the program made {t["news"]} and '
                            f'{t["deletes"]}')
        if counts.get('malloc', 0) > 1000:
            raise prof.Fail(f'{mode}: {counts["malloc"]} calls of malloc: '
                            'jemalloc\'s operator new is not the one used')
        want = sum(truth.values())
        je = t.get('je_allocated')
        if je is None or not want <= je <= want + SLACK:
            raise prof.Fail(f'{mode}: jemalloc allocated {je} bytes on '
                            f'the thread, the sites {want}')
    elif not (t['news'] <= new <= 2 * t['news'] and
              t['deletes'] <= delete <= 2 * t['deletes']):
        raise prof.Fail(f'{mode}: call counts new {new} delete {delete}, '
                        f'the program made {t["news"]} and {t["deletes"]}')


prof.main(test)
