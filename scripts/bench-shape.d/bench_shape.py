#!/usr/bin/env python3
"""The measuring half of scripts/bench-shape, which builds first and then
runs this with --build DIR. Python 3 standard library only.

A profiler must not change the shape of the program it profiles. One shape
that costs: while a process has a single thread, glibc and libstdc++ skip
locks and atomic operations (__libc_single_threaded, <sys/single_threaded.h>;
it drops to 0 for good at the first pthread_create). A profiler that starts
a thread of its own in a single-threaded program makes every getc, every
calloc and every shared_ptr copy dearer, whether it samples or not. Four
single-threaded loops, each a program of its own with the size as its
argument, compiled here with cc/c++ -O2 (loops.c, shared_ptr.cc):

- getc/putc: getc from /dev/zero, putc to /dev/null (stdio FILE *, the
  locking calls), 200 M chars;
- calloc+free: calloc(1, 64) and free, 50 M pairs;
- shared_ptr copy: a std::shared_ptr<int> copied into a by-value argument
  of a function that is neither inlined nor analyzed, 200 M copies;
- malloc+free: malloc(64) and free, 50 M pairs.

Each loop prints single=%d (__libc_single_threaded when it ended) to
stderr; this script checks that it is 1 under profrun's default
configuration, the fact the benchmark is about.

Configurations: bare; bare again (noise: how far two identical
configurations differ); idle thread, the reference for what merely having
a second thread costs (idle_thread.c preloaded: its constructor starts one
thread that blocks in pause() forever); profrun -q -o X -- (the default:
time sampling at 1 kHz and space sampling); profrun --no-time; profrun
--no-space; gperftools' CPU profiler (LD_PRELOAD libprofiler.so.0,
CPUPROFILE=X, CPUPROFILE_FREQUENCY=1000, as scripts/bench does it).
Round after round every loop runs in every configuration, the order of the
configurations rotated by one each round and reversed every other round,
so that load from elsewhere on a shared machine falls on all of them
alike; profrun's default runs between its two floors, next to the runs
its verdict is compared with. Every run is pinned to one CPU
as in scripts/bench-space (--cpu; by default the CPU that runs a short
loop fastest right before the run, because on the 2-vCPU virtual machines
one vCPU at times runs at half the speed of the other).

Measured per run: CPU time, user + sys of the command and everything it
reaped (wait4), so profrun's launcher counts too; and the loop's own CPU
time, which each loop prints (loop_cpu_ns=, the process's CPU clock
around the loop: signal handlers in, the process's start and exit out),
to split an excess over the floor into what the loop pays and what
starting and ending the profiled process costs. Printed, as Markdown:
per loop and configuration the median CPU time over the rounds divided by
the median of the bare runs, and a verdict per loop against the goals for
profrun (getc/putc <= 1.05 x, calloc+free <= 1.15 x for --no-time,
shared_ptr copy <= 1.10 x, malloc+free <= 1.10 x, each for profrun's
default configuration unless said otherwise); "cannot tell" when the two
bare configurations differ by more than half the goal's margin. Each goal
is also restated against the floor that the machine's kernel and a
forwarding malloc set (floor.c, forward.c), and judged on profrun's
excess over that floor round by round: the median of the rounds'
differences with a distribution-free 95 % interval; "met" when the whole
interval is within the goal, "NOT met" when all of it is beyond, "cannot
tell" otherwise or with fewer than 6 rounds.

With --instructions it counts instead of timing, as scripts/bench-space
does: each loop once under valgrind --tool=callgrind (children followed,
so the loop under profrun's launcher is counted, the launcher not) bare,
with the idle thread and under profrun --no-time (time sampling is left
out there: under valgrind its timer measures valgrind's own execution),
at a hundredth of the sizes unless --scale says otherwise. Instruction
counts are repeatable, but a lock-prefixed instruction counts as one
instruction like any other, so they show the extra instructions of the
locked paths, not what the atomic operations cost.
"""

import argparse
import datetime
import glob
import hashlib
import math
import os
import re
import shlex
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
from benchlib import fastest_cpu, quiet_output, read_first  # noqa: E402
from benchlib import spawn_measured  # noqa: E402

LIBPROFILER = '/usr/lib/x86_64-linux-gnu/libprofiler.so.0'
RUN_TIMEOUT = 300
HERE = os.path.dirname(os.path.abspath(__file__))


@dataclass
class Loop:
    name: str
    program: str        # 'loops' or 'shared_ptr'
    mode: list          # arguments before the size
    size: int           # iterations at --scale 1
    unit: str
    goal: float         # the goal for profrun, x bare CPU
    goal_config: str    # the configuration the goal is for


PROFRUN_DEFAULT = 'profrun (time+space)'
PROFRUN_NO_TIME = 'profrun --no-time'
PROFRUN_NO_SPACE = 'profrun --no-space'
# The floor of a profiler that samples time and wraps the malloc family:
# the 1 kHz signals to an empty handler and a malloc and free that only
# jump to the real ones (scripts/bench-space.d/forward.c).
FLOOR_FORWARD = 'floor 1 kHz + forwarding malloc'

LOOPS = [
    Loop('getc/putc', 'loops', ['getc'], 200_000_000, 'chars', 1.05,
         PROFRUN_DEFAULT),
    Loop('calloc+free', 'loops', ['calloc'], 50_000_000, 'pairs', 1.15,
         PROFRUN_NO_TIME),
    Loop('shared_ptr copy', 'shared_ptr', [], 200_000_000, 'copies', 1.10,
         PROFRUN_DEFAULT),
    Loop('malloc+free', 'loops', ['malloc'], 50_000_000, 'pairs', 1.10,
         PROFRUN_DEFAULT),
]


def loop_key(loop):
    """The loop's name for --loop: its first word (getc, calloc, ...)."""
    return re.split(r'[/+ ]', loop.name)[0]


LOOP_KEYS = [loop_key(loop) for loop in LOOPS]


@dataclass
class Config:
    label: str
    tool: str                  # bare | idle | profrun | gperftools | floor
    options: list = field(default_factory=list)   # profrun's


CONFIGS = [
    Config('bare', 'bare'),
    Config('bare again (noise)', 'bare'),
    Config('idle thread (reference)', 'idle'),
    Config(PROFRUN_DEFAULT, 'profrun'),
    Config(PROFRUN_NO_TIME, 'profrun', ['--no-time']),
    Config(PROFRUN_NO_SPACE, 'profrun', ['--no-space']),
    Config('gperftools 1 kHz', 'gperftools'),
    Config('floor 1 kHz', 'floor'),
    Config(FLOOR_FORWARD, 'floor+forward'),
]


class RunFailed(Exception):
    pass


# ---- building the loops -------------------------------------------------

def build_programs(out):
    """Compiles the loops and the idle-thread library into out; returns
    {name: path}."""
    progs = {
        'loops': (['cc', '-O2'], 'loops.c', []),
        'shared_ptr': (['c++', '-O2'], 'shared_ptr.cc', []),
        'idle_thread.so': (['cc', '-O2', '-fPIC', '-shared'],
                           'idle_thread.c', ['-pthread']),
        # scripts/bench's floor: the same perf task-clock signals as
        # profrun's, to a handler that only counts them.
        'floor.so': (['cc', '-O2', '-fPIC', '-shared'],
                     os.path.join('..', 'bench.d', 'floor.c'),
                     ['-pthread', '-ldl']),
        'forward.so': (['cc', '-O2', '-fPIC', '-shared'],
                       os.path.join('..', 'bench-space.d', 'forward.c'),
                       ['-ldl']),
    }
    paths = {}
    for name, (cc, src, libs) in progs.items():
        path = os.path.join(out, name)
        argv = cc + ['-o', path, os.path.join(HERE, src)] + libs
        r = subprocess.run(argv, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True)
        if r.returncode != 0:
            raise SystemExit(f'bench-shape: {shlex.join(argv)} failed:\n'
                             f'{r.stdout}')
        paths[name] = path
    return paths


# ---- running ------------------------------------------------------------


def run_measured(argv, env, errfile, cpu):
    """Runs argv (benchlib.spawn_measured) pinned to cpu (none if
    negative). Returns (CPU seconds, exit status, stderr)."""
    _, ru, status, err = spawn_measured(argv, env, errfile, RUN_TIMEOUT,
                                        cpu)
    return ru.ru_utime + ru.ru_stime, status, err


class Bench:
    def __init__(self, build, work, progs, args):
        self.build = build
        self.work = work
        self.progs = progs
        self.args = args
        self.profrun = os.path.join(build, 'preload', 'profrun')
        env = {k: v for k, v in os.environ.items()
               if k != 'LD_PRELOAD' and not k.startswith('PROF_')
               and not k.startswith('CPUPROFILE')}
        env['LC_ALL'] = 'C'
        self.env = env
        self.seq = 0

    def missing(self, cfg):
        """Why cfg cannot run here, or None."""
        if cfg.tool == 'gperftools' and not os.path.exists(LIBPROFILER):
            return f'{LIBPROFILER} not installed'
        if cfg.tool == 'profrun' and not os.access(self.profrun, os.X_OK):
            return f'{self.profrun} not built'
        return None

    def command(self, cfg, loop, n, base):
        """(argv, extra environment) of loop with n iterations under
        cfg; base is the prefix of its temporary files."""
        argv = [self.progs[loop.program]] + loop.mode + [str(n)]
        env = {}
        if cfg.tool == 'idle':
            env['LD_PRELOAD'] = self.progs['idle_thread.so']
        elif cfg.tool == 'profrun':
            argv = ([self.profrun, '-q', '-o', base + '.spool'] +
                    cfg.options + ['--'] + argv)
        elif cfg.tool == 'gperftools':
            env.update(LD_PRELOAD=LIBPROFILER, CPUPROFILE=base + '.prof',
                       CPUPROFILE_FREQUENCY='1000')
        elif cfg.tool == 'floor':
            env.update(LD_PRELOAD=self.progs['floor.so'], FLOOR_HZ='1000')
        elif cfg.tool == 'floor+forward':
            env.update(LD_PRELOAD=self.progs['forward.so'] + ' ' +
                       self.progs['floor.so'], FLOOR_HZ='1000')
        return argv, env

    def measure(self, cfg, loop, n):
        """One run; returns {'cpu': seconds, 'single': 0, 1 or None,
        'loop': the loop's own CPU seconds or None}. Raises RunFailed."""
        self.seq += 1
        base = os.path.join(self.work, f'{self.seq}')
        argv, extra = self.command(cfg, loop, n, base)
        env = dict(self.env)
        env.update(extra)
        cpu = fastest_cpu() if self.args.cpu == 'auto' else int(self.args.cpu)
        try:
            secs, status, err = run_measured(argv, env, base + '.err', cpu)
            if status != 0:
                raise RunFailed(f'{shlex.join(argv)}: exit {status}: '
                                f'{err.strip()[-300:]}')
            # A profiler that wrote nothing did not profile.
            out = {'profrun': base + '.spool',
                   'gperftools': base + '.prof'}.get(cfg.tool)
            if out and not (os.path.exists(out) and os.path.getsize(out)):
                raise RunFailed(f'{shlex.join(argv)}: wrote no profile '
                                f'{os.path.basename(out)}')
            m = re.findall(r'^single=(\d+)$', err, re.M)
            lp = re.findall(r'^loop_cpu_ns=(\d+)$', err, re.M)
            return {'cpu': secs, 'single': int(m[-1]) if m else None,
                    'loop': int(lp[-1]) / 1e9 if lp else None}
        finally:
            for f in glob.glob(glob.escape(base) + '.*'):
                os.unlink(f)


def size(loop, scale):
    return max(1, int(loop.size * scale))


def probe(bench, args, failures):
    """One short, unmeasured run per configuration and loop: warms the
    caches and drops what cannot run here."""
    usable = []
    for cfg in CONFIGS:
        why = bench.missing(cfg)
        if not why:
            try:
                for loop in LOOPS:
                    bench.measure(cfg, loop, size(loop, args.scale / 100))
            except (RunFailed, OSError) as e:
                why = str(e).splitlines()[0][:300]
        if why:
            failures[cfg.label] = why
            print(f'bench-shape: {cfg.label}: not run: {why}',
                  file=sys.stderr)
        else:
            usable.append(cfg)
    return usable


def run_sequence(cfgs):
    """cfgs in the order a round runs them: profrun's default between its
    two floors, so that the runs a verdict compares are next to each
    other in time (the machine's speed drifts over seconds)."""
    pair = ('floor 1 kHz', PROFRUN_DEFAULT, FLOOR_FORWARD)
    rest = [c for c in cfgs if c.label not in pair]
    return rest + [c for p in pair for c in cfgs if c.label == p]


def run_rounds(bench, cfgs, args, failures):
    """Returns {loop name: {config label: [measurement, ...]}}."""
    res = {loop.name: {c.label: [] for c in cfgs} for loop in LOOPS}
    seq = run_sequence(cfgs)
    for r in range(args.rounds):
        # Rotated by one each round, and backwards every other round:
        # each configuration runs early and late, before and after its
        # neighbours.
        k = r % len(seq)
        order = seq[k:] + seq[:k]
        if r % 2:
            order.reverse()
        t0 = time.perf_counter()
        for loop in LOOPS:
            n = size(loop, args.scale)
            for cfg in order:
                try:
                    res[loop.name][cfg.label].append(
                        bench.measure(cfg, loop, n))
                except (RunFailed, OSError) as e:
                    failures[cfg.label] = str(e).splitlines()[0][:300]
                    print(f'bench-shape: {loop.name}: {cfg.label}: {e}',
                          file=sys.stderr)
        print(f'bench-shape: round {r + 1}/{args.rounds} done '
              f'({time.perf_counter() - t0:.0f} s)', file=sys.stderr)
    return res


# ---- the tables ---------------------------------------------------------

def med(xs):
    return statistics.median(xs) if xs else float('nan')


def ratios(res, cfgs):
    """{loop: {label: median CPU / median bare CPU}}."""
    out = {}
    for loop in LOOPS:
        runs = res[loop.name]
        bare = med([m['cpu'] for m in runs['bare']])
        out[loop.name] = {c.label: med([m['cpu'] for m in runs[c.label]]) /
                          bare for c in cfgs if runs[c.label]}
    return out


def single_cell(runs):
    vals = {m['single'] for m in runs}
    if not runs:
        return ''
    if vals == {1}:
        return '1'
    if vals == {0}:
        return '0'
    if vals == {None}:
        return 'no single= line'
    return ('mixed: ' + ', '.join(str(m['single']) for m in runs))


def print_tables(res, cfgs, failures, args):
    rel = ratios(res, cfgs)
    head = ['loop', 'bare CPU, median'] + [c.label for c in CONFIGS[1:]]
    print('| ' + ' | '.join(head) + ' |')
    print('|' + '---|' * len(head))
    for loop in LOOPS:
        n = size(loop, args.scale)
        bare = med([m['cpu'] for m in res[loop.name]['bare']])
        cells = [f'{loop.name}, {n / 1e6:g} M {loop.unit}',
                 f'{bare:.2f} s ({1e9 * bare / n:.1f} ns each)']
        for c in CONFIGS[1:]:
            r = rel[loop.name].get(c.label)
            cells.append(f'{r:.2f}×' if r is not None else
                         'not run' if c.label in failures else '')
        print('| ' + ' | '.join(cells) + ' |')
    if failures:
        print()
        for label, why in failures.items():
            print(f'- {label}: not run (or not every run): {why}')

    print('\n`__libc_single_threaded` when each loop ended (the loop\'s '
          '`single=` line; 1: one thread\'s shape throughout):\n')
    head = ['loop'] + [c.label for c in CONFIGS if c.label !=
                       'bare again (noise)']
    print('| ' + ' | '.join(head) + ' |')
    print('|' + '---|' * len(head))
    for loop in LOOPS:
        cells = [loop.name]
        for c in CONFIGS:
            if c.label == 'bare again (noise)':
                continue
            cells.append(single_cell(res[loop.name].get(c.label, [])))
        print('| ' + ' | '.join(cells) + ' |')

    default = [m['single'] for loop in LOOPS
               for m in res[loop.name].get(PROFRUN_DEFAULT, [])]
    print()
    if not default:
        print('Shape check: profrun\'s default configuration did not run; '
              'no check.')
    elif all(s == 1 for s in default):
        print(f'Shape check: under profrun\'s default configuration '
              f'`__libc_single_threaded` was 1 at the end of every run '
              f'({len(default)} runs): the program kept a single '
              f'thread\'s shape.')
    else:
        bad = sum(1 for s in default if s != 1)
        print(f'Shape check FAILED: under profrun\'s default configuration '
              f'`__libc_single_threaded` was not 1 at the end of {bad} of '
              f'{len(default)} runs: profrun gave the program a second '
              f'thread (or the loop printed no single= line).')

    print()
    for loop in LOOPS:
        r = rel[loop.name]
        got = r.get(loop.goal_config)
        noise = abs(r.get('bare again (noise)', 1.0) - 1)
        margin = loop.goal - 1
        if got is None:
            v = f'{loop.goal_config} did not run; no verdict'
        elif noise > margin / 2:
            v = (f'{got:.3f}×; goal ≤ {loop.goal:.2f}×: cannot tell, the '
                 f'two bare configurations differ by {100 * noise:.1f} %')
        else:
            v = (f'{got:.3f}×; goal ≤ {loop.goal:.2f}×: '
                 f'{"met" if got <= loop.goal else "NOT met"} in this run '
                 f'(bare vs bare {100 * noise:.1f} %)')
        also = ''
        if loop.goal_config != PROFRUN_DEFAULT and PROFRUN_DEFAULT in r:
            also = f'; {PROFRUN_DEFAULT}: {r[PROFRUN_DEFAULT]:.3f}×'
        idle = r.get('idle thread (reference)')
        ref = f'; an idle second thread: {idle:.2f}×' if idle else ''
        # The loops that allocate pay a malloc-wrapping profiler's floor
        # too: a jump to the real function at every call.
        allocates = loop.mode[:1] in (['malloc'], ['calloc'])
        flabel = FLOOR_FORWARD if allocates else 'floor 1 kHz'
        floor = r.get(flabel)
        if floor and got is not None and loop.goal_config == PROFRUN_DEFAULT:
            # The goal restated against the machine's floor: what the
            # same signals cost with an empty handler (and, for the
            # allocating loops, a forwarding malloc), measured in the
            # same rounds, is no profiler's to save.
            what = ('1 kHz signals, empty handler, forwarding malloc'
                    if allocates else '1 kHz signals, empty handler')
            ref += (f'; the floor ({what}): {floor:.3f}×; '
                    + over_floor(res[loop.name], PROFRUN_DEFAULT, flabel,
                                 100 * (loop.goal - 1)))
        print(f'- {loop.name}, {loop.goal_config}: {v}{also}{ref}')


def median_interval(xs, level=0.95):
    """A distribution-free interval for the median of the population xs
    was drawn from: the k-th smallest and k-th largest of xs, k the
    largest for which the binomial(n, 1/2) tail below k is at most
    (1 - level) / 2. None when n is too small for any (n < 6 at 95 %)."""
    xs = sorted(xs)
    n = len(xs)
    tail, k = 0.0, 0
    while k < n // 2:
        tail += math.comb(n, k) / 2 ** n
        if tail > (1 - level) / 2:
            break
        k += 1
    if k == 0:
        return None
    return xs[k - 1], xs[n - k]


def paired(got, floor, key, bare):
    """The rounds' differences got - floor of measurement key, in % of
    bare, sorted, and their median's 95 % interval (None when too few);
    None when a run lacks the figure."""
    if any(m.get(key) is None for m in got + floor):
        return None, None
    d = sorted(100 * (a[key] - b[key]) / bare for a, b in zip(got, floor))
    return d, median_interval(d)


def over_floor(runs, label, floor_label, goal):
    """The verdict on profrun's excess over the floor, from the two's
    runs paired round by round (they ran next to each other, so the
    machine's drift from round to round cancels), in % of the median bare
    run: the median of the differences and its 95 % interval. Met when
    the whole interval is at most goal, NOT met when all of it is above,
    cannot tell otherwise; the difference of the two medians is shown as
    well, and the same paired figure of the CPU time the loop itself
    reports (the process's start and exit, the profiler's set-up and its
    launcher left out), in % of the bare runs' median loop time."""
    got, floor = runs.get(label, []), runs.get(floor_label, [])
    if not got or len(got) != len(floor):
        return 'profrun and the floor did not run alike; no verdict'
    bare = med([m['cpu'] for m in runs['bare']])
    d, ci = paired(got, floor, 'cpu', bare)
    medians = 100 * (med([m['cpu'] for m in got]) -
                     med([m['cpu'] for m in floor])) / bare
    text = (f'profrun\'s excess over it round by round {med(d):+.1f} % of '
            f'bare (median of {len(d)}')
    if ci is None:
        verdict = (f'cannot tell: {len(d)} rounds are too few for a 95 % '
                   f'interval (at least 6)')
    else:
        lo, hi = ci
        text += f', 95 % interval {lo:+.1f} to {hi:+.1f}'
        verdict = ('met' if hi <= goal else 'NOT met' if lo > goal else
                   'cannot tell, the interval spans the goal')
    text += (f'; range {d[0]:+.1f} to {d[-1]:+.1f}; difference of the '
             f'medians {medians:+.1f}); goal over the floor ≤ {goal:.0f} %: '
             f'{verdict}')
    bare_loops = [m['loop'] for m in runs['bare'] if m.get('loop')]
    if bare_loops:
        d, ci = paired(got, floor, 'loop', med(bare_loops))
        if d:
            text += (f'; in the loop alone (its own CPU clock; start and '
                     f'exit left out) {med(d):+.1f} %')
            if ci:
                text += f', 95 % interval {ci[0]:+.1f} to {ci[1]:+.1f}'
    return text


# ---- instruction counts -------------------------------------------------

def callgrind_count(bench, cfg, loop, n, tmp):
    """Instructions of the loop's process under callgrind (children
    followed: under profrun the loop is the launcher's child)."""
    out = os.path.join(tmp, 'cg.%p')
    argv, extra = bench.command(cfg, loop, n, os.path.join(tmp, 'x'))
    cmd = ['valgrind', '--tool=callgrind', '--trace-children=yes',
           f'--callgrind-out-file={out}'] + argv
    env = dict(bench.env)
    env.update(extra)
    r = subprocess.run(cmd, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True, errors='replace',
                       env=env, timeout=RUN_TIMEOUT * 4)
    if r.returncode != 0:
        raise RunFailed(f'{shlex.join(cmd)}: exit {r.returncode}: '
                        f'{r.stderr.strip()[-300:]}')
    target = os.path.basename(argv[0] if cfg.tool != 'profrun' else
                              bench.progs[loop.program])
    best = 0
    for f in glob.glob(os.path.join(tmp, 'cg.*')):
        with open(f) as fh:
            text = fh.read()
        os.unlink(f)
        cmd_line = [x for x in text.splitlines() if x.startswith('cmd:')][:1]
        if not cmd_line or os.path.basename(
                cmd_line[0].split()[1]) != target:
            continue  # profrun's launcher
        for line in text.splitlines():
            if line.startswith(('summary:', 'totals:')):
                best = max(best, int(line.split()[1]))
    for f in glob.glob(os.path.join(tmp, 'x*')):
        os.unlink(f)
    if not best:
        raise RunFailed(f'{shlex.join(cmd)}: no callgrind output for '
                        f'{target}')
    return best


def count_instructions(bench, args, tmp):
    if not shutil.which('valgrind'):
        raise SystemExit('bench-shape: valgrind not installed')
    cfgs = [c for c in CONFIGS if c.label in
            ('bare', 'idle thread (reference)', PROFRUN_NO_TIME)]
    print(f'Instructions of the loop\'s process under valgrind '
          f'--tool=callgrind, sizes at scale {args.scale:g}, less those of '
          f'a run of 0 iterations in the same configuration; per iteration '
          f'(one char, pair or copy) and over bare.\n')
    head = ['loop'] + [c.label for c in cfgs]
    print('| ' + ' | '.join(head) + ' |')
    print('|' + '---|' * len(head))
    for loop in LOOPS:
        n = size(loop, args.scale)
        cells = [f'{loop.name}, {n / 1e6:g} M {loop.unit}']
        bare = None
        for c in cfgs:
            try:
                # Less a run of no iterations: what is left is the loop's,
                # without the start and exit of the process (the
                # profiler's set-up, the idle thread's creation).
                k = (callgrind_count(bench, c, loop, n, tmp) -
                     callgrind_count(bench, c, loop, 0, tmp))
            except (RunFailed, OSError, subprocess.SubprocessError) as e:
                print(f'bench-shape: {loop.name}: {c.label}: {e}',
                      file=sys.stderr)
                cells.append('failed')
                continue
            if bare is None and c.tool == 'bare':
                bare = k
                cells.append(f'{k / n:.1f}')
            elif bare:
                cells.append(f'{k / n:.1f} ({k / bare:.3f}×)')
            else:
                cells.append(f'{k / n:.1f}')
        print('| ' + ' | '.join(cells) + ' |', flush=True)


# ---- the run ------------------------------------------------------------


def machine_facts():
    model = '?'
    for line in read_first('/proc/cpuinfo', '').splitlines():
        if line.startswith('model name'):
            model = line.split(':', 1)[1].strip()
            break
    flags = re.search(r'^flags\s*:(.*)$', read_first('/proc/cpuinfo', ''),
                      re.M)
    vm = (', virtual machine (cpuinfo flag hypervisor)'
          if flags and 'hypervisor' in flags.group(1).split() else '')
    gperf = quiet_output(['dpkg-query', '-W', '-f', '${Version}',
                          'google-perftools']) or 'none'
    cc = quiet_output(['cc', '--version']).splitlines()[:1] or ['?']
    head = quiet_output(['git', 'rev-parse', '--short', 'HEAD'])
    diff = subprocess.run(['git', 'diff', 'HEAD'], stdout=subprocess.PIPE,
                          stderr=subprocess.DEVNULL).stdout
    dirty = (f' + uncommitted changes (git diff HEAD sha256 '
             f'{hashlib.sha256(diff).hexdigest()[:12]})' if diff else '')
    return [
        f'- nproc {os.cpu_count()} (usable {len(os.sched_getaffinity(0))}), '
        f'{model}{vm}',
        f'- kernel {os.uname().release}, '
        f'{os.confstr("CS_GNU_LIBC_VERSION")}, {cc[0]}, '
        f'google-perftools {gperf}',
        f'- profrun at git {head}{dirty}',
    ]


def parse_args():
    ap = argparse.ArgumentParser(
        prog='scripts/bench-shape',
        description='Measures whether profrun changes the shape of a '
        'single-threaded program: four loops whose cost glibc and '
        'libstdc++ cut while a process has one thread, bare, with an idle '
        'second thread, under profrun and under gperftools; prints '
        'Markdown.')
    ap.add_argument('--build', default='build-bench-shape',
                    help='meson build directory (scripts/bench-shape sets '
                    'it)')
    ap.add_argument('--rounds', type=int, default=10,
                    help='rounds of interleaved runs (default 10; the '
                    'verdicts against the floors need at least 6)')
    ap.add_argument('--scale', type=float, default=None,
                    help='multiplies the loop sizes (default 1: 200 M '
                    'chars, 50 M pairs, 200 M copies, 50 M pairs; with '
                    '--instructions 0.01)')
    ap.add_argument('--cpu', default='auto',
                    help='the CPU every run is pinned to; auto (the '
                    'default): the fastest right before each run; -1: not '
                    'pinned')
    ap.add_argument('--loop', action='append', choices=LOOP_KEYS,
                    help='run this loop only (may be repeated; default: '
                    'all four): more rounds of one loop in the same time, '
                    'for a tighter figure')
    ap.add_argument('--instructions', action='store_true',
                    help='count instructions under callgrind instead of '
                    'timing: bare, idle thread and profrun --no-time, once '
                    'each')
    a = ap.parse_args()
    if a.loop:
        LOOPS[:] = [loop for loop in LOOPS if loop_key(loop) in a.loop]
    if a.rounds < 1:
        ap.error('--rounds must be at least 1')
    if a.scale is None:
        a.scale = 0.01 if a.instructions else 1.0
    if a.scale <= 0:
        ap.error('--scale must be positive')
    if a.cpu != 'auto':
        try:
            int(a.cpu)
        except ValueError:
            ap.error('--cpu takes auto or a number')
    return a


def on_term(signum, frame):
    raise SystemExit(128 + signum)


def main():
    args = parse_args()
    signal.signal(signal.SIGTERM, on_term)
    args.build = os.path.abspath(args.build)
    started = datetime.datetime.now().astimezone()
    load_before = read_first('/proc/loadavg')
    failures = {}
    with tempfile.TemporaryDirectory(prefix='profrun-bench-shape-') as work:
        progs = build_programs(work)
        bench = Bench(args.build, work, progs, args)
        if args.instructions:
            count_instructions(bench, args, work)
            return 0
        facts = machine_facts()
        cfgs = probe(bench, args, failures)
        if not cfgs or cfgs[0].label != 'bare':
            print('bench-shape: the bare runs fail; nothing to compare with',
                  file=sys.stderr)
            return 0
        res = run_rounds(bench, cfgs, args, failures)
    elapsed = datetime.datetime.now().astimezone() - started
    argv = sys.argv[1:]
    if argv[:1] == ['--build']:
        argv = argv[2:]
    cmd = shlex.join(['scripts/bench-shape'] + argv)
    pinned = ('each pinned to the fastest CPU' if args.cpu == 'auto' else
              'not pinned' if int(args.cpu) < 0 else
              f'pinned to CPU {args.cpu}')

    print(f'## profrun shape benchmark, {started:%Y-%m-%d %H:%M %Z}\n')
    print(f'Command: `{cmd}` ({args.rounds} round{"s" if args.rounds != 1 else ""}, scale {args.scale:g}, '
          f'runs {pinned}, build {os.path.relpath(args.build)}/, '
          f'{int(elapsed.total_seconds() // 60)} min '
          f'{int(elapsed.total_seconds() % 60)} s)\n')
    print('\n'.join(facts))
    print(f'- load average before {load_before.split(" ", 3)[:3]}, after '
          f'{read_first("/proc/loadavg").split(" ", 3)[:3]}\n')
    print('CPU time (user+sys, wait4, the profiler\'s launcher included) of '
          'each configuration, median over the rounds, over the median of '
          'the bare runs:\n')
    print_tables(res, cfgs, failures, args)
    return 0


if __name__ == '__main__':
    sys.exit(main())
