#!/usr/bin/env python3
"""The analyzer's stages keep their order: a file under analyzer/STAGE/
includes only headers of its own stage and of the stages below it
(util < symbolize < profile < report < export < cli; analyzer/meson.build
says what each holds). Prints each include that goes upward and exits 1 when
there is one; a header found in no stage or in two is an error too.

usage: check-layers.py ANALYZER_DIR
"""
import os
import re
import sys

ORDER = ['util', 'symbolize', 'profile', 'report', 'export', 'cli']


def main():
    root = sys.argv[1]
    where, bad = {}, []
    for stage in ORDER:
        d = os.path.join(root, stage)
        if not os.path.isdir(d):
            bad.append(f'{d}: no such stage folder')
            continue
        for f in os.listdir(d):
            if f.endswith('.h'):
                if f in where:
                    bad.append(f'{f}: in {where[f]}/ and {stage}/')
                where[f] = stage
    loose = [f for f in os.listdir(root)
             if f.endswith(('.c', '.h')) and f != 'main.c']
    bad += [f'{root}/{f}: outside the stage folders' for f in loose]
    checked = 0
    for stage in ORDER:
        d = os.path.join(root, stage)
        for f in sorted(os.listdir(d)) if os.path.isdir(d) else []:
            if not f.endswith(('.c', '.h')):
                continue
            with open(os.path.join(d, f), encoding='utf-8') as fh:
                for n, line in enumerate(fh, 1):
                    m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
                    if not m:
                        continue
                    checked += 1
                    to = where.get(m.group(1))
                    if to and ORDER.index(to) > ORDER.index(stage):
                        bad.append(f'{stage}/{f}:{n}: includes {to}/'
                                   f'{m.group(1)}, a later stage')
    for b in bad:
        print(b)
    print(f'{checked} includes checked, {len(bad)} out of order')
    return 1 if bad or not checked else 0


sys.exit(main())
