#!/usr/bin/env python3
"""--format=html, loaded in a real browser: Debian's chromium, headless,
driven through the DevTools protocol (browser.py). For a profile of the
threads target (four workers thread_work_1..4) and of space_leak:

- the page renders: after its scripts ran, the DOM holds the function
  names, the flame graph's SVG with its frames and the timeline's canvas
  with one track per sampled thread;
- searching (typed after the '/' key) highlights the frames of the
  matching functions and sums them: the sum is the total of
  thread_work_1..4 in the --json report;
- clicking a frame zooms on it (it then spans the graph, the others'
  frames are gone) and Esc zooms out;
- selecting a time range on the timeline recomputes the views from the
  samples in it: the page's total is the sum of the weights of the
  samples in the range, read from the page's data here;
- a click on a column head sorts the flat table by it;
- a space profile's page switches between its three views (allocated,
  in use, peak), each totalling the bytes --json reports for that view;
- the page requests nothing but itself, and the console has no errors.

Skips when no chromium is installed (scripts/setup-deps installs it).

usage: test_export_html.py WORK_SPLIT RECURSIVE THREADS SPACE_LEAK
"""
import sys

import browser
import prof

SCALE = '0.5'
WORKERS = [f'thread_work_{i}' for i in range(1, 5)]



def check_clean(b, path, label):
    own = 'file://' + path
    others = [u for u in b.requests() if u != own]
    if others:
        raise prof.Fail(f'{label}: the page requested {others[:5]}')
    errors = b.errors()
    if errors:
        raise prof.Fail(f'{label}: console errors: {errors[:5]}')


def check_rendered(b, names, label):
    text = b.eval('document.body.innerText')
    missing = [n for n in names if n not in text]
    if missing:
        raise prof.Fail(f'{label}: the page does not show {missing}')
    frames = b.eval('document.querySelectorAll("#flame svg rect").length')
    canvas = b.eval('document.querySelectorAll("#timeline canvas").length')
    print(f'{label}: {frames} frames in the flame graph, {canvas} timeline '
          'canvas')
    if frames < len(names) or canvas != 1:
        raise prof.Fail(f'{label}: want an SVG with frames and a canvas')


def check_search(b, report):
    b.eval('document.body.focus()')
    b.key('/', 'Slash', '/')
    if b.eval('document.activeElement.id') != 'search':
        raise prof.Fail("the '/' key does not focus the search field")
    b.type_text('thread_work_')
    got = b.eval('+document.getElementById("search-result")'
                 '.getAttribute("data-matched")')
    want = sum(prof.need_func(report, n)['total'] for n in WORKERS) * 1e9
    marked = b.eval('document.querySelectorAll("#flame rect.match").length')
    print(f'search thread_work_: {marked} frames marked, sum {got:.0f} ns '
          f'(report: {want:.0f} ns)')
    if marked < 4 or abs(got - want) > 1e-6 * want + 4:
        raise prof.Fail(f'search: sum {got} ns, want {want} ns; '
                        f'{marked} frames marked')
    b.key('Escape')


def check_zoom(b):
    box = b.eval('''(function () {
      var D = profanalyze.data, st = profanalyze.state, best = -1;
      var gs = document.querySelectorAll("#flame g[data-node]");
      for (var i = 0; i < gs.length; i++) {
        var n = +gs[i].getAttribute("data-node");
        if (n && D.funcs[D.nodes.func[n]][0] === "thread_work_2") best = gs[i];
      }
      if (best === -1) return null;
      var r = best.querySelector("rect").getBoundingClientRect();
      best.scrollIntoView();
      r = best.querySelector("rect").getBoundingClientRect();
      return [r.left + r.width / 2, r.top + r.height / 2,
              +best.getAttribute("data-node")];
    })()''')
    if not box:
        raise prof.Fail('no frame of thread_work_2 in the flame graph')
    b.click(box[0], box[1])
    zoom = b.eval('profanalyze.state.zoom')
    widths = b.eval('''(function () {
      var g = document.querySelector('#flame g[data-node="%d"] rect');
      var svg = document.querySelector("#flame svg");
      var other = 0;
      document.querySelectorAll("#flame text").forEach(function (t) {
        if (/thread_work_[134]/.test(t.textContent)) other++;
      });
      return [g ? +g.getAttribute("width") : 0,
              +svg.getAttribute("width"), other];
    })()''' % box[2])
    print(f'zoom: on node {zoom} (clicked {box[2]}), its frame '
          f'{widths[0]} of {widths[1]} px, {widths[2]} other workers shown')
    if zoom != box[2] or abs(widths[0] - widths[1]) > 1 or widths[2]:
        raise prof.Fail('clicking thread_work_2 did not zoom on it')
    b.eval('document.getElementById("flame").focus()')
    b.key('Escape')
    if b.eval('profanalyze.state.zoom') != 0:
        raise prof.Fail('Esc did not zoom out')


def check_range(b, data):
    r = b.eval('''(function () {
      var c = document.querySelector("#timeline canvas").getBoundingClientRect();
      document.getElementById("timeline").scrollIntoView();
      c = document.querySelector("#timeline canvas").getBoundingClientRect();
      return [c.left, c.width, c.top + 8];
    })()''')
    left = r[0] + 180  # the track labels' width (report.js LABEL_W)
    plot = r[1] - 180
    b.drag(left + plot * 0.25, left + plot * 0.6, r[2])
    rng = b.eval('profanalyze.state.range')
    page_total = b.eval('profanalyze.state.total[0]')
    if not rng:
        raise prof.Fail('dragging across the timeline selected no range')
    tl = data['timeline']
    t, want = 0, 0
    for i, dt in enumerate(tl['t']):
        t += dt
        if rng[0] <= t <= rng[1]:
            want += tl['w'] if isinstance(tl['w'], int) else tl['w'][i]
    print(f'range {rng[0] / 1e6:.3f} s to {rng[1] / 1e6:.3f} s: page total '
          f'{page_total:.0f}, samples in it {want}, whole {data["weight"]}')
    if page_total != want or not 0 < want < data['weight']:
        raise prof.Fail(f'range: the page shows {page_total}, the samples '
                        f'in it weigh {want}')
    first = b.eval('document.querySelector("#flat tbody td").textContent')
    if not first:
        raise prof.Fail('range: the flat table is empty')
    b.eval('document.getElementById("timeline").dispatchEvent('
           'new MouseEvent("dblclick"))')
    if b.eval('profanalyze.state.range') is not None:
        raise prof.Fail('a double click did not clear the range')


def check_sort(b):
    pos = b.eval('''(function () {
      var th = document.querySelector('#flat th[data-key="total"]');
      th.scrollIntoView();
      var r = th.getBoundingClientRect();
      return [r.left + r.width / 2, r.top + r.height / 2];
    })()''')
    b.click(pos[0], pos[1])
    order = b.eval('''Array.from(document.querySelectorAll(
      "#flat tbody tr[data-func]")).map(function (tr) {
        return +tr.children[4].textContent; })''')
    print(f'sorted by total %: {order[:6]}')
    if not order or order != sorted(order, reverse=True) or \
            b.eval('profanalyze.state.sortKey') != 'total':
        raise prof.Fail(f'the flat table is not sorted by total: {order}')


def test_threads(b, target):
    p = prof.profile(target, [SCALE], opts=['-F', '1000'])
    path = prof.export(p.spool, 'html')
    data = browser.page_data(path)
    threads = {t['tid'] for t in prof.field(p.report, 'thread_list')
               if t['samples']}
    print(f'threads: {data["samples"]} samples, {len(data["tracks"])} '
          f'tracks ({len(threads)} threads sampled)')
    if len(data['tracks']) != len(threads) or \
            len(data['timeline']['t']) != data['samples']:
        raise prof.Fail('the page does not have every sample on its '
                        "thread's track")
    b.load(path)
    check_rendered(b, WORKERS, 'threads')
    check_search(b, p.report)
    check_zoom(b)
    check_range(b, data)
    check_sort(b)
    check_clean(b, path, 'threads')


def test_space(b, target):
    p = prof.profile(target, ['0.25'], opts=['--space-interval=16K'])
    path = prof.export(p.spool, 'html', args=('--space', '--alloc'))
    data = browser.page_data(path)
    if data['kind'] != 'space':
        raise prof.Fail(f'space_leak: the page shows a {data["kind"]} '
                        'profile')
    b.events.clear()
    b.load(path)
    check_rendered(b, ['leaky_site', 'churn_site'], 'space_leak')
    views = b.eval('Array.from(document.querySelectorAll("#view option"))'
                   '.map(function (o) { return o.textContent; })')
    if len(views) != 3:
        raise prof.Fail(f'space_leak: views {views}, want 3')
    for k, v in enumerate(data['views']):
        b.eval(f'profanalyze.view({k})')
        got = b.eval('profanalyze.state.total[0]')
        _, rep = prof.analyze(p.spool, args=('--space', f'--{v["name"]}',
                                             '--json'))
        want = prof.field(rep, 'sampled_bytes')
        shown = b.eval('document.getElementById("timeline-section").hidden')
        print(f'space_leak view {v["name"]}: page total {got:.0f} bytes, '
              f'--json {want}; timeline hidden: {shown}')
        if abs(got - want) > 0.5 or shown == v['main']:
            raise prof.Fail(f'space_leak: view {v["name"]} shows {got} '
                            f'bytes (report: {want}), timeline hidden '
                            f'{shown}')
    check_clean(b, path, 'space_leak')


def test():
    with browser.Browser() as b:
        test_threads(b, sys.argv[3])
        test_space(b, sys.argv[4])


prof.main(test)
