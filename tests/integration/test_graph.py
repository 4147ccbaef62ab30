#!/usr/bin/env python3
"""The call graph and the outline of real programs, checked against what
the targets are built to do:

- work_split: main's children in the graph are leaf_50, leaf_30 and
  leaf_20 with local shares 5:3:2, and the outline puts the same shares on
  the paths main -> leaf_N, numbered in that order;
- recursive: recurse() calls itself 50 deep, so its graph entry lists
  itself as parent and child, every such line marked "r"; its outline
  path from main holds about 60 % of the samples, sibling's 40 %, and
  --max-indent caps the indentation of the 50-deep path;
- work_split with --hide=leaf_*: main absorbs the leaves ("... main"),
  with a "..." child line holding their time;
- threads: the four thread functions are called by the C library's
  thread start and take 10, 20, 30 and 40 % of the outline; with
  --hide-module=libc.so* they become outermost frames with the same
  shares. The profiler's own frames are hidden by default: no function
  of libprofrun.so in the report, plain "main" (the wrapper it called had
  no bytes of its own) and "... NAME" for the callers of the allocation
  wrappers; --show-all shows the wrapper.

usage: test_graph.py WORK_SPLIT RECURSIVE THREADS
"""
import os
import re
import sys

import prof

ENTRY = re.compile(r'^\s*([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+==> '
                   r'(?:\.\.\. )?(.+)$')
SUB = re.compile(r'^\s+([\d.]+)\s+([\d.]+)(r?)\s+(?:\.\.\. )?(.+)$')
OUTLINE = re.compile(r'^([ |/+\\]*)([\d.]+) (?:\.\.\. )?(.+) (\d+)$')


def graph_entries(text):
    """{function: {'parents': [...], 'children': [...], 'total_pct': x}}
    from the Allegro call graph; parents and children are tuples
    (name, local_pct, recursive_mark)."""
    entries = {}
    body = text.split('\n\n')
    lines = [l for part in body for l in part.split('\n')]
    block = []
    for line in lines:
        if line.startswith('-----'):
            _add_entry(entries, block)
            block = []
        elif SUB.match(line) or ENTRY.match(line):
            block.append(line)
    if not entries:
        raise prof.Fail(f'no call-graph entries in:\n{text[:2000]}')
    return entries


def _add_entry(entries, block):
    where = [i for i, l in enumerate(block) if ENTRY.match(l)]
    if len(where) != 1:
        raise prof.Fail('call-graph entry without exactly one "==>" line:'
                        '\n' + '\n'.join(block))
    m = ENTRY.match(block[where[0]])
    subs = [SUB.match(l) for l in block]
    entries[m.group(5)] = {
        'total_pct': float(m.group(2)),
        'parents': [(s.group(4), float(s.group(2)), s.group(3))
                    for s in subs[:where[0]]],
        'children': [(s.group(4), float(s.group(2)), s.group(3))
                     for s in subs[where[0] + 1:]],
    }


def outline_lines(text):
    """[(indent, pct, name, number)] of the outline report."""
    out = []
    for line in text.split('\n'):
        m = OUTLINE.match(line)
        if m and not line.startswith(('Sampling', 'Sample ', 'Paths')):
            out.append((m.group(1), float(m.group(2)), m.group(3),
                        int(m.group(4))))
    if not out:
        raise prof.Fail(f'no outline lines in:\n{text[:2000]}')
    return out


def text_report(spool, *args):
    r, _ = prof.analyze(spool, args=args)
    return r.stdout


def check_share(label, got_pct, want, n, bound=prof.SHARE_POINTS):
    prof.check_share(label, got_pct / 100, want, n, bound)


def work_split(target):
    p = prof.profile(target, [prof.SHARE_SCALE], opts=['-F', '1000'])
    n = prof.field(prof.need_func(p.report, 'main'), 'total_samples')
    if n < prof.MIN_SAMPLES:
        raise prof.Fail(f'work_split: only {n} samples under main')
    g = graph_entries(text_report(p.spool, '--graph'))
    if 'main' not in g:
        raise prof.Fail(f'no entry for main; entries: {sorted(g)}')
    kids = {name: pct for name, pct, _ in g['main']['children']}
    for name, share in (('leaf_50', .5), ('leaf_30', .3), ('leaf_20', .2)):
        if name not in kids:
            raise prof.Fail(f'{name} is not a child of main: {kids}')
        check_share(f'graph main -> {name}', kids[name], share, n)
    for name in ('leaf_50', 'leaf_30', 'leaf_20'):
        parents = [x[0] for x in g[name]['parents']]
        if parents != ['main']:
            raise prof.Fail(f'{name}: parents {parents}, want [main]')

    lines = outline_lines(text_report(p.spool, '--outline'))
    main_at = [l for l in lines if l[2] == 'main']
    if len(main_at) != 1:
        raise prof.Fail(f'main is on {len(main_at)} outline lines')
    depth = len(main_at[0][0])
    below = [l for l in lines if l[3] > main_at[0][3] and
             len(l[0]) == depth + 1]
    names = [l[2] for l in below if l[2].startswith('leaf_')]
    if names != ['leaf_50', 'leaf_30', 'leaf_20']:
        raise prof.Fail(f'outline children of main: {names}')
    total = prof.field(p.report, 'samples')
    for _, pct, name, _ in below:
        if name.startswith('leaf_'):
            check_share(f'outline main -> {name}', pct,
                        int(name[5:]) / 100, total)


def recursive(target):
    p = prof.profile(target, [prof.SHARE_SCALE], opts=['-F', '1000'])
    total = prof.field(p.report, 'samples')
    g = graph_entries(text_report(p.spool, '--graph'))
    rec = g.get('recurse')
    if not rec:
        raise prof.Fail(f'no entry for recurse; entries: {sorted(g)}')
    parents = {name: mark for name, _, mark in rec['parents']}
    children = {name: mark for name, _, mark in rec['children']}
    print(f'recurse: parents {parents}, children {children}')
    if 'recurse' not in parents or 'recurse' not in children:
        raise prof.Fail('recurse is not its own parent and child')
    if set(parents.values()) != {'r'} or set(children.values()) != {'r'}:
        raise prof.Fail('recursive entry without "r" on every line')
    if any(mark for _, _, mark in g['sibling']['parents']):
        raise prof.Fail('sibling is not recursive but has an "r"')
    # Counted once per sample, recurse's total stays its share, not 50x.
    check_share('graph recurse total', rec['total_pct'], .6, total)

    lines = outline_lines(text_report(p.spool, '--outline'))
    main_at = [l for l in lines if l[2] == 'main'][0]
    depth = len(main_at[0])
    kids = {l[2]: l[1] for l in lines
            if l[3] > main_at[3] and len(l[0]) == depth + 1}
    check_share('outline main -> recurse', kids.get('recurse', 0), .6, total)
    check_share('outline main -> sibling', kids.get('sibling', 0), .4, total)
    deepest = max(len(l[0]) for l in lines)
    if deepest < depth + 40:
        raise prof.Fail(f'outline only {deepest} deep for 50 recursions')

    capped = outline_lines(text_report(p.spool, '--outline',
                                       '--max-indent=10'))
    widest = max(len(l[0]) for l in capped)
    if widest != 10 or len(capped) != len(lines):
        raise prof.Fail(f'--max-indent=10: indentation up to {widest}, '
                        f'{len(capped)} lines (uncapped {len(lines)})')
    # --root: the subtree of main's recurse line, renumbered from 0.
    first = [l for l in lines if l[2] == 'recurse'][0]
    sub = outline_lines(text_report(p.spool, '--outline',
                                    f'--root={first[3]}'))
    if sub[0][:3] != ('', first[1], 'recurse') or sub[0][3] != 0:
        raise prof.Fail(f'--root={first[3]}: first line {sub[0]}, want '
                        f'recurse at {first[1]} numbered 0')


def own_functions(spool, *args):
    """Names of the report's functions that live in libprofrun.so."""
    _, rep = prof.analyze(spool, args=args + ('--json',))
    return {f['name'] for f in rep['functions']
            if os.path.basename(f.get('module') or '').startswith(
                'libprofrun.so')}


def own_frames_hidden(spool):
    """Default hiding of the profiler's own frames, on the allocation
    samples of the threads run. Its time samples cannot show it: main
    only waits, so it has next to no samples, and a new thread starts in
    the library's trampoline, which the optimized build turns into a tail
    call, so no time sample holds a frame of the library even with
    --show-all. The allocations do: each new thread's TLS is calloc'ed
    under main -> pthread_create (the library's wrapper) -> the C
    library's pthread_create, and the calloc is the library's wrapper
    too."""
    view = ('--space',)
    shown = own_functions(spool, *view, '--show-all')
    print(f'--space --show-all: functions of libprofrun.so {sorted(shown)}')
    if 'pthread_create' not in shown:
        raise prof.Fail('--space --show-all: the pthread_create wrapper '
                        f'of libprofrun.so is not shown ({sorted(shown)})')
    full = outline_lines(text_report(spool, *view, '--outline',
                                     '--show-all'))
    main_at = [l for l in full if l[2] == 'main']
    under = [l for l in full if main_at and l[3] == main_at[0][3] + 1]
    # (With the C library's pthread_create shown by its plain name too,
    # the report tells the two apart by module: "pthread_create
    # (libprofrun.so)".)
    if len(main_at) != 1 or not under or \
            under[0][2] not in ('pthread_create',
                                'pthread_create (libprofrun.so)'):
        raise prof.Fail('--space --outline --show-all: main does not call '
                        f'the wrapper pthread_create: {main_at} {under}')

    own = own_functions(spool, *view)
    if own:
        raise prof.Fail(f'--space: functions of libprofrun.so shown by '
                        f'default: {sorted(own)}')
    text = text_report(spool, *view, '--outline', '--threshold', '0')
    # The C library's pthread_create is shown by the same plain name as
    # the hidden wrapper; a line of the library's own would say so
    # ("pthread_create (libprofrun.so)"), or be the only one of its name.
    names = [l[2] for l in outline_lines(text)]
    libc_too = {'pthread_create'}
    own_lines = [n for n in names if n.endswith('(libprofrun.so)') or
                 (n in shown and n not in libc_too)]
    if own_lines:
        raise prof.Fail(f'--space --outline --threshold 0: the hidden '
                        f'{sorted(set(own_lines))} are outline lines')
    # main's figures hold no hidden function's own bytes (the hidden
    # pthread_create wrapper only passes them on): plain "main". The
    # allocation wrappers' own bytes went to their callers: "... NAME".
    if not re.search(r'^[ |/+\\]*[\d.]+ main \d+$', text, re.M):
        raise prof.Fail('--space --outline --threshold 0: no plain "main" '
                        f'line:\n{text}')
    if not re.search(r'^[ |/+\\]*[\d.]+ \.\.\. \S', text, re.M):
        raise prof.Fail('--space --outline --threshold 0: no "... NAME" '
                        f'line for the callers of the allocator:\n{text}')


def threads(target):
    # Every allocation sampled, for own_frames_hidden.
    p = prof.profile(target, [prof.SHARE_SCALE],
                     opts=['-F', '1000', '--space-interval=1'])
    total = prof.field(p.report, 'samples')
    g = graph_entries(text_report(p.spool, '--graph'))
    for i in range(1, 5):
        parents = [x[0] for x in g[f'thread_work_{i}']['parents']]
        print(f'thread_work_{i}: parents {parents}')
        if not parents:
            raise prof.Fail(f'thread_work_{i} has no parent: the thread '
                            'start frames are missing')
    # Hiding the C library (its thread start code) makes the thread
    # functions outermost frames: outline lines without indentation, with
    # the same shares.
    for args in ((), ('--hide-module=libc.so*',)):
        lines = outline_lines(text_report(p.spool, '--outline', *args))
        for i in range(1, 5):
            name = f'thread_work_{i}'
            at = [l for l in lines if l[2] == name]
            if len(at) != 1:
                raise prof.Fail(f'{args}: {name} is on {len(at)} outline '
                                'lines')
            check_share(f'outline {args} {name}', at[0][1], i / 10, total)
            if bool(at[0][0]) == bool(args):
                raise prof.Fail(f'{args}: {name} indented by '
                                f'{len(at[0][0])}')
    own_frames_hidden(p.spool)


def hidden_leaves(target):
    """--hide=leaf_*: main absorbs the leaves: "... main" with their time
    as its self time in the flat report and a "..." child in the graph."""
    p = prof.profile(target, opts=['-F', '1000'])
    n = prof.field(prof.need_func(p.report, 'main'), 'total_samples')
    if n < prof.MIN_SAMPLES:
        raise prof.Fail(f'--hide=leaf_*: only {n} samples under main')
    flat = text_report(p.spool, '--hide=leaf_*')
    row = [l for l in flat.split('\n') if l.endswith(' ... main')]
    if len(row) != 1 or 'leaf_' in flat:
        raise prof.Fail(f'--hide=leaf_*: no "... main" row:\n{flat}')
    g = graph_entries(text_report(p.spool, '--graph', '--hide=leaf_*'))
    kids = {name: pct for name, pct, _ in g['main']['children']}
    if set(kids) != {'...'}:
        raise prof.Fail(f'--hide=leaf_*: children of main: {kids}')
    # All of main's time is in the leaves (main's own loop is 30 calls):
    # within 2 points of all of it.
    check_share('graph main -> ...', kids['...'], 1.0, n, bound=0.02)


def test():
    work_split(sys.argv[1])
    hidden_leaves(sys.argv[1])
    recursive(sys.argv[2])
    threads(sys.argv[3])


prof.main(test)
