import { realpathSync, statSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve } from 'node:path';
import type { AppContext } from '../../app/context.js';
import { CollabError, invalidInput } from '../../core/errors.js';
import { inline } from '../../core/fence.js';
import { glob, matchPath, overlap } from '../../core/glob.js';
import { newId } from '../../core/ids.js';
import { LIMITS } from '../../core/limits.js';
import { describeAge, type SessionState } from '../../core/liveness.js';
import { decodeCursor, type Page, pageOf } from '../../core/page.js';
import { ancestorBases, isGlob, literalBase, normalizePattern } from '../../core/paths.js';
import { iso } from '../../core/time.js';
import { trackedFiles, workingTreeChanges } from '../../integrations/git-status.js';
import type {
  ClaimSource,
  ClaimStatus,
  ClaimWithFiles,
  LivePattern,
  Scope,
} from '../../store/claims-store.js';
import type { SessionRow } from '../../store/sessions-store.js';
import type { NotificationsService } from '../notifications/notifications-service.js';
import { stateOf } from '../sessions/liveness.js';

export interface ClaimConflict {
  claim_id: string;
  session: string;
  session_id: string;
  files: string[];
  intent: string;
  overlap: string[];
  exclusive: boolean;
}

export interface CheckConflict {
  file: string;
  /** Where `file` came from: the checked pattern and the held one it meets (not in tool output). */
  checked?: string;
  held?: string;
  session: string;
  session_id: string;
  claim_id: string;
  intent: string;
  scope: Scope;
  started_at: string;
}

export interface StaleClaim extends CheckConflict {
  session_status: SessionState;
}

export interface ClaimView {
  claim_id: string;
  session_id: string;
  session: string;
  files: string[];
  intent: string;
  scope: Scope;
  status: ClaimStatus;
  exclusive: boolean;
  created_at: string;
  expires_at: string | null;
  released_at: string | null;
  summary: string | null;
  source: ClaimSource;
}

/** A live pattern found near a path, with how it meets it. */
interface Hit {
  row: LivePattern;
  witness: string;
}

/**
 * Whose eyes a check looks through: a project and worktree, and the session whose own claims do
 * not count (none for a person committing outside any session).
 */
export interface Viewpoint {
  id: string | null;
  project_id: string;
  worktree: string;
  /**
   * More sessions whose claims do not count: those of a client process that has several, when
   * nothing says which one is looking (an edit is judged against everyone else's claims).
   */
  also?: string[];
}

export class ClaimsService {
  constructor(
    private readonly app: AppContext,
    private readonly notifications: NotificationsService,
  ) {}

  /** Normalises client paths against the session's worktree; a literal directory claims all below. */
  normalize(files: string[], session: { worktree: string }, field = 'files'): string[] {
    if (files.length === 0) throw invalidInput(`${field}: give at least one path or pattern.`);
    const out: string[] = [];
    for (const file of files) {
      let pattern: string;
      try {
        pattern = normalizePattern(file, session.worktree);
      } catch (error) {
        if (error instanceof CollabError) throw invalidInput(`${field}: ${error.message}`, error.hint);
        throw error;
      }
      if (!isGlob(pattern) && isDirectory(join(session.worktree, pattern))) pattern = `${pattern}/**`;
      glob(pattern); // reject patterns too large to compile, before anything is written
      if (!out.includes(pattern)) out.push(pattern);
    }
    return out;
  }

  /** The uncommitted changes (staged, unstaged, untracked) of the session's worktree. */
  changedFiles(session: { worktree: string }): string[] {
    let changes: { tracked: string[]; untracked: string[] };
    try {
      changes = workingTreeChanges(session.worktree);
    } catch (error) {
      throw invalidInput(
        `from_git: cannot read the changes of ${session.worktree} (${(error as Error).message.split('\n')[0]}).`,
        'from_git needs a git worktree and the git command; list the files instead.',
      );
    }
    const files = [...new Set([...changes.tracked, ...changes.untracked])];
    if (files.length === 0) {
      throw invalidInput(
        `from_git: ${session.worktree} has no uncommitted changes to claim.`,
        'List the files you are about to change instead.',
      );
    }
    return files;
  }

  /**
   * Files the session has changed in its worktree (uncommitted) that other live sessions hold:
   * the work most likely to collide. In a worktree another session shares (or shared during this
   * one's life), an uncommitted change is the session's only where its own claims (edits recorded
   * by the hooks included) cover it: someone else's edit is never blamed on it. Empty when the
   * worktree cannot be read.
   */
  changedFilesHeldByOthers(session: SessionRow): CheckConflict[] {
    if (session.host !== this.app.host) return [];
    let files: string[];
    try {
      const changes = workingTreeChanges(session.worktree);
      files = [...new Set([...changes.tracked, ...changes.untracked])];
    } catch {
      return [];
    }
    // Shared: another session works here now, or did while this one did (its edits may remain).
    const shared = this.app.store.sessions
      .list(session.project_id, true)
      .some(
        (s) =>
          s.id !== session.id &&
          s.worktree === session.worktree &&
          (s.ended_at === null || s.ended_at > session.created_at),
      );
    if (shared) {
      const own = this.app.store.claims
        .list({ projectId: session.project_id, sessionId: session.id, status: 'active' })
        .flatMap((c) => c.files)
        .map((p) => glob(p));
      files = files.filter((f) => own.some((g) => matchPath(g, f)));
    }
    return files.length === 0 ? [] : this.check(session, files).conflicts;
  }

  /**
   * Normalises paths a client acted on (absolute, or relative to `cwd`), leaving out those outside
   * the session's worktree: hooks see every file an agent touches, not only project files.
   */
  normalizeInside(paths: string[], cwd: string, session: { worktree: string }): string[] {
    const out: string[] = [];
    for (const p of paths) {
      // Through a symlinked folder a file is still the worktree's file: compare real paths.
      const absolute = realPathOf(resolve(cwd, p.replace(/\\/g, '/')));
      const rel = relative(session.worktree, absolute);
      // `..env` is a file in the worktree; `..` and `../x` are outside it.
      if (rel === '..' || rel.startsWith('../') || rel.startsWith('..\\') || isAbsolute(rel)) continue;
      let pattern: string | undefined;
      try {
        [pattern] = this.normalize([rel === '' ? '.' : rel], session);
      } catch (error) {
        // Past the limits on paths (longer than any file system allows): no file to protect.
        if (!(error instanceof CollabError) || error.code !== 'INVALID_INPUT') throw error;
        this.app.log.info('path.skipped', { path: inline(rel, 120), reason: error.message.slice(0, 200) });
        continue;
      }
      if (pattern && !out.includes(pattern)) out.push(pattern);
    }
    return out;
  }

  /**
   * Records files a session edited as its claim (source `edit`), so that others are warned even
   * when nobody called collab_claim. One such claim per session, grown as it edits; its intent is
   * the session's current collab_claim intent, or "editing".
   */
  recordEdits(session: SessionRow, patterns: string[]): { claim_id: string; added: string[] } {
    const { store } = this.app;
    // Editing a file it already holds (the common case) changes nothing: no write lock.
    const held = store.claims.activeOfSource(session.id, 'edit');
    if (held) {
      const had = new Set(store.claims.get(held)?.files ?? []);
      if (patterns.every((p) => had.has(p))) return { claim_id: held, added: [] };
    }
    return store.write(() => {
      const now = this.app.now();
      const patternsWithBase = patterns.map((pattern) => ({ pattern, base: literalBase(pattern) }));
      const existing = store.claims.activeOfSource(session.id, 'edit');
      if (existing) {
        const had = new Set(store.claims.get(existing)!.files);
        const added = patternsWithBase.filter((p) => !had.has(p.pattern));
        if (added.length === 0) return { claim_id: existing, added: [] };
        store.claims.addPatterns(existing, session.project_id, added, now);
        store.claims.touch(existing, now);
        return { claim_id: existing, added: added.map((p) => p.pattern) };
      }
      const current = store.claims.currentIntent(session.id);
      const id = newId();
      store.claims.insert(
        {
          id,
          session_id: session.id,
          project_id: session.project_id,
          intent: current?.intent ?? 'editing',
          scope: current?.scope ?? 'small',
          exclusive: 0,
          created_at: now,
          expires_at: null,
          source: 'edit',
        },
        patternsWithBase,
      );
      return { claim_id: id, added: patterns };
    });
  }

  claim(input: {
    session: SessionRow;
    files: string[];
    intent: string;
    scope: Scope;
    exclusive: boolean;
    ttlSeconds: number | undefined;
    source?: ClaimSource;
  }): {
    claim_id: string;
    status: 'created' | 'created_with_conflicts';
    files: string[];
    conflicts: ClaimConflict[];
    expires_at: string | null;
  } {
    const { store } = this.app;
    const patterns = this.normalize(input.files, input.session);
    const intent = input.intent.trim();
    if (!intent) throw invalidInput('intent: say what you are changing, so others understand.');
    // The costly part (reading the candidates, glob overlaps) runs here, before the write lock.
    // Inside it, only what changed meanwhile is read: patterns added since (after a mark), and
    // which of the claims found are still active; then the holders' liveness, afresh.
    const mark = store.claims.mark(input.session.project_id);
    const found = this.candidateHits(input.session, patterns, this.app.now());
    const result = store.write(() => {
      const now = this.app.now();
      store.claims.expireDue(now);
      // Usually nothing was released meanwhile; if something was, which of those found remain.
      const active =
        store.claims.releasedSince(mark) === 0
          ? null
          : store.claims.activeAmong([...new Set(found.map((h) => h.row.claim_id))]);
      const added = store.claims.livePatternsAfter(mark);
      const hits = (active ? found.filter((h) => active.has(h.row.claim_id)) : found).concat(
        patterns.flatMap((p) => this.matching(added, p, input.session.id, now)),
      );
      const conflicts = this.conflictsOf(hits, now);
      const blocking = input.exclusive ? conflicts : conflicts.filter((c) => c.exclusive);
      if (blocking.length > 0) {
        throw new CollabError(
          'CLAIM_CONFLICT',
          `${input.exclusive ? 'Exclusive claim refused' : 'Claim refused: an exclusive claim holds these files'}: ${blocking
            .map((c) => `${c.overlap.join(', ')} held by "${c.session}" (${c.intent})`)
            .join('; ')}. Nothing was claimed.`,
        );
      }
      const id = newId();
      const expiresAt = input.ttlSeconds === undefined ? null : now + input.ttlSeconds * 1000;
      store.claims.insert(
        {
          id,
          session_id: input.session.id,
          project_id: input.session.project_id,
          intent,
          scope: input.scope,
          exclusive: input.exclusive ? 1 : 0,
          created_at: now,
          expires_at: expiresAt,
          source: input.source ?? 'tool',
        },
        patterns.map((pattern) => ({ pattern, base: literalBase(pattern) })),
      );
      // Each holder learns, once, that someone claimed next to it, and where (a few places).
      const byHolder = new Map<string, string[]>();
      for (const c of conflicts) {
        const files = byHolder.get(c.session_id) ?? [];
        for (const f of c.overlap)
          if (files.length < LIMITS.notifiedPaths && !files.includes(f)) files.push(f);
        byHolder.set(c.session_id, files);
      }
      for (const [holder, files] of byHolder) {
        this.notifications.notify([holder], {
          type: 'claim_conflict',
          subject: `claim_conflict:${input.session.id}`,
          payload: { session: input.session.name, session_id: input.session.id, files, intent },
          project: input.session.project_id,
        });
      }
      return { id, conflicts, expiresAt };
    });
    this.app.log.info('claim.create', {
      claim: result.id,
      session: input.session.id,
      files: patterns,
      conflicts: result.conflicts.length,
    });
    return {
      claim_id: result.id,
      status: result.conflicts.length > 0 ? 'created_with_conflicts' : 'created',
      files: patterns,
      conflicts: result.conflicts,
      expires_at: iso(result.expiresAt),
    };
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
    return meetings.map(({ ours, theirs, witness }) => {
      // The patterns the witness came from: the first of each side that it matches.
      const a = ours.find((p) => matchPath(glob(p), witness)) ?? witness;
      const b = theirs.find((p) => matchPath(glob(p), witness)) ?? witness;
      if (!isGlob(a) || !isGlob(b)) return witness;
      // Each search may read every tracked file: a few per answer, the rest stay examples.
      if (++searches > MEETING_POINT_SEARCHES) return `${witness} (example)`;
      if (tracked === null) {
        try {
          tracked = trackedFiles(worktree, LIMITS.trackedFilesSearched);
        } catch {
          tracked = [];
        }
      }
      const ga = glob(a);
      const gb = glob(b);
      return tracked.find((f) => matchPath(ga, f) && matchPath(gb, f)) ?? `${witness} (example)`;
    });
  }

  /**
   * Live sessions whose claims overlap the active claims of `session`, with the paths where they
   * meet: who to tell when that session ends.
   */
  neighbours(session: SessionRow): Map<string, string[]> {
    const now = this.app.now();
    const out = new Map<string, string[]>();
    const states = new Map<string, SessionState>();
    for (const claim of this.app.store.claims.list({
      projectId: session.project_id,
      sessionId: session.id,
      status: 'active',
    })) {
      for (const pattern of claim.files) {
        for (const hit of this.hits(session.project_id, pattern, session.id, now)) {
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
  takeovers(
    session: SessionRow,
    inactiveSince: number,
  ): {
    byHolder: Map<string, { session: string; files: string[]; intents: string[] }>;
    yielding: ClaimWithFiles[];
  } {
    const now = this.app.now();
    const states = new Map<string, SessionState>();
    const byHolder = new Map<string, { session: string; files: string[]; intents: string[] }>();
    const yielding: ClaimWithFiles[] = [];
    for (const claim of this.app.store.claims.list({
      projectId: session.project_id,
      sessionId: session.id,
      status: 'active',
    })) {
      let yields = false;
      for (const pattern of claim.files) {
        for (const { row, witness } of this.hits(session.project_id, pattern, session.id, now)) {
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

  /**
   * A session heard from again after it went inactive (suspended, stopped; or resumed in a new
   * process after its own died) at `inactiveSince`: claims other sessions made over its files since
   * then were granted while its own did not count, and they stand. Where
   * either side is exclusive, its claim gives way (released); where both are advisory, both stay.
   * Either way it is told, by a notification on its next response. Runs inside the caller's
   * transaction, before the session counts as live again.
   */
  yieldToTakeovers(session: SessionRow, inactiveSince: number): void {
    const { store } = this.app;
    const now = this.app.now();
    const { byHolder, yielding } = this.takeovers(session, inactiveSince);
    const released: string[] = [];
    for (const claim of yielding) {
      store.claims.release(
        claim.id,
        'abandoned',
        'given up: taken over while this session was inactive',
        now,
      );
      released.push(...claim.files);
    }
    for (const [holderId, holder] of byHolder) {
      this.notifications.notify([session.id], {
        type: 'claim_taken_over',
        subject: `claim_taken_over:${holderId}`,
        payload: {
          session: holder.session,
          session_id: holderId,
          files: holder.files,
          intent: holder.intents.join('; '),
          released: released.filter((f) => holder.files.some((w) => matchPath(glob(f), w))),
        },
        project: session.project_id,
      });
    }
    if (byHolder.size > 0)
      this.app.log.info('claim.taken_over', { session: session.id, holders: [...byHolder.keys()], released });
  }

  /** Live claims of other sessions overlapping any of `patterns`, grouped by claim. */
  /** Every live pattern of other sessions that meets one of `patterns`, whoever holds it. */
  private candidateHits(session: SessionRow, patterns: string[], now: number): Hit[] {
    return patterns.flatMap((pattern) => this.hits(session.project_id, pattern, session.id, now));
  }

  /**
   * The conflicts among candidate hits: claims not expired by `now`, of holders live now (their
   * rows read afresh: one read per holder, however many patterns it has).
   */
  private conflictsOf(hits: Hit[], now: number): ClaimConflict[] {
    const byClaim = new Map<string, ClaimConflict>();
    const states = new Map<string, SessionState>();
    for (const hit of hits) {
      if (hit.row.expires_at !== null && hit.row.expires_at <= now) continue;
      if (this.stateOfSession(hit.row.session_id, states) !== 'active') continue;
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
  private hits(
    projectId: string,
    pattern: string,
    excludeSession: string | null,
    now: number,
    alsoExclude: readonly string[] = [],
  ): Hit[] {
    const { claims } = this.app.store;
    const literal = !isGlob(pattern);
    const base = literalBase(pattern);
    const rows = literal
      ? claims.livePatternsAt(projectId, ancestorBases(pattern))
      : claims.livePatternsNear(projectId, base, ancestorBases(base));
    return this.matching(rows, pattern, excludeSession, now, alsoExclude);
  }

  /** The live patterns among `rows` that meet `pattern`, each with a witness path. */
  private matching(
    rows: LivePattern[],
    pattern: string,
    excludeSession: string | null,
    now: number,
    alsoExclude: readonly string[] = [],
  ): Hit[] {
    const literal = !isGlob(pattern);
    const out: Hit[] = [];
    for (const row of rows) {
      if (row.session_id === excludeSession || alsoExclude.includes(row.session_id)) continue;
      if (row.expires_at !== null && row.expires_at <= now) continue;
      if (literal) {
        if (matchPath(glob(row.pattern), pattern)) out.push({ row, witness: pattern });
      } else {
        const witness = overlap(glob(pattern), glob(row.pattern));
        if (witness !== null) out.push({ row, witness });
      }
    }
    return out;
  }

  private stateOfSession(sessionId: string, states: Map<string, SessionState>): SessionState {
    let state = states.get(sessionId);
    if (state === undefined) {
      const row = this.app.store.sessions.get(sessionId);
      state = row ? stateOf(this.app, row) : 'ended';
      states.set(sessionId, state);
    }
    return state;
  }

  private stateCached(row: LivePattern, states: Map<string, SessionState>): SessionState {
    let state = states.get(row.session_id);
    if (state === undefined) {
      state = stateOf(this.app, {
        status: row.session_status,
        last_heartbeat: row.last_heartbeat,
        host: row.host,
        pid: row.pid,
        pid_start: row.pid_start,
      });
      states.set(row.session_id, state);
    }
    return state;
  }

  /** Who else works on these files: live holders block (`safe: false`), stale ones are listed apart. */
  check(
    session: Viewpoint,
    files: string[],
  ): { safe: boolean; conflicts: CheckConflict[]; stale: StaleClaim[] } {
    const patterns = this.normalize(files, session);
    const now = this.app.now();
    const states = new Map<string, SessionState>();
    const conflicts: CheckConflict[] = [];
    const stale: StaleClaim[] = [];
    const seen = new Set<string>();
    for (const pattern of patterns) {
      for (const { row, witness } of this.hits(session.project_id, pattern, session.id, now, session.also)) {
        const key = `${pattern}\0${row.claim_id}`;
        if (seen.has(key)) continue;
        seen.add(key);
        const entry: CheckConflict = {
          file: isGlob(pattern) ? witness : pattern,
          checked: pattern,
          held: row.pattern,
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
  projectConflicts(
    projectId: string,
    limit: number = LIMITS.listedConflicts,
  ): { conflicts: Array<{ a: ClaimView; b: ClaimView; path: string }>; more: boolean } {
    const now = this.app.now();
    const states = new Map<string, SessionState>();
    const live = this.app.store.claims
      .list({ projectId, sessionId: null, status: 'active' })
      .reverse() // oldest first: the earlier claim is named first
      .filter((c) => c.expires_at === null || c.expires_at > now);
    const byId = new Map(live.map((c, i) => [c.id, { claim: c, order: i }]));
    const seen = new Set<string>();
    const out: Array<{ a: ClaimView; b: ClaimView; path: string }> = [];
    for (const [order, a] of live.entries()) {
      if (this.stateOfSession(a.session_id, states) !== 'active') continue;
      for (const pattern of a.files) {
        for (const hit of this.hits(projectId, pattern, a.session_id, now)) {
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

  describeConflict(c: CheckConflict): string {
    return `${c.file} is being worked on by "${inline(c.session, 60)}" since ${describeAge(Date.parse(c.started_at), this.app.now())} (intent: ${inline(c.intent, 200)}; scope: ${c.scope})`;
  }

  release(
    session: SessionRow,
    claimId: string,
    status: 'completed' | 'abandoned',
    summary: string | undefined,
  ): ClaimView {
    const { store } = this.app;
    const view = store.write(() => {
      const claim = store.claims.get(claimId);
      if (!claim) throw new CollabError('CLAIM_NOT_FOUND', `No claim with id "${claimId}".`);
      if (claim.session_id !== session.id) {
        throw new CollabError(
          'NOT_OWNER',
          `Claim ${claimId} belongs to session "${claim.session_name}" (${claim.session_id}), not to "${session.name}".`,
          'Only the session that made the claim can release it. Message its owner with collab_message_send.',
        );
      }
      if (claim.status !== 'active') {
        throw new CollabError('CLAIM_NOT_ACTIVE', `Claim ${claimId} is already ${claim.status}.`);
      }
      store.claims.release(claimId, status, summary?.trim() || null, this.app.now());
      return this.view(store.claims.get(claimId)!);
    });
    this.app.log.info('claim.release', { claim: claimId, status });
    return view;
  }

  /**
   * One page of the project's claims, newest first. With a path filter the claims are read in order
   * until the page is full, so a page costs what it skips, never more than the whole list.
   */
  list(
    session: SessionRow,
    filter: {
      sessionId?: string | undefined;
      status: ClaimStatus | 'all';
      pathFilter?: string | undefined;
      limit: number;
      cursor?: string | undefined;
    },
  ): Page<ClaimView> {
    const { store } = this.app;
    const after =
      filter.cursor === undefined ? null : (decodeCursor(filter.cursor) as { at: number; id: string });
    const wanted =
      filter.pathFilter === undefined
        ? null
        : glob(this.normalize([filter.pathFilter], session, 'path_filter')[0]!);
    store.write(() => store.claims.expireDue(this.app.now()));
    const rows: ClaimWithFiles[] = [];
    for (const row of store.claims.iterate({
      projectId: session.project_id,
      sessionId: filter.sessionId ?? null,
      status: filter.status,
      after,
    })) {
      if (wanted && !row.files.some((f) => overlap(wanted, glob(f)) !== null)) continue;
      rows.push(row);
      if (rows.length > filter.limit) break;
    }
    const page = pageOf(rows, filter.limit, (row) => ({ at: row.created_at, id: row.id }));
    return { items: page.items.map((row) => this.view(row)), next_cursor: page.next_cursor };
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

/**
 * The real path of a file that may not exist yet: its nearest existing ancestor resolved, the rest
 * appended as given.
 */
function realPathOf(path: string): string {
  const rest: string[] = [];
  for (let current = path; ; ) {
    try {
      return join(realpathSync(current), ...rest.reverse());
    } catch {
      const parent = dirname(current);
      if (parent === current) return path;
      rest.push(basename(current));
      current = parent;
    }
  }
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
