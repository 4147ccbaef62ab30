#!/usr/bin/env python3
"""--format=folded, read back with the rules of the flame graph tools
(FlameGraph's flamegraph.pl: a line is STACK, white space, COUNT; the
stack splits at ';'; speedscope and inferno split at the last space) and
strictly: one line per stack, no empty or padded frame, no control
character, whole counts above 0. Against the --json report of the same
spool:

- the counts add up to the report's samples (time) or sampled bytes
  (space);
- every line's stack is the path of a calling-context-tree node, and its
  count that node's self samples (time) or self bytes (space); every node
  with any has its line;
- per function, the counts of the lines it ends add up to its self.

Names are compared after the documented renaming (';' to ':', control
characters and U+2028/U+2029 to '?', a space at either end to '_'),
applied to the report's names. Ground truth by construction as well:
work_split's leaves 5:3:2, threads' four workers 1:2:3:4, recursive's
stacks 50 recurse frames deep, space_leak's churn_site 16 times
leaky_site's bytes.

No flame graph tool is packaged in Debian or usable from npm without a
browser, so the reading is done here.

usage: test_export_folded.py WORK_SPLIT RECURSIVE THREADS SPACE_LEAK
"""
import re
import sys

import prof
import space

SCALE = '0.3'
# Characters the export replaces by '?': control characters, and the
# separators that JavaScript's '.' does not match.
UNSAFE = r'[\x00-\x1f\x7f-\x9f\u2028\u2029]'
# flamegraph.pl's line rule.
FLAMEGRAPH_LINE = re.compile(r'^(.*)\s+?(\d+(?:\.\d*)?)$')


def safe(name):
    """A name as the folded export writes it (see its documentation)."""
    if not name:
        return '?'
    s = re.sub(UNSAFE, '?', name.replace(';', ':'))
    if s.startswith(' '):
        s = '_' + s[1:]
    if s.endswith(' '):
        s = s[:-1] + '_'
    return s


def parse(text, label):
    """{stack tuple: count}, checking every line."""
    if text and not text.endswith('\n'):
        raise prof.Fail(f'{label}: the last line has no newline')
    stacks = {}
    for i, line in enumerate(text.split('\n')[:-1], 1):
        m = FLAMEGRAPH_LINE.match(line)
        if not m or not re.fullmatch(r'[^\s](.*[^\s])? [1-9]\d*', line):
            raise prof.Fail(f'{label}: line {i} is not "STACK COUNT": '
                            f'{line!r}')
        stack, count = line.rsplit(' ', 1)
        if (m.group(1), m.group(2)) != (stack, count):
            raise prof.Fail(f'{label}: line {i} splits differently for '
                            f'flamegraph.pl: {line!r}')
        frames = tuple(stack.split(';'))
        for f in frames:
            if not f or f != f.strip() or re.search(UNSAFE, f):
                raise prof.Fail(f'{label}: line {i}: frame {f!r} is not '
                                'safe')
        if frames in stacks:
            raise prof.Fail(f'{label}: line {i}: stack {stack!r} again')
        stacks[frames] = int(count)
    return stacks




def self_of(report, obj):
    """What a line counts for a node or function: self samples, or self
    bytes in a space profile."""
    if report['kind'] == 'space':
        return round(prof.field(obj, 'self'))
    return prof.field(obj, 'self_samples')


def tree_stacks(report):
    """{name path: self} of the tree's nodes that have any."""
    paths, out = prof.tree_paths(report), {}
    for i, n in enumerate(report['tree']):
        w = self_of(report, n)
        if w:
            p = paths[i] if n['parent'] is not None else ('[no frames]',)
            out[p] = out.get(p, 0) + w
    return out


def read(spool, report, label, extra=()):
    """The folded export of spool, checked against report; returns
    {name path: count}."""
    a, _ = prof.analyze(spool, args=tuple(extra) + ('--format=folded',))
    stacks = parse(a.stdout, label)
    resolve, _ = prof.label_resolver(report, safe)

    def to_name(frame):
        # The tree root's own samples.
        return frame if frame == '[no frames]' else resolve(frame)
    named = {}
    for frames, c in stacks.items():
        p = tuple(map(to_name, frames))
        named[p] = named.get(p, 0) + c
    total = sum(stacks.values())
    if report['kind'] == 'space':
        want = prof.field(report, 'sampled_bytes')
    else:
        want = prof.field(report, 'samples')
    print(f'{label}: {len(stacks)} stacks, counts add up to {total} '
          f'(report: {want})')
    if total != want:
        unit = 'bytes' if report['kind'] == 'space' else 'samples'
        raise prof.Fail(f'{label}: the counts add up to {total}, the report '
                        f'has {want} {unit}')
    tree = tree_stacks(report)
    if named != tree:
        diff = sorted(set(named.items()) ^ set(tree.items()))[:10]
        raise prof.Fail(f'{label}: stacks differ from the tree; first '
                        'differences (path, count):\n' +
                        '\n'.join(f'  {";".join(p)} {c}' for p, c in diff))
    by_func = {}
    for p, c in named.items():
        by_func[p[-1]] = by_func.get(p[-1], 0) + c
    for f in report['functions']:
        want = sum(self_of(report, g) for g in report['functions']
                   if g['name'] == f['name'])
        if by_func.get(f['name'], 0) != want:
            raise prof.Fail(f'{label}: lines ending in {f["name"]} count '
                            f'{by_func.get(f["name"], 0)}, its self is {want}')
    return named


def leaf_report(named, key):
    """Per leaf function, in the shape prof.check_shares reads."""
    by = {}
    for p, c in named.items():
        by[p[-1]] = by.get(p[-1], 0) + c
    return {'functions': [{'name': n, 'module': '', key: c}
                          for n, c in by.items()]}


def test_work_split(target):
    p = prof.profile(target, [prof.SHARE_SCALE], opts=['-F', '1000'])
    named = read(p.spool, p.report, 'work_split')
    prof.check_shares(leaf_report(named, 'self_samples'),
                      {'leaf_50': 5, 'leaf_30': 3, 'leaf_20': 2},
                      label='folded')


def test_recursive(target):
    p = prof.profile(target, [SCALE], opts=['-F', '1000'])
    named = read(p.spool, p.report, 'recursive')
    deepest = max(p.count('recurse') for p in named)
    print(f'recursive: up to {deepest} recurse frames on a stack')
    # 50 levels, each with about 1/50 of recurse's samples: the deepest
    # few may have none.
    if not 45 <= deepest <= 50:
        raise prof.Fail(f'recurse {deepest} deep on a stack, want 45 to 50')


def test_threads(target):
    p = prof.profile(target, [prof.SHARE_SCALE], opts=['-F', '1000'])
    named = read(p.spool, p.report, 'threads')
    prof.check_shares(leaf_report(named, 'self_samples'),
                      {f'thread_work_{i}': i for i in range(1, 5)},
                      label='folded')


def test_space_leak(target):
    p = prof.profile(target, ['0.25'], opts=['--space-interval=16K'])
    t = space.truth(p.stdout)
    r = space.report(p.spool, 'alloc')
    named = read(p.spool, r, 'space_leak', extra=('--space', '--alloc'))
    by = leaf_report(named, 'self')
    for f in by['functions']:
        f['self_samples'] = prof.need_func(r, f['name'])['self_samples']
    space.check_shares(by, {'leaky_site': t['leaky_site'],
                            'churn_site': t['churn_site']}, 'folded bytes')


def test():
    test_work_split(sys.argv[1])
    test_recursive(sys.argv[2])
    test_threads(sys.argv[3])
    test_space_leak(sys.argv[4])


prof.main(test)
