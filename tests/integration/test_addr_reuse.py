#!/usr/bin/env python3
"""addr_reuse loads libreuse_a.so, works in it and unloads it, then loads
libreuse_b.so at the address A had (both are linked to prefer it), three
times over. The two libraries
have the same layout, so only the module map in force at each sample's
time tells A's code from B's: reuse_a_work and reuse_b_work must each be
found in their own library, with the 2:3 split the target is built with,
and no frame in either library may stay unnamed.

usage: test_addr_reuse.py ADDR_REUSE LIBREUSE_A LIBREUSE_B
"""
import re
import sys

import prof

UNNAMED = re.compile(r'\+0x[0-9a-f]+>?$')


def test():
    target, lib_a, lib_b = sys.argv[1:4]
    # Scale 3.2: about 2.4 s of work, 2,300 samples at 1 kHz, for the
    # 5-point bound of check_shares (1,896 for a share of 0.4).
    p = prof.profile(target, args=[lib_a, lib_b, '3.2'], opts=['-F', '1000'],
                     expect_rc=None)
    if p.rc == 3:
        # Both libraries prefer one address (tests/targets/meson.build):
        # the case under test is built in, never left to chance.
        raise prof.Fail('the dynamic loader never put B where A was, '
                        'although both prefer one address: '
                        + p.stdout.strip().replace('\n', '; '))
    if p.rc != 0:
        raise prof.Fail(f'addr_reuse exited {p.rc}: {p.stderr}')
    print(p.stdout.strip())
    r = p.report
    a = prof.need_func(r, 'reuse_a_work')
    b = prof.need_func(r, 'reuse_b_work')
    for f, lib in ((a, 'libreuse_a.so'), (b, 'libreuse_b.so')):
        if not str(f.get('module')).endswith('/' + lib):
            raise prof.Fail(f'{f["name"]} in {f.get("module")}, not {lib}')
    for f in prof.field(r, 'functions'):
        if re.search(r'/libreuse_[ab]\.so$', str(f.get('module'))) and \
                UNNAMED.search(str(f['name'])) and f['self_samples'] > 2:
            raise prof.Fail(f'unnamed frame in a reused library: '
                            f'{f["name"]} ({f["self_samples"]} samples)')
    prof.check_shares(r, {'reuse_a_work': 2, 'reuse_b_work': 3},
                      label='reuse')


prof.main(test)
