#!/usr/bin/env python3
"""A plugin that uses the profrun API links libprofrun.so; when a program
loads it with dlopen, libprofrun.so comes in late, and its initial-exec
TLS must fit in the little static TLS the C library keeps for such loads
(a stack-walk memo of 2 KiB in TLS once made the dlopen fail with "cannot
allocate memory in static TLS block"). Not profiled, the API returns
-ENOSYS (-38).

usage: test_api_dlopen.py API_DLOPEN LIBAPI_USER
"""
import subprocess
import sys

import prof


def test():
    host, lib = sys.argv[1:3]
    r = subprocess.run([host, lib], capture_output=True, text=True,
                       timeout=30)
    if r.returncode != 0 or r.stdout.strip() != 'flush=-38':
        raise prof.Fail(f'exit {r.returncode}: {r.stdout.strip()!r} '
                        f'{r.stderr.strip()!r} (want flush=-38)')
    print(r.stdout.strip())


prof.main(test)
