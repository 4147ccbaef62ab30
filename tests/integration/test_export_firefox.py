#!/usr/bin/env python3
"""--format=firefox: the Gecko profile format the Firefox Profiler
imports, checked by the rules of its documentation (the Firefox
Profiler's docs-developer/gecko-profile-format.md and the types in
src/types/gecko-profile.ts, format version 27) and against the --json
report of the same spool:

- the top level (meta, libs, threads, pausedRanges, processes) and meta's
  fields (version 27, startTime, interval, categories, ...);
- per thread: the tables' schemas are the documented ones (the frame
  table without "optimizations", removed in version 27), every row has
  one value per column, a stack's prefix is null or an earlier stack, a
  frame's location a string of the thread, its category and subcategory
  exist, samples' stacks exist and their times never go back;
- one thread per sampled thread, with its samples: as many as the report
  has for it, their threadCPUDelta adding up to its CPU time, each
  stack a path of the report's tree whose node's self they add up to;
- ground truth: the threads target's workers each run their own
  thread_work_N; a space profile is refused with an error.

usage: test_export_firefox.py WORK_SPLIT RECURSIVE THREADS SPACE_LEAK
"""
import json
import sys

import prof

FRAME_COLUMNS = ['location', 'relevantForJS', 'innerWindowID',
                 'implementation', 'line', 'column', 'category',
                 'subcategory']
MARKER_COLUMNS = ['name', 'startTime', 'endTime', 'phase', 'category',
                  'data']


def need(obj, key, types, where):
    if key not in obj:
        raise prof.Fail(f'{where}: no {key}')
    if not isinstance(obj[key], types) or isinstance(obj[key], bool) and \
            bool not in (types if isinstance(types, tuple) else (types,)):
        raise prof.Fail(f'{where}.{key}: {obj[key]!r} has the wrong type')
    return obj[key]


def schema_is(table, columns, where):
    want = {c: i for i, c in enumerate(columns)}
    if need(table, 'schema', dict, where) != want:
        raise prof.Fail(f'{where}: schema {table["schema"]}, want {want}')
    rows = need(table, 'data', list, where)
    for i, row in enumerate(rows):
        if not isinstance(row, list) or len(row) != len(columns):
            raise prof.Fail(f'{where}.data[{i}]: {row!r} is not a row of '
                            f'{len(columns)}')
    return rows


def check_meta(doc):
    for key, t in (('meta', dict), ('libs', list), ('threads', list),
                   ('pausedRanges', list), ('processes', list)):
        need(doc, key, t, '$')
    meta = doc['meta']
    if need(meta, 'version', int, 'meta') != 27:
        raise prof.Fail(f'meta.version {meta["version"]}, want 27')
    need(meta, 'startTime', (int, float), 'meta')
    if need(meta, 'interval', (int, float), 'meta') <= 0:
        raise prof.Fail('meta.interval is not positive')
    for key in ('stackwalk', 'debug', 'gcpoison', 'asyncstack'):
        if need(meta, key, int, 'meta') not in (0, 1):
            raise prof.Fail(f'meta.{key} is neither 0 nor 1')
    need(meta, 'processType', int, 'meta')
    if meta.get('presymbolicated') is not True:
        raise prof.Fail('meta.presymbolicated is not true: the profiler '
                        'would try to symbolicate the names')
    cats = need(meta, 'categories', list, 'meta')
    for c in cats:
        need(c, 'name', str, 'category')
        need(c, 'color', str, 'category')
        need(c, 'subcategories', list, 'category')
    need(meta, 'markerSchema', list, 'meta')
    return cats


def check_thread(t, cats, where):
    for key, ty in (('name', str), ('processType', str), ('tid', int),
                    ('pid', int), ('registerTime', (int, float)),
                    ('stringTable', list)):
        need(t, key, ty, where)
    if t.get('unregisterTime') is not None:
        need(t, 'unregisterTime', (int, float), where)
    strings = t['stringTable']
    schema_is(need(t, 'markers', dict, where), MARKER_COLUMNS,
              f'{where}.markers')
    frames = schema_is(need(t, 'frameTable', dict, where), FRAME_COLUMNS,
                       f'{where}.frameTable')
    for i, f in enumerate(frames):
        if not isinstance(f[0], int) or not 0 <= f[0] < len(strings):
            raise prof.Fail(f'{where}: frame {i} location {f[0]}')
        if f[6] is not None and (f[6] >= len(cats) or f[7] is None or
                                 f[7] >= len(cats[f[6]]['subcategories'])):
            raise prof.Fail(f'{where}: frame {i} category {f[6]}/{f[7]}')
    stacks = schema_is(need(t, 'stackTable', dict, where),
                       ['prefix', 'frame'], f'{where}.stackTable')
    for i, (prefix, fr) in enumerate(stacks):
        if prefix is not None and not 0 <= prefix < i:
            raise prof.Fail(f'{where}: stack {i} prefix {prefix}')
        if not 0 <= fr < len(frames):
            raise prof.Fail(f'{where}: stack {i} frame {fr}')
    samples = need(t, 'samples', dict, where)
    cols = ['stack', 'time', 'eventDelay', 'threadCPUDelta']
    rows = schema_is(samples, cols, f'{where}.samples')
    last = 0
    for i, (st, time, _, _) in enumerate(rows):
        if st is not None and not 0 <= st < len(stacks):
            raise prof.Fail(f'{where}: sample {i} stack {st}')
        if time < last:
            raise prof.Fail(f'{where}: sample {i} goes back in time')
        last = time
    return frames, stacks, rows


def read(spool, report, label):
    path = prof.export(spool, 'firefox')
    doc = json.load(open(path))
    cats = check_meta(doc)
    threads = {t['tid']: t for t in prof.field(report, 'thread_list')
               if t['samples']}
    if len(doc['threads']) != len(threads):
        raise prof.Fail(f'{label}: {len(doc["threads"])} threads, '
                        f'{len(threads)} sampled')
    to_name, _ = prof.label_resolver(report)
    paths = {p: i for i, p in enumerate(prof.tree_paths(report))}
    by_node, ends = {}, {}
    for t in doc['threads']:
        where = f'{label}: thread {t.get("tid")}'
        frames, stacks, rows = check_thread(t, cats, where)
        want = threads.get(t['tid'])
        if not want or len(rows) != want['samples']:
            raise prof.Fail(f'{where}: {len(rows)} samples, the report has '
                            f'{want and want["samples"]}')
        cpu = sum(r[3] for r in rows)
        if abs(cpu - want['seconds'] * 1e9) > 1 + 1e-6 * cpu:
            raise prof.Fail(f'{where}: threadCPUDelta adds up to {cpu} ns, '
                            f'the thread has {want["seconds"]} s')
        for r in rows:
            names, s = [], r[0]
            while s is not None:
                names.append(to_name(t['stringTable'][frames[stacks[s][1]][0]]))
                s = stacks[s][0]
            p = tuple(reversed(names))
            if p not in paths:
                raise prof.Fail(f'{where}: stack {p} is no path of the tree')
            by_node[paths[p]] = by_node.get(paths[p], 0) + r[3]
            if p:
                ends.setdefault(t['tid'], set()).add(p[-1])
    for i, n in enumerate(report['tree']):
        want = prof.field(n, 'self') * 1e9
        if n['parent'] is not None and \
                abs(by_node.get(i, 0) - want) > 1 + 1e-6 * want:
            raise prof.Fail(f'{label}: node {i}: samples weigh '
                            f'{by_node.get(i, 0)} ns, its self is {want}')
    print(f'{label}: {len(doc["threads"])} threads, '
          f'{sum(len(t["samples"]["data"]) for t in doc["threads"])} '
          'samples, valid')
    return ends


def test():
    p = prof.profile(sys.argv[1], ['0.3'], opts=['-F', '1000'])
    read(p.spool, p.report, 'work_split')
    p = prof.profile(sys.argv[3], ['0.5'], opts=['-F', '1000'])
    ends = read(p.spool, p.report, 'threads')
    own = [{n for n in e if n.startswith('thread_work_')}
           for e in ends.values()]
    own = [o for o in own if o]
    if len(own) != 4 or any(len(o) != 1 for o in own) or \
            len(set().union(*own)) != 4:
        raise prof.Fail(f'threads: the workers run {own}')
    p = prof.profile(sys.argv[4], ['0.1'], opts=['--space-interval=16K'])
    r, _ = prof.analyze(p.spool, args=('--space', '--format=firefox'),
                        expect_rc=1)
    if 'time profiles only' not in r.stderr or r.stdout:
        raise prof.Fail(f'a space profile was not refused: {r.stderr!r}')


prof.main(test)
