#!/usr/bin/env python3
"""A program that uses SIGPROF itself gets its way, and a thread is
sampled whatever mask the program gives it.

- handler: the program's own handler gets its own timer's signals and
  reads back as installed, while the profiler goes on sampling with its
  perf timer; with the itimer source, the program that arms ITIMER_PROF
  gets it and a note says sampling stopped.
- block: while the program blocks SIGPROF its time is still sampled
  (blocked_work about as much as unblocked_work, the same work), and the
  program sees what it would see without the profiler: the mask, a new
  thread's mask, sigpending, sigaction's sa_mask, and its own raised
  SIGPROF handled once, only after the unblock. The same output as a bare
  run.
- workers: threads created with every signal blocked (liblzma's way) get
  their samples.
- rawmask: a thread that blocks SIGPROF with the raw system call, which
  the library cannot see, is named in the report with its unsampled CPU
  time; not with --from (a window's samples cover an unknown part of the
  CPU time), where --threads gives its CPU time without a share.
- exec: an image exec'd with SIGPROF blocked starts with it blocked.

usage: test_sigprof_user.py SIGPROF_USER
"""
import sys

import prof


def half(rep, a, b, label):
    """a and b did the same work: each has 30..70 % of their samples
    (binomial at >= 200 samples: the bound is over 5 sigma)."""
    fa = prof.need_func(rep, a)['self_samples']
    fb = prof.need_func(rep, b)['self_samples']
    n = fa + fb
    print(f'{label}: {a} {fa}, {b} {fb}')
    if n < 200:
        raise prof.Fail(f'{label}: {n} samples, too few for a 30..70 % '
                        f'bound (want 200)')
    if not 0.3 <= fa / n <= 0.7:
        raise prof.Fail(f'{label}: {a} got {100 * fa / n:.0f} % of the '
                        f'samples of {a} and {b}, which did the same work')


def test():
    target = sys.argv[1]
    try:
        p = prof.profile(target, ['handler'], ['--timer=perf'],
                         expect_rc=None)
    except prof.TimerUnavailable as e:
        raise prof.Skip(str(e))
    print(f'handler: exit {p.rc}, {p.stdout.strip()}')
    if p.rc != 0:
        raise prof.Fail(f'the program\'s own SIGPROF handler did not get its '
                        f'signals or did not read back: {p.stdout.strip()}')
    w = prof.need_func(p.report, 'own_timer_work')
    if w['self_samples'] < 200:
        raise prof.Fail(f'sampling stopped: own_timer_work has '
                        f'{w["self_samples"]} samples')

    # With the itimer source the library holds ITIMER_PROF: a program
    # that arms it gets it (its handler once got 0 signals), with a note.
    p = prof.profile(target, ['handler'], ['--timer=itimer'], expect_rc=None)
    print(f'handler, itimer: exit {p.rc}, {p.stdout.strip()}')
    if p.rc != 0 or 'ITIMER_PROF itself' not in p.stderr:
        raise prof.Fail(f'--timer=itimer: the program did not get its own '
                        f'ITIMER_PROF, or no note says so:\n{p.stderr}')

    bare = prof.run([target, 'block'])
    p = prof.profile(target, ['block'], ['--timer=perf'], expect_rc=None)
    print(f'block: bare exit {bare.returncode} {bare.stdout.strip()}; '
          f'profiled exit {p.rc} {p.stdout.strip()}')
    if bare.returncode != 0 or p.rc != 0 or p.stdout != bare.stdout:
        raise prof.Fail('block: the program saw another mask, pending set '
                        'or handler behaviour than without the profiler')
    half(p.report, 'blocked_work', 'unblocked_work', 'block')

    p = prof.profile(target, ['workers'], ['--timer=perf'])
    half(p.report, 'worker_a', 'worker_b', 'workers')
    for name in ('worker_a', 'worker_b'):
        n = prof.need_func(p.report, name)['self_samples']
        if n < 150:
            raise prof.Fail(f'workers: {name} has {n} samples for 0.3 s')

    p = prof.profile(target, ['rawmask'], ['--timer=perf'])
    threads = prof.field(p.report, 'thread_list')
    unsampled = [t for t in threads if t.get('unsampled')]
    print('rawmask: ' + ', '.join(
        f'{t["tid"]} {t["samples"]} samples {t["cpu_seconds"]} s CPU'
        f'{" unsampled" if t["unsampled"] else ""}' for t in threads))
    if len(unsampled) != 1 or unsampled[0]['cpu_seconds'] < 0.1:
        raise prof.Fail('rawmask: want exactly one thread reported as '
                        'unsampled, with its CPU time')
    text = prof.run([prof.profanalyze_path(), p.spool]).stdout
    line = [l for l in text.splitlines() if l.startswith('Unsampled:')]
    if len(line) != 1 or f'thread {unsampled[0]["tid"]} ' not in line[0]:
        raise prof.Fail(f'rawmask: the report does not name the unsampled '
                        f'thread: {line}')
    # A window's samples cover an unknown part of the CPU time: no thread
    # is called unsampled, --threads gives the CPU time and no share.
    tid = str(unsampled[0]['tid'])
    text = prof.run([prof.profanalyze_path(), '--from=0', p.spool]).stdout
    rows = prof.run([prof.profanalyze_path(), '--threads', '--from=0',
                     p.spool]).stdout.splitlines()
    row = [r.split() for r in rows if r.split()[:1] == [tid]]
    print(f'rawmask --from=0: {row}')
    if any(l.startswith('Unsampled:') for l in text.splitlines()) or \
            len(row) != 1 or row[0][-1] != '-' or \
            not float(row[0][-2]) >= 0.1:
        raise prof.Fail(f'rawmask --from=0: an unsampled line or a share '
                        f'of the CPU time: {row}')

    p = prof.profile(target, ['exec'], ['--timer=perf'], expect_rc=None)
    print(f'exec: exit {p.rc} {p.stdout.strip()}')
    if p.rc != 0:
        raise prof.Fail('exec: the exec\'d image did not start with SIGPROF '
                        'blocked, as the program left it')


prof.main(test)
