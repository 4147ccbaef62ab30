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
import shutil
import sys
import time

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


# Every source of the sampling signal, the wall clock, and the shallowest
# walk: none of them may run a handler on a thread's own stack.
TIME_SOURCES = (('--timer=perf',), ('--timer=posix',), ('--timer=itimer',),
                ('--clock=wall',), ('--max-depth=1',))


def ended_by_sigsegv(spool, result):
    """The footer of a program that died of SIGSEGV says so, with the CPU
    totals (profanalyze: "ended by signal 11")."""
    _, r = prof.analyze(spool)
    got = (r.get('complete'), r.get('ended'), r.get('end_signal'))
    print(f'footer: complete, ended, end_signal = {got}; cpu_seconds '
          f'{r.get("cpu_seconds")}')
    if got != (True, 'signal', 11) or r.get('cpu_seconds') is None:
        raise prof.Fail(f'{spool}: the footer says complete, ended, '
                        f'end_signal = {got}, cpu_seconds '
                        f'{r.get("cpu_seconds")}; want (True, \'signal\', 11) '
                        f'and the CPU totals')


CASES = [
    Case('plain', 'plain', option_sets=((), ('--no-time',), ('--no-space',),
                                        ('--clock=wall',))),
    # Item 3: four threads with 16 KiB stacks using 2,000 bytes, and with
    # 64 KiB stacks using 56,000 bytes: bare, some 9 KiB and 4 KiB are
    # left below, less than the sampling handler used to take there
    # (some 11 KiB, the kernel's signal frame included).
    Case('smallstack-16k', 'smallstack', args=(16384, 2000),
         option_sets=TIME_SOURCES),
    Case('smallstack-64k', 'smallstack', args=(65536, 56000),
         option_sets=TIME_SOURCES),
    # Item 4: a Go program built with cgo, whose runtime wants every
    # handler C code installs on the alternate stack; built at test time
    # (go_alloc below). Three runs each: it died 3 of 3.
    Case('go', 'go_alloc', args=(300,), option_sets=((), ('--no-space',)),
         runs=3, timeout=120),
    # Item 8: a stack overflow still leaves the footer, which says SIGSEGV.
    Case('overflow', 'overflow', check=ended_by_sigsegv),
    # Item 3 again: threads that set alternate stacks of their own keep
    # them, and disable them at will; on one of SIGSTKSZ (8 KiB), too
    # small for the handlers, they drop the sample, and the fatal-signal
    # handler the footer, rather than overflow it (SIGSEGV, and SIGTERM
    # turned into SIGSEGV, once they ran there).
    Case('ownaltstack', 'ownaltstack', args=(65536,),
         option_sets=((), ('--clock=wall',))),
    Case('ownaltstack-small', 'ownaltstack', args=(8192,),
         option_sets=((), ('--timer=posix',))),
    Case('ownaltstack-small-term', 'ownaltstack', args=(8192, 'term'),
         option_sets=((), ('--no-time',))),
]


def build_go(name):
    """Builds tests/targets/hostile/NAME/main.go with cgo and the external
    linker, in a fresh directory that is also its HOME, GOPATH and build
    cache (no network: GOPATH mode, GOPROXY off); returns the program."""
    src = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..',
                       'targets', 'hostile', name, 'main.go')
    if not shutil.which('go'):
        raise prof.Skip(f'go is not installed (scripts/setup-deps installs '
                        f'golang-go): {name} cannot be built')
    tmp = prof.tmpdir()
    out = os.path.join(tmp, name)
    env = {'HOME': tmp, 'GOPATH': os.path.join(tmp, 'gopath'),
           'GOCACHE': os.path.join(tmp, 'gocache'), 'GO111MODULE': 'off',
           'GOPROXY': 'off', 'GOFLAGS': '', 'GOTOOLCHAIN': 'local',
           'CGO_ENABLED': '1'}
    t0 = time.monotonic()
    r = prof.run(['go', 'build', '-ldflags=-linkmode=external', '-o', out,
                  src], env=env, cwd=tmp, timeout=300)
    if r.returncode != 0:
        raise prof.Fail(f'go build {src}: exit {r.returncode}\n'
                        f'{r.stderr[-2000:]}')
    print(f'{name}: built with cgo in {time.monotonic() - t0:.1f} s')
    return out


# Targets that meson does not build: built by the test, on demand.
BUILT = {
    'go_alloc': build_go,
}


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
        if case.target not in targets and case.target in BUILT:
            targets[case.target] = BUILT[case.target](case.target)
        if case.target not in targets:
            raise prof.Fail(f'{case.name}: hostile_{case.target} was not '
                            f'passed (tests/targets/hostile/meson.build)')
        run_case(case, targets[case.target])


prof.main(test)
