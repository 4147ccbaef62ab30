#!/usr/bin/env python3
"""--format=dot rendered by Graphviz (dot -Tsvg), the SVG read back.

For real runs of the targets, dot must accept the export (exit 0, not a
warning), and the SVG must show what the --json report of the same spool
says:
  - one node per function that Racket's hiding rule keeps (self share
    below --hide-self and every caller or callee line naming it below
    --hide-subs: hidden), the rule computed here from the report's
    functions and edges; for time profiles also the functions that the
    Racket text report (--graph --style=racket) lists with the same
    thresholds; with --hide-self 0 --hide-subs 0 every function;
  - each node's self and total shares, and its fill: red in proportion
    to its self weight relative to the heaviest shown node (#ff0000 for
    that one, white for no self weight);
  - one edge per call-graph edge between two shown functions, labelled
    with the edge's share of all weight.
Thresholds change what appears, by the targets' construction: with
--hide-self 40 --hide-subs 100 work_split shows leaf_50 but neither
leaf_30 nor leaf_20 (their calls of clock_gettime hidden); with --hide-self 10 --hide-subs 100 space_leak's
allocation view shows churn_site (16/17 of the bytes) but not
leaky_site. The space profile renders too (the text style refuses it).

usage: test_export_dot.py WORK_SPLIT RECURSIVE THREADS SPACE_LEAK
"""
import os
import re
import shutil
import sys
import xml.etree.ElementTree as ET

import prof

SCALE = '0.3'
SVG = '{http://www.w3.org/2000/svg}'
# A share this close to a threshold could fall either side through the
# report's rounding: such functions are not compared.
NEAR = 1e-3
DEFAULTS = (1.0, 2.0)  # --hide-self, --hide-subs
RACKET_ENTRY = re.compile(r'^ \[\d+\] +\S+ +\S+  (.*)$')


def render(spool, args):
    """(SVG root, --json report) for the dot export of spool."""
    d = prof.tmpdir()
    out = os.path.join(d, 'graph.dot')
    prof.analyze(spool, args=tuple(args) + ('--format=dot', '-O', out))
    dot = shutil.which('dot')
    if not dot:
        raise prof.Fail('dot not found: install graphviz')
    svg = os.path.join(d, 'graph.svg')
    r = prof.run([dot, '-Tsvg', '-o', svg, out])
    if r.returncode != 0 or r.stderr.strip():
        raise prof.Fail(f'dot -Tsvg {out}: exit {r.returncode}\n'
                        f'{r.stderr[-3000:]}')
    return ET.parse(svg).getroot()


def svg_graph(root):
    """({nodeN: (label, [other text lines], fill)}, {(nodeA, nodeB):
    label})."""
    nodes, edges = {}, {}
    for g in root.iter(SVG + 'g'):
        title = g.find(SVG + 'title')
        texts = [t.text or '' for t in g.iter(SVG + 'text')]
        if g.get('class') == 'node':
            shape = g.find(SVG + 'polygon')
            if shape is None:
                shape = g.find(SVG + 'ellipse')
            # "... f": hidden callees folded into f (profile.h)
            name = re.sub(r'^\.\.\. ', '', texts[0])
            nodes[title.text] = (name, texts[1:], shape.get('fill'))
        elif g.get('class') == 'edge':
            a, b = title.text.split('->')
            edges[(a, b)] = texts[0] if texts else ''
    return nodes, edges


def weights(report):
    """(total weight, per function (self, total), edges as (caller,
    callee, weight, caller_time, callee_time)) from the report."""
    space = report['kind'] == 'space'
    whole = report['sampled_bytes' if space else 'sampled_seconds']
    fns = [(f['self'], f['total']) for f in report['functions']]
    unit = 'bytes' if space else 'seconds'
    edges = [(e['caller'], e['callee'], e[unit], e['caller_' + unit],
              e['callee_' + unit]) for e in report['edges']]
    return whole, fns, edges


def pct(part, whole):
    return 100.0 * part / whole if whole else 0.0


def hidden_by_rule(report, hide_self, hide_subs):
    """{function index: hidden?} by Racket's rule, None where a share
    is too close to a threshold to tell."""
    whole, fns, edges = weights(report)
    out = {}
    for i, f in enumerate(report['functions']):
        if not f['total_samples']:
            continue
        shares = [(pct(fns[i][0], whole), hide_self)]
        for c, e, _, ct, et in edges:
            if e == i and c != i:  # f's line in its caller's entry
                shares.append((pct(ct, fns[c][1]), hide_subs))
            if c == i and e != i:  # f's line in its callee's entry
                shares.append((pct(et, fns[e][1]), hide_subs))
        if any(abs(s - t) < NEAR for s, t in shares):
            out[i] = None
        else:
            out[i] = all(s < t for s, t in shares)
    return out


def unique_names(report):
    names = [f['name'] for f in report['functions']]
    return {n for n in names if names.count(n) == 1}


def racket_listed(spool, args, report):
    """Names of the report's functions the Racket text report lists."""
    r, _ = prof.analyze(spool, args=tuple(args) + ('--graph',
                                                   '--style=racket'))
    rests = [re.sub(r'^\.\.\. ', '', m.group(1))
             for m in map(RACKET_ENTRY.match, r.stdout.split('\n')) if m]
    listed = set()
    for f in report['functions']:
        base = os.path.basename(f.get('module') or '')
        if f['name'] in rests or f'{f["name"]} {base}' in rests:
            listed.add(f['name'])
    return listed


def check(label, spool, args=(), thresholds=None):
    """Renders the export with the thresholds (None: profanalyze's
    defaults, 1 and 2 %); checks nodes, fills and edges against the
    report. Returns the labels of the shown nodes."""
    targs = tuple(args)
    if thresholds:
        targs += ('--hide-self', str(thresholds[0]),
                  '--hide-subs', str(thresholds[1]))
    hs, hsub = thresholds or DEFAULTS
    root = render(spool, targs)
    _, report = prof.analyze(spool, args=tuple(args) + ('--json',))
    nodes, edges = svg_graph(root)
    funcs = report['functions']
    whole, fns, redges = weights(report)
    uniq = unique_names(report)
    by_label = {n[0]: k for k, n in nodes.items()}
    if len(by_label) != len(nodes):
        raise prof.Fail(f'{label}: two nodes with one label')

    rule = hidden_by_rule(report, hs, hsub)
    want = {funcs[i]['name'] for i, h in rule.items()
            if h is False and funcs[i]['name'] in uniq}
    unsure = {funcs[i]['name'] for i, h in rule.items() if h is None}
    not_shown = {funcs[i]['name'] for i, h in rule.items() if h is True}
    got = {name for name in by_label if name in uniq}
    if want - got or (got & not_shown):
        raise prof.Fail(f'{label} {thresholds}: missing {sorted(want - got)}'
                        f', shown though hidden {sorted(got & not_shown)}')
    hidden_n = sum(1 for h in rule.values() if h)
    shown_n = sum(1 for h in rule.values() if h is False)
    if not shown_n <= len(nodes) <= len(rule) - hidden_n:
        raise prof.Fail(f'{label}: {len(nodes)} nodes, want {shown_n} '
                        f'(+{len(unsure)} too close to tell)')
    if report['kind'] == 'time':
        listed = racket_listed(spool, targs, report) & uniq
        if (listed ^ got) - unsure:
            raise prof.Fail(f'{label}: the Racket text report lists '
                            f'{sorted(listed - got)} not in the graph, '
                            f'the graph has {sorted(got - listed)} it '
                            'does not list')

    index = {f['name']: i for i, f in enumerate(funcs)
             if f['name'] in uniq}
    max_self = max((fns[index[n]][0] for n in got), default=0)
    for name in got:
        check_node(label, name, nodes[by_label[name]], fns[index[name]],
                   whole, max_self)

    # Edges: exactly the report's between shown functions.
    shown = {index[n]: by_label[n] for n in got}
    want_edges = {(shown[c], shown[e]): w for c, e, w, _, _ in redges
                  if c in shown and e in shown}
    got_edges = {k: v for k, v in edges.items()
                 if k[0] in shown.values() and k[1] in shown.values()}
    if set(want_edges) != set(got_edges):
        raise prof.Fail(f'{label}: edges {sorted(got_edges)}, the report '
                        f'has {sorted(want_edges)}')
    for k, w in want_edges.items():
        share = float(got_edges[k].rstrip('%'))
        if abs(share - pct(w, whole)) > 0.051:
            raise prof.Fail(f'{label}: edge {k} says {got_edges[k]}, the '
                            f'report {pct(w, whole):.2f}%')
    every = sum(1 for f in funcs if f['total_samples'])
    if (hs, hsub) == (0, 0) and len(nodes) != every:
        raise prof.Fail(f'{label}: {len(nodes)} nodes without hiding, '
                        f'{every} functions')
    print(f'{label} --hide-self {hs} --hide-subs {hsub}: {len(nodes)} of '
          f'{len(rule)} functions shown, {len(edges)} edges, as the report')
    return set(by_label)


def check_node(label, name, node, fw, whole, max_self):
    """Shares in the node's lines and its fill against the report."""
    _, lines, fill = node
    for what, value in (('self', fw[0]), ('total', fw[1])):
        line = [l for l in lines if l.startswith(what + ' ')]
        m = re.match(what + r' ([\d.]+)% \(', line[0]) if line else None
        if not m or abs(float(m.group(1)) - pct(value, whole)) > 0.051:
            raise prof.Fail(f'{label}: {name} says {line}, the report '
                            f'{what} {pct(value, whole):.2f}%')
    m = re.fullmatch(r'#ff([0-9a-f]{2})\1', fill or '')
    sat = fw[0] / max_self if max_self else 0.0
    if not m or abs(1 - int(m.group(1), 16) / 255 - sat) > 0.01:
        raise prof.Fail(f'{label}: {name} filled {fill}, want red at '
                        f'{sat:.3f} of the heaviest self')


def must(label, shown, present, absent):
    for n in present:
        if n not in shown:
            raise prof.Fail(f'{label}: {n} not shown')
    for n in absent:
        if n in shown:
            raise prof.Fail(f'{label}: {n} shown')


def test():
    work_split, recursive, threads, space_leak = sys.argv[1:5]

    p = prof.profile(work_split, [SCALE], opts=['-F', '1000'])
    # The leaves' few samples in clock_gettime (work_spin reads the CPU
    # clock) would be lines naming a leaf at 100 % of clock_gettime's
    # time, keeping the leaf: fold them into the leaves.
    args = ('--hide=*clock_gettime*',)
    every = check('work_split', p.spool, args, thresholds=(0, 0))
    default = check('work_split', p.spool, args)
    high = check('work_split', p.spool, args, thresholds=(40, 100))
    leaves = ['leaf_50', 'leaf_30', 'leaf_20']
    must('work_split default', default, leaves + ['main'], [])
    must('work_split 40/100', high, ['leaf_50'], ['leaf_30', 'leaf_20'])
    if not high < default <= every:
        raise prof.Fail('work_split: higher thresholds do not show fewer '
                        'functions')

    p = prof.profile(recursive, [SCALE], opts=['-F', '1000'])
    shown = check('recursive', p.spool)
    must('recursive', shown, ['recurse', 'sibling', 'main'], [])

    p = prof.profile(threads, [SCALE], opts=['-F', '1000'])
    shown = check('threads', p.spool)
    must('threads', shown, [f'thread_work_{n}' for n in range(1, 5)], [])

    p = prof.profile(space_leak, ['0.1'], opts=['--space-interval=16K'])
    args = ('--space', '--alloc')
    every = check('space_leak', p.spool, args, thresholds=(0, 0))
    default = check('space_leak', p.spool, args)
    high = check('space_leak', p.spool, args, thresholds=(10, 100))
    must('space_leak default', default, ['churn_site', 'leaky_site'], [])
    must('space_leak 10/100', high, ['churn_site'], ['leaky_site'])
    if not high < default <= every:
        raise prof.Fail('space_leak: higher thresholds do not show fewer '
                        'functions')
    check('space_leak --inuse', p.spool, ('--space', '--inuse'))


prof.main(test)
