#!/usr/bin/env python3
"""The stress matrix: programs that do what a profiler finds hardest, each
run bare and under `profrun -F 10000 --space-interval=1K` (time sampling
at 10 kHz and allocation sampling at a 1 KiB interval together). One meson
test per case (CASES below). Each asserts that

- the program's output (stdout) and exit status under the profiler are
  those of the bare run, and the bare run's status is the one the case
  knows (so the program did its work; each prints a function of it);
- the spools read: profanalyze reads the program's spool (--json), which
  has its footer (the program exited), every record of it parses
  (prof.spool_records, strict), and when the program made other
  processes, every spool of the tree parses (leniently: a child's may
  end in a cut record) and profanalyze reads the tree (--processes);
- nothing hangs: a run that outlives its bound is killed and fails.

What the older tests of the same programs assert is not repeated here
(test_dlopen_stress: no dl_iterate_phdr in the handler, the plugin's
frames resolved; test_closefrom: the rate of samples; test_space_jemalloc:
the shares of bytes): here it is the program's behaviour under both
samplers at their most intrusive.

A case may add profrun options and resource limits of its own (set for
the bare and the profiled run alike): the defects that showed only under
a limit (issue #31) are stressed under it.

usage: test_stress.py CASE PROGRAM [FILES...]
"""
import glob
import os
import resource
import sys

import prof

OPTS = ['-F', '10000', '--space-interval=1K']

# Bounds on the runs, in seconds: a run beyond its bound is a hang. The
# longest case takes a few seconds under the profiler on a loaded
# 2-core machine.
BARE_BOUND = 60
PROFILED_BOUND = 90


def dlopen_argv(files, tmp):
    # 4 loader threads, 300 rounds each, and a CPU thread (0.2 s).
    return [files[0], files[1], '4', '300', '0.2']


def closefrom_argv(files, tmp):
    # A fresh file of the program's own for each run.
    return [files[0], os.path.join(tmp, 'program.file')]


def mode(name):
    return lambda files, tmp: [files[0], name]


def hostile(name, *args):
    """tests/targets/hostile's program NAME, of those meson passes, with
    args."""
    def argv(files, tmp):
        path = [f for f in files if os.path.basename(f) == 'hostile_' + name]
        return path[:1] + [str(a) for a in args]
    return argv


# name: (argv from the files meson passes and a fresh directory, the
# exit status the program ends with, whether it makes other processes[,
# {'opts': more profrun options, 'limits': {RLIMIT_X: soft limit}}])
CASES = {
    'dlopen-threads': (dlopen_argv, 0, False),
    'cxx-throw': (lambda files, tmp: [files[0]], 0, False),
    'longjmp': (mode('longjmp'), 0, False),
    'deep-recursion': (mode('deep'), 0, False),
    'short-threads': (mode('threads'), 0, False),
    'live-threads': (mode('live'), 0, False),
    'forks': (mode('forks'), 0, True),
    'spawn': (mode('spawn'), 0, True),
    'closefrom': (closefrom_argv, 0, False),
    'blocked': (mode('blocked'), 0, False),
    'own-sigprof': (mode('ownprof'), 0, False),
    'jemalloc': (lambda files, tmp: [files[0], '0.1'], 0, False),
    # A frame whose CFA is 0: the unwinder is asked for the word at -8.
    'wrapread': (hostile('wrapread'), 0, False),
    # malloc/free pairs only: the time signal lands mostly while the space
    # sampler records (issue #31 item 13: its time is deferred and stored
    # with the allocation's stack).
    'malloc-loop': (lambda files, tmp: [files[0], '5'], 0, False),
    # Threads with 64 KiB stacks, 56,000 bytes of them in use (issue #31,
    # item 3), and a stack overflow, whose footer check_spools asks for
    # (item 8): the handlers on the alternate stack, at 10 kHz.
    'small-stacks': (hostile('smallstack', 65536, 56000), 0, False),
    'stack-overflow': (hostile('overflow'), -11, False),
    # Threads on alternate stacks of their own of 8 KiB, too small for the
    # handlers, which must not overflow them.
    'own-small-altstack': (hostile('ownaltstack', 8192), 0, False),
    # Three threads forking at once (issue #31, item 2): meson passes
    # every hostile target.
    'forkrace': (hostile('forkrace'), 0, True),
    # Issue #31, items 5, 6, 10 and 11 at the highest rates: a file-size
    # limit reached mid-run, seccomp's strict mode and a filter, a
    # descriptor limit below the library's numbers, and --max-size reached
    # mid-run (hostile_fsize writes some 2.8 MB here; test_max_size.py has
    # the threads).
    'fsize': (hostile('fsize'), 0, False,
              {'limits': {resource.RLIMIT_FSIZE: 300 * 1024}}),
    'seccomp-strict': (hostile('seccomp', 'strict'), 0, False),
    'seccomp-filter': (hostile('seccomp', 'filter-syscall'), 0, False),
    'fd-limit': (hostile('fdlimit'), 0, False,
                 {'limits': {resource.RLIMIT_NOFILE: 8}}),
    'max-size': (hostile('fsize'), 0, False, {'opts': ['--max-size=256K']}),
}


def check_spools(spool, tree):
    _, r = prof.analyze(spool)
    if not prof.field(r, 'complete'):
        raise prof.Fail(f'{spool}: no footer although the program exited')
    records = sum(1 for _ in prof.spool_records(spool, strict=True))
    spools = sorted(glob.glob(glob.escape(spool) + '.*'))
    print(f'spool: {records} records, {r["samples"]} samples, dropped '
          f'{r.get("dropped")}; {len(spools)} other spools')
    for s in spools:
        # Leniently: a child's spool may end in a cut record.
        for _ in prof.spool_records(s):
            pass
    if not tree:
        if spools:
            raise prof.Fail(f'spools of other processes: {spools[:5]}')
        return
    a, _ = prof.analyze(spool, args=('--processes',))
    print(f'--processes: {len(a.stdout.splitlines())} lines')


def test():
    case, files = sys.argv[1], sys.argv[2:]
    if case not in CASES:
        raise prof.Fail(f'unknown case {case}')
    make_argv, status, tree = CASES[case][:3]
    extra = CASES[case][3] if len(CASES[case]) > 3 else {}
    limit = prof.limiter(extra.get('limits'))
    if not files or not all(os.access(f, os.R_OK) for f in files):
        # Meson passes an empty list for a program it could not build:
        # the C++ compiler or libjemalloc is missing here.
        raise prof.Skip(f'{case}: its program was not built here')

    bare = prof.run(make_argv(files, prof.tmpdir()), timeout=BARE_BOUND,
                    preexec_fn=limit)
    print(f'bare: exit {bare.returncode}\n{bare.stdout.strip()[:2000]}')
    if bare.returncode != status:
        raise prof.Fail(f'bare run: exit {bare.returncode}, want {status}:'
                        f'\n{bare.stdout[-2000:]}\n{bare.stderr[-2000:]}')
    tmp = prof.tmpdir()
    spool = os.path.join(tmp, 'x.spool')
    p = prof.profrun(['-q', '-o', spool] + OPTS + extra.get('opts', []) +
                     ['--'] + make_argv(files, tmp), timeout=PROFILED_BOUND,
                     preexec_fn=limit)
    print(f'profiled: exit {p.returncode}; stderr: {p.stderr.strip()!r}')
    prof.check_as_bare('under the profiler', bare, p, stderr=False)
    check_spools(spool, tree)


prof.main(test)
