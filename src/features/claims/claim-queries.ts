/**
 * The read side of claims: who holds what near a set of files, where two claims meet, conflicts in
 * a project, neighbours and take-overs. `ClaimsService` (the write use cases) builds on it.
 */
import type { AppContext } from '../../app/context.js';
import { pathOf, targetsMeet } from '../../core/claim-target.js';
import { inline, shown } from '../../core/fence.js';
import { type GlobBudget, glob, globBudget, matchPath } from '../../core/glob.js';
import { LIMITS } from '../../core/limits.js';
import { describeAge, type SessionState } from '../../core/liveness.js';
import { ancestorBases, isGlob, literalBase } from '../../core/paths.js';
import { iso } from '../../core/time.js';
import { trackedFiles, workingTreeChanges } from '../../integrations/git-status.js';
import type { LivePattern } from '../../store/claim-patterns-store.js';
import type { ClaimWithFiles } from '../../store/claims-store.js';
import type { SessionRow } from '../../store/sessions-store.js';
import { stateOf } from '../sessions/liveness.js';
import type { CheckConflict, ClaimConflict, ClaimView, Hit, StaleClaim, Viewpoint } from './claim-types.js';

export class ClaimQueries {
  constructor(protected readonly app: AppContext) {}

  /**
   * Files the session has changed in its worktree (uncommitted) that other live sessions hold:
   * the work most likely to collide. In a worktree another session shares (or shared during this
   * one's life), an uncommitted change is the session's only where its own claims (edits recorded
   * by the hooks included) cover it: someone else's edit is never blamed on it. Empty when the
   * worktree cannot be read.
   */
  async changedFilesHeldByOthers(session: SessionRow): Promise<CheckConflict[]> {
    if (session.host !== this.app.host) return [];
    let files: string[];
    try {
      const changes = workingTreeChanges(session.worktree);
      files = [...new Set([...changes.tracked, ...changes.untracked])];
    } catch {
      return [];
    }
    // Shared: another session works here now, or did while this one did (its edits may remain).
    const shared = (await this.app.store.sessions.list(session.project_id, true)).some(
      (s) =>
        s.id !== session.id &&
        s.worktree === session.worktree &&
        (s.ended_at === null || s.ended_at > session.created_at),
    );
    if (shared) {
      const own = (
        await this.app.store.claims.list({
          projectId: session.project_id,
          sessionId: session.id,
          status: 'active',
        })
      )
        .flatMap((c) => c.files)
        .map((p) => glob(pathOf(p)));
      const budget = globBudget();
      files = files.filter((f) => own.some((g) => matchPath(g, f, budget)));
    }
    return files.length === 0 ? [] : (await this.check(session, files)).conflicts;
  }

  /**
   * Where two patterns meet, honestly: a file git tracks that matches both when there is one (the
   * first of `LIMITS.trackedFilesSearched`), else the constructed example, marked `(example)`.
   * Literal paths are real already. Read outside any transaction (it runs git).
   */
  meetingPoints(
    worktree: string,
    meetings: Array<{ ours: string[]; theirs: string[]; witness: string }>,
  ): string[] {
    let tracked: string[] | null = null;
    let searches = 0;
    // Past it, a match says yes without looking: what is left stays an example.
    const budget = globBudget();
    return meetings.map(({ ours, theirs, witness }) => {
      // The patterns the witness came from: the first of each side that it matches.
      const a = ours.find((p) => matchPath(glob(p), witness)) ?? witness;
      const b = theirs.find((p) => matchPath(glob(p), witness)) ?? witness;
      if (!isGlob(a) || !isGlob(b)) return witness;
      // Each search may read every tracked file: a few per answer, the rest stay examples.
      if (++searches > MEETING_POINT_SEARCHES || budget.steps <= 0) return `${witness} (example)`;
      if (tracked === null) {
        try {
          tracked = trackedFiles(worktree, LIMITS.trackedFilesSearched);
        } catch {
          tracked = [];
        }
      }
      const ga = glob(a);
      const gb = glob(b);
      const real = tracked.find((f) => matchPath(ga, f, budget) && matchPath(gb, f, budget));
      return real !== undefined && budget.steps > 0 ? real : `${witness} (example)`;
    });
  }

  /**
   * Live sessions whose claims overlap the active claims of `session`, with the paths where they
   * meet: who to tell when that session ends.
   */
  async neighbours(session: SessionRow): Promise<Map<string, string[]>> {
    const now = this.app.now();
    const out = new Map<string, string[]>();
    const states = new Map<string, SessionState>();
    const budget = globBudget();
    for (const claim of await this.app.store.claims.list({
      projectId: session.project_id,
      sessionId: session.id,
      status: 'active',
    })) {
      for (const pattern of claim.files) {
        for (const hit of await this.hits(session.project_id, pattern, session.id, now, budget)) {
          if (this.stateCached(hit.row, states) !== 'active') continue;
          const files = out.get(hit.row.session_id) ?? [];
          if (!files.includes(hit.witness)) files.push(hit.witness);
          out.set(hit.row.session_id, files);
        }
      }
    }
    return out;
  }

  /**
   * What others claimed over a session's files since `inactiveSince`: per holder, where and why,
   * and which of its claims give way (either side exclusive). Reads only: `SessionsService.touch`
   * runs it before taking the write lock, so that the overlaps are worked out (and remembered)
   * outside it.
   */
  async takeovers(
    session: SessionRow,
    inactiveSince: number,
  ): Promise<{
    byHolder: Map<string, { session: string; files: string[]; intents: string[] }>;
    yielding: ClaimWithFiles[];
  }> {
    const now = this.app.now();
    const states = new Map<string, SessionState>();
    const byHolder = new Map<string, { session: string; files: string[]; intents: string[] }>();
    const yielding: ClaimWithFiles[] = [];
    const budget = globBudget();
    for (const claim of await this.app.store.claims.list({
      projectId: session.project_id,
      sessionId: session.id,
      status: 'active',
    })) {
      let yields = false;
      for (const pattern of claim.files) {
        const hits = await this.hits(session.project_id, pattern, session.id, now, budget);
        for (const { row, witness } of hits) {
          if (row.added_at <= inactiveSince) continue; // granted while it still counted
          if (this.stateCached(row, states) !== 'active') continue;
          if (claim.exclusive === 1 || row.exclusive === 1) yields = true;
          const holder = byHolder.get(row.session_id) ?? {
            session: row.session_name,
            files: [],
            intents: [],
          };
          if (!holder.files.includes(witness)) holder.files.push(witness);
          if (!holder.intents.includes(row.intent)) holder.intents.push(row.intent);
          byHolder.set(row.session_id, holder);
        }
      }
      if (yields) yielding.push(claim);
    }
    return { byHolder, yielding };
  }

  /** Every live pattern of other sessions that meets one of `patterns`, whoever holds it. */
  protected async candidateHits(
    session: SessionRow,
    patterns: string[],
    now: number,
    budget: GlobBudget,
  ): Promise<Hit[]> {
    // The paths (not globs) in one read: the live patterns at any of their ancestors.
    const exact = patterns.filter((p) => !isGlob(pathOf(p)));
    const atPaths =
      exact.length > 1
        ? await this.app.store.claimPatterns.livePatternsAt(session.project_id, [
            ...new Set(exact.flatMap((p) => ancestorBases(pathOf(p)))),
          ])
        : null;
    const out: Hit[] = [];
    for (const pattern of patterns)
      out.push(
        ...(atPaths && !isGlob(pathOf(pattern))
          ? this.matching(atPaths, pattern, session.id, now, budget)
          : await this.hits(session.project_id, pattern, session.id, now, budget)),
      );
    return out;
  }

  /**
   * The conflicts among candidate hits: claims not expired by `now`, of holders live now (their
   * rows read afresh: one read per holder, however many patterns it has).
   */
  protected async conflictsOf(hits: Hit[], now: number): Promise<ClaimConflict[]> {
    const byClaim = new Map<string, ClaimConflict>();
    const states = new Map<string, SessionState>();
    for (const hit of hits) {
      if (hit.row.expires_at !== null && hit.row.expires_at <= now) continue;
      if ((await this.stateOfSession(hit.row.session_id, states)) !== 'active') continue;
      let c = byClaim.get(hit.row.claim_id);
      if (!c) {
        c = {
          claim_id: hit.row.claim_id,
          session: hit.row.session_name,
          session_id: hit.row.session_id,
          files: [],
          intent: hit.row.intent,
          overlap: [],
          exclusive: hit.row.exclusive === 1,
        };
        byClaim.set(hit.row.claim_id, c);
      }
      if (!c.files.includes(hit.row.pattern)) c.files.push(hit.row.pattern);
      if (!c.overlap.includes(hit.witness)) c.overlap.push(hit.witness);
    }
    return [...byClaim.values()];
  }

  /** Live patterns of other sessions that meet `pattern`, with a witness path. */
  protected async hits(
    projectId: string,
    pattern: string,
    excludeSession: string | null,
    now: number,
    budget: GlobBudget,
    alsoExclude: readonly string[] = [],
  ): Promise<Hit[]> {
    const { claimPatterns } = this.app.store;
    const path = pathOf(pattern);
    const base = literalBase(path);
    const rows = !isGlob(path)
      ? await claimPatterns.livePatternsAt(projectId, ancestorBases(path))
      : await claimPatterns.livePatternsNear(projectId, base, ancestorBases(base));
    return this.matching(rows, pattern, excludeSession, now, budget, alsoExclude);
  }

  /**
   * The live patterns among `rows` that meet `pattern` (symbols included), each with a witness;
   * the glob work drawn from `budget` (one per request: see `GlobBudget`).
   */
  protected matching(
    rows: LivePattern[],
    pattern: string,
    excludeSession: string | null,
    now: number,
    budget: GlobBudget,
    alsoExclude: readonly string[] = [],
  ): Hit[] {
    const out: Hit[] = [];
    for (const row of rows) {
      if (row.session_id === excludeSession || alsoExclude.includes(row.session_id)) continue;
      if (row.expires_at !== null && row.expires_at <= now) continue;
      const witness = targetsMeet(pattern, row.pattern, budget);
      if (witness !== null) out.push({ row, witness });
    }
    return out;
  }

  protected async stateOfSession(
    sessionId: string,
    states: Map<string, SessionState>,
  ): Promise<SessionState> {
    let state = states.get(sessionId);
    if (state === undefined) {
      const row = await this.app.store.sessions.get(sessionId);
      state = row ? stateOf(this.app, row) : 'ended';
      states.set(sessionId, state);
    }
    return state;
  }

  protected stateCached(row: LivePattern, states: Map<string, SessionState>): SessionState {
    let state = states.get(row.session_id);
    if (state === undefined) {
      state = stateOf(this.app, {
        status: row.session_status,
        last_heartbeat: row.last_heartbeat,
        host: row.host,
        pid: row.pid,
        pid_start: row.pid_start,
        server_pid: row.server_pid,
        created_at: row.session_created_at,
      });
      states.set(row.session_id, state);
    }
    return state;
  }

  /**
   * Who else works on these patterns (as `normalizeFiles` gives them): live holders block
   * (`safe: false`), stale ones are listed apart.
   */
  async check(
    session: Viewpoint,
    patterns: string[],
  ): Promise<{ safe: boolean; conflicts: CheckConflict[]; stale: StaleClaim[] }> {
    const now = this.app.now();
    const states = new Map<string, SessionState>();
    const conflicts: CheckConflict[] = [];
    const stale: StaleClaim[] = [];
    const seen = new Set<string>();
    const budget = globBudget();
    for (const pattern of patterns) {
      for (const { row, witness } of await this.hits(
        session.project_id,
        pattern,
        session.id,
        now,
        budget,
        session.also,
      )) {
        const key = `${pattern}\0${row.claim_id}`;
        if (seen.has(key)) continue;
        seen.add(key);
        const entry: CheckConflict = {
          file: witness,
          checked: pattern,
          held: row.pattern,
          source: row.source,
          session: row.session_name,
          session_id: row.session_id,
          claim_id: row.claim_id,
          intent: row.intent,
          scope: row.scope,
          started_at: iso(row.created_at),
        };
        const state = this.stateCached(row, states);
        if (state === 'active') conflicts.push(entry);
        else stale.push({ ...entry, session_status: state });
      }
    }
    return { safe: conflicts.length === 0, conflicts, stale };
  }

  /**
   * Pairs of live claims of different sessions that overlap, the earlier claim first: at most
   * `limit`, and whether there are more. Each claim's patterns are looked up through the index of
   * bases (as `check` does), so the cost grows with the claims and their real overlaps, not with
   * every pair of claims.
   */
  async projectConflicts(
    projectId: string,
    limit: number = LIMITS.listedConflicts,
  ): Promise<{ conflicts: Array<{ a: ClaimView; b: ClaimView; path: string }>; more: boolean }> {
    const now = this.app.now();
    const states = new Map<string, SessionState>();
    const live = (await this.app.store.claims.list({ projectId, sessionId: null, status: 'active' }))
      .reverse() // oldest first: the earlier claim is named first
      .filter((c) => c.expires_at === null || c.expires_at > now);
    const byId = new Map(live.map((c, i) => [c.id, { claim: c, order: i }]));
    const seen = new Set<string>();
    const out: Array<{ a: ClaimView; b: ClaimView; path: string }> = [];
    const budget = globBudget();
    for (const [order, a] of live.entries()) {
      if ((await this.stateOfSession(a.session_id, states)) !== 'active') continue;
      for (const pattern of a.files) {
        for (const hit of await this.hits(projectId, pattern, a.session_id, now, budget)) {
          const other = byId.get(hit.row.claim_id);
          // Each pair once, from its earlier claim; both holders live.
          if (!other || other.order <= order || seen.has(`${a.id} ${other.claim.id}`)) continue;
          if (this.stateCached(hit.row, states) !== 'active') continue;
          seen.add(`${a.id} ${other.claim.id}`);
          if (out.length === limit) return { conflicts: out, more: true };
          out.push({ a: this.view(a), b: this.view(other.claim), path: hit.witness });
        }
      }
    }
    return { conflicts: out, more: false };
  }

  /**
   * How many of the project's claims have stopped being active so far (a counter: when it has not
   * moved, no claim was released, expired or ended with its session since it was read).
   */
  async releasedCount(projectId: string): Promise<number> {
    return Number((await this.app.store.claimPatterns.mark(projectId)).released);
  }

  /** The status of each claim named (active, completed, abandoned, expired; absent: deleted). */
  async statuses(claimIds: string[]): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    for (const id of new Set(claimIds)) {
      const row = await this.app.store.claims.get(id);
      if (row) out.set(id, row.status);
    }
    return out;
  }

  describeConflict(c: CheckConflict): string {
    return `${c.file} is being worked on by "${inline(c.session, 60)}" since ${describeAge(Date.parse(c.started_at), this.app.now())} (intent: ${shown(c.intent, 200)}; scope: ${c.scope})`;
  }

  view(row: ClaimWithFiles): ClaimView {
    return {
      claim_id: row.id,
      session_id: row.session_id,
      session: row.session_name,
      files: row.files,
      intent: row.intent,
      scope: row.scope,
      status: row.status,
      exclusive: row.exclusive === 1,
      created_at: iso(row.created_at),
      expires_at: iso(row.expires_at),
      released_at: iso(row.released_at),
      summary: row.summary,
      source: row.source,
    };
  }
}

/** Real meeting points looked for in one answer (see `meetingPoints`). */
const MEETING_POINT_SEARCHES = 10;
