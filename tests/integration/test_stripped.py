#!/usr/bin/env python3
"""A binary stripped of every symbol (work_split_stripped: strip
--strip-all of work_split, as distributions ship theirs): its unnamed PCs
are grouped by the function that holds them, as .eh_frame_hdr gives its
start, and named work_split_stripped+0xSTART. By construction the starts
of the three leaves are those nm gives for leaf_50, leaf_30 and leaf_20
in the unstripped work_split, each leaf is one row, and the rows split
5:3:2. Without the grouping, each leaf's samples spread over one row per
distinct PC, none named by the leaf's start. The flat report's footer
counts the samples that ran in the binary without symbols and names it.
--disassemble of the leaf_50 row decodes the function the unwind tables
delimit, with hits adding up to the row's; --list falls back to it.

On a system with dpkg, the same footer for Debian's own sha256sum (no
symbols, as Debian ships it) names the package of its debug symbols,
the owner dpkg -S gives plus -dbgsym; skipped where there is no dpkg or
sha256sum is no package's. And for a library stripped to its dynamic
symbols, as Debian ships its libraries: Debian's python3 compressing with
zlib spends its time in libz.so.1's static functions (deflate's), which
.dynsym does not name; a second footer line counts those samples and
names the library with its -dbgsym package. The library is loaded
through a link of the test's own (LD_LIBRARY_PATH), a path no package
has: its package comes from the file the link resolves to, under the
name its package gave it (on a merged /usr, /lib/x for /usr/lib/x or the
other way round, as each package has it), as for the loader's
/lib/x86_64-linux-gnu/libsqlite3.so.0 of a package that installed
/usr/lib/x86_64-linux-gnu/libsqlite3.so.0.8.6. Skipped without dpkg,
/usr/bin/python3 or a libz.so.1 of a package with .dynsym only.

usage: test_stripped.py WORK_SPLIT WORK_SPLIT_STRIPPED
"""
import os
import shutil
import sys

import prof

LEAVES = {'leaf_50': 5, 'leaf_30': 3, 'leaf_20': 2}


def starts(target):
    """{ELF address: name} of the leaves in target's symbol table."""
    r = prof.run(['nm', target])
    out = {}
    for line in r.stdout.split('\n'):
        f = line.split()
        if len(f) == 3 and f[2] in LEAVES:
            out[int(f[0], 16)] = f[2]
    if len(out) != len(LEAVES):
        raise prof.Fail(f'nm {target}: leaves {out}, want {list(LEAVES)}')
    return out


def test():
    if len(sys.argv) != 3:
        raise prof.Fail('usage: test_stripped.py WORK_SPLIT '
                        'WORK_SPLIT_STRIPPED')
    plain, stripped = sys.argv[1:3]
    at = starts(plain)
    if prof.run(['nm', stripped]).stdout.strip():
        raise prof.Fail(f'{stripped} still has symbols')
    p = prof.profile(stripped, [prof.SHARE_SCALE])
    base = os.path.basename(stripped)
    rows = {}
    for f in prof.field(p.report, 'functions'):
        name = f['name']
        if not name.startswith(base + '+0x') or not f['self_samples']:
            continue
        start = int(name[len(base) + 1:], 16)
        rows[at.get(start, name)] = f['self_samples']
    print(f'{len(rows)} rows of {base} with self samples: '
          f'{sorted(rows.items(), key=lambda x: -x[1])[:6]}')
    missing = [n for n in LEAVES if n not in rows]
    if missing:
        raise prof.Fail(f'no row at the start of {missing}: the unnamed PCs '
                        'are not grouped by function')
    fake = {'functions': [{'name': n, 'self_samples': rows[n]}
                          for n in LEAVES]}
    prof.check_shares(fake, LEAVES, label='stripped')
    footer(p.spool, stripped, None)
    disassemble(p.spool, base, at, rows)
    skipped = []
    for part in (test_debian, test_debian_library):
        try:
            part()
        except prof.Skip as e:
            skipped.append(str(e))
    if skipped:
        raise prof.Skip('; '.join(skipped))


def disassemble(spool, base, at, rows):
    """--disassemble of leaf_50's row, which has no symbol: the unwind
    tables give its length, which is nm's size of leaf_50 in the
    unstripped build; the hits add up to the row's self samples. --list
    of it, without lines, gives the same instructions after a note."""
    start = [a for a, n in at.items() if n == 'leaf_50'][0]
    name = f'{base}+0x{start:x}'
    r, _ = prof.analyze(spool, args=(f'--disassemble={name}',))
    hits = [int(ln.split()[0]) for ln in r.stdout.split('\n')
            if ln[:1] == ' ' and '(' in ln.split(':')[0]]
    head = [ln for ln in r.stdout.split('\n') if ln.startswith(';;')][:2]
    print(f'--disassemble={name}: {sum(hits)} hits; {head}')
    if not head or not head[0].startswith(f';; disassembly of {name} ') or \
            sum(hits) != rows['leaf_50']:
        raise prof.Fail(f'--disassemble={name}: {sum(hits)} hits, want '
                        f'{rows["leaf_50"]}:\n{r.stdout[:800]}')
    r2, _ = prof.analyze(spool, args=(f'--list={name}',))
    if r2.stdout != r.stdout or 'shows the instructions instead' \
            not in r2.stderr:
        raise prof.Fail(f'--list={name} without lines: not the '
                        f'disassembly after a note:\n{r2.stderr}')


def footer(spool, path, pkg, kind='without symbols:'):
    """The flat report's line of kind about binaries without symbols names
    path (and pkg, when not None)."""
    r, _ = prof.analyze(spool, args=())
    lines = [l for l in r.stdout.split('\n') if kind in l]
    print('footer: ' + ' | '.join(lines))
    if len(lines) != 1 or path not in lines[0] or \
            (pkg and f'({pkg} would name them)' not in lines[0]):
        raise prof.Fail(f'want one footer line "{kind}" naming {path} and '
                        f'{pkg}, got {lines}')


def test_debian():
    tool = shutil.which('sha256sum')
    dpkg = shutil.which('dpkg')
    if not tool or not dpkg:
        raise prof.Skip('no dpkg or sha256sum: the Debian part is not run '
                        '(the stripped target passed)')
    tool = os.path.realpath(tool)
    r = prof.run([dpkg, '-S', tool])
    if r.returncode != 0:
        raise prof.Skip(f'{tool} is no package\'s (the stripped target '
                        'passed)')
    if prof.run(['nm', tool]).stdout.strip():
        raise prof.Skip(f'{tool} has symbols here (the stripped target '
                        'passed)')
    owner = r.stdout.split(':')[0].strip()
    data = os.path.join(prof.tmpdir(), 'data')
    with open(data, 'wb') as f:
        f.write(os.urandom(1 << 20) * 64)
    p = prof.profile(tool, [data])
    footer(p.spool, tool, owner + '-dbgsym')


def test_debian_library():
    python, dpkg = '/usr/bin/python3', shutil.which('dpkg')
    if not dpkg or not os.access(python, os.X_OK):
        raise prof.Skip('no dpkg or /usr/bin/python3: the library part is '
                        'not run')
    libz = [l.split()[2] for l in prof.run(['ldd', python]).stdout
            .split('\n') if l.strip().startswith('libz.so.1 =>')]
    if not libz:
        raise prof.Skip(f'{python} does not link libz.so.1')
    real = os.path.realpath(libz[0])
    # The package that installed a file of that name, wherever: /lib or
    # /usr/lib, as each package of a merged /usr has it.
    r = prof.run([dpkg, '-S', '*/' + os.path.basename(real)])
    if r.returncode != 0:
        raise prof.Skip(f'{real} is no package\'s')
    if prof.run(['nm', real]).stdout.strip() or \
            not prof.run(['nm', '-D', '--defined-only', real]).stdout.strip():
        raise prof.Skip(f'{real} is not stripped to .dynsym here')
    owner = r.stdout.split(':')[0].strip()
    code = ('import os, zlib\n'
            'd = os.urandom(1 << 16) * 64\n'
            'for _ in range(6):\n'
            '    zlib.compress(d, 9)\n')
    libdir = os.path.join(prof.tmpdir(), 'lib')
    os.makedirs(libdir, exist_ok=True)
    link = os.path.join(libdir, 'libz.so.1')
    if not os.path.lexists(link):
        os.symlink(real, link)
    p = prof.profile(python, ['-c', code], env={'LD_LIBRARY_PATH': libdir})
    footer(p.spool, link, owner + '-dbgsym', kind='unnamed functions of')


prof.main(test)
