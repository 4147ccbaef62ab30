#!/usr/bin/env python3
"""profanalyze --format=lispworks, read back by a strict parser of the
LispWorks profiler tree format (lispworks.py, from the specification) and
compared with what --json and the outline say of the same spool:

  - the tree's name is the spool's path; its root counts every sample;
  - every path of the calling-context tree (the JSON "tree") is one node
    whose Count is the path's total samples, and nothing else is;
  - every function's info is its JSON figures: Seen-Count the total
    samples, Top-Count the self samples (so the top counts add up to the
    samples), Call-Count the exact calls where --json has them, else 0;
  - the nodes come in the outline's order, at its depths, with its names
    (--outline --threshold 0, the "..." lines of hidden code aside);
  - recursion (recursive: 50 deep by construction): one node per level,
    Seen-Count counting each sample once;
  - a space profile (space_leak) counts samples the same way, and with
    --show-all the malloc wrappers carry their exact call counts;
  - a newline in a function's name or in the spool's path is replaced
    and the file stays valid.
The parser itself must reject broken variants of a real export.

usage: test_export_lispworks.py WORK_SPLIT RECURSIVE THREADS SPACE_LEAK
"""
import os
import re
import sys

import lispworks
import prof

# What the exporter writes for a newline and a carriage return in a name.
PICTURE_LF = '\u2424'
PICTURE_CR = '\u240d'




def parse(data, what):
    try:
        return lispworks.parse(data)
    except lispworks.Invalid as e:
        raise prof.Fail(f'{what}: not a valid LispWorks profiler tree: {e}\n'
                        f'{data[:3000].decode(errors="replace")}')


def json_names(r):
    """Function index -> the name the tree file must show: markers of cut
    stacks and "..." are Lisp strings."""
    names = []
    for f in prof.field(r, 'functions'):
        n = prof.field(f, 'name')
        names.append(lispworks.quoted(n) if prof.field(f, 'marker') else n)
    return names


def json_paths(r):
    """{path of names: total samples} of the JSON tree, root left out."""
    names, tree = json_names(r), prof.field(r, 'tree')
    used = [names[n['function']] for n in tree if n['function'] is not None]
    dup = {n for n in used if used.count(n) > 1}
    paths = {}
    for i, n in enumerate(tree):
        if n['parent'] is None:
            continue
        path, k = [], i
        while tree[k]['parent'] is not None:
            path.append(names[tree[k]['function']])
            k = tree[k]['parent']
        paths[tuple(reversed(path))] = n['total_samples']
    if len(paths) != len(tree) - 1:
        raise prof.Fail('the JSON tree has two nodes with one path '
                        f'(names not unique? {sorted(dup)[:5]})')
    return paths


def check_against_json(t, r, spool, what):
    samples = prof.field(r, 'samples')
    if t.name != spool:
        raise prof.Fail(f'{what}: tree name {t.name!r}, want the spool '
                        f'{spool!r}')
    root = t.root
    if root.name != '"root"' or root.count != samples:
        raise prof.Fail(f'{what}: root {root.name} counts {root.count}, '
                        f'want "root" with the {samples} samples')
    tops = sum(info[2] for info in t.functions.values())
    if tops != samples:
        raise prof.Fail(f'{what}: top counts add up to {tops}, not to the '
                        f'{samples} samples')
    want, got = json_paths(r), t.paths()
    if got != want:
        missing = [p for p in want if p not in got][:3]
        extra = [p for p in got if p not in want][:3]
        wrong = [(p, got[p], want[p]) for p in want
                 if p in got and got[p] != want[p]][:3]
        raise prof.Fail(f'{what}: tree differs from the JSON tree: missing '
                        f'{missing}, extra {extra}, wrong counts {wrong}')
    names = json_names(r)
    for k, f in enumerate(r['functions']):
        if names[k] not in t.functions:
            if f['total_samples']:
                raise prof.Fail(f'{what}: {names[k]} ({f["total_samples"]} '
                                'samples) is not in the tree')
            continue
        info = (f['calls'] or 0, f['total_samples'], f['self_samples'])
        if t.functions[names[k]] != info:
            raise prof.Fail(f'{what}: {names[k]}: Call/Seen/Top '
                            f'{t.functions[names[k]]}, want {info} '
                            '(JSON calls, total and self samples)')
    print(f'{what}: {len(t.nodes)} nodes, {len(t.functions)} functions, '
          f'{samples} samples: as --json says')


OUTLINE_LINE = re.compile(r'([ |/+\\]*)(\d+\.\d\d) (.*) (\d+)')


def outline(spool, args):
    """(depth, label) of the outline's lines, the "..." lines of hidden
    code left out and the "... " of elided callees taken off."""
    a, _ = prof.analyze(spool, args=tuple(args) + ('--outline',
                                                   '--threshold', '0'))
    lines = a.stdout.split('\n')
    try:
        start = next(i for i, l in enumerate(lines)
                     if l.startswith('Paths below')) + 2
    except StopIteration:
        raise prof.Fail(f'outline without its lines:\n{a.stdout}')
    out = []
    for line in lines[start:]:
        if not line:
            break
        m = OUTLINE_LINE.fullmatch(line)
        if not m:
            raise prof.Fail(f'outline line not understood: {line!r}')
        label = m[3]
        if label == '...':
            continue
        out.append((len(m[1]), label[4:] if label.startswith('... ')
                    else label))
    return out


def check_against_outline(t, spool, args, what):
    want = outline(spool, args)
    got = [(n.depth - 1, n.name[1:-1] if n.name.startswith('"') else n.name)
           for n in t.nodes[1:]]
    if got != want:
        diff = next(i for i in range(min(len(got), len(want)) + 1)
                    if i == len(got) or i == len(want) or got[i] != want[i])
        raise prof.Fail(f'{what}: the nodes are not the outline\'s lines: '
                        f'first difference at node {diff + 1}: '
                        f'{got[diff:diff + 2]} vs outline '
                        f'{want[diff:diff + 2]}')
    print(f'{what}: {len(got)} nodes in the outline\'s order and depths')


def check_spool(spool, args, what):
    data = prof.export_bytes(spool, 'lispworks', args)
    if not data.endswith(b'\n') or b'\r' in data:
        raise prof.Fail(f'{what}: lines must end with a newline alone')
    t = parse(data, what)
    _, r = prof.analyze(spool, args=tuple(args) + ('--json',))
    check_against_json(t, r, spool, what)
    check_against_outline(t, spool, args, what)
    return t, r, data


def check_recursion(t, r):
    """recurse() calls itself 50 deep: its nodes form a chain, each level
    a node of its own whose Count covers the levels below, and its
    Seen-Count counts each sample once."""
    rec = [i for i, n in enumerate(t.nodes) if n.name == 'recurse']
    if not rec:
        raise prof.Fail('no recurse node in the tree')
    chain = max(sum(1 for x in t.path(i) if x == 'recurse') for i in rec)
    seen = t.functions['recurse'][1]
    counts = sum(t.nodes[i].count for i in rec)
    print(f'recursive: {len(rec)} recurse nodes, chains up to {chain} deep; '
          f'Seen-Count {seen}, Counts add up to {counts}')
    if chain < 25:
        raise prof.Fail(f'recurse chains only {chain} deep; it recurses 50 '
                        'deep')
    if seen != prof.need_func(r, 'recurse')['total_samples'] or \
            seen > r['samples'] or counts <= seen:
        raise prof.Fail(f'recurse: Seen-Count {seen} is not its samples '
                        'counted once each')


def check_call_counts(t, r):
    """--show-all keeps the malloc wrappers: their Call-Count is exact."""
    wrappers = [f for f in r['functions'] if f['calls'] is not None]
    if not wrappers:
        raise prof.Fail('no function with exact calls in --show-all --json '
                        '(the malloc wrappers of libprofrun.so)')
    for f in wrappers:
        if f['name'] in t.functions and \
                t.functions[f['name']][0] != f['calls']:
            raise prof.Fail(f'{f["name"]}: Call-Count '
                            f'{t.functions[f["name"]][0]}, want {f["calls"]}')
    shown = [f['name'] for f in wrappers if f['name'] in t.functions]
    if not shown:
        raise prof.Fail('no malloc wrapper in the --show-all tree')
    print(f'space: exact Call-Count of {", ".join(shown)}')


def mkspool(desc, spool):
    tool = os.path.join(prof.build_root(), 'tests', 'mkspool')
    path = os.path.join(prof.tmpdir(), 'x.desc')
    with open(path, 'w') as f:
        f.write(desc)
    r = prof.run([tool, path, spool])
    if r.returncode:
        raise prof.Fail(f'mkspool failed: {r.stderr}')


def check_newlines():
    """A module path with a newline and a carriage return makes an
    unnamed function's name hold them; the spool's path holds a newline."""
    spool = os.path.join(prof.tmpdir(), 'new\nline.spool')
    mkspool('process timer=perf clock=cpu period=1000000 hz=1000\n'
            'module path="/nonexistent/a\\x0ab\\x0dc.so" base=0x500000000 '
            'seg=0x0:0x1000 time=0\n'
            'sample tid=1 time=1000 weight=1000000 repeat=3 '
            'stack=0x500000010,0x500000020\n'
            'footer utime=3000000 stime=0 threads=1\n', spool)
    data = prof.export_bytes(spool, 'lispworks')
    t = parse(data, 'newlines')
    if t.name != spool.replace('\n', PICTURE_LF):
        raise prof.Fail(f'tree name {t.name!r}: the newline of {spool!r} '
                        'not replaced by U+2424')
    names = [n.name for n in t.nodes if 'a' + PICTURE_LF + 'b' +
             PICTURE_CR + 'c.so' in n.name]
    if len(names) != 2:
        raise prof.Fail('the two frames of a\\nb\\rc.so do not show '
                        f'a{PICTURE_LF}b{PICTURE_CR}c.so:\n'
                        f'{data.decode()}')
    if t.root.count != 3:
        raise prof.Fail(f'root counts {t.root.count}, want 3 samples')
    print(f'newlines: replaced: {names[0]!r}')


def broken_variants(data):
    """Ways to break a valid file, each of which the parser must reject:
    (description, bytes)."""
    lines = data.decode().split('\n')
    first = next(i for i, l in enumerate(lines) if l.startswith('1|'))
    deep = next(i for i, l in enumerate(lines) if l.startswith('3|'))
    leaf = next(i for i in range(len(lines) - 1, 0, -1)
                if lines[i] and not lines[i].startswith(';'))
    seen, again = set(), None
    for i, l in enumerate(lines[first:], start=first):
        name = l.split('|', 5)[-1]
        if name in seen:
            again = i
            break
        seen.add(name)
    if again is None:
        raise prof.Fail('no function occurs twice in the tree: cannot '
                        'test the function-info check')

    def edit(i, new):
        return '\n'.join(lines[:i] + [new] + lines[i + 1:]).encode()

    def fields(i):
        return lines[i].split('|', 5)

    f, g, h = fields(first), fields(leaf), fields(again)
    return [
        ('no magic', edit(0, 'Profiler Tree: x')),
        ('five fields', edit(first, '|'.join(f[:4] + [f[5]]))),
        ('a count that is not a number', edit(first, '|'.join(
            [f[0], 'x' + f[1]] + f[2:]))),
        ('a space between fields', edit(first, '|'.join(
            [f[0], ' ' + f[1]] + f[2:]))),
        ('a negative count', edit(first, '|'.join([f[0], '-1'] + f[2:]))),
        ('a depth jump of two', edit(deep, '|'.join(
            ['4'] + fields(deep)[1:]))),
        ('a second root', edit(first, '|'.join(['0'] + f[1:]))),
        ('function-info that differs', edit(again, '|'.join(
            h[:2] + [str(int(h[2]) + 1)] + h[3:]))),
        ('a child counting more than its parent', edit(leaf, '|'.join(
            [g[0], str(10 ** 9)] + g[2:]))),
        ('a top count off by one', edit(first, '|'.join(
            f[:4] + [str(int(f[4]) + 1), f[5]]))),
        ('a sibling twice', '\n'.join(lines[:leaf + 1] + [lines[leaf]] +
                                     lines[leaf + 1:]).encode()),
        ('bytes that are not UTF-8', data.replace(b'root', b'r\xffot')),
        ('no data lines', (lines[0] + '\n').encode()),
    ]


def check_parser(data):
    prof.check_rejects(lispworks.parse, lispworks.Invalid, broken_variants(data))


def test():
    work_split, recursive, _, space_leak = sys.argv[1:5]

    p = prof.profile(work_split, args=['0.3'], opts=['-F', '1000'])
    check_spool(p.spool, (), 'work_split')
    check_spool(p.spool, ('--show-all',), 'work_split --show-all')

    p = prof.profile(recursive, args=['0.3'], opts=['-F', '1000'])
    t, r, data = check_spool(p.spool, (), 'recursive')
    check_recursion(t, r)
    check_parser(data)

    p = prof.profile(space_leak, opts=['--space-interval=16K'])
    for view in ('--alloc', '--inuse'):
        check_spool(p.spool, ('--space', view), f'space_leak {view}')
    t, r, _ = check_spool(p.spool, ('--space', '--show-all'),
                          'space_leak --show-all')
    check_call_counts(t, r)

    check_newlines()


prof.main(test)
