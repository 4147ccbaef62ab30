#!/usr/bin/env python3
"""shared_work() in libworkshared.so does 60 % of the work, local_work() in
the executable 40 %: samples in a shared library are resolved against that
library and split accordingly.

usage: test_shlib.py SHLIB_MAIN
"""
import os
import sys

import prof


def test():
    target = sys.argv[1]
    p = prof.profile(target, [prof.SHARE_SCALE], opts=['-F', '1000'])
    r = p.report
    shared = prof.need_func(r, 'shared_work')
    local = prof.need_func(r, 'local_work')
    if not str(shared.get('module')).endswith('/libworkshared.so'):
        raise prof.Fail(f'shared_work in module {shared.get("module")}, '
                        'not libworkshared.so')
    if os.path.basename(str(local.get('module'))) != \
            os.path.basename(target):
        raise prof.Fail(f'local_work in module {local.get("module")}, '
                        f'not {target}')
    prof.check_shares(r, {'shared_work': 3, 'local_work': 2})


prof.main(test)
