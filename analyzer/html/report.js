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
 */
(function () {
  'use strict';

  var D = JSON.parse(document.getElementById('profile-data').textContent);
  /* The tree shown: the profile's, or another view of a space profile
   * (useView). */
  var FUNCS, MODULES, N, nn, kids;
  var SPACE = D.kind === 'space';
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
    if (SPACE) {
      if (w >= 1048576) return (w / 1048576).toFixed(2) + ' MiB';
      if (w >= 1024) return (w / 1024).toFixed(1) + ' KiB';
      return Math.round(w) + ' B';
    }
    if (w >= 1e9) return (w / 1e9).toFixed(3) + ' s';
    return (w / 1e6).toFixed(3) + ' ms';
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

  function colour(n) {
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

  function fillEdges(table, map, totalW, selfW) {
    var head = el('tr');
    ['Function', 'Weight', '% of selected'].forEach(function (h) {
      var th = el('th', h); th.setAttribute('scope', 'col'); head.appendChild(th);
    });
    table.tHead.textContent = '';
    table.tHead.appendChild(head);
    var body = table.tBodies[0];
    body.textContent = '';
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

  function drawTimeline() {
    var box = $('timeline');
    if (!TL || !times.length) {
      $('timeline-section').hidden = true;
      return;
    }
    $('timeline-section').hidden = !mainView;
    if (!mainView) return;
    var width = Math.max(300, box.clientWidth || 1200);
    var ntr = D.tracks.length;
    var canvas = document.createElement('canvas');
    var ratio = window.devicePixelRatio || 1;
    canvas.width = width * ratio;
    canvas.height = (ntr * TRACK_H + 14) * ratio;
    canvas.style.height = (ntr * TRACK_H + 14) + 'px';
    var cx = canvas.getContext('2d');
    cx.scale(ratio, ratio);
    var css = getComputedStyle(document.documentElement);
    var fg = css.getPropertyValue('--fg'), run = css.getPropertyValue('--track');
    var blockedColour = css.getPropertyValue('--blocked');
    var plot = width - LABEL_W - 4;
    var bins = [], bl = [], k, t;
    for (t = 0; t < ntr; t++) { bins.push(new Float64Array(plot)); bl.push(new Float64Array(plot)); }
    var blocked = {};
    (TL.blocked || []).forEach(function (x) { blocked[x] = 1; });
    for (k = 0; k < times.length; k++) {
      var x = span > 0 ? Math.min(plot - 1, Math.floor(times[k] / span * (plot - 1))) : 0;
      /* Bars are weight per pixel: CPU time, or bytes allocated. */
      (blocked[k] ? bl : bins)[typeof TL.k === 'number' ? TL.k : TL.k[k]][x] +=
        sampleWeight(k);
    }
    var maxBin = 1;
    for (t = 0; t < ntr; t++)
      for (x = 0; x < plot; x++) maxBin = Math.max(maxBin, bins[t][x] + bl[t][x]);
    cx.font = '11px system-ui, sans-serif';
    for (t = 0; t < ntr; t++) {
      var y = t * TRACK_H;
      cx.fillStyle = fg;
      cx.fillText(trackLabel(t).slice(0, 28), 2, y + 12);
      for (x = 0; x < plot; x++) {
        var v = bins[t][x], b = bl[t][x];
        if (v) {
          cx.fillStyle = run;
          var h = Math.max(2, (TRACK_H - 3) * v / maxBin);
          cx.fillRect(LABEL_W + x, y + TRACK_H - 1 - h, 1, h);
        }
        if (b) {
          cx.fillStyle = blockedColour;
          cx.fillRect(LABEL_W + x, y + 2, 1, 3);
        }
      }
    }
    cx.fillStyle = fg;
    cx.fillText('0 s', LABEL_W, ntr * TRACK_H + 11);
    var end = (span / 1e6).toFixed(3) + ' s';
    cx.fillText(end, width - 4 - cx.measureText(end).width, ntr * TRACK_H + 11);
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
    r.textContent = st.range ? 'range ' + (st.range[0] / 1e6).toFixed(3) + ' s to ' +
      (st.range[1] / 1e6).toFixed(3) + ' s: ' + fmtWeight(whole()) : '';
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

  /* --- the page ---------------------------------------------------- */

  function render() {
    drawFlame();
    drawFlat();
    drawGraph();
    drawTimeline();
  }

  function summary() {
    var parts = [];
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
    view: function (k) { useView(k); }
  };

  summary();
  computeWhole();
  setupViews();
  events();
  render();
})();
