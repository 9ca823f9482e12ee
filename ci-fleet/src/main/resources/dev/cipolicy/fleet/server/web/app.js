// The fleet status page: polls the JSON API (/api/v1) every 2 s and redraws. No framework, no build.
'use strict';
(function () {
  const POLL_MS = 2000;
  let controls = false;
  let historyCursors = [null]; // cursors of the pages seen; the last is the page shown
  let historyNext = null;

  function el(tag, attrs, ...children) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined || v === false) continue;
      if (k === 'class') e.className = v; else if (k === 'text') e.textContent = v; else e.setAttribute(k, v);
    }
    for (const c of children) if (c !== null && c !== undefined) e.append(c);
    return e;
  }

  const dur = window.FleetTime.dur;

  // "stage-c-8-gpu-h200-1of2@h200 #10" -> "#10 stage-c-8-gpu-h200-1of2"
  function shortJob(label) {
    const m = /^(.*)@[^ ]* (#[0-9]+)$/.exec(label);
    return m ? m[2] + ' ' + m[1] : label;
  }

  // The store's "now" of the last overview: relative times are counted from it, not from this browser's clock.
  let serverNow = null;

  // One time format everywhere (time.js): local time and how far off it is, the exact UTC instant on hover.
  function when(iso) {
    return window.FleetTime.when(iso, serverNow);
  }

  // A job's name, linked to the job's own page.
  function jobLink(id, text) {
    return el('a', {class: 'job-link', href: '/jobs/' + encodeURIComponent(id), text: text});
  }

  function errorList(groups) {
    if (!groups.length) return null;
    const ul = el('ul', {class: 'errors'});
    for (const g of groups) {
      const inner = el('ul');
      for (const e of g.errors) inner.append(el('li', {text: e.reason + ': ' + e.detail}));
      ul.append(el('li', {'data-job': g.jobId}, el('strong', {}, jobLink(g.jobId, g.job)), inner,
        controls ? retryButton(g.jobId, g.job) : null));
    }
    return ul;
  }

  function replace(node, ...children) {
    node.replaceChildren(...children);
  }

  // The control token typed into the sign-in form: kept in this page's memory only, sent with every request.
  let token = null;

  function headers() {
    return token ? {'Authorization': 'Bearer ' + token} : {};
  }

  // A control: confirmed first when it stops or takes away work; its result, or why it was refused, as text.
  async function post(path, what, confirmText) {
    if (confirmText && !window.confirm(confirmText)) return;
    const out = document.getElementById('control-result');
    try {
      const r = await fetch(path, {method: 'POST', headers: headers(), cache: 'no-store'});
      const body = await r.json();
      out.textContent = r.ok ? (what + ': ' + body.status + ' (by ' + body.operator + ')')
        : (what + ' refused (' + r.status + '): ' + body.error);
      out.dataset.status = r.status;
    } catch (e) {
      out.textContent = what + ' failed: ' + e.message;
      out.dataset.status = 'error';
    }
    refresh();
    loadHistory();
  }

  function controlButton(key, text, onClick) {
    const b = el('button', {type: 'button', 'data-focus-key': key, text: text});
    b.addEventListener('click', onClick);
    return b;
  }

  function retryButton(jobId, job) {
    return controlButton('retry-' + jobId, 'Retry ' + job,
      () => post('/api/v1/jobs/' + jobId + '/retry', 'Retry job ' + jobId, null));
  }

  function renderInProgress(list) {
    const box = document.getElementById('in-progress-list');
    if (!list.length) { replace(box, el('p', {class: 'empty', text: 'Nothing in progress.'})); return; }
    replace(box, ...list.map(p => {
      const id = 'progress-' + p.request.id;
      const card = el('article', {class: 'request', 'data-request': p.request.id},
        el('h3', {text: p.request.label + ' (' + p.request.cadence + ')'}),
        el('label', {for: id, class: 'visually-hidden', text: 'Jobs done'}),
        el('progress', {id: id, max: p.jobsTotal, value: p.jobsDone}),
        el('div', {class: 'facts'},
          el('span', {class: 'jobs-done', text: p.jobsDone + ' / ' + p.jobsTotal + ' jobs done'}),
          el('span', {text: p.jobsRunning + ' running'}),
          el('span', {text: p.jobsFailed + ' failed'}),
          el('span', {class: 'eta', text: 'ETA '}, p.etaSeconds === null ? 'unknown' : when(p.etaAt)),
          el('span', {text: 'running for ' + dur(p.durationSeconds)})),
        errorList(p.errors));
      if (controls) {
        card.append(controlButton('cancel-' + p.request.id, 'Cancel ' + p.request.label,
          () => post('/api/v1/requests/' + p.request.id + '/cancel', 'Cancel ' + p.request.label,
            'Cancel ' + p.request.label + '? Its queued jobs are cancelled and its running jobs stopped.')));
      }
      return card;
    }));
  }

  function renderQueue(entries) {
    const body = document.querySelector('#queue-table tbody');
    replace(body, ...entries.map(q => el('tr', {'data-request': q.request.id},
      el('td', {text: q.position || '—'}),
      el('td', {text: q.request.label}),
      el('td', {text: q.section}),
      el('td', {class: 'eta'}, q.etaSeconds === null ? 'unknown' : when(q.etaAt)),
      el('td', {class: 'wait-reason'}, ...(q.waitReason ? [reason(q.waitReason)] : withTimes(q.placement))))));
    if (!entries.length) body.append(el('tr', {}, el('td', {colspan: 5, class: 'empty',
      text: filtered() ? 'No open request matches the filters.' : 'The queue is empty.'})));
  }

  // Text from the queue with every ISO-8601 instant in it drawn in the page's one time format; an instant of the
  // same second as \`exact\` is drawn as \`exact\` itself (a wait reason's own instant, to the store's precision).
  const ISO = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z/g;
  function withTimes(text, exact) {
    const nodes = [];
    let last = 0;
    for (const m of text.matchAll(ISO)) {
      nodes.push(text.slice(last, m.index));
      const same = exact && Math.floor(Date.parse(exact) / 1000) === Math.floor(Date.parse(m[0]) / 1000);
      nodes.push(when(same ? exact : m[0]));
      last = m.index + m[0].length;
    }
    nodes.push(text.slice(last));
    return nodes;
  }

  // A wait reason's sentence, the instant it names (a reserved host's expected free time) in the page's one time
  // format: the very instant the GPU map shows for that reservation.
  function reason(w) {
    const span = el('span', {class: 'reason', 'data-kind': w.kind}, ...withTimes(w.sentence, w.at));
    if (w.at && !span.querySelector('time')) span.append(' (', when(w.at), ')');
    return span;
  }

  // The request a waiting job belongs to: its label (which starts with its kind), its pull request, its cadence.
  function requestOf(j) {
    const r = j.request;
    if (!r) return '#' + j.requestId;
    const pr = r.pr !== null && r.pr !== undefined && !r.label.includes('#' + r.pr) ? ' · PR #' + r.pr : '';
    return r.label + pr + ' · ' + r.cadence;
  }

  // When a waiting job is expected to start, or "unknown" and why.
  function expectedStart(j) {
    if (j.expectedStartAt) return when(j.expectedStartAt);
    return el('span', {class: 'unknown', text: 'unknown: ' + (j.expectedStartUnknown || 'no estimate')});
  }

  function renderWaiting(jobs) {
    const body = document.querySelector('#waiting-table tbody');
    replace(body, ...jobs.map(j => el('tr', {'data-job': j.jobId, 'data-kind': j.reason.kind, 'data-state': j.state,
        'data-request': j.requestId, class: j.state === 'not-started' ? 'not-started' : null},
      el('td', {class: 'job'}, j.jobId === null || j.jobId === undefined ? j.job : jobLink(j.jobId, j.job),
        j.state === 'not-started' ? el('span', {class: 'tag', text: 'not started'}) : null),
      el('td', {class: 'job-request', text: requestOf(j)}), el('td', {class: 'job-pool', text: j.pool}),
      el('td', {text: j.gpus}),
      el('td', {class: 'job-runs', text: j.expectedSeconds > 0 ? dur(j.expectedSeconds) : 'no estimate'}),
      el('td', {class: 'job-start'}, expectedStart(j)),
      el('td', {class: 'job-wait-reason'}, reason(j.reason)))));
    if (!jobs.length) body.append(el('tr', {}, el('td', {colspan: 7, class: 'empty',
      text: pageOffset > 0 ? 'No job on this page.' : filtered() ? 'No job matches the filters.' : 'No job waits.'})));
  }

  // ----------------------------------------------------------------------------------------- waiting jobs' pages
  // The API lists one page of the matching waiting jobs (100 unless the URL asks for a limit) and counts them all.
  // The page shown lives in the URL with the filters (offset, limit), so Previous and Next are real links; a change
  // of the filters goes back to the first page.
  let pageOffset = 0;
  let pageLimit = null;

  function whole(text, min) {
    const n = Number(text);
    return text !== null && Number.isInteger(n) && n >= min ? n : null;
  }

  function restorePage() {
    const p = new URLSearchParams(location.search);
    pageOffset = whole(p.get('offset'), 0) || 0;
    pageLimit = whole(p.get('limit'), 1);
  }

  // The query of the filters and of the page of waiting jobs from offset.
  function pageQuery(offset) {
    const p = new URLSearchParams(filterQuery());
    if (offset > 0) p.set('offset', offset);
    if (pageLimit !== null) p.set('limit', pageLimit);
    return p.toString();
  }

  function number(n) { return n.toLocaleString('en-US'); }

  function setText(id, text) {
    const e = document.getElementById(id);
    if (e.textContent !== text) e.textContent = text; // unchanged text is not announced again
  }

  function pageLink(id, offset, text) {
    const a = document.getElementById(id);
    a.hidden = offset === null;
    if (offset === null) return;
    a.href = '?' + pageQuery(offset) + location.hash;
    a.dataset.offset = offset;
    a.textContent = text;
  }

  function renderWaitingPage(p, shown) {
    const jobs = p.total === 1 ? ' job' : ' jobs';
    const split = ' (' + number(p.waiting) + ' waiting, ' + number(p.notStarted) + ' not started)';
    setText('waiting-count', shown ? 'Showing ' + number(p.offset + 1) + '–' + number(p.offset + shown) + ' of '
        + number(p.total) + jobs + split
      : p.offset > 0 && p.total ? 'Nothing from ' + number(p.offset + 1) + ': ' + number(p.total) + jobs + ' in all'
      : '');
    setText('waiting-pools', p.pools.length > 1 ? 'By pool: ' + p.pools.map(c => c.pool + ' ' + number(c.waiting)
      + (c.notStarted ? ' + ' + number(c.notStarted) + ' not started' : '')).join(' · ') : '');
    const left = p.total - p.offset - shown;
    pageLink('waiting-prev', p.offset > 0 ? Math.max(0, Math.min(p.offset, p.total) - p.limit) : null,
      'Previous ' + number(p.limit));
    pageLink('waiting-next', shown && left > 0 ? p.offset + p.limit : null, 'Next ' + number(Math.min(p.limit, left)));
  }

  for (const id of ['waiting-prev', 'waiting-next']) {
    document.getElementById(id).addEventListener('click', e => {
      e.preventDefault();
      pageOffset = Number(e.currentTarget.dataset.offset);
      history.pushState(null, '', e.currentTarget.getAttribute('href'));
      refresh();
    });
  }

  // ----------------------------------------------------------------------------------------- filters
  // The filters of the waiting work live in the URL's query string (pool, cadence, state, pr, q), so a link
  // shares them and a reload restores them; the API takes the same parameters.
  const FILTERS = ['pool', 'cadence', 'state', 'pr', 'q'];

  function filterInput(name) { return document.getElementById('filter-' + name); }

  function filterQuery() {
    const p = new URLSearchParams();
    for (const f of FILTERS) { const v = filterInput(f).value.trim(); if (v) p.set(f, v); }
    return p.toString();
  }

  function filtered() { return filterQuery() !== ''; }

  // Adds the options a select lacks (the values the fleet has now, and the one the URL asks for).
  function fillSelect(name, values) {
    const select = filterInput(name);
    const have = new Set([...select.options].map(o => o.value));
    for (const v of values) if (v && !have.has(v)) { select.append(el('option', {value: v, text: v})); have.add(v); }
  }

  function restoreFilters() {
    const p = new URLSearchParams(location.search);
    for (const f of FILTERS) {
      const v = p.get(f) || '';
      if (filterInput(f).tagName === 'SELECT') fillSelect(f, [v]);
      filterInput(f).value = v;
    }
  }

  function filtersChanged() {
    pageOffset = 0;
    const q = pageQuery(0);
    history.replaceState(null, '', location.pathname + (q ? '?' + q : '') + location.hash);
    refresh();
  }

  let typing = null;
  for (const f of FILTERS) {
    const input = filterInput(f);
    input.addEventListener('change', filtersChanged);
    if (input.tagName === 'INPUT') {
      input.addEventListener('input', () => { clearTimeout(typing); typing = setTimeout(filtersChanged, 300); });
    }
  }
  document.getElementById('filter-form').addEventListener('submit', e => { e.preventDefault(); filtersChanged(); });
  document.getElementById('filter-clear').addEventListener('click', () => {
    for (const f of FILTERS) filterInput(f).value = '';
    filtersChanged();
  });
  restoreFilters();
  restorePage();
  // Back and forward between pages of the waiting jobs (and filters) show what the URL says.
  window.addEventListener('popstate', () => { restoreFilters(); restorePage(); refresh(); });

  function renderHosts(hosts) {
    const box = document.getElementById('host-list');
    replace(box, ...hosts.map(h => {
      const title = h.name + ' (' + h.pool + ', ' + h.state + '): ' + h.free + ' of ' + h.size + ' free'
        + (h.reservation ? '; reserved for ' + h.reservation.job + ' (' + h.reservation.gpus + ' GPUs) until ' : '');
      return el('div', {class: 'host', id: 'host-' + h.name},
        el('h3', {text: title}, h.reservation ? when(h.reservation.until) : null),
        el('ul', {class: 'devices', 'aria-label': 'devices of ' + h.name}, ...h.devices.map(d =>
          el('li', {class: 'device ' + d.state, 'data-index': d.index, 'data-state': d.state,
              title: 'GPU ' + d.index + ': ' + d.state + (d.job ? ' ' + d.job : '')},
            el('b', {text: 'GPU ' + d.index}),
            el('span', {class: 'job', text: d.job ? (d.state === 'reserved' ? 'for ' : '') + shortJob(d.job) : 'free'})))));
    }));
  }

  function renderShares(shares) {
    const box = document.getElementById('share-list');
    replace(box, ...shares.map(s => {
      const pct = s.capacity ? Math.min(100, Math.round(100 * s.used / Math.max(1, s.capacity))) : 0;
      const limitPct = s.capacity ? Math.min(100, Math.round(100 * s.limit / s.capacity)) : 100;
      const text = s.cadence + ' on ' + s.pool + ': ' + s.used + ' of ' + s.limit + ' ' + s.unit
        + (s.limit !== s.capacity ? ' (pool ' + s.capacity + ')' : '') + (s.borrow && s.limit !== s.capacity ? ', may borrow' : '');
      const fill = el('span', {class: s.used > s.limit ? 'over' : null, style: 'width:' + pct + '%'});
      const bar = el('div', {class: 'bar share-bar', role: 'meter', 'aria-valuemin': 0, 'aria-valuemax': s.capacity,
        'aria-valuenow': s.used, 'aria-label': text, 'data-cadence': s.cadence, 'data-pool': s.pool,
        title: s.source + '; limit at ' + limitPct + '%'}, fill);
      return el('div', {class: 'share'}, el('div', {text: text}), bar);
    }));
  }

  function renderCollectors(cs) {
    const body = document.querySelector('#collector-table tbody');
    replace(body, ...cs.map(c => {
      const actions = el('td');
      if (controls && c.active) {
        const path = '/api/v1/collectors/' + encodeURIComponent(c.name);
        actions.append(controlButton('drain-' + c.name, 'Drain ' + c.name, () => post(path + '/drain',
            'Drain ' + c.name, 'Drain ' + c.name + '? It claims nothing more; its running jobs finish, then it is gone.')),
          controlButton('deactivate-' + c.name, 'Deactivate ' + c.name, () => post(path + '/deactivate',
            'Deactivate ' + c.name, 'Deactivate ' + c.name + '? It claims nothing until activated again.')));
      }
      return el('tr', {'data-collector': c.name},
        el('td', {text: c.name}), el('td', {text: c.pool}), el('td', {text: c.devices}),
        el('td', {}, ...(c.jobs.length ? c.jobs.flatMap((j, i) => [i ? ', ' : null, jobLink(j.jobId, j.job),
          j.devices.length ? ' [' + j.devices.join(',') + ']' : null].filter(x => x !== null)) : ['—'])),
        el('td', {class: 'heartbeat'}, when(c.lastHeartbeatAt)),
        el('td', {class: 'collector-state state-' + c.state, text: c.state}), actions);
    }));
  }

  let refreshes = 0; // a refresh answered after a newer one (the filters changed meanwhile) draws nothing

  function renderSession(session) {
    const line = document.getElementById('session');
    line.textContent = session.operator ? 'Signed in as ' + session.operator + '; the controls are on.'
      : session.refused ? 'Read-only: ' + session.refused
      : session.controls ? 'Read-only: sign in to use the controls.' : 'Read-only: this server has no controls.';
    document.getElementById('sign-in').hidden = !!session.operator || !session.token;
  }

  function renderPools(pools) {
    const body = document.querySelector('#pool-table tbody');
    replace(body, ...pools.map(p => {
      const actions = el('td');
      if (controls) {
        const path = '/api/v1/pools/' + encodeURIComponent(p.pool);
        actions.append(p.paused
          ? controlButton('resume-' + p.pool, 'Resume ' + p.pool, () => post(path + '/resume', 'Resume ' + p.pool, null))
          : controlButton('pause-' + p.pool, 'Pause ' + p.pool, () => post(path + '/pause', 'Pause ' + p.pool,
              'Pause pool ' + p.pool + '? Its collectors claim nothing until it is resumed; running jobs go on.')));
      }
      return el('tr', {'data-pool': p.pool, 'data-paused': String(p.paused)},
        el('td', {text: p.pool}), el('td', {class: 'pool-state', text: p.paused ? 'paused' : 'running'}),
        el('td', {text: p.collectors}), el('td', {text: p.queuedJobs}), actions);
    }));
    if (!pools.length) body.append(el('tr', {}, el('td', {colspan: 5, class: 'empty', text: 'No pool yet.'})));
  }

  function renderAudit(actions) {
    const body = document.querySelector('#audit-table tbody');
    replace(body, ...actions.map(a => el('tr', {'data-action': a.id},
      el('td', {}, when(a.at)), el('td', {class: 'audit-actor', text: a.actor}),
      el('td', {class: 'audit-action', text: a.action}), el('td', {class: 'audit-target', text: a.target}),
      el('td', {class: 'audit-result', text: a.result}))));
    if (!actions.length) body.append(el('tr', {}, el('td', {colspan: 5, class: 'empty', text: 'No action yet.'})));
  }

  async function readJson(path) {
    const r = await fetch(path, {cache: 'no-store', headers: headers()});
    if (!r.ok) throw new Error((await r.json()).error);
    return r.json();
  }

  async function refresh() {
    const mine = ++refreshes;
    try {
      const q = pageQuery(pageOffset);
      // The four reads at once: one poll costs the slowest of them, not their sum.
      const [session, r, pools, audit] = await Promise.all([readJson('/api/v1/session'),
        fetch('/api/v1/overview' + (q ? '?' + q : ''), {cache: 'no-store', headers: headers()}),
        readJson('/api/v1/pools'), readJson('/api/v1/audit?limit=20')]);
      renderSession(session);
      if (!r.ok) throw new Error((await r.json()).error);
      const o = await r.json();
      if (mine !== refreshes) return;
      controls = o.controls;
      serverNow = o.at;
      // Redrawing replaces the buttons: the focused one is focused again afterwards (keyboard users).
      const focusKey = document.activeElement && document.activeElement.dataset
        ? document.activeElement.dataset.focusKey : undefined;
      fillSelect('pool', o.pools);
      fillSelect('cadence', o.cadences);
      renderInProgress(o.inProgress);
      renderQueue(o.queue);
      renderWaiting(o.waitingJobs);
      renderWaitingPage(o.waitingJobsPage, o.waitingJobs.length);
      renderHosts(o.hosts);
      renderShares(o.shares);
      renderCollectors(o.collectors);
      renderPools(pools);
      renderAudit(audit);
      if (focusKey) {
        const again = document.querySelector('[data-focus-key="' + CSS.escape(focusKey) + '"]');
        if (again) again.focus();
      }
      replace(document.getElementById('updated'), 'Updated ', when(o.at));
      document.body.dataset.updated = o.at;
    } catch (e) {
      document.getElementById('updated').textContent = 'Cannot reach the fleet: ' + e.message;
    }
  }

  async function loadHistory() {
    const cursor = historyCursors[historyCursors.length - 1];
    const r = await fetch('/api/v1/history?limit=10' + (cursor ? '&cursor=' + encodeURIComponent(cursor) : ''),
      {cache: 'no-store', headers: headers()});
    if (!r.ok) return;
    const h = await r.json();
    historyNext = h.next;
    const body = document.querySelector('#history-table tbody');
    replace(body, ...h.entries.map(e => el('tr', {'data-request': e.request.id},
      el('td', {text: e.request.label + ' (' + e.request.cadence + ')'}),
      el('td', {class: 'outcome-' + e.outcome, text: e.outcome}),
      el('td', {class: 'finished'}, when(e.request.finishedAt)),
      el('td', {text: dur(e.durationSeconds)}),
      el('td', {}, errorList(e.errors) || '—'))));
    if (!h.entries.length) body.append(el('tr', {}, el('td', {colspan: 5, class: 'empty', text: 'None completed yet.'})));
    document.getElementById('history-older').disabled = !historyNext;
    document.getElementById('history-newest').disabled = historyCursors.length === 1;
    document.getElementById('history-page').textContent = 'Page ' + historyCursors.length;
  }

  document.getElementById('sign-in').addEventListener('submit', ev => {
    ev.preventDefault();
    const input = document.getElementById('token');
    token = input.value || null;
    input.value = '';
    refresh();
    loadHistory();
  });
  document.getElementById('history-older').addEventListener('click', () => {
    if (historyNext) { historyCursors.push(historyNext); loadHistory(); }
  });
  document.getElementById('history-newest').addEventListener('click', () => {
    historyCursors = [null]; loadHistory();
  });

  refresh();
  loadHistory();
  setInterval(refresh, POLL_MS);
  setInterval(() => { if (historyCursors.length === 1) loadHistory(); }, 2 * POLL_MS);
})();
