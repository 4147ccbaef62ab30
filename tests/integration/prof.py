"""Helpers for the integration tests: run a target program under profrun,
read what `profanalyze --json` makes of the spool, and compare the shares
of functions with ground truth known by construction.

Share checks use one fixed bound, as space.py does: a share must be within
SHARE_POINTS (5 points) of the truth, and the run must have enough samples
for that bound to be at least SIGMAS (4) expected errors plus SKEW (half a
point) wide; a run with fewer samples fails ("too few samples for a ±5-point
bound"), the bound is never widened. So a pass means a misattribution of 10
points did not happen (it would be 4 expected errors beyond the bound), and
a fail is not bad luck (4 expected errors: about 6 in 100,000 checks).

The expected error of a share p estimated from n samples is taken as the
binomial one, sqrt(p(1-p)/n): the error of n samples at random times. The
timers sample more regularly than that (a CPU-time loop split by
construction, sampled every period), so for one thread it is an upper
bound, several times too large in the tests' runs; with several threads
sharing the CPUs it is about right. SKEW is for what is
systematic (samples on a loop's call or return, timer start-up): measured
under half a point at 1 kHz.

Each test script calls prof.main(test_function). Exit codes follow meson:
0 pass, 1 fail, 77 skip.
"""

import ctypes
import errno
import json
import math
import os
import platform
import re
import resource
import shutil
import signal
import struct
import subprocess
import sys
import tempfile

SKIP = 77
TIMERS = ('perf', 'posix', 'itimer')

# Below this many samples a run barely sampled anything (for the checks
# that are not of shares: those have their own count, see check_share).
MIN_SAMPLES = 100

SHARE_POINTS = 0.05
SIGMAS = 4
SKEW = 0.005

# The scale (the targets' argv) at which the targets built for about 1.5 s
# of CPU at scale 1 (work_split, recursive, threads, shlib_main, cxx_work)
# take enough samples for check_shares: about 2,400 at 1 kHz (perf), where
# a share of 0.5 needs 1,975; and the same number with a timer that the
# kernel's tick limits to about 250 Hz (posix, itimer) at TICK_SCALE.
SHARE_SCALE = '1.7'
TICK_SCALE = '6.5'


def share_scale(timer=None):
    """The scale for a share check of a run with timer (None: auto)."""
    return TICK_SCALE if timer in ('posix', 'itimer') else SHARE_SCALE


def scale_for_cpu(target, cpu_s, runs=3):
    """The scale (argv[1]) at which target, a program of tests/targets
    that does a fixed number of iterations, takes about cpu_s seconds of
    CPU on this machine: from the fastest of `runs` bare runs at scale 1,
    never below 1; as the string to pass. A fixed scale gives a test's
    sample floor no margin on a faster machine (diff_bench: 0.5 s of CPU
    where it was written, 0.40 s on another)."""
    best = None
    for _ in range(runs):
        pid = os.spawnv(os.P_NOWAIT, target, [target, '1'])
        _, status, ru = os.wait4(pid, 0)
        if status != 0:
            raise Fail(f'{target} 1: wait status {status}')
        cpu = ru.ru_utime + ru.ru_stime
        best = cpu if best is None else min(best, cpu)
    scale = f'{max(1.0, cpu_s / max(best, 0.01)):.2f}'
    print(f'{target}: {best:.3f} s of CPU at scale 1; runs at scale {scale}')
    return scale


class Fail(Exception):
    """The behaviour under test is wrong."""


class Skip(Exception):
    """The machine cannot run this test (not a failure)."""


class TimerUnavailable(Exception):
    """profrun said the requested timer cannot be used here."""


def build_root():
    root = os.environ.get('PROFRUN_BUILD_ROOT')
    if not root:
        raise Fail('PROFRUN_BUILD_ROOT is not set (run through meson test)')
    return root


def profrun_path():
    return os.environ.get('PROFRUN') or os.path.join(build_root(), 'preload',
                                                     'profrun')


def profanalyze_path():
    return os.environ.get('PROFANALYZE') or os.path.join(
        build_root(), 'analyzer', 'profanalyze')


_tmpdirs = []


def tmpdir():
    """A fresh directory, removed when the test passes (kept on failure,
    for the spool)."""
    d = tempfile.mkdtemp(prefix='profrun-test-')
    _tmpdirs.append(d)
    return d


def _check_exists(path, what):
    if not os.access(path, os.X_OK):
        raise Fail(f'{what} not built: {path}')


def run(argv, *, env=None, timeout=120, cwd=None, preexec_fn=None):
    """Runs argv in its own process group; returns a CompletedProcess with
    text stdout and stderr. A run that outlives timeout is killed, group
    and all, and fails the test: under a profiler that is a deadlock."""
    full_env = dict(os.environ)
    if env:
        full_env.update(env)
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         env=full_env, cwd=cwd, start_new_session=True,
                         preexec_fn=preexec_fn)
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        out, err = p.communicate()
        raise Fail(f'timed out after {timeout} s (deadlock?): '
                   f'{" ".join(map(str, argv))}\nstderr: '
                   f'{err.decode(errors="replace")[-2000:]}')
    return subprocess.CompletedProcess(argv, p.returncode,
                                       out.decode(errors='replace'),
                                       err.decode(errors='replace'))


def profrun(args, **kw):
    """profrun ARGS..., unchecked."""
    _check_exists(profrun_path(), 'profrun')
    return run([profrun_path()] + [str(a) for a in args], **kw)


class Profile:
    """One target run under profrun and its analysis. user_seconds and
    system_seconds are the CPU time of the profrun run, target included
    (profrun's own share is a few milliseconds)."""

    def __init__(self, spool, run_result, report, analyze_result, usage):
        self.spool = spool
        self.rc = run_result.returncode
        self.stdout = run_result.stdout
        self.stderr = run_result.stderr
        self.report = report
        self.analyze_stderr = analyze_result.stderr
        self.user_seconds, self.system_seconds = usage


def analyze(spool, *, args=('--json',), expect_rc=0):
    """profanalyze ARGS SPOOL; returns (CompletedProcess, parsed JSON or
    None when args do not ask for JSON). The targets' ground truth is by
    function of the program, and every work function inlines work.h's
    work_spin, which profanalyze's default --inline shows as a frame of
    its own: unless args say --inline (test_inline.py), --no-inline is
    asked for."""
    _check_exists(profanalyze_path(), 'profanalyze')
    if '--inline' not in args and '--no-inline' not in args:
        args = ('--no-inline',) + tuple(args)
    r = run([profanalyze_path()] + list(args) + [str(spool)])
    if expect_rc is not None and r.returncode != expect_rc:
        raise Fail(f'profanalyze {" ".join(args)} {spool}: exit '
                   f'{r.returncode}, want {expect_rc}\n{r.stderr}')
    if '--json' not in args:
        return r, None
    try:
        return r, json.loads(r.stdout)
    except ValueError as e:
        raise Fail(f'profanalyze --json {spool}: not JSON ({e}):\n'
                   f'{r.stdout[:2000]}')


def export(spool, fmt, args=(), name=None):
    """profanalyze ARGS --format=FMT -O FILE SPOOL; returns FILE, in a
    fresh temporary directory (named name, default export.FMT)."""
    out = os.path.join(tmpdir(), name or f'export.{fmt}')
    analyze(spool, args=tuple(args) + (f'--format={fmt}', '-O', out))
    return out


def export_bytes(spool, fmt, args=()):
    """The bytes of export()."""
    with open(export(spool, fmt, args), 'rb') as f:
        return f.read()


def label_resolver(report, safe=lambda name: name):
    """(to_name, count): to_name maps a function label an export wrote
    (made safe by safe()) to the report's function name. Labels are names
    made unique the way profanalyze makes them: a name several functions
    share gets " (MODULE)" or, within one module, " (MODULE+0xADDR)"; the
    report has no addresses, so the latter are matched by their shape.
    count maps each name to the number of functions of that name."""
    funcs = field(report, 'functions')
    count = {}
    for f in funcs:
        count[f['name']] = count.get(f['name'], 0) + 1
    known = {}
    for f in funcs:
        name = f['name']
        if count[name] == 1:
            known[safe(name)] = name
        else:
            mod = os.path.basename(f['module']) if f['module'] else '?'
            known[safe(f'{name} ({mod})')] = name
    shared = {safe(n): n for n, c in count.items() if c > 1}

    def to_name(label):
        if label in known:
            return known[label]
        m = re.fullmatch(r'(.*) \([^()]*\+0x[0-9a-f]+\)', label)
        if m and m.group(1) in shared:
            return shared[m.group(1)]
        raise Fail(f'exported function {label!r} is not in the report')
    return to_name, count


def tree_paths(report):
    """For each node of the report's calling-context tree ("tree"), the
    names on its path from the root (the root's is ()), by node index. The
    tree lists parents before their children."""
    funcs = field(report, 'functions')
    paths = []
    for n in field(report, 'tree'):
        paths.append(() if n['parent'] is None else
                     paths[n['parent']] + (funcs[n['function']]['name'],))
    return paths


def check_rejects(parse, invalid, variants):
    """A strict parser must reject each (what, data) of variants with its
    exception class invalid."""
    for what, bad in variants:
        try:
            parse(bad)
        except invalid as e:
            print(f'parser rejects {what}: {e}')
            continue
        raise Fail(f'the parser accepts a file with {what}')


def _timer_of(opts):
    for o in opts:
        m = re.fullmatch(r'--timer=(\w+)', str(o))
        if m:
            return m.group(1)
    return None


def profile(target, args=(), opts=(), *, expect_rc=0, timeout=120, env=None,
            preexec_fn=None):
    """Runs `profrun -q -o TMP/x.spool OPTS -- TARGET ARGS` and analyzes
    the spool. Raises TimerUnavailable when OPTS ask for a timer profrun
    says it cannot use (exit 2 and a message naming the timer)."""
    spool = os.path.join(tmpdir(), 'x.spool')
    # The children's times grow by what profrun and the target used: both
    # are waited for (profrun waits for the target) before run() returns.
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    r = profrun(['-q', '-o', spool] + list(opts) + ['--', target] +
                list(args), timeout=timeout, env=env, preexec_fn=preexec_fn)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    usage = (after.ru_utime - before.ru_utime,
             after.ru_stime - before.ru_stime)
    timer = _timer_of(opts)
    if timer and r.returncode == 2 and timer in r.stderr:
        raise TimerUnavailable(r.stderr.strip())
    if expect_rc is not None and r.returncode != expect_rc:
        raise Fail(f'profrun {" ".join(map(str, opts))} {target}: exit '
                   f'{r.returncode}, want {expect_rc}\nstdout: '
                   f'{r.stdout[-2000:]}\nstderr: {r.stderr[-2000:]}')
    if not os.path.exists(spool):
        raise Fail(f'profrun did not create {spool}\n{r.stderr}')
    a, report = analyze(spool)
    return Profile(spool, r, report, a, usage)


def field(obj, key):
    """obj[key], failing with the key's name when the report lacks it."""
    try:
        return obj[key]
    except (KeyError, TypeError):
        raise Fail(f'report has no "{key}" in {str(obj)[:300]}')


def top(report, n=12, key='self_samples'):
    """The n heaviest functions, formatted for failure messages."""
    fns = sorted(field(report, 'functions'), key=lambda f: -f.get(key, 0))
    return '\n'.join(f'  {f.get(key)} {f.get("name")} '
                     f'({os.path.basename(str(f.get("module")))})'
                     for f in fns[:n])


def func(report, name, module=None):
    """The function entry named name (and in a module whose path ends with
    module, if given), or None."""
    for f in field(report, 'functions'):
        if field(f, 'name') != name:
            continue
        if module and not str(f.get('module') or '').endswith(module):
            continue
        return f
    return None


def need_func(report, name, module=None):
    f = func(report, name, module)
    if f is None:
        raise Fail(f'no function {name} in the report; heaviest:\n'
                   f'{top(report)}')
    return f


def share_error(p, n):
    """The expected error (binomial, an upper bound: see above) of a share
    p estimated from n samples."""
    return math.sqrt(p * (1 - p) / max(n, 1))


def samples_needed(p, bound=SHARE_POINTS):
    """The fewest samples for which a share p has a +-bound check."""
    return math.ceil(p * (1 - p) * (SIGMAS / (bound - SKEW)) ** 2)


def check_share(label, got, p, n, bound=SHARE_POINTS):
    """got, a share (fraction) estimated from n samples, is within bound of
    the true share p; fails first when n samples are too few for that
    bound (SIGMAS expected errors plus SKEW)."""
    err = share_error(p, n)
    ok = abs(got - p) <= bound
    print(f'{label}: {got:.4f} of {n:g} samples, want {p:.4f} '
          f'+- {bound:g} (expected error {err:.4f}) '
          f'{"ok" if ok else "WRONG"}')
    if SIGMAS * err + SKEW > bound:
        raise Fail(f'{label}: too few samples for a ±{100 * bound:g}-point '
                   f'bound: {n:g} samples, a share of {p:.3f} needs '
                   f'{samples_needed(p, bound)} (the test must run longer)')
    if not ok:
        raise Fail(f'{label}: {got:.4f} not {p:.4f} +- {bound:g} '
                   f'({n:g} samples)')


def check_shares(report, expected, *, key='self_samples', label=''):
    """Checks that the functions named in expected ({name: weight}) split
    their samples (key) among themselves in proportion to the weights,
    each within SHARE_POINTS (check_share). With key='self' the shares are
    of the time the samples stand for (the report's own figures), the
    expected error still from the sample count."""
    counts = {name: field(need_func(report, name), key) for name in expected}
    n = sum(counts.values())
    if key == 'self':
        n_samples = sum(field(need_func(report, name), 'self_samples')
                        for name in expected)
    else:
        n_samples = n
    weights = sum(expected.values())
    errors = []
    for name, w in expected.items():
        try:
            check_share(f'{label}: {name} ({key})',
                        counts[name] / n if n else 0.0, w / weights,
                        n_samples)
        except Fail as e:
            if 'too few samples' in str(e):
                raise Fail(f'{e}; heaviest:\n{top(report)}')
            errors.append(str(e))
    if errors:
        raise Fail(f'shares off: {"; ".join(errors)}\nheaviest:\n'
                   f'{top(report)}')


def profile_shares(target, expected, scale, *, args=(), after=(),
                   opts=(), key='self_samples', **kw):
    """profile(target, ARGS + [scale] + AFTER, OPTS) for a check_shares of
    expected ({name: weight}, key): when the run took fewer samples than
    that check needs (posix and itimer deliver at most one sample per
    kernel tick of a thread's CPU time, fewer on a loaded machine), runs
    once more, longer by what was missing. Which run is checked depends on
    its sample count alone, never on its shares, so the choice does not
    bias the check; a second run still short fails in check_shares."""
    total = sum(expected.values())
    need = max(samples_needed(w / total) for w in expected.values())
    count = 'self_samples' if key == 'self' else key

    def run_at(s):
        p = profile(target, list(args) + [s] + list(after), opts, **kw)
        n = sum((func(p.report, name) or {}).get(count, 0)
                for name in expected)
        return p, n

    p, n = run_at(scale)
    if n < need:
        longer = f'{float(scale) * 1.25 * need / max(n, need / 4):.2f}'
        print(f'{n} samples at scale {scale}, {need} needed: once more at '
              f'scale {longer}')
        p, n = run_at(longer)
    return p


def for_each_timer(fn, timers=TIMERS):
    """Calls fn(timer) for each timer profrun offers; skips the test only
    when it offers none."""
    ran = 0
    for t in timers:
        try:
            fn(t)
            ran += 1
        except TimerUnavailable as e:
            print(f'timer {t}: unavailable here: {e}')
    if not ran:
        raise Skip('no timer available: ' + ', '.join(timers))


# perf_event_open's number and the seccomp audit architecture, by machine.
_PERF_EVENT_OPEN = {'x86_64': (298, 0xC000003E), 'aarch64': (241, 0xC00000B7)}


def deny_perf_event_open(err=errno.EACCES):
    """A preexec_fn that makes perf_event_open fail with err in the child
    and everything it runs (a seccomp filter), as on a kernel whose
    perf_event_paranoid forbids it; or None on a machine this does not
    know the system call number of."""
    nr_arch = _PERF_EVENT_OPEN.get(platform.machine())
    if not nr_arch:
        return None
    nr, arch = nr_arch

    class Insn(ctypes.Structure):
        _fields_ = [('code', ctypes.c_ushort), ('jt', ctypes.c_ubyte),
                    ('jf', ctypes.c_ubyte), ('k', ctypes.c_uint32)]

    class Prog(ctypes.Structure):
        _fields_ = [('len', ctypes.c_ushort),
                    ('filter', ctypes.POINTER(Insn))]

    ld_abs, jeq, ret = 0x20, 0x15, 0x06
    insns = (Insn * 6)(
        Insn(ld_abs, 0, 0, 4),        # seccomp_data.arch
        Insn(jeq, 0, 3, arch),        # another ABI: allow
        Insn(ld_abs, 0, 0, 0),        # seccomp_data.nr
        Insn(jeq, 0, 1, nr),
        Insn(ret, 0, 0, 0x00050000 | err),  # SECCOMP_RET_ERRNO
        Insn(ret, 0, 0, 0x7fff0000))        # SECCOMP_RET_ALLOW
    prog = Prog(len(insns), insns)
    libc = ctypes.CDLL(None, use_errno=True)

    def install():
        # PR_SET_NO_NEW_PRIVS, then PR_SET_SECCOMP SECCOMP_MODE_FILTER.
        if libc.prctl(38, 1, 0, 0, 0) != 0 or \
                libc.prctl(22, 2, ctypes.byref(prog), 0, 0) != 0:
            os.write(2, b'deny_perf_event_open: prctl failed\n')
            os._exit(99)
    return install


def spool_records(path, strict=False):
    """(type, payload) of every whole record of a spool, read here from
    profspool(5) alone, independently of the C reader: format 1
    (contiguous records) and format 2 (chunks, a zero type marking the
    unused rest of a chunk). strict: fail on a record cut short or crossing
    a chunk, where a lenient read stops."""
    with open(path, 'rb') as f:
        data = f.read()
    if data[:8] != b'PRFSPOOL' or len(data) < 16:
        raise Fail(f'{path}: not a spool')
    version, _minor, chunk = struct.unpack_from('<HHI', data, 8)
    if version not in (1, 2) or (version == 2 and chunk % 4096):
        raise Fail(f'{path}: version {version}, chunk size {chunk}')
    chunk = chunk if version == 2 else 0
    pos = 16
    while pos < len(data):
        left = len(data) - pos
        room = chunk - pos % chunk if chunk else left
        rtype = struct.unpack_from('<I', data, pos)[0] if left >= 4 else 0
        if chunk and (rtype == 0 or room < 8):
            pos += min(room, left)
            continue
        length = (struct.unpack_from('<I', data, pos + 4)[0]
                  if left >= 8 else left)
        if 8 + length > min(room, left):
            if strict:
                raise Fail(f'{path}: record of type {rtype} at offset '
                           f'{pos} ({length} bytes) is cut short or '
                           'crosses a chunk')
            return
        yield rtype, data[pos + 8:pos + 8 + length]
        pos += 8 + length


def _varint(data, pos):
    """A LEB128 varint at data[pos]: (value, next pos). Fails when the
    data ends inside it (a writer never leaves an entry cut short)."""
    value, shift = 0, 0
    while True:
        if pos >= len(data):
            raise Fail(f'varint cut short at payload offset {pos}')
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7f) << shift
        shift += 7
        if not byte & 0x80:
            return value, pos


def _unzigzag(z):
    return (z >> 1) ^ -(z & 1)


def space_events(path, strict=False):
    """The sampled allocations and releases of a spool, whether written as
    ALLOC and FREE records or as ALLOCS entries (format 2.5), read here
    from profspool(5) alone: ('alloc', tid, size, address) and ('free',
    tid, address) tuples in file order."""
    mask = (1 << 64) - 1
    for rtype, payload in spool_records(path, strict):
        if rtype == 8:  # ALLOC: time, tid, flags, size, address, ...
            tid, = struct.unpack_from('<I', payload, 8)
            size, address = struct.unpack_from('<QQ', payload, 16)
            yield ('alloc', tid, size, address)
        elif rtype == 9:  # FREE: time, tid, address
            tid, address = struct.unpack_from('<IQ', payload, 8)
            yield ('free', tid, address)
        elif rtype == 14:  # ALLOCS: tid, stream, time, address, weight
            tid, _stream, _t, address, _w = struct.unpack_from('<IIQQQ',
                                                               payload)
            pos = 32
            while pos < len(payload) and payload[pos]:
                key, pos = _varint(payload, pos)
                _dt, pos = _varint(payload, pos)
                da, pos = _varint(payload, pos)
                address = (address + _unzigzag(da)) & mask
                if key == 2:
                    yield ('free', tid, address)
                    continue
                if not key & 1:
                    raise Fail(f'{path}: ALLOCS entry with key {key}')
                size, pos = _varint(payload, pos)
                for _field in ('weight', 'fn', 'flags'):
                    _v, pos = _varint(payload, pos)
                if key & 2:  # it defines its stack: flags, depth, PCs
                    _flags, pos = _varint(payload, pos)
                    depth, pos = _varint(payload, pos)
                    for _i in range(depth):
                        _v, pos = _varint(payload, pos)
                yield ('alloc', tid, size, address)


def limiter(limits):
    """A preexec_fn that sets each soft limit of limits ({RLIMIT_X: soft},
    the hard limits kept, as a shell's `ulimit -S` would), or None."""
    if not limits:
        return None

    def apply():
        for res, soft in limits.items():
            _, hard = resource.getrlimit(res)
            resource.setrlimit(res, (soft, hard))
    return apply


def without_profiler_lines(text):
    """text less the library's own lines ("profrun: ..."), which are how
    it says that it stopped profiling."""
    return ''.join(line for line in text.splitlines(keepends=True)
                   if not line.startswith('profrun: '))


def check_as_bare(what, bare, profiled, stderr=True):
    """Fails unless the profiled run (a CompletedProcess of profrun) ended
    as the bare one did: the same exit status, the same standard output
    and, when stderr, the same standard error less the library's lines.
    A bare run killed by signal N (returncode -N) is matched by profrun's
    128+N."""
    want = bare.returncode if bare.returncode >= 0 else 128 - bare.returncode
    if profiled.returncode != want:
        raise Fail(f'{what}: exit {profiled.returncode}, bare '
                   f'{bare.returncode}\nstderr: {profiled.stderr[-2000:]}')
    if profiled.stdout != bare.stdout:
        raise Fail(f'{what}: output differs from bare:\nbare: '
                   f'{bare.stdout[-1000:]!r}\nprofiled: '
                   f'{profiled.stdout[-1000:]!r}')
    if stderr and without_profiler_lines(profiled.stderr) != bare.stderr:
        raise Fail(f'{what}: standard error differs from bare:\nbare: '
                   f'{bare.stderr[-1000:]!r}\nprofiled: '
                   f'{profiled.stderr[-1000:]!r}')


def one_line(text, what):
    """Checks that text is exactly one non-empty line; returns it."""
    lines = text.strip('\n').split('\n')
    if len(lines) != 1 or not lines[0].strip():
        raise Fail(f'{what}: want one line, got {len(lines)}:\n{text}')
    return lines[0]


def main(test):
    """Runs test() and maps its outcome to meson's exit codes."""
    try:
        test()
    except Skip as e:
        print(f'SKIP: {e}')
        sys.exit(SKIP)
    except Fail as e:
        print(f'FAIL: {e}')
        if _tmpdirs:
            print('kept for inspection: ' + ' '.join(_tmpdirs))
        sys.exit(1)
    for d in _tmpdirs:
        shutil.rmtree(d, ignore_errors=True)
    print('PASS')
