#!/usr/bin/env python3
"""Exact call counts of a program compiled with -finstrument-functions
(tests/targets/callcount.c, whose counts are known by construction, one
of its functions called from more call sites than a thread's first
table and one record hold): the
flat report's calls column, the call graph's called/total, --json's calls
per function and per arc, --thread, the child of a fork, and the
uninstrumented function's empty column, and no counts while profiling
is paused. The target's output and exit status are those of a bare run.

A second target (callcount_signal.c) has an instrumented signal handler
that interrupts the counter: each of its calls is counted or counted as
missed (calls_missed), none lost.

usage: test_callcount.py CALLCOUNT CALLCOUNT_SIGNAL
"""
import glob
import os
import re
import sys

import prof

FIB_N = 32
LOOP_CALLS = 100000
LIB_CALLS = 3000
THREAD_CALLS = 7777
FORK_CALLS = 555
SITES = 1000


def fib_calls(n):
    """Calls of the naive fib(n): 2 F(n + 1) - 1."""
    a, b = 0, 1
    for _ in range(n + 1):
        a, b = b, a + b
    return 2 * a - 1


FIB_CALLS = fib_calls(FIB_N)

# (callee, its calls) over all threads of the parent process.
CALLS = {
    'main': 1, 'fib': FIB_CALLS, 'loop': 1, 'leaf': LOOP_CALLS,
    'through_lib': 1, 'lib_call': LIB_CALLS, 'lib_inner': LIB_CALLS,
    'counter': 1, 'thread_leaf': THREAD_CALLS,
    'many_sites': 1, 'site_leaf': SITES,
}
# (caller, callee): calls.
ARCS = {
    ('main', 'fib'): 1, ('fib', 'fib'): FIB_CALLS - 1,
    ('main', 'loop'): 1, ('loop', 'leaf'): LOOP_CALLS,
    ('main', 'through_lib'): 1, ('through_lib', 'lib_call'): LIB_CALLS,
    ('lib_call', 'lib_inner'): LIB_CALLS,
    ('counter', 'thread_leaf'): THREAD_CALLS,
    ('main', 'many_sites'): 1, ('many_sites', 'site_leaf'): SITES,
}


def json_calls(report):
    fs = prof.field(report, 'functions')
    calls = {f['name']: f['calls'] for f in fs if f['calls'] is not None}
    arcs = {(fs[a['caller']]['name'], fs[a['callee']]['name']): a['calls']
            for a in prof.field(report, 'call_arcs')}
    return calls, arcs


def expect_equal(what, got, want):
    if got != want:
        raise prof.Fail(f'{what}: got {got}, want {want}')


def check_json(report):
    calls, arcs = json_calls(report)
    for name, n in CALLS.items():
        expect_equal(f'--json calls of {name}', calls.get(name), n)
    for arc, n in ARCS.items():
        expect_equal(f'--json calls {arc[0]} -> {arc[1]}', arcs.get(arc), n)
    lib = prof.need_func(report, 'lib_call')
    if not str(lib.get('module')).endswith('/libcallcount.so'):
        raise prof.Fail(f'lib_call in {lib.get("module")}')
    spin = prof.need_func(report, 'spin')
    expect_equal('--json calls of spin (not instrumented)',
                 spin.get('calls'), None)
    expect_equal('calls_missed', prof.field(report, 'calls_missed'), 0)
    fs = report['functions']
    for e in prof.field(report, 'edges'):
        pair = (fs[e['caller']]['name'], fs[e['callee']]['name'])
        if pair in ARCS:
            expect_equal(f'--json edge {pair}', e.get('calls'), ARCS[pair])


def flat_row(text, name):
    """The flat report's columns of name: self secs onwards, split."""
    for line in text.splitlines():
        cols = line.split()
        if cols and cols[-1] == name:
            return cols
    raise prof.Fail(f'no row {name} in the flat report:\n{text}')


def check_flat(spool):
    r, _ = prof.analyze(spool, args=('--show-all',))
    text = r.stdout
    if not re.search(r'^Calls counted exactly \(-finstrument-functions\) '
                     r'in: .*callcount.*libcallcount\.so', text, re.M) and \
       not re.search(r'^Calls counted exactly \(-finstrument-functions\) '
                     r'in: .*libcallcount\.so.*callcount', text, re.M):
        raise prof.Fail(f'no header line naming the instrumented modules:'
                        f'\n{text}')
    # % Time, % Cum., self secs, total secs, calls, ms/call, ms/call,
    # name: 8 columns ("... fib" when the hook's time was folded in).
    for name in ('fib', 'leaf', 'thread_leaf'):
        cols = flat_row(text, name)
        if len(cols) < 7 or cols[4] != str(CALLS[name]):
            raise prof.Fail(f'flat row of {name}: {cols}, want calls '
                            f'{CALLS[name]}')
    cols = flat_row(text, 'spin')
    if len(cols) != 5:
        raise prof.Fail(f'flat row of spin (not instrumented) has a calls '
                        f'column: {cols}')


def check_graph(spool):
    r, _ = prof.analyze(spool, args=('--graph',))
    text = r.stdout
    m = re.search(r'^ .*\s(\S+)  ==> (?:\.\.\. )?fib$', text, re.M)
    if not m:
        raise prof.Fail(f'no entry for fib in the call graph:\n{text}')
    expect_equal('graph: calls of fib', m.group(1),
                 f'1+{FIB_CALLS - 1}')
    # fib's parents and children: main 1/total, itself (total-1)/total.
    block = text[:m.start()].rsplit('-----', 1)[-1] + m.group(0)
    lines = {ln.split()[-1]: [t for t in ln.split() if '/' in t][0]
             for ln in block.splitlines() if '/' in ln}
    expect_equal('graph: fib called by main', lines.get('main'),
                 f'1/{FIB_CALLS}')
    expect_equal('graph: fib called by fib', lines.get('fib'),
                 f'{FIB_CALLS - 1}/{FIB_CALLS}')


def check_thread(spool):
    _, report = prof.analyze(spool, args=('--json', '--thread', 'counter'))
    calls, arcs = json_calls(report)
    expect_equal('--thread counter: calls', calls,
                 {'counter': 1, 'thread_leaf': THREAD_CALLS})


def check_fork_child(spool):
    children = glob.glob(spool + '.*')
    if len(children) != 1:
        raise prof.Fail(f'want one child spool, found {children}')
    _, report = prof.analyze(children[0])
    calls, _ = json_calls(report)
    expect_equal('the child of fork: calls', calls,
                 {'loop': 1, 'leaf': FORK_CALLS})


def check_merged(spool):
    """--children merges the parent's and the child's spools: counts add."""
    _, report = prof.analyze(spool, args=('--json', '--children'))
    calls, _ = json_calls(report)
    expect_equal('merged: calls of leaf', calls.get('leaf'),
                 LOOP_CALLS + FORK_CALLS)
    expect_equal('merged: calls of loop', calls.get('loop'), 2)
    expect_equal('merged: calls of fib', calls.get('fib'), FIB_CALLS)


def check_paused(target):
    """Calls are counted only while profiling is on: a run that stays
    paused (--start-paused, and the program never resumes) counts none."""
    p = prof.profile(target, [], opts=['--start-paused'], expect_rc=3)
    counted = [f['name'] for f in prof.field(p.report, 'functions')
               if f.get('calls') is not None]
    if counted or 'call_arcs' in p.report:
        raise prof.Fail(f'paused run counted calls of {counted}')


def check_signal(target):
    """An instrumented handler interrupting the counter: counted + missed
    is exactly what the handler ran, and the loop's count is exact."""
    p = prof.profile(target)
    m = re.fullmatch(r'handler ran (\d+) times\n', p.stdout)
    if not m or int(m.group(1)) == 0:
        raise prof.Fail(f'callcount_signal printed {p.stdout!r}')
    hits = int(m.group(1))
    calls, _ = json_calls(p.report)
    expect_equal('calls of leaf around the signals', calls.get('leaf'),
                 20000000)
    missed = prof.field(p.report, 'calls_missed')
    got = (calls.get('on_alarm') or 0) + (calls.get('handler_leaf') or 0)
    expect_equal(f'handler calls counted + missed ({got} + {missed})',
                 got + missed, 2 * hits)


def test():
    target = sys.argv[1]
    bare = prof.run([target, 'fork'])
    if bare.returncode != 3 or bare.stdout != f'fib({FIB_N}) = ' \
            f'{fib_number(FIB_N)}\n':
        raise prof.Fail(f'bare run: exit {bare.returncode}, '
                        f'output {bare.stdout!r}')
    p = prof.profile(target, ['fork'], expect_rc=3)
    expect_equal('profiled output', p.stdout, bare.stdout)
    check_json(p.report)
    check_flat(p.spool)
    check_graph(p.spool)
    check_thread(p.spool)
    check_fork_child(p.spool)
    check_merged(p.spool)
    check_paused(target)
    check_signal(sys.argv[2])


def fib_number(n):
    a, b = 0, 1
    for _ in range(n):
        a, b = b, a + b
    return a


prof.main(test)
