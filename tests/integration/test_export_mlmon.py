#!/usr/bin/env python3
"""profanalyze --format=mlmon, read back by a strict parser of MLton's
mlmon.out format (mlmon.py, from the specification) and compared with
what --json says of the same spool:

  - "time" for a time profile, "alloc" for a space profile, always the
    "stack" style;
  - the magic number is the first four bytes of the build-id of the
    executable (the module whose path is the JSON "exe");
  - the ticks are the samples (time) or the sampled bytes (space), with
    no GC ticks;
  - split function i is JSON function i: current = self, stack = total
    (samples for time, bytes for space), GC column 0;
  - master functions: with --lines, one per symbol, the lines of a
    function added up, its stack ticks counting each sample once (derived
    here from the JSON tree); without --lines, the split functions again;
  - recursion (recursive: 50 deep by construction): recurse's stack ticks
    are its samples counted once each, not once per frame.
The parser itself must reject broken variants of a real export.

usage: test_export_mlmon.py WORK_SPLIT RECURSIVE THREADS SPACE_LEAK
"""
import re
import sys

import mlmon
import prof

LINE_SUFFIX = re.compile(r'(.*) \([^()]*:\d+\)')




def parse(data, what):
    try:
        return mlmon.parse(data)
    except mlmon.Invalid as e:
        raise prof.Fail(f'{what}: not a valid mlmon.out: {e}\n'
                        f'{data[:2000].decode(errors="replace")}')


def want_magic(r):
    """The first 8 hex digits of the executable's build-id, or 0."""
    exe = prof.field(r, 'exe')
    for m in prof.field(r, 'modules'):
        if m['path'] == exe and m['build_id']:
            return int(m['build_id'][:8].ljust(8, '0'), 16)
    return 0


def masters_of(r, lines):
    """Master index of each JSON function: with --lines the pieces of one
    symbol (same module, name without " (file:line)") share one, numbered
    in the order of their first piece."""
    keys, out = {}, []
    for k, f in enumerate(r['functions']):
        key = k
        m = LINE_SUFFIX.fullmatch(f['name'])
        if lines and m and f['module'] and not f['marker']:
            key = (f['module'], m[1])
        out.append(keys.setdefault(key, len(keys)))
    return out, len(keys)


def unit(r, f, key):
    """A function's or node's self or total in the file's unit."""
    if r['kind'] == 'space':
        return int(f[key])
    return f[key + '_samples']


def master_stack(r, master, n):
    """Each master's stack ticks from the JSON tree: a node's total counts
    where no ancestor belongs to the same master."""
    tree = r['tree']
    kids = [[] for _ in tree]
    for i, node in enumerate(tree):
        if node['parent'] is not None:
            kids[node['parent']].append(i)
    stack = [0] * n
    todo = [(0, frozenset())]
    while todo:
        i, above = todo.pop()
        fn = tree[i]['function']
        if fn is not None:
            m = master[fn]
            if m not in above:
                stack[m] += unit(r, tree[i], 'total')
            above = above | {m}
        todo.extend((k, above) for k in kids[i])
    return stack


def check_spool(spool, args, what):
    data = prof.export_bytes(spool, 'mlmon', args)
    p = parse(data, what)
    _, r = prof.analyze(spool, args=tuple(args) + ('--json',))
    space = r['kind'] == 'space'
    total = r['sampled_bytes'] if space else r['samples']
    head = (p.kind, p.style, p.magic, p.total, p.total_gc)
    want = ('alloc' if space else 'time', 'stack', want_magic(r), total, 0)
    if head != want:
        raise prof.Fail(f'{what}: kind, style, magic, ticks, GC ticks '
                        f'{head}, want {want}')
    funcs = r['functions']
    got = [c.tuple() for c in p.splits]
    want = [(unit(r, f, 'self'), unit(r, f, 'total'), 0) for f in funcs]
    if got != want:
        bad = [(f['name'], g, w) for f, g, w in zip(funcs, got, want)
               if g != w][:5]
        raise prof.Fail(f'{what}: {len(got)} split functions, want '
                        f'{len(want)} (JSON functions); differing: {bad}')
    if sum(c[0] for c in got) != total:
        raise prof.Fail(f'{what}: the split functions were current '
                        f'{sum(c[0] for c in got)} ticks of {total}')
    master, n = masters_of(r, '--lines' in args)
    current = [0] * n
    for k, f in enumerate(funcs):
        current[master[k]] += unit(r, f, 'self')
    want = list(zip(current, master_stack(r, master, n), [0] * n))
    got = [c.tuple() for c in p.masters]
    if got != want:
        raise prof.Fail(f'{what}: master functions {got[:8]}..., want '
                        f'{want[:8]}... ({n})')
    print(f'{what}: {p.kind}, magic 0x{p.magic:08x}, {p.total} ticks, '
          f'{len(p.splits)} split and {len(p.masters)} master functions: '
          'as --json says')
    return p, r, data


def check_recursion(p, r):
    k = next(i for i, f in enumerate(r['functions'])
             if f['name'] == 'recurse')
    c = p.splits[k]
    print(f'recursive: recurse current {c.current}, stack {c.stack} of '
          f'{p.total} ticks')
    if c.stack > p.total or c.stack != r['functions'][k]['total_samples']:
        raise prof.Fail(f'recurse: stack ticks {c.stack}: not its samples '
                        'counted once each')


def lines_available():
    r = prof.run([prof.profanalyze_path(), '--lines', '--help'])
    return r.returncode == 0


def broken_variants(data):
    lines = data.decode().split('\n')
    nsplit = int(lines[5])

    def edit(i, new):
        return '\n'.join(lines[:i] + [new] + lines[i + 1:]).encode()

    c = lines[6].split(' ')
    d = lines[7 + nsplit].split(' ')
    return [
        ('another header', edit(0, 'MLton profile')),
        ('an unknown kind', edit(1, 'space')),
        ('an unknown style', edit(2, 'both')),
        ('a decimal magic', edit(3, str(int(lines[3], 16)))),
        ('one total', edit(4, lines[4].split(' ')[0])),
        ('a count that is not a number', edit(6, 'x ' + lines[6])),
        ('two counts in the stack style', edit(6, ' '.join(c[:2]))),
        ('two spaces', edit(6, '  '.join(c))),
        ('current beyond stack', edit(6, f'{int(c[1]) + 1} {c[1]} 0')),
        ('stack beyond all ticks', edit(6, f'0 {10 ** 12} 0')),
        ('a split function too few', edit(5, str(nsplit + 1))),
        ('masters that differ', edit(7 + nsplit, f'{int(d[0]) - 1} '
                                                 f'{d[1]} 0')),
        ('a line after the end', data + b'0 0 0\n'),
        ('no final newline', data[:-1]),
    ]


def check_parser(data):
    prof.check_rejects(mlmon.parse, mlmon.Invalid, broken_variants(data))


def test():
    work_split, recursive, _, space_leak = sys.argv[1:5]

    p = prof.profile(work_split, args=['0.3'], opts=['-F', '1000'])
    _, _, data = check_spool(p.spool, (), 'work_split')
    check_spool(p.spool, ('--show-all',), 'work_split --show-all')
    check_parser(data)
    if lines_available():
        m, _, _ = check_spool(p.spool, ('--lines',), 'work_split --lines')
        if len(m.masters) >= len(m.splits):
            raise prof.Fail('--lines: no function split by line')
    else:
        print('--lines: not in this build of profanalyze (no libdw)')

    p = prof.profile(recursive, args=['0.3'], opts=['-F', '1000'])
    m, r, _ = check_spool(p.spool, (), 'recursive')
    check_recursion(m, r)

    p = prof.profile(space_leak, opts=['--space-interval=16K'])
    for view in ('--alloc', '--inuse', '--peak'):
        check_spool(p.spool, ('--space', view), f'space_leak {view}')


prof.main(test)
