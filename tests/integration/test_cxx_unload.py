#!/usr/bin/env python3
"""An allocator library that defines operator new itself, loaded with
RTLD_LOCAL, closed (it must unload: the profiler keeps no hold on it) and
replaced by another whose definitions sit elsewhere (fakenew_host.c).
The profiler's operator new and delete wrappers found the first one's
definitions among the loaded objects; after the dlclose they must find the
second's, not call where the first one was. Each library counts the calls
its own definitions get: 2 each (one new, one delete), bare and under
profrun.

usage: test_cxx_unload.py FAKENEW_HOST LIBFAKENEW1 LIBFAKENEW2
"""
import subprocess
import sys

import prof

WANT = 'first=2 unloaded=1 second=2'


def test():
    host, lib1, lib2 = sys.argv[1:4]
    bare = subprocess.run([host, lib1, lib2], capture_output=True,
                          text=True, timeout=30)
    if bare.returncode != 0 or bare.stdout.strip() != WANT:
        raise prof.Fail(f'bare run: exit {bare.returncode}, '
                        f'{bare.stdout!r} (want {WANT!r})')
    p = prof.profile(host, args=[lib1, lib2], expect_rc=0)
    if p.stdout.strip() != WANT:
        raise prof.Fail(f'under profrun: {p.stdout!r}, want {WANT!r}')
    print(f'bare and profiled: {WANT}')


prof.main(test)
