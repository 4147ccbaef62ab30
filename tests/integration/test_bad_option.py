#!/usr/bin/env python3
"""Usage errors exit 2 with one line on stderr, and start nothing.

An option error names the option as the user wrote it (never a raw byte of
getopt's internal option code) and says what is wrong with it: unknown,
missing its argument, or given one it does not take.

usage: test_bad_option.py MARKER
"""
import os
import re
import sys

import prof

# (options, how the message must start after "profrun: "). A missing
# argument can only be the last argument (else the next one would be taken
# as the argument): those run with the option alone.
CASES = [
    (['--no-such-option'], '--no-such-option: unknown option'),
    (['--no-such-option=3'], '--no-such-option: unknown option'),
    (['-x'], '-x: unknown option'),
    (['-qx'], '-x: unknown option'),
    # getopt is in the middle of "-xq" while argv[optind - 1] is still the
    # argument before: the message must not name that one.
    (['--timer=perf', '-xq'], '-x: unknown option'),
    (['--quiet=yes'], '--quiet: takes no argument'),
    (['--s=1'], '--s: ambiguous option'),
    (['-F', '0'], '-F 0: expected a frequency'),
    (['-F', 'abc'], '-F abc: expected a frequency'),
    (['-F', '-5'], '-F -5: expected a frequency'),
    (['--timer=no-such-timer'], '--timer=no-such-timer: expected auto'),
    (['--clock=sundial'], '--clock=sundial: expected cpu or wall'),
    (['--clock=wall', '--no-time'], '--clock=wall samples time'),
]
MISSING = ['-o', '-F', '--output', '--frequency', '--timer', '--clock',
           '--signal', '--toggle-signal', '--max-samples', '--delay',
           '--duration', '--space-interval', '--out']

CONTROL = re.compile(r'[\x00-\x1f\x7f]')


def check(argv, what, want, started):
    r = prof.profrun(argv)
    print(f'{what}: exit {r.returncode}: {r.stderr.strip()!r}')
    if r.returncode != 2:
        raise prof.Fail(f'{what}: exit {r.returncode}, want 2')
    # Exactly one line of error, not a usage dump.
    line = prof.one_line(r.stderr, what)
    if CONTROL.search(line):
        raise prof.Fail(f'{what}: control byte in the message: {line!r}')
    if not line.startswith('profrun: ' + want):
        raise prof.Fail(f'{what}: message {line!r} does not start with '
                        f'{"profrun: " + want!r}')
    if os.path.exists(started):
        raise prof.Fail(f'{what}: the program was started')


def test():
    marker = sys.argv[1]
    d = prof.tmpdir()
    started = os.path.join(d, 'started')
    spool = os.path.join(d, 'x.spool')
    for opts, want in CASES:
        check(['-q', '-o', spool] + opts + ['--', marker, started],
              ' '.join(opts), want, started)
    for opt in MISSING:
        check(['-q', opt], opt, f'{opt}: missing argument', started)
    # No program at all: a usage error too (the message may be a usage).
    r = prof.profrun(['-q'])
    if r.returncode != 2 or not r.stderr.strip():
        raise prof.Fail(f'no program: exit {r.returncode}, want 2 and a '
                        'message')


prof.main(test)
