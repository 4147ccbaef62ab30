#!/usr/bin/env python3
"""--format=speedscope, validated against speedscope's own schema
(speedscope/file-format-schema.json, from its npm package) by the small
JSON Schema validator below (the keywords that schema uses), and against
the --json report of the same spool:

- one "sampled" profile per sampled thread, named with its tid;
- each profile's weights add up to endValue - startValue; its non-empty
  stacks' weights to the thread's weight in the report (nanoseconds, or
  bytes of a space profile); the empty stacks (time the thread did not
  run) are between samples of a time profile only;
- every stack is the path of a node of the report's calling-context tree,
  root first, and, per path, the weights add up to the node's self;
- ground truth: in the threads target each worker's stacks end in its
  own thread_work_N.

usage: test_export_speedscope.py WORK_SPLIT RECURSIVE THREADS SPACE_LEAK
"""
import json
import os
import sys

import prof

SCHEMA = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                      'speedscope', 'file-format-schema.json')
TYPES = {'object': dict, 'array': list, 'string': str,
         'number': (int, float)}


def validate(doc, schema, root, where='$'):
    """Raises prof.Fail where doc breaks schema (draft-07: $ref, anyOf,
    const, enum, type, properties, required, items)."""
    if '$ref' in schema:
        name = schema['$ref'].split('/')[-1]
        validate(doc, root['definitions'][name], root, where)
    if 'anyOf' in schema:
        for alt in schema['anyOf']:
            try:
                validate(doc, alt, root, where)
                break
            except prof.Fail:
                pass
        else:
            raise prof.Fail(f'{where}: matches none of anyOf')
    t = schema.get('type')
    if t and (not isinstance(doc, TYPES[t]) or isinstance(doc, bool)):
        raise prof.Fail(f'{where}: not a {t}: {str(doc)[:80]}')
    if 'const' in schema and doc != schema['const']:
        raise prof.Fail(f'{where}: {doc!r} is not {schema["const"]!r}')
    if 'enum' in schema and doc not in schema['enum']:
        raise prof.Fail(f'{where}: {doc!r} is none of {schema["enum"]}')
    for k in schema.get('required', ()):
        if k not in doc:
            raise prof.Fail(f'{where}: no {k}')
    for k, sub in schema.get('properties', {}).items():
        if isinstance(doc, dict) and k in doc:
            validate(doc[k], sub, root, f'{where}.{k}')
    if 'items' in schema and isinstance(doc, list):
        for i, item in enumerate(doc):
            validate(item, schema['items'], root, f'{where}[{i}]')


def check_validator(schema):
    """The validator rejects what the schema forbids (it can fail)."""
    good = {'$schema': 'https://www.speedscope.app/file-format-schema.json',
            'shared': {'frames': [{'name': 'f'}]},
            'profiles': [{'type': 'sampled', 'name': 't', 'unit': 'bytes',
                          'startValue': 0, 'endValue': 1,
                          'samples': [[0]], 'weights': [1]}]}
    validate(good, schema, schema)
    bad = json.loads(json.dumps(good))
    bad['profiles'][0]['unit'] = 'ticks'
    try:
        validate(bad, schema, schema)
    except prof.Fail:
        return
    raise prof.Fail('the validator accepts an unknown unit')


def read(spool, report, label, extra=()):
    schema = json.load(open(SCHEMA))
    check_validator(schema)
    path = prof.export(spool, 'speedscope', args=extra)
    doc = json.load(open(path))
    validate(doc, schema, schema)
    space = report['kind'] == 'space'
    frames = [f['name'] for f in doc['shared']['frames']]
    to_name, _ = prof.label_resolver(report)
    paths = {p: i for i, p in enumerate(prof.tree_paths(report))}
    threads = {t['tid']: t for t in prof.field(report, 'thread_list')
               if t['samples']}
    if len(doc['profiles']) != len(threads):
        raise prof.Fail(f'{label}: {len(doc["profiles"])} profiles, '
                        f'{len(threads)} sampled threads')
    self_by_node = {}
    ends = {}
    for prof_ in doc['profiles']:
        tid = int(prof_['name'].split()[-1])
        if tid not in threads:
            raise prof.Fail(f'{label}: profile {prof_["name"]!r} is no '
                            'sampled thread')
        if prof_['unit'] != ('bytes' if space else 'nanoseconds'):
            raise prof.Fail(f'{label}: unit {prof_["unit"]}')
        w = prof_['weights']
        if len(w) != len(prof_['samples']) or \
                sum(w) != prof_['endValue'] - prof_['startValue']:
            raise prof.Fail(f'{label}: {prof_["name"]}: weights add up to '
                            f'{sum(w)}, the profile spans '
                            f'{prof_["endValue"] - prof_["startValue"]}')
        busy = 0
        for stack, weight in zip(prof_['samples'], w):
            if not stack:
                if space:
                    raise prof.Fail(f'{label}: an empty stack in a space '
                                    'profile')
                continue
            busy += weight
            p = tuple(to_name(frames[f]) for f in stack)
            if p not in paths:
                raise prof.Fail(f'{label}: stack {p} is no path of the '
                                'tree')
            self_by_node[paths[p]] = self_by_node.get(paths[p], 0) + weight
            ends.setdefault(tid, set()).add(p[-1])
        key = 'bytes' if space else 'seconds'
        want = threads[tid][key] * (1 if space else 1e9)
        if abs(busy - want) > 1e-6 * want + 1:
            raise prof.Fail(f'{label}: {prof_["name"]}: samples weigh '
                            f'{busy}, the report says {want}')
    tree = report['tree']
    for i, n in enumerate(tree):
        want = prof.field(n, 'self') * (1 if space else 1e9)
        got = self_by_node.get(i, 0)
        if n['parent'] is not None and abs(got - want) > 1e-6 * want + 1:
            raise prof.Fail(f'{label}: node {i}: stacks weigh {got}, its '
                            f'self is {want}')
    print(f'{label}: {len(doc["profiles"])} profiles, '
          f'{sum(len(p["samples"]) for p in doc["profiles"])} stacks, valid')
    return ends


def test():
    p = prof.profile(sys.argv[1], ['0.3'], opts=['-F', '1000'])
    read(p.spool, p.report, 'work_split')
    p = prof.profile(sys.argv[3], ['0.5'], opts=['-F', '1000'])
    ends = read(p.spool, p.report, 'threads')
    workers = [e for e in ends.values() if any(
        n.startswith('thread_work_') for n in e)]
    for e in workers:
        own = {n for n in e if n.startswith('thread_work_')}
        if len(own) != 1:
            raise prof.Fail(f'threads: one thread has the stacks of {own}')
    if len(workers) != 4:
        raise prof.Fail(f'threads: {len(workers)} workers, want 4')
    p = prof.profile(sys.argv[4], ['0.25'], opts=['--space-interval=16K'])
    r, rep = prof.analyze(p.spool, args=('--space', '--alloc', '--json'))
    read(p.spool, rep, 'space_leak', extra=('--space', '--alloc'))


prof.main(test)
