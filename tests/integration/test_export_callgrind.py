#!/usr/bin/env python3
"""--format=callgrind read back by Valgrind's callgrind_annotate.

For real runs of the targets, callgrind_annotate must read the export
without a warning, and what it computes must be what the --json report of
the same spool with the same options says:
  - PROGRAM TOTALS: the report's sampled seconds (bytes) and samples;
  - per function (function [object] of callgrind_annotate's
    file:function [object], the file being the function's source file
    and the object its module): its self weight and self samples;
  - with --inclusive=yes: its total weight and total samples, which are
    never more than the program totals, for the recursive target too
    (recursive calls carry no cost: a sample counts once per function);
  - the functions are the report's, plus "<spontaneous>", the caller of
    the outermost frames, whose inclusive cost is the program's.
And, by the targets' construction (callgrind_annotate --tree=caller):
work_split's leaves are called by main alone (or by a marker of a cut
stack), the calls carrying the leaf's total; so are recurse, never by
itself, and sibling; each thread_work_N is called from the thread start,
not from main; leaky_site's bytes in use come from its calls by main.

usage: test_export_callgrind.py WORK_SPLIT RECURSIVE THREADS SPACE_LEAK
"""
import re
import shutil
import sys

import prof

SCALE = '0.3'
SPONTANEOUS = '<spontaneous>'
COST = r'([\d,]+|\.)'
FN_LINE = re.compile(r'^\s*' + COST + r'\s+' + COST + r'\s+(\S.*)$')
# --tree=caller: "COST COST < file:function (Nx) [object]" before the
# function's own line "COST COST *  file:function [object]".
CALLER_LINE = re.compile(r'^\s*' + COST + r'\s+' + COST +
                         r'\s+< (.*) \((\d[\d,]*)x\)(?: \[.*\])?$')
SELF_LINE = re.compile(r'^\s*' + COST + r'\s+' + COST + r'\s+\*  (.*)$')


def number(s):
    return 0 if s == '.' else int(s.replace(',', ''))


def export(spool, args=()):
    """(export path, --json report) of spool with args."""
    out = prof.export(spool, 'callgrind', args, 'callgrind.out')
    _, report = prof.analyze(spool, args=tuple(args) + ('--json',))
    with open(out, encoding='utf-8', errors='replace') as f:
        head = f.readline()
    if head != '# callgrind format\n':
        raise prof.Fail(f'{out}: first line {head!r}, want the format line')
    return out, report


def annotate(path, *opts):
    """callgrind_annotate's output for path; fails on a warning."""
    tool = shutil.which('callgrind_annotate')
    if not tool:
        raise prof.Fail('callgrind_annotate not found: install valgrind')
    # Run elsewhere than in the build tree: callgrind_annotate strips the
    # working directory from file names.
    r = prof.run([tool, '--threshold=100', '--show-percs=no']
                 + list(opts) + [path], cwd=prof.tmpdir())
    if r.returncode != 0 or 'WARNING' in r.stderr or r.stderr.strip():
        raise prof.Fail(f'callgrind_annotate {" ".join(opts)} {path}: '
                        f'exit {r.returncode}\n{r.stderr[-3000:]}')
    return r.stdout


def table(text):
    """(program totals, {"file:function [object]": (weight, samples)})."""
    lines = text.split('\n')
    totals = None
    for line in lines:
        if line.endswith('PROGRAM TOTALS'):
            m = FN_LINE.match(line)
            totals = (number(m.group(1)), number(m.group(2)))
    head = [i for i, l in enumerate(lines) if l.endswith(' file:function')]
    if totals is None or len(head) != 1:
        raise prof.Fail(f'no PROGRAM TOTALS or function table in:\n'
                        f'{text[:3000]}')
    funcs = {}
    for line in lines[head[0] + 2:]:
        if not line.strip():
            break
        m = FN_LINE.match(line)
        if not m:
            raise prof.Fail(f'unexpected line in the function table: '
                            f'{line!r}')
        # A function's costs in code inlined from another file are
        # listed as that file's (as for Callgrind's own output): the
        # rows of one function [object] add up.
        key = short(m.group(3))
        w, n = funcs.get(key, (0, 0))
        funcs[key] = (w + number(m.group(1)), n + number(m.group(2)))
    return totals, funcs


def weight(report, value):
    """A --json weight (seconds, or bytes) in the export's unit."""
    if report['kind'] == 'space':
        return round(value)
    return round(value * 1e9)


def report_totals(report):
    key = 'sampled_bytes' if report['kind'] == 'space' else 'sampled_seconds'
    return (weight(report, prof.field(report, key)),
            prof.field(report, 'samples'))


def key_of(f):
    """callgrind_annotate's name of a --json function without its file
    (the function's source file, or "???", as Callgrind writes for code
    without line information): function [object]."""
    mod = f.get('module') or '???'
    return f'{f["name"]} [{mod}]'


def expected(report, what):
    """{key: (weight, samples)} of the report's functions, what being
    'self' or 'total'. Functions whose name is not unique are left out
    here and checked by check_same_names."""
    names = [f['name'] for f in prof.field(report, 'functions')]
    return {key_of(f): (weight(report, f[what]), f[what + '_samples'])
            for f in report['functions']
            if names.count(f['name']) == 1 and f['total_samples']}


def check_same_names(report, got, label):
    """Functions sharing a name: their figures add up to the report's."""
    names = [f['name'] for f in report['functions']]
    for name in sorted({n for n in names if names.count(n) > 1}):
        want = [f for f in report['functions'] if f['name'] == name]
        rows = [v for k, v in got.items()
                if re.match(re.escape(name) + r' \[', k)]
        if len(rows) != len(want):
            raise prof.Fail(f'{label}: {len(want)} functions named {name} '
                            f'in the report, {len(rows)} in the export')


def place_objectless(label, got, want):
    """callgrind_annotate names the object of a function only from fn=
    lines: a function's costs in another file (fi=) are listed without
    it ("function" alone). Adds each such row to the one function of
    that name the report has."""
    out = {k: v for k, v in got.items() if ' [' in k}
    for k, v in got.items():
        if ' [' in k:
            continue
        cands = {w for w in set(want) | set(out) if w.startswith(k + ' [')}
        if len(cands) != 1:
            raise prof.Fail(f'{label}: {k} without its object, and '
                            f'{len(cands)} functions of that name')
        w = cands.pop()
        x = out.get(w, (0, 0))
        out[w] = (x[0] + v[0], x[1] + v[1])
    return out


def compare(label, report, got_totals, got, what):
    want_totals = report_totals(report)
    if what == 'self':
        got = place_objectless(label, got, expected(report, what))
    else:
        # Inclusive costs are those of the calls into a function, made to
        # its name in its own file (cfi=, fn=): the rows of its costs in
        # other files (objectless) count their own cost only.
        got = {k: v for k, v in got.items() if ' [' in k}
    if got_totals != want_totals:
        raise prof.Fail(f'{label}: PROGRAM TOTALS {got_totals}, the report '
                        f'says {want_totals}')
    want = expected(report, what)
    spont = [k for k in got if k.startswith(f'{SPONTANEOUS} [')]
    if len(spont) != 1:
        raise prof.Fail(f'{label}: {len(spont)} {SPONTANEOUS} entries')
    missing = sorted(set(want) - set(got))
    if missing:
        raise prof.Fail(f'{label}: not in callgrind_annotate\'s table: '
                        f'{missing[:10]}')
    wrong = [f'{k}: {got[k]}, report {v}' for k, v in sorted(want.items())
             if got[k] != v]
    if wrong:
        raise prof.Fail(f'{label}: {what} differs from the report:\n  ' +
                        '\n  '.join(wrong[:20]))
    names = len(report['functions'])
    if len(got) != names + 1:
        raise prof.Fail(f'{label}: {len(got)} functions, the report has '
                        f'{names} (+1 for {SPONTANEOUS})')
    check_same_names(report, got, label)
    over = [k for k, v in got.items() if v[0] > got_totals[0] or
            v[1] > got_totals[1]]
    if over:
        raise prof.Fail(f'{label}: {what} above the program totals: {over}')
    print(f'{label}: {what} of {len(want)} functions as the report says')
    return spont[0]


def callers(text):
    """{function: {caller: (weight, samples, calls)}} from --tree=caller."""
    out, pending = {}, []
    for line in text.split('\n'):
        m = CALLER_LINE.match(line)
        if m:
            pending.append((m.group(3), (number(m.group(1)),
                                         number(m.group(2)),
                                         number(m.group(4)))))
            continue
        m = SELF_LINE.match(line)
        if m:
            name = re.sub(r' \[[^\]]*\]$', '', m.group(3))
            out[name] = dict(pending)
            pending = []
        elif not line.strip():
            pending = []
    return out


def short(key):
    """The function part of "file:function" (the file, an absolute path
    or "???", has no colon)."""
    return key.split(':', 1)[1] if ':' in key else key


def check_export(label, spool, args=()):
    """The export of spool read by callgrind_annotate, self and inclusive,
    against the --json report. Returns (report, caller tree by function
    name)."""
    path, report = export(spool, args)
    if prof.field(report, 'samples') < prof.MIN_SAMPLES:
        raise prof.Fail(f'{label}: only {report["samples"]} samples')
    totals, got = table(annotate(path))
    compare(label, report, totals, got, 'self')
    totals, got = table(annotate(path, '--inclusive=yes'))
    spont = compare(label + ' --inclusive=yes', report, totals, got, 'total')
    # Empty stacks have no function: all weight is below the outermost
    # frames, so <spontaneous> holds all of it.
    if got[spont] != totals:
        raise prof.Fail(f'{label}: {SPONTANEOUS} has {got[spont]}, the '
                        f'program {totals}')
    tree = callers(annotate(path, '--tree=caller'))
    # A function's rows in several files (its own, and those of code
    # inlined into it, fi=) are one function here, their figures summed.
    byname = {}
    for k, cs in tree.items():
        merged = byname.setdefault(short(k), {})
        for c, v in cs.items():
            x = merged.get(short(c), (0, 0, 0))
            merged[short(c)] = tuple(a + b for a, b in zip(x, v))
    for fn, cs in byname.items():
        if fn in cs:
            raise prof.Fail(f'{label}: {fn} calls itself in the export '
                            '(recursive calls carry no cost)')
    return report, byname


def called_by_main_only(label, report, tree, names):
    """Each of names is called by main (and by the markers of cut stacks,
    "[incomplete stack]", if unwinding failed), its calls carrying its
    total."""
    for name in names:
        f = prof.need_func(report, name)
        cs = tree.get(name) or {}
        others = [c for c in cs if c != 'main' and not
                  re.fullmatch(r'\[.*\]', c)]
        if 'main' not in cs or others:
            raise prof.Fail(f'{label}: {name} called by {sorted(cs)}, want '
                            'main')
        w = sum(v[0] for v in cs.values())
        s = sum(v[1] for v in cs.values())
        if (w, s) != (weight(report, f['total']), f['total_samples']):
            raise prof.Fail(f'{label}: the calls of {name} cost {(w, s)}, '
                            f'its total is {f["total_samples"]} samples')
        print(f'{label}: main -> {name}: {cs["main"][1]} of {s} samples, '
              f'{name}\'s total')


def test():
    work_split, recursive, threads, space_leak = sys.argv[1:5]

    p = prof.profile(work_split, [SCALE], opts=['-F', '1000'])
    r, tree = check_export('work_split', p.spool)
    called_by_main_only('work_split', r, tree,
                        ['leaf_50', 'leaf_30', 'leaf_20'])

    p = prof.profile(recursive, [SCALE], opts=['-F', '1000'])
    r, tree = check_export('recursive', p.spool)
    called_by_main_only('recursive', r, tree, ['recurse', 'sibling'])

    p = prof.profile(threads, [SCALE], opts=['-F', '1000'])
    r, tree = check_export('threads', p.spool)
    for n in range(1, 5):
        name = f'thread_work_{n}'
        cs = tree.get(name)
        if not cs or 'main' in cs:
            raise prof.Fail(f'threads: {name} called by {cs}')
        print(f'threads: {name} called by {sorted(cs)}')

    p = prof.profile(space_leak, ['0.1'], opts=['--space-interval=16K'])
    for view in ('--alloc', '--inuse'):
        r, tree = check_export(f'space_leak --space {view}', p.spool,
                               ('--space', view))
        if r['kind'] != 'space':
            raise prof.Fail(f'space_leak: kind {r["kind"]}')
    called_by_main_only('space_leak --inuse', r, tree, ['leaky_site'])


prof.main(test)
