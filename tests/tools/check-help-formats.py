#!/usr/bin/env python3
"""--help's --format=FORMAT entry names every export format, wrapped to
80 columns under the option texts' indentation.

The formats are the ones profanalyze itself knows: its error line for an
unknown --format lists them (export_names(), from the one table in
analyzer/export/export.c), so a format added to that table and missing
from --help fails here. A name is looked for among the words of the
entry, not anywhere in --help, where --json, --format=dot and
--format=html would find three of them regardless.

usage: check-help-formats.py PROFANALYZE
"""
import re
import subprocess
import sys

INDENT = ' ' * 25
WIDTH = 80


def run(args):
    return subprocess.run(args, capture_output=True, text=True, timeout=20)


def known_formats(profanalyze):
    r = run([profanalyze, '--format=nonexistent'])
    m = re.search(r"--format: 'nonexistent' is none of (.+?) \(see ",
                  r.stderr)
    if r.returncode != 2 or not m:
        sys.exit(f'--format=nonexistent: exit {r.returncode}, no list of '
                 f'the formats in:\n{r.stderr}')
    names = m.group(1).split(', ')
    if len(names) < 2 or not all(re.fullmatch(r'[a-z][a-z-]*', n)
                                 for n in names):
        sys.exit(f'--format=nonexistent: not a list of names: {m.group(1)}')
    return names


def format_entry(help_text):
    """The lines of the --format=FORMAT entry of the reports: its first
    line and the lines under it indented as option texts continue."""
    lines = help_text.split('\n')
    first = [i for i, line in enumerate(lines)
             if line.startswith('      --format=FORMAT    export')]
    if len(first) != 1:
        sys.exit(f'--help: {len(first)} export --format=FORMAT entries, '
                 f'not 1:\n{help_text}')
    end = first[0] + 1
    while end < len(lines) and lines[end].startswith(INDENT):
        end += 1
    return lines[first[0]:end]


def main():
    profanalyze = sys.argv[1]
    names = known_formats(profanalyze)
    r = run([profanalyze, '--help'])
    if r.returncode != 0:
        sys.exit(f'--help: exit {r.returncode}\n{r.stderr}')
    entry = format_entry(r.stdout)
    words = set(re.split(r'[\s,:()]+', ' '.join(entry)))
    bad = [f'{n}: not in --help\'s --format=FORMAT entry'
           for n in names if n not in words]
    bad += [f'{len(line)} columns: {line}' for line in entry
            if len(line) > WIDTH]
    for b in bad:
        print(b)
    if bad:
        print('the entry:\n' + '\n'.join(entry))
        sys.exit(1)
    print(f'{len(names)} formats in --help: {", ".join(names)}')


main()
