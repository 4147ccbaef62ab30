#!/usr/bin/env python3
"""Four threads do 10, 20, 30 and 40 % of the work: the report counts five
threads (main and four) and splits the samples 1:2:3:4, with every timer
profrun offers here. The sources reach threads differently: perf and posix
have a timer per thread, itimer one for the process whose signal goes to
the thread that was running.

usage: test_threads.py THREADS
"""
import sys

import prof


def test():
    def one(timer):
        p = prof.profile(sys.argv[1], opts=['-F', '1000', f'--timer={timer}'])
        r = p.report
        if prof.field(r, 'timer') != timer:
            raise prof.Fail(f'asked for --timer={timer}, report says '
                            f'{r["timer"]}')
        threads = prof.field(r, 'threads')
        if threads != 5:
            raise prof.Fail(f'{timer}: {threads} threads, want 5 (main + 4)')
        # posix by the time the samples stand for: its per-thread timer
        # on a loaded machine delivers a thread's signals in bursts that
        # each carry several periods (overruns), so its sample count is no
        # measure of its share, its weights are. itimer by the count: its
        # one process-wide timer charges the CPU time of every thread
        # since the last signal to whichever thread takes the next, so
        # there the weights are the noisier measure and the count (the
        # signal goes to the thread running at the tick) the fair one.
        prof.check_shares(r, {f'thread_work_{i}': i for i in range(1, 5)},
                          key='self' if timer == 'posix' else 'self_samples',
                          label=timer)

    prof.for_each_timer(one)


prof.main(test)
