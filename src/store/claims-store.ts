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

/** A claim's columns as `c.…`, named (faster to read than `c.*`: see sqlite-node.ts). */
const CLAIM_COLUMNS =
  'c.id, c.session_id, c.project_id, c.intent, c.scope, c.exclusive, c.status, c.created_at, c.updated_at, c.expires_at, c.released_at, c.summary, c.source';

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
      `SELECT ${CLAIM_COLUMNS}, s.name AS session_name FROM claims c JOIN sessions s ON s.id = c.session_id WHERE c.id = ?`,
      [id],
    );
    if (!row) return undefined;
    // In the order they were added, sorted here: ORDER BY rowid set up SQLite's sorter for the
    // claim's few patterns on every read.
    const files = await this.sql.all<{ pattern: string; seq: number }>(
      'SELECT pattern, rowid AS seq FROM claim_files WHERE claim_id = ?',
      [id],
    );
    return { ...row, files: files.sort((a, b) => Number(a.seq) - Number(b.seq)).map((f) => f.pattern) };
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

  /**
   * Expires the claims past their time (of one project, or of all: `null`); returns their ids. Read
   * first, through the index of expiring claims: the update, run before every claim, builds three
   * temporary b-trees on SQLite (its CHECK lists and its RETURNING rows) even when nothing is due.
   */
  async expireDue(now: number, projectId: string | null = null): Promise<string[]> {
    const due = await this.sql.get<{ one: number }>(
      "SELECT 1 AS one FROM claims WHERE status = 'active' AND expires_at IS NOT NULL AND expires_at <= ? AND (CAST(? AS TEXT) IS NULL OR project_id = ?) LIMIT 1",
      [now, projectId, projectId],
    );
    if (!due) return [];
    const rows = await this.sql.all<{ id: string }>(
      "UPDATE claims SET status = 'expired', released_at = expires_at, updated_at = ? WHERE status = 'active' AND expires_at IS NOT NULL AND expires_at <= ? AND (CAST(? AS TEXT) IS NULL OR project_id = ?) RETURNING id",
      [now, now, projectId, projectId],
    );
    const ids = rows.map((r) => r.id);
    for (const id of ids) await this.sql.run('UPDATE claim_files SET active = 0 WHERE claim_id = ?', [id]);
    return ids;
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
