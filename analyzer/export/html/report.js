/*
 * profanalyze --format=html: the views, computed in the page from the JSON
 * in #profile-data (see export_html.c for its shape). No library, nothing
 * fetched.
 *
 * Every view reads one state: the per-node self and total weights (those
 * of the whole profile, or summed from the samples of the selected time
 * range, each sample's weight at its node and added up the tree: a
 * parent's index is below its children's), the zoomed node, the search,
 * the selected function and the threshold. Functions' figures follow the
 * text reports: self is the sum of the self of the function's nodes,
 * total adds each node's total once per stack (a recursive function's
 * inner activations are not counted again).
 *
 * The same page shows a comparison (profanalyze --diff --format=html):
 * its data then has "diff" (the rows as --format=json writes them) and a
 * tree of both sides merged, each node with the new side's self and
 * total and the base side's (base_self, base_total); the flame graph is
 * the new side's, coloured by each frame's change.
 */
(function () {
  'use strict';

  var D = JSON.parse(document.getElementById('profile-data').textContent);
  /* The tree shown: the profile's, or another view of a space profile
   * (useView). */
  var FUNCS, MODULES, N, nn, kids;
  var SPACE = D.kind === 'space';
  var DIFF = D.diff || null;
  var ROW = 17;
  var SVGNS = 'http://www.w3.org/2000/svg';
  var i;

  function useTree(v) {
    FUNCS = v.funcs;
    MODULES = v.modules;
    N = v.nodes;
    nn = N.parent.length;
    kids = [];
    for (var k = 0; k < nn; k++) kids.push([]);
    for (k = 1; k < nn; k++) kids[N.parent[k]].push(k);
  }
  useTree(D);
  var mainView = true;

  /* The samples: absolute microseconds from the first one. */
  var TL = D.timeline;
  var times = null;
  if (TL) {
    times = new Float64Array(TL.t.length);
    var acc = 0;
    for (i = 0; i < TL.t.length; i++) { acc += TL.t[i]; times[i] = acc; }
  }

  var st = {
    self: null, total: null, zoom: 0, focus: 0, search: null,
    selected: -1, threshold: D.threshold || 0, range: null,
    sortKey: 'self', sortDir: -1, icicle: false
  };

  function $(id) { return document.getElementById(id); }

  function el(tag, text, cls) {
    var e = document.createElement(tag);
    if (text !== undefined && text !== null) e.textContent = text;
    if (cls) e.className = cls;
    return e;
  }

  function fname(n) {
    return n === 0 ? 'all' : FUNCS[N.func[n]][0];
  }

  function fmtWeight(w) {
    if (DIFF && D.unit === 'fraction') return (100 * w).toFixed(3) + '%';
    if (SPACE) {
      if (w >= 1048576) return (w / 1048576).toFixed(2) + ' MiB';
      if (w >= 1024) return (w / 1024).toFixed(1) + ' KiB';
      return Math.round(w) + ' B';
    }
    if (w >= 1e9) return (w / 1e9).toFixed(3) + ' s';
    return (w / 1e6).toFixed(3) + ' ms';
  }

  function fmtDelta(w) {
    return (w < 0 ? '\u2212' : '+') + fmtWeight(Math.abs(w));
  }

  function fmtBytes(w) {
    if (Math.abs(w) >= 1048576) return (w / 1048576).toFixed(2) + ' MiB';
    if (Math.abs(w) >= 1024) return (w / 1024).toFixed(1) + ' KiB';
    return Math.round(w) + ' B';
  }

  function pct(w, whole) {
    return whole > 0 ? 100 * w / whole : 0;
  }

  /* --- the figures of the state ------------------------------------ */

  function computeWhole() {
    st.self = Float64Array.from(N.self);
    st.total = Float64Array.from(N.total);
  }

  function sampleWeight(k) {
    return typeof TL.w === 'number' ? TL.w : TL.w[k];
  }

  function computeRange(a, b) {
    var self = new Float64Array(nn);
    for (var k = 0; k < times.length; k++) {
      if (times[k] < a || times[k] > b) continue;
      self[TL.n[k]] += sampleWeight(k);
    }
    var total = Float64Array.from(self);
    for (var n = nn - 1; n > 0; n--) total[N.parent[n]] += total[n];
    st.self = self;
    st.total = total;
  }

  /* Per function: [self, total], total counted once per stack. */
  function funcFigures() {
    var nf = FUNCS.length;
    var self = new Float64Array(nf), total = new Float64Array(nf);
    var onStack = new Int32Array(nf);
    var stack = [[0, 0]];
    while (stack.length) {
      var top = stack[stack.length - 1];
      var n = top[0];
      if (top[1] === 0 && n !== 0) {
        var f = N.func[n];
        self[f] += st.self[n];
        if (onStack[f] === 0) total[f] += st.total[n];
        onStack[f]++;
      }
      if (top[1] < kids[n].length) {
        var c = kids[n][top[1]++];
        if (st.total[c] > 0) stack.push([c, 0]);
      } else {
        if (n !== 0) onStack[N.func[n]]--;
        stack.pop();
      }
    }
    return { self: self, total: total };
  }

  function whole() { return st.total[0]; }

  function belowThreshold(w) {
    return pct(w, whole()) + 1e-9 < st.threshold;
  }

  /* --- search ------------------------------------------------------ */

  function matcher() {
    if (!st.search) return null;
    try {
      var re = new RegExp(st.search);
      return function (s) { return re.test(s); };
    } catch (e) {
      var lit = st.search;
      return function (s) { return s.indexOf(lit) >= 0; };
    }
  }

  /* --- flame graph ------------------------------------------------- */

  /* A comparison: white for no change, red for growth, blue for a
   * decrease, deeper for a larger change (of the frame's self or total,
   * relative to the largest change of any frame), as FlameGraph's
   * differential flame graphs. */
  var diffBy = 'self', maxDelta = 0;

  function delta(n) {
    return diffBy === 'self' ? N.self[n] - N.base_self[n]
                             : N.total[n] - N.base_total[n];
  }

  function diffScale() {
    maxDelta = 0;
    for (var k = 1; k < nn; k++) maxDelta = Math.max(maxDelta, Math.abs(delta(k)));
  }

  function diffColour(n) {
    var d = n === 0 ? 0 : delta(n);
    var c = maxDelta > 0 ? Math.round(210 * Math.abs(d) / maxDelta) : 0;
    if (d > 0) return 'rgb(255,' + (255 - c) + ',' + (255 - c) + ')';
    if (d < 0) return 'rgb(' + (255 - c) + ',' + (255 - c) + ',255)';
    return 'rgb(255,255,255)';
  }

  function colour(n) {
    if (DIFF) return diffColour(n);
    var f = FUNCS[N.func[n]];
    if (n === 0 || (f[2] & 2)) return 'hsl(0,0%,70%)';
    var h = 0;
    for (var k = 0; k < f[0].length; k++) h = (h * 31 + f[0].charCodeAt(k)) | 0;
    h = Math.abs(h);
    if (SPACE) return 'hsl(' + (90 + h % 60) + ',55%,' + (55 + h % 15) + '%)';
    return 'hsl(' + (h % 50) + ',85%,' + (58 + h % 14) + '%)';
  }

  var drawn = [];   /* node -> {x, w, d} of the last drawing, or undefined */

  function layout() {
    var width = Math.max(200, $('flame').clientWidth || 1200);
    var z = st.zoom;
    var items = [];
    var anc = [];
    for (var a = N.parent[z]; a >= 0; a = N.parent[a]) anc.unshift(a);
    anc.forEach(function (n, d) { items.push({ n: n, x: 0, w: width, d: d }); });
    var base = anc.length;
    var scale = st.total[z] > 0 ? width / st.total[z] : 0;
    var stack = [{ n: z, x: 0, d: base }];
    var maxd = base;
    while (stack.length) {
      var it = stack.pop();
      var w = st.total[it.n] * scale;
      if (w < 0.5 && it.n !== z) continue;
      if (it.n !== z && belowThreshold(st.total[it.n])) continue;
      items.push({ n: it.n, x: it.x, w: it.n === z ? width : w, d: it.d });
      if (it.d > maxd) maxd = it.d;
      var cs = kids[it.n].filter(function (c) { return st.total[c] > 0; });
      cs.sort(function (p, q) { return st.total[q] - st.total[p]; });
      var x = it.x;
      for (var k = 0; k < cs.length; k++) {
        stack.push({ n: cs[k], x: x, d: it.d + 1 });
        x += st.total[cs[k]] * scale;
      }
    }
    return { items: items, width: width, depth: maxd + 1 };
  }

  function drawFlame() {
    var L = layout();
    var height = L.depth * ROW;
    var svg = document.createElementNS(SVGNS, 'svg');
    svg.setAttribute('width', L.width);
    svg.setAttribute('height', height);
    svg.setAttribute('viewBox', '0 0 ' + L.width + ' ' + height);
    svg.setAttribute('role', 'img');
    var match = matcher();
    var sum = 0, nmatch = 0, seen = {};
    drawn = [];
    L.items.forEach(function (it) {
      var y = st.icicle ? it.d * ROW : height - (it.d + 1) * ROW;
      var g = document.createElementNS(SVGNS, 'g');
      g.setAttribute('data-node', it.n);
      var r = document.createElementNS(SVGNS, 'rect');
      r.setAttribute('x', it.x.toFixed(1));
      r.setAttribute('y', y);
      r.setAttribute('width', Math.max(it.w, 0.5).toFixed(1));
      r.setAttribute('height', ROW - 1);
      r.setAttribute('fill', colour(it.n));
      var name = fname(it.n);
      var title = document.createElementNS(SVGNS, 'title');
      title.textContent = name + ': ' + describe(it.n);
      g.appendChild(title);
      g.appendChild(r);
      if (match && it.n !== 0 && match(name)) {
        r.setAttribute('class', 'match');
        if (!seen[N.func[it.n]]) { seen[N.func[it.n]] = 1; nmatch++; }
        if (!hasMatchingAncestor(it.n, match)) sum += st.total[it.n];
      } else if (st.selected >= 0 && it.n !== 0 &&
                 N.func[it.n] !== st.selected) {
        r.setAttribute('class', 'dim');
      }
      if (it.n === st.focus) g.setAttribute('class', 'focus');
      var chars = Math.floor((it.w - 6) / 6.5);
      if (chars >= 3) {
        var t = document.createElementNS(SVGNS, 'text');
        t.setAttribute('x', (it.x + 3).toFixed(1));
        t.setAttribute('y', y + ROW - 5);
        t.textContent = name.length > chars ? name.slice(0, chars - 1) + '\u2026' : name;
        g.appendChild(t);
      }
      svg.appendChild(g);
      drawn[it.n] = it;
    });
    var box = $('flame');
    box.textContent = '';
    box.appendChild(svg);
    var res = $('search-result');
    if (match) {
      res.textContent = nmatch + ' function' + (nmatch === 1 ? '' : 's') +
        ' match: ' + fmtWeight(sum) + ' (' + pct(sum, st.total[st.zoom]).toFixed(2) +
        '% of the view)';
      res.setAttribute('data-matched', sum);
    } else {
      res.textContent = '';
      res.removeAttribute('data-matched');
    }
    $('zoom-path').textContent = st.zoom ? 'zoomed on ' + fname(st.zoom) : '';
  }

  function hasMatchingAncestor(n, match) {
    for (var a = N.parent[n]; a > 0; a = N.parent[a]) {
      if (a < st.zoom) break;
      if (match(fname(a))) return true;
    }
    return false;
  }

  function describe(n) {
    if (DIFF) {
      var bt = N.base_total[n], bs = N.base_self[n];
      return 'new ' + fmtWeight(N.total[n]) + ' total, ' + fmtWeight(N.self[n]) +
        ' self; base ' + fmtWeight(bt) + ' total, ' + fmtWeight(bs) + ' self; change ' +
        fmtDelta(N.total[n] - bt) + ' total' +
        (bt > 0 ? ' (' + (100 * (N.total[n] - bt) / bt).toFixed(1) + '%)' : ' (new)') +
        ', ' + fmtDelta(N.self[n] - bs) + ' self';
    }
    return fmtWeight(st.total[n]) + ' total (' + pct(st.total[n], whole()).toFixed(2) +
      '%), ' + fmtWeight(st.self[n]) + ' self (' + pct(st.self[n], whole()).toFixed(2) + '%)';
  }

  function showDetails(n) {
    if (n === undefined || n === null || !drawn[n]) { $('details').textContent = ''; return; }
    var f = n === 0 ? null : FUNCS[N.func[n]];
    var mod = f && f[1] >= 0 ? MODULES[f[1]] : '';
    $('details').textContent = fname(n) + (mod ? '  [' + mod + ']' : '') + '\n' + describe(n);
  }

  function nodeOf(target) {
    var g = target && target.closest ? target.closest('g[data-node]') : null;
    return g ? +g.getAttribute('data-node') : null;
  }

  function zoomTo(n) {
    st.zoom = n;
    st.focus = n;
    if (n !== 0) st.selected = N.func[n];
    render();
  }

  /* Keyboard: arrows walk the drawn tree, Enter zooms, Esc resets. */
  function flameKey(e) {
    var n = st.focus, next = null;
    var up = st.icicle ? 'ArrowDown' : 'ArrowUp';
    var down = st.icicle ? 'ArrowUp' : 'ArrowDown';
    var drawnKids = function (m) {
      return kids[m].filter(function (c) { return drawn[c]; })
        .sort(function (p, q) { return drawn[p].x - drawn[q].x; });
    };
    if (e.key === up) {
      var cs = drawnKids(n);
      if (cs.length) next = cs[0];
    } else if (e.key === down) {
      if (N.parent[n] >= 0) next = N.parent[n];
    } else if (e.key === 'ArrowLeft' || e.key === 'ArrowRight') {
      if (N.parent[n] >= 0) {
        var sib = drawnKids(N.parent[n]);
        var k = sib.indexOf(n) + (e.key === 'ArrowLeft' ? -1 : 1);
        if (k >= 0 && k < sib.length) next = sib[k];
      }
    } else if (e.key === 'Enter' || e.key === ' ') {
      zoomTo(n);
      e.preventDefault();
      return;
    } else {
      return;
    }
    e.preventDefault();
    if (next !== null && drawn[next]) {
      st.focus = next;
      drawFlame();
      showDetails(next);
    }
  }

  /* --- tables ------------------------------------------------------ */

  var COLS = [
    { key: 'name', label: 'Function' },
    { key: 'self', label: SPACE ? 'Self bytes' : 'Self' },
    { key: 'selfPct', label: 'Self %' },
    { key: 'total', label: SPACE ? 'Total bytes' : 'Total' },
    { key: 'totalPct', label: 'Total %' }
  ];

  function flatRows() {
    var F = funcFigures(), w = whole(), rows = [];
    for (var f = 0; f < FUNCS.length; f++) {
      if (F.total[f] <= 0 && F.self[f] <= 0) continue;
      rows.push({ f: f, name: FUNCS[f][0], self: F.self[f], total: F.total[f],
                  selfPct: pct(F.self[f], w), totalPct: pct(F.total[f], w) });
    }
    return rows;
  }

  function sortRows(rows) {
    var key = st.sortKey, dir = st.sortDir;
    rows.sort(function (a, b) {
      var x = a[key], y = b[key];
      if (x < y) return -dir;
      if (x > y) return dir;
      return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
    });
  }

  function drawFlat() {
    var table = $('flat');
    var head = el('tr');
    COLS.forEach(function (c) {
      var th = el('th', c.label);
      th.tabIndex = 0;
      th.setAttribute('data-key', c.key);
      th.setAttribute('scope', 'col');
      if (st.sortKey === c.key)
        th.setAttribute('aria-sort', st.sortDir > 0 ? 'ascending' : 'descending');
      head.appendChild(th);
    });
    table.tHead.textContent = '';
    table.tHead.appendChild(head);
    var rows = flatRows();
    var hiddenRows = rows.filter(function (r) { return r.selfPct + 1e-9 < st.threshold; }).length;
    rows = rows.filter(function (r) { return r.selfPct + 1e-9 >= st.threshold; });
    sortRows(rows);
    var body = table.tBodies[0];
    body.textContent = '';
    rows.forEach(function (r) {
      var tr = el('tr');
      tr.tabIndex = 0;
      tr.setAttribute('data-func', r.f);
      if (r.f === st.selected) tr.className = 'selected';
      tr.appendChild(el('td', r.name));
      tr.appendChild(el('td', fmtWeight(r.self)));
      tr.appendChild(el('td', r.selfPct.toFixed(2)));
      tr.appendChild(el('td', fmtWeight(r.total)));
      tr.appendChild(el('td', r.totalPct.toFixed(2)));
      body.appendChild(tr);
    });
    if (hiddenRows) {
      var tr = el('tr');
      var td = el('td', hiddenRows + ' more function' + (hiddenRows === 1 ? '' : 's') +
                  ' below the ' + st.threshold + '% threshold', 'note');
      td.colSpan = COLS.length;
      tr.appendChild(td);
      body.appendChild(tr);
    }
  }

  /* Callers and callees of f: its outermost activation on each stack. */
  function drawGraph() {
    var f = st.selected;
    $('selected').textContent = f >= 0 ? FUNCS[f][0] : '(select a function)';
    var callers = {}, callees = {}, selfW = 0, totalW = 0;
    if (f >= 0) {
      for (var n = 1; n < nn; n++) {
        if (N.func[n] !== f || st.total[n] <= 0) continue;
        var outer = true;
        for (var a = N.parent[n]; a > 0; a = N.parent[a])
          if (N.func[a] === f) { outer = false; break; }
        selfW += st.self[n];
        if (!outer) continue;
        totalW += st.total[n];
        var p = N.parent[n];
        var key = p === 0 ? -1 : N.func[p];
        callers[key] = (callers[key] || 0) + st.total[n];
        kids[n].forEach(function (c) {
          if (st.total[c] > 0)
            callees[N.func[c]] = (callees[N.func[c]] || 0) + st.total[c];
        });
      }
    }
    fillEdges($('callers'), callers, totalW);
    fillEdges($('callees'), callees, totalW, f >= 0 ? selfW : null);
  }

  /* Sets table's header row to the column names, empties its body and
   * returns it. */
  function resetTable(table, names) {
    var head = el('tr');
    names.forEach(function (h) {
      var th = el('th', h);
      th.setAttribute('scope', 'col');
      head.appendChild(th);
    });
    table.tHead.textContent = '';
    table.tHead.appendChild(head);
    var body = table.tBodies[0];
    body.textContent = '';
    return body;
  }

  function fillEdges(table, map, totalW, selfW) {
    var body = resetTable(table, ['Function', 'Weight', '% of selected']);
    var keys = Object.keys(map).map(Number);
    keys.sort(function (a, b) { return map[b] - map[a]; });
    keys.forEach(function (k) {
      var tr = el('tr');
      tr.tabIndex = 0;
      if (k >= 0) tr.setAttribute('data-func', k);
      tr.appendChild(el('td', k >= 0 ? FUNCS[k][0] : '(root of the stacks)'));
      tr.appendChild(el('td', fmtWeight(map[k])));
      tr.appendChild(el('td', pct(map[k], totalW).toFixed(2)));
      body.appendChild(tr);
    });
    if (selfW !== null && selfW !== undefined) {
      var tr = el('tr');
      tr.appendChild(el('td', '(self)'));
      tr.appendChild(el('td', fmtWeight(selfW)));
      tr.appendChild(el('td', pct(selfW, totalW).toFixed(2)));
      body.appendChild(tr);
    }
  }

  function selectFunc(f) {
    st.selected = f;
    render();
  }

  /* --- timeline ---------------------------------------------------- */

  var TRACK_H = 16, LABEL_W = 180;
  var span = times && times.length ? times[times.length - 1] : 0;

  function trackLabel(k) {
    var t = D.tracks[k];
    var s = (t[3] || 'thread') + ' ' + t[2];
    if (D.spools > 1) s = 'pid ' + t[1] + ': ' + s;
    return s;
  }

  /* The rows of the timeline: each thread's track, after a row for its
   * process (the sum of its threads) when the page has several. */
  function timelineRows() {
    var rows = [], ntr = D.tracks.length, last = -1;
    var multi = (D.processes || []).length > 1;
    for (var k = 0; k < ntr; k++) {
      var sp = D.tracks[k][0];
      if (multi && sp !== last) {
        var ks = [];
        for (var j = 0; j < ntr; j++) if (D.tracks[j][0] === sp) ks.push(j);
        rows.push({ label: procLabel(sp), tracks: ks, proc: true });
        last = sp;
      }
      rows.push({ label: trackLabel(k), tracks: [k], proc: false });
    }
    return rows;
  }

  function procLabel(sp) {
    var p = D.processes[sp];
    var cmd = p ? (p[4] || p[3] || '') : '';
    var base = cmd.split(' ')[0].split('/').pop();
    return 'pid ' + (p ? p[0] : '?') + ' ' + base;
  }

  /* --- the heap: the sampled allocations of every process ---------- */

  var HEAP = D.heap, heapT = null;
  var HEAP_H = 44, HEAP_BAR = 4;
  if (HEAP) {
    heapT = new Float64Array(HEAP.t.length);
    var hacc = 0;
    for (i = 0; i < HEAP.t.length; i++) { hacc += HEAP.t[i]; heapT[i] = hacc; }
  }

  /* The variance estimate of one sampled allocation: w (w - n). */
  function heapVar(k) {
    var w = HEAP.w[k], n = HEAP.n[k];
    return w > n ? w * (w - n) : 0;
  }

  /* The estimated live heap at time t (microseconds) and its variance. */
  function heapAt(t) {
    var w = 0, v = 0;
    for (var k = 0; k < heapT.length && heapT[k] <= t; k++) {
      var e = HEAP.e[k];
      if (e === null || e > t) { w += HEAP.w[k]; v += heapVar(k); }
    }
    return [w, v];
  }

  /* Bytes allocated from a to b (microseconds) and their variance. */
  function heapAllocated(a, b) {
    var w = 0, v = 0;
    for (var k = 0; k < heapT.length; k++)
      if (heapT[k] >= a && heapT[k] <= b) { w += HEAP.w[k]; v += heapVar(k); }
    return [w, v];
  }

  /* Per bar of HEAP_BAR pixels the allocation rate (bytes/s) and the
   * half-width of its 95% interval; per pixel the live heap at its end
   * and its half-width. */
  var heapSeries = null;

  function computeHeap(plot) {
    var nb = Math.ceil(plot / HEAP_BAR);
    var rate = new Float64Array(nb), rateErr = new Float64Array(nb);
    var dW = new Float64Array(plot), dV = new Float64Array(plot);
    var xOf = function (t) {
      return Math.max(0, span > 0 ? Math.floor(t / span * (plot - 1)) : 0);
    };
    for (var k = 0; k < heapT.length; k++) {
      var t = heapT[k], w = HEAP.w[k], v = heapVar(k);
      if (t > span) break;
      var x = xOf(t);
      if (t >= 0) { rate[Math.floor(x / HEAP_BAR)] += w; rateErr[Math.floor(x / HEAP_BAR)] += v; }
      dW[x] += w; dV[x] += v;
      var e = HEAP.e[k];
      if (e !== null && e <= span) { dW[xOf(e)] -= w; dV[xOf(e)] -= v; }
    }
    var secs = span > 0 ? HEAP_BAR * span / Math.max(1, plot - 1) / 1e6 : 1;
    for (k = 0; k < nb; k++) {
      rateErr[k] = 1.96 * Math.sqrt(Math.max(0, rateErr[k])) / secs;
      rate[k] /= secs;
    }
    var live = new Float64Array(plot), liveErr = new Float64Array(plot);
    var cw = 0, cv = 0;
    for (x = 0; x < plot; x++) {
      cw += dW[x]; cv += dV[x];
      live[x] = Math.max(0, cw);
      liveErr[x] = 1.96 * Math.sqrt(Math.max(0, cv));
    }
    heapSeries = { rate: Array.from(rate), rateErr: Array.from(rateErr),
                   live: Array.from(live), liveErr: Array.from(liveErr),
                   bar: HEAP_BAR, plot: plot };
  }

  function drawHeap(cx, y0, plot, css) {
    var S = heapSeries, line = css.getPropertyValue('--heap');
    var band = css.getPropertyValue('--heap-band'), fg = css.getPropertyValue('--fg');
    var top = 1, k, x, h = HEAP_H - 4;
    for (k = 0; k < S.rate.length; k++) top = Math.max(top, S.rate[k] + S.rateErr[k]);
    var y = y0 + HEAP_H - 2;
    for (k = 0; k < S.rate.length; k++) {
      var x0 = LABEL_W + k * HEAP_BAR;
      var lo = Math.max(0, S.rate[k] - S.rateErr[k]), hi = S.rate[k] + S.rateErr[k];
      cx.fillStyle = line;
      if (S.rate[k] > 0) cx.fillRect(x0, y - h * S.rate[k] / top, HEAP_BAR - 1, h * S.rate[k] / top);
      cx.fillStyle = band;
      if (hi > 0) cx.fillRect(x0, y - h * hi / top, HEAP_BAR - 1, h * (hi - lo) / top);
    }
    cx.fillStyle = fg;
    cx.fillText('alloc rate', 2, y0 + 12);
    cx.fillText('\u2264 ' + fmtBytes(top) + '/s', 2, y0 + 26);
    y0 += HEAP_H;
    y = y0 + HEAP_H - 2;
    top = 1;
    for (x = 0; x < plot; x++) top = Math.max(top, S.live[x] + S.liveErr[x]);
    cx.fillStyle = band;
    for (x = 0; x < plot; x++) {
      var a = Math.max(0, S.live[x] - S.liveErr[x]), b = S.live[x] + S.liveErr[x];
      if (b > 0) cx.fillRect(LABEL_W + x, y - h * b / top, 1, h * (b - a) / top);
    }
    cx.fillStyle = line;
    for (x = 0; x < plot; x++)
      if (S.live[x] > 0) cx.fillRect(LABEL_W + x, y - h * S.live[x] / top, 1, Math.max(1.5, h * S.live[x] / top));
    cx.fillStyle = fg;
    cx.fillText('live heap', 2, y0 + 12);
    cx.fillText('\u2264 ' + fmtBytes(top), 2, y0 + 26);
  }

  function drawTimeline() {
    var box = $('timeline');
    if (!TL || !times.length) {
      $('timeline-section').hidden = true;
      return;
    }
    $('timeline-section').hidden = !mainView;
    if (!mainView) return;
    var width = Math.max(300, box.clientWidth || 1200);
    var ntr = D.tracks.length, rows = timelineRows();
    var heapH = HEAP ? 2 * HEAP_H : 0;
    var tracksH = rows.length * TRACK_H;
    var canvas = document.createElement('canvas');
    var ratio = window.devicePixelRatio || 1;
    canvas.width = width * ratio;
    canvas.height = (tracksH + heapH + 14) * ratio;
    canvas.style.height = (tracksH + heapH + 14) + 'px';
    var cx = canvas.getContext('2d');
    cx.scale(ratio, ratio);
    var css = getComputedStyle(document.documentElement);
    var fg = css.getPropertyValue('--fg'), run = css.getPropertyValue('--track');
    var procColour = css.getPropertyValue('--proc');
    var blockedColour = css.getPropertyValue('--blocked');
    var plot = width - LABEL_W - 4;
    var bins = [], bl = [], k, t, x;
    for (t = 0; t < ntr; t++) { bins.push(new Float64Array(plot)); bl.push(new Float64Array(plot)); }
    var blocked = {};
    (TL.blocked || []).forEach(function (b) { blocked[b] = 1; });
    for (k = 0; k < times.length; k++) {
      x = span > 0 ? Math.min(plot - 1, Math.floor(times[k] / span * (plot - 1))) : 0;
      /* Bars are weight per pixel: CPU time, or bytes allocated. */
      (blocked[k] ? bl : bins)[typeof TL.k === 'number' ? TL.k : TL.k[k]][x] +=
        sampleWeight(k);
    }
    /* Each row its bins; threads share one scale, processes another. */
    var rowBins = rows.map(function (r) {
      if (r.tracks.length === 1) return [bins[r.tracks[0]], bl[r.tracks[0]]];
      var v = new Float64Array(plot), b = new Float64Array(plot);
      r.tracks.forEach(function (q) {
        for (var z = 0; z < plot; z++) { v[z] += bins[q][z]; b[z] += bl[q][z]; }
      });
      return [v, b];
    });
    var maxBin = [1, 1];
    rows.forEach(function (r, q) {
      for (var z = 0; z < plot; z++)
        maxBin[r.proc ? 1 : 0] = Math.max(maxBin[r.proc ? 1 : 0], rowBins[q][0][z] + rowBins[q][1][z]);
    });
    cx.font = '11px system-ui, sans-serif';
    rows.forEach(function (r, q) {
      var y = q * TRACK_H;
      cx.fillStyle = fg;
      cx.font = (r.proc ? 'bold ' : '') + '11px system-ui, sans-serif';
      cx.fillText((r.proc ? '' : (rows.length > ntr ? '  ' : '')) + r.label.slice(0, 28), 2, y + 12);
      for (var z = 0; z < plot; z++) {
        var v = rowBins[q][0][z], b = rowBins[q][1][z];
        if (v) {
          cx.fillStyle = r.proc ? procColour : run;
          var h = Math.max(2, (TRACK_H - 3) * v / maxBin[r.proc ? 1 : 0]);
          cx.fillRect(LABEL_W + z, y + TRACK_H - 1 - h, 1, h);
        }
        if (b) {
          cx.fillStyle = blockedColour;
          cx.fillRect(LABEL_W + z, y + 2, 1, 3);
        }
      }
    });
    cx.font = '11px system-ui, sans-serif';
    if (HEAP) {
      computeHeap(plot);
      drawHeap(cx, tracksH, plot, css);
    }
    cx.fillStyle = fg;
    var yAxis = tracksH + heapH + 11;
    cx.fillText('0 s', LABEL_W, yAxis);
    var end = (span / 1e6).toFixed(3) + ' s';
    cx.fillText(end, width - 4 - cx.measureText(end).width, yAxis);
    box.textContent = '';
    box.appendChild(canvas);
    var sel = el('div', null, 'sel');
    sel.hidden = !st.range;
    if (st.range) {
      sel.style.left = (LABEL_W + st.range[0] / span * (plot - 1)) + 'px';
      sel.style.width = Math.max(1, (st.range[1] - st.range[0]) / span * (plot - 1)) + 'px';
    }
    box.appendChild(sel);
    box._plot = plot;
    box._rows = rows;
    box._bins = rowBins;
  }

  /* What the timeline shows at a point: the row's weight in that pixel,
   * and the heap's figures there. */
  function timelineHover(e) {
    var box = $('timeline');
    if (!box._plot) return;
    var r = box.getBoundingClientRect();
    var x = Math.floor(e.clientX - r.left - LABEL_W), y = e.clientY - r.top;
    if (x < 0 || x >= box._plot) { $('timeline-details').textContent = ''; return; }
    var t = timeAt(e.clientX), parts = [(t / 1e6).toFixed(3) + ' s'];
    var q = Math.floor(y / TRACK_H);
    if (q >= 0 && q < box._rows.length)
      parts.push(box._rows[q].label + ': ' + fmtWeight(box._bins[q][0][x] + box._bins[q][1][x]) +
                 ' in this pixel');
    if (HEAP && heapSeries) {
      var S = heapSeries, bar = Math.floor(x / HEAP_BAR);
      parts.push('allocation rate ' + fmtBytes(S.rate[bar]) + '/s \u00b1 ' +
                 fmtBytes(S.rateErr[bar]) + '/s');
      parts.push('live heap ' + fmtBytes(S.live[x]) + ' \u00b1 ' + fmtBytes(S.liveErr[x]) +
                 ' (95%)');
    }
    $('timeline-details').textContent = parts.join(' \u00b7 ');
  }

  /* The heap in a range: allocated in it, live at its ends. */
  function heapRangeText(a, b) {
    var al = heapAllocated(a, b), la = heapAt(a), lb = heapAt(b);
    var ci = function (v) { return fmtBytes(1.96 * Math.sqrt(v[1])); };
    st.heapRange = { allocated: al[0], allocatedErr: 1.96 * Math.sqrt(al[1]),
                     liveStart: la[0], liveEnd: lb[0] };
    return '; allocated ' + fmtBytes(al[0]) + ' \u00b1 ' + ci(al) + ', live heap ' +
      fmtBytes(la[0]) + ' \u00b1 ' + ci(la) + ' at its start, ' + fmtBytes(lb[0]) +
      ' \u00b1 ' + ci(lb) + ' at its end (95%)';
  }

  function timeAt(clientX) {
    var box = $('timeline'), r = box.getBoundingClientRect();
    var x = clientX - r.left - LABEL_W;
    return Math.max(0, Math.min(span, x / (box._plot - 1) * span));
  }

  function setRange(a, b) {
    if (a === null) {
      st.range = null;
    } else {
      if (a > b) { var t = a; a = b; b = t; }
      st.range = [a, b];
    }
    recompute();
  }

  function recompute() {
    if (st.range) computeRange(st.range[0], st.range[1]);
    else computeWhole();
    if (st.zoom && !(st.total[st.zoom] > 0)) st.zoom = 0;
    if (!(st.total[st.focus] > 0)) st.focus = st.zoom;
    var r = $('range');
    st.heapRange = null;
    r.textContent = st.range ? 'range ' + (st.range[0] / 1e6).toFixed(3) + ' s to ' +
      (st.range[1] / 1e6).toFixed(3) + ' s: ' + fmtWeight(whole()) +
      (HEAP ? heapRangeText(st.range[0], st.range[1]) : '') : '';
    render();
  }

  function timelineEvents() {
    var box = $('timeline'), start = null;
    box.addEventListener('mousedown', function (e) { start = timeAt(e.clientX); e.preventDefault(); });
    window.addEventListener('mouseup', function (e) {
      if (start === null) return;
      var end = timeAt(e.clientX);
      if (Math.abs(end - start) > span / 1000) setRange(start, end);
      start = null;
    });
    box.addEventListener('dblclick', function () { setRange(null); });
    box.addEventListener('mousemove', timelineHover);
    box.addEventListener('mouseleave', function () { $('timeline-details').textContent = ''; });
    box.addEventListener('keydown', function (e) {
      var step = span / 50;
      var r = st.range ? st.range.slice() : [0, span];
      if (e.key === '[') r[0] = Math.max(0, r[0] - step);
      else if (e.key === ']') r[0] = Math.min(r[1], r[0] + step);
      else if (e.key === '{') r[1] = Math.max(r[0], r[1] - step);
      else if (e.key === '}') r[1] = Math.min(span, r[1] + step);
      else return;
      e.preventDefault();
      setRange(r[0], r[1]);
    });
  }

  /* --- processes -------------------------------------------------- */

  /* The process images of a merged run as a tree: each under its parent
   * (the program that exec'd it, or the process that forked it), with the
   * samples and weight the page has of it. */
  function drawProcesses() {
    var P = D.processes || [];
    if (P.length < 2) return;
    $('processes-section').hidden = false;
    var cnt = new Float64Array(P.length), wt = new Float64Array(P.length), k;
    for (k = 0; TL && k < times.length; k++) {
      var sp = D.tracks[typeof TL.k === 'number' ? TL.k : TL.k[k]][0];
      cnt[sp]++;
      wt[sp] += sampleWeight(k);
    }
    var kidsP = P.map(function () { return []; }), order = [], seen = {};
    P.forEach(function (p, q) {
      if (p[2] >= 0 && p[2] < P.length && p[2] !== q) kidsP[p[2]].push(q);
    });
    var visit = function (q, depth) {
      if (seen[q]) return;
      seen[q] = 1;
      order.push([q, depth]);
      kidsP[q].forEach(function (c) { visit(c, depth + 1); });
    };
    P.forEach(function (p, q) { if (!(p[2] >= 0)) visit(q, 0); });
    P.forEach(function (p, q) { visit(q, 0); });
    var body = resetTable($('processes'), ['PID', 'Parent', 'Samples',
      SPACE ? 'Bytes' : 'CPU', 'Ended', 'Command']);
    order.forEach(function (o) {
      var p = P[o[0]], d = o[1], tr = el('tr');
      tr.setAttribute('data-pid', p[0]);
      tr.setAttribute('data-depth', d);
      tr.setAttribute('aria-level', d + 1);
      tr.appendChild(el('td', '\u00a0'.repeat(3 * d) + (d ? '\u2514\u00a0' : '') + p[0]));
      tr.appendChild(el('td', String(p[1])));
      tr.appendChild(el('td', String(cnt[o[0]])));
      tr.appendChild(el('td', fmtWeight(wt[o[0]])));
      tr.appendChild(el('td', p[5] ? 'yes' : 'no (running or killed)'));
      tr.appendChild(el('td', p[4] || p[3] || '?', 'cmd'));
      body.appendChild(tr);
    });
  }

  /* --- a comparison (--diff) ---------------------------------------- */

  function diffFig(row, v, sign) {
    var u = DIFF.unit, s;
    if (v === null || v === undefined) return '';
    if (row.kind === 'calls') s = String(Math.round(Math.abs(v)));
    else if (u === 'fraction') s = (100 * Math.abs(v)).toFixed(3) + '%';
    else if (u === 'bytes') s = fmtBytes(Math.abs(v));
    else if (u === 'seconds') s = Math.abs(v).toFixed(3) + ' s';
    else s = Math.abs(v).toPrecision(4) + (u === 'bytes per call' ? ' B/call' : ' s/call');
    return (v < 0 ? (sign ? '\u2212' : '-') : sign ? '+' : '') + s;
  }

  function funcByLabel(label) {
    for (var f = 0; f < FUNCS.length; f++) if (FUNCS[f][0] === label) return f;
    return -1;
  }

  function drawDiffTable(id, rows) {
    var table = $(id), metric = DIFF.metric;
    var body = resetTable(table, ['Function', 'Base self', 'New self',
      'Base total', 'New total', 'Change (' + metric + ')', '\u00b195%',
      'Change %', 'p', '']);
    rows.forEach(function (r) {
      var tr = el('tr'), f = funcByLabel(r.name);
      tr.tabIndex = 0;
      tr.setAttribute('data-name', r.name);
      if (f >= 0) tr.setAttribute('data-func', f);
      if (f >= 0 && f === st.selected) tr.className = 'selected';
      tr.appendChild(el('td', r.name + (r.kind === 'calls' ? ' (exact)' : '')));
      tr.appendChild(el('td', diffFig(r, r.base.self)));
      tr.appendChild(el('td', diffFig(r, r.new.self)));
      tr.appendChild(el('td', diffFig(r, r.base.total)));
      tr.appendChild(el('td', diffFig(r, r.new.total)));
      tr.appendChild(el('td', diffFig(r, r.change, true)));
      tr.appendChild(el('td', diffFig(r, (r.interval[1] - r.interval[0]) / 2)));
      tr.appendChild(el('td', r.change_pct === null ? 'new' :
                        (r.change_pct >= 0 ? '+' : '') + r.change_pct.toFixed(1) + '%'));
      tr.appendChild(el('td', r.p < 1e-4 ? '<0.0001' : r.p.toFixed(4)));
      tr.appendChild(el('td', r.failed ? 'FAIL' : r.inherited ? '(from callees)' : '',
                        r.failed ? 'fail' : null));
      body.appendChild(tr);
    });
    if (!rows.length) {
      var tr = el('tr'), td = el('td', '(none)', 'note');
      td.colSpan = 10;
      tr.appendChild(td);
      body.appendChild(tr);
    }
  }

  function drawDiff() {
    if (!DIFF) return;
    drawDiffTable('diff-regressions', DIFF.regressions);
    drawDiffTable('diff-improvements', DIFF.improvements);
    drawDiffTable('diff-unchanged', DIFF.unchanged);
  }

  function diffLegend() {
    $('diff-legend').textContent = 'Frames: the new runs\' calling-context tree (mean per run), ' +
      'coloured by the change of each frame\'s ' + diffBy + ' against the base: red grew, ' +
      'blue shrank, white unchanged; the deepest colour is the largest change, ' +
      fmtDelta(maxDelta).slice(1) + '. Code that ran in the base only has no frame ' +
      '(see the tables). Hover for base, new and change.';
  }

  function setupDiff() {
    if (!DIFF) return;
    $('tables').hidden = true;
    $('timeline-section').hidden = true;
    $('flame').classList.add('diff');
    $('diff-tables').hidden = false;
    $('diff-by-label').hidden = false;
    $('diff-legend').hidden = false;
    var v = DIFF.verdict;
    $('diff-verdict').textContent = v.status === 'fail' ?
      'FAIL: ' + v.failed.join(', ') : 'pass: ' + DIFF.regressions.length +
      ' regressions, ' + DIFF.improvements.length + ' improvements';
    $('diff-test').textContent = 'Figures in ' +
      (DIFF.unit === 'fraction' ? 'shares' : DIFF.unit) + ' (normalize: ' + DIFF.normalize +
      '), mean per run. Test: two-sided Welch t of each change, ' + (100 * DIFF.test.alpha) +
      '% family-wise over ' + DIFF.test.comparisons + ' comparisons (Bonferroni).';
    $('diff-by').addEventListener('change', function (e) {
      diffBy = e.target.value;
      diffScale();
      diffLegend();
      drawFlame();
    });
    ['diff-regressions', 'diff-improvements', 'diff-unchanged'].forEach(function (id) {
      var t = $(id).tBodies[0];
      t.addEventListener('click', pickRow);
      t.addEventListener('keydown', function (e) {
        if (e.key === 'Enter' || e.key === ' ') { pickRow(e); e.preventDefault(); }
      });
    });
    diffScale();
    diffLegend();
  }

  /* --- the page ---------------------------------------------------- */

  function render() {
    drawFlame();
    if (DIFF) {
      drawDiff();
      return;
    }
    drawFlat();
    drawGraph();
    drawTimeline();
  }

  function summary() {
    var parts = [];
    if (DIFF) {
      parts.push('comparison of ' + D.kind + ' profiles' + (DIFF.view ? ' (' + DIFF.view + ')' : ''));
      parts.push('base: ' + DIFF.base.spools.join(' ') + ', ' + DIFF.base.samples + ' samples');
      parts.push('new: ' + DIFF.new.spools.join(' ') + ', ' + DIFF.new.samples + ' samples');
      parts.push('verdict: ' + DIFF.verdict.status);
      $('summary').textContent = parts.join(' \u00b7 ');
      $('title').textContent = 'profanalyze --diff: ' + (D.title || '');
      document.title = 'profanalyze --diff: ' + (D.title || 'report');
      return;
    }
    if (D.exe) parts.push(D.exe);
    parts.push(SPACE ? 'space profile (' + D.view + ')' : 'time profile' +
               (D.clock ? ' (' + D.clock + ' clock)' : ''));
    parts.push(D.samples + ' samples, ' + fmtWeight(D.weight));
    if (D.spools > 1) parts.push(D.spools + ' processes');
    if (D.hidden) parts.push(D.hidden + ' hidden functions collapsed into their callers');
    if (!D.complete) parts.push('incomplete spool');
    $('summary').textContent = parts.join(' \u00b7 ');
    $('title').textContent = 'profanalyze: ' + (D.title || '');
    document.title = 'profanalyze: ' + (D.title || 'report');
  }

  function events() {
    var flame = $('flame');
    flame.addEventListener('click', function (e) {
      var n = nodeOf(e.target);
      if (n !== null) zoomTo(n);
    });
    flame.addEventListener('mousemove', function (e) { showDetails(nodeOf(e.target)); });
    flame.addEventListener('keydown', flameKey);
    $('search').addEventListener('input', function (e) {
      st.search = e.target.value || null;
      drawFlame();
    });
    $('threshold').value = st.threshold;
    $('threshold').addEventListener('change', function (e) {
      var v = parseFloat(e.target.value);
      st.threshold = isFinite(v) && v >= 0 ? v : 0;
      render();
    });
    $('icicle').addEventListener('change', function (e) {
      st.icicle = e.target.checked;
      drawFlame();
    });
    $('reset').addEventListener('click', reset);
    $('flat').tHead.addEventListener('click', sortBy);
    $('flat').tHead.addEventListener('keydown', function (e) {
      if (e.key === 'Enter' || e.key === ' ') { sortBy(e); e.preventDefault(); }
    });
    ['flat', 'callers', 'callees'].forEach(function (id) {
      var t = $(id).tBodies[0];
      t.addEventListener('click', pickRow);
      t.addEventListener('keydown', function (e) {
        if (e.key === 'Enter' || e.key === ' ') { pickRow(e); e.preventDefault(); }
      });
    });
    document.addEventListener('keydown', function (e) {
      var typing = e.target && e.target.tagName === 'INPUT';
      if (e.key === '/' && !typing) { $('search').focus(); e.preventDefault(); }
      if (e.key === 'Escape') reset();
    });
    /* The canvas has the colours of the scheme it was drawn in. */
    if (window.matchMedia)
      window.matchMedia('(prefers-color-scheme: dark)')
        .addEventListener('change', drawTimeline);
    var pending = null;
    window.addEventListener('resize', function () {
      clearTimeout(pending);
      pending = setTimeout(render, 100);
    });
    timelineEvents();
  }

  /* A space profile's views: allocated, in use, peak. The samples (the
   * timeline) are those of the view exported. */
  var VIEW_NAMES = { alloc: 'Allocated', inuse: 'In use (never freed)',
                     peak: 'Live at the peak' };

  function setupViews() {
    var sel = $('view');
    if (!D.views || D.views.length < 2) {
      $('view-label').hidden = true;
      return;
    }
    D.views.forEach(function (v, k) {
      var o = el('option', VIEW_NAMES[v.name] || v.name);
      o.value = k;
      if (v.main) o.selected = true;
      sel.appendChild(o);
    });
    sel.addEventListener('change', function () { useView(+sel.value); });
  }

  function useView(k) {
    var v = D.views[k];
    useTree(v.main ? D : v);
    mainView = !!v.main;
    st.zoom = 0;
    st.focus = 0;
    st.selected = -1;
    st.range = null;
    $('view').value = k;
    recompute();
  }

  function sortBy(e) {
    var th = e.target.closest('th');
    if (!th) return;
    var key = th.getAttribute('data-key');
    if (st.sortKey === key) st.sortDir = -st.sortDir;
    else { st.sortKey = key; st.sortDir = key === 'name' ? 1 : -1; }
    drawFlat();
    var again = $('flat').querySelector('th[data-key="' + key + '"]');
    if (again) again.focus();
  }

  function pickRow(e) {
    var tr = e.target.closest('tr[data-func]');
    if (tr) selectFunc(+tr.getAttribute('data-func'));
  }

  function reset() {
    st.zoom = 0;
    st.focus = 0;
    st.search = null;
    st.selected = -1;
    $('search').value = '';
    if (st.range) { setRange(null); return; }
    render();
  }

  /* For tests and the console: the state and a few actions. */
  window.profanalyze = {
    data: D,
    state: st,
    zoom: zoomTo,
    search: function (s) { $('search').value = s; st.search = s || null; drawFlame(); },
    range: function (a, b) { setRange(a, b); },
    view: function (k) { useView(k); },
    heap: function () { return heapSeries; },
    heapAt: function (t) { return HEAP ? heapAt(t) : null; },
    heapAllocated: function (a, b) { return HEAP ? heapAllocated(a, b) : null; },
    diffBy: function (by) { $('diff-by').value = by; diffBy = by; diffScale(); diffLegend(); drawFlame(); }
  };

  summary();
  computeWhole();
  setupViews();
  setupDiff();
  $('heap-note').hidden = !HEAP;
  events();
  drawProcesses();
  render();
})();
