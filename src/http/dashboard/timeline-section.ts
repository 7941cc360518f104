import { inline } from '../../core/fence.js';
import { describeAge } from '../../core/liveness.js';
import type { MarkKind, Timeline, TimelineMark } from '../../features/hub/timeline.js';
import { type Html, html } from './html.js';

/** Heights in SVG units: a lane is its name, then its track; the axis runs below the last. */
const LANE = 38;
const AXIS = 18;

const WORDS: Record<MarkKind, string> = {
  claim: 'claimed',
  edit: 'edited',
  message: 'message',
  delivered: 'told',
  question: 'asked',
  decision: 'decided',
  review: 'submitted for review',
  commit: 'committed',
  landing: 'asked to land',
};

const clock = (ms: number) => `${new Date(ms).toISOString().slice(11, 16)} UTC`;

/**
 * The timeline as one SVG drawn in percentages of its width (the page's CSP allows no inline style;
 * SVG lengths are attributes), so it fits a phone as it fits a laptop. Each mark says what it is on
 * hover; the meetings are listed as text below.
 */
export function timelineSection(t: Timeline): Html {
  const span = Math.max(1, t.to - t.from);
  const x = (ms: number, pad = 0.6) =>
    `${Math.min(100 - pad, Math.max(pad, ((ms - t.from) / span) * 100)).toFixed(2)}%`;
  const width = (from: number, to: number) =>
    `${Math.max(0.4, ((Math.min(to, t.to) - Math.max(from, t.from)) / span) * 100).toFixed(2)}%`;
  const row = new Map(t.lanes.map((l, i) => [l.session_id, i * LANE]));
  const height = t.lanes.length * LANE + AXIS;
  const mark = (m: TimelineMark, top: number): Html => {
    const title = html`<title>${WORDS[m.kind]} ${clock(m.at)}${m.until !== null ? html`–${clock(m.until)}` : ''}: ${m.text}</title>`;
    if (m.until !== null)
      return html`<rect class="mark kind-${m.kind}" data-kind="${m.kind}" x="${x(m.at, 0)}" width="${width(m.at, m.until)}" y="${top + (m.kind === 'question' ? 30 : m.kind === 'landing' ? 14 : 19)}" height="${m.kind === 'question' || m.kind === 'landing' ? 4 : 9}" rx="2">${title}</rect>`;
    if (m.kind === 'commit')
      return html`<line class="mark kind-commit" data-kind="commit" x1="${x(m.at)}" x2="${x(m.at)}" y1="${top + 15}" y2="${top + 35}">${title}</line>`;
    return html`<circle class="mark kind-${m.kind}" data-kind="${m.kind}" cx="${x(m.at)}" cy="${top + 23.5}" r="${m.kind === 'edit' ? 3 : 4.5}">${title}</circle>`;
  };
  const ticks = [0, 0.25, 0.5, 0.75, 1].map((f) => {
    const at = t.from + f * span;
    const label = f === 1 ? 'now' : describeAge(at, t.to);
    const anchor = f === 0 ? 'start' : f === 1 ? 'end' : 'middle';
    const mid = f === 0.25 || f === 0.75 ? ' mid' : '';
    return html`<line class="tick${mid}" x1="${x(at, 0)}" x2="${x(at, 0)}" y1="0" y2="${height - AXIS + 2}"></line><text class="axis${mid}" x="${x(at, 0)}" y="${height - 4}" text-anchor="${anchor}">${label}</text>`;
  });
  return html`<section data-live="timeline" id="timeline"><h2>Timeline <small>since ${describeAge(t.from, t.to)}</small></h2>
${
  t.lanes.length === 0
    ? html`<p class="muted">No session worked here in the last hours.</p>`
    : html`<svg class="timeline" role="img" aria-label="What each session did, over time" width="100%" height="${height}">
${ticks}
${t.lanes.map((lane) => {
  const top = row.get(lane.session_id)!;
  return html`<g class="lane state-${lane.state}" data-lane="${lane.session_id}" data-name="${lane.name}">
<text class="name" x="0.3%" y="${top + 12}">${inline(lane.name, 40)}${lane.client ? ` · ${lane.client}` : ''}${lane.state === 'ended' ? ' · ended' : ''}</text>
<rect class="track" x="${x(lane.from, 0)}" width="${width(lane.from, lane.to)}" y="${top + 17}" height="13" rx="3"></rect>
${lane.marks.map((m) => mark(m, top))}
</g>`;
})}
${t.meetings.map((m) => {
  const ya = row.get(m.a.session_id)! + 23.5;
  const yb = row.get(m.b.session_id)! + 23.5;
  return html`<g class="meeting" data-meeting="${m.a.name}|${m.b.name}"><title>${m.a.name} and ${m.b.name} both on ${m.target}${m.more > 0 ? ` and ${m.more} more` : ''} from ${clock(m.at)}</title><line x1="${x(m.at)}" x2="${x(m.at)}" y1="${ya}" y2="${yb}"></line><circle cx="${x(m.at)}" cy="${ya}" r="6"></circle><circle cx="${x(m.at)}" cy="${yb}" r="6"></circle></g>`;
})}
</svg>
<p class="legend">${(Object.keys(WORDS) as MarkKind[]).map((k) => html`<span class="key kind-${k}">${WORDS[k]}</span> `)}<span class="key kind-meeting">lanes met</span></p>
${
  t.meetings.length > 0
    ? html`<ul class="lines meetings">${t.meetings.map(
        (m) =>
          html`<li data-meeting="${m.a.name}|${m.b.name}"><time datetime="${new Date(m.at).toISOString()}" title="${clock(m.at)}">${describeAge(m.at, t.to)}</time> <strong>${m.a.name}</strong> and <strong>${m.b.name}</strong> both on <code>${m.target}</code>${m.more > 0 ? ` and ${m.more} more place${m.more === 1 ? '' : 's'}` : ''}</li>`,
      )}</ul>`
    : ''
}${t.cut ? html`<p class="muted">The busiest part is drawn: older work past the timeline's bounds is left out.</p>` : ''}`
}
</section>`;
}
