import { describeAge } from '../../core/liveness.js';
import type { SuggestionAtLines, WorkView } from '../../features/hub/work-view.js';
import { type Html, html } from './html.js';
import { layout, type PageContext } from './pages.js';

const SIGN = { ' ': ' ', '+': '+', '-': '\u2212' } as const;
const CLASS = { ' ': 'same', '+': 'add', '-': 'del' } as const;

function textLines(text: string, kind: '+' | '-'): Html {
  return html`${text
    .replace(/\n$/, '')
    .split('\n')
    .map(
      (line) =>
        html`<div class="ln ${CLASS[kind]}"><span class="num"></span><span class="sign">${SIGN[kind]}</span><span class="src">${line}</span></div>`,
    )}`;
}

function suggestion(s: SuggestionAtLines): Html {
  const where =
    s.start !== null
      ? `line${s.end !== null && s.end !== s.start ? `s ${s.start}\u2013${s.end}` : ` ${s.start}`}${s.version ? ` of version ${s.version}` : ''}`
      : s.section
        ? `section ${s.section}`
        : '';
  return html`<article class="suggestion severity-${s.severity}" data-suggestion="${s.id}"${s.start !== null ? html` data-at="${s.end ?? s.start}"` : ''}>
<p class="meta"><span class="badge severity-${s.severity}">${s.severity}</span> <span class="badge">${s.type}</span> <strong>${s.title}</strong> <span class="badge">${s.status.replace('_', ' ')}</span> <small>${s.reviewer}${where ? ` \u00b7 ${where}` : ''}</small></p>
<p class="text">${s.explanation}</p>
${s.current !== null || s.suggested !== null ? html`<div class="code">${s.current !== null ? textLines(s.current, '-') : ''}${s.suggested !== null ? textLines(s.suggested, '+') : ''}</div>` : ''}
</article>`;
}

/**
 * A work item: its content as of the latest version with the changes since the one before marked,
 * each review suggestion under the line it is about (those made on this version), the rest below.
 */
export function workPage(w: WorkView, ctx: PageContext): string {
  const last = w.lines.reduce((n, l) => (l.line === null ? n : l.line), 0);
  const placed = (s: SuggestionAtLines) => s.version === w.version && s.end !== null && s.end <= last;
  const at = new Map<number, SuggestionAtLines[]>();
  for (const s of w.suggestions.filter(placed)) at.set(s.end!, [...(at.get(s.end!) ?? []), s]);
  const elsewhere = w.suggestions.filter((s) => !placed(s));
  return layout(
    w.title,
    ctx,
    html`<h1>${w.title}</h1>
<p class="meta"><span class="badge">${w.type}</span> <span class="badge status-${w.status}">${w.status.replace('_', ' ')}</span> version ${w.version} by <strong>${w.by}</strong> &middot; <time datetime="${w.at}" title="${w.at.slice(0, 19).replace('T', ' ')} UTC">${describeAge(Date.parse(w.at), Date.now())}</time> &middot; ${w.project.kind === 'named' ? 'project' : 'repository'} <a href="/projects/${w.project.id}">${w.project.label}</a></p>
${w.description ? html`<p class="text">${w.description}</p>` : ''}
<section id="content"><h2>${w.previous !== null ? html`Changes since version ${w.previous}` : html`Content`}</h2>
${w.tooManyChanges !== null ? html`<p class="muted">Version ${w.version} differs from version ${w.tooManyChanges} in too many lines to show as changes: here it is whole.</p>` : ''}
${w.change ? html`<p class="muted text">${w.change}</p>` : ''}
<div class="code">${w.lines.map(
      (l) =>
        html`<div class="ln ${CLASS[l.kind]}"${l.line !== null ? html` data-line="${l.line}"` : ''}><span class="num">${l.line ?? ''}</span><span class="sign">${SIGN[l.kind]}</span><span class="src">${l.text}</span></div>${
          l.line !== null && at.has(l.line)
            ? html`<div class="at-line">${at.get(l.line)!.map(suggestion)}</div>`
            : ''
        }`,
    )}</div>
${w.more > 0 ? html`<p class="muted">${w.more} more lines are not shown.</p>` : ''}
</section>
${elsewhere.length > 0 ? html`<section id="suggestions"><h2>Other suggestions</h2>${elsewhere.map(suggestion)}</section>` : ''}
${w.hidden.suggestions > 0 ? html`<p class="muted">${w.hidden.suggestions} older suggestions are not shown (get_review_feedback lists them all).</p>` : ''}
<section id="reviews"><h2>Reviews (${w.reviews.length + w.hidden.reviews})</h2>
${w.hidden.reviews > 0 ? html`<p class="muted">The newest ${w.reviews.length} are listed.</p>` : ''}
${
  w.reviews.length === 0
    ? html`<p class="muted">Not reviewed yet.</p>`
    : html`<ul class="lines">${w.reviews.map(
        (r) =>
          html`<li><span class="badge verdict-${r.verdict}">${r.verdict.replace('_', ' ')}</span> by <strong>${r.reviewer}</strong> on version ${r.version}: <span class="text">${r.summary}</span></li>`,
      )}</ul>`
}
</section>
<details class="conversation"><summary>The conversation</summary><pre class="conversation">${w.conversation}</pre>${w.conversationCut ? html`<p class="muted">Cut here: get_conversation has the rest.</p>` : ''}</details>`,
  );
}
