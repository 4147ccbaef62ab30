#!/usr/bin/env python3
"""profanalyze --follow prints the report again while profrun writes the
spool, and ends when the program does.

- A spool that does not exist yet is waited for (profanalyze started
  first, as from another terminal); the reports come every --interval
  seconds, each headed "running" with the samples so far, until the
  program ends: the last report is headed "ended", is the whole profile
  (the same samples as a plain report of the finished spool) and
  profanalyze exits 0 soon after profrun.
- A program killed with SIGKILL leaves no footer: --follow notices that
  its process is gone, prints the last report with the warning about the
  missing footer, and exits 0.
- --follow with an output that is not a text report on standard output,
  and --interval without --follow, are usage errors (exit 2).

usage: test_follow.py WORK_SPLIT
"""
import os
import re
import signal
import subprocess
import sys
import time

import prof


def start_follow(spool, extra=()):
    # --no-inline: the flat report names the leaves (prof.analyze), not
    # the work_spin they inline.
    return subprocess.Popen(
        [prof.profanalyze_path(), '--follow', '--no-inline',
         '--interval=0.3'] +
        list(extra) + [spool], stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True)


def heads(out):
    return re.findall(r'^profanalyze --follow: .* at \S+: (running|ended), '
                      r'(\d+) samples$', out, re.M)


def test():
    target = sys.argv[1]
    d = prof.tmpdir()

    spool = os.path.join(d, 'a.spool')
    follow = start_follow(spool)
    time.sleep(0.5)
    run = subprocess.Popen([prof.profrun_path(), '-q', '-o', spool, '--',
                            target, '2'], stdout=subprocess.DEVNULL)
    if run.wait(timeout=120) != 0:
        raise prof.Fail(f'profrun exited {run.returncode}')
    ended = time.monotonic()
    out, err = follow.communicate(timeout=60)
    took = time.monotonic() - ended
    h = heads(out)
    print(f'{len(h)} reports: {h[:3]} ... {h[-2:]}; exit {follow.returncode} '
          f'{took:.1f} s after profrun')
    if follow.returncode != 0:
        raise prof.Fail(f'--follow exited {follow.returncode}: {err}')
    if 'waiting for the spool to appear' not in err:
        raise prof.Fail(f'no note about waiting for the spool: {err!r}')
    running = [int(n) for state, n in h if state == 'running']
    if len(running) < 3:
        raise prof.Fail(f'{len(running)} reports while the program ran '
                        f'(want 3 or more in its 3 s)')
    if running != sorted(running) or running[-1] <= running[0]:
        raise prof.Fail(f'the samples did not grow: {running}')
    if h[-1][0] != 'ended' or [s for s, _ in h].count('ended') != 1:
        raise prof.Fail(f'the last report is not the one "ended": {h[-3:]}')
    final = out[out.rindex('profanalyze --follow:'):]
    _, rep = prof.analyze(spool)
    if int(h[-1][1]) != rep['samples'] or 'leaf_50' not in final:
        raise prof.Fail(f'the last report has {h[-1][1]} samples, the '
                        f'spool {rep["samples"]}:\n{final[:1500]}')
    if took > 10:
        raise prof.Fail(f'--follow ended {took:.1f} s after profrun')

    # Killed: no footer; the writer's process is gone.
    spool = os.path.join(d, 'k.spool')
    run = subprocess.Popen([prof.profrun_path(), '-q', '-o', spool, '--',
                            target, '100'], stdout=subprocess.DEVNULL,
                           start_new_session=True)
    time.sleep(1.5)
    follow = start_follow(spool)
    time.sleep(1.0)
    os.killpg(run.pid, signal.SIGKILL)
    run.wait(timeout=60)
    out, err = follow.communicate(timeout=60)
    h = heads(out)
    print(f'killed: {len(h)} reports, last {h[-1:]}, exit '
          f'{follow.returncode}, stderr {err.strip()[:200]!r}')
    if follow.returncode != 0 or not h or h[-1][0] != 'ended':
        raise prof.Fail(f'--follow of a killed program: exit '
                        f'{follow.returncode}, reports {h[-3:]}: {err}')
    if 'no footer' not in err:
        raise prof.Fail(f'the last report does not warn of the missing '
                        f'footer: {err!r}')

    for args in (['--follow', '--json'], ['--follow', '--format=folded'],
                 ['--follow', '-o', os.path.join(d, 'x')],
                 ['--interval=1'], ['--follow', spool]):
        r = prof.run([prof.profanalyze_path()] + args + [spool])
        if r.returncode != 2:
            raise prof.Fail(f'profanalyze {" ".join(args)}: exit '
                            f'{r.returncode}, want 2 (usage)')
        prof.one_line(r.stderr, ' '.join(args))


prof.main(test)
