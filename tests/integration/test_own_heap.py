#!/usr/bin/env python3
"""The profiler takes nothing from the target's heap: what it allocates
for itself (start-up, the writer thread, each thread's set-up, recording
samples, the look-up of the real functions, exit) comes from its own
arena. libheapcount, preloaded after libprofrun.so, is the "next" malloc
family the wrappers forward to, and counts every call that reaches the
real allocator. Each target runs twice: with libprofrun.so loaded but not
profiling (its wrappers forward the target's calls and nothing else), and
under profrun, sampling time at 10 kHz and space at a small interval.
The calls that allocate must be as many in both: one more is the
profiler's own use of the target's heap. Frees are printed, not compared:
at exit the profiler joins its writer thread, whose stack can tip glibc's
cache of thread stacks over its limit, and glibc then frees the target's
exited threads' TLS earlier than it would have (the target's own memory,
allocated by its pthread_create).

usage: test_own_heap.py LIBPROFRUN LIBHEAPCOUNT THREADS SPACE_SPLIT
"""
import os
import struct
import subprocess
import sys

import prof

NAMES = ('malloc', 'free', 'calloc', 'realloc', 'posix_memalign',
         'aligned_alloc', 'memalign', 'valloc', 'pvalloc')
ALLOCATING = tuple(n for n in NAMES if n != 'free')


def counted(env, cmd):
    """Runs cmd with a fresh count file; returns {name: calls}."""
    path = os.path.join(prof.tmpdir(), 'heapcount')
    with open(path, 'wb') as f:
        f.write(bytes(8 * len(NAMES)))
    env = dict(env, HEAPCOUNT_FILE=path)
    r = subprocess.run(cmd, env=env, capture_output=True, text=True,
                       timeout=120)
    if r.returncode != 0:
        raise prof.Fail(f'{" ".join(cmd)}: exit {r.returncode}\n'
                        f'{r.stderr[-2000:]}')
    with open(path, 'rb') as f:
        values = struct.unpack(f'<{len(NAMES)}Q', f.read())
    return dict(zip(NAMES, values)), r


def compare(label, lib, heapcount, target, args, opts):
    idle_env = {k: v for k, v in os.environ.items()
                if not k.startswith('PROF_')}
    idle_env['LD_PRELOAD'] = f'{lib}:{heapcount}'
    idle, _ = counted(idle_env, [target] + args)
    spool = os.path.join(prof.tmpdir(), 'own.spool')
    prof_env = dict(os.environ, LD_PRELOAD=heapcount)
    active, r = counted(prof_env, [prof.profrun_path(), '-q', '-o', spool]
                        + opts + ['--', target] + args)
    if not os.path.exists(spool):
        raise prof.Fail(f'{label}: no spool\n{r.stderr}')
    a, report = prof.analyze(spool)
    print(f'{label}: idle {idle}')
    print(f'{label}: profiled {active}; {report["samples"]} time samples')
    if sum(idle[n] for n in ALLOCATING) == 0 or sum(active.values()) == 0:
        raise prof.Fail(f'{label}: libheapcount counted nothing: it is not '
                        'below the wrappers')
    extra = {n: active[n] - idle[n] for n in ALLOCATING
             if active[n] != idle[n]}
    if extra:
        raise prof.Fail(f'{label}: profiling changed the calls that reach '
                        f'the target\'s heap by {extra}')
    if report['samples'] < 100:
        raise prof.Fail(f'{label}: only {report["samples"]} samples: the '
                        'profiler barely ran')


def test():
    lib, heapcount, threads, space_split = sys.argv[1:5]
    compare('threads', lib, heapcount, threads, ['0.2'],
            ['-F', '10000', '--space-interval=4096'])
    compare('space_split', lib, heapcount, space_split, ['0.2'],
            ['-F', '10000', '--space-interval=4096'])


prof.main(test)
