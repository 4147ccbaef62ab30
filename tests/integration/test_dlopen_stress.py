#!/usr/bin/env python3
"""Loader threads dlopen and dlclose a plugin 2000 times each while sampled
at 10 kHz: the run must finish (a profiler that takes the loader lock in its
signal handler deadlocks here), and samples in the plugin resolve to its
functions although it comes and goes. Then again under --clock=wall, whose
poller walks the stacks of threads blocked (on the loader's lock, among
others) while the plugin is unmapped under it.

usage: test_dlopen_stress.py DLOPEN_STRESS PLUGIN
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


def test():
    target, plugin = sys.argv[1], sys.argv[2]
    check(target, plugin, [])
    check(target, plugin, ['--clock=wall'])


def check(target, plugin, opts):
    p = prof.profile(target, args=[plugin, '2', '2000'],
                     opts=['-F', '10000'] + opts, timeout=240)
    r = p.report
    print(' '.join(opts) or '--clock=cpu', end=': ')
    if not prof.field(r, 'complete'):
        raise prof.Fail('spool has no footer although the program exited')
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
