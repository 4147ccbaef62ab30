#!/usr/bin/env python3
"""--format=pprof and --format=callgrind keep the program counters: the
real consumers, Go's `go tool pprof` (Debian golang-go) and Valgrind's
callgrind_annotate, show source, lines and disassembly of the exports
with the hits profanalyze's own report gives.

tests/targets/annotate.c: hot() loops over an inlined mix(), a division
and, every 64 iterations, a call of callee(). Checked, in samples
(-sample_index=samples), against profanalyze --json of the same spool:

- -list '^hot$' and -list '^mix$': the flat columns of hot's and mix's
  lines add up to hot's self samples (mix is inlined into hot); the call's
  line has callee's total samples in its cum and not in its flat; the
  division's line has at least a quarter of them (as test_annotate.py);
- -lines -top: mix's lines are marked (inline), and callee's lines add up
  to its self samples;
- -disasm on annotate_nopie (Go's pprof relocates no addresses, so it
  disassembles a PIE's profile at the wrong place): the instructions'
  flat hits add up to hot's self samples, and the call of callee carries
  callee's total samples in its cum.

And callgrind_annotate --auto=yes on the callgrind export: annotate.c
annotated, its self samples adding up to hot's and callee's, the call's
line followed by the call of callee with callee's total samples, the
division's line at least a quarter of hot's; with --addresses
("positions: instr line"), the same totals and every cost of hot at an
address inside hot (nm).

The pprof part skips when go is not installed (after the callgrind
part has run).

usage: test_export_source.py ANNOTATE ANNOTATE_NOPIE
"""
import os
import re
import shutil
import sys

import prof

LIST_ROW = re.compile(r'^\s*(\d+|\.)\s+(\d+|\.)\s+(\d+):(.*)$')
DIS_ROW = re.compile(r'^\s*(\d+|\.)\s+(\d+|\.)\s+([0-9a-f]+):\s*(.*)$')
TOP_ROW = re.compile(r'^\s*(\d+)\s+\S+%\s+\S+%\s+(\d+)\s+\S+%\s+(.*)$')


def num(s):
    return 0 if s == '.' else int(s)


def go_pprof(go, *args):
    env = dict(os.environ)
    # go wants a cache directory; the tests' own temporary one will do.
    env.setdefault('GOCACHE', os.path.join(prof.tmpdir(), 'gocache'))
    env.setdefault('HOME', prof.tmpdir())
    r = prof.run([go, 'tool', 'pprof', '-sample_index=samples'] +
                 list(args), env=env)
    if r.returncode != 0:
        raise prof.Fail(f'go tool pprof {" ".join(args)}: exit '
                        f'{r.returncode}\n{r.stdout}\n{r.stderr}')
    return r.stdout


def report_samples(spool, name, key):
    _, rep = prof.analyze(spool)
    return prof.field(prof.need_func(rep, name), key)


def source_self_samples(spool):
    """The self samples of every function defined in annotate.c: hot and
    callee do nearly all the work, but main and cpu_seconds may take a
    sample or two of their own."""
    _, rep = prof.analyze(spool)
    return sum(f.get('self_samples', 0) for f in prof.field(rep, 'functions')
               if f.get('name') in ('hot', 'callee', 'main', 'cpu_seconds'))


def check_sum(label, got, want):
    print(f'{label}: {got}, want {want}')
    if got != want:
        raise prof.Fail(f'{label}: {got}, want {want}')


def listing(go, pb, name):
    out = go_pprof(go, '-list', f'^{name}$', pb)
    rows = []
    for line in out.split('\n'):
        m = LIST_ROW.match(line)
        if m:
            rows.append({'flat': num(m.group(1)), 'cum': num(m.group(2)),
                         'line': int(m.group(3)), 'text': m.group(4)})
    if not rows:
        raise prof.Fail(f'-list {name}: no source rows:\n{out}')
    return out, rows


def test_list(go, p, pb, s_hot, t_callee, s_callee):
    out, hot = listing(go, pb, 'hot')
    _, mix = listing(go, pb, 'mix')
    check_sum('-list hot + mix flat', sum(r['flat'] for r in hot) +
              sum(r['flat'] for r in mix), s_hot)
    call = [r for r in hot if 'ANNOTATE-CALL' in r['text']]
    div = [r for r in hot if 'ANNOTATE-DIV' in r['text']]
    if len(call) != 1 or len(div) != 1:
        raise prof.Fail(f'-list hot: the marked lines are missing:\n{out}')
    check_sum('callee on the call line (cum - flat)',
              call[0]['cum'] - call[0]['flat'], t_callee)
    if not any('ANNOTATE-MIX' in r['text'] and r['flat'] for r in mix):
        raise prof.Fail('-list mix: no hits on mix\'s lines')
    if div[0]['flat'] < 0.25 * s_hot:
        raise prof.Fail(f'the division line has {div[0]["flat"]} of '
                        f'{s_hot} samples, under a quarter:\n{out}')
    out = go_pprof(go, '-lines', '-top', '-nodecount=1000',
                   '-nodefraction=0', pb)
    rows = [TOP_ROW.match(l) for l in out.split('\n')]
    rows = [m for m in rows if m]
    inl = [m.group(3) for m in rows if m.group(3).startswith('mix ')]
    if not inl or not all(x.endswith('(inline)') for x in inl):
        raise prof.Fail(f'-lines: mix is not an inlined frame:\n{out}')
    check_sum('-lines callee flat',
              sum(int(m.group(1)) for m in rows
                  if m.group(3).startswith('callee ')), s_callee)


def test_disasm(go, target):
    p = prof.profile(target, ['0.5'], opts=['-F', '1000'])
    pb = prof.export(p.spool, 'pprof', name='nopie.pb.gz')
    s_hot = report_samples(p.spool, 'hot', 'self_samples')
    t_callee = report_samples(p.spool, 'callee', 'total_samples')
    # (Unanchored: -disasm matches the regexp against "NAME [BINARY]".)
    out = go_pprof(go, '-disasm', 'hot', pb)
    rows = [DIS_ROW.match(l) for l in out.split('\n')]
    rows = [m for m in rows if m]
    if not rows:
        raise prof.Fail(f'-disasm hot: no instructions:\n{out}')
    check_sum('-disasm hot flat', sum(num(m.group(1)) for m in rows), s_hot)
    calls = [m for m in rows if 'call' in m.group(4).lower()
             and 'callee' in m.group(4)]
    if len(calls) != 1:
        raise prof.Fail(f'-disasm hot: {len(calls)} calls of callee:\n{out}')
    m = calls[0]
    check_sum('-disasm: callee on the call (cum - flat)',
              num(m.group(2)) - num(m.group(1)), t_callee)


CG_ROW = re.compile(r'^\s*([\d,]+|\.)\s+([\d,]+|\.)  (.*)$')


def cg_number(s):
    return 0 if s == '.' else int(s.replace(',', ''))


def cg_annotated(path, source):
    """callgrind_annotate --auto=yes: the rows of source's annotation,
    [(samples, text)]; fails on a warning."""
    tool = shutil.which('callgrind_annotate')
    if not tool:
        raise prof.Fail('callgrind_annotate not found: install valgrind')
    r = prof.run([tool, '--auto=yes', '--show-percs=no', '--threshold=100',
                  path], cwd=prof.tmpdir())
    if r.returncode != 0 or r.stderr.strip():
        raise prof.Fail(f'callgrind_annotate {path}: exit {r.returncode}\n'
                        f'{r.stderr[-3000:]}')
    rows, inside, head = [], False, False
    for line in r.stdout.split('\n'):
        if line.startswith('-- Auto-annotated source:'):
            inside = line.endswith('/' + source)
            head = True  # its own dashes come next
            continue
        if line.startswith('-' * 20):
            inside = inside and head
            head = False
            continue
        m = CG_ROW.match(line) if inside else None
        if m:
            rows.append((cg_number(m.group(2)), m.group(3)))
    if not rows:
        raise prof.Fail(f'callgrind_annotate --auto=yes: {source} not '
                        f'annotated:\n{r.stdout[-3000:]}')
    return rows


def test_callgrind(p, target, s_hot, s_source, t_callee):
    for args in ((), ('--addresses',)):
        label = 'callgrind ' + ' '.join(args)
        path = prof.export(p.spool, 'callgrind', args,
                           name='callgrind.out')
        rows = cg_annotated(path, 'annotate.c')
        own = [(n, t) for n, t in rows if not t.startswith('=> ')]
        check_sum(f'{label}: annotate.c self samples',
                  sum(n for n, _ in own), s_source)
        k = [i for i, (_, t) in enumerate(rows) if 'ANNOTATE-CALL' in t]
        if len(k) != 1 or not rows[k[0] + 1][1].startswith('=> ') or \
                'callee' not in rows[k[0] + 1][1]:
            raise prof.Fail(f'{label}: the call line is not followed by '
                            f'the call of callee: {rows[k[0]:k[0] + 2]}')
        check_sum(f'{label}: the call of callee', rows[k[0] + 1][0],
                  t_callee)
        div = [n for n, t in own if 'ANNOTATE-DIV' in t]
        if not div or div[0] < 0.25 * s_hot:
            raise prof.Fail(f'{label}: the division line has {div} of '
                            f'{s_hot} samples')
        if args:
            check_addresses(path, target)


def check_addresses(path, target):
    """Every cost line of hot in the --addresses export is at an address
    inside hot, as nm gives hot's range."""
    nm = prof.run(['nm', '-S', target])
    lo = size = None
    for line in nm.stdout.split('\n'):
        f = line.split()
        if len(f) == 4 and f[3] == 'hot':
            lo, size = int(f[0], 16), int(f[1], 16)
    if lo is None:
        raise prof.Fail(f'nm -S {target}: no hot')
    with open(path, encoding='utf-8') as f:
        text = f.read()
    if '\npositions: instr line\n' not in text:
        raise prof.Fail(f'{path}: no "positions: instr line"')
    fn, addrs = None, []
    for line in text.split('\n'):
        if line.startswith('fn='):
            fn = line
        elif fn and fn.endswith(' hot') and line.startswith('0x'):
            addrs.append(int(line.split()[0], 16))
        elif line.startswith('fn=') or line.startswith('ob='):
            fn = None
    bad = [hex(a) for a in addrs if not lo <= a < lo + size]
    print(f'callgrind --addresses: {len(addrs)} cost lines of hot, '
          f'hot is [{lo:#x}, {lo + size:#x})')
    if not addrs or bad:
        raise prof.Fail(f'hot\'s costs outside hot: {bad[:10]} (of '
                        f'{len(addrs)})')


def test():
    if len(sys.argv) != 3:
        raise prof.Fail('usage: test_export_source.py ANNOTATE '
                        'ANNOTATE_NOPIE')
    p = prof.profile(sys.argv[1], ['0.5'], opts=['-F', '1000'])
    s_hot = report_samples(p.spool, 'hot', 'self_samples')
    if s_hot < prof.MIN_SAMPLES:
        raise prof.Fail(f'hot has {s_hot} self samples: too few to compare')
    test_callgrind(p, sys.argv[1], s_hot, source_self_samples(p.spool),
                   report_samples(p.spool, 'callee', 'total_samples'))
    go = shutil.which('go')
    if not go:
        raise prof.Skip('go is not installed (Debian golang-go: '
                        'scripts/setup-deps installs it); the callgrind '
                        'part passed')
    pb = prof.export(p.spool, 'pprof', name='profile.pb.gz')
    test_list(go, p, pb, s_hot,
              report_samples(p.spool, 'callee', 'total_samples'),
              report_samples(p.spool, 'callee', 'self_samples'))
    test_disasm(go, sys.argv[2])


prof.main(test)
