import { targetsMeet } from '../../core/claim-target.js';
import type { SessionState } from '../../core/liveness.js';
import { commitsMadeIn } from '../../integrations/git-commits.js';
import type { ClaimSpan } from '../../store/timeline-store.js';
import { stateOf } from '../sessions/liveness.js';
import type { Wiring } from '../tool-context.js';

export type MarkKind = 'claim' | 'edit' | 'message' | 'question' | 'decision' | 'review' | 'commit';

/** One thing on a session's lane: a moment, or a span (a claim held, a question waiting). */
export interface TimelineMark {
  kind: MarkKind;
  at: number;
  /** Where a span ends (its release, or now while it lasts); null for a moment. */
  until: number | null;
  text: string;
}

export interface TimelineLane {
  session_id: string;
  name: string;
  client: string | null;
  state: SessionState;
  from: number;
  to: number;
  marks: TimelineMark[];
}

/** Two sessions holding or editing the same code at the same time: where their lanes met. */
export interface TimelineMeeting {
  at: number;
  a: { session_id: string; name: string };
  b: { session_id: string; name: string };
  target: string;
}

export interface Timeline {
  from: number;
  to: number;
  lanes: TimelineLane[];
  meetings: TimelineMeeting[];
  /** Whether a list was cut at its bound (the oldest part of a busy window is not drawn). */
  cut: boolean;
}

/** How far back a timeline reaches, and the shortest stretch it draws (a quiet start is not a dot). */
export const TIMELINE_WINDOW_MS = 3 * 3_600_000;
const SHORTEST_MS = 60_000;

export const TIMELINE_LIMITS = {
  lanes: 30,
  spans: 1_000,
  moments: 300,
  commitsPerCopy: 50,
  copies: 20,
  /** Pairs of held patterns compared for meetings; past it, the rest are not looked for. */
  comparisons: 20_000,
  meetings: 100,
} as const;

const ellipsis = (text: string, chars = 120) => (text.length > chars ? `${text.slice(0, chars - 1)}…` : text);

/**
 * Per session, a lane over the last hours: its claims held, files edited, messages, questions,
 * decisions, work for review and commits; and where two lanes met. Reads only, each bounded.
 */
export class Timelines {
  constructor(private readonly app: Wiring) {}

  async of(projectId: string): Promise<Timeline> {
    const { app } = this;
    const { timeline } = app.store;
    const now = app.now();
    const since = now - TIMELINE_WINDOW_MS;
    const L = TIMELINE_LIMITS;
    const sessions = await timeline.sessions(projectId, since, L.lanes);
    const lanes = new Map<string, TimelineLane>();
    for (const s of sessions) {
      const state = stateOf(app, s);
      lanes.set(s.id, {
        session_id: s.id,
        name: s.name,
        client: s.client,
        state,
        from: Math.max(s.created_at, since),
        to: state === 'active' ? now : (s.ended_at ?? s.last_heartbeat),
        marks: [],
      });
    }
    const spans = await timeline.claimSpans(projectId, since, L.spans);
    const [messages, questions, decisions, reviews] = await Promise.all([
      timeline.messages(projectId, since, L.moments),
      timeline.questions(projectId, since, L.moments),
      timeline.decisions(projectId, since, L.moments),
      timeline.reviews(projectId, since, L.moments),
    ]);
    let cut = sessions.length === L.lanes || spans.length === L.spans;
    const add = (sessionId: string, mark: TimelineMark) => lanes.get(sessionId)?.marks.push(mark);

    const held = new Map<string, ClaimSpan[]>();
    for (const span of spans) {
      const list = held.get(span.claim_id) ?? [];
      list.push(span);
      held.set(span.claim_id, list);
    }
    for (const files of held.values()) {
      const first = files[0]!;
      const until = spanEnd(first, now);
      if (first.source === 'edit') {
        for (const f of files)
          add(first.session_id, {
            kind: 'edit',
            at: f.added_at ?? f.created_at,
            until: null,
            text: f.pattern,
          });
      } else {
        const names = files.map((f) => f.pattern);
        add(first.session_id, {
          kind: 'claim',
          at: first.created_at,
          until,
          text: `${ellipsis(names.slice(0, 5).join(', '), 200)}${names.length > 5 ? ` +${names.length - 5}` : ''}: ${ellipsis(first.intent)}`,
        });
      }
    }
    for (const m of messages)
      add(m.session_id, {
        kind: 'message',
        at: m.at,
        until: null,
        text: `to ${m.to_name ?? 'everyone'}: ${ellipsis(m.text)}`,
      });
    for (const q of questions)
      add(q.session_id, { kind: 'question', at: q.at, until: q.until ?? now, text: ellipsis(q.text) });
    for (const d of decisions)
      add(d.session_id, { kind: 'decision', at: d.at, until: null, text: ellipsis(d.text) });
    for (const w of reviews)
      add(w.session_id, { kind: 'review', at: w.at, until: null, text: ellipsis(w.text) });
    cut = (await this.addCommits(sessions, lanes, spans, since)) || cut;

    const laneList = [...lanes.values()].sort((a, b) => a.from - b.from || a.name.localeCompare(b.name));
    for (const lane of laneList) lane.marks.sort((a, b) => a.at - b.at);
    const earliest = Math.min(now - SHORTEST_MS, ...laneList.map((l) => l.from));
    const from = Math.max(since, earliest - Math.round((now - earliest) * 0.03));
    return { from, to: now, lanes: laneList, meetings: meetings(spans, lanes, now), cut };
  }

  /**
   * Commits made in the copies of this machine, each on the lane of the session working there then;
   * where several shared the folder, on the lanes of those that held or edited a file it changed
   * (on all of them when none did: the folder cannot tell).
   */
  private async addCommits(
    sessions: Array<{ id: string; worktree: string; host: string }>,
    lanes: Map<string, TimelineLane>,
    spans: ClaimSpan[],
    since: number,
  ): Promise<boolean> {
    const now = this.app.now();
    const L = TIMELINE_LIMITS;
    const copies = [...new Set(sessions.filter((s) => s.host === this.app.host).map((s) => s.worktree))];
    const read = copies.slice(0, L.copies);
    const found = await Promise.all(read.map((w) => commitsMadeIn(w, since, L.commitsPerCopy)));
    const bySession = new Map<string, ClaimSpan[]>();
    for (const h of spans) {
      const list = bySession.get(h.session_id);
      if (list) list.push(h);
      else bySession.set(h.session_id, [h]);
    }
    let budget: number = L.comparisons;
    const touched = (h: ClaimSpan, files: string[]) =>
      files.some((f) => --budget > 0 && targetsMeet(h.pattern, f) !== null);
    read.forEach((worktree, i) => {
      for (const commit of found[i]!) {
        // Reflog times are whole seconds: the commit happened within [at, at + 1 s).
        const holding = (s: { id: string }, from: number, until: number) =>
          (bySession.get(s.id) ?? []).some(
            (h) =>
              (h.added_at ?? h.created_at) < from && spanEnd(h, now) >= until && touched(h, commit.files),
          );
        // Working there then: surely (started before that second), or maybe (within it), and then
        // only a session that already held a file the commit changed.
        const working = sessions.filter((s) => {
          const lane = lanes.get(s.id);
          if (s.worktree !== worktree || !lane || lane.from >= commit.at + 1000 || commit.at > lane.to)
            return false;
          return lane.from <= commit.at || holding(s, commit.at + 1, commit.at);
        });
        // Who still held a file it changed after that second wins over who let it go within it.
        const shared = working.length > 1;
        const still = shared ? working.filter((s) => holding(s, commit.at + 1000, commit.at + 1000)) : [];
        const holders =
          still.length > 0 || !shared
            ? still
            : working.filter((s) => holding(s, commit.at + 1000, commit.at));
        for (const s of holders.length > 0 ? holders : working)
          lanes.get(s.id)!.marks.push({
            kind: 'commit',
            at: commit.at,
            until: null,
            text: `${commit.hash} ${ellipsis(commit.subject.replace(/^commit[^:]*: /, ''))}`,
          });
      }
    });
    return copies.length > read.length;
  }
}

function spanEnd(span: ClaimSpan, now: number): number {
  if (span.released_at !== null) return span.released_at;
  return span.status === 'active' ? now : span.updated_at;
}

/**
 * Where two sessions' claims or edits reached the same code while both were held: the later of
 * their starts, once per pair and target. Bounded by `comparisons`.
 */
function meetings(spans: ClaimSpan[], lanes: Map<string, TimelineLane>, now: number): TimelineMeeting[] {
  const L = TIMELINE_LIMITS;
  const found = new Map<string, TimelineMeeting>();
  const live = spans.filter((s) => lanes.has(s.session_id) && (s.active === 1 || s.status !== 'active'));
  let comparisons = 0;
  for (let i = 0; i < live.length; i++) {
    const a = live[i]!;
    const aFrom = a.added_at ?? a.created_at;
    for (let j = i + 1; j < live.length; j++) {
      const b = live[j]!;
      if (a.session_id === b.session_id) continue;
      if (++comparisons > L.comparisons || found.size === L.meetings) return [...found.values()];
      const bFrom = b.added_at ?? b.created_at;
      if (aFrom > spanEnd(b, now) || bFrom > spanEnd(a, now)) continue;
      const target = targetsMeet(a.pattern, b.pattern);
      if (target === null) continue;
      // Named in the order the lanes are drawn: who started first, first.
      const la = lanes.get(a.session_id)!;
      const lb = lanes.get(b.session_id)!;
      const first = la.from < lb.from || (la.from === lb.from && la.name <= lb.name);
      const [x, y] = first ? [a, b] : [b, a];
      const key = `${x.session_id}\0${y.session_id}\0${target}`;
      const at = Math.max(aFrom, bFrom);
      const seen = found.get(key);
      if (seen && seen.at <= at) continue;
      const who = (s: ClaimSpan) => ({ session_id: s.session_id, name: lanes.get(s.session_id)!.name });
      found.set(key, { at, a: who(x), b: who(y), target });
    }
  }
  return [...found.values()].sort((p, q) => p.at - q.at);
}
