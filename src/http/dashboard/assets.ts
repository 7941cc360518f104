/**
 * The dashboard's one script and one style sheet, served from this process (no CDN, no build step).
 * The script keeps the page live: it listens to /events (Server-Sent Events; the browser resumes
 * with Last-Event-ID after a drop), adds each event to the activity list as text, and refreshes the
 * sections that changed, leaving alone one the person is typing in.
 */
import { describeAge } from '../../core/liveness.js';

export const DASHBOARD_JS = `(() => {
  'use strict';
  // The server's own wording of an age ("3 min ago"), kept current every 30 s.
  const describeAge = ${describeAge.toString()};
  setInterval(() => {
    for (const t of document.querySelectorAll('time[datetime]'))
      t.textContent = describeAge(Date.parse(t.dateTime), Date.now());
  }, 30000);
  const body = document.body;
  let after = Number(body.dataset.after || 0);
  const project = body.dataset.project || '';
  const feed = document.getElementById('feed');
  const live = document.getElementById('live');
  let timer = null;

  function add(ev) {
    if (ev.listed === false) return;
    if (!feed || feed.querySelector('[data-event="' + ev.id + '"]')) return;
    const li = document.createElement('li');
    li.dataset.event = String(ev.id);
    li.dataset.kind = ev.kind;
    const time = document.createElement('time');
    time.dateTime = ev.at;
    time.title = ev.at.slice(0, 19).replace('T', ' ') + ' UTC';
    time.textContent = describeAge(Date.parse(ev.at), Date.now());
    const kind = document.createElement('span');
    kind.className = 'kind';
    kind.textContent = ev.kind;
    li.append(time, ' ', kind, ' ', ev.text);
    feed.prepend(li);
    while (feed.children.length > 200) feed.lastElementChild.remove();
  }

  function busy(section) {
    const active = document.activeElement;
    if (active && active !== document.body && section.contains(active)) return true;
    for (const field of section.querySelectorAll('textarea, input:not([type=hidden])'))
      if (field.value !== field.defaultValue) return true;
    for (const d of section.querySelectorAll('details')) if (d.open) return true;
    return false;
  }

  async function refresh() {
    let res;
    try {
      res = await fetch(location.pathname, { credentials: 'same-origin', headers: { accept: 'text/html' } });
    } catch {
      return;
    }
    if (!res.ok) return;
    const doc = new DOMParser().parseFromString(await res.text(), 'text/html');
    for (const fresh of doc.querySelectorAll('[data-live]')) {
      const current = document.querySelector('[data-live="' + fresh.dataset.live + '"]');
      if (!current) continue;
      if (busy(current)) {
        current.dataset.stale = '1';
        continue;
      }
      if (current.innerHTML !== fresh.innerHTML) current.replaceWith(document.adoptNode(fresh));
    }
    body.dataset.refreshed = String(after);
  }

  function schedule() {
    clearTimeout(timer);
    timer = setTimeout(refresh, 150);
  }

  document.addEventListener('focusout', () => {
    if (document.querySelector('[data-stale]')) schedule();
  });

  const source = new EventSource('/events?after=' + after + (project ? '&project=' + encodeURIComponent(project) : ''));
  source.addEventListener('open', () => live && live.classList.add('on'));
  source.addEventListener('error', () => live && live.classList.remove('on'));
  source.addEventListener('change', (e) => {
    const ev = JSON.parse(e.data);
    after = ev.id;
    body.dataset.after = String(after);
    add(ev);
    schedule();
  });
  source.addEventListener('reset', () => location.reload());
})();
`;

export const DASHBOARD_CSS = `:root { color-scheme: light dark; --muted: #777; --line: #8884; --warn: #d33; --ok: #2a2; --stale: #c80; }
* { box-sizing: border-box; }
body { font: 15px/1.45 system-ui, sans-serif; margin: 0 auto; max-width: 1200px; padding: 0 12px 40px; overflow-wrap: anywhere; }
header { display: flex; gap: 10px; align-items: baseline; padding: 10px 0; border-bottom: 1px solid var(--line); }
.brand { font-weight: 700; text-decoration: none; color: inherit; }
.muted, small { color: var(--muted); }
.live { color: var(--muted); margin-left: auto; }
.live.on { color: var(--ok); }
h1 { font-size: 1.2em; word-break: break-all; }
h2 { font-size: 1.05em; margin: 1.4em 0 .4em; }
.scroll { overflow-x: auto; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: 4px 6px; border-bottom: 1px solid var(--line); vertical-align: top; }
.path { word-break: break-all; font-family: ui-monospace, monospace; font-size: .9em; }
.badge { display: inline-block; font-size: .8em; padding: 0 6px; border-radius: 8px; border: 1px solid var(--line); }
.badge.active { color: var(--ok); } .badge.inactive { color: var(--stale); } .badge.ended { color: var(--muted); }
nav.projects { display: flex; flex-wrap: wrap; gap: 4px 12px; margin-top: 6px; font-size: .9em; }
nav.projects a[aria-current="page"] { font-weight: 600; text-decoration: none; }
.badge.quiet { color: var(--stale); } details.ended > summary { color: var(--muted); cursor: pointer; margin: 6px 0; }
.badge.idle { color: var(--stale); font-weight: 600; } .badge.unread { color: var(--warn); } small.receipts { color: var(--muted); }
.badge.conflict, li.conflict > strong { color: var(--warn); }
.badge.landing-landed { color: var(--ok); } .badge.landing-rejected, .badge.landing-cancelled { color: var(--warn); }
.badge.landing-queued, .badge.landing-landing { color: var(--stale); font-weight: 600; } #landing p.reason { margin: 2px 0 0 0; }
li.claim.conflict { border-left: 3px solid var(--warn); padding-left: 6px; }
li.predicted-look > strong { color: var(--stale); }
li.claim.stale { opacity: .75; }
tr.state-ended { opacity: .6; }
ul.tree, ul.tree ul { list-style: none; padding-left: 14px; }
ul.tree > li { padding-left: 0; }
li.marked > .seg { color: var(--warn); font-weight: 600; }
.seg { font-family: ui-monospace, monospace; }
.seg.glob { border: 1px dashed var(--muted); border-radius: 4px; padding: 0 4px; }
ul.lines { padding-left: 18px; }
.text, .intent, blockquote { white-space: pre-wrap; word-break: break-word; }
blockquote { margin: 4px 0; padding: 4px 10px; border-left: 3px solid var(--line); }
.question { border: 1px solid var(--line); border-radius: 6px; padding: 6px 10px; margin: 8px 0; }
.question.urgency-high { border-color: var(--warn); border-width: 2px; }
.question.urgency-low { border-style: dashed; }
.badge.urgency-high { color: var(--warn); font-weight: 600; } .badge.urgency-low { color: var(--muted); }
form { display: flex; flex-wrap: wrap; gap: 6px; align-items: end; margin: 4px 0; }
label { display: flex; flex-direction: column; flex: 1 1 200px; font-size: .9em; }
textarea, input { font: inherit; padding: 4px; width: 100%; }
button { font: inherit; padding: 4px 10px; cursor: pointer; }
button.danger { color: var(--warn); }
.options { display: flex; flex-wrap: wrap; gap: 6px; }
.notice { border-left: 3px solid var(--ok); padding: 4px 8px; }
.error { border-left: 3px solid var(--warn); padding: 4px 8px; }
.activity ol { padding-left: 0; list-style: none; max-height: 320px; overflow-y: auto; font-size: .9em; }
.activity li { border-bottom: 1px solid var(--line); padding: 2px 0; word-break: break-word; }
.kind { font-size: .8em; color: var(--muted); }
.timeline { display: block; overflow: hidden; font-size: 11px; }
.timeline .name { fill: currentColor; font-weight: 600; }
.timeline .axis { fill: var(--muted); }
.timeline .tick { stroke: var(--line); stroke-dasharray: 2 3; }
.timeline .track { fill: #8882; }
.timeline .lane.state-ended .track { fill: #8881; }
.mark.kind-claim { fill: #3a7bd5; } .key.kind-claim::before { background: #3a7bd5; }
.mark.kind-edit { fill: #8a5cd6; } .key.kind-edit::before { background: #8a5cd6; }
.mark.kind-message { fill: #2a2; } .key.kind-message::before { background: #2a2; }
.mark.kind-delivered { fill: none; stroke: #2a2; stroke-width: 1.5; } .key.kind-delivered::before { background: #fff; border: 1.5px solid #2a2; box-sizing: border-box; }
.mark.kind-question { fill: #c80; } .key.kind-question::before { background: #c80; }
.mark.kind-decision { fill: #0aa; } .key.kind-decision::before { background: #0aa; }
.mark.kind-review { fill: #c4a; } .key.kind-review::before { background: #c4a; }
.mark.kind-commit { stroke: currentColor; stroke-width: 2; } .key.kind-commit::before { background: currentColor; }
.mark.kind-landing { fill: #2a9d5c; } .key.kind-landing::before { background: #2a9d5c; }
.timeline .meeting line { stroke: var(--warn); stroke-width: 2; } .timeline .meeting circle { fill: none; stroke: var(--warn); stroke-width: 2; }
.key.kind-meeting::before { background: var(--warn); }
.legend { font-size: .8em; color: var(--muted); display: flex; flex-wrap: wrap; gap: 2px 12px; }
.key::before { content: ""; display: inline-block; width: 9px; height: 9px; border-radius: 50%; margin-right: 4px; }
.code { font: .85em/1.4 ui-monospace, monospace; border: 1px solid var(--line); border-radius: 4px; margin: 6px 0; }
.ln { display: flex; } .ln .num { flex: 0 0 3.2em; text-align: right; padding-right: 6px; color: var(--muted); user-select: none; }
.ln .sign { flex: 0 0 1.2em; user-select: none; } .ln .src { flex: 1; min-width: 0; white-space: pre-wrap; word-break: break-word; }
.ln.add { background: #2a22; } .ln.del { background: #d332; }
.at-line { padding: 4px 8px 4px 4.4em; border-top: 1px solid var(--line); border-bottom: 1px solid var(--line); }
.suggestion { border-left: 3px solid var(--stale); padding: 2px 8px; margin: 6px 0; font-family: system-ui, sans-serif; font-size: 1.1em; }
.suggestion.severity-critical, .suggestion.severity-major { border-left-color: var(--warn); }
.badge.severity-critical, .badge.severity-major, .badge.verdict-request_changes { color: var(--warn); }
.badge.verdict-approve, .badge.status-approved, .badge.status-merged { color: var(--ok); }
pre.conversation { white-space: pre-wrap; word-break: break-word; }
@media (max-width: 640px) {
  body { font-size: 14px; }
  /* Tables become cards: one row a card, each cell labelled; nothing scrolls sideways. */
  table, tbody, tr, td { display: block; width: auto; }
  thead { display: none; }
  tr { border: 1px solid var(--line); border-radius: 6px; margin: 0 0 8px; padding: 4px 6px; }
  td { border: 0; padding: 2px 0; }
  td[data-label]::before { content: attr(data-label) ": "; color: var(--muted); font-size: .85em; }
  .scroll { overflow-x: visible; }
  .timeline .mid { display: none; }
}
`;
