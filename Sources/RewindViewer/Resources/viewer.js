(function () {
'use strict';
var $ = function (s, r) { return (r || document).querySelector(s); };
var el = function (tag, cls, text) { var e = document.createElement(tag); if (cls) e.className = cls; if (text != null) e.textContent = text; return e; };
var P = JSON.parse($('#rw-data').textContent);
var REDACTED = '\u2039redacted\u203a';
// What redaction writes: the marker, or a keyed hash ('\u2039hash:' + hex + '\u203a', written before the value reached disk).
var KEYED_HASH = /^\u2039hash:[0-9a-f]+\u203a$/;
function isRedacted(value) { return value === REDACTED || KEYED_HASH.test(value); }
var svg = $('#rw-diagram svg');
var stateNodes = {}, transitionNodes = {};
if (svg) {
  svg.querySelectorAll('[data-state]').forEach(function (n) { (stateNodes[n.getAttribute('data-state')] = stateNodes[n.getAttribute('data-state')] || []).push(n); });
  svg.querySelectorAll('[data-transition]').forEach(function (n) { transitionNodes[n.getAttribute('data-transition')] = n; });
}
var M = null, v = 0, pinned = null, matches = null, query = '', playing = null, speed = 1, drawn = null, hashTimer = 0;
// The timeline's view: the part of the session's time it shows, as fractions of the whole.
var zoom = { lo: 0, hi: 1 };
// Play shows each step for at least this long at 1× (divided by the speed; none at max).
var MIN_STEP_MS = 250;

function pairs(list) { var n = list.length >> 1, vs = new Int32Array(n), ix = new Int32Array(n); for (var i = 0; i < n; i++) { vs[i] = list[2 * i]; ix[i] = list[2 * i + 1]; } return { vs: vs, ix: ix }; }
function atOrBefore(c, ver) { var lo = 0, hi = c.vs.length - 1, found = -1; while (lo <= hi) { var mid = (lo + hi) >> 1; if (c.vs[mid] <= ver) { found = mid; lo = mid + 1; } else hi = mid - 1; } return found < 0 ? -1 : c.ix[found]; }
function exactly(c, ver) { var lo = 0, hi = c.vs.length - 1; while (lo <= hi) { var mid = (lo + hi) >> 1; if (c.vs[mid] === ver) return c.ix[mid]; if (c.vs[mid] < ver) lo = mid + 1; else hi = mid - 1; } return -1; }

function model(raw) {
  var n = raw.head, t = new Float64Array(n + 1), acc = 0, i;
  for (i = 0; i < n; i++) { acc += raw.dt[i]; t[i + 1] = acc; }
  var sorted = Int32Array.from(raw.dt.filter(function (d) { return d > 0; })).sort();
  var median = sorted.length ? sorted[sorted.length >> 1] : 1000;
  var threshold = Math.max(30000, median * 20), x = new Float64Array(n + 1), gaps = [];
  for (i = 1; i <= n; i++) {
    var d = i === 1 ? 0 : raw.dt[i - 1];
    if (d > threshold) { gaps.push({ version: i, ms: d }); d = threshold; }
    x[i] = x[i - 1] + d;
  }
  return { raw: raw, n: n, base: raw.base ? raw.base - 1 : 0, t: t, x: x, gaps: gaps, threshold: threshold, dat: pairs(raw.dat), ctx: pairs(raw.ctx), nav: pairs(raw.nav), pl: pairs(raw.pl), ops: pairs(raw.ops), src: pairs(raw.src), tr: pairs(raw.tr), texts: [] };
}

function at(ver) {
  var raw = M.raw, s = raw.strings, c = raw.configs[raw.cf[ver]], name = function (i) { return s[i]; };
  var val = function (i) { return i < 0 ? null : raw.values[i]; };
  var d = atOrBefore(M.dat, ver), cx = atOrBefore(M.ctx, ver), nv = atOrBefore(M.nav, ver), op = exactly(M.ops, ver), sc = exactly(M.src, ver);
  return {
    version: ver + M.base,
    event: ver > 0 ? s[raw.ev[ver - 1]] : null,
    time: ver > 0 ? raw.t0 + M.t[ver] : null,
    payload: val(exactly(M.pl, ver)),
    configuration: c[0].map(name),
    active: c[1].map(name),
    source: ver === 0 ? [] : (sc >= 0 ? raw.configs[sc][0].map(name) : raw.configs[raw.cf[ver - 1]][0].map(name)),
    data: ver > 0 && d >= 0 ? raw.values[d] : {},
    context: ver > 0 && cx >= 0 ? raw.values[cx] : null,
    stack: ver > 0 && nv >= 0 ? raw.stacks[nv].map(function (e) { return { screen: s[e[0]], data: val(e[1]) }; }) : [],
    operations: op >= 0 ? s[op] : '',
    transition: exactly(M.tr, ver)
  };
}

// ---- JSON trees and diffs ----
function leaf(value) {
  if (value === null) return el('span', 'rw-z', 'null');
  if (typeof value === 'string') { var e = el('span', isRedacted(value) ? 'rw-s rw-redacted' : 'rw-s', JSON.stringify(value)); return e; }
  if (typeof value === 'number') return el('span', 'rw-n', String(value));
  return el('span', 'rw-b', String(value));
}
function tree(value, depth) {
  if (value === null || typeof value !== 'object') return leaf(value);
  var keys = Array.isArray(value) ? value.map(function (_, i) { return i; }) : Object.keys(value).sort();
  var box = el('details'); box.open = depth < 2;
  box.appendChild(el('summary', null, Array.isArray(value) ? '[' + keys.length + ']' : '{' + keys.length + '}'));
  var fill = function () { if (box.dataset.filled) return; box.dataset.filled = '1'; keys.forEach(function (k) { var row = el('div', 'rw-kv'); row.appendChild(el('span', 'rw-k', k + ': ')); row.appendChild(tree(value[k], depth + 1)); box.appendChild(row); }); };
  if (box.open) fill(); else box.addEventListener('toggle', fill);
  return box;
}
function showTree(host, value) {
  host.textContent = '';
  host.setAttribute('data-value', JSON.stringify(value));
  var empty = value === null || (typeof value === 'object' && Object.keys(value).length === 0);
  host.appendChild(empty ? el('span', 'rw-empty', value === null ? 'null' : 'empty') : tree(value, 0));
}
function same(a, b) { return JSON.stringify(a) === JSON.stringify(b); }
function diff(a, b, path, out) {
  if (same(a, b)) return out;
  var oa = a && typeof a === 'object', ob = b && typeof b === 'object';
  if (oa && ob && Array.isArray(a) === Array.isArray(b)) {
    var keys = {}; Object.keys(a).forEach(function (k) { keys[k] = 1; }); Object.keys(b).forEach(function (k) { keys[k] = 1; });
    Object.keys(keys).sort().forEach(function (k) {
      var p = Array.isArray(a) ? path + '[' + k + ']' : (path ? path + '.' + k : k);
      if (!(k in a)) out.push(['add', p, b[k]]); else if (!(k in b)) out.push(['del', p, a[k]]); else diff(a[k], b[k], p, out);
    });
    return out;
  }
  out.push(['chg', path || '(value)', a, b]);
  return out;
}
function short(value) { var s = JSON.stringify(value); return s === undefined ? 'undefined' : (s.length > 80 ? s.slice(0, 77) + '…' : s); }
// A payload in a few words: an object's keys in order with their values (strings unquoted).
function summary(value) {
  var part = function (x) { return typeof x === 'string' ? x : JSON.stringify(x); };
  var s = value && typeof value === 'object' && !Array.isArray(value) ? Object.keys(value).sort().map(function (k) { return k + '=' + part(value[k]); }).join(' ') : part(value);
  return s.length > 48 ? s.slice(0, 47) + '…' : s;
}
// The states a record entered: the atomic states active after it that were not before it
// (its source configuration), else every active atomic state (a self-transition).
function entered(r) {
  var raw = M.raw, c = raw.configs[raw.cf[r]], sc = exactly(M.src, r), before = sc >= 0 ? raw.configs[sc][0] : raw.configs[raw.cf[r - 1]][0];
  var fresh = c[1].filter(function (k) { return before.indexOf(k) < 0; });
  return (fresh.length ? fresh : c[1]).map(function (k) { return raw.strings[k]; });
}

// ---- timeline ----
var canvas = $('#rw-canvas'), scrub = $('#rw-scrubber');
// Where a point of the session's time is drawn: its x in the timeline's pixels at the zoom.
function xOf(x, total, w) { return (x / total - zoom.lo) / (zoom.hi - zoom.lo) * (w - 1); }
function versionAtX(px) {
  var w = canvas.clientWidth || 1, target = (zoom.lo + px / w * (zoom.hi - zoom.lo)) * (M.x[M.n] || 1), lo = 0, hi = M.n;
  while (lo < hi) { var mid = (lo + hi) >> 1; if (M.x[mid] < target) lo = mid + 1; else hi = mid; }
  if (lo > 0 && target - M.x[lo - 1] < M.x[lo] - target) lo--;
  return Math.max(M.n ? 1 : 0, lo);
}
function drawTimeline() {
  var w = canvas.clientWidth, h = canvas.clientHeight, dpr = window.devicePixelRatio || 1;
  if (!w) return;
  follow();
  if (!drawn || drawn.w !== w || drawn.m !== M || drawn.q !== matches || drawn.z !== zoom) {
    canvas.width = Math.round(w * dpr); canvas.height = Math.round(h * dpr);
    var counts = new Uint32Array(w), hits = new Uint32Array(w), total = M.x[M.n] || 1, max = 1, i, cs = getComputedStyle(document.documentElement);
    for (i = 1; i <= M.n; i++) { var col = Math.floor(xOf(M.x[i], total, w)); if (col < 0 || col >= w) continue; counts[col]++; if (counts[col] > max) max = counts[col]; }
    if (matches) for (i = 0; i < matches.length; i++) { var hx = Math.floor(xOf(M.x[matches[i]], total, w)); if (hx >= 0 && hx < w) hits[hx]++; }
    var base = document.createElement('canvas'); base.width = canvas.width; base.height = canvas.height;
    var g = base.getContext('2d'); g.scale(dpr, dpr);
    var lm = Math.log(max + 1), bw = Math.max(1, Math.min(5, Math.floor(w / ((M.n + 1) * (zoom.hi - zoom.lo)) / 3)));
    for (i = 0; i < w; i++) {
      if (counts[i]) { var bh = Math.max(3, (h - 32) * Math.log(counts[i] + 1) / lm); g.fillStyle = cs.getPropertyValue('--bar').trim(); g.fillRect(Math.min(i, w - bw), h - 14 - bh, bw, bh); }
      if (hits[i]) { g.fillStyle = cs.getPropertyValue('--match').trim(); g.fillRect(i, 0, 1, 6); }
    }
    // Labels: the idle gaps' along the top, the time axis's along the bottom; a label that
    // would overlap one already drawn in its row is left out (its gap's line stays).
    g.strokeStyle = cs.getPropertyValue('--muted').trim(); g.fillStyle = cs.getPropertyValue('--muted').trim(); g.font = '10px system-ui,sans-serif';
    var labels = [], place = function (text, x, row) {
      var lw = g.measureText(text).width, lx = Math.max(0, Math.min(w - lw, x)), y = row ? h - 2 : 16;
      if (labels.some(function (l) { return l.row === row && lx < l.x + l.w + 6 && l.x < lx + lw + 6; })) return false;
      g.fillText(text, lx, y); labels.push({ text: text, x: lx, w: lw, row: row, top: y - 10, bottom: y + 2 }); return true;
    };
    M.gaps.slice().sort(function (a, b) { return b.ms - a.ms; }).forEach(function (gap) {
      var gx = Math.floor(xOf(M.x[gap.version], total, w)) - Math.floor(M.threshold / total / (zoom.hi - zoom.lo) * (w - 1) / 2);
      if (gx < 0 || gx >= w) return;
      g.setLineDash([2, 2]); g.beginPath(); g.moveTo(gx + .5, 8); g.lineTo(gx + .5, h - 12); g.stroke(); g.setLineDash([]);
      place('⋯' + duration(gap.ms), gx + 3, 0);
    });
    // The axis: ticks about every 90 px, each labelled with the time since the first record
    // at that point (gaps are compressed, so the scale is not linear across them).
    if (M.n) for (i = 0; i * 90 < w; i++) {
      var tx = i * 90, tv = versionAtX(tx), label = i === 0 ? new Date(M.raw.t0).toISOString().slice(11, 19) : '+' + clock(M.t[tv]);
      g.fillRect(tx, h - 12, 1, 3);
      place(label, tx + 2, 1);
    }
    var div = M.raw.verification && M.raw.verification.divergence;
    if (div && div.version > M.base) { var dx = Math.floor(xOf(M.x[div.version - M.base], total, w)); g.fillStyle = cs.getPropertyValue('--bad').trim(); g.fillRect(dx - 1, 0, 3, h); }
    drawn = { w: w, m: M, q: matches, z: zoom, base: base, total: total, labels: labels };
  }
  var c = canvas.getContext('2d'); c.setTransform(1, 0, 0, 1, 0, 0); c.clearRect(0, 0, canvas.width, canvas.height); c.drawImage(drawn.base, 0, 0);
  c.setTransform(dpr, 0, 0, dpr, 0, 0);
  var cx = Math.floor(xOf(M.x[v], drawn.total, w));
  c.fillStyle = getComputedStyle(document.documentElement).getPropertyValue('--accent').trim(); c.fillRect(cx - 1, 0, 3, h);
  drawn.pin = null;
  if (pinned != null) {
    var px = Math.floor(xOf(M.x[pinned], drawn.total, w));
    c.fillStyle = getComputedStyle(document.documentElement).getPropertyValue('--match').trim(); c.fillRect(px - 1, 0, 3, h - 12);
    c.beginPath(); c.moveTo(px - 5, 0); c.lineTo(px + 6, 0); c.lineTo(px + .5, 7); c.fill();
    drawn.pin = { version: pinned, x: px };
  }
}
// Zooming: by `factor` (2: in, 0.5: out) around the fraction `at` of the session's time, kept
// inside the whole; at most to a few records across the timeline.
function zoomBy(factor, at) {
  if (!M) return;
  var width = Math.min(1, Math.max((zoom.hi - zoom.lo) / factor, Math.min(1, 4 / Math.max(1, M.n))));
  var lo = Math.max(0, Math.min(1 - width, at - (at - zoom.lo) / (zoom.hi - zoom.lo) * width));
  zoom = { lo: lo, hi: lo + width };
  drawTimeline();
}
function zoomReset() { zoom = { lo: 0, hi: 1 }; if (M) drawTimeline(); }
// The current version stays in view: the view moves (its width kept) when it leaves it.
function follow() {
  if (!M || zoom.hi - zoom.lo >= 1) return;
  var total = M.x[M.n] || 1, f = M.x[v] / total, width = zoom.hi - zoom.lo;
  if (f < zoom.lo || f > zoom.hi) { var lo = Math.max(0, Math.min(1 - width, f - width / 2)); zoom = { lo: lo, hi: lo + width }; }
}
// A time since the first record, for the axis: 0.35 s, 42.5 s, 12:05, 3:04:10, 2 d 03:04.
function clock(ms) {
  if (ms < 60000) return (ms / 1000).toFixed(ms < 10000 ? 2 : 1) + ' s';
  var s = Math.floor(ms / 1000), d = Math.floor(s / 86400), hh = Math.floor(s % 86400 / 3600), mm = Math.floor(s % 3600 / 60), ss = s % 60;
  var two = function (n) { return (n < 10 ? '0' : '') + n; };
  if (d) return d + ' d ' + two(hh) + ':' + two(mm);
  return hh ? hh + ':' + two(mm) + ':' + two(ss) : mm + ':' + two(ss);
}
function duration(ms) { var s = ms / 1000; if (s < 90) return Math.round(s) + ' s'; if (s < 5400) return Math.round(s / 60) + ' min'; if (s < 172800) return Math.round(s / 3600) + ' h'; return Math.round(s / 86400) + ' d'; }

// ---- rendering the cursor ----
function render() {
  var p = at(v), prev = v > lowest() ? at(v - 1) : null;
  document.documentElement.setAttribute('data-version', String(v + M.base));
  $('#rw-pos').textContent = (v + M.base) + ' / ' + (M.n + M.base);
  scrub.value = String(v);
  Object.keys(stateNodes).forEach(function (id) { stateNodes[id].forEach(function (n) { n.classList.remove('rw-active'); }); });
  p.configuration.forEach(function (id) { (stateNodes[id] || []).forEach(function (n) { n.classList.add('rw-active'); }); });
  Object.keys(transitionNodes).forEach(function (k) { transitionNodes[k].classList.remove('rw-taken'); });
  if (p.transition >= 0 && transitionNodes[p.transition]) transitionNodes[p.transition].classList.add('rw-taken');
  var ev = $('#rw-event'); ev.textContent = '';
  ev.appendChild(el('div', 'rw-event-name', p.event == null ? '(before the first record)' : p.event));
  if (p.time != null) {
    var meta = new Date(p.time).toISOString().replace('T', ' ').replace('Z', ' UTC');
    if (v > 1) meta += ' · +' + duration(M.t[v] - M.t[v - 1]).replace(/^0 s$/, '<1 s');
    ev.appendChild(el('div', 'rw-meta', meta));
  }
  ev.appendChild(el('div', 'rw-meta', 'active: ' + (p.active.join(', ') || '—')));
  var div = M.raw.verification && M.raw.verification.divergence;
  if (div && div.version === v + M.base) ev.appendChild(el('div', 'rw-banner rw-bad', div.text));
  renderLog();
  var stack = $('#rw-stack'); stack.textContent = '';
  if (p.operations) { var ops = el('div', 'rw-meta', 'this step: '); ops.appendChild(el('span', 'rw-op', p.operations)); stack.appendChild(ops); }
  if (!p.stack.length) stack.appendChild(el('div', 'rw-empty', 'empty stack'));
  for (var i = p.stack.length - 1; i >= 0; i--) {
    var card = el('div', 'rw-card' + (i === p.stack.length - 1 ? ' rw-top-card' : ''));
    card.setAttribute('data-screen', p.stack[i].screen); card.setAttribute('data-depth', String(i));
    card.appendChild(el('span', 'rw-screen', p.stack[i].screen));
    if (i === p.stack.length - 1 && p.operations) card.appendChild(el('span', 'rw-op', p.operations));
    if (p.stack[i].data !== null) { var holder = el('div', 'rw-tree'); showTree(holder, p.stack[i].data); card.appendChild(holder); }
    stack.appendChild(card);
  }
  showTree($('#rw-state-data'), p.data);
  showTree($('#rw-context'), p.context);
  showTree($('#rw-payload'), p.payload);
  var from = pinned != null ? at(pinned) : prev;
  $('#rw-diff-title').textContent = from ? 'Changes ' + from.version + ' → ' + (v + M.base) : 'Changes';
  var list = $('#rw-diff'); list.textContent = '';
  if (from) {
    var changes = [];
    var ex = from.configuration.filter(function (s) { return p.configuration.indexOf(s) < 0; }), en = p.configuration.filter(function (s) { return from.configuration.indexOf(s) < 0; });
    if (ex.length) changes.push(['del', 'exited', ex.join(', ')]);
    if (en.length) changes.push(['add', 'entered', en.join(', ')]);
    diff(from.data, p.data, 'data', changes); diff(from.context, p.context, 'context', changes);
    diff(from.stack.map(function (e) { return e.screen; }), p.stack.map(function (e) { return e.screen; }), 'stack', changes);
    changes.forEach(function (c) {
      var text = c[0] === 'add' ? '+ ' + c[1] + ': ' + (typeof c[2] === 'string' && c[1].match(/^(en|ex)/) ? c[2] : short(c[2])) : c[0] === 'del' ? '- ' + c[1] + ': ' + (typeof c[2] === 'string' && c[1].match(/^(en|ex)/) ? c[2] : short(c[2])) : '~ ' + c[1] + ': ' + short(c[2]) + ' → ' + short(c[3]);
      var li = el('li', 'rw-' + c[0], text); li.setAttribute('data-path', c[1]); list.appendChild(li);
    });
    if (!changes.length) list.appendChild(el('li', 'rw-empty', 'no change'));
  }
  $('#rw-pin').textContent = pinned != null ? 'Unpin ' + pinned : 'Pin ' + v;
  drawTimeline();
  scheduleHash();
}
function renderLog() {
  var log = $('#rw-log'); log.textContent = '';
  var rows = [];
  if (matches) {
    var lo = 0, hi = matches.length; while (lo < hi) { var mid = (lo + hi) >> 1; if (matches[mid] < v) lo = mid + 1; else hi = mid; }
    for (var i = Math.max(0, lo - 6); i < Math.min(matches.length, lo + 9); i++) rows.push(matches[i]);
  } else {
    for (var w = Math.max(1, v - 6); w <= Math.min(M.n, Math.max(1, v - 6) + 14); w++) rows.push(w);
  }
  var div = M.raw.verification && M.raw.verification.divergence;
  rows.forEach(function (r) {
    var li = el('li', (r === v ? 'rw-here' : '') + (div && div.version === r + M.base ? ' rw-diverged' : ''));
    li.setAttribute('data-v', String(r + M.base));
    li.appendChild(el('span', 'rw-v', String(r + M.base)));
    li.appendChild(el('span', 'rw-ev', M.raw.strings[M.raw.ev[r - 1]]));
    li.appendChild(el('span', 'rw-target', '→ ' + entered(r).join(', ')));
    var pl = exactly(M.pl, r);
    if (pl >= 0) li.appendChild(el('span', 'rw-pl', summary(M.raw.values[pl])));
    if (r === pinned) { li.classList.add('rw-pinned'); li.title = 'pinned: changes are shown against this version'; }
    li.addEventListener('click', function () { go(r); });
    log.appendChild(li);
  });
  if (!rows.length) log.appendChild(el('li', 'rw-empty', matches ? 'no match' : 'no records'));
}
var pending = false;
// The lowest version index: 0 (before the first record), or 1, the base, for a trimmed session.
function lowest() { return M.base ? 1 : 0; }
function go(target) {
  stop(false);
  v = Math.max(lowest(), Math.min(M.n, target | 0));
  if (!pending) { pending = true; requestAnimationFrame(function () { pending = false; render(); }); }
}
function scheduleHash() {
  clearTimeout(hashTimer);
  hashTimer = setTimeout(function () {
    var h = (P.kind === 'machine' ? 'session=' + encodeURIComponent(M.raw.session) + '&' : '') + 'v=' + (v + M.base);
    if (location.hash.slice(1) !== h) history.replaceState(history.state, '', '#' + h);
  }, 120);
}

// ---- play, search, pins ----
function stop(update) { if (playing) { clearTimeout(playing); playing = null; } if (update !== false) $('#rw-play').setAttribute('aria-pressed', 'false'); else $('#rw-play').setAttribute('aria-pressed', 'false'); }
function play() {
  if (playing) { stop(); return; }
  if (v >= M.n) v = lowest();
  $('#rw-play').setAttribute('aria-pressed', 'true');
  var tick = function () {
    if (v >= M.n) { stop(); return; }
    var wait = Math.max(MIN_STEP_MS, Math.min(M.threshold, v >= 1 ? M.t[v + 1] - M.t[v] : 0));
    playing = setTimeout(function () { v++; render(); tick(); }, speed > 0 ? wait / speed : 0);
  };
  tick();
}
function textOf(i) { if (M.texts[i] === undefined) M.texts[i] = JSON.stringify(M.raw.values[i]).toLowerCase(); return M.texts[i]; }
function search(q) {
  query = q.trim().toLowerCase();
  if (!query) { matches = null; $('#rw-count').textContent = ''; render(); return; }
  var evHit = M.raw.strings.map(function (s) { return s.toLowerCase().indexOf(query) >= 0; }), plHit = {}, out = [], i;
  for (i = 0; i < M.pl.vs.length; i++) if (textOf(M.pl.ix[i]).indexOf(query) >= 0) plHit[M.pl.vs[i]] = 1;
  for (i = 1; i <= M.n; i++) if (evHit[M.raw.ev[i - 1]] || plHit[i]) out.push(i);
  matches = Int32Array.from(out);
  $('#rw-count').textContent = out.length + ' match' + (out.length === 1 ? '' : 'es');
  render();
}
function nextMatch(dir) {
  if (!matches || !matches.length) return;
  var i, target = null;
  if (dir > 0) { for (i = 0; i < matches.length; i++) if (matches[i] > v) { target = matches[i]; break; } if (target == null) target = matches[0]; }
  else { for (i = matches.length - 1; i >= 0; i--) if (matches[i] < v) { target = matches[i]; break; } if (target == null) target = matches[matches.length - 1]; }
  go(target);
}

// ---- the machine page: funnel and sessions ----
function openSession(i, ver) {
  M = model(P.sessions[i]); drawn = null; zoom = { lo: 0, hi: 1 }; pinned = null; matches = null; $('#rw-search').value = '';
  scrub.min = String(lowest()); scrub.max = String(M.n);
  // A trimmed session's page begins at its base: its versions keep their numbers.
  $('#rw-title').textContent = M.raw.session + ' · ' + M.raw.machine + ' · ' + M.n + ' versions'
    + (M.base ? ' · history begins at version ' + (M.base + 1).toLocaleString('en-US') : '');
  $('#rw-session-view').hidden = false; $('#rw-machine-view').hidden = true;
  $('#rw-back').hidden = P.kind !== 'machine';
  $('#rw-download').hidden = !P.archive;
  var banner = $('#rw-verify'), ver_ = M.raw.verification;
  banner.hidden = !ver_; banner.textContent = '';
  if (ver_) {
    banner.className = 'rw-banner' + (ver_.divergence ? ' rw-bad' : '');
    if (ver_.divergence) {
      banner.appendChild(el('strong', null, 'Diverges at version ' + ver_.divergence.version + ': '));
      banner.appendChild(document.createTextNode(ver_.divergence.text + ' '));
      var jump = el('button', null, 'Go to ' + ver_.divergence.version); jump.id = 'rw-go-divergence';
      jump.addEventListener('click', function () { go(ver_.divergence.version - M.base); }); banner.appendChild(jump);
    } else {
      banner.appendChild(el('strong', null, 'Verified: '));
      banner.appendChild(document.createTextNode(ver_.verified + ' records from version ' + ver_.first + ' re-run to their recorded states under definition ' + ver_.definition.slice(0, 12) + '.'));
    }
  }
  v = ver == null ? M.n : Math.max(lowest(), Math.min(M.n, ver - M.base));
  render();
}
// Opening a session from the funnel (at version ver, else its head) is a new history entry: Back returns to the funnel.
function openFromFunnel(i, ver) {
  openSession(i, ver);
  clearTimeout(hashTimer);
  history.pushState({ rwFunnel: true }, '', '#session=' + encodeURIComponent(M.raw.session) + '&v=' + (v + M.base));
}
function showFunnel(missing) {
  var notice = $('#rw-notice'); notice.hidden = missing == null; notice.textContent = missing == null ? '' : 'No session \u201c' + missing + '\u201d in this file: showing the funnel.';
  // A session view's pending hash update (scheduleHash) would write its session onto the funnel's entry.
  stop(); M = M || null; clearTimeout(hashTimer);
  $('#rw-session-view').hidden = true; $('#rw-machine-view').hidden = false; $('#rw-back').hidden = true; $('#rw-download').hidden = true;
  $('#rw-title').textContent = P.machine + ' · ' + P.sessions.length + ' sessions';
  if (location.hash) history.replaceState(null, '', location.pathname + location.search);
}
function buildFunnel() {
  var host = $('#rw-funnel'), total = P.funnel.sessions || 1, list = $('#rw-stopped');
  P.funnel.steps.forEach(function (step) {
    var bar = el('button', 'rw-bar'); bar.setAttribute('data-state', step.state); bar.setAttribute('data-reached', String(step.reached)); bar.setAttribute('data-stopped', String(step.stopped));
    bar.setAttribute('aria-pressed', 'false');
    bar.appendChild(el('span', null, step.state));
    var fill = el('span', 'rw-fill'); fill.style.width = (100 * step.reached / total) + '%';
    var stopPart = el('span', 'rw-stop'); stopPart.style.width = (step.reached ? 100 * step.stopped / step.reached : 0) + '%'; fill.appendChild(stopPart);
    var track = el('span', 'rw-track'); track.appendChild(fill); bar.appendChild(track);
    bar.appendChild(el('span', 'rw-meta', step.reached + ' reached · ' + step.stopped + ' stopped'));
    bar.addEventListener('click', function () {
      host.querySelectorAll('.rw-bar').forEach(function (b) { b.setAttribute('aria-pressed', 'false'); }); bar.setAttribute('aria-pressed', 'true');
      sessionTable(list, step.sessions, 'Stopped in ' + step.state);
    });
    host.appendChild(bar);
  });
  sessionTable($('#rw-all'), P.sessions.map(function (_, i) { return i; }), 'All sessions');
}
function sessionTable(host, indexes, title) {
  host.textContent = ''; host.appendChild(el('h2', null, title + ' (' + indexes.length + ')'));
  var table = el('table', 'rw-sessions'), head = el('tr');
  ['session', 'versions', 'last event', 'now in'].forEach(function (h) { head.appendChild(el('th', null, h)); }); table.appendChild(head);
  indexes = indexes.slice().sort(function (a, b) { return P.sessions[a].session.localeCompare(P.sessions[b].session, undefined, { numeric: true }); });
  indexes.forEach(function (i) {
    var s = P.sessions[i], tr = el('tr'), td = el('td'), a = el('a', null, s.session); a.setAttribute('data-session', s.session); a.tabIndex = 0;
    a.addEventListener('click', function () { openFromFunnel(i); }); a.addEventListener('keydown', function (e) { if (e.key === 'Enter') openFromFunnel(i); });
    td.appendChild(a); tr.appendChild(td);
    tr.appendChild(el('td', null, String(s.head + (s.base ? s.base - 1 : 0))));
    tr.appendChild(el('td', null, s.head ? s.strings[s.ev[s.head - 1]] : ''));
    var last = s.configs[s.cf[s.head]][1].map(function (k) { return s.strings[k]; }).join(', ');
    tr.appendChild(el('td', null, last)); table.appendChild(tr);
  });
  host.appendChild(table);
}

// ---- the machine page: the upgrade check of a new definition (view --machine NAME --upgrade-check FILE) ----
function buildUpgradeCheck() {
  var U = P.upgradeCheck; if (!U) return;
  var R = U.report, summary = $('#rw-upgrade-summary'), host = $('#rw-upgrade-kinds');
  $('#rw-upgrade').hidden = false;
  $('#rw-upgrade-title').textContent = 'Upgrade check: ' + R.label + ' (definition ' + R.definition.slice(0, 12) + ')';
  summary.className = 'rw-banner' + (U.passes ? '' : ' rw-bad');
  summary.appendChild(el('strong', null, U.passes ? 'Passes: ' : 'Does not pass: '));
  summary.appendChild(document.createTextNode(U.summary));
  // The kinds listed session by session, as rewind upgrade-check prints them (unchanged ones only counted).
  [['incompatible', 'Incompatible'], ['migrationFailed', 'Migration failed'], ['unreadable', 'Unreadable'], ['diverging', 'Diverging'], ['migrated', 'Migrated']].forEach(function (kind) {
    var rows = [], more = (R.unlisted && R.unlisted[kind[0]]) || 0;
    R.sessions.forEach(function (row, i) { if (row.kind === kind[0]) rows.push(i); });
    if (!rows.length && !more) return;
    var group = el('div', 'rw-upgrade-kind'); group.setAttribute('data-kind', kind[0]);
    group.appendChild(el('h3', null, kind[1] + ' (' + (rows.length + more) + ')'));
    var table = el('table', 'rw-sessions'), head = el('tr');
    ['session', 'under the new definition'].forEach(function (h) { head.appendChild(el('th', null, h)); }); table.appendChild(head);
    rows.forEach(function (r) {
      var row = R.sessions[r], tr = el('tr'), td = el('td'), at = row.divergence ? row.divergence.version : null;
      var i = P.sessions.findIndex(function (s) { return s.session === row.session; });
      if (i < 0) td.textContent = row.session;
      else {
        // A session opens at its first divergence, else at its head.
        var a = el('a', null, row.session); a.setAttribute('data-session', row.session); a.tabIndex = 0;
        var open = function () { openFromFunnel(i, at); };
        a.addEventListener('click', open); a.addEventListener('keydown', function (e) { if (e.key === 'Enter') open(); });
        td.appendChild(a);
      }
      tr.appendChild(td); tr.appendChild(el('td', null, U.details[r])); table.appendChild(tr);
    });
    group.appendChild(table);
    if (more) group.appendChild(el('p', 'rw-meta', '\u2026 and ' + more + ' more'));
    host.appendChild(group);
  });
}

// ---- deep links, keys, buttons ----
function fromHash() {
  var params = new URLSearchParams(location.hash.slice(1)), ver = params.get('v'), id = params.get('session');
  var target = ver != null && /^\d+$/.test(ver) ? parseInt(ver, 10) : null;
  if (P.kind === 'machine') {
    var i = id == null ? -1 : P.sessions.findIndex(function (s) { return s.session === id; });
    if (i < 0) { showFunnel(id); return; }
    if (!M || M.raw !== P.sessions[i] || $('#rw-session-view').hidden) { openSession(i, target); return; }
  }
  if (target != null && M && target - M.base !== v) go(target - M.base);
}
document.addEventListener('keydown', function (e) {
  if (!M || $('#rw-session-view').hidden) return;
  var inSearch = e.target === $('#rw-search');
  if (inSearch) {
    if (e.key === 'Escape') { clearTimeout(searchTimer); e.target.value = ''; search(''); e.target.blur(); }
    else if (e.key === 'Enter') { e.preventDefault(); nextMatch(e.shiftKey ? -1 : 1); }
    return;
  }
  if (e.target && /^(INPUT|SELECT|TEXTAREA)$/.test(e.target.tagName) && e.target.type !== 'range') return;
  if (e.metaKey || e.ctrlKey || e.altKey) return;
  var handled = true;
  switch (e.key) {
    case 'ArrowLeft': go(v - 1); break;
    case 'ArrowRight': go(v + 1); break;
    case 'Home': go(M.n ? 1 : 0); break;
    case 'End': go(M.n); break;
    case '/': $('#rw-search').focus(); break;
    case ' ': play(); break;
    case 'n': nextMatch(1); break;
    case 'N': nextMatch(-1); break;
    case 'p': $('#rw-pin').click(); break;
    case '+': case '=': zoomBy(2, (M.x[v] || 0) / (M.x[M.n] || 1)); break;
    case '-': zoomBy(0.5, (M.x[v] || 0) / (M.x[M.n] || 1)); break;
    case '0': zoomReset(); break;
    default: handled = false;
  }
  if (handled) e.preventDefault();
});
$('#rw-first').addEventListener('click', function () { go(M.n ? 1 : 0); });
$('#rw-prev').addEventListener('click', function () { go(v - 1); });
$('#rw-next').addEventListener('click', function () { go(v + 1); });
$('#rw-last').addEventListener('click', function () { go(M.n); });
$('#rw-play').addEventListener('click', play);
$('#rw-speed').addEventListener('change', function (e) { speed = parseFloat(e.target.value); });
$('#rw-pin').addEventListener('click', function (e) { e.preventDefault(); pinned = pinned != null ? null : v; render(); });
scrub.addEventListener('input', function () { go(parseInt(scrub.value, 10)); });
var searchTimer = 0;
$('#rw-search').addEventListener('input', function (e) { clearTimeout(searchTimer); var q = e.target.value; searchTimer = setTimeout(function () { search(q); }, 120); });
var dragging = false;
canvas.addEventListener('pointerdown', function (e) { dragging = true; canvas.setPointerCapture(e.pointerId); go(versionAtX(e.offsetX)); });
canvas.addEventListener('pointermove', function (e) { if (dragging) go(versionAtX(e.offsetX)); });
canvas.addEventListener('pointerup', function () { dragging = false; });
// The wheel zooms around the pointer (up: in).
canvas.addEventListener('wheel', function (e) {
  if (!M || !e.deltaY) return;
  e.preventDefault();
  zoomBy(e.deltaY < 0 ? 2 : 0.5, zoom.lo + e.offsetX / (canvas.clientWidth || 1) * (zoom.hi - zoom.lo));
}, { passive: false });
$('#rw-back').addEventListener('click', function () { if (history.state && history.state.rwFunnel) history.back(); else showFunnel(); });
$('#rw-theme').addEventListener('click', function () {
  var root = document.documentElement, dark = root.getAttribute('data-theme') ? root.getAttribute('data-theme') === 'dark' : matchMedia('(prefers-color-scheme: dark)').matches;
  root.setAttribute('data-theme', dark ? 'light' : 'dark'); drawn = null; if (M && !$('#rw-session-view').hidden) drawTimeline();
});
$('#rw-download').addEventListener('click', function () {
  var node = $('#rw-archive'); if (!node) return;
  var blob = new Blob([node.textContent.replace(/\u0001/g, '<')], { type: 'application/x-ndjson' });
  var a = document.createElement('a'); a.href = URL.createObjectURL(blob); a.download = node.getAttribute('data-name') || 'session.rewind';
  document.body.appendChild(a); a.click(); a.remove(); setTimeout(function () { URL.revokeObjectURL(a.href); }, 1000);
});
window.addEventListener('hashchange', fromHash);
window.addEventListener('popstate', fromHash);
window.addEventListener('resize', function () { if (M && !$('#rw-session-view').hidden) drawTimeline(); });
var red = $('#rw-redaction');
if (P.rules && P.rules.length) {
  red.hidden = false;
  red.appendChild(el('strong', null, 'Redacted: '));
  red.appendChild(document.createTextNode((P.redacted.length ? P.redacted.join(', ') : 'nothing matched') + ' (rules: ' + P.rules.join(', ') + '). Values shown as ' + REDACTED + ' here and in the downloadable session.'));
}
window.rewindViewer = {
  version: function () { return v + M.base; }, at: function (ver) { return at(ver - M.base); }, session: function () { return M && M.raw.session; },
  // What the timeline drew last: its labels' boxes (canvas pixels from the top left) and the pin.
  timeline: function () { return drawn ? { width: drawn.w, labels: drawn.labels, pin: drawn.pin, zoom: { lo: zoom.lo, hi: zoom.hi }, version: v + M.base, first: versionAtX(0) + M.base, last: versionAtX(drawn.w) + M.base } : null; }
};
if (P.kind === 'machine') { buildUpgradeCheck(); buildFunnel(); fromHash(); }
else { var start = new URLSearchParams(location.hash.slice(1)).get('v'); openSession(0, start != null && /^\d+$/.test(start) ? parseInt(start, 10) : null); }
requestAnimationFrame(function () { document.documentElement.setAttribute('data-ready', '1'); performance.mark('rw-ready'); });
})();
