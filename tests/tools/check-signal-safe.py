#!/usr/bin/env python3
"""Every function of the preload library that can run in a signal handler
or inside a malloc wrapper says so, and calls nothing that is not safe
there (CONVENTIONS.md, "The preload library").

The call graph is the compiler's: each source of the library is compiled
again at -O0 with -fcallgraph-info (so that no call disappears into an
inlined body), which writes one VCG graph per file; calls between files
are joined by name, a static function of the calling file first. The
roots are the signal handlers and the malloc-family and operator new and
delete wrappers (ROOTS below), and every function that carries the
marker: a marked function promises that all it calls is safe too.

The marker is one style: the comment just above the definition ends in
"async-signal-safe */". A function reached from a root must carry it
(the roots themselves need not: a malloc wrapper is not safe in a signal
handler, it is what the rest must be safe inside), unless EXEMPT names
it with the reason it may be reached there anyway, which also ends the
walk there; and no function reached may call an external function of
FORBIDDEN (the allocator, stdio, locks). Calls through a pointer are not in the graph:
the functions reached that way are roots of their own (ROOTS).

usage: check-signal-safe.py BUILD_DIR LIBRARY_DIR OBJDIR
       check-signal-safe.py --self-test
Prints each function that should carry the marker, with the path that
reaches it, each forbidden call, and exits 1 when there is one.
"""
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile

MARKER = re.compile(r'async-signal-safe\s*\*/\s*$')
NOT_MARKER = re.compile(r'not\s+async-signal-safe')

# Entered asynchronously or from the program's allocation calls, or
# called through a pointer from code that is.
HANDLERS = ['handler', 'fatal_handler', 'toggle_handler', 'bus_trampoline']
ROOTS = HANDLERS + [
    # the handlers the library installs (sampler.c, endings.c, control.c)
    # are HANDLERS, static: found by name
    # the allocation wrappers (alloc.c, alloc_cxx.c)
    'malloc', 'free', 'calloc', 'realloc', 'reallocarray', 'posix_memalign',
    'aligned_alloc', 'memalign', 'valloc', 'pvalloc',
    '_Znwm', '_Znam', '_ZdlPv', '_ZdaPv', '_ZdlPvm', '_ZdaPvm',
    '_ZnwmRKSt9nothrow_t', '_ZnamRKSt9nothrow_t',
    '_ZnwmSt11align_val_t', '_ZnamSt11align_val_t',
    '_ZdlPvSt11align_val_t', '_ZdaPvSt11align_val_t',
    '_ZdlPvmSt11align_val_t', '_ZdaPvmSt11align_val_t',
]

# Reached from a root but knowingly not async-signal-safe, each with why
# that is sound. Keep it short.
EXEMPT = {
    'next': 'dlsym, at the first call of a hook only: the hooks a handler '
            'uses are found at start (real_resolve_early), the allocator '
            'by alloc.c\'s bootstrap',
    'real_alloc_lookup': 'the allocator looked up at the first call of a '
                         'wrapper, outside any handler; alloc.c serves what '
                         'dlsym allocates meanwhile',
    'real_cxx_lookup': 'operator new and delete looked up at their first '
                       'call, outside any handler, as real_alloc_lookup',
    'alloc_resolve': 'as real_alloc_lookup',
    'cxx_resolve': 'as real_cxx_lookup',
    'modules_poll': 'in the allocation sampler only, never in a signal '
                    'handler; its lock is only tried (a thread loading a '
                    'library may allocate while another holds ours)',
    'modules_announce': 'tries the table\'s lock and never waits: a held '
                        'lock leaves the module to be read through the '
                        'kernel',
    'appender_shared': 'tries the shared stream\'s lock and never waits: a '
                       'record that finds it held is dropped and counted',
}
# Names made by a macro, exempt with their pattern: REAL_HOOKS's getters
# are one atomic load once the hook is found (as 'next' says).
EXEMPT_PATTERNS = [re.compile(r'real_[a-z_0-9]+$')]


def exempt(name):
    return name in EXEMPT or any(p.match(name) for p in EXEMPT_PATTERNS)

# External functions nothing reached from a root may call.
FORBIDDEN = {
    'malloc', 'calloc', 'realloc', 'free', 'posix_memalign',
    'aligned_alloc', 'strdup', 'strndup', 'asprintf', 'vasprintf',
    'printf', 'fprintf', 'sprintf', 'snprintf', 'vsnprintf', 'vfprintf',
    'fputs', 'fputc', 'puts', 'fwrite', 'fopen', 'fclose', 'fflush',
    'pthread_mutex_lock', 'pthread_mutex_trylock', 'pthread_rwlock_rdlock',
    'pthread_rwlock_wrlock', 'pthread_cond_wait', 'dlopen', 'dlsym',
    'dladdr', 'dl_iterate_phdr', 'strerror', 'localtime', 'getenv',
    'exit', 'atexit', 'qsort',
}


def compile_graphs(build, libdir, objdir, out):
    """Compiles every source of objdir's target into out at -O0 with
    -fcallgraph-info; returns {source path: .ci path}."""
    with open(os.path.join(build, 'compile_commands.json')) as f:
        entries = json.load(f)
    lib = os.path.realpath(libdir)
    graphs = {}
    for e in entries:
        if not e['output'].startswith(objdir.rstrip('/') + '/'):
            continue
        src = os.path.realpath(os.path.join(e['directory'], e['file']))
        if not src.startswith(lib + os.sep):
            continue
        args = shlex.split(e['command'])
        keep, skip = [], False
        for a in args:
            if skip:
                skip = False
                continue
            if a in ('-o', '-MF', '-MQ'):
                skip = True
                continue
            if a.startswith(('-O', '-MD', '-fsanitize')) or a == '-c':
                continue
            keep.append(a)
        # the source argument as compile_commands gives it, relative to
        # the build directory
        obj = os.path.join(out, os.path.basename(src) + '.o')
        cmd = keep + ['-O0', '-fcallgraph-info', '-c', '-o', obj]
        subprocess.run(cmd, cwd=e['directory'], check=True)
        graphs[src] = (obj[:-2] + '.ci', e['directory'])
    return graphs


NODE = re.compile(r'node: \{ title: "([^"]+)" label: "[^"\\]*\\n'
                  r'([^":]+):(\d+):\d+"( shape : ellipse)?')
EDGE = re.compile(r'edge: \{ sourcename: "([^"]+)" targetname: "([^"]+)"')


def bare(title):
    """A node's function name: gcc titles a static function FILE:NAME."""
    return title.rsplit(':', 1)[-1]


def read_graph(ci):
    """(defined {name: (file, line)}, external names, edges [(a, b)]),
    by bare name (a file's static functions are its own)."""
    defined, external, edges = {}, set(), []
    with open(ci) as f:
        for line in f:
            m = NODE.match(line)
            if m:
                if m.group(4):
                    external.add(bare(m.group(1)))
                else:
                    defined[bare(m.group(1))] = (m.group(2),
                                                 int(m.group(3)))
                continue
            m = EDGE.match(line)
            if m:
                edges.append((bare(m.group(1)), bare(m.group(2))))
    return defined, external, edges


def source_lines(path, cache={}):
    if path not in cache:
        with open(path, encoding='utf-8', errors='replace') as f:
            cache[path] = f.read().split('\n')
    return cache[path]


def definition(src, name, path, line):
    """(path, line) of name's definition: gcc names the first
    declaration (a system header's, for the wrappers of libc functions),
    so where that line does not start the definition, the definition is
    looked for in the source file, its name at the start of a line."""
    lines = source_lines(path) if os.path.exists(path) else []
    if 0 < line <= len(lines) and re.match(re.escape(name) + r'\s*\(',
                                           lines[line - 1]):
        return path, line
    for i, text in enumerate(source_lines(src)):
        if re.match(re.escape(name) + r'\s*\(', text):
            return src, i + 1
    return path, line


def marked(path, line):
    """Whether the comment just above the definition at path:line (the
    line of the function's name) ends in the marker."""
    lines = source_lines(path)
    i = line - 2  # the line above the name (0-based)
    # the return type stands on its own line above the name
    if i >= 0 and lines[i].strip() and not lines[i].strip().endswith('*/'):
        i -= 1
    while i >= 0 and not lines[i].strip():
        return False
    if i < 0 or not lines[i].rstrip().endswith('*/'):
        return False
    end = i
    while i >= 0 and '/*' not in lines[i]:
        i -= 1
    text = '\n'.join(lines[i:end + 1])
    return bool(MARKER.search(text)) and not NOT_MARKER.search(text)


def check(graphs, global_names):
    """Lines naming each problem, and the number of functions reached."""
    funcs = {}     # (file, name) -> (path, line)
    calls = {}     # (file, name) -> [callee name]
    by_name = {}   # name -> [(file, name)] of its definitions
    externals = {}
    for src, (ci, cwd) in graphs.items():
        defined, external, edges = read_graph(ci)
        for name, (path, line) in defined.items():
            key = (src, name)
            funcs[key] = definition(src, name,
                                    os.path.normpath(os.path.join(cwd, path)),
                                    line)
            by_name.setdefault(name, []).append(key)
        for a, b in edges:
            calls.setdefault((src, a), []).append(b)
        externals[src] = external

    def resolve(src, name):
        if (src, name) in funcs:
            return (src, name)
        defs = by_name.get(name, [])
        glob = [k for k in defs if name in global_names]
        return glob[0] if glob else None

    entries = {k for k in funcs if k[1] in ROOTS and
               (k[1] in global_names or k[1] in HANDLERS)}
    roots = sorted(entries) + [k for k, (p, line) in funcs.items()
                               if marked(p, line)]
    via, todo = {k: None for k in roots}, list(roots)
    bad = []
    while todo:
        k = todo.pop()
        if exempt(k[1]) and k not in entries:
            continue
        for callee in calls.get(k, ()):
            to = resolve(k[0], callee)
            if to is None:
                if callee in FORBIDDEN:
                    bad.append(f'{short(k)} calls {callee}(), which is not '
                               f'safe in a signal handler or malloc: '
                               f'{path_of(k, via)}')
                continue
            if to not in via:
                via[to] = k
                todo.append(to)
    for k in sorted(via):
        p, line = funcs[k]
        if marked(p, line) or exempt(k[1]) or k in entries:
            continue
        bad.append(f'{os.path.basename(p)}:{line}: {k[1]} runs in a signal '
                   f'handler or malloc wrapper but is not marked: '
                   f'{path_of(k, via)}')
    return bad, len(via)


def short(k):
    return f'{os.path.basename(k[0])}:{k[1]}'


def path_of(k, via):
    chain = []
    while k is not None and len(chain) < 12:
        chain.append(k[1])
        k = via[k]
    return ' <- '.join(chain)


def global_symbols(build, objdir):
    names = set()
    root = os.path.join(build, objdir)
    for f in os.listdir(root):
        if f.endswith('.o'):
            out = subprocess.run(['nm', os.path.join(root, f)],
                                 capture_output=True, text=True).stdout
            for line in out.splitlines():
                p = line.split()
                if len(p) == 3 and p[1] in 'TW':
                    names.add(p[2])
    return names


def self_test():
    """A marked root calling an unmarked helper, and a helper calling
    malloc, must both be found; marking them must pass."""
    src = '''#include <stdlib.h>
static int helper(int x) { return x + (int)(long)malloc(1); }

/* Sums. async-signal-safe */
static int
sum(int x)
{
	return x + 1;
}

void
handler(int sig)
{
	(void)helper(sig);
	(void)sum(sig);
}
'''
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, 'h.c')
        with open(path, 'w') as f:
            f.write(src)
        subprocess.run(['cc', '-O0', '-fcallgraph-info', '-c', '-o',
                        os.path.join(d, 'h.o'), path], check=True, cwd=d)
        bad, n = check({path: (os.path.join(d, 'h.ci'), d)}, {'handler'})
        text = '\n'.join(bad)
        if not ('helper runs in a signal' in text and 'calls malloc()' in
                text and 'sum runs' not in text and 'handler runs' not in
                text):
            print('self-test: the planted problems were not all found:\n' +
                  text)
            return 1
        print('self-test: found the planted problems:\n' + text)
    return 0


def main():
    if sys.argv[1:] == ['--self-test']:
        return self_test()
    if len(sys.argv) != 4:
        print(__doc__.strip().split('\n\n')[-1], file=sys.stderr)
        return 2
    build, libdir, objdir = sys.argv[1:]
    with tempfile.TemporaryDirectory() as out:
        graphs = compile_graphs(build, libdir, objdir, out)
        if not graphs:
            print(f'{libdir}: no sources of {objdir} in {build}')
            return 1
        bad, n = check(graphs, global_symbols(build, objdir))
    for b in bad:
        print(b)
    print(f'{libdir}: {len(graphs)} files, {n} functions run in a signal '
          f'handler or malloc wrapper, {len(bad)} problems')
    return 1 if bad else 0


sys.exit(main())
