#!/usr/bin/env python3
"""--format=sympro (report_data.js) and --format=sympro-json, read back by
the JavaScript consumer sympro-check.js under node: it runs report_data.js
with a stub data.receiveData, checks the messages against the SymPro
format (ENTER/EXIT balance, ids, counters that never go back) and sums
each call's span the way the SymPro UI does. What it finds must be what
the --json report of the same spool says:

- one call per calling-context-tree node (plus the outermost "[root]"),
  each spanning exactly the node's total samples and weight, its
  exclusive part exactly the node's self, the paths those of the tree;
- per function, inclusive (outermost activations) and exclusive samples
  and weight equal to the report's total and self;
- the root spans all samples and all sampled nanoseconds (time) or bytes
  (space, where "time" advances one millisecond per byte);
- report_data.js and the bare list say the same.

Ground truth by construction too: work_split's leaves split 5:3:2,
recursive's recurse is a chain of nested calls (50 deep) whose inclusive
samples count once and split 3:2 with sibling, space_leak's churn_site
allocates 16 times leaky_site's bytes. --lines gives calls a source and
a call site (FILE:LINE:COL).

usage: test_export_sympro.py WORK_SPLIT RECURSIVE THREADS SPACE_LEAK
"""
import json
import os
import shutil
import sys

import prof
import space

CHECK = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                     'sympro-check.js')
SCALE = '0.3'


def node_path():
    node = shutil.which('node') or shutil.which('nodejs')
    if not node:
        raise prof.Fail('node is not installed (scripts/setup-deps installs '
                        'nodejs): the SymPro export cannot be read back')
    return node


def export(spool, fmt, extra=()):
    """profanalyze EXTRA --format=FMT -O FILE SPOOL; returns FILE."""
    return prof.export(spool, fmt, extra, 'report_data.js'
                       if fmt == 'sympro' else 'messages.json')


def consume(path, bare):
    """sympro-check.js's summary of an export (see its header)."""
    r = prof.run([node_path(), CHECK] + (['--bare'] if bare else []) +
                 [path])
    if r.returncode != 0:
        raise prof.Fail(f'the SymPro consumer rejects {path}:\n'
                        f'{r.stderr.strip()}')
    return json.loads(r.stdout)


def read(spool, extra=()):
    """Both exports of the spool, consumed; they must agree."""
    js = consume(export(spool, 'sympro', extra), bare=False)
    bare = consume(export(spool, 'sympro-json', extra), bare=True)
    if js != bare:
        raise prof.Fail(f'{spool}: report_data.js and the bare list differ')
    return js




def weight(report, obj, key):
    """A weight of the report as an integer: ns (time) or bytes."""
    v = prof.field(obj, key)
    if report['kind'] == 'space':
        return round(v)
    return round(v * 1e9)


def report_weight(report):
    if report['kind'] == 'space':
        return prof.field(report, 'sampled_bytes')
    return round(prof.field(report, 'sampled_seconds') * 1e9)


def tree_paths(report):
    """{name path: [total_samples, self_samples, total, self]} of the
    report's calling-context tree (nodes whose paths read the same are
    added up), and the root's self samples."""
    paths, out = prof.tree_paths(report), {}
    for i, n in enumerate(report['tree']):
        if n['parent'] is None:
            continue
        acc = out.setdefault(paths[i], [0, 0, 0, 0])
        acc[0] += n['total_samples']
        acc[1] += n['self_samples']
        acc[2] += weight(report, n, 'total')
        acc[3] += weight(report, n, 'self')
    return out


def metric(d):
    """The weight metric of a summary's incl or excl."""
    return d['bytes'] if 'bytes' in d else d['time']


def compare(label, s, report, spool):
    """The checks against the --json report (see the top)."""
    meta = s['metadata']
    if meta['name'] != spool or meta['source'] != (report['exe'] or ''):
        raise prof.Fail(f'{label}: metadata {meta}, want name {spool} and '
                        f'source {report["exe"]}')
    if s['kind'] != report['kind']:
        raise prof.Fail(f'{label}: a {s["kind"]} profile, the report says '
                        f'{report["kind"]}')
    want = (report['samples'], report_weight(report))
    got = (s['root']['incl']['samples'], metric(s['root']['incl']))
    print(f'{label}: {s["calls"]} calls; root spans {got[0]} samples, '
          f'{got[1]} {"bytes" if s["kind"] == "space" else "ns"}')
    if got != want:
        raise prof.Fail(f'{label}: the root spans {got} (samples, weight), '
                        f'the report has {want}')
    if s['calls'] != len(report['tree']):
        raise prof.Fail(f'{label}: {s["calls"]} calls for '
                        f'{len(report["tree"])} tree nodes')
    to_name, count = prof.label_resolver(report)
    calls = {}
    for n in s['nodes']:
        acc = calls.setdefault(tuple(map(to_name, n['path'])), [0, 0, 0, 0])
        acc[0] += n['incl']['samples']
        acc[1] += n['excl']['samples']
        acc[2] += metric(n['incl'])
        acc[3] += metric(n['excl'])
    tree = tree_paths(report)
    if calls != tree:
        diff = sorted(set(calls.items()) ^ set(tree.items()),
                      key=lambda kv: kv[0])[:10]
        raise prof.Fail(f'{label}: calls (incl/excl samples, incl/excl '
                        f'weight) differ from the tree; first differences '
                        f'(path, figures):\n' +
                        '\n'.join(f'  {" > ".join(p)}: {v}'
                                  for p, v in diff))
    compare_functions(label, s, report, to_name, count)


def compare_functions(label, s, report, to_name, count):
    """Per function: inclusive = total, exclusive = self (functions whose
    names are shared are compared as a group, on self only)."""
    shared = {}
    for lab, f in s['functions'].items():
        name = to_name(lab)
        if count[name] > 1:
            shared[name] = shared.get(name, 0) + f['excl']['samples']
            continue
        r = prof.need_func(report, name)
        got = (f['incl']['samples'], f['excl']['samples'],
               metric(f['incl']), metric(f['excl']))
        want = (r['total_samples'], r['self_samples'],
                weight(report, r, 'total'), weight(report, r, 'self'))
        if got != want:
            raise prof.Fail(f'{label}: {name}: inclusive/exclusive samples '
                            f'and weight {got}, the report says {want}')
    for f in report['functions']:
        name = f['name']
        if count[name] > 1:
            want = sum(g['self_samples'] for g in report['functions']
                       if g['name'] == name)
            if shared.get(name, 0) != want:
                raise prof.Fail(f'{label}: functions named {name}: '
                                f'{shared.get(name, 0)} exclusive samples, '
                                f'the report says {want}')
        elif f['total_samples'] and name not in s['functions']:
            raise prof.Fail(f'{label}: {name} ({f["total_samples"]} '
                            'samples) has no call')


def as_report(s):
    """The summary's functions in the shape prof.check_shares reads."""
    fns = [{'name': n, 'module': '', 'self_samples': f['excl']['samples'],
            'total_samples': f['incl']['samples'], 'self': metric(f['excl'])}
           for n, f in s['functions'].items()]
    return {'functions': fns}


def test_work_split(target):
    p = prof.profile(target, [prof.SHARE_SCALE], opts=['-F', '1000'])
    s = read(p.spool)
    compare('work_split', s, p.report, p.spool)
    prof.check_shares(as_report(s), {'leaf_50': 5, 'leaf_30': 3,
                                     'leaf_20': 2}, label='sympro excl')
    if s['sources'] or s['callsites']:
        raise prof.Fail('a source or call site without --lines')
    lines = read(p.spool, extra=('--lines',))
    _, r = prof.analyze(p.spool, args=('--lines', '--json'))
    compare('work_split --lines', lines, r, p.spool)
    print(f'--lines: {lines["sources"]} sources, {lines["callsites"]} '
          f'call sites in {lines["calls"]} calls')
    if not lines['sources'] or not lines['callsites']:
        raise prof.Fail('--lines: no call has a source or a call site')


def test_recursive(target):
    p = prof.profile(target, [prof.SHARE_SCALE], opts=['-F', '1000'])
    s = read(p.spool)
    compare('recursive', s, p.report, p.spool)
    nest = max((n['path'].count('recurse') for n in s['nodes']), default=0)
    print(f'recurse nested {nest} deep')
    # 50 levels by construction; each level has about 1/50 of recurse's
    # samples, so the deepest few may have none.
    if not 45 <= nest <= 50:
        raise prof.Fail(f'recurse nested {nest} deep, want 45 to 50')
    r = as_report(s)
    prof.check_shares(r, {'recurse': 3, 'sibling': 2}, key='total_samples',
                      label='sympro incl')


def test_space_leak(target):
    p = prof.profile(target, ['0.25'], opts=['--space-interval=16K'])
    t = space.truth(p.stdout)
    r = space.report(p.spool, 'alloc')
    s = read(p.spool, extra=('--space', '--alloc'))
    compare('space_leak', s, r, p.spool)
    space.check_shares(as_report(s), {'leaky_site': t['leaky_site'],
                                      'churn_site': t['churn_site']},
                       'sympro bytes')


def test():
    node_path()
    test_work_split(sys.argv[1])
    test_recursive(sys.argv[2])
    test_space_leak(sys.argv[4])


prof.main(test)
