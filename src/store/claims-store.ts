import type { Db } from './database.js';

export type ClaimStatus = 'active' | 'completed' | 'abandoned' | 'expired';
export type Scope = 'small' | 'medium' | 'large';

export type ClaimSource = 'tool' | 'edit' | 'git';

export interface ClaimRow {
  id: string;
  session_id: string;
  project_id: string;
  intent: string;
  scope: Scope;
  exclusive: number;
  status: ClaimStatus;
  created_at: number;
  updated_at: number;
  expires_at: number | null;
  released_at: number | null;
  summary: string | null;
  source: ClaimSource;
}

export interface ClaimWithFiles extends ClaimRow {
  files: string[];
  session_name: string;
}

/** One live pattern of an active claim, with what liveness needs to know of its session. */
export interface LivePattern {
  claim_id: string;
  pattern: string;
  intent: string;
  scope: Scope;
  exclusive: number;
  created_at: number;
  /** When this pattern joined its claim. */
  added_at: number;
  expires_at: number | null;
  session_id: string;
  session_name: string;
  session_status: 'active' | 'ended';
  last_heartbeat: number;
  host: string;
  pid: number | null;
  pid_start: string | null;
}

const LIVE_PATTERN_COLUMNS = `f.claim_id, f.pattern, c.intent, c.scope, c.exclusive, c.created_at,
  COALESCE(f.added_at, c.created_at) AS added_at, c.expires_at,
  s.id AS session_id, s.name AS session_name, s.status AS session_status, s.last_heartbeat, s.host, s.pid, s.pid_start`;

/** See `ClaimsStore.mark`. */
export interface ClaimsMark {
  projectId: string;
  /** The greatest rowid of claim_files. */
  patterns: number;
  /** How many of the project's claims had stopped being active (projects.claims_released). */
  released: number;
}

export interface ClaimFilter {
  projectId: string | null;
  sessionId: string | null;
  status: ClaimStatus | 'all';
  /** Only claims after this one in list order (newest first): the position of a page's last row. */
  after?: { at: number; id: string } | null;
}

export class ClaimsStore {
  private readonly insertClaim;
  private readonly insertFile;
  private readonly getStmt;
  private readonly filesStmt;
  private readonly byBases;
  private readonly byProject;
  private readonly below;
  private readonly releaseStmt;
  private readonly releaseFiles;
  private readonly bySessionActive;
  private readonly expireStmt;
  private readonly expireFiles;
  private readonly listStmt;
  private readonly countStmt;
  private readonly markStmt;
  private readonly releasedSinceStmt;
  private readonly afterStmt;
  private readonly activeAmongStmt;
  private readonly purgeStmt;
  private readonly bySource;
  private readonly latestTool;
  private readonly touchStmt;

  constructor(db: Db) {
    this.insertClaim = db.prepare(
      `INSERT INTO claims (id, session_id, project_id, intent, scope, exclusive, status, created_at, updated_at, expires_at, source)
       VALUES (@id, @session_id, @project_id, @intent, @scope, @exclusive, 'active', @created_at, @created_at, @expires_at, @source)`,
    );
    this.insertFile = db.prepare(
      'INSERT OR IGNORE INTO claim_files (claim_id, project_id, pattern, base, active, added_at) VALUES (?, ?, ?, ?, 1, ?)',
    );
    this.getStmt = db.prepare<[string], ClaimRow & { session_name: string }>(
      'SELECT c.*, s.name AS session_name FROM claims c JOIN sessions s ON s.id = c.session_id WHERE c.id = ?',
    );
    this.filesStmt = db.prepare<[string], { pattern: string }>(
      'SELECT pattern FROM claim_files WHERE claim_id = ? ORDER BY rowid',
    );
    const live = `FROM claim_files f JOIN claims c ON c.id = f.claim_id JOIN sessions s ON s.id = c.session_id
      WHERE f.active = 1 AND f.project_id = @project`;
    this.byBases = db.prepare<[{ project: string; bases: string }], LivePattern>(
      `SELECT ${LIVE_PATTERN_COLUMNS} ${live} AND f.base IN (SELECT value FROM json_each(@bases))`,
    );
    this.below = db.prepare<[{ project: string; lo: string; hi: string }], LivePattern>(
      `SELECT ${LIVE_PATTERN_COLUMNS} ${live} AND f.base >= @lo AND f.base < @hi`,
    );
    this.byProject = db.prepare<[{ project: string }], LivePattern>(`SELECT ${LIVE_PATTERN_COLUMNS} ${live}`);
    this.releaseStmt = db.prepare(
      "UPDATE claims SET status = ?, summary = COALESCE(?, summary), released_at = ?, updated_at = ? WHERE id = ? AND status = 'active'",
    );
    this.releaseFiles = db.prepare('UPDATE claim_files SET active = 0 WHERE claim_id = ?');
    this.bySessionActive = db.prepare<[string], { id: string }>(
      "SELECT id FROM claims WHERE session_id = ? AND status = 'active'",
    );
    this.expireStmt = db.prepare<[{ now: number }], { id: string }>(
      "UPDATE claims SET status = 'expired', released_at = expires_at, updated_at = @now WHERE status = 'active' AND expires_at IS NOT NULL AND expires_at <= @now RETURNING id",
    );
    this.expireFiles = db.prepare('UPDATE claim_files SET active = 0 WHERE claim_id = ?');
    this.listStmt = db.prepare<
      [
        {
          project: string | null;
          session: string | null;
          status: string;
          after_at: number | null;
          after_id: string | null;
        },
      ],
      ClaimWithFiles & { files_json: string }
    >(
      `SELECT c.*, s.name AS session_name,
         (SELECT json_group_array(pattern) FROM (SELECT pattern FROM claim_files WHERE claim_id = c.id ORDER BY rowid)) AS files_json
       FROM claims c JOIN sessions s ON s.id = c.session_id
       WHERE (@project IS NULL OR c.project_id = @project)
         AND (@session IS NULL OR c.session_id = @session)
         AND (@status = 'all' OR c.status = @status)
         AND (@after_at IS NULL OR c.created_at < @after_at OR (c.created_at = @after_at AND c.id < @after_id))
       ORDER BY c.created_at DESC, c.id DESC`,
    );
    // Each read here is one b-tree seek whatever the number of claims (max(rowid) reads the last
    // row; the patterns after a mark are read by rowid, not through the live-pattern index).
    this.markStmt = db.prepare<[{ project: string }], { patterns: number; released: number }>(
      `SELECT coalesce((SELECT max(rowid) FROM claim_files), 0) AS patterns,
              coalesce((SELECT claims_released FROM projects WHERE id = @project), 0) AS released`,
    );
    this.releasedSinceStmt = db.prepare<[{ project: string; released: number }], { n: number }>(
      'SELECT coalesce((SELECT claims_released FROM projects WHERE id = @project), 0) - @released AS n',
    );
    this.afterStmt = db.prepare<[{ project: string; after: number }], LivePattern>(
      `SELECT ${LIVE_PATTERN_COLUMNS}
       FROM claim_files f JOIN claims c ON c.id = f.claim_id JOIN sessions s ON s.id = c.session_id
       WHERE f.rowid > @after AND +f.active = 1 AND +f.project_id = @project`,
    );
    this.activeAmongStmt = db.prepare<[string], { id: string }>(
      "SELECT id FROM claims WHERE status = 'active' AND id IN (SELECT value FROM json_each(?))",
    );
    this.countStmt = db.prepare<
      [{ project: string | null; session: string | null; status: string }],
      { n: number }
    >(
      `SELECT COUNT(*) AS n FROM claims c
       WHERE (@project IS NULL OR c.project_id = @project)
         AND (@session IS NULL OR c.session_id = @session)
         AND (@status = 'all' OR c.status = @status)`,
    );
    this.purgeStmt = db.prepare("DELETE FROM claims WHERE status <> 'active' AND released_at < ?");
    this.bySource = db.prepare<[string, string], { id: string }>(
      "SELECT id FROM claims WHERE session_id = ? AND source = ? AND status = 'active' ORDER BY created_at DESC LIMIT 1",
    );
    this.latestTool = db.prepare<[string], { intent: string; scope: Scope }>(
      "SELECT intent, scope FROM claims WHERE session_id = ? AND source = 'tool' AND status = 'active' ORDER BY created_at DESC LIMIT 1",
    );
    this.touchStmt = db.prepare('UPDATE claims SET updated_at = ? WHERE id = ?');
  }

  insert(
    claim: Omit<ClaimRow, 'status' | 'updated_at' | 'released_at' | 'summary' | 'source'> & {
      source?: ClaimSource;
    },
    patterns: Array<{ pattern: string; base: string }>,
  ): void {
    this.insertClaim.run({ ...claim, source: claim.source ?? 'tool' });
    this.addPatterns(claim.id, claim.project_id, patterns, claim.created_at);
  }

  /** Adds patterns to an active claim (ignoring ones it has). */
  addPatterns(
    claimId: string,
    projectId: string,
    patterns: Array<{ pattern: string; base: string }>,
    now: number,
  ): void {
    for (const p of patterns) this.insertFile.run(claimId, projectId, p.pattern, p.base, now);
  }

  touch(claimId: string, now: number): void {
    this.touchStmt.run(now, claimId);
  }

  /** The session's newest active claim of a source (e.g. the one its edits are recorded in). */
  activeOfSource(sessionId: string, source: ClaimSource): string | undefined {
    return this.bySource.get(sessionId, source)?.id;
  }

  /** What the session said it is doing, in its newest active collab_claim. */
  currentIntent(sessionId: string): { intent: string; scope: Scope } | undefined {
    return this.latestTool.get(sessionId);
  }

  get(id: string): ClaimWithFiles | undefined {
    const row = this.getStmt.get(id);
    if (!row) return undefined;
    return { ...row, files: this.filesStmt.all(id).map((f) => f.pattern) };
  }

  /** Live patterns whose literal base is one of `bases` (the ancestors of a concrete path). */
  livePatternsAt(projectId: string, bases: string[]): LivePattern[] {
    return this.byBases.all({ project: projectId, bases: JSON.stringify(bases) });
  }

  /** Live patterns that could overlap a pattern with literal base `base`: ancestors and descendants. */
  livePatternsNear(projectId: string, base: string, ancestors: string[]): LivePattern[] {
    if (base === '') return this.byProject.all({ project: projectId });
    const up = this.livePatternsAt(projectId, ancestors);
    // Descendants: bases starting with `base/`; '0' is the character after '/'.
    const down = this.below.all({ project: projectId, lo: `${base}/`, hi: `${base}0` });
    return up.concat(down);
  }

  release(id: string, status: 'completed' | 'abandoned', summary: string | null, now: number): boolean {
    const changed = this.releaseStmt.run(status, summary, now, now, id).changes > 0;
    if (changed) this.releaseFiles.run(id);
    return changed;
  }

  releaseAllOf(
    sessionId: string,
    status: 'completed' | 'abandoned',
    summary: string | null,
    now: number,
  ): number {
    let n = 0;
    for (const { id } of this.bySessionActive.all(sessionId)) if (this.release(id, status, summary, now)) n++;
    return n;
  }

  /** Marks claims whose time-to-live has passed as expired; returns their ids. */
  expireDue(now: number): string[] {
    const ids = this.expireStmt.all({ now }).map((r) => r.id);
    for (const id of ids) this.expireFiles.run(id);
    return ids;
  }

  /**
   * Where a project's claims stand: every pattern added later has a greater rowid, and
   * the project's count of claims that stopped being active tells whether any did since
   * (`releasedSince`). Read before overlaps are worked out, outside the write lock.
   */
  mark(projectId: string): ClaimsMark {
    return { projectId, ...this.markStmt.get({ project: projectId })! };
  }

  /** How many of the project's claims stopped being active since `mark` (0: none of those found did). */
  releasedSince(mark: ClaimsMark): number {
    return this.releasedSinceStmt.get({ project: mark.projectId, released: mark.released })!.n;
  }

  /** Live patterns of the project added after `mark`. */
  livePatternsAfter(mark: ClaimsMark): LivePattern[] {
    return this.afterStmt.all({ project: mark.projectId, after: mark.patterns });
  }

  /** Which of these claims are still active. */
  activeAmong(claimIds: string[]): Set<string> {
    return new Set(this.activeAmongStmt.all(JSON.stringify(claimIds)).map((r) => r.id));
  }

  /** How many claims a filter selects (its `after` aside). */
  count(filter: ClaimFilter): number {
    return this.countStmt.get({
      project: filter.projectId,
      session: filter.sessionId,
      status: filter.status,
    })!.n;
  }

  list(filter: ClaimFilter): ClaimWithFiles[] {
    return [...this.iterate(filter)];
  }

  /** Claims in list order (newest first), read as they are consumed: a page stops reading early. */
  *iterate(filter: ClaimFilter): Generator<ClaimWithFiles> {
    const rows = this.listStmt.iterate({
      project: filter.projectId,
      session: filter.sessionId,
      status: filter.status,
      after_at: filter.after?.at ?? null,
      after_id: filter.after?.id ?? null,
    });
    for (const { files_json, ...row } of rows) yield { ...row, files: JSON.parse(files_json) as string[] };
  }

  purgeReleased(before: number): number {
    return this.purgeStmt.run(before).changes;
  }
}
