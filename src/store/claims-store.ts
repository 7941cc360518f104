import { inList, type Sql } from './sql.js';

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
  source: ClaimSource;
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
  /** With the session's start: whether a session only a hook made went quiet (`stateOf`). */
  server_pid: number | null;
  session_created_at: number;
}

/** A pattern as it was claimed, live or not (`patternsEverAt`). */
export interface PastPattern {
  claim_id: string;
  pattern: string;
  /** 1 while the claim holds it. */
  active: number;
  source: ClaimSource;
  added_at: number;
  status: ClaimStatus;
  released_at: number | null;
  expires_at: number | null;
  intent: string;
  session_id: string;
  session_name: string;
}

const LIVE_PATTERN_COLUMNS = `f.claim_id, f.pattern, c.source, c.intent, c.scope, c.exclusive, c.created_at,
  COALESCE(f.added_at, c.created_at) AS added_at, c.expires_at,
  s.id AS session_id, s.name AS session_name, s.status AS session_status, s.last_heartbeat, s.host, s.pid, s.pid_start,
  s.server_pid, s.created_at AS session_created_at`;

/** The live patterns of a project (the first parameter): narrowed further by each statement. */
const LIVE = `SELECT ${LIVE_PATTERN_COLUMNS}
  FROM claim_files f JOIN claims c ON c.id = f.claim_id JOIN sessions s ON s.id = c.session_id
  WHERE f.active = 1 AND f.project_id = ?`;

/**
 * What a list selects (project, session, status; each only when named), as conditions and their
 * parameters. Only the named ones are written, so a project's list seeks `claims_in_list_order`.
 */
function listWhere(filter: ClaimFilter): { text: string; params: unknown[] } {
  const terms: string[] = [];
  const params: unknown[] = [];
  if (filter.projectId !== null) {
    terms.push('c.project_id = ?');
    params.push(filter.projectId);
  }
  if (filter.sessionId !== null) {
    terms.push('c.session_id = ?');
    params.push(filter.sessionId);
  }
  if (filter.status !== 'all') {
    terms.push('c.status = ?');
    params.push(filter.status);
  }
  return { text: terms.length === 0 ? 'TRUE' : terms.join(' AND '), params };
}

/** A claim's patterns in the order they were added, as a JSON array. */
const FILES_JSON = {
  sqlite:
    '(SELECT json_group_array(pattern) FROM (SELECT pattern FROM claim_files WHERE claim_id = c.id ORDER BY rowid))',
  postgresql:
    "COALESCE((SELECT CAST(json_agg(pattern ORDER BY rowid) AS TEXT) FROM claim_files WHERE claim_id = c.id), '[]')",
};

/** Claims in list order (newest first), after a position (a page's last row) when given, at most a number. */
function listStatement(
  dialect: Sql['dialect'],
  filter: ClaimFilter,
  after: ClaimFilter['after'],
  limit: number,
) {
  const where = listWhere(filter);
  const params = [...where.params];
  let position = '';
  if (after) {
    position = ' AND (c.created_at < ? OR (c.created_at = ? AND c.id < ?))';
    params.push(after.at, after.at, after.id);
  }
  params.push(limit);
  return {
    text: `SELECT c.*, s.name AS session_name, ${FILES_JSON[dialect]} AS files_json
   FROM claims c JOIN sessions s ON s.id = c.session_id
   WHERE ${where.text}${position}
   ORDER BY c.created_at DESC, c.id DESC
   LIMIT ?`,
    params,
  };
}

/**
 * Live patterns of a project added after a mark, read by rowid, not through the live-pattern index
 * (see `ClaimsStore.mark`). SQLite: the unary plus keeps that index out. PostgreSQL has no such
 * hint (a unary plus on TEXT is an error); it plans each statement with its values, and a rowid
 * bound past almost every row picks the rowid index.
 */
const AFTER = {
  sqlite: `SELECT ${LIVE_PATTERN_COLUMNS}
    FROM claim_files f JOIN claims c ON c.id = f.claim_id JOIN sessions s ON s.id = c.session_id
    WHERE f.rowid > ? AND +f.active = 1 AND +f.project_id = ?`,
  postgresql: `SELECT ${LIVE_PATTERN_COLUMNS}
    FROM claim_files f JOIN claims c ON c.id = f.claim_id JOIN sessions s ON s.id = c.session_id
    WHERE f.rowid > ? AND f.active = 1 AND f.project_id = ?`,
};

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

/** Claims read at once by `iterate` unless told otherwise. */
const ITERATE_BATCH = 100;
/** The largest batch `iterate` grows to. */
const MAX_BATCH = 2_000;
/** A batch no list reaches: `list` reads every claim in one statement. */
const ALL = Number.MAX_SAFE_INTEGER;

export class ClaimsStore {
  constructor(private readonly sql: Sql) {}

  async insert(
    claim: Omit<ClaimRow, 'status' | 'updated_at' | 'released_at' | 'summary' | 'source'> & {
      source?: ClaimSource;
    },
    patterns: Array<{ pattern: string; base: string }>,
  ): Promise<void> {
    await this.sql.run(
      `INSERT INTO claims (id, session_id, project_id, intent, scope, exclusive, status, created_at, updated_at, expires_at, source)
       VALUES (?, ?, ?, ?, ?, ?, 'active', ?, ?, ?, ?)`,
      [
        claim.id,
        claim.session_id,
        claim.project_id,
        claim.intent,
        claim.scope,
        claim.exclusive,
        claim.created_at,
        claim.created_at,
        claim.expires_at,
        claim.source ?? 'tool',
      ],
    );
    await this.addPatterns(claim.id, claim.project_id, patterns, claim.created_at);
  }

  /** Adds patterns to an active claim (ignoring ones it has). */
  async addPatterns(
    claimId: string,
    projectId: string,
    patterns: Array<{ pattern: string; base: string }>,
    now: number,
  ): Promise<void> {
    for (const p of patterns)
      await this.sql.run(
        `INSERT INTO claim_files (claim_id, project_id, pattern, base, active, added_at) VALUES (?, ?, ?, ?, 1, ?)
         ON CONFLICT DO NOTHING`,
        [claimId, projectId, p.pattern, p.base, now],
      );
  }

  async touch(claimId: string, now: number): Promise<void> {
    await this.sql.run('UPDATE claims SET updated_at = ? WHERE id = ?', [now, claimId]);
  }

  /** The session's newest active claim of a source (e.g. the one its edits are recorded in). */
  async activeOfSource(sessionId: string, source: ClaimSource): Promise<string | undefined> {
    const row = await this.sql.get<{ id: string }>(
      "SELECT id FROM claims WHERE session_id = ? AND source = ? AND status = 'active' ORDER BY created_at DESC LIMIT 1",
      [sessionId, source],
    );
    return row?.id;
  }

  /** What the session said it is doing, in its newest active collab_claim. */
  currentIntent(sessionId: string): Promise<{ intent: string; scope: Scope } | undefined> {
    return this.sql.get<{ intent: string; scope: Scope }>(
      "SELECT intent, scope FROM claims WHERE session_id = ? AND source = 'tool' AND status = 'active' ORDER BY created_at DESC LIMIT 1",
      [sessionId],
    );
  }

  async get(id: string): Promise<ClaimWithFiles | undefined> {
    const row = await this.sql.get<ClaimRow & { session_name: string }>(
      'SELECT c.*, s.name AS session_name FROM claims c JOIN sessions s ON s.id = c.session_id WHERE c.id = ?',
      [id],
    );
    if (!row) return undefined;
    const files = await this.sql.all<{ pattern: string }>(
      'SELECT pattern FROM claim_files WHERE claim_id = ? ORDER BY rowid',
      [id],
    );
    return { ...row, files: files.map((f) => f.pattern) };
  }

  /** Up to `limit` live patterns of a project, in no particular order (what a watcher guards). */
  livePatternsOf(projectId: string, limit: number): Promise<LivePattern[]> {
    return this.sql.all<LivePattern>(`${LIVE} LIMIT ?`, [projectId, limit]);
  }

  /** Live patterns whose literal base is one of `bases` (the ancestors of a concrete path). */
  livePatternsAt(projectId: string, bases: string[]): Promise<LivePattern[]> {
    const list = inList(this.sql.dialect, bases);
    return this.sql.all<LivePattern>(`${LIVE} AND f.base ${list.text}`, [projectId, list.param]);
  }

  /**
   * Every pattern claimed in a project at `bases` since `since` (live or not, any session), newest
   * first, at most `limit`: whose claims came and went over a path.
   */
  patternsEverAt(projectId: string, bases: string[], since: number, limit: number): Promise<PastPattern[]> {
    const list = inList(this.sql.dialect, bases);
    return this.sql.all<PastPattern>(
      `SELECT f.claim_id, f.pattern, f.active, COALESCE(f.added_at, c.created_at) AS added_at, c.status, c.source,
              c.released_at, c.expires_at, c.intent, c.session_id, s.name AS session_name
       FROM claim_files f JOIN claims c ON c.id = f.claim_id JOIN sessions s ON s.id = c.session_id
       WHERE f.project_id = ? AND f.base ${list.text} AND COALESCE(f.added_at, c.created_at) >= ?
       ORDER BY COALESCE(f.added_at, c.created_at) DESC, f.claim_id DESC LIMIT ?`,
      [projectId, list.param, since, limit],
    );
  }

  /** Live patterns that could overlap a pattern with literal base `base`: ancestors and descendants. */
  async livePatternsNear(projectId: string, base: string, ancestors: string[]): Promise<LivePattern[]> {
    if (base === '') return this.sql.all<LivePattern>(LIVE, [projectId]);
    const up = await this.livePatternsAt(projectId, ancestors);
    // Descendants: bases starting with `base/`; '0' is the character after '/'.
    const down = await this.sql.all<LivePattern>(`${LIVE} AND f.base >= ? AND f.base < ?`, [
      projectId,
      `${base}/`,
      `${base}0`,
    ]);
    return up.concat(down);
  }

  async release(
    id: string,
    status: 'completed' | 'abandoned',
    summary: string | null,
    now: number,
  ): Promise<boolean> {
    const { changes } = await this.sql.run(
      "UPDATE claims SET status = ?, summary = COALESCE(?, summary), released_at = ?, updated_at = ? WHERE id = ? AND status = 'active'",
      [status, summary, now, now, id],
    );
    const changed = changes > 0;
    if (changed) await this.sql.run('UPDATE claim_files SET active = 0 WHERE claim_id = ?', [id]);
    return changed;
  }

  async releaseAllOf(
    sessionId: string,
    status: 'completed' | 'abandoned',
    summary: string | null,
    now: number,
  ): Promise<number> {
    const active = await this.sql.all<{ id: string }>(
      "SELECT id FROM claims WHERE session_id = ? AND status = 'active'",
      [sessionId],
    );
    let n = 0;
    for (const { id } of active) if (await this.release(id, status, summary, now)) n++;
    return n;
  }

  /** Marks claims whose time-to-live has passed as expired; returns their ids. */
  /** Expires the claims past their time: of one project, or of all (`null`). */
  async expireDue(now: number, projectId: string | null = null): Promise<string[]> {
    const rows = await this.sql.all<{ id: string }>(
      "UPDATE claims SET status = 'expired', released_at = expires_at, updated_at = ? WHERE status = 'active' AND expires_at IS NOT NULL AND expires_at <= ? AND (CAST(? AS TEXT) IS NULL OR project_id = ?) RETURNING id",
      [now, now, projectId, projectId],
    );
    const ids = rows.map((r) => r.id);
    for (const id of ids) await this.sql.run('UPDATE claim_files SET active = 0 WHERE claim_id = ?', [id]);
    return ids;
  }

  /**
   * Where a project's claims stand: every pattern added to it later has a greater rowid, and
   * the project's count of claims that stopped being active tells whether any did since
   * (`releasedSince`). Read before overlaps are worked out, outside the write lock. The last rowid
   * is the project's own: on the team database other projects' writes commit in parallel, and a
   * rowid of theirs can be committed before a smaller one of this project's (its patterns are
   * written only under its own lock, so in rowid order).
   */
  async mark(projectId: string): Promise<ClaimsMark> {
    // Each read here is one b-tree seek whatever the number of claims (the project's last rowid,
    // through claim_files_by_project; the patterns after a mark are read by rowid).
    const row = await this.sql.get<{ patterns: number; released: number }>(
      `SELECT coalesce((SELECT rowid FROM claim_files WHERE project_id = ? ORDER BY rowid DESC LIMIT 1), 0) AS patterns,
              coalesce((SELECT claims_released FROM projects WHERE id = ?), 0) AS released`,
      [projectId, projectId],
    );
    return { projectId, ...row! };
  }

  /** How many of the project's claims stopped being active since `mark` (0: none of those found did). */
  async releasedSince(mark: ClaimsMark): Promise<number> {
    const row = await this.sql.get<{ n: number }>(
      'SELECT coalesce((SELECT claims_released FROM projects WHERE id = ?), 0) - CAST(? AS BIGINT) AS n',
      [mark.projectId, mark.released],
    );
    return row!.n;
  }

  /** Live patterns of the project added after `mark`. */
  livePatternsAfter(mark: ClaimsMark): Promise<LivePattern[]> {
    return this.sql.all<LivePattern>(AFTER[this.sql.dialect], [mark.patterns, mark.projectId]);
  }

  /** Which of these claims are still active. */
  async activeAmong(claimIds: string[]): Promise<Set<string>> {
    const list = inList(this.sql.dialect, claimIds);
    const rows = await this.sql.all<{ id: string }>(
      `SELECT id FROM claims WHERE status = 'active' AND id ${list.text}`,
      [list.param],
    );
    return new Set(rows.map((r) => r.id));
  }

  /** How many claims a filter selects (its `after` aside). */
  async count(filter: ClaimFilter): Promise<number> {
    const where = listWhere(filter);
    const row = await this.sql.get<{ n: number }>(
      `SELECT COUNT(*) AS n FROM claims c WHERE ${where.text}`,
      where.params,
    );
    return row!.n;
  }

  async list(filter: ClaimFilter): Promise<ClaimWithFiles[]> {
    const out: ClaimWithFiles[] = [];
    for await (const claim of this.iterate(filter, ALL)) out.push(claim);
    return out;
  }

  /**
   * Claims in list order (newest first), read as they are consumed: `batch` first, then twice as
   * many each time (up to `MAX_BATCH`), so a page stops reading early, and one that skips many
   * claims (a path filter) reads them in few statements.
   */
  async *iterate(filter: ClaimFilter, first: number = ITERATE_BATCH): AsyncGenerator<ClaimWithFiles> {
    let after = filter.after ?? null;
    let batch = first;
    for (; ; batch = Math.max(first, Math.min(batch * 2, MAX_BATCH))) {
      const statement = listStatement(this.sql.dialect, filter, after, batch);
      const rows = await this.sql.all<ClaimWithFiles & { files_json: string }>(
        statement.text,
        statement.params,
      );
      for (const { files_json, ...row } of rows) yield { ...row, files: JSON.parse(files_json) as string[] };
      if (rows.length < batch) return;
      const last = rows[rows.length - 1]!;
      after = { at: last.created_at, id: last.id };
    }
  }

  async purgeReleased(before: number): Promise<number> {
    const { changes } = await this.sql.run(
      "DELETE FROM claims WHERE status <> 'active' AND released_at < ?",
      [before],
    );
    return changes;
  }
}
