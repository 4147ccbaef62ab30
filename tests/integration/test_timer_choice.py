#!/usr/bin/env python3
"""Which time source profrun uses, and why it refuses one.

- --timer=auto (the default) takes the first of perf, posix and itimer
  that works: perf whenever --timer=perf works here, else posix. The perf
  case is checked as the machine is; the posix case with perf_event_open
  made to fail (a seccomp filter returning EACCES, as a kernel with
  perf_event_paranoid 3 does), where the machine allows seccomp.
- A forced source that cannot work is one line that says why, exit 2, and
  the program is not started: itimer with another signal than SIGPROF
  (exactly), perf refused with EACCES (the message names
  perf_event_paranoid).

usage: test_timer_choice.py WORK_SPLIT MARKER
"""
import os
import sys

import prof

SCALE = '0.05'  # 75 ms of CPU: enough for a spool that names its timer


def timer_of(target, opts, preexec_fn=None):
    p = prof.profile(target, args=[SCALE], opts=opts, preexec_fn=preexec_fn)
    return prof.field(p.report, 'timer')


def works(target, timer, preexec_fn=None):
    try:
        got = timer_of(target, [f'--timer={timer}'], preexec_fn)
    except prof.TimerUnavailable as e:
        print(f'--timer={timer}: unavailable: {e}')
        return False
    if got != timer:
        raise prof.Fail(f'--timer={timer} ran with the {got} timer')
    return True


def check_auto(target, preexec_fn=None, what='here'):
    """auto picks perf if it works, else posix, else itimer."""
    want = next((t for t in prof.TIMERS if works(target, t, preexec_fn)),
                None)
    if want is None:
        raise prof.Skip(f'no timer works {what}')
    for opts in ([], ['--timer=auto']):
        got = timer_of(target, opts, preexec_fn)
        print(f'{what}: {" ".join(opts) or "(default)"}: {got}, want {want}')
        if got != want:
            raise prof.Fail(f'{what}: {" ".join(opts) or "the default"} '
                            f'chose {got}; the first that works is {want}')
    return want


def refused(marker, opts, preexec_fn=None):
    """Runs marker under profrun OPTS, which must refuse to start it;
    returns profrun's one line of error."""
    d = prof.tmpdir()
    started = os.path.join(d, 'started')
    r = prof.profrun(['-q', '-o', os.path.join(d, 'x.spool')] + opts +
                     ['--', marker, started], preexec_fn=preexec_fn)
    what = ' '.join(opts)
    print(f'{what}: exit {r.returncode}: {r.stderr.strip()}')
    if r.returncode != 2:
        raise prof.Fail(f'{what}: exit {r.returncode}, want 2')
    if os.path.exists(started):
        raise prof.Fail(f'{what}: the program was started')
    return prof.one_line(r.stderr, what)


def test():
    target, marker = sys.argv[1], sys.argv[2]

    line = refused(marker, ['--signal=USR1', '--timer=itimer'])
    want = ('profrun: --timer=itimer: not available here: '
            'setitimer(ITIMER_PROF) can only send SIGPROF, not signal 10 '
            '(USR1) asked for with --signal')
    if line != want:
        raise prof.Fail(f'itimer with SIGUSR1:\n got {line!r}\nwant {want!r}')

    check_auto(target)

    deny = prof.deny_perf_event_open()
    if deny is None:
        print('perf_event_open cannot be denied on this machine: the '
              'fallback is not checked')
        return
    line = refused(marker, ['--timer=perf'], deny)
    if not line.startswith('profrun: --timer=perf: not available here: ') \
            or 'perf_event_paranoid' not in line:
        raise prof.Fail(f'perf refused with EACCES: the message does not '
                        f'say why: {line!r}')
    if check_auto(target, deny, 'without perf events') == 'perf':
        raise prof.Fail('perf worked although perf_event_open was denied')


prof.main(test)
