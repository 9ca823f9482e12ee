// A job's own page: polls /api/v1/jobs/{id} every 2 s (state, attempts) and follows the selected attempt's log
// every second from the last byte offset read (/api/v1/jobs/{id}/log?attempt=N&offset=K) until it finishes.
// Every text from the queue is set with textContent (el's 'text'), never parsed as HTML.
'use strict';
(function () {
  const JOB_MS = 2000;
  const LOG_MS = 1000;
  const match = /^\/jobs\/([0-9]+)\/?$/.exec(location.pathname);
  const jobId = match ? match[1] : null;
  const logText = document.getElementById('log-text');
  const picker = document.getElementById('log-attempt');
  // The attempt whose log is shown, whether the reader chose it (else the latest is followed), the offset to read
  // from next and whether that attempt can write no more.
  let shown = null;
  let chosen = false;
  let next = 0;
  let finished = true;
  let following = false;

  function el(tag, attrs, ...children) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined || v === false) continue;
      if (k === 'class') e.className = v; else if (k === 'text') e.textContent = v; else e.setAttribute(k, v);
    }
    for (const c of children) if (c !== null && c !== undefined) e.append(c);
    return e;
  }

  const when = iso => window.FleetTime.when(iso, null);
  const dur = window.FleetTime.dur;

  function status(text) {
    document.getElementById('updated').textContent = text;
  }

  function facts(dl, rows) {
    dl.replaceChildren(...rows.filter(r => r[1] !== null && r[1] !== undefined && r[1] !== '').flatMap(([k, v, key]) =>
      [el('dt', {text: k}), el('dd', {'data-fact': key || null}, v)]));
  }

  function text(v) {
    return document.createTextNode(String(v));
  }

  function renderJob(j) {
    document.title = 'Job ' + j.label;
    document.getElementById('job-title').textContent = j.label;
    const s = j.spec;
    facts(document.getElementById('job-facts'), [
      ['State', el('span', {class: 'job-state state-' + j.state, text: j.state}), 'state'],
      ['Group', text(s.group), 'group'],
      ['Pool', text(j.pool), 'pool'],
      ['GPUs', text(j.gpus), 'gpus'],
      ['Command', s.command ? el('code', {text: s.command.join(' ')}) : null, 'command'],
      ['Cadence', s.cadence ? text(s.cadence) : null, 'cadence'],
      ['Optional', s.optional ? text('yes') : null, 'optional'],
      ['Estimate', s.estimateSeconds ? text(dur(s.estimateSeconds)) : null, 'estimate'],
      ['Timeout', s.timeoutSeconds ? text(dur(s.timeoutSeconds)) : null, 'timeout'],
      ['Attempts', text(j.attempt + ' (' + j.transientRetries + ' transient retries, ' + j.crashRescues
        + ' crash rescues)'), 'attempt'],
      ['Created', when(j.createdAt), 'created'],
      ['Finished', j.finishedAt ? when(j.finishedAt) : null, 'finished'],
      ['Running on', j.lease ? el('span', {text: (attemptHost(j) || '') + (j.lease.devices.length ? ' [GPU '
        + j.lease.devices.join(',') + ']' : '') + ', for ' + dur(j.lease.runningSeconds) + '; lease until '},
        when(j.lease.expiresAt)) : null, 'lease'],
      ['Cancellation', j.cancelRequested ? text('requested') : null, 'cancel'],
      ['Failure', j.failure ? el('span', {class: 'error-text', text: j.failure.reason + ': ' + j.failure.detail})
        : null, 'failure'],
      ['Last error', j.lastError ? el('span', {class: 'error-text', text: j.lastError}) : null, 'last-error'],
    ]);
    const r = j.request;
    const q = r.request;
    const ci = r.ciRun;
    facts(document.getElementById('request-facts'), [
      ['Request', q ? text(q.label + ' (#' + q.id + ')') : text('gone (purged)'), 'request'],
      ['Kind', q ? text(q.kind) : null, 'kind'],
      ['Cadence', q ? text(q.cadence) : null, 'request-cadence'],
      ['State', q ? text(q.state + (q.outcome ? ', ' + q.outcome : '')) : null, 'request-state'],
      ['Pull request', q && q.pr !== null ? text('#' + q.pr) : null, 'pr'],
      ['Commit', r.commit ? el('code', {text: r.commit}) : null, 'commit'],
      ['CI run', ci ? text(ci.repository + ' run ' + ci.runId + ' attempt ' + ci.attempt
        + (ci.workflow ? ' (' + ci.workflow + ')' : '') + ', ' + ci.event) : null, 'ci-run'],
    ]);
    const link = document.getElementById('ci-run');
    const ok = ci && ci.url.startsWith('https://github.com/');
    document.getElementById('ci-run-item').hidden = !ok;
    if (ok) link.setAttribute('href', ci.url);
    renderAttempts(j.attempts);
  }

  function attemptHost(j) {
    const a = j.attempts.find(x => x.attempt === j.attempt);
    return a ? a.host : null;
  }

  function renderAttempts(list) {
    const body = document.querySelector('#attempt-table tbody');
    body.replaceChildren(...list.map(a => el('tr', {'data-attempt': a.attempt, 'data-outcome': a.outcome},
      el('td', {text: a.attempt}),
      el('td', {class: 'attempt-host', text: a.host}),
      el('td', {text: a.devices.length ? a.devices.join(',') : '—'}),
      el('td', {}, when(a.startedAt)),
      el('td', {}, a.endedAt ? when(a.endedAt) : 'running'),
      el('td', {class: 'attempt-outcome outcome-' + a.outcome, text: a.outcome}),
      el('td', {class: 'attempt-error error-text', text: a.error || ''}))));
    if (!list.length) body.append(el('tr', {}, el('td', {colspan: 7, class: 'empty', text: 'Not claimed yet.'})));
  }

  function renderPicker(j) {
    const have = Array.from(picker.options).map(o => o.value).join(',');
    const want = j.logs.map(l => String(l.attempt)).join(',');
    if (have !== want) {
      picker.replaceChildren(...j.logs.map(l => el('option', {value: l.attempt, text: 'Attempt ' + l.attempt})));
    }
    if (!j.logs.length) {
      logText.textContent = '';
      document.getElementById('log-state').textContent = 'No log yet.';
      return;
    }
    const latest = j.logs[j.logs.length - 1].attempt;
    if (shown === null || (!chosen && shown !== latest)) {
      show(j.logs.find(l => l.attempt === latest));
    }
    picker.value = String(shown);
  }

  // Shows an attempt's log as the job's document returned it (head and tail as stored), to be followed from next.
  function show(log) {
    shown = log.attempt;
    logText.textContent = log.text;
    next = log.next;
    finished = log.finished;
    logState();
  }

  function logState() {
    document.getElementById('log-state').textContent = (finished ? 'finished, ' : 'following, ') + next + ' bytes';
    logText.dataset.next = next;
    logText.dataset.finished = finished;
  }

  async function followLog() {
    if (following || shown === null || finished || !jobId) return;
    following = true;
    try {
      const attempt = shown;
      const r = await fetch('/api/v1/jobs/' + jobId + '/log?attempt=' + attempt + '&offset=' + next,
        {cache: 'no-store'});
      if (!r.ok) return;
      const log = await r.json();
      if (attempt !== shown || log.offset !== next) return; // switched meanwhile
      const atBottom = logText.scrollTop + logText.clientHeight >= logText.scrollHeight - 4;
      if (log.text) logText.append(document.createTextNode(log.text));
      next = log.next;
      finished = log.finished;
      logState();
      if (atBottom) logText.scrollTop = logText.scrollHeight;
    } catch (e) {
      status('Cannot read the log: ' + e.message);
    } finally {
      following = false;
    }
  }

  async function refresh() {
    if (!jobId) { status('Not a job page: expected /jobs/<number>.'); return; }
    try {
      const r = await fetch('/api/v1/jobs/' + jobId, {cache: 'no-store'});
      const j = await r.json();
      if (!r.ok) { status(j.error); return; }
      renderJob(j);
      renderPicker(j);
      const at = new Date().toISOString();
      document.getElementById('updated').replaceChildren('Updated ', when(at));
      document.body.dataset.updated = at;
    } catch (e) {
      status('Cannot reach the fleet: ' + e.message);
    }
  }

  picker.addEventListener('change', async () => {
    chosen = true;
    const r = await fetch('/api/v1/jobs/' + jobId + '/log?attempt=' + encodeURIComponent(picker.value),
      {cache: 'no-store'});
    if (r.ok) show(await r.json());
  });

  refresh();
  setInterval(refresh, JOB_MS);
  setInterval(followLog, LOG_MS);
})();
