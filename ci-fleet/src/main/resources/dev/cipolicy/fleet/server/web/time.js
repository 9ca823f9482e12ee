// The fleet pages' one time format, shared by the status page (app.js) and a job's page (job.js): local time and
// how far off it is ("05:02:30, in 3 min"), the exact UTC instant on hover (the title) and for machines (datetime).
'use strict';
window.FleetTime = (function () {
  function dur(s) {
    if (s === null || s === undefined) return '—';
    s = Math.max(0, Math.round(s));
    if (s < 60) return s + ' s';
    const m = Math.floor(s / 60), r = s % 60;
    if (m < 60) return m + ' min ' + (r ? r + ' s' : '');
    return Math.floor(m / 60) + ' h ' + (m % 60) + ' min';
  }

  function time(iso) {
    return iso ? new Date(iso).toLocaleTimeString([], {hour12: false}) : '';
  }

  // A <time> element for an ISO instant; relative to nowIso (the store's now) when given, else to this browser's.
  function when(iso, nowIso) {
    const e = document.createElement(iso ? 'time' : 'span');
    if (!iso) { e.textContent = 'unknown'; return e; }
    const at = new Date(iso);
    const now = nowIso ? new Date(nowIso) : new Date();
    const s = Math.round((at - now) / 1000);
    const rel = Math.abs(s) < 5 ? 'now' : s > 0 ? 'in ' + dur(s).trim() : dur(-s).trim() + ' ago';
    e.setAttribute('datetime', iso);
    e.setAttribute('title', at.toISOString().replace('T', ' ').replace(/\.\d+Z$/, 'Z').replace('Z', ' UTC'));
    e.textContent = time(iso) + ', ' + rel;
    return e;
  }

  return {dur: dur, time: time, when: when};
})();
