import type { AppContext } from '../../app/context.js';
import { pathOf, targetsMeet } from '../../core/claim-target.js';
import { CollabError, invalidInput } from '../../core/errors.js';
import { inline, shown } from '../../core/fence.js';
import { type GlobBudget, globBudget } from '../../core/glob.js';
import { newId } from '../../core/ids.js';
import { LIMITS } from '../../core/limits.js';
import { decodeCursor, encodeCursor, type Page, pageOf } from '../../core/page.js';
import { literalBase } from '../../core/paths.js';
import { iso } from '../../core/time.js';
import type { ClaimsMark } from '../../store/claim-patterns-store.js';
import type { ClaimSource, ClaimStatus, ClaimWithFiles, Scope } from '../../store/claims-store.js';
import type { SessionRow } from '../../store/sessions-store.js';
import type { NotificationsService } from '../notifications/notifications-service.js';
import { normalizeFiles } from './claim-paths.js';
import { ClaimQueries } from './claim-queries.js';
import type { ClaimConflict, ClaimView, Hit } from './claim-types.js';

/** The write use cases of claims (claim, record edits, release, give way), on top of the read side. */
export class ClaimsService extends ClaimQueries {
  constructor(
    app: AppContext,
    private readonly notifications: NotificationsService,
  ) {
    super(app);
  }

  /**
   * Records files a session edited as its claim (source `edit`), so that others are warned even
   * when nobody called collab_claim. One such claim per session, grown as it edits; its intent is
   * the session's current collab_claim intent, or "editing".
   */
  async recordEdits(session: SessionRow, patterns: string[]): Promise<{ claim_id: string; added: string[] }> {
    const { store } = this.app;
    // Editing a file it already holds (the common case) changes nothing: no write lock.
    const held = await store.claims.activeOfSource(session.id, 'edit');
    if (held) {
      const had = new Set((await store.claims.get(held))?.files ?? []);
      if (patterns.every((p) => had.has(p))) return { claim_id: held, added: [] };
    }
    // Made before the write (used if it makes the claim): run again (its group rolled back,
    // store/write-groups.ts), the write keeps the id a read between the group's writes saw.
    const made = newId();
    return store.write(
      async () => {
        const now = this.app.now();
        const patternsWithBase = patterns.map((pattern) => ({ pattern, base: literalBase(pathOf(pattern)) }));
        const existing = await store.claims.activeOfSource(session.id, 'edit');
        if (existing) {
          const had = new Set((await store.claims.get(existing))!.files);
          const added = patternsWithBase.filter((p) => !had.has(p.pattern));
          if (added.length === 0) return { claim_id: existing, added: [] };
          await store.claims.addPatterns(existing, session.project_id, added, now);
          await store.claims.touch(existing, now);
          return { claim_id: existing, added: added.map((p) => p.pattern) };
        }
        const current = await store.claims.currentIntent(session.id);
        const id = made;
        await store.claims.insert(
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
      },
      { project: session.project_id },
    );
  }

  async claim(input: {
    session: SessionRow;
    files: string[];
    intent: string;
    scope: Scope;
    exclusive: boolean;
    ttlSeconds: number | undefined;
    source?: ClaimSource;
  }): Promise<{
    claim_id: string;
    status: 'created' | 'created_with_conflicts';
    files: string[];
    conflicts: ClaimConflict[];
    expires_at: string | null;
  }> {
    const { store } = this.app;
    const patterns = normalizeFiles(input.files, input.session);
    const intent = input.intent.trim();
    if (!intent) throw invalidInput('intent: say what you are changing, so others understand.');
    // On the team database the costly part (reading the candidates, glob overlaps) runs here,
    // before the write lock, and inside it only what changed meanwhile is read: patterns added
    // since (after a mark), and which of the claims found are still active. On SQLite the
    // candidates are read inside, once (three statements fewer a claim): one process serves every
    // call on one thread, its writes share a transaction (store/write-groups.ts), and a read
    // before the lock could see a group's rows that are then rolled back (a mark at a rowid used
    // again, a release undone). Then the holders' liveness, afresh.
    const before = store.dialect === 'postgresql';
    const mark = before ? await store.claimPatterns.mark(input.session.project_id) : null;
    const budget = globBudget();
    const found = before ? await this.candidateHits(input.session, patterns, this.app.now(), budget) : [];
    // The claim's id, made before the write: run again (its group rolled back), the write keeps
    // the id a read between the group's writes saw (a hook's check, which waits on it: a claim
    // that never was would be told released).
    const made = newId();
    const result = await store.write(
      async () => {
        const now = this.app.now();
        await store.claims.expireDue(now, input.session.project_id);
        const hits = mark
          ? await this.stillHits(mark, found, patterns, input.session, now, budget)
          : await this.candidateHits(input.session, patterns, now, budget);
        const conflicts = await this.conflictsOf(hits, now);
        const blocking = input.exclusive ? conflicts : conflicts.filter((c) => c.exclusive);
        if (blocking.length > 0) {
          throw new CollabError(
            'CLAIM_CONFLICT',
            `${input.exclusive ? 'Exclusive claim refused' : 'Claim refused: an exclusive claim holds these files'}: ${blocking
              .map(
                (c) =>
                  `${c.overlap.join(', ')} held by "${inline(c.session, 60)}" (intent ${shown(c.intent, 120)})`,
              )
              .join('; ')}. Nothing was claimed.`,
          );
        }
        const id = made;
        const expiresAt = input.ttlSeconds === undefined ? null : now + input.ttlSeconds * 1000;
        await store.claims.insert(
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
          patterns.map((pattern) => ({ pattern, base: literalBase(pathOf(pattern)) })),
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
          await this.notifications.notify([holder], {
            type: 'claim_conflict',
            subject: `claim_conflict:${input.session.id}`,
            payload: { session: input.session.name, session_id: input.session.id, files, intent },
            project: input.session.project_id,
          });
        }
        return { id, conflicts, expiresAt };
      },
      { project: input.session.project_id },
    );
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

  /** The candidates read before the write lock, as they stand inside it (`mark`: where they were read). */
  private async stillHits(
    mark: ClaimsMark,
    found: Hit[],
    patterns: string[],
    session: SessionRow,
    now: number,
    budget: GlobBudget,
  ): Promise<Hit[]> {
    const { store } = this.app;
    const since = await store.claimPatterns.changedSince(mark);
    // Another project merged into this one meanwhile (rare): its claims are read afresh.
    if (since.merged) return this.candidateHits(session, patterns, now, budget);
    // Usually nothing was released meanwhile; if something was, which of those found remain.
    const active =
      since.released === 0
        ? null
        : await store.claims.activeAmong([...new Set(found.map((h) => h.row.claim_id))]);
    const added = await store.claimPatterns.livePatternsAfter(mark);
    return (active ? found.filter((h) => active.has(h.row.claim_id)) : found).concat(
      patterns.flatMap((p) => this.matching(added, p, session.id, now, budget)),
    );
  }

  /**
   * A session heard from again after it went inactive (suspended, stopped; or resumed in a new
   * process after its own died) at `inactiveSince`: claims other sessions made over its files since
   * then were granted while its own did not count, and they stand. Where
   * either side is exclusive, its claim gives way (released); where both are advisory, both stay.
   * Either way it is told, by a notification on its next response. Runs inside the caller's
   * transaction, before the session counts as live again.
   */
  async yieldToTakeovers(session: SessionRow, inactiveSince: number): Promise<void> {
    const { store } = this.app;
    const now = this.app.now();
    const { byHolder, yielding } = await this.takeovers(session, inactiveSince);
    const budget = globBudget();
    const released: string[] = [];
    for (const claim of yielding) {
      await store.claims.release(
        claim.id,
        'abandoned',
        'given up: taken over while this session was inactive',
        now,
      );
      released.push(...claim.files);
    }
    for (const [holderId, holder] of byHolder) {
      await this.notifications.notify([session.id], {
        type: 'claim_taken_over',
        subject: `claim_taken_over:${holderId}`,
        payload: {
          session: holder.session,
          session_id: holderId,
          files: holder.files,
          intent: holder.intents.join('; '),
          released: released.filter((f) => holder.files.some((w) => targetsMeet(f, w, budget) !== null)),
        },
        project: session.project_id,
      });
    }
    if (byHolder.size > 0)
      this.app.log.info('claim.taken_over', { session: session.id, holders: [...byHolder.keys()], released });
  }

  /** Live claims of other sessions overlapping any of `patterns`, grouped by claim. */
  async release(
    session: SessionRow,
    claimId: string,
    status: 'completed' | 'abandoned',
    summary: string | undefined,
  ): Promise<ClaimView> {
    const { store } = this.app;
    const view = await store.write(
      async () => {
        const claim = await store.claims.get(claimId);
        if (!claim) throw new CollabError('CLAIM_NOT_FOUND', `No claim with id ${shown(claimId)}.`);
        if (claim.session_id !== session.id) {
          throw new CollabError(
            'NOT_OWNER',
            `Claim ${claimId} belongs to session "${claim.session_name}" (${claim.session_id}), not to "${session.name}".`,
            'Only the session that made the claim can release it. Message its owner with collab_message_send.',
          );
        }
        if (claim.status !== 'active') {
          throw new CollabError(
            'CLAIM_NOT_ACTIVE',
            `Claim ${claimId} is no longer active: ${noLongerActive(claim.status)}.`,
          );
        }
        const now = this.app.now();
        const said = summary?.trim() || null;
        await store.claims.release(claimId, status, said, now);
        // The row as the release wrote it (store.claims.release), without reading it again.
        return this.view({
          ...claim,
          status,
          summary: said ?? claim.summary,
          released_at: now,
          updated_at: now,
        });
      },
      { project: session.project_id },
    );
    this.app.log.info('claim.release', { claim: claimId, status });
    return view;
  }

  /**
   * One page of the project's claims, newest first. With a path filter the claims are read in order
   * until the page is full, so a page costs what it skips, never more than the whole list.
   */
  async list(
    session: SessionRow,
    filter: {
      sessionId?: string | undefined;
      status: ClaimStatus | 'all';
      pathFilter?: string | undefined;
      limit: number;
      cursor?: string | undefined;
    },
  ): Promise<Page<ClaimView>> {
    const { store } = this.app;
    const after =
      filter.cursor === undefined ? null : (decodeCursor(filter.cursor) as { at: number; id: string });
    const wanted =
      filter.pathFilter === undefined
        ? null
        : normalizeFiles([filter.pathFilter], session, 'path_filter')[0]!;
    await store.write(async () => store.claims.expireDue(this.app.now(), session.project_id), {
      project: session.project_id,
    });
    const rows: ClaimWithFiles[] = [];
    // The filter's glob work is bounded per page: past it, the page ends at the last claim judged,
    // and its cursor goes on from there.
    const budget = globBudget();
    let judged: ClaimWithFiles | null = null;
    // Read a page (and the row that tells there is a next) at a time.
    for await (const row of store.claims.iterate(
      {
        projectId: session.project_id,
        sessionId: filter.sessionId ?? null,
        status: filter.status,
        after,
      },
      filter.limit + 1,
    )) {
      if (wanted) {
        const met = row.files.some((f) => targetsMeet(wanted, f, budget) !== null);
        // A claim the budget ran out on is left to the next page, unless it is the first judged
        // (then it counts as meeting: every page moves on).
        if (budget.steps <= 0 && judged !== null) break;
        judged = row;
        if (!met) continue;
      }
      rows.push(row);
      if (rows.length > filter.limit || budget.steps <= 0) break;
    }
    const position = (row: ClaimWithFiles) => ({ at: row.created_at, id: row.id });
    if (budget.steps <= 0 && judged !== null && rows.length <= filter.limit)
      return { items: rows.map((row) => this.view(row)), next_cursor: encodeCursor(position(judged)) };
    const page = pageOf(rows, filter.limit, position);
    return { items: page.items.map((row) => this.view(row)), next_cursor: page.next_cursor };
  }
}

/** Why a claim no longer holds its files, for a person or an agent who named it. */
export function noLongerActive(status: string): string {
  return status === 'expired' ? 'it expired' : `it was released (${status})`;
}
