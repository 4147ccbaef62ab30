#!/usr/bin/env python3
"""A signal sent to profrun reaches the program: SIGTERM, SIGINT and
SIGHUP sent to profrun alone (as timeout(1) and service managers send
them) end the program, which once ran on with parent pid 1 while the
spool stayed FILE.PID.0.tmp. profrun waits for it, installs the complete
spool, and exits as the program did (128 + the signal).

usage: test_forward.py LIFECYCLE
"""
import glob
import os
import signal
import subprocess
import sys
import time

import prof


def alive(pid):
    try:
        with open(f'/proc/{pid}/stat') as f:
            return f.read().split(')')[-1].split()[0] != 'Z'
    except FileNotFoundError:
        return False


def default_dispositions():
    """In the child before exec: a signal ignored by whatever started the
    test (nohup ignores SIGHUP) would stay ignored in profrun and its
    program, by design, and this test would wait in vain for it."""
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, signal.SIG_DFL)


def test():
    target = sys.argv[1]
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        d = prof.tmpdir()
        spool = os.path.join(d, 'k.spool')
        p = subprocess.Popen([prof.profrun_path(), '-q', '-o', spool, '--',
                              target, 'spin'], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True,
                             start_new_session=True,
                             preexec_fn=default_dispositions)
        try:
            pid = int(p.stdout.readline())
            time.sleep(0.3)
            os.kill(p.pid, sig)  # profrun alone, not its process group
            rc = p.wait(timeout=30)
        finally:
            if p.poll() is None:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait()
        for _ in range(50):
            if not alive(pid):
                break
            time.sleep(0.1)
        left = alive(pid)
        if left:
            os.kill(pid, signal.SIGKILL)
        err = p.stderr.read()  # (the program held the pipe open too)
        name = signal.Signals(sig).name
        tmps = glob.glob(os.path.join(d, '*.tmp'))
        print(f'{name}: profrun exit {rc}, program left running: {left}, '
              f'temporary files: {tmps}')
        if left:
            raise prof.Fail(f'{name} to profrun: the program {pid} runs on')
        if rc != 128 + sig:
            raise prof.Fail(f'{name}: profrun exit {rc}, want {128 + sig}\n'
                            f'{err}')
        if tmps or not os.path.exists(spool):
            raise prof.Fail(f'{name}: the spool was not installed: {tmps}')
        _, rep = prof.analyze(spool)
        if not prof.field(rep, 'complete'):
            raise prof.Fail(f'{name}: the spool has no footer')
        prof.need_func(rep, 'before_end')


prof.main(test)
