#!/usr/bin/env python3
"""The library under load (BENCHMARKS.md, "Under load"): THREADS threads
of scripts/bench-load.d/load.c computing on every core for SECONDS under
profrun at 1 kHz, then ROUNDS rounds of shorter runs, bare, under the
floor (libfloor: the same perf timer with an empty handler) and under
profrun, in an order that rotates from round to round.

The long run gives the samples, drops by cause and spool size, its bytes
per sample, and how its SAMPLES records are spread over the threads (the
largest thread's part, and the largest part over the mean). The rounds
give the cost: CPU seconds per unit of work (which does not depend on
the share of the machine a run had) of the floor and of profrun over the
same round's bare run, and profrun's excess over the floor in each
round; the median over the rounds and their range are the figures, since
on a shared machine two runs a minute apart differ by a few percent.
Not a test: figures only.
"""
import argparse
import collections
import json
import os
import statistics
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                '..'))
import benchlib  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))


def parse_out(text):
    out = {}
    for line in text.splitlines():
        k, _, v = line.partition(' ')
        out[k] = float(v)
    return out


def run(argv, env, work, timeout):
    err = os.path.join(work, 'err')
    out = os.path.join(work, 'out')
    # spawn_measured sends stdout to /dev/null: the target's figures go
    # through a shell redirection instead.
    wall, ru, rc, stderr = benchlib.spawn_measured(
        ['/bin/sh', '-c', '"$@" > ' + out, 'sh'] + argv, env, err, timeout)
    if rc != 0:
        sys.exit(f'bench-load: {" ".join(argv)}: exit {rc}\n{stderr}')
    with open(out) as f:
        figures = parse_out(f.read())
    return wall, ru, figures, stderr


def spool_parts(path):
    """Bytes of SAMPLES (and SAMPLE) records per tid, and the other
    records' bytes."""
    with open(path, 'rb') as f:
        data = f.read()
    chunk = struct.unpack_from('<I', data, 12)[0]
    pos, parts, other = 16, collections.Counter(), 0
    while pos + 8 <= len(data):
        room = chunk - pos % chunk if chunk else len(data) - pos
        typ, length = struct.unpack_from('<II', data, pos)
        if typ == 0 or room < 8:
            pos += room
            continue
        if typ in (5, 12):
            tid = struct.unpack_from('<I', data, pos + 8 + (8 if typ == 5
                                                             else 0))[0]
            parts[tid] += 8 + length
        else:
            other += 8 + length
        pos += 8 + length
    return parts, other


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--build', default='build-bench-load')
    ap.add_argument('--threads', type=int, default=64)
    ap.add_argument('--seconds', type=float, default=600)
    ap.add_argument('--rounds', type=int, default=8,
                    help='rounds of bare, floor and profrun runs (default 8)')
    ap.add_argument('--round-seconds', type=float, default=20,
                    help='length of each run of a round (default 20)')
    ap.add_argument('--hz', type=int, default=1000)
    a = ap.parse_args()

    work = tempfile.mkdtemp(prefix='bench-load-')
    load = os.path.join(work, 'load')
    floor = os.path.join(work, 'libfloor.so')
    subprocess.run(['cc', '-O2', '-pthread', '-o', load,
                    os.path.join(ROOT, 'scripts/bench-load.d/load.c')],
                   check=True)
    subprocess.run(['cc', '-O2', '-shared', '-fPIC', '-o', floor,
                    os.path.join(ROOT, 'scripts/bench.d/floor.c'), '-ldl'],
                   check=True)
    profrun = os.path.join(ROOT, a.build, 'preload', 'profrun')
    profanalyze = os.path.join(ROOT, a.build, 'analyzer', 'profanalyze')
    env = dict(os.environ)
    env_floor = dict(env, LD_PRELOAD=floor, FLOOR_HZ=str(a.hz))
    spool = os.path.join(work, 'load.spool')
    long_ = [profrun, '-q', '-F', str(a.hz), '-o', spool, '--', load,
             str(a.threads), str(a.seconds)]
    short = [load, str(a.threads), str(a.round_seconds)]
    kinds = {
        'bare': (short, env),
        'floor': (short, env_floor),
        'profrun': ([profrun, '-q', '-F', str(a.hz), '-o',
                     os.path.join(work, 'round.spool'), '--'] + short, env),
    }

    print(f'# bench-load: {a.threads} threads, profrun {a.seconds:g} s at '
          f'{a.hz} Hz, then {a.rounds} rounds of bare, floor and profrun '
          f'{a.round_seconds:g} s each; {os.cpu_count()} CPUs, load average '
          f'{benchlib.read_first("/proc/loadavg").split()[0]} at the start',
          flush=True)
    timeout = 3 * max(a.seconds, a.round_seconds) + 120
    wall, _, long_fig, _ = run(long_, env, work, timeout)
    print(f'  profrun {a.seconds:g} s: {wall:.1f} s wall, '
          f'{long_fig["cpu"]:.1f} s CPU, {long_fig["units"]:.0f} units, '
          f'max RSS {long_fig["rss"]:.0f} KiB', flush=True)

    rounds = []
    order = list(kinds)
    for r in range(a.rounds):
        per_unit = {}
        for name in order[r % 3:] + order[:r % 3]:
            argv, e = kinds[name]
            wall, _, fig, _ = run(argv, e, work, timeout)
            per_unit[name] = fig['cpu'] / fig['units']
            print(f'  round {r + 1} {name}: {wall:.1f} s wall, '
                  f'{fig["cpu"]:.1f} s CPU, {fig["units"]:.0f} units, '
                  f'max RSS {fig["rss"]:.0f} KiB', flush=True)
        rounds.append(per_unit)

    print()
    print('| round | floor / bare | profrun / bare | '
          'profrun over the floor, % of bare |')
    print('|---|---|---|---|')
    floor_r, prof_r, excess = [], [], []
    for i, pu in enumerate(rounds):
        floor_r.append(pu['floor'] / pu['bare'])
        prof_r.append(pu['profrun'] / pu['bare'])
        excess.append(100 * (prof_r[-1] - floor_r[-1]))
        print(f'| {i + 1} | {floor_r[-1]:.3f} | {prof_r[-1]:.3f} | '
              f'{excess[-1]:+.1f} |')
    med = statistics.median
    print(f'| median | {med(floor_r):.3f} | {med(prof_r):.3f} | '
          f'{med(excess):+.1f} (range {min(excess):+.1f} to '
          f'{max(excess):+.1f}) |')
    bare = sum(pu['bare'] for pu in rounds) / len(rounds)
    print()
    print(f'The {a.seconds:g} s run: '
          f'{long_fig["cpu"] / long_fig["units"] / bare:.3f} x the rounds\' '
          f'mean bare CPU per unit; max RSS {long_fig["rss"]:.0f} KiB')

    r = subprocess.run([profanalyze, '--json', spool], capture_output=True,
                       text=True, check=True)
    rep = json.loads(r.stdout)
    size = os.path.getsize(spool)
    parts, other = spool_parts(spool)
    sampled = [t for t in rep['thread_list'] if t.get('samples')]
    print()
    print(f'profrun: {rep["samples"]} samples on {len(sampled)} threads, '
          f'{rep["cpu_seconds"]} CPU seconds, delivered '
          f'{rep["delivered_hz"]} Hz per CPU second; dropped '
          + ', '.join(f'{k} {v}' for k, v in rep['dropped'].items() if v)
          + ('' if any(rep['dropped'].values()) else 'none'))
    print(f'spool: {size} bytes, {size / max(rep["samples"], 1):.1f} bytes '
          f'per sample ({len(parts)} threads x 64 KiB chunks at least); SAMPLES records {sum(parts.values())} bytes on '
          f'{len(parts)} threads, the largest part {max(parts.values())} '
          f'bytes ({max(parts.values()) / (sum(parts.values()) / len(parts)):.2f}'
          f' x the mean); other records {other} bytes')


main()
