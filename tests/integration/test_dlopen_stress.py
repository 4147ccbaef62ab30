#!/usr/bin/env python3
"""Loader threads dlopen and dlclose a plugin 2000 times each while sampled
at 10 kHz by the perf source: the run must finish, the sampling handler
must never call dl_iterate_phdr, and samples in the plugin resolve to its
functions although it comes and goes. Then again under --clock=wall, whose
poller walks the stacks of threads blocked (on the loader's lock, among
others) while the plugin is unmapped under it.

The deadlock this guards against (a handler that takes the loader's lock,
through dl_iterate_phdr, while the thread it interrupted holds it in
dlopen) needs a sample to land in that window, so a hang alone would catch
it only by chance. Two things make the check deterministic:
- libdliter_check, preloaded after the profiler, counts every call of
  dl_iterate_phdr made inside the sampling signal's handler, whether the
  lock was free or not: any is a failure. It also counts the handler's
  runs, which must be many (else the check saw nothing).
- The source must be perf and deliver at least a quarter of user
  CPU-seconds x 10000 samples (test_samples_delivered's bound, loose for
  a loaded machine): a silent fall-back to a 250 Hz tick source, which
  would leave the handler ten times fewer runs, fails it.

usage: test_dlopen_stress.py DLOPEN_STRESS PLUGIN DLITER_CHECK
"""
import re
import subprocess
import sys

import prof

# How profanalyze names a frame it cannot resolve: module+0xOFFSET or
# 0xADDRESS (and, defensively, the usual placeholders).
UNRESOLVED = re.compile(r'^(.*\+0x[0-9a-fA-F]+|0x[0-9a-fA-F]+|\?+|\[.*\]|'
                        r'<.*>|)$')


def symbol_range(path, name):
    """(address, size) of a symbol, from nm. In this small library the
    executable segment has p_offset == p_vaddr, so the address is also the
    module offset profanalyze prints for frames it cannot name."""
    out = subprocess.run(['nm', '-S', '--defined-only', path], check=True,
                         capture_output=True, text=True).stdout
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 4 and parts[3] == name:
            return int(parts[0], 16), int(parts[1], 16)
    raise prof.Fail(f'{path}: no symbol {name}')


HZ = 10000
MIN_SHARE = 0.25
CHECK_LINE = re.compile(r'dliter_check: in_handler=(\d+) outside=(\d+) '
                        r'handler_runs=(\d+)')


def test():
    target, plugin, dliter_check = sys.argv[1:4]
    check(target, plugin, dliter_check, [])
    check(target, plugin, dliter_check, ['--clock=wall'])


def check_handler(p, what):
    """libdliter_check's counts: no dl_iterate_phdr call in the handler,
    and proof that it watched (calls outside it, runs of the handler)."""
    lines = [m for m in map(CHECK_LINE.fullmatch, p.stderr.splitlines())
             if m]
    if len(lines) != 1:
        raise prof.Fail(f'{what}: want one line from libdliter_check on '
                        f'stderr, got {len(lines)}:\n{p.stderr[-2000:]}')
    in_handler, outside, runs = map(int, lines[0].groups())
    print(f'{what}: dl_iterate_phdr {in_handler} times in the handler, '
          f'{outside} outside; {runs} handler runs')
    if in_handler:
        raise prof.Fail(f'{what}: the sampling handler called '
                        f'dl_iterate_phdr {in_handler} times (it takes the '
                        'loader lock an interrupted dlopen may hold)')
    if not outside or runs < prof.MIN_SAMPLES:
        raise prof.Fail(f'{what}: libdliter_check saw {outside} calls and '
                        f'{runs} handler runs: the check is not working')


def check_rate(p, what):
    # perf samples user mode only, and dlopen and dlclose spend much of
    # their time in the kernel (mmap, munmap, mprotect): the rate is
    # judged on the run's user CPU time.
    r = p.report
    cpu = p.user_seconds
    want = MIN_SHARE * cpu * HZ
    print(f'{what}: {r["samples"]} samples for {cpu:.3f} s of user CPU '
          f'({prof.field(r, "cpu_seconds"):.3f} s user + system), want >= '
          f'{want:.0f}')
    if r['samples'] < want:
        raise prof.Fail(f'{what}: {r["samples"]} samples < {MIN_SHARE} x '
                        f'{cpu:.3f} s x {HZ} Hz: too few for the stress')


def check(target, plugin, dliter_check, opts):
    what = ' '.join(opts) or '--clock=cpu'
    try:
        p = prof.profile(target, args=[plugin, '2', '2000'],
                         opts=['-F', str(HZ), '--timer=perf'] + opts,
                         env={'LD_PRELOAD': dliter_check}, timeout=240)
    except prof.TimerUnavailable as e:
        raise prof.Skip(f'the stress needs the perf source at {HZ} Hz: {e}')
    r = p.report
    if not prof.field(r, 'complete'):
        raise prof.Fail('spool has no footer although the program exited')
    if prof.field(r, 'timer') != 'perf':
        raise prof.Fail(f'{what}: ran with the {r["timer"]} timer, not perf')
    check_handler(p, what)
    if not opts:
        # Under --clock=wall the count also has the blocked threads'
        # samples: the rate is judged on the CPU clock only.
        check_rate(p, what)
    print(what, end=': ')
    in_plugin = [f for f in prof.field(r, 'functions')
                 if str(f.get('module')).endswith('/libdlplugin.so')]
    print(f'{r["samples"]} samples, {r.get("unresolved_samples")} '
          f'unresolved, dropped {r.get("dropped")}; in the plugin: ' +
          ', '.join(f'{f["name"]} {f["self_samples"]}' for f in in_plugin))
    # Frames in plugin_work's code must resolve to it whatever address the
    # plugin had at the time. (Frames in the plugin's crt stubs, whose
    # symbols have size 0, are reported but not judged here.)
    start, size = symbol_range(plugin, 'plugin_work')
    for f in in_plugin:
        if not UNRESOLVED.match(str(f['name'])):
            continue
        off = re.search(r'\+0x([0-9a-fA-F]+)$', str(f['name']))
        if not off or start <= int(off.group(1), 16) < start + size:
            raise prof.Fail(f'unresolved frame in plugin_work: {f["name"]}')
        print(f'note: unresolved frame outside plugin_work: {f["name"]}')
    if not in_plugin:
        # plugin_work runs 2 x 2000 times 20 us of CPU, 80 ms in all:
        # hundreds of samples at 10 kHz. None at all means they were lost
        # or not attributed to the plugin.
        raise prof.Fail(f'no sample in the plugin; '
                        f'{prof.field(r, "unresolved_samples")} unresolved')
    if not any(f['name'] == 'plugin_work' for f in in_plugin):
        raise prof.Fail('samples in the plugin but none in plugin_work')


prof.main(test)
