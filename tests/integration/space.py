"""Helpers of the space-profiling tests (test_space_*.py): read the space
profile of a spool, the bytes of call sites, the exact call counts, and
compare with the ground truth the targets print.

Tolerances: shares within 3 points and totals within 5 %, the figures the
profiler promises; each test is set up (interval, bytes) so that these
bounds are at least four expected errors wide, and checks that they are
(failing, never widening them), so that a pass means something and a fail
is not bad luck.

The expected error of a share p estimated from n samples is taken as the
binomial one, sqrt(p(1-p)/n). That is an upper bound: a site allocating B
bytes in blocks of s, sampled each with probability q = 1 - exp(-s/I) at
interval I and weighted s/q, has variance B s (1-q)/q <= B I (equal for
blocks far below I, the Poisson case), which makes the variance of a share
of T bytes at most p(1-p) I/T; and n, the samples the sites took, is
sum B q/s <= T/I.
"""

import math
import re

import prof

SHARE_POINTS = 0.03
TOTAL_FRACTION = 0.05


def report(spool, view='alloc', extra=()):
    """profanalyze --space --VIEW --json SPOOL, parsed."""
    _, r = prof.analyze(spool, args=('--space', f'--{view}', '--json') +
                        tuple(extra))
    if prof.field(r, 'kind') != 'space':
        raise prof.Fail(f'{spool}: kind {r["kind"]}, want space')
    return r


def site_bytes(r, name):
    """Self bytes of the function called name (0 when absent)."""
    f = prof.func(r, name)
    return f['self'] if f else 0


def truth(stdout):
    """NAME=NUMBER pairs the target printed."""
    return {k: int(v) for k, v in re.findall(r'([\w-]+)=(\d+)', stdout)}


def share_error(p, n):
    """The expected error (an upper bound, see above) of a share p
    estimated from n samples."""
    return math.sqrt(p * (1 - p) / max(n, 1))


def check_shares(r, expected, label):
    """The sites of expected ({name: true bytes}) split their profiled
    bytes as the truth says, each within 3 points, the 3 points being at
    least four expected errors."""
    got = {name: site_bytes(r, name) for name in expected}
    n = sum(prof.field(prof.need_func(r, name), 'self_samples')
            for name in expected)
    total_got, total_true = sum(got.values()), sum(expected.values())
    if not total_got:
        raise prof.Fail(f'{label}: no bytes in {", ".join(expected)}; '
                        f'heaviest:\n{prof.top(r, key="self")}')
    errors = []
    for name, b in expected.items():
        p, q = b / total_true, got[name] / total_got
        err = share_error(p, n)
        ok = abs(q - p) <= SHARE_POINTS
        print(f'{label}: {name}: {q:.4f} of {n} samples, want {p:.4f} '
              f'+- {SHARE_POINTS} (expected error {err:.4f}) '
              f'{"ok" if ok else "WRONG"}')
        if 4 * err > SHARE_POINTS:
            raise prof.Fail(f'{label}: {name}: expected error {err:.4f} of '
                            f'its share from {n} samples too large for a '
                            '3-point check (the test needs more samples)')
        if not ok:
            errors.append(f'{name} {q:.4f} not {p:.4f} +- {SHARE_POINTS}')
    if errors:
        raise prof.Fail(f'{label}: shares off: {"; ".join(errors)}\n'
                        f'heaviest:\n{prof.top(r, key="self")}')


def check_total(label, got, err, want):
    """An estimate (bytes, with its expected error) within 5 % of the
    truth, the 5 % being at least four expected errors."""
    rel = abs(got - want) / want
    print(f'{label}: {got:.0f} bytes, expected error {err:.0f} '
          f'({100 * err / want:.2f} %), want {want} (off by '
          f'{100 * rel:.2f} %)')
    if 4 * err > TOTAL_FRACTION * want:
        raise prof.Fail(f'{label}: expected error {err:.0f} too large for '
                        'a 5 % check (the test needs more samples)')
    if rel > TOTAL_FRACTION:
        raise prof.Fail(f'{label}: {got:.0f} bytes is {100 * rel:.2f} % '
                        f'off the true {want}')


def call_counts(spool):
    """profanalyze --call-counts: ({function: count} for the process,
    [{function: count}] for each thread listed)."""
    a, _ = prof.analyze(spool, args=('--call-counts',))
    total, threads, cur = {}, [], None
    for line in a.stdout.splitlines():
        if line.startswith('Thread '):
            cur = {}
            threads.append(cur)
            continue
        m = re.fullmatch(r'\s*([\d,]+)\t(.+)', line)
        if m:
            (total if cur is None else cur)[m.group(2)] = int(
                m.group(1).replace(',', ''))
    if not total:
        raise prof.Fail(f'{spool}: no call counts:\n{a.stdout}')
    return total, threads


def jemalloc_lib():
    """The soname of libjemalloc, when it is installed, for LD_PRELOAD."""
    import ctypes.util
    return ctypes.util.find_library('jemalloc')
