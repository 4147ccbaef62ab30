"""What the benchmark drivers (scripts/bench.d/bench.py,
scripts/bench-space.d/bench_space.py, scripts/bench-shape.d/bench_shape.py)
share: reading a small file, a command's output, killing a run's process
group, picking the CPU that is fast now, and (for the drivers without a
shell wrapper: bench-spool-size, bench-annotate) setting up their build.
Python 3 standard library only; each driver puts scripts/ on sys.path to
import it."""

import os
import signal
import subprocess
import sys
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def prepare_build(name, build, targets, bench=False):
    """Installs what is missing (scripts/setup-deps, then --bench when
    bench; their output on stderr, so that a driver's table on stdout
    stays clean), configures build when it is not yet and compiles
    targets (meson's "path/name:type") in it. Exits with one line naming
    name and build when that fails."""
    for args in ([], ["--bench"]) if bench else ([],):
        if subprocess.run([os.path.join(ROOT, "scripts", "setup-deps")]
                          + args, stdout=sys.stderr).returncode:
            sys.exit("%s: scripts/setup-deps %s failed"
                     % (name, " ".join(args)))
    if not os.path.exists(os.path.join(build, "build.ninja")):
        setup = ["meson", "setup", build, ROOT]
        if os.path.isdir(os.path.join(build, "meson-private")):
            setup.insert(2, "--reconfigure")
        if subprocess.run(setup, stdout=sys.stderr).returncode:
            sys.exit("%s: meson setup of %s failed" % (name, build))
    if subprocess.run(["meson", "compile", "-C", build] + targets,
                      stdout=sys.stderr).returncode:
        sys.exit("%s: the build in %s failed" % (name, build))


def read_first(path, default='?'):
    """The contents of a small file, stripped, or default."""
    try:
        with open(path) as f:
            return f.read().strip()
    except OSError:
        return default


def quiet_output(argv):
    """argv's standard output, stripped, or '?' when it cannot run."""
    try:
        return subprocess.run(argv, stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, text=True,
                              timeout=30).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return '?'


def kill_group(pgid):
    try:
        os.killpg(pgid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def fastest_cpu():
    """The CPU this process may use that runs a short loop fastest now
    (about 10 ms a CPU): on the 2-vCPU virtual machines these benchmarks
    run on, one vCPU at times runs at half the speed of the other."""
    allowed = sorted(os.sched_getaffinity(0))
    best, best_t = allowed[0], None
    for cpu in allowed:
        os.sched_setaffinity(0, {cpu})
        t0 = time.thread_time()
        x = 0
        for i in range(200000):
            x += i
        t = time.thread_time() - t0
        if best_t is None or t < best_t:
            best, best_t = cpu, t
    os.sched_setaffinity(0, set(allowed))
    return best


def spawn_measured(argv, env, errfile, timeout, cpu=-1):
    """Runs argv (argv[0] a path) with stdin and stdout on /dev/null and
    stderr into errfile, in its own process group, pinned to cpu (none if
    negative), killed after timeout seconds. Returns (wall seconds, the
    rusage of everything it reaped, exit status, stderr)."""
    actions = [
        (os.POSIX_SPAWN_OPEN, 0, '/dev/null', os.O_RDONLY, 0),
        (os.POSIX_SPAWN_OPEN, 1, '/dev/null', os.O_WRONLY, 0),
        (os.POSIX_SPAWN_OPEN, 2, errfile,
         os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600),
    ]
    # The child inherits the affinity of the thread that spawns it.
    allowed = os.sched_getaffinity(0)
    if cpu >= 0:
        os.sched_setaffinity(0, {cpu})
    t0 = time.perf_counter()
    try:
        pid = os.posix_spawn(argv[0], argv, env, file_actions=actions,
                             setpgroup=0)
    finally:
        os.sched_setaffinity(0, allowed)
    watchdog = threading.Timer(timeout, kill_group, (pid,))
    watchdog.start()
    try:
        _, status, ru = os.wait4(pid, 0)
    except BaseException:
        # Interrupted (SIGINT, SIGTERM): take the run down with us.
        kill_group(pid)
        os.waitpid(pid, 0)
        raise
    finally:
        watchdog.cancel()
    wall = time.perf_counter() - t0
    with open(errfile, errors='replace') as f:
        err = f.read()
    return wall, ru, os.waitstatus_to_exitcode(status), err
