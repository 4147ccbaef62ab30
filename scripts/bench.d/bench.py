#!/usr/bin/env python3
"""The measuring half of scripts/bench, which builds first and then runs
this with --build DIR. Python 3 standard library only.

Each ground-truth target runs bare and under every profiler configuration,
round after round; the order of the configurations is rotated each round so
that load from elsewhere on a shared machine hits them all alike, and every
run is compared with the bare run of its own round. What gets printed are
ratios and shares; absolute times appear only as the context of a table.

Per run it measures:
- wall: time.perf_counter() around spawning and reaping the whole command
  (profrun's launcher, perf record and its post-processing included);
- CPU: user+sys of the command and of every process it reaped (wait4), so
  the profilers' own processes count too;
- the target's own CPU, the denominator of "samples per CPU-second": the
  spool footer for profrun, wait4 of the target for gperftools (it is the
  command itself), /usr/bin/time inside perf record for perf;
- samples, and each ground-truth function's share of all samples: profrun
  from `profanalyze --json` (self samples), gperftools from `google-pprof
  --text` ("Total: N samples" and the function's cumulative count, because
  pprof gives the self samples to the inlined loop), perf from `perf report
  --no-children --sort sym`.

The floor configurations preload scripts/bench.d/floor.c (built here with
cc into the temporary directory): the same per-thread perf counter and
SIGPROF as profrun's perf timer with an empty handler, which counts the
signals and reports them on stderr at exit. Its CPU over bare is what the
kernel charges for the signals alone, the floor of any signal-based
profiler; profrun's excess over it is profrun's own cost.
"""

import argparse
import datetime
import gzip
import hashlib
import json
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
from benchlib import quiet_output, read_first  # noqa: E402
from benchlib import spawn_measured  # noqa: E402

LIBPROFILER = '/usr/lib/x86_64-linux-gnu/libprofiler.so.0'
GNU_TIME = '/usr/bin/time'
RUN_TIMEOUT = 300

# The targets for profrun at 1 kHz.
GOAL_OVERHEAD_PCT = 2.0
GOAL_DELIVERED_PCT = 95.0
GOAL_SHARE_PTS = 2.0
# profrun 1 kHz's CPU beyond the floor's (the kernel's signal delivery), in
# percent of the bare run's CPU.
GOAL_EXCESS_PCT = 1.0

FLOOR_SOURCE = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                            'floor.c')


@dataclass
class Target:
    name: str
    truth: dict      # function name -> percent of the work, by construction
    iters_per_ms: int = 0   # the fixed work of the rounds (calibrate())


TARGETS = [
    Target('work_split', {'leaf_50': 50, 'leaf_30': 30, 'leaf_20': 20}),
    Target('threads', {'thread_work_1': 10, 'thread_work_2': 20,
                       'thread_work_3': 30, 'thread_work_4': 40}),
]


@dataclass
class Config:
    label: str
    tool: str        # bare | profrun | floor | gperftools | perf
    hz: int = 0
    env: dict = field(default_factory=dict)


def configs(extra):
    # A second bare run each round measures the noise: how far two bare
    # runs of the same round differ when nothing differs between them.
    c = [Config('bare', 'bare'),
         Config('bare again (noise)', 'bare'),
         Config('profrun 1 kHz', 'profrun', 1000),
         Config('floor 1 kHz', 'floor', 1000, {'FLOOR_HZ': '1000'}),
         Config('gperftools 1 kHz', 'gperftools', 1000),
         Config('perf 1 kHz', 'perf', 1000),
         Config('profrun 10 kHz', 'profrun', 10000),
         Config('floor 10 kHz', 'floor', 10000, {'FLOOR_HZ': '10000'}),
         Config('perf 10 kHz', 'perf', 10000)]
    if extra:
        # The stack walk cut to one frame: what is left of the cost per
        # sample is the signal, the timer and the spool.
        c += [Config('profrun 1 kHz depth 1', 'profrun', 1000,
                     {'PROF_MAX_DEPTH': '1'}),
              Config('profrun 10 kHz depth 1', 'profrun', 10000,
                     {'PROF_MAX_DEPTH': '1'})]
    return c


class RunFailed(Exception):
    pass


@dataclass
class Run:
    wall: float
    user: float
    sys: float
    status: int
    stderr: str


def run_measured(argv, env, errfile):
    """Runs argv (benchlib.spawn_measured), unpinned."""
    wall, ru, status, err = spawn_measured(argv, env, errfile, RUN_TIMEOUT)
    return Run(wall, ru.ru_utime, ru.ru_stime, status, err)


def output_of(argv, env):
    r = subprocess.run(argv, env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True, errors='replace',
                       timeout=RUN_TIMEOUT)
    if r.returncode != 0:
        raise RunFailed(f'{shlex.join(argv)}: exit {r.returncode}: '
                        f'{r.stderr.strip()[-500:]}')
    return r.stdout


class Bench:
    def __init__(self, build, workdir):
        self.build = build
        self.work = workdir
        self.profrun = os.path.join(build, 'preload', 'profrun')
        self.profanalyze = os.path.join(build, 'analyzer', 'profanalyze')
        self.perf = shutil.which('perf')
        self.pprof = shutil.which('google-pprof') or shutil.which('pprof')
        env = {k: v for k, v in os.environ.items()
               if k != 'LD_PRELOAD' and not k.startswith('PROF_')
               and not k.startswith('CPUPROFILE')}
        env['LC_ALL'] = 'C'
        self.env = env
        self.seq = 0
        self.floor, self.floor_error = self.build_floor()

    def build_floor(self):
        """Compiles floor.c into the work directory: (path, None), or
        (None, why not)."""
        cc = shutil.which('cc')
        if not cc:
            return None, 'no C compiler (cc) to build the floor library'
        out = os.path.join(self.work, 'libfloor.so')
        argv = [cc, '-O2', '-shared', '-fPIC', '-o', out, FLOOR_SOURCE,
                '-ldl']
        r = subprocess.run(argv, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True,
                           errors='replace')
        if r.returncode != 0:
            return None, (f'{shlex.join(argv)}: exit {r.returncode}: '
                          f'{r.stdout.strip()[-300:]}')
        return out, None

    def target_path(self, target):
        return os.path.join(self.build, 'tests', 'targets', target.name)

    def missing(self, cfg):
        """Why cfg cannot run here, or None."""
        if cfg.tool == 'gperftools':
            if not os.path.exists(LIBPROFILER):
                return f'{LIBPROFILER} not installed'
            if not self.pprof:
                return 'google-pprof not installed'
        if cfg.tool == 'perf':
            if not self.perf:
                return 'perf not installed'
            if not os.access(GNU_TIME, os.X_OK):
                return f'{GNU_TIME} (GNU time) not installed'
        if cfg.tool == 'floor' and not self.floor:
            return self.floor_error
        return None

    def measure(self, cfg, target, scale):
        """One run of target under cfg; returns a dict of what it
        measured. Raises RunFailed."""
        self.seq += 1
        base = os.path.join(self.work, f'{self.seq}')
        path = self.target_path(target)
        env = dict(self.env)
        env.update(cfg.env)
        if target.iters_per_ms:
            env['WORK_ITERS_PER_MS'] = str(target.iters_per_ms)
        hz = str(cfg.hz)
        if cfg.tool == 'bare':
            argv = [path, scale]
        elif cfg.tool == 'profrun':
            argv = [self.profrun, '-q', '-F', hz, '-o', base + '.spool',
                    '--', path, scale]
        elif cfg.tool == 'floor':
            argv = [path, scale]
            env['LD_PRELOAD'] = self.floor
        elif cfg.tool == 'gperftools':
            argv = [path, scale]
            env.update(LD_PRELOAD=LIBPROFILER, CPUPROFILE=base + '.prof',
                       CPUPROFILE_FREQUENCY=hz)
        else:
            argv = [self.perf, 'record', '-q', '-e', 'cpu-clock', '-F', hz,
                    '-g', '-o', base + '.data', '--',
                    GNU_TIME, '-o', base + '.time', '-f', '%U %S',
                    path, scale]
        run = run_measured(argv, env, base + '.err')
        try:
            if run.status != 0:
                raise RunFailed(f'{shlex.join(argv)}: exit {run.status}: '
                                f'{run.stderr.strip()[-500:]}')
            m = {'wall': run.wall, 'user': run.user, 'sys': run.sys,
                 'cpu': run.user + run.sys}
            if cfg.tool == 'profrun':
                m.update(self.read_profrun(base + '.spool', target))
            elif cfg.tool == 'floor':
                # No profile: its samples are the signals it took.
                f = re.findall(r'^floor: (\d+) signals$', run.stderr, re.M)
                if not f:
                    raise RunFailed(f'{shlex.join(argv)} with LD_PRELOAD='
                                    f'{self.floor}: no "floor: N signals" '
                                    f'line on stderr: '
                                    f'{run.stderr.strip()[-300:]}')
                m.update(samples=int(f[-1]), own_cpu=m['cpu'])
            elif cfg.tool == 'gperftools':
                m.update(self.read_gperftools(base + '.prof', path, target))
                m['own_cpu'] = m['cpu']
            elif cfg.tool == 'perf':
                m.update(self.read_perf(base + '.data', base + '.time',
                                        target))
            if cfg.tool != 'bare' and m['samples'] <= 0:
                raise RunFailed(f'{shlex.join(argv)}: no samples')
            if cfg.tool != 'bare' and not m.get('own_cpu'):
                raise RunFailed(f'{shlex.join(argv)}: no CPU time for the '
                                f'program (a profile without footer?)')
            return m
        finally:
            for suffix in ('.spool', '.prof', '.data', '.time', '.err'):
                if os.path.exists(base + suffix):
                    os.unlink(base + suffix)

    def calibrate(self, target, runs=3):
        """Sets target.iters_per_ms from the fastest of a few bare runs.

        The targets normally work until their threads' CPU clocks have
        advanced by the amount asked for (tests/targets/work.h), which
        would absorb a profiler's cost into the work. The rounds run a
        fixed number of iterations instead, so that the cost shows as
        extra CPU and wall time; this finds the number that makes a bare
        run take what the scale asks for."""
        best = 0.0
        env = dict(self.env, WORK_REPORT='1')
        env.pop('WORK_ITERS_PER_MS', None)
        for _ in range(runs):
            r = subprocess.run([self.target_path(target), '0.3'], env=env,
                               stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, text=True,
                               timeout=RUN_TIMEOUT)
            m = re.search(r'work: (\d+) iterations in (\d+) ns of CPU',
                          r.stderr)
            if r.returncode != 0 or not m:
                raise RunFailed(f'{target.name}: calibration run: exit '
                                f'{r.returncode}: {r.stderr.strip()[-300:]}')
            best = max(best, int(m.group(1)) / (int(m.group(2)) / 1e6))
        target.iters_per_ms = max(1, int(best))

    def read_profrun(self, spool, target):
        r = json.loads(output_of([self.profanalyze, '--json', spool],
                                 self.env))
        counts = {name: 0 for name in target.truth}
        for f in r['functions']:
            if f['name'] in counts:
                counts[f['name']] += f['self_samples']
        return {'samples': r['samples'], 'counts': counts,
                'own_cpu': r['cpu_seconds'], 'timer': r['timer'],
                'dropped': sum(r['dropped'].values())}

    def read_gperftools(self, prof, binary, target):
        text = output_of([self.pprof, '--text', binary, prof], self.env)
        m = re.search(r'^Total: (\d+) samples', text, re.M)
        if not m:
            raise RunFailed(f'google-pprof --text {prof}: no "Total:" line')
        counts = {name: 0 for name in target.truth}
        # flat flat% sum% cum cum% name
        row = re.compile(r'^\s*\d+\s+\S+%\s+\S+%\s+(\d+)\s+\S+%\s+(.+?)\s*$')
        for line in text.splitlines():
            r = row.match(line)
            if r and r.group(2) in counts:
                counts[r.group(2)] += int(r.group(1))
        return {'samples': int(m.group(1)), 'counts': counts}

    def read_perf(self, data, timefile, target):
        text = output_of([self.perf, 'report', '-i', data, '--stdio',
                          '--no-children', '-g', 'none', '--sort', 'sym',
                          '-F', 'sample,sym', '-q'], self.env)
        counts = {name: 0 for name in target.truth}
        total = 0
        row = re.compile(r'^\s*(\d+)\s+\[.\]\s+(.+?)\s*$')
        for line in text.splitlines():
            r = row.match(line)
            if not r:
                continue
            total += int(r.group(1))
            if r.group(2) in counts:
                counts[r.group(2)] += int(r.group(1))
        with open(timefile) as f:
            # GNU time writes the line last, after any status note.
            user, sys_ = map(float, f.read().split()[-2:])
        return {'samples': total, 'counts': counts, 'own_cpu': user + sys_}


# ---- statistics and tables ----------------------------------------------

def med(xs):
    return statistics.median(xs) if xs else float('nan')


def pct_change(ratio):
    return f'{(ratio - 1) * 100:+.1f} %'


def spread(xs, fmt):
    return f'{fmt(med(xs))} [{fmt(min(xs))}, {fmt(max(xs))}]'


def summarize(target, cfgs, rounds):
    """rounds: list of {label: measurement}. Returns {label: summary}."""
    bare = [r['bare'] for r in rounds if 'bare' in r]
    bare_cpu = med([b['cpu'] for b in bare])
    out = {'bare': {'wall': med([b['wall'] for b in bare]), 'cpu': bare_cpu,
                    'runs': len(bare)}}
    for cfg in cfgs[1:]:
        pairs = [(r['bare'], r[cfg.label]) for r in rounds
                 if 'bare' in r and cfg.label in r]
        if not pairs:
            continue
        # Load from elsewhere only ever adds time, so the fastest of a
        # configuration's runs over the fastest bare run is the estimate
        # least disturbed by it.
        s = {'runs': len(pairs), 'hz': cfg.hz, 'tool': cfg.tool,
             'fastest': (min(m['wall'] for _, m in pairs) /
                         min(b['wall'] for b, _ in pairs)),
             'wall': [m['wall'] / b['wall'] for b, m in pairs],
             'cpu': [m['cpu'] / b['cpu'] for b, m in pairs]}
        out[cfg.label] = s
        if cfg.tool == 'bare':
            continue
        s.update({
             'own': [m['samples'] / (m['own_cpu'] * cfg.hz) * 100
                     for _, m in pairs],
             'vs_bare': [m['samples'] / (bare_cpu * cfg.hz) * 100
                         for _, m in pairs],
             'us': [(m['cpu'] - b['cpu']) / m['samples'] * 1e6
                    for b, m in pairs],
             'shares': {}, 'err': []})
        if cfg.tool == 'floor':
            continue
        for name in target.truth:
            s['shares'][name] = [m['counts'][name] / m['samples'] * 100
                                 for _, m in pairs]
        for i in range(len(pairs)):
            s['err'].append(max(abs(s['shares'][n][i] - t)
                                for n, t in target.truth.items()))
        s['timer'] = pairs[0][1].get('timer')
        s['dropped'] = sum(m.get('dropped', 0) for _, m in pairs)
    return out


def table(target, cfgs, summary, failures):
    truth = ' / '.join(str(t) for t in target.truth.values())
    b = summary['bare']
    lines = [
        f'### {target.name}',
        '',
        f'bare: median wall {b["wall"]:.2f} s, CPU (user+sys) '
        f'{b["cpu"]:.2f} s, {b["runs"]} runs; everything below is '
        f'relative to the bare run of the same round.',
        '',
        '| configuration | wall, fastest run vs fastest bare '
        '| wall vs bare of the round: median [min, max] '
        '| CPU vs bare of the round: median [min, max] '
        '| samples / (own CPU-s × Hz) | samples / (bare CPU-s × Hz) '
        f'| shares, % (truth {truth}) '
        '| share error, pts: median run / worst run |',
        '|---|---|---|---|---|---|---|---|',
    ]
    for cfg in cfgs[1:]:
        s = summary.get(cfg.label)
        if not s:
            why = failures.get(cfg.label, 'no run')
            lines.append(f'| {cfg.label} | not run: {why} | | | | | | |')
            continue
        if s['tool'] == 'bare':
            lines.append(f'| {cfg.label} | {pct_change(s["fastest"])} '
                         f'| {spread(s["wall"], pct_change)} '
                         f'| {spread(s["cpu"], pct_change)} | | | | |')
            continue
        # The floor writes no profile: no shares.
        shares = ' / '.join(f'{med(v):.1f}' for v in s['shares'].values())
        err = (f'{med(s["err"]):.1f} / {max(s["err"]):.1f}' if s['err']
               else '')
        lines.append(
            f'| {cfg.label} | {pct_change(s["fastest"])} '
            f'| {spread(s["wall"], pct_change)} '
            f'| {spread(s["cpu"], pct_change)} '
            f'| {med(s["own"]):.1f} % | {med(s["vs_bare"]):.1f} % '
            f'| {shares} | {err} |')
    # user and sys are not shown apart: the kernel splits a thread's run
    # time between them by sampling at its tick, too coarse for this.
    lines += ['', '| configuration | runs | extra CPU (user+sys) per sample: '
              'median [min, max] | notes |', '|---|---|---|---|']
    for cfg in cfgs[1:]:
        s = summary.get(cfg.label)
        if not s or s['tool'] == 'bare':
            continue
        notes = []
        if s.get('timer'):
            notes.append(f'timer {s["timer"]}')
        if cfg.tool == 'profrun':
            notes.append(f'{s["dropped"]} samples dropped in all runs')
        if cfg.tool == 'perf':
            notes.append('CPU includes the perf record process')
        if cfg.tool == 'floor':
            notes.append('empty handler, no profile: samples are the '
                         'signals it took')
        lines.append(f'| {cfg.label} | {s["runs"]} '
                     f'| {spread(s["us"], lambda x: f"{x:.1f} µs")} '
                     f'| {", ".join(notes)} |')
    return '\n'.join(lines)


def noisy_verdict(over, noise, goal):
    """Whether an overhead of over percent meets a goal of goal percent,
    given that two bare runs differed by noise percent under the same
    estimator."""
    if over - noise > goal:
        return 'MISSED'
    if noise > goal / 2:
        return 'cannot tell, the machine is too noisy'
    return 'met' if over <= goal else 'MISSED'


def wall_verdict(over, noise):
    return noisy_verdict(over, noise, GOAL_OVERHEAD_PCT)


def verdict(target, summary):
    s = summary.get('profrun 1 kHz')
    if not s:
        return f'{target.name}: profrun 1 kHz did not run; no verdict'
    over = (s['fastest'] - 1) * 100
    deliv = med(s['own'])
    err = max(s['err'])
    control = summary.get('bare again (noise)')
    noise = abs(control['fastest'] - 1) * 100 if control else 0.0

    def met(ok):
        return 'met' if ok else 'MISSED'
    return (f'{target.name}, profrun 1 kHz vs the issue: '
            f'wall overhead {over:+.1f} %, fastest run vs fastest bare '
            f'(target <= {GOAL_OVERHEAD_PCT:g} %: {wall_verdict(over, noise)};'
            f' bare vs bare {noise:.1f} %; CPU {pct_change(med(s["cpu"]))}); '
            f'samples {deliv:.1f} % of CPU-s × Hz (target >= '
            f'{GOAL_DELIVERED_PCT:g} %: {met(deliv >= GOAL_DELIVERED_PCT)}); '
            f'worst share error {err:.1f} pts (target <= {GOAL_SHARE_PTS:g}: '
            f'{met(err <= GOAL_SHARE_PTS)})')


def paired(rounds, a, b):
    """Per round where both a and b ran (and bare): (a - b) / bare CPU,
    in percent of the bare run's CPU."""
    return [(r[a]['cpu'] - r[b]['cpu']) / r['bare']['cpu'] * 100
            for r in rounds if 'bare' in r and a in r and b in r]


def floor_verdict(target, summary, rounds):
    """profrun 1 kHz's CPU beyond the floor's, and against perf record's.

    The excess is computed round by round, like the CPU column: each run
    over the bare run of its round, profrun/bare − floor/bare, i.e.
    (profrun − floor) / bare of the same round, and the median of those.
    Pairing within the round cancels the load that hit the round alike;
    the difference of the two columns' medians would pair runs of
    different rounds. The noise is the median of the absolute per-round
    (bare again − bare) / bare: a median of signed differences can look
    quiet on a machine whose rounds swing both ways.
    """
    p, f = 'profrun 1 kHz', 'floor 1 kHz'
    excess = paired(rounds, p, f)
    if not excess:
        missing = p if p not in summary else f
        head = (f'{target.name}, profrun 1 kHz vs the floor: {missing} did '
                f'not run; no excess')
    else:
        x = med(excess)
        noise = paired(rounds, 'bare again (noise)', 'bare')
        noise = med([abs(n) for n in noise]) if noise else 0.0
        head = (f'{target.name}, profrun 1 kHz\'s excess over the floor: '
                f'{x:.1f} % of bare CPU (target <= {GOAL_EXCESS_PCT:g} %: '
                f'{noisy_verdict(x, noise, GOAL_EXCESS_PCT)}; bare vs bare '
                f'{noise:.1f} %; per round {min(excess):.1f} to '
                f'{max(excess):.1f} %, {len(excess)} rounds)')
    ps, rs = summary.get(p), summary.get('perf 1 kHz')
    if not rs:
        return head + ', perf record 1 kHz did not run'
    y = (med(rs['cpu']) - 1) * 100
    tail = f', perf record 1 kHz: {y:.1f} % over bare'
    if ps:
        ok = med(ps['cpu']) <= med(rs['cpu'])
        tail += (f' (profrun <= perf record: {"met" if ok else "MISSED"}; '
                 f'profrun {(med(ps["cpu"]) - 1) * 100:.1f} %)')
    return head + tail


# ---- the run ------------------------------------------------------------


def cpu_model():
    for line in read_first('/proc/cpuinfo', '').splitlines():
        if line.startswith('model name'):
            return line.split(':', 1)[1].strip()
    return '?'


def kernel_hz():
    """CONFIG_HZ, the tick rate that bounds ITIMER_PROF (gperftools), from
    /proc/config.gz where the kernel provides it."""
    try:
        with gzip.open('/proc/config.gz', 'rt') as f:
            for line in f:
                if line.startswith('CONFIG_HZ='):
                    return line.split('=', 1)[1].strip()
    except OSError:
        pass
    return '?'


def virtualized():
    flags = re.search(r'^flags\s*:(.*)$', read_first('/proc/cpuinfo', ''),
                      re.M)
    return bool(flags and 'hypervisor' in flags.group(1).split())


def machine_facts(bench):
    vm = ', virtual machine (cpuinfo flag hypervisor)' if virtualized() else ''
    perf = quiet_output([bench.perf, '--version']) if bench.perf else 'none'
    gperf = quiet_output(['dpkg-query', '-W', '-f', '${Version}',
                          'google-perftools'])
    head = quiet_output(['git', 'rev-parse', '--short', 'HEAD'])
    # Names the uncommitted state of the tree, so that two runs can be
    # told apart when the work in progress between them was not committed.
    diff = subprocess.run(['git', 'diff', 'HEAD'], stdout=subprocess.PIPE,
                          stderr=subprocess.DEVNULL).stdout
    dirty = (f' + uncommitted changes (git diff HEAD sha256 '
             f'{hashlib.sha256(diff).hexdigest()[:12]})' if diff else '')
    return [
        f'- nproc {os.cpu_count()} (usable {len(os.sched_getaffinity(0))}), '
        f'{cpu_model()}{vm}',
        f'- kernel {os.uname().release}, perf_event_paranoid '
        f'{read_first("/proc/sys/kernel/perf_event_paranoid")}, '
        f'perf_event_max_sample_rate '
        f'{read_first("/proc/sys/kernel/perf_event_max_sample_rate")}, '
        f'CONFIG_HZ {kernel_hz()}, '
        f'running as uid {os.getuid()}',
        f'- {perf}, google-perftools {gperf}',
        f'- profrun at git {head}{dirty}',
    ]


def parse_args():
    ap = argparse.ArgumentParser(
        prog='scripts/bench',
        description='Benchmarks profrun against bare runs, gperftools and '
        'perf record on the ground-truth targets; prints Markdown.')
    ap.add_argument('--build', default='build-bench',
                    help='meson build directory (scripts/bench sets it)')
    ap.add_argument('--rounds', type=int, default=7,
                    help='rounds of interleaved runs (default 7)')
    ap.add_argument('--quick', action='store_true',
                    help='3 rounds instead of 7')
    ap.add_argument('--scale', default='1.75',
                    help='scale argument of the targets (default 1.75: '
                    'about 2.5 s of CPU each)')
    ap.add_argument('--extra', action='store_true',
                    help='also profrun with PROF_MAX_DEPTH=1 (cost of a '
                    'sample without the stack walk)')
    ap.add_argument('--raw', metavar='FILE',
                    help='also write every measurement as JSON to FILE')
    a = ap.parse_args()
    if a.quick:
        a.rounds = 3
    if a.rounds < 1:
        ap.error('--rounds must be at least 1')
    return a


def probe(bench, cfgs, failures):
    """One short, unmeasured run per configuration and target: warms the
    caches and drops what cannot run here."""
    usable = []
    for cfg in cfgs:
        why = bench.missing(cfg)
        if not why:
            try:
                for t in TARGETS:
                    bench.measure(cfg, t, '0.1')
            except (RunFailed, OSError, ValueError, KeyError,
                    TypeError) as e:
                why = str(e).splitlines()[0][:300]
        if why:
            failures[cfg.label] = why
            print(f'bench: {cfg.label}: not run: {why}', file=sys.stderr)
        else:
            usable.append(cfg)
    return usable


def run_rounds(bench, cfgs, args, failures):
    results = {t.name: [] for t in TARGETS}
    for r in range(args.rounds):
        k = r % len(cfgs)
        order = cfgs[k:] + cfgs[:k]
        print(f'bench: round {r + 1}/{args.rounds}: '
              f'{", ".join(c.label for c in order)}', file=sys.stderr)
        for t in TARGETS:
            got = {}
            for cfg in order:
                try:
                    got[cfg.label] = bench.measure(cfg, t, args.scale)
                except (RunFailed, OSError, ValueError, KeyError,
                        TypeError) as e:
                    failures[cfg.label] = str(e).splitlines()[0][:300]
                    print(f'bench: {t.name}: {cfg.label}: {e}',
                          file=sys.stderr)
            results[t.name].append(got)
    return results


def on_term(signum, frame):
    raise SystemExit(128 + signum)


def main():
    args = parse_args()
    signal.signal(signal.SIGTERM, on_term)
    all_cfgs = configs(args.extra)
    started = datetime.datetime.now().astimezone()
    load_before = read_first('/proc/loadavg')
    failures = {}
    with tempfile.TemporaryDirectory(prefix='profrun-bench-') as work:
        bench = Bench(args.build, work)
        facts = machine_facts(bench)
        for t in TARGETS:
            bench.calibrate(t)
        cfgs = probe(bench, all_cfgs, failures)
        if not cfgs or cfgs[0].tool != 'bare':
            print('bench: the bare runs fail; nothing to compare with',
                  file=sys.stderr)
            return 0
        results = run_rounds(bench, cfgs, args, failures)
    elapsed = datetime.datetime.now().astimezone() - started
    argv = sys.argv[1:]
    if argv[:1] == ['--build']:
        argv = argv[2:]
    cmd = shlex.join(['scripts/bench'] + argv)

    print(f'## profrun benchmark, {started:%Y-%m-%d %H:%M %Z}\n')
    print(f'Command: `{cmd}` ({args.rounds} rounds, targets at scale '
          f'{args.scale}, build {args.build}/, '
          f'{int(elapsed.total_seconds() // 60)} min)\n')
    print('\n'.join(facts))
    print('- fixed work (WORK_ITERS_PER_MS, calibrated on bare runs): ' +
          ', '.join(f'{t.name} {t.iters_per_ms}' for t in TARGETS))
    print(f'- load average before {load_before.split(" ", 3)[:3]}, after '
          f'{read_first("/proc/loadavg").split(" ", 3)[:3]}\n')
    verdicts = []
    for t in TARGETS:
        s = summarize(t, cfgs, results[t.name])
        print(table(t, all_cfgs, s, failures))
        print()
        verdicts.append(verdict(t, s))
        verdicts.append(floor_verdict(t, s, results[t.name]))
    print('\n'.join(verdicts))
    if args.raw:
        with open(args.raw, 'w') as f:
            json.dump({'command': cmd, 'started': started.isoformat(),
                       'scale': args.scale, 'results': results}, f, indent=1)
    return 0


if __name__ == '__main__':
    sys.exit(main())
