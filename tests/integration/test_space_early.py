#!/usr/bin/env python3
"""Allocations made before the profiler is initialised: space_early needs
space_early_lib, whose constructor runs before libprofrun.so's (those of
a program's libraries run before those of preloaded ones) and calls
malloc, calloc, realloc (also realloc(p, 0)), posix_memalign and memalign,
and frees a block from __libc_malloc that no wrapper saw; main then checks
those blocks (contents, alignment, malloc_usable_size), reallocates and
frees them.

Under profrun, with every allocation sampled, with the default interval,
and with space or time sampling off, the program's output and exit status
must be those of a run without profrun, and --call-counts must be exactly
the calls space_early made, no more (the profiler's own calls, its dlsym
look-ups included, are not the program's) and no fewer. space_early
prints through write(2), so no stdio buffer adds a malloc of the C
library's.

usage: test_space_early.py SPACE_EARLY
"""
import sys

import prof
import space


def test():
    target = sys.argv[1]
    bare = prof.run([target])
    if bare.returncode != 0 or not bare.stdout.startswith('ok '):
        raise prof.Fail(f'space_early without profrun: exit '
                        f'{bare.returncode}\n{bare.stdout}{bare.stderr}')
    made = {f: n for f, n in space.truth(bare.stdout).items() if n}
    print(f'without profrun: {bare.stdout.strip()}')
    errors = []
    for opts in (['--space-interval=1'], [], ['--no-space'], ['--no-time']):
        label = ' '.join(opts) or 'default'
        p = prof.profile(target, opts=opts, expect_rc=None)
        if p.rc != bare.returncode or p.stdout != bare.stdout:
            raise prof.Fail(f'{label}: exit {p.rc}, output\n{p.stdout}'
                            f'differ from the run without profrun (exit '
                            f'{bare.returncode}, output\n{bare.stdout})'
                            f'stderr: {p.stderr}')
        total, _ = space.call_counts(p.spool)
        wrong = {f: (total.get(f, 0), made.get(f, 0))
                 for f in sorted(set(total) | set(made))
                 if total.get(f, 0) != made.get(f, 0)}
        if wrong:
            errors.append(f'{label}: ' + ', '.join(
                f'{f} {got} counted, {want} made'
                for f, (got, want) in wrong.items()))
            print(errors[-1])
        else:
            print(f'{label}: output, exit status and call counts as made')
    if errors:
        raise prof.Fail('call counts not the calls made: ' +
                        '; '.join(errors))


prof.main(test)
