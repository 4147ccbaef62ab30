#!/usr/bin/env python3
"""The views of --format=html beyond test_export_html.py's, each from a
real run, in Debian's chromium (headless, browser.py):

heap       a space profile of space_leak: the timeline has the heap
           tracks (allocation rate and live heap) drawn on its canvas with
           non-zero data; the page's live heap after the last event is the
           bytes --inuse reports (the same replay of the same samples) and
           its bytes allocated those of --alloc; hovering the live-heap
           row states the figure with its 95 % interval; a time range
           dragged on the timeline gives the bytes allocated in it, which
           are the weights of the page's allocations in that range;
           with --from the page holds only the window's allocations, and
           they add up to --inuse and --alloc with the same --from.
processes  lifecycle's fork/exec tree (three levels), --children: the page
           lists every process image as --processes does, each under its
           parent (pid, parent, command), with the samples of its spool;
           the forked child's pid is under the first process; the
           timeline has a row per process that had samples.
diff       diff_bench against diff_bench_head, whose bench_b does twice
           the work (ground truth by construction): --diff --format=html
           draws the new tree with bench_b's frame the reddest (the
           largest growth of self), its hover naming base, new and the
           change; the tables hold the rows --format=json has, bench_b
           among the regressions (some 7 standard errors at these sample
           counts; the test needs 2.8); Enter on its row selects it.

Each page must request nothing but itself and log no console error.
Skips when no chromium is installed.

usage: test_export_html_views.py heap SPACE_LEAK
       test_export_html_views.py processes LIFECYCLE
       test_export_html_views.py diff DIFF_BENCH DIFF_BENCH_HEAD
"""
import json
import os
import re
import sys

import browser
import prof

LABEL_W = 180  # report.js: the track labels' width
TRACK_H = 16   # report.js: a track's height
HEAP_H = 44    # report.js: a heap track's height
MIN_DIFF_SAMPLES = 400  # a base run's: bench_b then has some 120
# The CPU a base run is sized to (prof.scale_for_cpu): about 600 samples,
# a third over MIN_DIFF_SAMPLES on any machine.
DIFF_BASE_CPU_S = 0.6



def load(b, path, label):
    b.events.clear()
    b.load(path)
    return label


def check_clean(b, path, label):
    own = 'file://' + os.path.abspath(path)
    others = [u for u in b.requests() if u != own]
    if others:
        raise prof.Fail(f'{label}: the page requested {others[:5]}')
    errors = b.errors()
    if errors:
        raise prof.Fail(f'{label}: console errors: {errors[:5]}')


def canvas_box(b):
    return b.eval('''(function () {
      document.getElementById("timeline").scrollIntoView();
      var c = document.querySelector("#timeline canvas").getBoundingClientRect();
      return [c.left, c.top, c.width, c.height,
              document.getElementById("timeline")._rows.length];
    })()''')


# ---- heap ----

def heap_pixels(b, rows):
    """Pixels drawn in the heap tracks' plot area of the canvas."""
    return b.eval('''(function () {
      var c = document.querySelector("#timeline canvas");
      var r = window.devicePixelRatio || 1;
      var x = %d * r, y = %d * r;
      var d = c.getContext("2d").getImageData(x, y, c.width - x,
                                              %d * r).data;
      var n = 0;
      for (var i = 3; i < d.length; i += 4) n += d[i] > 0;
      return n;
    })()''' % (LABEL_W, rows * TRACK_H, 2 * HEAP_H))


def check_heap_totals(b, spool, window=()):
    final = b.eval('profanalyze.heapAt(Infinity)')
    allocated = b.eval('profanalyze.heapAllocated(-Infinity, Infinity)')
    _, inuse = prof.analyze(spool, args=('--space', '--inuse', '--json') +
                            window)
    _, alloc = prof.analyze(spool, args=('--space', '--alloc', '--json') +
                            window)
    want_live = prof.field(inuse, 'sampled_bytes')
    want_alloc = prof.field(alloc, 'sampled_bytes')
    print(f'heap{" " if window else ""}{" ".join(window)}: live at the end '
          f'{final[0]:.0f} bytes (--inuse '
          f'{want_live}), allocated {allocated[0]:.0f} (--alloc '
          f'{want_alloc}), 95% half-width of the live heap '
          f'{1.96 * final[1] ** 0.5:.0f}')
    if abs(final[0] - want_live) > 0.5 or abs(allocated[0] - want_alloc) > 0.5:
        raise prof.Fail('the page\'s heap does not add up to the reports')
    if not final[1] > 0:
        raise prof.Fail('the live heap has no variance estimate')


def check_heap_hover(b, box):
    left, top, _, _, rows = box
    y = top + rows * TRACK_H + HEAP_H + HEAP_H / 2  # the live-heap row
    b.call('Input.dispatchMouseEvent', type='mouseMoved',
           x=left + LABEL_W + 0.9 * (box[2] - LABEL_W), y=y)
    text = b.eval('document.getElementById("timeline-details").textContent')
    print(f'hover: {text}')
    if not re.search(r'live heap [0-9.]+ [KM]?i?B \u00b1 [0-9.]+', text):
        raise prof.Fail(f'hovering the live heap shows {text!r}')


def check_heap_range(b, box, data):
    """Drags from the time of the page's allocation at 30 % of them to
    that at 70 %, so that the range holds allocations whatever the run's
    pace: a target descheduled mid-run (seen: 180 ms without a sample
    with tests running alongside) leaves a middle of the timeline
    without any."""
    left, top, width, _, _ = box
    plot = width - LABEL_W
    span = sum(data['timeline']['t'])  # report.js: the timeline's extent
    when = heap_times(data)
    a, z = when[len(when) * 3 // 10], when[len(when) * 7 // 10]
    if not span > 0 or not z > a:
        raise prof.Fail(f'no spread of allocations to drag over: timeline '
                        f'{span} us, allocations at {a} to {z} us')

    def x_of(t):
        return left + LABEL_W + t / span * (plot - 1)
    b.drag(x_of(a), x_of(z), top + 8)
    rng = b.eval('profanalyze.state.range')
    got = b.eval('profanalyze.state.heapRange')
    text = b.eval('document.getElementById("range").textContent')
    if not rng or not got:
        raise prof.Fail(f'dragging selected no range ({rng}, {got})')
    t, want = 0, 0
    for dt, w in zip(data['heap']['t'], data['heap']['w']):
        t += dt
        if rng[0] <= t <= rng[1]:
            want += w
    print(f'range {rng[0] / 1e6:.3f} s to {rng[1] / 1e6:.3f} s: allocated '
          f'{got["allocated"]:.0f} bytes (the data: {want}); {text}')
    if abs(got['allocated'] - want) > 0.5 or not want or \
            'allocated' not in text or '\u00b1' not in text:
        raise prof.Fail('the range\'s heap figures are not the data\'s')
    total = b.eval('profanalyze.state.total[0]')
    if not 0 < total < data['weight']:
        raise prof.Fail(f'the range did not recompute the views: {total}')


def heap_times(data):
    """The page's allocations' times, microseconds from its start_ns."""
    when, t = [], 0
    for dt in data['heap']['t']:
        t += dt
        when.append(t)
    return sorted(when)


def half_window(spool, n):
    """A --from that leaves a quarter to three quarters of the n sampled
    allocations in the window, by bisection on the reports' count: the
    page's times start at its first sample, which may come tens of
    milliseconds after the program's start (seen under load), so they
    cannot place a window of the program's time."""
    lo, hi = 0.0, 60.0
    for _ in range(40):
        mid = (lo + hi) / 2
        arg = f'--from={mid:.6f}'
        _, r = prof.analyze(spool, args=('--space', '--alloc', '--json', arg))
        got = prof.field(r, 'samples')
        if n / 4 <= got <= 3 * n / 4:
            return arg
        lo, hi = (mid, hi) if got > n / 2 else (lo, mid)
    raise prof.Fail(f'no --from leaves half of the {n} allocations')


def check_heap_window(b, spool, data):
    """--from: the page's heap tracks hold the window's allocations only,
    which add up to what the reports give with the same --from."""
    when = heap_times(data)
    window = (half_window(spool, len(when)),)
    path = prof.export(spool, 'html', args=('--space', '--alloc') + window)
    got = browser.page_data(path).get('heap') or {'t': []}
    print(f'{window[0]}: {len(got["t"])} of the {len(when)} allocations '
          f'on the page')
    if not 0 < len(got['t']) < len(when):
        raise prof.Fail(f'{window[0]}: the page has {len(got["t"])} of the '
                        f'{len(when)} allocations')
    load(b, path, 'heap window')
    check_heap_totals(b, spool, window)
    check_clean(b, path, 'heap window')


def test_heap(b, target):
    p = prof.profile(target, ['0.25'], opts=['--space-interval=16K'])
    path = prof.export(p.spool, 'html', args=('--space', '--alloc'))
    data = browser.page_data(path)
    if not data.get('heap') or not data['heap']['t']:
        raise prof.Fail('the page has no allocations')
    load(b, path, 'heap')
    box = canvas_box(b)
    series = b.eval('profanalyze.heap()')
    pixels = heap_pixels(b, box[4])
    print(f'heap tracks: {pixels} pixels drawn, rate up to '
          f'{max(series["rate"]):.0f} B/s, live heap up to '
          f'{max(series["live"]):.0f} B')
    if not series or max(series['rate']) <= 0 or \
            max(series['live']) <= 0 or pixels < 100:
        raise prof.Fail('the heap tracks are empty')
    check_heap_totals(b, p.spool)
    check_heap_hover(b, box)
    check_heap_range(b, box, data)
    check_clean(b, path, 'heap')
    check_heap_window(b, p.spool, data)


# ---- processes ----

def listing(spool):
    """--processes as (depth, pid, ppid, samples) tuples."""
    r = prof.run([prof.profanalyze_path(), '--processes', spool])
    if r.returncode != 0:
        raise prof.Fail(f'--processes: exit {r.returncode}\n{r.stderr}')
    rows = []
    for line in r.stdout.splitlines()[1:]:
        f = line.split()
        depth = (len(line) - len(line.lstrip(' '))) // 2
        rows.append((depth, int(f[0]), int(f[1]), int(f[2])))
    return rows


def test_processes(b, target):
    spool = os.path.join(prof.tmpdir(), 't.spool')
    r = prof.profrun(['-q', '-o', spool, '--', target, 'tree', '2'])
    if r.returncode != 0:
        raise prof.Fail(f'lifecycle tree: exit {r.returncode}\n{r.stderr}')
    want = listing(spool)
    path = prof.export(spool, 'html', args=('--children',))
    load(b, path, 'processes')
    got = b.eval('''Array.from(document.querySelectorAll(
      "#processes tbody tr")).map(function (tr) {
        return [+tr.getAttribute("data-depth"), +tr.getAttribute("data-pid"),
                +tr.children[1].textContent, +tr.children[2].textContent,
                tr.children[5].textContent]; })''')
    print('page:', got)
    print('--processes:', want)
    if [tuple(g[:4]) for g in got] != want:
        raise prof.Fail('the page\'s process tree is not --processes\'')
    root = want[0][1]
    children = [g for g in got if g[0] >= 1 and g[2] == root]
    if not children or 'lifecycle tree' not in got[0][4]:
        raise prof.Fail(f'no child of {root} under it, or no command')
    visible = b.eval('!document.getElementById("processes-section").hidden')
    box = canvas_box(b)
    procs = b.eval('''document.getElementById("timeline")._rows.filter(
      function (r) { return r.proc; }).map(function (r) { return r.label; })''')
    with_samples = {w[1] for w in want if w[3]}
    print(f'timeline process rows: {procs} ({box[4]} rows)')
    if not visible or len(procs) != len(with_samples) or \
            not all(any(f'pid {pid} ' in lab for lab in procs)
                    for pid in with_samples):
        raise prof.Fail('want a timeline row per process with samples')
    check_clean(b, path, 'processes')


# ---- diff ----

def spool_of(target, tag, scale):
    spool = os.path.join(prof.tmpdir(), f'{tag}.spool')
    r = prof.profrun(['-q', '-F', '1000', '-o', spool, '--', target, scale])
    if r.returncode != 0:
        raise prof.Fail(f'{target}: exit {r.returncode}\n{r.stderr}')
    return spool


def frames(b):
    """Per frame drawn: [label, fill, hover text]."""
    return b.eval('''Array.from(document.querySelectorAll(
      "#flame g[data-node]")).map(function (g) {
        var n = +g.getAttribute("data-node"), D = profanalyze.data;
        return [n ? D.funcs[D.nodes.func[n]][0] : "all",
                g.querySelector("rect").getAttribute("fill"),
                g.querySelector("title").textContent]; })''')


def redness(fill):
    """255 - green of a growth's rgb(255,g,g); 0 for any other colour."""
    m = re.fullmatch(r'rgb\(255,(\d+),(\d+)\)', fill)
    return 255 - int(m.group(1)) if m and m.group(1) == m.group(2) else 0


def test_diff(b, base_target, head_target):
    scale = prof.scale_for_cpu(base_target, DIFF_BASE_CPU_S)
    base = spool_of(base_target, 'base', scale)
    new = spool_of(head_target, 'new', scale)
    _, rep = prof.analyze(base)
    if prof.field(rep, 'samples') < MIN_DIFF_SAMPLES:
        raise prof.Fail(f'{base}: {rep["samples"]} samples, too few')
    out = os.path.join(prof.tmpdir(), 'diff.html')
    r = prof.run([prof.profanalyze_path(), '--diff', '--format=html', '-O',
                  out, base, new])
    j = prof.run([prof.profanalyze_path(), '--diff', '--format=json', base,
                  new])
    if r.returncode != 0 or j.returncode != 0:
        raise prof.Fail(f'--diff: exit {r.returncode}, {j.returncode}\n'
                        f'{r.stderr}{j.stderr}')
    want = json.loads(j.stdout)
    load(b, out, 'diff')
    fr = frames(b)
    reds = sorted(((redness(f[1]), f[0]) for f in fr), reverse=True)
    hover = [f[2] for f in fr if f[0] == 'bench_b']
    print(f'diff: reddest frames {reds[:4]}; bench_b: {hover}')
    if not reds or reds[0][1] != 'bench_b' or reds[0][0] < 100 or \
            (len(reds) > 1 and reds[1][0] >= reds[0][0]):
        raise prof.Fail('bench_b, made slower, is not the reddest frame')
    if not hover or not re.search(r'new .* base .* change \+', hover[0]):
        raise prof.Fail(f'bench_b\'s hover: {hover}')
    for key, table in (('regressions', 'diff-regressions'),
                       ('improvements', 'diff-improvements'),
                       ('unchanged', 'diff-unchanged')):
        names = b.eval(f'''Array.from(document.querySelectorAll(
          "#{table} tbody tr[data-name]")).map(function (tr) {{
            return tr.getAttribute("data-name"); }})''')
        if names != [row['name'] for row in want[key]]:
            raise prof.Fail(f'{key}: the page lists {names}, --format=json '
                            f'{[row["name"] for row in want[key]]}')
    if 'bench_b' not in [row['name'] for row in want['regressions']]:
        raise prof.Fail('bench_b is not among the regressions')
    b.eval('document.querySelector(\'#diff-regressions tr[data-name='
           '"bench_b"]\').focus()')
    b.key('Enter')
    sel = b.eval('profanalyze.state.selected')
    if sel < 0 or b.eval(f'profanalyze.data.funcs[{sel}][0]') != 'bench_b':
        raise prof.Fail('Enter on bench_b\'s row did not select it')
    check_clean(b, out, 'diff')


def test():
    view = sys.argv[1]
    with browser.Browser() as b:
        if view == 'heap':
            test_heap(b, sys.argv[2])
        elif view == 'processes':
            test_processes(b, sys.argv[2])
        else:
            test_diff(b, sys.argv[2], sys.argv[3])


prof.main(test)
