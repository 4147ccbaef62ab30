#!/usr/bin/env python3
"""The measuring half of scripts/bench-calls, which builds first and then
runs this with --build DIR. Python 3 standard library only.

One program, bench-calls.d/fib.c, the naive recursive Fibonacci: fib(N)
makes 2 F(N + 1) - 1 calls of a function that does nothing else, the
worst case for a call counter. It is compiled three ways with the
system's cc at -O2: plain, with -finstrument-functions (every function
calls __cyg_profile_func_enter and _exit) and with -pg (every function
calls mcount; gmon.out is written at exit). The configurations:

  plain, bare                        the program's own cost
  plain again (noise)                the same, to see the machine's noise
  instrumented, bare                 glibc's no-op hooks: the cost of the
                                     instrumentation itself
  instrumented, profrun --no-time --no-space
                                     profrun counting calls, nothing else
  instrumented, profrun --no-space   counting, and CPU time sampled at 1 kHz
  plain, profrun --no-space          sampling alone, for reference
  -pg, bare                          gprof's mcount, gmon.out written

They run round after round, the order rotated each round; every run is
pinned to the CPU that runs a short loop fastest right before it (as
scripts/bench-space does, see there why). Per run: CPU time (user+sys of
the command and everything it reaped). Printed, as a Markdown table: the
fastest run against the fastest plain bare run, the median of the
per-round ratios with their range, and the CPU time added per call of
fib (the fastest run minus the fastest plain bare run, divided by the
calls). The verdict compares the counting configuration with -pg, each
against the plain program, fastest runs.

With --instructions it counts instead of timing: each configuration but
the sampling ones under valgrind --tool=callgrind (children followed),
the instructions the fib process executed for fib(N) minus those for
fib(N - 4), per call of the difference (so that start-up and exit drop
out), and added per call against plain. Repeatable whatever else the machine does;
it leaves out what the kernel spends and what a stall costs.
"""

import argparse
import glob
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                '..'))
from benchlib import fastest_cpu, spawn_measured  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))


def fib_calls(n):
    a, b = 0, 1
    for _ in range(n + 1):
        a, b = b, a + b
    return 2 * a - 1


def build_targets(tmp):
    cc = os.environ.get('CC', 'cc')
    src = os.path.join(HERE, 'fib.c')
    out = {}
    for kind, flags in (('plain', []),
                        ('instrumented', ['-finstrument-functions']),
                        ('pg', ['-pg'])):
        exe = os.path.join(tmp, f'fib-{kind}')
        subprocess.run([cc, '-O2', '-g'] + flags + ['-o', exe, src],
                       check=True)
        out[kind] = exe
    return out


def configs(build, exe, tmp):
    profrun = os.path.join(build, 'preload', 'profrun')
    spool = os.path.join(tmp, 'x.spool')
    count = [profrun, '-q', '--no-time', '--no-space', '-o', spool, '--']
    sample = [profrun, '-q', '--no-space', '-o', spool, '--']
    return [
        ('plain, bare', [exe['plain']]),
        ('plain again (noise)', [exe['plain']]),
        ('instrumented, bare (glibc no-op hooks)', [exe['instrumented']]),
        ('instrumented, profrun --no-time --no-space (counting)',
         count + [exe['instrumented']]),
        ('instrumented, profrun --no-space (counting + time 1 kHz)',
         sample + [exe['instrumented']]),
        ('plain, profrun --no-space (time 1 kHz, reference)',
         sample + [exe['plain']]),
        ('-pg, bare (gprof mcount, gmon.out)', [exe['pg']]),
    ]


def clean(tmp):
    for f in glob.glob(os.path.join(tmp, 'x.spool*')) + glob.glob(
            os.path.join(tmp, 'gmon.out')) + glob.glob(
            os.path.join(tmp, 'cg.*')):
        os.unlink(f)


def run_one(argv, n, tmp, cpu):
    cwd = os.getcwd()
    os.chdir(tmp)  # gmon.out lands here
    try:
        _, ru, rc, err = spawn_measured(
            argv + [str(n)], dict(os.environ), os.path.join(tmp, '.err'),
            600, cpu)
    finally:
        os.chdir(cwd)
    if rc != 0:
        raise SystemExit(f'bench-calls: {" ".join(argv)} {n}: exit {rc}\n'
                         f'{err}')
    return ru.ru_utime + ru.ru_stime


def check_counts(build, exe, n, tmp):
    """What each counter counted, for the table's heading: profrun's fib
    calls (profanalyze --json) and gprof's (gprof -b -p)."""
    want = fib_calls(n)
    profrun = os.path.join(build, 'preload', 'profrun')
    analyze = os.path.join(build, 'analyzer', 'profanalyze')
    spool = os.path.join(tmp, 'x.spool')
    subprocess.run([profrun, '-q', '--no-space', '-o', spool, '--',
                    exe['instrumented'], str(n)], check=True,
                   stdout=subprocess.DEVNULL)
    import json
    rep = json.loads(subprocess.run([analyze, '--json', spool], check=True,
                                    stdout=subprocess.PIPE,
                                    stderr=subprocess.DEVNULL,
                                    text=True).stdout)
    got = [f['calls'] for f in rep['functions'] if f['name'] == 'fib']
    subprocess.run([exe['pg'], str(n)], check=True, cwd=tmp,
                   stdout=subprocess.DEVNULL)
    # The call graph's primary line: "[1] ... 1+242784 fib [1]" (the
    # flat profile counts the non-recursive calls only).
    gp = subprocess.run(['gprof', '-b', '-q', exe['pg'],
                         os.path.join(tmp, 'gmon.out')],
                        stdout=subprocess.PIPE, text=True).stdout
    gcalls = [sum(int(x) for x in ln.split()[-3].split('+'))
              for ln in gp.splitlines()
              if ln.startswith('[') and ln.split()[-2:-1] == ['fib']]
    clean(tmp)
    return want, got[0] if got else None, gcalls[0] if gcalls else None


def instructions(argv, n, tmp):
    """Instructions of the fib process of argv N under callgrind
    (children followed: under profrun, fib is its child)."""
    out = os.path.join(tmp, 'cg.%p')
    cmd = ['valgrind', '--tool=callgrind', '--trace-children=yes',
           f'--callgrind-out-file={out}'] + argv + [str(n)]
    r = subprocess.run(cmd, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, cwd=tmp)
    if r.returncode != 0:
        clean(tmp)
        return None
    best = 0
    for f in glob.glob(os.path.join(tmp, 'cg.*')):
        with open(f) as fh:
            text = fh.read()
        cmd_line = [x for x in text.splitlines() if x.startswith('cmd:')][:1]
        if not cmd_line or not os.path.basename(
                cmd_line[0].split()[1]).startswith('fib-'):
            continue  # profrun's launcher
        for line in text.splitlines():
            if line.startswith(('summary:', 'totals:')):
                best = max(best, int(line.split()[1]))
    clean(tmp)
    return best


def count_instructions(cfgs, n, tmp):
    """Instructions per call: the difference between fib(n) and
    fib(n - 4), over the difference in calls, so that what a run costs
    once (the loader, profrun's start and end) drops out. n stays small:
    under valgrind, a -pg build's profiling timer (SIGPROF every 10 ms of
    the program's CPU time) kills it once it runs that long."""
    lo = n - 4
    calls = fib_calls(n) - fib_calls(lo)
    per = {}
    for label, argv in cfgs:
        if 'time 1 kHz' in label or label.startswith('plain again'):
            continue
        hi_n, lo_n = instructions(argv, n, tmp), instructions(argv, lo, tmp)
        per[label] = None if hi_n is None or lo_n is None else \
            (hi_n - lo_n) / calls
    plain = per['plain, bare']
    print(f'fib({n}) against fib({lo}): {calls} calls more, under '
          f'callgrind; plain: {plain:.1f} instructions per call\n')
    print('| configuration | instructions per call | added per call |')
    print('|---|---|---|')
    for label, _ in cfgs:
        if label not in per:
            continue
        if per[label] is None:
            print(f'| {label} | n/a (killed under valgrind, by its '
                  'profiling timer\'s SIGPROF) | |')
            continue
        print(f'| {label} | {per[label]:.1f} | '
              f'{per[label] - plain:+.1f} |')


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--build', required=True)
    ap.add_argument('--rounds', type=int, default=5)
    ap.add_argument('--n', type=int, default=None,
                    help='fib(N) (default 36, with --instructions 20)')
    ap.add_argument('--cpu', default='auto',
                    help='auto (the fastest now, per run), a CPU number, '
                    'or -1 (not pinned)')
    ap.add_argument('--instructions', action='store_true',
                    help='count instructions under callgrind instead of '
                    'timing')
    args = ap.parse_args()
    n = args.n or (20 if args.instructions else 36)
    build = os.path.abspath(args.build)
    tmp = tempfile.mkdtemp(prefix='bench-calls-')
    try:
        exe = build_targets(tmp)
        cfgs = configs(build, exe, tmp)
        if args.instructions:
            count_instructions(cfgs, n, tmp)
            return
        want, got, gcalls = check_counts(build, exe, n, tmp)
        res = {label: [] for label, _ in cfgs}
        for r in range(args.rounds):
            order = cfgs[r % len(cfgs):] + cfgs[:r % len(cfgs)]
            for label, argv in order:
                cpu = fastest_cpu() if args.cpu == 'auto' else int(args.cpu)
                res[label].append(run_one(argv, n, tmp, cpu))
                clean(tmp)
            print(f'round {r + 1}/{args.rounds} done', file=sys.stderr)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    report(res, cfgs, args, n, want, got, gcalls)


def report(res, cfgs, args, n, want, got, gcalls):
    calls = fib_calls(n)
    plain = res['plain, bare']
    fastest_plain = min(plain)
    pinned = ('each pinned to the fastest CPU' if args.cpu == 'auto' else
              'not pinned' if int(args.cpu) < 0 else
              f'pinned to CPU {args.cpu}')
    print(f'fib({n}): {calls} calls (profrun counted {got}, gprof {gcalls},'
          f' exact {want}); {args.rounds} rounds, {pinned}; plain: fastest '
          f'{fastest_plain:.3f} s CPU, {1e9 * fastest_plain / calls:.2f} ns '
          'per call\n')
    print('| configuration | CPU, fastest / fastest plain | CPU / plain of '
          'the round: median (range) | ns added per call (fastest) |')
    print('|---|---|---|---|')
    for label, _ in cfgs:
        runs = res[label]
        ratio = [runs[i] / plain[i] for i in range(args.rounds)]
        added = 1e9 * (min(runs) - fastest_plain) / calls
        print(f'| {label} | {min(runs) / fastest_plain:.3f} | '
              f'{statistics.median(ratio):.3f} ({min(ratio):.2f}-'
              f'{max(ratio):.2f}) | {added:+.2f} |')
    count = min(res['instrumented, profrun --no-time --no-space '
                    '(counting)']) - fastest_plain
    pg = min(res['-pg, bare (gprof mcount, gmon.out)']) - fastest_plain
    print(f'\nprofrun counting every call: {1e9 * count / calls:.2f} ns per '
          f'call over the plain program; gprof -pg: '
          f'{1e9 * pg / calls:.2f} ns. Goal (no more than gprof): '
          f'{"met" if count <= pg else "NOT met"} in this run.')


if __name__ == '__main__':
    main()
