#!/usr/bin/env python3
"""The measuring half of scripts/bench-space, which builds first and then
runs this with --build DIR. Python 3 standard library only.

One target, tests/targets/space_bench: a loop of small malloc/free pairs
(sizes 16 to 256 bytes), about 10 ns a pair bare, the worst case for an
allocation profiler: nothing but the allocator runs. With --cxx,
tests/targets/space_bench_cxx instead: the same loop of C++ operator new
and sized operator delete. It runs bare and under
each profiler, round after round, the order rotated each round so that
load from elsewhere on a shared machine hits every configuration alike;
each run is compared with the bare (glibc) run of its own round, and the
jemalloc runs also with jemalloc's bare run.

Every run is pinned to one CPU with all its threads and children: on the
2-vCPU virtual machines this was measured on, one vCPU at times runs the
loop at half the speed of the other (a bare run taking 1.21 s on one and
0.62 s on the other), and which one is slow changes from minute to
minute, so unpinned runs were bimodal and a run pinned to a fixed CPU
could still land on a slow spell. By default (--cpu auto) the script
times a short loop of its own on each CPU it may use right before each
run, and pins the run to the fastest; --cpu N pins every run to CPU N,
--cpu -1 to none. CPU time still counts every thread of the profiled
process.

Per run: CPU (user+sys of the command and everything it reaped, wait4, so
a profiler's own processes count), wall time (perf_counter around spawn and
reap) and peak RSS (GNU time's %M around the command: the largest resident
set of the command and its reaped descendants, which for profrun is the
target, for heaptrack its interpreter; measured by GNU time rather than
from this script's wait4 because a child forked from Python starts with
Python's own resident pages). Printed, as a Markdown table: the fastest
run against the fastest bare run (load from elsewhere only adds time, so
this is the estimate it disturbs least; the verdict uses it, and says
"cannot tell" when the two bare configurations differ by more than
NOISE_LIMIT), the median and range of the per-round ratios, and the
median peak RSS.

With --instructions it counts instead of timing: each configuration once
under valgrind --tool=callgrind (every process of the tree), and the
instructions the space_bench process executed, per pair and against
bare. Instruction counts are repeatable whatever else the machine does,
which timings on a shared machine are not; they leave out what the
kernel spends (signals, page faults) and what a stall costs. CPU-time
sampling is left out there: under valgrind its timer measures valgrind's
own execution.

Two reference rows: libprofrun.so preloaded without profrun (its wrappers
count every call but nothing is sampled), and a preloaded malloc and free
that only jump to the real ones (forward.c): the least any profiler that
interposes the malloc family costs on this machine.
"""

import argparse
import glob
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
from benchlib import fastest_cpu  # noqa: E402

GOAL_RATIO = 1.15
# The two bare configurations may differ by this much (fastest runs) for
# the verdict to say anything.
NOISE_LIMIT = 0.03
GNU_TIME = '/usr/bin/time'
HERE = os.path.dirname(os.path.abspath(__file__))


def build_forward(tmp):
    """Compiles forward.c into tmp; returns the library's path."""
    out = os.path.join(tmp, 'forward.so')
    subprocess.run(['cc', '-O2', '-fPIC', '-shared', '-o', out,
                    os.path.join(HERE, 'forward.c'), '-ldl'], check=True)
    return out


def jemalloc():
    for p in ('/usr/lib/x86_64-linux-gnu/libjemalloc.so.2',
              '/usr/lib/libjemalloc.so.2'):
        if os.path.exists(p):
            return p
    return None


def configs(build, tmp, forward, args):
    profrun = os.path.join(build, 'preload', 'profrun')
    spool = os.path.join(tmp, 'x.spool')
    je = jemalloc()
    c = [
        ('bare', [], {}),
        ('bare again (noise)', [], {}),
        ('forwarding only (reference)', [],
         {'LD_PRELOAD': forward}),
        ('libprofrun.so loaded, not profiling', [],
         {'LD_PRELOAD': os.path.join(build, 'preload', 'libprofrun.so')}),
        ('profrun (time 1 kHz + space 512K)',
         [profrun, '-q', '-o', spool, '--'], {}),
        ('profrun --no-time (space only)',
         [profrun, '-q', '--no-time', '-o', spool, '--'], {}),
        ('profrun --no-space (time, wrappers counting)',
         [profrun, '-q', '--no-space', '-o', spool, '--'], {}),
    ]
    if shutil.which('heaptrack') and not args.no_heaptrack:
        c.append(('heaptrack', ['heaptrack', '-o',
                                os.path.join(tmp, 'ht')], {}))
    if je:
        c.append(('jemalloc bare', [], {'LD_PRELOAD': je}))
        c.append(('jemalloc prof:true (512K)', [],
                  {'LD_PRELOAD': je, 'MALLOC_CONF': 'prof:true'}))
    return c


def run(cmd, env, cwd, cpu):
    rss_file = os.path.join(cwd, '.rss')
    cmd = [GNU_TIME, '-f', '%M', '-o', rss_file] + cmd
    full = dict(os.environ)
    full.update(env)
    pin = None if cpu < 0 else (lambda: os.sched_setaffinity(0, {cpu}))
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL, env=full, cwd=cwd,
                         preexec_fn=pin)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0:
        raise SystemExit(f'bench-space: {" ".join(cmd)}: exit '
                         f'{p.returncode}')
    with open(rss_file) as f:
        rss_kib = int(f.read().split()[-1])
    return ru.ru_utime + ru.ru_stime, wall, rss_kib / 1024.0


def clean(tmp):
    for f in glob.glob(os.path.join(tmp, '*')) + [os.path.join(tmp, '.rss')]:
        if not os.path.exists(f):
            continue
        if os.path.isdir(f):
            shutil.rmtree(f, ignore_errors=True)
        else:
            os.unlink(f)


def count_instructions(cfgs, target, pairs, tmp):
    """Instructions of the target's process, per configuration, under
    callgrind (children followed: the target is profrun's child)."""
    counts = {}
    for label, prefix, env in cfgs:
        if label.startswith(('heaptrack', 'bare again')) or (
                label.startswith('profrun') and '--no-time' not in label):
            continue
        out = os.path.join(tmp, 'cg.%p')
        cmd = ['valgrind', '--tool=callgrind', '--trace-children=yes',
               f'--callgrind-out-file={out}'] + prefix + [target, str(pairs)]
        full = dict(os.environ)
        full.update(env)
        subprocess.run(cmd, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, env=full, check=True)
        best = 0
        for f in glob.glob(os.path.join(tmp, 'cg.*')):
            with open(f) as fh:
                text = fh.read()
            cmd_line = [x for x in text.splitlines()
                        if x.startswith('cmd:')][:1]
            if not cmd_line or os.path.basename(
                    cmd_line[0].split()[1]) != os.path.basename(target):
                continue  # profrun's launcher
            for line in text.splitlines():
                if line.startswith('summary:') or line.startswith('totals:'):
                    best = max(best, int(line.split()[1]))
        counts[label] = best
        clean(tmp)
    bare = counts['bare']
    print(f'{os.path.basename(target)} {pairs:g}M {pair_kind(target)} '
          f'pairs under callgrind; bare: '
          f'{bare / (pairs * 1e6):.1f} instructions per pair\n')
    print('| configuration | instructions per pair | added per pair | '
          'instructions / bare |')
    print('|---|---|---|---|')
    for label, _, _ in cfgs:
        if label not in counts:
            continue
        n = counts[label]
        print(f'| {label} | {n / (pairs * 1e6):.1f} | '
              f'{(n - bare) / (pairs * 1e6):+.1f} | {n / bare:.3f} |')


def pair_kind(target):
    return ('operator new/delete' if target.endswith('_cxx') else
            'malloc/free')


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--build', required=True)
    ap.add_argument('--rounds', type=int, default=5)
    ap.add_argument('--pairs', type=float, default=None,
                    help='millions of malloc/free pairs per run (default '
                         '100, with --instructions 2)')
    ap.add_argument('--no-heaptrack', action='store_true',
                    help='leave heaptrack out (it is the slow one)')
    ap.add_argument('--cpu', default='auto',
                    help='the CPU every run is pinned to; auto (the '
                         'default): the fastest right before each run; '
                         '-1: not pinned')
    ap.add_argument('--cxx', action='store_true',
                    help='time the C++ loop (operator new and delete) '
                         'instead of malloc and free')
    ap.add_argument('--instructions', action='store_true',
                    help='count instructions under callgrind instead of '
                         'timing (repeatable; --pairs defaults to 2)')
    args = ap.parse_args()

    args.build = os.path.abspath(args.build)
    target = os.path.join(args.build, 'tests', 'targets',
                          'space_bench_cxx' if args.cxx else 'space_bench')
    if not os.path.exists(target):
        sys.exit(f'bench-space: {target} not built (no C++ compiler?)')
    tmp = tempfile.mkdtemp(prefix='bench-space-')
    lib_dir = tempfile.mkdtemp(prefix='bench-space-lib-')
    cfgs = configs(args.build, tmp, build_forward(lib_dir), args)
    if args.pairs is None:
        args.pairs = 2 if args.instructions else 100
    if args.instructions:
        count_instructions(cfgs, target, args.pairs, tmp)
        shutil.rmtree(tmp, ignore_errors=True)
        shutil.rmtree(lib_dir, ignore_errors=True)
        return
    res = {label: [] for label, _, _ in cfgs}
    for r in range(args.rounds):
        order = cfgs[r % len(cfgs):] + cfgs[:r % len(cfgs)]
        for label, prefix, env in order:
            cpu = fastest_cpu() if args.cpu == 'auto' else int(args.cpu)
            res[label].append(run(prefix + [target, str(args.pairs)], env,
                                  tmp, cpu))
            clean(tmp)
        print(f'round {r + 1}/{args.rounds} done', file=sys.stderr)
    shutil.rmtree(tmp, ignore_errors=True)
    shutil.rmtree(lib_dir, ignore_errors=True)

    bare = res['bare']
    je_bare = res.get('jemalloc bare')
    fastest_bare = min(c for c, _, _ in bare)
    pinned = ('each pinned to the fastest CPU' if args.cpu == 'auto' else
              'not pinned' if int(args.cpu) < 0 else
              f'pinned to CPU {args.cpu}')
    print(f'{os.path.basename(target)} {args.pairs:g}M {pair_kind(target)} '
          f'pairs, {args.rounds} '
          f'rounds, {pinned}; bare: fastest {fastest_bare:.3f} s CPU, '
          f'{1e9 * fastest_bare / (args.pairs * 1e6):.1f} ns per pair\n')
    print('| configuration | CPU, fastest / fastest bare | CPU / bare of '
          'the round: median (range) | wall / bare, median | peak RSS '
          '(MiB) |')
    print('|---|---|---|---|---|')
    for label, _, _ in cfgs:
        runs = res[label]
        cpu = [runs[i][0] / bare[i][0] for i in range(args.rounds)]
        wall = [runs[i][1] / bare[i][1] for i in range(args.rounds)]
        rss = statistics.median(x for _, _, x in runs)
        fastest = min(c for c, _, _ in runs) / fastest_bare
        extra = ''
        if je_bare and label.startswith('jemalloc prof'):
            rel = min(c for c, _, _ in runs) / min(c for c, _, _ in je_bare)
            extra = f' ({rel:.3f} x jemalloc bare)'
        print(f'| {label} | {fastest:.3f}{extra} | '
              f'{statistics.median(cpu):.3f} ({min(cpu):.2f}-{max(cpu):.2f}) '
              f'| {statistics.median(wall):.2f} | {rss:.1f} |')
    fastest = lambda label: min(c for c, _, _ in res[label]) / fastest_bare
    noise = abs(fastest('bare again (noise)') - 1)

    def verdict(ratio):
        if noise > NOISE_LIMIT:
            return (f'cannot tell, the two bare configurations differ by '
                    f'{100 * noise:.1f} %')
        return 'met' if ratio <= GOAL_RATIO else 'NOT met'

    # The goal is the space profiler's (heaptrack's and jemalloc's are
    # space profilers too); profrun's default adds CPU-time sampling,
    # whose cost is the CPU-time benchmark's (scripts/bench).
    space = fastest('profrun --no-time (space only)')
    both = fastest('profrun (time 1 kHz + space 512K)')
    print(f'\nspace sampling at the default interval (--no-time): '
          f'{space:.3f} x bare CPU (fastest runs; forwarding alone '
          f'{fastest("forwarding only (reference)"):.3f}); goal <= '
          f'{GOAL_RATIO} x: {verdict(space)} in this run.')
    print(f'profrun as by default, CPU time sampled at 1 kHz too: '
          f'{both:.3f} x bare CPU; <= {GOAL_RATIO} x: {verdict(both)} in '
          'this run.')


if __name__ == '__main__':
    main()
