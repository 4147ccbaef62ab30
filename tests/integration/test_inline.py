#!/usr/bin/env python3
"""profanalyze --inline (the default) on a real run of inline_work (built
-O2 -g): caller() does its work in mix(), a static inline function forced
inline, and in work.h's work_spin, inlined both into mix and into caller.

With --inline, mix and work_spin are functions of their own, flagged
"inlined" in the JSON and marked " [inlined]" in the text reports and
exports, whose frames sit where the source calls them: mix only under
caller, work_spin only under mix or caller. mix has 3/4 of caller's time
by construction. The figures are exact rearrangements of --no-inline's:
the same samples, caller's total unchanged, and caller's self under
--no-inline is its self plus the self of every inlined frame under it.
With --lines, each frame is at the line of its call of the next, the
innermost at its PC's line (as pprof shows them).

usage: test_inline.py INLINE_WORK
"""
import os
import re
import sys

import prof


def by_name(report):
    out = {}
    for i, f in enumerate(prof.field(report, 'functions')):
        if prof.field(f, 'name') in out:
            raise prof.Fail(f'two functions named {f["name"]}')
        out[f['name']] = (i, f)
    return out


def parents(report, name):
    """The names of the functions of the parent nodes of name's nodes."""
    funcs = prof.field(report, 'functions')
    tree = prof.field(report, 'tree')
    got = set()
    for n in tree:
        if n['function'] is not None and funcs[n['function']]['name'] == name:
            got.add(funcs[tree[n['parent']]['function']]['name'])
    return got


def check_inline(r):
    fns = by_name(r)
    for name in ('mix', 'work_spin'):
        if name not in fns:
            raise prof.Fail(f'--inline: no function {name}:\n{prof.top(r)}')
        if fns[name][1].get('inlined') is not True:
            raise prof.Fail(f'--inline: {name} is not "inlined": '
                            f'{fns[name][1]}')
    for name in ('caller', 'main'):
        if 'inlined' in prof.field(fns, name)[1]:
            raise prof.Fail(f'--inline: {name} is "inlined"')
    got = parents(r, 'mix')
    if got != {'caller'}:
        raise prof.Fail(f'--inline: mix is called by {got}, want caller')
    got = parents(r, 'work_spin')
    if got != {'mix', 'caller'}:
        raise prof.Fail(f'--inline: work_spin is called by {got}, want '
                        'mix and caller')
    caller = fns['caller'][1]
    mix = fns['mix'][1]
    n = prof.field(caller, 'total_samples')
    print(f'caller total {n}, mix total {mix["total_samples"]}')
    prof.check_share('mix in caller', mix['total_samples'] / n, 0.75, n)


def check_sums(r, plain):
    """r (--inline) and plain (--no-inline) count the same samples."""
    fi, fp = by_name(r), by_name(plain)
    for k in ('samples',):
        if r[k] != plain[k]:
            raise prof.Fail(f'{k}: {r[k]} with --inline, {plain[k]} without')
    # (The C library may have DWARF, and inlined frames of its own.)
    inl = [f for _, f in fi.values() if f.get('inlined') and
           str(f.get('module')).endswith('/inline_work')]
    if any(f.get('inlined') for _, f in fp.values()):
        raise prof.Fail('--no-inline: a function is "inlined"')
    for name in ('mix', 'work_spin', 'work_thread_cpu_ns'):
        if name in fp:
            raise prof.Fail(f'--no-inline: {name} is a function')
    # Every inlined frame of the program is under caller.
    a, b = fi['caller'][1], fp['caller'][1]
    if a['total_samples'] != b['total_samples']:
        raise prof.Fail(f'caller total {a["total_samples"]} with --inline, '
                        f'{b["total_samples"]} without')
    got = a['self_samples'] + sum(f['self_samples'] for f in inl)
    print(f'caller self {a["self_samples"]} + inlined self '
          f'{got - a["self_samples"]} = {got}; --no-inline: caller self '
          f'{b["self_samples"]}')
    if got != b['self_samples']:
        raise prof.Fail(f'caller self {a["self_samples"]} + inlined frames '
                        f'{got - a["self_samples"]} != --no-inline caller '
                        f'self {b["self_samples"]}')
    if b['self_samples'] < 0.9 * b['total_samples']:
        raise prof.Fail(f'--no-inline: caller self {b["self_samples"]} of '
                        f'total {b["total_samples"]}')


def check_text(spool):
    out, _ = prof.analyze(spool, args=('--inline', '--outline'))
    lines = out.stdout.split('\n')
    k = next((i for i, l in enumerate(lines)
              if re.search(r' caller \d+$', l)), None)
    if k is None or not re.search(r' mix \[inlined\] \d+$', lines[k + 1]):
        raise prof.Fail('--outline: no "mix [inlined]" line right under '
                        'caller:\n' + out.stdout)
    depth = lambda l: len(l) - len(l.lstrip(' |/\\+'))
    if depth(lines[k + 1]) <= depth(lines[k]):
        raise prof.Fail('--outline: mix [inlined] is not indented under '
                        'caller:\n' + out.stdout)
    out, _ = prof.analyze(spool, args=('--inline', '--graph'))
    if not re.search(r'^\s+[\d.]+\s+[\d.]+\s+caller\n[^\n]*==> mix '
                     r'\[inlined\]$', out.stdout, re.M):
        raise prof.Fail('--graph: no entry of mix [inlined] with caller '
                        'as its parent:\n' + out.stdout)
    out, _ = prof.analyze(spool, args=('--inline', '--flat'))
    if not re.search(r' work_spin \[inlined\]$', out.stdout, re.M):
        raise prof.Fail('--flat: no work_spin [inlined] row:\n' + out.stdout)
    folded = open(prof.export(spool, 'folded', args=('--inline',))).read()
    if not re.search(r';main;caller;mix \[inlined\];work_spin \[inlined\] '
                     r'\d+$', folded, re.M):
        raise prof.Fail('folded: no main;caller;mix [inlined];work_spin '
                        '[inlined] stack:\n' + folded[:3000])
    # Without the option, profanalyze shows the inlined frames too.
    r = prof.run([prof.profanalyze_path(), '--outline', spool])
    if ' mix [inlined] ' not in r.stdout:
        raise prof.Fail('the default is not --inline:\n' + r.stdout)


def source_line(path, marker):
    with open(path) as f:
        for i, l in enumerate(f):
            if marker in l:
                return i + 1
    raise prof.Fail(f'{path}: no line with {marker!r}')


def check_lines(spool):
    """--lines: caller at its call of mix, mix at its call of work_spin,
    work_spin at lines of work.h."""
    src = os.path.join(os.environ['PROFRUN_SOURCE_ROOT'], 'tests',
                       'targets', 'inline_work.c')
    want_caller = source_line(src, "caller's call of mix")
    want_mix = source_line(src, "mix's call")
    _, r = prof.analyze(spool, args=('--inline', '--lines', '--json'))
    seen = set()
    for f in prof.field(r, 'functions'):
        m = re.fullmatch(r'(caller|mix|work_spin) \(([^:]+):(\d+)\)',
                         f['name'])
        if not m or not f['total_samples']:
            continue
        name, line = m.group(1), int(m.group(3))
        if bool(f.get('inlined')) != (name != 'caller'):
            raise prof.Fail(f'--lines: {f["name"]} inlined: '
                            f'{f.get("inlined")}')
        if os.path.basename(prof.field(f, 'file')) != m.group(2) or \
                f['line'] != line:
            raise prof.Fail(f'--lines: {f["name"]} has file {f["file"]} '
                            f'line {f["line"]}')
        if name == 'mix' and line != want_mix:
            raise prof.Fail(f'--lines: {f["name"]}, want line {want_mix}')
        if name == 'work_spin' and m.group(2) != 'work.h':
            raise prof.Fail(f'--lines: {f["name"]}, want work.h')
        seen.add(name)
        if name == 'caller' and line == want_caller:
            seen.add('caller at mix')
    print(f'--lines: {sorted(seen)}')
    if seen != {'caller', 'mix', 'work_spin', 'caller at mix'}:
        raise prof.Fail(f'--lines: saw {sorted(seen)}:\n{prof.top(r)}')
    out, _ = prof.analyze(spool, args=('--inline', '--lines', '--flat'))
    if not re.search(r' work_spin \(work\.h:\d+\) \[inlined\]$', out.stdout,
                     re.M):
        raise prof.Fail('--lines --flat: no "work_spin (work.h:N) '
                        '[inlined]" row:\n' + out.stdout)


def test():
    p = prof.profile(sys.argv[1], [prof.SHARE_SCALE], opts=['-F', '1000'])
    _, r = prof.analyze(p.spool, args=('--inline', '--json'))
    _, plain = prof.analyze(p.spool, args=('--no-inline', '--json'))
    check_inline(r)
    check_sums(r, plain)
    check_text(p.spool)
    check_lines(p.spool)


prof.main(test)
