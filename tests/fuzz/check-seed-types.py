#!/usr/bin/env python3
"""Every record type common/spool.h defines is in some fuzzing seed
(tests/fuzz/corpus/spool, see TESTING.md), so that the harnesses start
from a valid record of each type: a type added to the format without a
seed that holds it is a defect. Prints the types no seed holds and exits
1 when there is one.

usage: check-seed-types.py SPOOL_H SEED_DIR
"""
import importlib.util
import os
import re
import sys


def enum_types(path):
    with open(path, encoding='utf-8') as f:
        text = f.read()
    body = re.search(r'enum spool_rec_type \{(.*?)\};', text, re.S).group(1)
    return {int(v): n for n, v in
            re.findall(r'SPOOL_REC_([A-Z_]+)\s*=\s*(\d+)', body)}


def main():
    spool_h, seeds = sys.argv[1], sys.argv[2]
    here = os.path.dirname(os.path.abspath(__file__))
    spec = importlib.util.spec_from_file_location(
        'spool_seed', os.path.join(here, 'spool-seed.py'))
    spool_seed = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(spool_seed)
    types = enum_types(spool_h)
    seen = {}
    for name in sorted(os.listdir(seeds)):
        with open(os.path.join(seeds, name), 'rb') as f:
            data = f.read()
        if len(data) < spool_seed.HEADER_LEN:
            continue  # (a seed cut inside its header)
        for rtype, _payload in spool_seed.records(data):
            seen.setdefault(rtype, name)
    missing = sorted(set(types) - set(seen))
    for t in sorted(types):
        print(f'{t:3} {types[t]:14} {seen.get(t, "MISSING")}')
    for t in missing:
        print(f'no seed in {seeds} holds a {types[t]} record (type {t}): '
              f'see tests/fuzz/make-seeds')
    return 1 if missing else 0


sys.exit(main())
