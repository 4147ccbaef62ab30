#!/usr/bin/env python3
"""Code generated at run time, named by the program's perf map.

jit_loop runs a counting loop it wrote into an anonymous executable page
for 0.5 s of CPU time, names it jit_hot_loop in /tmp/perf-PID.map (after
a line for an overlapping range, jit_stale_code, that the later line
overrides) and deletes the map before it exits. So:

- the spool holds the map: PERF_MAP records (type 13) of the process's
  PID, the last flagged LAST, whose lines name jit_hot_loop;
- profanalyze --flat names the loop's samples jit_hot_loop (module
  [jit]), with most of the samples, although the map file is gone: the
  name comes from the spool's copy; jit_stale_code gets none;
- with the PERF_MAP records taken out of the spool (as a spool of an
  older library would be), a map still in /tmp (jit_loop 0.5 keep) is
  read instead, with a note; without either, the loop's PCs stay
  unnamed addresses, as before;
- a map still there when the process dies of a signal (jit_loop 0.5
  kill: SIGTERM) is copied by the fatal-signal handler;
- a forked child copies its own map into its own spool
  (jit_child_loop), and the parent's spool has only the parent's.

The loop is x86-64 machine code: on another machine the test skips.

usage: test_jit.py JIT_LOOP
"""
import glob
import os
import platform
import struct
import sys

import prof

PROCESS, PERF_MAP = 1, 13
PERF_MAP_LAST = 0x1
# The loop is all the program does but start and exit: at the
# MIN_SAMPLES a run must have, a share under this bound is a failure
# whatever the noise (the true share is over 0.95).
MIN_SHARE = 0.8


def perf_map_records(spool):
    """(pid, part, flags, text) of each PERF_MAP record, and the PROCESS
    record's pid."""
    pid, parts = None, []
    for rtype, p in prof.spool_records(spool, strict=True):
        if rtype == PROCESS and pid is None:
            pid, = struct.unpack_from('<I', p, 0)
        elif rtype == PERF_MAP:
            mpid, part, flags, n = struct.unpack_from('<IIII', p, 0)
            parts.append((mpid, part, flags, p[16:16 + n].decode()))
    return pid, parts


def check_records(spool, name, kept=False):
    pid, parts = perf_map_records(spool)
    if not parts:
        raise prof.Fail(f'{spool}: no PERF_MAP record')
    if [pt[1] for pt in parts] != list(range(len(parts))) or \
            any(pt[0] != pid for pt in parts) or \
            parts[-1][2] != PERF_MAP_LAST:
        raise prof.Fail(f'{spool}: PERF_MAP records {[pt[:3] for pt in parts]}'
                        f' (process {pid})')
    text = ''.join(pt[3] for pt in parts)
    if name not in text or 'jit_stale_code' not in text:
        raise prof.Fail(f'{spool}: the copied map lacks {name}:\n{text}')
    if not kept and os.path.exists(f'/tmp/perf-{pid}.map'):
        raise prof.Fail(f'/tmp/perf-{pid}.map still there: jit_loop '
                        'deletes it')
    return pid


def check_flat(spool, name):
    """profanalyze --flat has name in [jit] with most samples."""
    r, _ = prof.analyze(spool, args=('--flat',))
    print(r.stdout[:1500])
    _, rep = prof.analyze(spool)
    total = prof.field(rep, 'samples')
    if total < prof.MIN_SAMPLES:
        raise prof.Fail(f'{spool}: {total} samples, want at least '
                        f'{prof.MIN_SAMPLES}')
    f = prof.func(rep, name, '[jit]')
    got = f['self_samples'] if f else 0
    if name not in r.stdout or got < MIN_SHARE * total:
        raise prof.Fail(f'{spool}: {name} has {got} of {total} samples '
                        f'(want {MIN_SHARE:.0%}); heaviest:\n' + prof.top(rep))
    if prof.func(rep, 'jit_stale_code'):
        raise prof.Fail(f'{spool}: jit_stale_code, overridden by a later '
                        'line of the map, has samples')
    return rep, got


def strip_perf_map(spool):
    """A copy of spool with its PERF_MAP records turned into a type no
    reader knows (skipped)."""
    with open(spool, 'rb') as f:
        data = bytearray(f.read())
    chunk, = struct.unpack_from('<I', data, 12)
    pos, n = 16, 0
    while pos + 8 <= len(data):
        room = chunk - pos % chunk
        rtype, length = struct.unpack_from('<II', data, pos)
        if rtype == 0 or room < 8:
            pos += room
            continue
        if rtype == PERF_MAP:
            struct.pack_into('<I', data, pos, 0x7ffffff0)
            n += 1
        pos += 8 + length
    out = spool + '.stripped'
    with open(out, 'wb') as f:
        f.write(data)
    if not n:
        raise prof.Fail(f'{spool}: no PERF_MAP record to strip')
    return out


def check_live_fallback(target):
    p = prof.profile(target, ['0.5', 'keep'])
    pid, _ = perf_map_records(p.spool)
    live = f'/tmp/perf-{pid}.map'
    try:
        if not os.path.exists(live):
            raise prof.Fail(f'{live}: jit_loop keep leaves it')
        stripped = strip_perf_map(p.spool)
        r, _ = prof.analyze(stripped, args=('--flat',))
        if live not in r.stderr:
            raise prof.Fail(f'no note naming {live}: {r.stderr}')
        check_flat(stripped, 'jit_hot_loop')
    finally:
        os.unlink(live)
    # Neither copy nor file: the loop is an address, as without a map.
    _, rep = prof.analyze(stripped)
    if prof.func(rep, 'jit_hot_loop'):
        raise prof.Fail('jit_hot_loop named with no map at all')
    print(f'live map fallback: named from {live}, unnamed once gone')


def check_killed(target):
    p = prof.profile(target, ['0.5', 'kill'], expect_rc=None)
    pid, _ = perf_map_records(p.spool)
    try:
        if p.rc == 0:
            raise prof.Fail(f'jit_loop kill: exit 0, want death by SIGTERM')
        check_records(p.spool, 'jit_hot_loop', kept=True)
    finally:
        if pid:
            try:
                os.unlink(f'/tmp/perf-{pid}.map')
            except FileNotFoundError:
                pass
    check_flat(p.spool, 'jit_hot_loop')
    print(f'killed by SIGTERM (exit {p.rc}): the map was copied')


def check_fork(target):
    base = os.path.join(prof.tmpdir(), 'f.spool')
    r = prof.profrun(['-q', '-o', base, '--', target, '0.5', 'fork'])
    if r.returncode != 0:
        raise prof.Fail(f'fork: exit {r.returncode}: {r.stderr}')
    children = glob.glob(base + '.*')
    if len(children) != 1:
        raise prof.Fail(f'fork: child spools {children}')
    check_records(children[0], 'jit_child_loop')
    check_flat(children[0], 'jit_child_loop')
    _, parts = perf_map_records(base)
    if 'jit_child_loop' in ''.join(pt[3] for pt in parts):
        raise prof.Fail("fork: the child's map is in the parent's spool")
    check_flat(base, 'jit_hot_loop')


def check_no_code(spool):
    """--disassemble of JIT code: one line saying no file holds it."""
    r, _ = prof.analyze(spool, args=('--disassemble=jit_hot_loop',),
                        expect_rc=1)
    lines = r.stderr.strip().split('\n')
    print(f'--disassemble=jit_hot_loop: {lines}')
    if len(lines) != 1 or 'generated at run time' not in lines[0]:
        raise prof.Fail('--disassemble=jit_hot_loop: want one line saying '
                        f'the code was generated at run time: {lines}')


def test():
    if platform.machine() != 'x86_64':
        raise prof.Skip('jit_loop writes x86-64 machine code; this is '
                        f'{platform.machine()}')
    p = prof.profile(sys.argv[1], ['0.5'])
    check_records(p.spool, 'jit_hot_loop')
    _, got = check_flat(p.spool, 'jit_hot_loop')
    print(f'jit_hot_loop: {got} samples')
    check_no_code(p.spool)
    check_live_fallback(sys.argv[1])
    check_killed(sys.argv[1])
    check_fork(sys.argv[1])


prof.main(test)
