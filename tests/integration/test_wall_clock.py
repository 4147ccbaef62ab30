#!/usr/bin/env python3
"""--clock=wall: time spent blocked shows up, and nothing is interrupted.

wall_split's main thread works 10 ms of CPU (cpu_part), sleeps 20 ms
(sleep_part) and waits 10 ms on a condition variable (wait_part), 20
times; its second thread is blocked in read (io_wait) for the whole run.
Under the wall clock:
- sleep_part and wait_part get the time the target measured them
  blocked (it prints it: nominally 0.4 and 0.2 s, more when a loaded
  machine lets them oversleep), and io_wait about the run's elapsed time
  (the target prints it too);
- cpu_part gets its CPU time, as under the CPU clock;
- the header says so, and the records of blocked time are counted.
Under the CPU clock the blocked functions get nothing. And the blocking
target (sleep, read, poll, select, usleep in two threads) never sees EINTR
under --clock=wall at 10 kHz. In a fork/exec tree (lifecycle tree 3) each
forked child samples its blocked time too: every image that waits for its
child shows that wait.

usage: test_wall_clock.py WALL_SPLIT BLOCKING LIFECYCLE
"""
import glob
import re
import sys

import prof


def seconds(rep, name):
    """A function's total: the blocked ones wait in libc's callees."""
    f = prof.func(rep, name)
    return f['total'] if f else 0.0


def test():
    wall_split, blocking, lifecycle = sys.argv[1:4]

    p = prof.profile(wall_split, opts=['--clock=wall'])
    rep = p.report
    m = re.search(r'elapsed ([0-9.]+)', p.stdout)
    if not m:
        raise prof.Fail(f'wall_split printed no elapsed time: {p.stdout}')
    elapsed = float(m.group(1))
    truth = dict((k, float(v)) for k, v in re.findall(
        r'^(sleep_part|wait_part) ([0-9.]+)$', p.stdout, re.M))
    if len(truth) != 2:
        raise prof.Fail(f'wall_split printed no times of its parts: '
                        f'{p.stdout}')
    got = {n: seconds(rep, n) for n in ('cpu_part', 'sleep_part',
                                        'wait_part', 'io_wait')}
    print(f'elapsed {elapsed:.3f} s; clock {rep["clock"]}; blocked '
          f'{rep["blocked_seconds"]:.3f} of {rep["sampled_seconds"]:.3f} s;',
          {k: round(v, 3) for k, v in got.items()}, '; measured by the '
          f'target:', {k: round(v, 3) for k, v in truth.items()})
    if prof.field(rep, 'clock') != 'wall':
        raise prof.Fail(f'clock is {rep["clock"]}, want wall')
    # sleep_part and wait_part sit in the kernel for 20 and 10 ms a round
    # (0.4 and 0.2 s) and more when they oversleep; the poller's looks
    # (1 ms apart, stretched under load) may miss the start and the end
    # of each of the 20 episodes. The check is against what the target
    # measured: a fixed 2:1 ratio failed a loaded run whose sleeps
    # overslept more than its waits (0.44 and 0.183 s).
    for name in ('sleep_part', 'wait_part'):
        want = truth[name]
        if not 0.75 * want <= got[name] <= 1.25 * want:
            raise prof.Fail(f'{name}: {got[name]:.3f} s blocked, want '
                            f'{want:.3f} s (measured by the target) +- 25%')
    # io_wait is blocked from its start to the end of the run.
    if not 0.85 * elapsed <= got['io_wait'] <= 1.05 * elapsed:
        raise prof.Fail(f'io_wait: {got["io_wait"]:.3f} s, want about the '
                        f'elapsed {elapsed:.3f} s')
    # cpu_part runs 10 ms of CPU time a round: 0.2 s.
    if not 0.8 * 0.2 <= got['cpu_part'] <= 1.2 * 0.2:
        raise prof.Fail(f'cpu_part: {got["cpu_part"]:.3f} s, want 0.2 s')
    blocked = sum(got[n] for n in ('sleep_part', 'wait_part', 'io_wait'))
    if abs(prof.field(rep, 'blocked_seconds') - blocked) > 0.05 * blocked:
        raise prof.Fail(f'blocked_seconds {rep["blocked_seconds"]} is not '
                        f'the blocked functions\' {blocked:.3f}')
    r, _ = prof.analyze(p.spool, args=())
    if "wall-clock time" not in r.stdout or 'blocked' not in r.stdout:
        raise prof.Fail(f'the header does not say wall clock:\n'
                        f'{r.stdout[:500]}')
    # The stacks of blocked threads are whole: io_wait under start_thread,
    # sleep_part under main.
    tree = {f['name'] for f in rep['functions']}
    for name in ('main', 'start_thread'):
        if name not in tree:
            raise prof.Fail(f'{name} missing: blocked stacks are cut short')

    p = prof.profile(wall_split)
    cpu = {n: seconds(p.report, n) for n in got}
    print('cpu clock:', {k: round(v, 3) for k, v in cpu.items()})
    if prof.field(p.report, 'clock') != 'cpu':
        raise prof.Fail('the default clock is not cpu')
    if cpu['sleep_part'] + cpu['wait_part'] + cpu['io_wait'] > 0.02:
        raise prof.Fail('the CPU clock sampled blocked functions')

    # Nothing is interrupted, at 10 kHz: blocking exits 3 on EINTR.
    p = prof.profile(blocking, opts=['--clock=wall', '-F', '10000'])
    print(f'blocking under --clock=wall -F 10000: exit 0, '
          f'{p.report["samples"]} samples, blocked '
          f'{p.report["blocked_seconds"]:.3f} s')
    if prof.field(p.report, 'blocked_seconds') <= 0:
        raise prof.Fail('blocking: no blocked time recorded')

    # Each level of the tree works 0.15 s of CPU, then waits for its
    # child, so the three images with a child wait 0.45, 0.3 and 0.15 s.
    p = prof.profile(lifecycle, args=['tree', '3'], opts=['--clock=wall'])
    _, merged = prof.analyze(p.spool, args=('--json', '--children'))
    waiting = []
    for spool in [p.spool] + sorted(glob.glob(glob.escape(p.spool) + '.*')):
        _, r = prof.analyze(spool)
        if r['ended'] == 'exit':
            waiting.append(round(prof.field(r, 'blocked_seconds'), 3))
    print(f'tree under --clock=wall: blocked seconds per working image '
          f'{waiting}; merged {merged["blocked_seconds"]:.3f} s blocked')
    if len(waiting) != 4 or sorted(waiting)[1] < 0.1:
        raise prof.Fail(f'tree: want three images that waited for a child '
                        f'at least 0.1 s, got {waiting}')
    if abs(sum(waiting) - merged['blocked_seconds']) > 0.01:
        raise prof.Fail('tree: --children does not sum the blocked time')


prof.main(test)
