#!/usr/bin/env python3
"""cxx_work's C++ functions are reported under their demangled names, the
two instantiations of a template and the two overloads of a member
function told apart, with the shares the target is built with (3:2:1:1);
--no-demangle shows the same functions under their mangled names.

usage: test_cxx.py CXX_WORK
"""
import sys

import prof

DEMANGLED = {
    'cxxwork::Crunch<int>::run(unsigned long)': 3,
    'cxxwork::Crunch<double>::run(unsigned long)': 2,
    'cxxwork::Engine::step(int)': 1,
    'cxxwork::Engine::step(double)': 1,
}
MANGLED = {
    '_ZN7cxxwork6CrunchIiE3runEm': 3,
    '_ZN7cxxwork6CrunchIdE3runEm': 2,
    '_ZN7cxxwork6Engine4stepEi': 1,
    '_ZN7cxxwork6Engine4stepEd': 1,
}


def test():
    if len(sys.argv) < 2:
        raise prof.Skip('no C++ compiler: cxx_work was not built')
    p = prof.profile(sys.argv[1], [prof.SHARE_SCALE], opts=['-F', '1000'])
    prof.check_shares(p.report, DEMANGLED, label='demangled')
    for name in MANGLED:
        if prof.func(p.report, name):
            raise prof.Fail(f'{name} not demangled')
    _, raw = prof.analyze(p.spool, args=('--no-demangle', '--json'))
    prof.check_shares(raw, MANGLED, label='--no-demangle')
    for name in DEMANGLED:
        if prof.func(raw, name):
            raise prof.Fail(f'{name} demangled despite --no-demangle')


prof.main(test)
