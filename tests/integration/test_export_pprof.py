#!/usr/bin/env python3
"""--format=pprof read back by a real decoder: DataDog's pprof-format from
npm (tests/js, `npm ci --prefix tests/js`), run by node in
pprof-decode.js, which also checks every reference between the profile's
parts (ids, string indexes, string_table[0] == "").

For real runs of the targets, the decoded profile must say what the
--json report of the same spool with the same options says:
  - sample types samples/count and cpu/nanoseconds (space/bytes for a
    space profile), the period, mapping[0] the executable;
  - the samples' counts and weights add up to the report's samples and
    sampled seconds (bytes);
  - each function's self and total samples and weight, computed from the
    decoded samples' location stacks (leaf first, a function counted once
    per sample in its total), are the report's, names and modules alike;
  - each calling-context path carries the report's tree node's self
    samples and weight;
  - mappings carry the report's module paths and build-ids;
  - the tid and thread labels split the samples as the report's threads;
the same with --hide (hiding comes before the export; hidden workers
leave four threads on one path, told apart by the labels alone) and
--lines (function source files, location lines). And, by the targets' construction: work_split's leaves split 5:3:2,
recurse is on a stack many times over, each thread_work_N runs in its own
thread, leaky_site holds the bytes in use. A module path that is not
UTF-8 (tests/golden/json-escape.desc) leaves the string table UTF-8.

usage: test_export_pprof.py WORK_SPLIT RECURSIVE THREADS SPACE_LEAK
"""
import collections
import json
import os
import shutil
import sys
import time

import prof

SCALE = '0.3'
DECODER = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                       'pprof-decode.js')


def decode(path):
    """The profile in path as pprof-decode.js prints it."""
    node = shutil.which('node')
    if not node:
        raise prof.Fail('node not found: install nodejs (scripts/setup-deps)')
    r = prof.run([node, DECODER, path])
    if r.returncode == 3:
        raise prof.Fail(r.stderr.strip())
    if r.returncode != 0:
        raise prof.Fail(f'pprof-format decoder rejects {path} (exit '
                        f'{r.returncode}):\n{r.stderr[-3000:]}')
    try:
        return json.loads(r.stdout)
    except ValueError as e:
        raise prof.Fail(f'pprof-decode.js printed no JSON ({e}):\n'
                        f'{r.stdout[:2000]}')


def export(spool, args=()):
    """(decoded pprof export, --json report) of spool with args."""
    out = prof.export(spool, 'pprof', args, 'profile.pb.gz')
    _, report = prof.analyze(spool, args=tuple(args) + ('--json',))
    return decode(out), report


def space(r):
    return prof.field(r, 'kind') == 'space'


def weight(r, x):
    """A report figure (seconds, or bytes) as pprof's integer weight."""
    return round(x) if space(r) else round(x * 1e9)


class Decoded:
    """The decoded profile with its ids resolved."""

    def __init__(self, d):
        self.d = d
        self.maps = {m['id']: m for m in d['mappings']}
        self.funcs = {f['id']: f for f in d['functions']}
        self.locs = {loc['id']: loc for loc in d['locations']}

    def func_of(self, loc_id):
        """The function the location's PC is in: its last line's (the
        lines before it are inlined calls, innermost first)."""
        return self.funcs[self.locs[loc_id]['lines'][-1]['function_id']]

    def source_of(self, loc_id):
        """(file, line) of the location's PC itself (its first line),
        or None without a file."""
        first = self.locs[loc_id]['lines'][0]
        f = self.funcs[first['function_id']]
        return (f['filename'], first['line']) if f['filename'] else None

    def key(self, loc_id):
        """(function name, module path or None) of a location."""
        m = self.maps.get(self.locs[loc_id]['mapping_id'])
        return (self.func_of(loc_id)['name'], m['filename'] if m else None)

    def path(self, s):
        """A sample's stack, outermost caller first, as keys."""
        return tuple(self.key(x) for x in reversed(s['location_ids']))


def jkey(f):
    return (prof.field(f, 'name'), f.get('module'))


def diff(label, got, want):
    """Fails with the keys where the dicts got and want differ."""
    keys = sorted(set(got) | set(want), key=str)
    bad = [k for k in keys if got.get(k) != want.get(k)]
    if bad:
        lines = '\n'.join(f'  {k}: pprof {got.get(k)}, report {want.get(k)}'
                          for k in bad[:15])
        raise prof.Fail(f'{label}: {len(bad)} of {len(keys)} differ:\n'
                        f'{lines}')
    print(f'{label}: {len(keys)} agree')


def check_header(label, d, r, fixture):
    if space(r):
        want = ['space', 'bytes']
        period = r.get('interval_bytes') or 0
    else:
        want = ['wall' if r.get('clock') == 'wall' else 'cpu', 'nanoseconds']
        period = r.get('period_ns') or 0
    got = (d['sample_type'], d['default_sample_type'], d['period_type'],
           d['period'])
    if got != ([['samples', 'count'], want], want[0], want, period):
        raise prof.Fail(f'{label}: sample types, default, period type, '
                        f'period {got}; want {want}, period {period}')
    # The run's start (the spool's process record) and, when it ended
    # cleanly, its length: this test's runs started within the hour and
    # lasted under a minute. mkspool's fixtures record no start time.
    start = int(d['time_nanos'])
    if not fixture:
        now = time.time_ns()
        if not now - 3600 * 10**9 < start <= now:
            raise prof.Fail(f'{label}: time_nanos {start} is not within the '
                            f'last hour (now {now})')
        if r.get('complete') and not 0 < d['duration_nanos'] < 60 * 10**9:
            raise prof.Fail(f'{label}: duration_nanos '
                            f'{d["duration_nanos"]} is not under a minute')
    elif start or d['duration_nanos']:
        raise prof.Fail(f'{label}: time_nanos {start} / duration '
                        f'{d["duration_nanos"]} for a spool without them')
    names = [m['filename'] for m in d['mappings']]
    if r.get('exe') in names and names[0] != r['exe']:
        raise prof.Fail(f'{label}: mapping[0] is {names[0]}, not the '
                        f'executable {r["exe"]}')


def check_totals(label, d, r, min_samples):
    count = sum(s['values'][0] for s in d['samples'])
    w = sum(s['values'][1] for s in d['samples'])
    want_w = (prof.field(r, 'sampled_bytes') if space(r)
              else weight(r, prof.field(r, 'sampled_seconds')))
    print(f'{label}: {len(d["samples"])} pprof samples: {count} samples, '
          f'weight {w}')
    if (count, w) != (prof.field(r, 'samples'), want_w):
        raise prof.Fail(f'{label}: pprof samples add up to {count} samples '
                        f'and {w}; the report says {r["samples"]} and '
                        f'{want_w}')
    if count < min_samples:
        raise prof.Fail(f'{label}: only {count} samples: the comparisons '
                        'below would prove little')


def decoded_funcs(dec):
    """Per (name, module): [self_samples, total_samples, self, total],
    from the samples' stacks, a function counted once per sample in its
    total (as profile.h defines it). A function has a location per PC."""
    out = collections.defaultdict(lambda: [0, 0, 0, 0])
    for s in dec.d['samples']:
        n, w = s['values']
        keys = [dec.key(x) for x in s['location_ids']]
        if keys:
            out[keys[0]][0] += n
            out[keys[0]][2] += w
        for k in set(keys):
            out[k][1] += n
            out[k][3] += w
    return {k: tuple(v) for k, v in out.items()}


def report_funcs(r):
    out = collections.defaultdict(lambda: [0, 0, 0, 0])
    for f in prof.field(r, 'functions'):
        if not prof.field(f, 'total_samples'):
            continue
        v = out[jkey(f)]
        v[0] += f['self_samples']
        v[1] += f['total_samples']
        v[2] += weight(r, prof.field(f, 'self'))
        v[3] += weight(r, prof.field(f, 'total'))
    return {k: tuple(v) for k, v in out.items()}


def check_sources(label, dec, r, lines):
    """Names are also system names; with --lines, the source positions
    of each function's PCs are the report's (which splits functions by
    the line of each PC). The export has lines whether or not --lines was
    given (the report's files are as DWARF names them, the export's
    absolute: compared by their ends)."""
    got, want = collections.defaultdict(set), collections.defaultdict(set)
    for loc in dec.d['locations']:
        f = dec.func_of(loc['id'])
        if f['system_name'] != f['name']:
            raise prof.Fail(f'{label}: system_name {f["system_name"]} of '
                            f'{f["name"]}')
        src = dec.source_of(loc['id'])
        got[dec.key(loc['id'])].add(
            (os.path.basename(src[0]), src[1]) if src else None)
    if not lines:
        return
    for f in r['functions']:
        if f['total_samples']:
            want[jkey(f)].add((os.path.basename(f['file']), f['line'])
                              if f.get('file') else None)
    diff(f'{label}: source positions', got, want)


def check_tree(label, dec, r):
    """Each calling-context path's self samples and weight."""
    funcs = prof.field(r, 'functions')
    tree = prof.field(r, 'tree')
    paths = {}
    want = {}
    for i, n in enumerate(tree):
        parent = n['parent']
        paths[i] = (() if parent is None else paths[parent]) + \
            ((jkey(funcs[n['function']]),) if n['function'] is not None
             else ())
        if n['self_samples']:
            want[paths[i]] = (n['self_samples'], weight(r, n['self']))
    got = collections.defaultdict(lambda: [0, 0])
    for s in dec.d['samples']:
        v = got[dec.path(s)]
        v[0] += s['values'][0]
        v[1] += s['values'][1]
    diff(f'{label}: tree paths', {k: tuple(v) for k, v in got.items()},
         want)


def check_mappings(label, dec, r, fixture):
    mods = {m['path']: m['build_id'] or '' for m in prof.field(r, 'modules')}
    for m in dec.d['mappings']:
        if not m['has_functions']:
            raise prof.Fail(f'{label}: mapping {m["filename"]} without '
                            'has_functions')
    got = {m['filename']: m['build_id'] for m in dec.d['mappings']}
    used = {f['module'] for f in r['functions']
            if f['total_samples'] and f['module'] is not None}
    diff(f'{label}: mappings', got, {p: mods.get(p) for p in used})
    if not fixture and not any(got.values()):
        raise prof.Fail(f'{label}: no mapping has a build-id')


def check_threads(label, dec, r):
    """Returns {tid: Counter of leaf function names}."""
    got = collections.defaultdict(lambda: [0, 0])
    names = {}
    leaves = collections.defaultdict(collections.Counter)
    for s in dec.d['samples']:
        tids = [lb['num'] for lb in s['labels'] if lb['key'] == 'tid']
        strs = [lb['str'] for lb in s['labels'] if lb['key'] == 'thread']
        if len(tids) != 1 or len(strs) > 1:
            raise prof.Fail(f'{label}: sample labels {s["labels"]}: want '
                            'one tid and at most one thread')
        tid = tids[0]
        got[tid][0] += s['values'][0]
        got[tid][1] += s['values'][1]
        names.setdefault(tid, set()).add(strs[0] if strs else None)
        if s['location_ids']:
            leaves[tid][dec.key(s['location_ids'][0])[0]] += \
                s['values'][0]
    want, want_names = {}, {}
    wkey = 'bytes' if space(r) else 'seconds'
    for t in prof.field(r, 'thread_list'):
        if t['samples']:
            want[t['tid']] = (t['samples'], weight(r, prof.field(t, wkey)))
            want_names[t['tid']] = {t['name'] or None}
    diff(f'{label}: threads', {k: tuple(v) for k, v in got.items()}, want)
    diff(f'{label}: thread names', names, want_names)
    return leaves


def check(label, d, r, fixture=False, lines=False):
    """Everything the decoded profile d must share with the report r (a
    fixture: a few samples, no build-ids)."""
    dec = Decoded(d)
    check_header(label, d, r, fixture)
    check_totals(label, d, r, 1 if fixture else prof.MIN_SAMPLES)
    diff(f'{label}: functions (self, total samples; self, total weight)',
         decoded_funcs(dec), report_funcs(r))
    check_sources(label, dec, r, lines)
    check_tree(label, dec, r)
    check_mappings(label, dec, r, fixture)
    return dec, check_threads(label, dec, r)


def self_samples(dec, name):
    return sum(v[0] for k, v in decoded_funcs(dec).items() if k[0] == name)


def test_work_split(target):
    p = prof.profile(target, [prof.SHARE_SCALE])
    d, r = export(p.spool)
    label = 'work_split'
    dec, _ = check(label, d, r)
    fake = {'functions': [{'name': n, 'self_samples': self_samples(dec, n)}
                          for n in ('leaf_50', 'leaf_30', 'leaf_20')]}
    prof.check_shares(fake, {'leaf_50': 5, 'leaf_30': 3, 'leaf_20': 2},
                      label=f'{label} pprof')
    # Hiding is applied before the export: leaf_30's time goes to main.
    d, r = export(p.spool, ['--hide=leaf_30'])
    dec, _ = check(f'{label} --hide=leaf_30', d, r)
    if any(f['name'] == 'leaf_30' for f in d['functions']):
        raise prof.Fail('--hide=leaf_30: leaf_30 still in the pprof export')
    if not self_samples(dec, 'main'):
        raise prof.Fail('--hide=leaf_30: main has no self samples')
    # --from/--to: the window's samples (some 800 on a quiet machine, 400
    # with the program on half a CPU: check()'s minimum is 100), starting
    # and lasting as the window does.
    whole = d
    d, r = export(p.spool, ['--from=0.2', '--to=1.0'])
    check(f'{label} --from=0.2 --to=1.0', d, r)
    got = (int(d['time_nanos']) - int(whole['time_nanos']),
           int(d['duration_nanos']))
    print(f'window: starts {got[0]} ns after the run, lasts {got[1]} ns')
    if int(whole['duration_nanos']) < 10**9 or \
            got != (2 * 10**8, 8 * 10**8):
        raise prof.Fail(f'--from=0.2 --to=1.0: time_nanos {got[0]} ns after '
                        f'the run\'s, duration {got[1]} ns; want 2e8 and '
                        f'8e8 (the run lasted {whole["duration_nanos"]})')
    d, r = export(p.spool, ['--lines'])
    check(f'{label} --lines', d, r, lines=True)
    if not any(f['filename'] for f in d['functions']):
        raise prof.Fail('--lines: no function has a source file')


def test_recursive(target):
    p = prof.profile(target, [SCALE])
    d, r = export(p.spool)
    dec, _ = check('recursive', d, r)
    deepest = max((sum(1 for x in s['location_ids']
                       if dec.func_of(x)['name'] == 'recurse')
                   for s in d['samples']), default=0)
    print(f'recursive: recurse up to {deepest} times on a stack')
    if deepest < 10:
        raise prof.Fail(f'recurse at most {deepest} times on a stack, the '
                        'target recurses 50 deep')


def test_threads(target):
    p = prof.profile(target, [SCALE])
    d, r = export(p.spool)
    _, leaves = check('threads', d, r)
    home = {}
    for i in range(1, 5):
        name = f'thread_work_{i}'
        tids = [t for t, c in leaves.items() if c[name]]
        if len(tids) != 1:
            raise prof.Fail(f'{name} runs in threads {tids}, want one')
        home[name] = tids[0]
    if len(set(home.values())) != 4:
        raise prof.Fail(f'the four workers share threads: {home}')
    print(f'threads: one tid per worker: {home}')
    # With the workers hidden, their four threads' samples end on one path
    # (in start_thread): only the labels still tell the threads apart.
    d, r = export(p.spool, ['--hide=thread_work_*'])
    dec, leaves = check('threads --hide=thread_work_*', d, r)
    tids = collections.defaultdict(set)
    for s in d['samples']:
        tids[dec.path(s)].update(lb['num'] for lb in s['labels']
                                 if lb['key'] == 'tid')
    shared = max(len(t) for t in tids.values())
    print(f'threads --hide=thread_work_*: up to {shared} threads per path')
    if shared < 4:
        raise prof.Fail(f'--hide=thread_work_*: at most {shared} threads '
                        'end on one path, want the 4 workers')


def test_space(target):
    p = prof.profile(target, [SCALE], opts=['--space-interval=16K'])
    for view in ('inuse', 'alloc'):
        d, r = export(p.spool, ['--space', f'--{view}'])
        dec, _ = check(f'space_leak {view}', d, r)
        if view == 'inuse':
            total = sum(s['values'][1] for s in d['samples'])
            leak = decoded_funcs(dec)
            leaky = sum(v[2] for k, v in leak.items()
                        if k[0] == 'leaky_site')
            print(f'space_leak inuse: leaky_site {leaky} of {total} bytes')
            if leaky < 0.95 * total:
                raise prof.Fail(f'leaky_site holds {leaky} of {total} '
                                'bytes in use')


def test_escape():
    """A module path with bytes that are not UTF-8 (tests/golden's
    json-escape spool): the string table stays UTF-8, which strict
    protobuf decoders require (pprof-decode.js checks), with U+FFFD for
    those bytes as in the JSON report."""
    src = os.environ.get('PROFRUN_SOURCE_ROOT')
    if not src:
        raise prof.Fail('PROFRUN_SOURCE_ROOT is not set (run through meson '
                        'test)')
    spool = os.path.join(prof.tmpdir(), 'escape.spool')
    r = prof.run([os.path.join(prof.build_root(), 'tests', 'mkspool'),
                  os.path.join(src, 'tests', 'golden', 'json-escape.desc'),
                  spool, spool + '.sed'])
    if r.returncode != 0:
        raise prof.Fail(f'mkspool json-escape.desc: {r.stderr}')
    d, r = export(spool)
    check('json-escape', d, r, fixture=True)
    if not any('\ufffd' in m['filename'] for m in d['mappings']):
        raise prof.Fail(f'json-escape: no U+FFFD in {d["mappings"]}')


def test():
    if len(sys.argv) != 5:
        raise prof.Fail('usage: test_export_pprof.py WORK_SPLIT RECURSIVE '
                        'THREADS SPACE_LEAK')
    test_work_split(sys.argv[1])
    test_recursive(sys.argv[2])
    test_threads(sys.argv[3])
    test_space(sys.argv[4])
    test_escape()


prof.main(test)
