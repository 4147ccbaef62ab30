#!/usr/bin/env python3
"""Hostile targets, bare and profiled: the profiler never changes what a
program does (ARCHITECTURE.md, rule 2). Each case runs a program of
tests/targets/hostile bare, then under profrun with each of its option
sets (as many times as the case asks: some defects showed once in a few
runs), and compares exit status, standard output and standard error
(less the library's own "profrun: " lines, which are how it says that it
stopped profiling). A hang is a failure: every run has a timeout.

A case may also check the spool the profiled run left (check=), for the
defects that lost data rather than killed the program.

Every defect of this kind that is found gets a target and a case here
(issue #31); the table grows, it never shrinks.

usage: test_hostile.py [CASE...] -- HOSTILE-TARGET...
  (meson passes the targets; CASE names select cases, default all)
"""
import os
import resource
import sys

import prof


class Case:
    """name: the case; target: the hostile_NAME program's NAME; args: its
    arguments; option_sets: the profrun options of each profiled run
    (default: the defaults alone); runs: profiled runs per option set;
    limits: {RLIMIT_X: soft} set for the bare and the profiled run (for
    the latter, on profrun, which the target inherits: as a user's shell
    `ulimit` would); timeout: seconds a run may take; check(spool,
    profiled_result): extra checks of the spool of the first run of each
    option set."""

    def __init__(self, name, target, args=(), option_sets=((),), runs=1,
                 limits=None, timeout=60, check=None, env=None):
        self.name = name
        self.target = target
        self.args = [str(a) for a in args]
        self.option_sets = [list(o) for o in option_sets]
        self.runs = runs
        self.limits = limits or {}
        self.timeout = timeout
        self.check = check
        self.env = env


def check_seccomp_spool(spool, result):
    # Finished (its footer) before the program entered seccomp, readable
    # by profanalyze, and the library said why profiling stopped.
    _, r = prof.analyze(spool)
    if not prof.field(r, 'complete'):
        raise prof.Fail(f'{spool}: no footer (profanalyze --json: '
                        f'complete false)')
    if 'entered seccomp' not in result.stderr:
        raise prof.Fail(f'no line saying profiling stopped for seccomp: '
                        f'{result.stderr!r}')


CASES = [
    Case('plain', 'plain', option_sets=((), ('--no-time',), ('--no-space',),
                                        ('--clock=wall',))),
    # Item 2: three threads forking at once hung (a thread kept the
    # library's fork locks) in 3 runs of 4. A run takes about a second
    # bare, about 11 s profiled in the slowest test seen on a loaded
    # 2-core machine (900 child spools); 3 runs per option set, each
    # with a 120 s bound (a hang is forever), so that the case stays
    # within meson's 300 s.
    Case('forkrace', 'forkrace',
         option_sets=((), ('--no-time',), ('--no-space',)), runs=3,
         timeout=120),
    # Item 6: a program that enters seccomp was killed (strict mode: 137)
    # or died of SIGSYS at exit (a filter refusing pwrite64, the
    # footer's write). The spool must be finished before the call takes
    # effect. --clock=wall adds the library's poller thread, which must
    # be gone before the strict-mode thread's SYS_exit.
    Case('seccomp-strict', 'seccomp', args=('strict',),
         option_sets=((), ('--clock=wall',), ('-F', '1000')), runs=2,
         check=lambda spool, r: check_seccomp_spool(spool, r)),
    Case('seccomp-filter-prctl', 'seccomp', args=('filter-prctl',),
         option_sets=((), ('--clock=wall',), ('-F', '1000')), runs=2,
         check=lambda spool, r: check_seccomp_spool(spool, r)),
    Case('seccomp-filter-syscall', 'seccomp', args=('filter-syscall',),
         option_sets=((), ('--clock=wall',), ('-F', '1000')), runs=2,
         check=lambda spool, r: check_seccomp_spool(spool, r)),
    # The filter outlives exec: the image exec'd under it died of SIGSYS
    # when its constructor started profiling.
    Case('seccomp-filter-exec', 'seccomp', args=('filter-exec',),
         option_sets=((), ('--clock=wall',)), runs=2,
         check=lambda spool, r: check_seccomp_spool(spool, r)),
]


def limiter(limits):
    if not limits:
        return None

    def apply():
        for res, soft in limits.items():
            _, hard = resource.getrlimit(res)
            resource.setrlimit(res, (soft, hard))
    return apply


def run_case(case, path):
    argv = [path] + case.args
    bare = prof.run(argv, timeout=case.timeout, env=case.env,
                    preexec_fn=limiter(case.limits))
    print(f'{case.name}: bare exit {bare.returncode}, '
          f'{len(bare.stdout)} bytes out')
    for opts in case.option_sets:
        for i in range(case.runs):
            spool = os.path.join(prof.tmpdir(), 'h.spool')
            r = prof.profrun(['-q', '-o', spool] + opts + ['--'] + argv,
                             timeout=case.timeout, env=case.env,
                             preexec_fn=limiter(case.limits))
            what = f'{case.name} {" ".join(opts) or "(defaults)"} run {i + 1}'
            prof.check_as_bare(what, bare, r)
            if case.check and i == 0:
                case.check(spool, r)
        print(f'{case.name}: {case.runs} profiled run(s) with '
              f'{" ".join(opts) or "(defaults)"}: as bare')


def test():
    argv = sys.argv[1:]
    if '--' in argv:
        names, paths = argv[:argv.index('--')], argv[argv.index('--') + 1:]
    else:
        names, paths = [], argv
    targets = {os.path.basename(p)[len('hostile_'):]: p for p in paths}
    cases = [c for c in CASES if not names or c.name in names]
    if not cases:
        raise prof.Fail(f'no case named {" ".join(names)}')
    for case in cases:
        if case.target not in targets:
            raise prof.Fail(f'{case.name}: hostile_{case.target} was not '
                            f'passed (tests/targets/hostile/meson.build)')
        run_case(case, targets[case.target])


prof.main(test)
