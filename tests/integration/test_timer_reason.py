#!/usr/bin/env python3
"""When perf_event_open is refused (perf_event_paranoid 3 or 4, seccomp:
as on hosted CI runners), profrun falls back to another timer, and the
report header says which source it used and why: perf_event_open denied
(EACCES, EPERM) or failed (another error such as ENOSYS). The refusal is
made by a seccomp filter (prof.deny_perf_event_open).

usage: test_timer_reason.py WORK_SPLIT
"""
import errno
import sys

import prof

WANT = {errno.EACCES: ('denied', 'perf_event_open was denied'),
        errno.EPERM: ('denied', 'perf_event_open was denied'),
        errno.ENOSYS: ('failed', 'perf_event_open failed')}


def test():
    target = sys.argv[1]
    p = prof.profile(target, args=['0.05'])
    got = prof.field(p.report, 'perf_refused')
    print(f'unrestricted: timer {prof.field(p.report, "timer")}, '
          f'perf_refused {got}')
    if prof.field(p.report, 'timer') == 'perf' and got is not None:
        raise prof.Fail(f'perf was used, yet perf_refused is {got!r}')
    for err, (flag, text) in WANT.items():
        deny = prof.deny_perf_event_open(err)
        if deny is None:
            raise prof.Skip('perf_event_open cannot be denied here')
        p = prof.profile(target, args=['0.05'], preexec_fn=deny)
        got = prof.field(p.report, 'perf_refused')
        r = prof.run([prof.profanalyze_path(), p.spool])
        line = next((l for l in r.stdout.splitlines()
                     if l.startswith('Time source:')), '')
        print(f'{errno.errorcode[err]}: perf_refused {got}; {line}')
        if got != flag or text not in line:
            raise prof.Fail(f'{errno.errorcode[err]}: perf_refused {got!r} '
                            f'(want {flag!r}), header {line!r} (want '
                            f'{text!r})')


prof.main(test)
