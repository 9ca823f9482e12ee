// The status page's accounting panel: polls /api/v1/accounting every 30 s (and when the window changes) and
// draws two tables and an SVG chart of the sampled share use. Every text goes in through textContent.
'use strict';
(function () {
  const POLL_MS = 30000;
  const SVG = 'http://www.w3.org/2000/svg';
  const COLORS = ['#0969da', '#bf8700', '#1a7f37', '#cf222e', '#8250df', '#57606a', '#bc4c00', '#1b7c83'];
  const windowSelect = document.getElementById('accounting-window');
  const status = document.getElementById('accounting-status');

  function cell(text) {
    const td = document.createElement('td');
    td.textContent = text;
    return td;
  }

  function row(...texts) {
    const tr = document.createElement('tr');
    for (const t of texts) tr.append(cell(t));
    return tr;
  }

  function seconds(s) {
    if (s === null || s === undefined) return '—';
    if (s < 60) return s.toFixed(1) + ' s';
    if (s < 3600) return (s / 60).toFixed(1) + ' min';
    return (s / 3600).toFixed(1) + ' h';
  }

  function fill(tableId, rows, empty, columns) {
    const body = document.querySelector('#' + tableId + ' tbody');
    body.replaceChildren();
    if (!rows.length) {
      const td = cell(empty);
      td.colSpan = columns;
      td.className = 'empty';
      const tr = document.createElement('tr');
      tr.append(td);
      body.append(tr);
      return;
    }
    body.append(...rows);
  }

  function svg(tag, attrs) {
    const e = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
    return e;
  }

  // One line per cadence and pool: its use as a share of its limit (0 to 100 %, more when it borrows).
  function chart(series, fromIso, atIso) {
    const box = document.getElementById('share-chart');
    box.replaceChildren();
    const withPoints = series.filter(s => s.at.length > 0);
    if (!withPoints.length) {
      const p = document.createElement('p');
      p.className = 'empty';
      p.textContent = 'No share-use samples in the window yet (the server samples every 5 minutes while it runs).';
      box.append(p);
      return;
    }
    const w = 600, h = 160, left = 40, bottom = 20, top = 6;
    const t0 = Date.parse(fromIso), t1 = Date.parse(atIso);
    let maxPct = 100;
    for (const s of withPoints) for (const u of s.used) maxPct = Math.max(maxPct, s.limit ? 100 * u / s.limit : 0);
    const x = t => left + (w - left - 4) * Math.max(0, (t - t0)) / Math.max(1, t1 - t0);
    const y = pct => top + (h - top - bottom) * (1 - pct / maxPct);
    const root = svg('svg', {viewBox: '0 0 ' + w + ' ' + h, width: '100%', role: 'img', class: 'share-chart'});
    const title = svg('title', {});
    title.textContent = 'Share use over time, percent of each share\'s limit';
    root.append(title);
    root.append(svg('line', {x1: left, y1: y(0), x2: w - 4, y2: y(0), stroke: '#d0d7de'}));
    root.append(svg('line', {x1: left, y1: y(100), x2: w - 4, y2: y(100), stroke: '#d0d7de', 'stroke-dasharray': '4 3'}));
    for (const [pct, label] of [[0, '0 %'], [100, '100 %']]) {
      const t = svg('text', {x: 2, y: y(pct) + 4, 'font-size': 11});
      t.textContent = label;
      root.append(t);
    }
    const legend = document.createElement('ul');
    legend.className = 'chart-legend';
    withPoints.forEach((s, i) => {
      const color = COLORS[i % COLORS.length];
      const points = s.at.map((at, k) => x(Date.parse(at)).toFixed(1) + ',' +
        y(s.limit ? 100 * s.used[k] / s.limit : 0).toFixed(1)).join(' ');
      const line = svg(s.at.length > 1 ? 'polyline' : 'circle', s.at.length > 1
        ? {points: points, fill: 'none', stroke: color, 'stroke-width': 2}
        : {cx: points.split(',')[0], cy: points.split(',')[1], r: 3, fill: color});
      const lineTitle = svg('title', {});
      lineTitle.textContent = s.cadence + ' on ' + s.pool;
      line.append(lineTitle);
      root.append(line);
      const li = document.createElement('li');
      const swatch = document.createElement('span');
      swatch.className = 'swatch';
      swatch.style.background = color;
      li.append(swatch);
      const last = s.used[s.used.length - 1];
      li.append(document.createTextNode(s.cadence + ' on ' + s.pool + ': ' + last + ' of ' + s.limit + ' ' + s.unit
        + ' now'));
      legend.append(li);
    });
    box.append(root, legend);
  }

  async function load() {
    try {
      const res = await fetch('/api/v1/accounting?window=' + encodeURIComponent(windowSelect.value),
        {headers: {Accept: 'application/json'}});
      const a = await res.json();
      if (!res.ok) throw new Error(a.error || res.status);
      fill('gpu-hours-table', a.gpuHours.map(g => row(g.cadence, g.pool, g.gpuHours.toFixed(2), String(g.runs))),
        'No job ran in the window.', 4);
      fill('wait-table', a.waits.map(v => row(String(v.gpus), String(v.jobs), seconds(v.p50Seconds),
        seconds(v.p90Seconds), seconds(v.p99Seconds))), 'No job was claimed in the window.', 5);
      chart(a.shareUse, a.from, a.at);
      let note = 'as of ' + new Date(a.at).toLocaleTimeString([], {hour12: false});
      if (a.jobsWithoutStart) note += '; ' + a.jobsWithoutStart + ' runs without a recorded start are left out';
      if (a.truncated) note += '; the window holds more requests than are read';
      status.textContent = note;
    } catch (e) {
      status.textContent = 'accounting unavailable: ' + e.message;
    }
  }

  windowSelect.addEventListener('change', load);
  load();
  setInterval(load, POLL_MS);
})();
