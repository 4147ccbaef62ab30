#!/usr/bin/env python3
"""Each analyzer file uses something of every analyzer header it includes.

An include of which nothing is used misleads a reader (export_mlmon.c
including report_json.h read as if the exporter wrote JSON) and ties
the file to a module it does not need, which tests/tools/check-layers.py then
holds against it. A header's names are what it declares at top level:
its macros, struct, union and enum tags, enum constants, typedefs,
functions and extern variables; a file uses the header when one of them
appears in its code (comments and strings left out). A file's own
header (foo.c, foo.h) and headers not under ANALYZER_DIR (the system's,
generated ones) are not checked.

KNOWN lists unused includes that are to stay for a while (none today);
one of them that is gone fails too, so that the list only shrinks.
Prints each unused include and exits 1 when there is
one not in KNOWN.

usage: check-includes.py ANALYZER_DIR
"""
import os
import re
import sys

KNOWN = set()

INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]+"([^"]+)"', re.M)


def code(text):
    """text without comments, the contents of string and character
    literals, and include lines."""
    text = re.sub(r'/\*.*?\*/', ' ', text, flags=re.S)
    text = re.sub(r'//[^\n]*', ' ', text)
    text = re.sub(r'"(?:\\.|[^"\\\n])*"', '""', text)
    text = re.sub(r"'(?:\\.|[^'\\\n])*'", "''", text)
    return INCLUDE.sub('', text)


def declared(text):
    """The names a header declares at top level (conventions: a
    definition's or declaration's name starts its line, or follows the
    return type on it; struct members and parameters are indented)."""
    t = code(text)
    names = set(re.findall(r'^[ \t]*#[ \t]*define[ \t]+(\w+)', t, re.M))
    names |= set(re.findall(r'\b(?:struct|union|enum)\s+(\w+)\s*[{;]', t))
    names |= set(re.findall(r'^(?:[A-Za-z_][^\n;{}()]*?[\s*])?(\w+)\s*\(',
                            t, re.M))
    names |= set(re.findall(r'^\}\s*(\w+)\s*;', t, re.M))
    names |= set(re.findall(r'^(?:typedef|extern)\b[^;()]*?\b(\w+)\s*'
                            r'(?:\[[^]]*\])?\s*;', t, re.M))
    for body in re.findall(r'\benum\b[^{;]*\{([^}]*)\}', t):
        names |= set(re.findall(r'(?:^|,)\s*([A-Za-z_]\w*)', body))
    guard = re.search(r'#[ \t]*ifndef[ \t]+(\w+)', t)
    if guard:
        names.discard(guard.group(1))
    return names


def main():
    root = sys.argv[1]
    headers, files = {}, []
    for d, _, fs in os.walk(root):
        for f in fs:
            path = os.path.join(d, f)
            if f.endswith('.h'):
                headers[f] = path
            if f.endswith(('.c', '.h')):
                files.append(os.path.relpath(path, root))
    names = {}
    unused, checked = set(), 0
    for rel in sorted(files):
        with open(os.path.join(root, rel), encoding='utf-8') as fh:
            text = fh.read()
        own = os.path.basename(rel)[:-2] + '.h'
        uses = set(re.findall(r'\w+', code(text)))
        for h in INCLUDE.findall(text):
            if h == own or h not in headers:
                continue
            if h not in names:
                with open(headers[h], encoding='utf-8') as fh:
                    names[h] = declared(fh.read())
            checked += 1
            if names[h] and not names[h] & uses:
                unused.add((rel, h))
    bad = [f'{root}/{f}: includes {h} and uses none of its names'
           for f, h in sorted(unused - KNOWN)]
    bad += [f'{root}/{f}: uses {h} now, or no longer includes it: drop '
            f'it from KNOWN in {sys.argv[0]}'
            for f, h in sorted(KNOWN - unused)]
    for b in bad:
        print(b)
    print(f'{checked} includes checked, {len(unused)} unused, '
          f'{len(unused - KNOWN)} of them not known')
    return 1 if bad or not checked else 0


sys.exit(main())
