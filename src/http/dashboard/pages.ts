import { describeAge } from '../../core/liveness.js';
import type { TreeNode } from '../../core/path-tree.js';
import { VERSION } from '../../core/version.js';
import type {
  Board,
  ClaimItem,
  ProjectLine,
  QuestionItem,
  RealmLine,
  ReceiptItem,
  SessionItem,
} from '../../features/hub/dashboard-views.js';
import type { FeedEvent } from '../../features/hub/event-log.js';
import type { LandingView } from '../../features/landing/landing-service.js';
import { type Html, html } from './html.js';
import { timelineSection } from './timeline-section.js';

/** What every page knows: the CSRF token its forms carry, where they come back to, and the feed position. */
export interface PageContext {
  csrf: string;
  /** This page's path, where a form returns after acting. */
  back: string;
  /** The last event id the page was rendered at: its live feed continues from there. */
  after: number;
  /** A project the live feed is limited to. */
  project: string | null;
  notice: string | null;
  /** Recent events, newest last. */
  recent: FeedEvent[];
  /** The projects the navigation leads to (those with live sessions or questions). */
  nav: Array<{ id: string; label: string; questions: number }>;
}

/** How a predicted conflict between two sessions reads on the board. */
const PREDICTED_WORDS: Record<string, string> = {
  textual: 'will conflict in',
  file: 'will conflict in (whole file)',
  symbol: 'both change the same code in',
  unknown: 'cannot be compared in',
  semantic: 'merge cleanly, and the build breaks, at',
};

/** A time as a person reads it at a glance ("3 min ago"; the script keeps it current), exact on hover. */
const when = (isoTime: string) =>
  html`<time datetime="${isoTime}" title="${isoTime.slice(0, 19).replace('T', ' ')} UTC">${describeAge(Date.parse(isoTime), Date.now())}</time>`;

/** A live session silent this long is marked quiet: its agent may be waiting, or stuck. */
const QUIET_MS = 5 * 60_000;

function hidden(ctx: PageContext): Html {
  return html`<input type="hidden" name="csrf" value="${ctx.csrf}"><input type="hidden" name="back" value="${ctx.back}">`;
}

/** The page around a body: header, notices, the live activity feed, the one script. */
export function layout(title: string, ctx: PageContext, main: Html): string {
  return `<!doctype html>${html`<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="csrf-token" content="${ctx.csrf}">
<title>${title} &middot; session-collab</title>
<link rel="stylesheet" href="/assets/dashboard.css">
<script src="/assets/dashboard.js" defer></script>
</head>
<body data-after="${ctx.after}" data-project="${ctx.project ?? ''}">
<header><a class="brand" href="/">session-collab</a> <span class="muted">hub ${VERSION}</span> <span id="live" class="live" title="live updates">&#9679;</span>
${
  ctx.nav.length > 0
    ? html`<nav class="projects" aria-label="Projects"><a href="/"${ctx.project === null ? html` aria-current="page"` : ''}>All</a>${ctx.nav.map((p) => html` <a href="/projects/${p.id}"${ctx.project === p.id ? html` aria-current="page"` : ''}>${p.label}${p.questions > 0 ? html` <span class="badge urgency-high">${p.questions}?</span>` : ''}</a>`)}</nav>`
    : ''
}</header>
${ctx.notice ? html`<p class="notice" role="status">${ctx.notice}</p>` : ''}
<main id="main">${main}</main>
<section class="activity"><h2>Activity</h2><ol id="feed" reversed>${ctx.recent
    .filter((e) => e.listed)
    .reverse()
    .map((e) => feedItem(e))}</ol></section>
</body>
</html>`}`;
}

export function feedItem(e: FeedEvent): Html {
  return html`<li data-event="${e.id}" data-kind="${e.kind}">${when(e.at)} <span class="kind">${e.kind}</span> ${e.text}</li>`;
}

function questionCard(q: QuestionItem, ctx: PageContext, showProject: boolean): Html {
  return html`<article class="question urgency-${q.urgency}" data-question="${q.id}">
<p class="meta">${q.urgency !== 'normal' ? html`<span class="badge urgency-${q.urgency}">${q.urgency === 'high' ? 'urgent' : 'low urgency'}</span> ` : ''}${q.label ? html`<strong class="label">${q.label}</strong> &middot; ` : ''}<strong>${q.session}</strong> asks ${showProject ? html`(<a href="/projects/${q.project_id}">project</a>)` : ''} &middot; ${when(q.asked_at)} &middot; <code>${q.id.slice(0, 8)}</code></p>
<blockquote class="text">${q.question}</blockquote>
<form method="post" action="/actions/answer" class="answer">${hidden(ctx)}<input type="hidden" name="question_id" value="${q.id}">
${
  q.options
    ? html`<div class="options">${q.options.map((o) => html`<button type="submit" name="answer" value="${o}">${o}</button>`)}</div>`
    : html`<label>Answer <textarea name="answer" rows="2" required maxlength="10000"></textarea></label><button type="submit">Answer</button>`
}
</form>
</article>`;
}

function questions(list: QuestionItem[], ctx: PageContext, showProject: boolean): Html {
  return html`<section data-live="questions" id="questions"><h2>Questions waiting for you (${list.length})</h2>
${list.length === 0 ? html`<p class="muted">No session is waiting for an answer.</p>` : list.map((q) => questionCard(q, ctx, showProject))}
</section>`;
}

function realmsSection(realms: RealmLine[]): Html {
  if (realms.length === 0) return html``;
  return html`<section data-live="realms" id="realms"><h2>Realms</h2>
${realms.map(
  (
    r,
  ) => html`<article class="realm"><p><strong>${r.name}</strong> <span class="path">${r.root}</span>${r.problems > 0 ? html` <span class="badge conflict">${r.problems} problem${r.problems === 1 ? '' : 's'}</span>` : ''}</p>
${
  r.error
    ? html`<p class="error">${r.error}</p>`
    : html`<p>Repos: ${r.repos.join(', ') || '\u2014'}</p>
${r.contracts.length > 0 ? html`<ul class="lines">${r.contracts.map((c) => html`<li><code>${c.domain}/${c.name}</code> ${c.version} (owner ${c.owner})</li>`)}</ul>` : ''}`
}
</article>`,
)}</section>`;
}

export function overviewPage(
  projects: ProjectLine[],
  pending: QuestionItem[],
  realms: RealmLine[],
  ctx: PageContext,
): string {
  return layout(
    'Overview',
    ctx,
    html`${questions(pending, ctx, true)}
<section data-live="projects" id="projects"><h2>Projects</h2>
${
  projects.length === 0
    ? html`<p class="muted">No session has connected yet. Set a project up: <code>session-collab init</code> in its folder (or add the hub to a client by hand, as <code>npm start</code> printed), then work in it.</p>`
    : html`<div class="scroll"><table><thead><tr><th>Project</th><th>Live sessions</th><th>Active claims</th><th>Questions</th></tr></thead><tbody>
${projects.map(
  (p) =>
    html`<tr><td data-label="Project"><a href="/projects/${p.id}">${p.root}</a>${p.kind === 'named' ? html` <span class="badge" title="a project of the review workflow, made by id: its work items are reviewed there">review project</span>` : ''}</td><td data-label="Live sessions">${p.kind === 'named' ? '\u2014' : p.sessions}</td><td data-label="Active claims">${p.claims}</td><td data-label="Questions">${p.questions}</td></tr>`,
)}</tbody></table></div>`
}
</section>
${realmsSection(realms)}`,
  );
}

/** How a receipt's way of delivery reads. */
const VIA: Record<string, string> = {
  tool_response: 'with a tool response',
  prompt: 'with a prompt',
  turn_end: 'at its turn\u2019s end',
  wake: 'by waking it',
  wait: 'to its wait',
  list: 'when it read its messages',
};

/**
 * A live session whose agent ended its turn: idle, and how much it has not been told (a client
 * that cannot be woken waits for its person there). One that acts: only what it has not read.
 */
function idleBadge(s: SessionItem): Html | string {
  if (s.state === 'ended') return '';
  const unread = s.unread > 0 ? `${s.unread} unread` : '';
  if (s.idle_since !== null)
    return html` <span class="badge idle" data-idle="${s.unread}" title="its turn ended ${s.idle_since}">idle${unread ? `, ${unread}` : ''}</span>`;
  return unread ? html` <span class="badge unread">${unread}</span>` : '';
}

/** Who a message reached, when and how, and when each next acted. */
function receiptsLine(receipts: ReceiptItem[]): Html | string {
  if (receipts.length === 0)
    return html`<br><small class="receipts muted">not delivered to anyone yet</small>`;
  return html`<br><small class="receipts">${receipts.map(
    (r, i) =>
      html`${i > 0 ? '; ' : ''}<span data-receipt="${r.session}">${r.session}: ${
        r.delivered_at === null
          ? 'not delivered yet'
          : html`delivered ${when(r.delivered_at)} ${VIA[r.via ?? ''] ?? ''}${r.acted_at ? html`, acted ${when(r.acted_at)}` : ', not acted since'}`
      }</span>`,
  )}</small>`;
}

function sessionRow(s: SessionItem, ctx: PageContext): Html {
  const dead = s.state !== 'active';
  return html`<tr class="state-${s.state}" data-session="${s.id}">
<td data-label="Session"><strong>${s.name}</strong><br><code>${s.id.slice(0, 8)}</code></td>
<td data-label="State"><span class="badge ${s.state}">${s.state === 'active' ? 'alive' : s.state === 'inactive' ? 'stale' : 'ended'}</span>${s.state === 'active' && Date.now() - Date.parse(s.last_activity) > QUIET_MS ? html` <span class="badge quiet" title="nothing heard for 5 min or more">quiet</span>` : ''}${idleBadge(s)}${s.end_reason ? html`<br><small>${s.end_reason}</small>` : ''}</td>
<td data-label="Client">${s.client ?? '\u2014'}</td><td data-label="Branch">${s.branch ?? '\u2014'}</td><td data-label="Copy" class="path">${s.worktree}<br><small>on ${s.host}</small></td>
<td data-label="Last activity">${when(s.last_activity)}</td><td data-label="Claims">${s.active_claims}</td>
<td class="act">${
    s.state === 'ended'
      ? ''
      : html`<details><summary>Act</summary>
<form method="post" action="/actions/message">${hidden(ctx)}<input type="hidden" name="session_id" value="${s.id}"><label>Message <textarea name="text" rows="2" required maxlength="10000"></textarea></label><button type="submit">Send</button></form>
<form method="post" action="/actions/end">${hidden(ctx)}<input type="hidden" name="session_id" value="${s.id}"><label>Why end it <input name="reason" required maxlength="500" value="${dead ? 'its process is gone' : ''}"></label><button type="submit" class="danger">End session</button></form>
</details>`
  }</td></tr>`;
}

const SESSION_HEAD = html`<thead><tr><th>Session</th><th>State</th><th>Client</th><th>Branch</th><th>Copy (folder, machine)</th><th>Last activity</th><th>Claims</th><th></th></tr></thead>`;

/** The sessions that are alive or stale, then the ended ones folded away. */
function sessionTables(sessions: SessionItem[], ctx: PageContext): Html {
  const open = sessions.filter((s) => s.state !== 'ended');
  const ended = sessions.filter((s) => s.state === 'ended');
  return html`${
    open.length > 0
      ? html`<div class="scroll"><table>${SESSION_HEAD}<tbody>${open.map((s) => sessionRow(s, ctx))}</tbody></table></div>`
      : html`<p class="muted">No live session.</p>`
  }${
    ended.length > 0
      ? html`<details class="ended"><summary>${ended.length} ended session${ended.length === 1 ? '' : 's'}</summary><div class="scroll"><table>${SESSION_HEAD}<tbody>${ended.map((s) => sessionRow(s, ctx))}</tbody></table></div></details>`
      : ''
  }`;
}

function claimLine(c: ClaimItem, ctx: PageContext): Html {
  return html`<li class="claim${c.in_conflict ? ' conflict' : ''}${c.holder_state !== 'active' ? ' stale' : ''}" data-claim="${c.claim_id}">
<strong>${c.session}</strong>${c.exclusive ? html` <span class="badge">exclusive</span>` : ''}${c.holder_state !== 'active' ? html` <span class="badge inactive">stale</span>` : ''}${c.in_conflict ? html` <span class="badge conflict">collision</span>` : ''}
since ${when(c.created_at)}: <span class="intent">${c.intent}</span>
<details><summary>Release</summary><form method="post" action="/actions/release">${hidden(ctx)}<input type="hidden" name="claim_id" value="${c.claim_id}"><label>Why <input name="reason" required maxlength="500" value="${c.holder_state !== 'active' ? 'its session is stale' : ''}"></label><button type="submit" class="danger">Release claim</button></form></details>
</li>`;
}

/** What a glob node matches, in words, for its hover title. */
function globMeaning(node: TreeNode<ClaimItem>): string {
  const folder = node.path.slice(0, node.path.length - node.name.length).replace(/\/$/, '');
  const where = folder ? `${folder}/` : 'the repository';
  if (node.name === '**') return `a pattern: everything under ${where}`;
  if (node.name === '*') return `a pattern: every file directly in ${where}`;
  return `a pattern: files under ${where} matching ${node.name}`;
}

function treeNode(node: TreeNode<ClaimItem>, ctx: PageContext): Html {
  return html`<li class="${node.marked ? 'marked' : ''}">${
    node.glob
      ? html`<code class="seg glob" title="${globMeaning(node)}">${node.name}</code>`
      : html`<span class="seg">${node.name}${node.children.length > 0 ? '/' : ''}</span>`
  }
${node.items.length > 0 ? html`<ul class="claims">${node.items.map((c) => claimLine(c, ctx))}</ul>` : ''}
${node.children.length > 0 ? html`<ul>${node.children.map((c) => treeNode(c, ctx))}</ul>` : ''}</li>`;
}

/** One request to land, as the board lists it; a refusal with its reason and the check's output. */
function landingItem(v: LandingView): Html {
  const what = html`<strong>${v.requester}</strong> ${v.commits} commit(s) of <code>${v.branch}</code> → <code>${v.onto}</code>`;
  const state = html`<span class="badge landing-${v.state}">${v.state}</span>`;
  const where =
    v.state === 'queued'
      ? html` <span class="muted">${v.ahead ? `${v.ahead} ahead` : 'next'}</span>`
      : v.state === 'landing'
        ? html` <span class="muted">replaying and checking${v.attempts > 1 ? ` (attempt ${v.attempts})` : ''}</span>`
        : v.state === 'landed'
          ? html` as <code>${(v.commit ?? '').slice(0, 12)}</code>`
          : '';
  const why = v.reason ? html`<p class="reason">${v.reason}</p>` : '';
  const output = v.check_output
    ? html`<details class="check-output"><summary>the check's output (its end)</summary><pre>${v.check_output}</pre></details>`
    : '';
  return html`<li data-landing="${v.id}" data-state="${v.state}">${state} ${what}${where} ${when(v.finished_at ?? v.requested_at)}${why}${output}</li>`;
}

function landingSection(landing: Board['landing']): Html {
  return html`<section data-live="landing" id="landing"><h2>Landing queue (${landing.queue.length})</h2>
${landing.queue.length === 0 ? html`<p class="muted">Nothing is waiting to land.</p>` : html`<ol class="lines landing-queue">${landing.queue.map(landingItem)}</ol>`}
${landing.recent.length > 0 ? html`<h3>Latest outcomes</h3><ul class="lines landing-recent">${landing.recent.map(landingItem)}</ul>` : ''}
</section>`;
}

export function boardPage(board: Board, ctx: PageContext): string {
  const { project } = board;
  return layout(
    project.root,
    ctx,
    html`<h1 class="path">${project.root}</h1>
${questions(board.questions, ctx, false)}
<section data-live="sessions" id="sessions"><h2>Sessions</h2>
${board.sessions.length === 0 ? html`<p class="muted">No sessions.</p>` : sessionTables(board.sessions, ctx)}
</section>
${timelineSection(board.timeline)}
${landingSection(board.landing)}
<section data-live="claims" id="claims"><h2>Claims (${board.claims.length})${board.conflicts.length > 0 ? html` <span class="badge conflict">${board.conflicts.length} collision${board.conflicts.length === 1 ? '' : 's'}</span>` : ''}</h2>
${
  board.conflicts.length > 0
    ? html`<ul class="conflicts">${board.conflicts.map(
        (c) =>
          html`<li class="conflict" data-conflict="${c.a.claim_id}:${c.b.claim_id}"><strong>${c.a.session}</strong> and <strong>${c.b.session}</strong> both hold <code>${c.path}</code></li>`,
      )}</ul>`
    : ''
}
${
  board.predicted.length > 0
    ? html`<h3>Predicted at merge</h3><ul class="conflicts predicted">${board.predicted.map(
        (c) =>
          html`<li class="${c.level === 'symbol' || c.level === 'unknown' ? 'predicted-look' : 'conflict'}" data-predicted="${c.level}"><strong>${c.a.session}</strong> and <strong>${c.b.session}</strong> ${PREDICTED_WORDS[c.level]} <code>${c.file}</code>${c.symbols.length > 0 ? html` (${c.symbols.join(', ')})` : ''} <span class="muted">${c.lines}</span>${c.excerpts.a || c.excerpts.b ? html`<details class="excerpts"><summary>their changes</summary>${c.excerpts.a ? html`<p><strong>${c.a.session}</strong></p><pre>${c.excerpts.a}</pre>` : ''}${c.excerpts.b ? html`<p><strong>${c.b.session}</strong></p><pre>${c.excerpts.b}</pre>` : ''}</details>` : ''}</li>`,
      )}</ul>`
    : ''
}
${board.claims.length === 0 ? html`<p class="muted">Nothing is claimed.</p>` : html`<ul class="tree">${board.tree.children.map((n) => treeNode(n, ctx))}</ul>`}
</section>
<section data-live="messages" id="messages"><h2>Messages</h2>
${
  board.messages.length === 0
    ? html`<p class="muted">No messages.</p>`
    : html`<ul class="lines">${board.messages.map(
        (m) =>
          html`<li data-message="${m.id}">${when(m.at)} <strong>${m.from}</strong> &rarr; ${m.to === null ? html`<em>everyone</em>` : html`<strong>${m.to}</strong>`}: <span class="text">${m.content}</span>${receiptsLine(m.receipts)}</li>`,
      )}</ul>`
}
</section>
<section data-live="decisions" id="decisions"><h2>Decisions</h2>
${
  board.decisions.length === 0
    ? html`<p class="muted">No decisions recorded.</p>`
    : html`<ul class="lines">${board.decisions.map(
        (d) =>
          html`<li data-decision="${d.id}">${when(d.at)} <strong>${d.title}</strong> <span class="badge">${d.category}</span> by ${d.by}<br><span class="text">${d.description}</span></li>`,
      )}</ul>`
}
</section>
<section data-live="reviews" id="reviews"><h2>Review queue</h2>
${
  board.reviews.length === 0
    ? html`<p class="muted">No work submitted for review.</p>`
    : html`<ul class="lines">${board.reviews.map(
        (w) =>
          html`<li data-work="${w.id}"><a href="/work/${w.id}">${w.title}</a> <span class="badge">${w.type}</span> <span class="badge">${w.status}</span> v${w.version} by ${w.by} &middot; ${when(w.at)}</li>`,
      )}</ul>`
}
</section>
<section data-live="notifications" id="notifications"><h2>Notifications</h2>
${
  board.notifications.length === 0
    ? html`<p class="muted">No notifications.</p>`
    : html`<ul class="lines">${board.notifications.map(
        (n) =>
          html`<li>${when(n.at)} ${n.type.replace(/_/g, ' ')} for <strong>${n.session ?? 'a session'}</strong> (${n.state}${n.count > 1 ? html`, ${n.count}&times;` : ''})</li>`,
      )}</ul>`
}
</section>`,
  );
}

/** A page for someone not logged in, or a link that no longer works. */
export function messagePage(title: string, lines: Html): string {
  return `<!doctype html>${html`<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${title} &middot; session-collab</title><link rel="stylesheet" href="/assets/dashboard.css"></head>
<body><header><span class="brand">session-collab</span></header><main><h1>${title}</h1>${lines}</main></body></html>`}`;
}
