#!/usr/bin/env python3
"""--format=dot of a large real profile renders: the C compiler (cc1,
several thousand functions, as in the issue that asked for the cut)
profiled compiling a generated file of 400 functions, its spools merged
with --children.

- Without the cut (--node-count=0) the graph has more than 80 functions,
  so the default cut is exercised.
- With the default (--node-count 80) the graph has 80 nodes, the 80 with
  the largest total of the uncut graph (ties at the boundary either
  way), and its label says so: "showing the 80 heaviest of N functions",
  N those of the uncut graph, and how many of the edges between them were
  dropped, which are those missing from the graph; every edge drawn
  brings its callee at least 1% of the callee's total.
- dot -Tsvg renders it (exit 0, no warning; the run has a two-minute
  guard against a hang, the time it took is printed, not judged).

usage: test_export_dot_large.py
"""
import os
import re
import shutil
import time

import prof

NODE = re.compile(r'^\tnode(\d+) \[label="(.*)\\nself ([\d.]+)% \(.*\)'
                  r'\\ntotal ([\d.]+)% \(.*\)", fillcolor')
EDGE = re.compile(r'^\tnode(\d+) -> node(\d+) \[label="([\d.]+)%"')
CUT = re.compile(r'showing the (\d+) heaviest of (\d+) functions '
                 r'\(--node-count\); (\d+) of (\d+) edges below 1(?:\.0)?% '
                 r'of their callee')


def source(path):
    with open(path, 'w') as f:
        for i in range(400):
            f.write(f'static int f{i}(int x) {{ int s = 0; for (int k = 0; '
                    f'k < x; k++) s += (k * {i + 3}) ^ (s >> 3); '
                    'return s; }\n')
        f.write('int run(int n) { int s = 0; ' +
                ' '.join(f's += f{i}(n + {i});' for i in range(400)) +
                ' return s; }\n')


def parse(path):
    """({node: (name, total %)}, {(a, b): share %}, graph label)."""
    nodes, edges, label = {}, {}, ''
    for line in open(path, encoding='utf-8'):
        m = NODE.match(line)
        if m:
            nodes[int(m.group(1))] = (m.group(2), float(m.group(4)))
            continue
        m = EDGE.match(line)
        if m:
            edges[(int(m.group(1)), int(m.group(2)))] = float(m.group(3))
        elif line.startswith('\tgraph [label='):
            label = line
    return nodes, edges, label


def render(dot_file):
    dot = shutil.which('dot')
    if not dot:
        raise prof.Fail('dot not found: install graphviz')
    svg = dot_file + '.svg'
    start = time.monotonic()
    r = prof.run([dot, '-Tsvg', '-o', svg, dot_file], timeout=120)
    took = time.monotonic() - start
    if r.returncode != 0 or r.stderr.strip():
        raise prof.Fail(f'dot -Tsvg: exit {r.returncode}\n{r.stderr[-2000:]}')
    text = open(svg, encoding='utf-8').read()
    return text.count('class="node"'), text.count('class="edge"'), took


def test():
    cc = shutil.which('cc') or shutil.which('gcc')
    if not cc:
        raise prof.Fail('no C compiler (cc) to profile')
    d = prof.tmpdir()
    src = os.path.join(d, 'many.c')
    source(src)
    spool = os.path.join(d, 'cc.spool')
    r = prof.profrun(['-o', spool, '-F', '2000', '--', cc, '-O2', '-c',
                      src, '-o', os.path.join(d, 'many.o')], timeout=240)
    if r.returncode != 0:
        raise prof.Fail(f'profrun cc: exit {r.returncode}\n{r.stderr}')
    whole = os.path.join(d, 'whole.dot')
    cut = os.path.join(d, 'cut.dot')
    prof.analyze(spool, args=('--children', '--format=dot',
                              '--node-count=0', '-O', whole))
    prof.analyze(spool, args=('--children', '--format=dot', '-O', cut))
    wn, we, _ = parse(whole)
    cn, ce, label = parse(cut)
    print(f'uncut: {len(wn)} functions, {len(we)} edges; cut: {len(cn)} '
          f'functions, {len(ce)} edges')
    if len(wn) <= 80:
        raise prof.Fail(f'cc1 gave only {len(wn)} functions: the cut is '
                        'not exercised')
    m = CUT.search(label)
    if not m or int(m.group(1)) != 80 or int(m.group(2)) != len(wn):
        raise prof.Fail(f'the label does not state the cut: {label}')
    if len(cn) != 80:
        raise prof.Fail(f'{len(cn)} nodes, want 80')
    dropped, among = int(m.group(3)), int(m.group(4))
    if among - dropped != len(ce):
        raise prof.Fail(f'the label says {among - dropped} edges, the graph '
                        f'has {len(ce)}')
    kept = {name for name, _ in cn.values()}
    kept_min = min(t for name, t in wn.values() if name in kept)
    other_max = max(t for name, t in wn.values() if name not in kept)
    print(f'kept totals down to {kept_min}%, the rest up to {other_max}%')
    if kept_min < other_max:
        raise prof.Fail('the cut did not keep the heaviest functions')
    totals = {k: t for k, (_, t) in cn.items()}
    for (a, b), share in ce.items():
        if share < 0.01 * totals[b] - 0.05:
            raise prof.Fail(f'edge node{a} -> node{b} brings {share}%, under '
                            f'1% of its callee\'s {totals[b]}%')
    nodes, edges, took = render(cut)
    print(f'dot -Tsvg: {nodes} nodes, {edges} edges in {took:.2f} s')
    if nodes != 80 or edges != len(ce):
        raise prof.Fail(f'the SVG has {nodes} nodes and {edges} edges')


prof.main(test)
