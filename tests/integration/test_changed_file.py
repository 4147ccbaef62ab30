#!/usr/bin/env python3
"""A library that changes or disappears between the run and the
analysis. shlib_main runs with a copy of libworkshared.so; then
  - as it was: shared_work is named;
  - replaced by another library: its build-id differs, one warning, and
    its frames show as libworkshared.so+0xOFFSET;
  - deleted: one warning, and its frames show as
    <unloaded libworkshared.so+0xOFFSET>.
In both damaged cases the report goes on and counts the unnamed samples.

usage: test_changed_file.py SHLIB_MAIN LIBWORKSHARED OTHER_LIB
"""
import os
import re
import shutil
import sys

import prof


def unnamed_shared(report, pattern):
    return [f for f in prof.field(report, 'functions')
            if str(f.get('module')).endswith('/libworkshared.so') and
            re.fullmatch(pattern, f['name'])]


def test():
    target, lib, other = sys.argv[1:4]
    d = prof.tmpdir()
    copy = os.path.join(d, 'libworkshared.so')
    shutil.copy(lib, copy)
    p = prof.profile(target, args=['0.5'], opts=['-F', '1000'],
                     env={'LD_LIBRARY_PATH': d})
    shared = prof.need_func(p.report, 'shared_work')
    if shared.get('module') != copy:
        raise prof.Fail(f'shared_work in {shared.get("module")}, not the '
                        f'copy {copy}')

    shutil.copy(other, copy)
    a, r = prof.analyze(p.spool)
    want = (f'profanalyze: warning: {copy}: build-id differs from the '
            'profiled file (changed since); its frames show as '
            'libworkshared.so+0xOFFSET')
    if a.stderr.count(want) != 1:
        raise prof.Fail(f'want one "{want}" in:\n{a.stderr}')
    if prof.func(r, 'shared_work') or \
            not unnamed_shared(r, r'libworkshared\.so\+0x[0-9a-f]+'):
        raise prof.Fail('changed file still trusted:\n' + prof.top(r))
    if not r.get('unresolved_samples'):
        raise prof.Fail('no unresolved samples counted')

    os.unlink(copy)
    a, r = prof.analyze(p.spool)
    want = (f'profanalyze: warning: {copy}: No such file or directory; its '
            'frames show as <unloaded libworkshared.so+0xOFFSET>')
    if a.stderr.count(want) != 1:
        raise prof.Fail(f'want one "{want}" in:\n{a.stderr}')
    gone = unnamed_shared(r, r'<unloaded libworkshared\.so\+0x[0-9a-f]+>')
    if not gone:
        raise prof.Fail('no <unloaded ...> frame:\n' + prof.top(r))
    flat, _ = prof.analyze(p.spool, args=())
    if not re.search(r'^\d+ of \d+ samples .* have frames in code '
                     r'without a symbol', flat.stdout, re.M):
        raise prof.Fail('no line counting the unnamed samples:\n'
                        + flat.stdout)


prof.main(test)
