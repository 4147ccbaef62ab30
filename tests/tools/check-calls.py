#!/usr/bin/env python3
"""The layers hold in the built objects: a file calls only into its own
layer or the layers below it, and no files call each other in a circle.

Edges are read from the objects' symbols (nm), not from the includes: an
undefined symbol of A's object that B's object defines is a call (or a
reference) from A to B, which is how calls bind at run time. That sees what
an include check cannot: a core file of the preload library that calls
prctl() reaches the library's own exported prctl wrapper; a declaration
written in the wrong header hides an upward call from the includes.

A component is a folder of the source tree whose files sit in layer
folders; a file directly in the component's folder is above every layer
(the analyzer's main.c and its companions). The objects of a component are
found through the build's compile_commands.json; each object is named by
its source file. Objects of other targets built from the same sources
(profrun, the launcher, links a few of the library's files) are left out
by the target folder given.

usage: check-calls.py BUILD_DIR COMPONENT_DIR TARGET_OBJDIR LAYER...
       check-calls.py --layer-comments BUILD_DIR COMPONENT_DIR ...
       check-calls.py --self-test
  COMPONENT_DIR: e.g. preload (relative to the source root)
  TARGET_OBJDIR: the object folders of the targets, relative to BUILD_DIR,
                 separated by commas, e.g. preload/libprofrun.so.p
  LAYER...: the layer folders, lowest first
  --layer-comments: also each file's opening comment must name its
                   folder's layer ("Layer: core").
Prints every upward edge and every cycle, and exits 1 when there is one.
"""
import json
import os
import re
import subprocess
import sys
import tempfile

DEFINED = set('TDBRVWGSi')


def symbols(obj):
    """(defined, undefined) global symbol names of obj."""
    out = subprocess.run(['nm', obj], capture_output=True, text=True,
                         check=True).stdout
    defined, undefined = set(), set()
    for line in out.splitlines():
        f = line.split()
        if len(f) == 2 and f[0] == 'U':
            undefined.add(f[1])
        elif len(f) == 3 and f[1] in DEFINED:
            defined.add(f[2])
    return defined, undefined


def objects(build, component, objdir):
    """{source path relative to the component: object path}."""
    with open(os.path.join(build, 'compile_commands.json')) as f:
        entries = json.load(f)
    comp = os.path.realpath(component)
    dirs = tuple(o.rstrip('/') + '/' for o in objdir.split(','))
    found = {}
    for e in entries:
        out = e['output']
        if not out.startswith(dirs):
            continue
        src = os.path.realpath(os.path.join(e['directory'], e['file']))
        if not src.startswith(comp + os.sep):
            continue
        found[os.path.relpath(src, comp)] = os.path.join(e['directory'], out)
    return found


def layer_of(path, layers):
    """The index of path's layer; len(layers) for a file above them all;
    None for a folder that is no layer."""
    parts = path.split(os.sep)
    if len(parts) == 1:
        return len(layers)
    return layers.index(parts[0]) if parts[0] in layers else None


def cycles(edges):
    """The strongly connected components of more than one module."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


def check(objs, layers):
    """Lines naming each problem, and the number of edges read."""
    syms = {src: symbols(obj) for src, obj in objs.items()}
    owner = {}
    for src, (defined, _) in syms.items():
        for s in defined:
            owner.setdefault(s, src)
    bad, edges, calls, n = [], {}, {}, 0
    for src, (_, undefined) in sorted(syms.items()):
        lo = layer_of(src, layers)
        if lo is None:
            bad.append(f'{src}: in a folder that is no layer '
                       f'({", ".join(layers)})')
            continue
        for s in sorted(undefined):
            to = owner.get(s)
            if not to or to == src:
                continue
            n += 1
            edges.setdefault(src, set()).add(to)
            calls.setdefault((src, to), []).append(s)
            lt = layer_of(to, layers)
            if lt is not None and lt > lo:
                bad.append(f'{src} -> {to} ({s}): calls up, from '
                           f'{name(lo, layers)} to {name(lt, layers)}')
    for comp in cycles(edges):
        inner = [f'{a} -> {b} ({", ".join(calls[(a, b)][:3])})'
                 for a in comp for b in sorted(edges.get(a, ()))
                 if b in comp]
        more = f' (+{len(inner) - 12} more)' if len(inner) > 12 else ''
        bad.append(f'cycle of {len(comp)} files: ' + '; '.join(inner[:12]) +
                   more)
    return bad, n


def layer_comments(component, layers):
    """Each .c and .h file of a layer folder names its layer in its
    opening comment ("Layer: NAME"), so that a reader of one file knows
    what it may call; lines naming each file that does not."""
    bad = []
    for layer in layers:
        d = os.path.join(component, layer)
        for f in sorted(os.listdir(d)):
            if not f.endswith(('.c', '.h')):
                continue
            with open(os.path.join(d, f), encoding='utf-8') as fh:
                head = fh.read().split('*/', 1)[0]
            m = re.search(r'Layer: ([a-z]+)', head)
            if not m or m.group(1) != layer:
                got = m.group(1) if m else 'none'
                bad.append(f'{layer}/{f}: its opening comment names layer '
                           f'{got}, not {layer}')
    return bad


def name(i, layers):
    return layers[i] if i < len(layers) else 'the top'


def self_test():
    """Plants an upward call and a cycle in a scratch component and
    checks that both are found, and that the clean one passes."""
    with tempfile.TemporaryDirectory() as d:
        files = {
            'base/a.c': 'int a(void) { return 1; }\n',
            'core/b.c': 'int a(void); int b(void) { return a(); }\n',
            'core/c.c': 'int b(void); int c(void) { return b(); }\n',
        }
        planted = {
            'base/a.c': 'int b(void); int a(void) { return b(); }\n',
        }

        def build(fs):
            objs = {}
            for path, text in fs.items():
                src = os.path.join(d, path)
                os.makedirs(os.path.dirname(src), exist_ok=True)
                with open(src, 'w') as f:
                    f.write(text)
                obj = src + '.o'
                subprocess.run(['cc', '-c', '-o', obj, src], check=True)
                objs[path] = obj
            return objs

        clean, _ = check(build(files), ['base', 'core'])
        if clean:
            print('self-test: a clean component fails: ' + '; '.join(clean))
            return 1
        dirty, _ = check(build({**files, **planted}), ['base', 'core'])
        want = ['calls up', 'cycle of ']
        if not all(any(w in b for b in dirty) for w in want):
            print('self-test: a planted upward call and cycle were not '
                  'both found: ' + '; '.join(dirty))
            return 1
        print('self-test: the planted edge is found: ' + '; '.join(dirty))
    return 0


def main():
    if sys.argv[1:] == ['--self-test']:
        return self_test()
    args = sys.argv[1:]
    comments = args[:1] == ['--layer-comments']
    args = args[1:] if comments else args
    if len(args) < 4:
        print(__doc__.strip().split('\n\n')[-1], file=sys.stderr)
        return 2
    build, component, objdir, layers = args[0], args[1], args[2], args[3:]
    objs = objects(build, component, objdir)
    if not objs:
        print(f'{component}: no objects of {objdir} in {build}')
        return 1
    bad, n = check(objs, layers)
    if comments:
        bad += layer_comments(component, layers)
    for b in bad:
        print(b)
    print(f'{component}: {len(objs)} objects, {n} calls between files '
          f'checked, {len(bad)} problems')
    return 1 if bad else 0


sys.exit(main())
