import { targetsMeet } from '../../core/claim-target.js';
import { inline } from '../../core/fence.js';
import { type GlobBudget, globBudget } from '../../core/glob.js';
import type { SessionState } from '../../core/liveness.js';
import { commitsMadeIn } from '../../integrations/git-commits.js';
import type { ClaimSpan } from '../../store/timeline-store.js';
import { stateOf } from '../sessions/liveness.js';
import type { Wiring } from '../tool-context.js';

export type MarkKind =
  | 'claim'
  | 'edit'
  | 'message'
  | 'delivered'
  | 'question'
  | 'decision'
  | 'review'
  | 'commit'
  | 'landing';

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
  /** The first place they met, and how many other places (files, functions) they met in. */
  target: string;
  more: number;
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
  claims: 300,
  /** Files of those claims read in all, shared among them. */
  spans: 3_000,
  moments: 300,
  commitsPerCopy: 50,
  copies: 20,
  /** Pairs of held patterns compared for meetings; past it, the rest are not looked for. */
  comparisons: 20_000,
  meetings: 100,
} as const;

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
    const claims = await timeline.claims(projectId, since, L.claims);
    // Each claim gets its share of the files read, so a huge one cannot crowd out the others.
    const perClaim = Math.max(5, Math.floor(L.spans / Math.max(1, claims.length)));
    const files = await timeline.files(
      claims.map((c) => c.claim_id),
      perClaim,
    );
    const claimOf = new Map(claims.map((c) => [c.claim_id, c]));
    const spans: ClaimSpan[] = files.map((f) => ({ ...claimOf.get(f.claim_id)!, ...f }));
    const [messages, deliveries, questions, decisions, reviews, landings] = await Promise.all([
      timeline.messages(projectId, since, L.moments),
      timeline.deliveries(projectId, since, L.moments),
      timeline.questions(projectId, since, L.moments),
      timeline.decisions(projectId, since, L.moments),
      timeline.reviews(projectId, since, L.moments),
      timeline.landings(projectId, since, L.moments),
    ]);
    let cut =
      sessions.length === L.lanes || claims.length === L.claims || claims.some((c) => c.files > perClaim);
    const add = (sessionId: string, mark: TimelineMark) => lanes.get(sessionId)?.marks.push(mark);

    const held = new Map<string, ClaimSpan[]>();
    for (const span of spans) {
      const list = held.get(span.claim_id) ?? [];
      list.push(span);
      held.set(span.claim_id, list);
    }
    for (const claim of claims) {
      const its = (held.get(claim.claim_id) ?? []).sort((p, q) => p.pattern.localeCompare(q.pattern));
      if (claim.source === 'edit') {
        for (const f of its)
          add(claim.session_id, {
            kind: 'edit',
            at: f.added_at ?? f.created_at,
            until: null,
            text: f.pattern,
          });
      } else {
        const names = its.slice(0, 5).map((f) => f.pattern);
        add(claim.session_id, {
          kind: 'claim',
          at: claim.created_at,
          until: spanEnd(claim, now),
          text: `${inline(names.join(', '), 200)}${claim.files > names.length ? ` +${claim.files - names.length}` : ''}: ${inline(claim.intent)}`,
        });
      }
    }
    for (const m of messages)
      add(m.session_id, {
        kind: 'message',
        at: m.at,
        until: null,
        text: `to ${m.to_name ?? 'everyone'}: ${inline(m.text)}`,
      });
    // A message reaching the recipient's agent: when, how, and (as its end) when it next acted.
    for (const d of deliveries)
      add(d.session_id, {
        kind: 'delivered',
        at: d.at,
        until: null,
        text: `${d.to_name ? `${d.to_name.replace('_', ' ')}: ` : ''}${inline(d.text)}${d.until !== null ? ' (acted on)' : ''}`,
      });
    for (const q of questions)
      add(q.session_id, { kind: 'question', at: q.at, until: q.until ?? now, text: inline(q.text) });
    for (const d of decisions)
      add(d.session_id, { kind: 'decision', at: d.at, until: null, text: inline(d.text) });
    for (const w of reviews)
      add(w.session_id, { kind: 'review', at: w.at, until: null, text: inline(w.text) });
    // A request to land: from its asking to its outcome (while queued or landing, until now).
    for (const l of landings)
      add(l.session_id, { kind: 'landing', at: l.at, until: l.until ?? now, text: inline(l.text, 300) });
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
    // Per commit, a bounded number of comparisons of held patterns with the files it changed.
    let budget = 0;
    const globs = globBudget();
    const touched = (h: ClaimSpan, files: string[]) =>
      files.some((f) => --budget > 0 && meetWithin(h.pattern, f, globs) !== null);
    read.forEach((worktree, i) => {
      for (const commit of found[i]!) {
        budget = L.comparisons / L.commitsPerCopy;
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
            text: `${commit.hash} ${inline(commit.subject.replace(/^commit[^:]*: /, ''))}`,
          });
      }
    });
    return copies.length > read.length;
  }
}

function spanEnd(span: Pick<ClaimSpan, 'released_at' | 'status' | 'updated_at'>, now: number): number {
  if (span.released_at !== null) return span.released_at;
  return span.status === 'active' ? now : span.updated_at;
}

/** Where two targets meet, within `budget`: past it nothing more is drawn (rather than meetings that may not be). */
function meetWithin(a: string, b: string, budget: GlobBudget): string | null {
  if (budget.steps <= 0) return null;
  const target = targetsMeet(a, b, budget);
  return budget.steps > 0 ? target : null;
}

/**
 * Where two sessions' claims or edits reached the same code while both were held: per pair of
 * sessions, the first such moment (the later of the two starts) and how many other places they met.
 * Each pair gets its share of `comparisons`, so one busy pair cannot hide the others.
 */
function meetings(spans: ClaimSpan[], lanes: Map<string, TimelineLane>, now: number): TimelineMeeting[] {
  const L = TIMELINE_LIMITS;
  const globs = globBudget();
  const bySession = new Map<string, ClaimSpan[]>();
  for (const s of spans) {
    if (!lanes.has(s.session_id) || (s.active !== 1 && s.status === 'active')) continue;
    const list = bySession.get(s.session_id);
    if (list) list.push(s);
    else bySession.set(s.session_id, [s]);
  }
  // Named in the order the lanes are drawn: who started first, first.
  const ids = [...bySession.keys()].sort((p, q) => {
    const a = lanes.get(p)!;
    const b = lanes.get(q)!;
    return a.from - b.from || a.name.localeCompare(b.name);
  });
  const pairs = (ids.length * (ids.length - 1)) / 2;
  const share = Math.max(200, Math.floor(L.comparisons / Math.max(1, pairs)));
  const found: TimelineMeeting[] = [];
  for (let i = 0; i < ids.length; i++)
    for (let j = i + 1; j < ids.length; j++) {
      let budget = share;
      let first: { at: number; target: string } | null = null;
      const places = new Set<string>();
      for (const a of bySession.get(ids[i]!)!) {
        const aFrom = a.added_at ?? a.created_at;
        for (const b of bySession.get(ids[j]!)!) {
          if (--budget < 0) break;
          const bFrom = b.added_at ?? b.created_at;
          if (aFrom > spanEnd(b, now) || bFrom > spanEnd(a, now)) continue;
          const target = meetWithin(a.pattern, b.pattern, globs);
          if (target === null) continue;
          places.add(target);
          const at = Math.max(aFrom, bFrom);
          if (first === null || at < first.at) first = { at, target };
        }
        if (budget < 0) break;
      }
      if (first === null) continue;
      const who = (id: string) => ({ session_id: id, name: lanes.get(id)!.name });
      found.push({
        at: first.at,
        a: who(ids[i]!),
        b: who(ids[j]!),
        target: first.target,
        more: places.size - 1,
      });
    }
  return found.sort((p, q) => p.at - q.at).slice(0, L.meetings);
}
