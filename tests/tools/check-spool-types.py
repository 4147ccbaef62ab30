#!/usr/bin/env python3
"""profspool(5) lists the record types common/spool.h defines: its
sentence 'Types 1 to N are defined.' gives the highest value of enum
spool_rec_type, and its RECORDS section has one '.SS NAME (type N)'
heading per enumerator, with the same name and number, in order. The
page is the format's authoritative description, so a type added to the
header alone is a defect. Prints each difference and exits 1 when there
is one.

usage: check-spool-types.py SPOOL_H PROFSPOOL_5
"""
import re
import sys


def enum_types(path):
    with open(path, encoding='utf-8') as f:
        text = f.read()
    m = re.search(r'enum spool_rec_type \{(.*?)\};', text, re.S)
    if not m:
        return []
    return [(name, int(value)) for name, value in
            re.findall(r'SPOOL_REC_(\w+)\s*=\s*(\d+)', m.group(1))]


def main():
    types = enum_types(sys.argv[1])
    with open(sys.argv[2], encoding='utf-8') as f:
        page = f.read()
    bad = []
    if not types:
        bad.append(f'{sys.argv[1]}: no enum spool_rec_type')
    headings = [(name, int(value)) for name, value in
                re.findall(r'^\.SS (\w+) \(type (\d+)\)$', page, re.M)]
    if headings != types:
        bad.append(f'headings {headings}\n  enum     {types}')
    m = re.search(r'^Types 1 to (\d+) are defined\.$', page, re.M)
    top = max((v for _, v in types), default=0)
    if [v for _, v in types] != list(range(1, top + 1)):
        bad.append(f'the enum is not 1 to {top} in order: {types}')
    if not m:
        bad.append("no sentence 'Types 1 to N are defined.'")
    elif int(m.group(1)) != top:
        bad.append(f"'Types 1 to {m.group(1)} are defined.', the enum "
                   f'goes to {top}')
    for b in bad:
        print(b)
    print(f'{len(types)} record types checked, {len(bad)} differences')
    return 1 if bad else 0


sys.exit(main())
