"""A strict reader of MLton's mlmon.out files, written from the
specification (MLton's MLmon page; shared/reference/mlton-mlmon-format.txt)
for the tests of profanalyze --format=mlmon.

The file is a sequence of lines, each ended by a newline, in this order
and nothing else:
  MLton prof
  alloc | count | time                  (the kind of profile)
  current | stack                       (the style)
  MAGIC                                 (the executable's magic number)
  TICKS GC_TICKS                        (non-GC ticks, space, GC ticks)
  N                                     (split functions)
  N lines of counts
  M                                     (master functions)
  M lines of counts
A line of counts is CURRENT in the current style, CURRENT STACK STACK_GC
in the stack style, single spaces between them. Numbers are unsigned
decimal integers; the magic is written as MLton's runtime writes it
("0x%08x", 32 bits).

What the definitions imply, also enforced: ticks while a function was
current are ticks while it was on the stack (CURRENT <= STACK), ticks on
the stack during a GC are ticks on the stack (STACK_GC <= STACK), no
function was on the stack for more ticks than there were, the currents of
the split functions add up to at most all ticks, and each master
function's counts are those of its split functions, so the masters'
currents add up to the splits' currents.

parse(bytes) returns an Mlmon or raises Invalid naming the line.
"""

import re

KINDS = ('alloc', 'count', 'time')
STYLES = ('current', 'stack')
_UINT = r'([0-9]+)'


class Invalid(Exception):
    """The file is not a valid mlmon.out file."""


class Counts:
    def __init__(self, current, stack=0, stack_gc=0):
        self.current = current
        self.stack = stack
        self.stack_gc = stack_gc

    def tuple(self):
        return (self.current, self.stack, self.stack_gc)

    def __repr__(self):
        return f'Counts{self.tuple()}'


class Mlmon:
    def __init__(self, kind, style, magic, total, total_gc, splits,
                 masters):
        self.kind = kind
        self.style = style
        self.magic = magic        # an int
        self.total = total        # non-GC ticks
        self.total_gc = total_gc
        self.splits = splits      # [Counts]
        self.masters = masters    # [Counts]


class _Reader:
    def __init__(self, data):
        try:
            text = data.decode('ascii')
        except UnicodeDecodeError as e:
            raise Invalid(f'not ASCII text: {e}')
        if not text.endswith('\n'):
            raise Invalid('the last line has no newline')
        self.lines = text[:-1].split('\n')
        self.i = 0

    def next(self, what):
        if self.i == len(self.lines):
            raise Invalid(f'ends before {what} (line {self.i + 1})')
        self.i += 1
        return self.lines[self.i - 1]

    def match(self, pattern, what):
        line = self.next(what)
        m = re.fullmatch(pattern, line)
        if not m:
            raise Invalid(f'line {self.i}: not {what}: {line!r}')
        return m

    def counts(self, style, what):
        n = int(self.match(_UINT, f'the number of {what} functions')[1])
        out = []
        for k in range(n):
            if style == 'current':
                m = self.match(_UINT, f'a {what} count')
                out.append(Counts(int(m[1])))
            else:
                m = self.match(f'{_UINT} {_UINT} {_UINT}',
                               f'three {what} counts')
                out.append(Counts(int(m[1]), int(m[2]), int(m[3])))
        return out


def _check(p):
    ticks = p.total + p.total_gc
    for what, lst in (('split', p.splits), ('master', p.masters)):
        for k, c in enumerate(lst):
            if p.style == 'stack' and not (c.current <= c.stack and
                                           c.stack_gc <= c.stack):
                raise Invalid(f'{what} function {k}: counts {c.tuple()}: '
                              'current or GC ticks beyond the stack ticks')
            if max(c.current, c.stack) > ticks:
                raise Invalid(f'{what} function {k}: counts {c.tuple()} '
                              f'beyond the {ticks} ticks in all')
    current = sum(c.current for c in p.splits)
    if current > ticks:
        raise Invalid(f'the split functions were current {current} ticks, '
                      f'more than the {ticks} in all')
    master = sum(c.current for c in p.masters)
    if master != current:
        raise Invalid(f'the master functions were current {master} ticks, '
                      f'their split functions {current}')


def parse(data):
    """Reads a whole mlmon.out (bytes); returns an Mlmon."""
    r = _Reader(data)
    if r.next('the header') != 'MLton prof':
        raise Invalid(f'line 1 is not "MLton prof": {r.lines[0]!r}')
    kind = r.next('the kind')
    if kind not in KINDS:
        raise Invalid(f'line 2: kind {kind!r} is none of {KINDS}')
    style = r.next('the style')
    if style not in STYLES:
        raise Invalid(f'line 3: style {style!r} is none of {STYLES}')
    magic = int(r.match(r'0x([0-9a-f]{8})', 'a magic number')[1], 16)
    m = r.match(f'{_UINT} {_UINT}', 'the ticks and GC ticks')
    total, total_gc = int(m[1]), int(m[2])
    splits = r.counts(style, 'split')
    masters = r.counts(style, 'master')
    if r.i != len(r.lines):
        raise Invalid(f'line {r.i + 1}: more after the master functions: '
                      f'{r.lines[r.i]!r}')
    p = Mlmon(kind, style, magic, total, total_gc, splits, masters)
    _check(p)
    return p
