import type { ClaimSource, ClaimStatus, Scope } from './claims-store.js';
import { inList, type Sql } from './sql.js';

/**
 * What claims hold where: the patterns of a project's claims, read by the path they cover (their
 * literal base) with what liveness needs to know of the claiming session, and marks that tell what
 * changed since a read. The read side of every overlap (claims, edits, commits, the watcher);
 * claims themselves, as rows, are in claims-store.ts.
 */

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

/**
 * The live patterns of a project (the first parameter): narrowed further by each statement.
 * SQLite: through the index of live patterns only, named, since it would otherwise read the
 * patterns at a base through the index of every pattern ever claimed there (claim history), live
 * or not: 123 µs rather than 9 µs per read after 10,000 claims (docs/benchmarks.md).
 */
const LIVE = {
  sqlite: `SELECT ${LIVE_PATTERN_COLUMNS}
    FROM claim_files f INDEXED BY claim_files_live JOIN claims c ON c.id = f.claim_id JOIN sessions s ON s.id = c.session_id
    WHERE f.active = 1 AND f.project_id = ?`,
  postgresql: `SELECT ${LIVE_PATTERN_COLUMNS}
    FROM claim_files f JOIN claims c ON c.id = f.claim_id JOIN sessions s ON s.id = c.session_id
    WHERE f.active = 1 AND f.project_id = ?`,
};

/**
 * Live patterns of a project at any of a list of bases (JSON, the first parameter; the project the
 * second), SQLite only: the list walked first, each base sought in the live-pattern index. Written
 * `f.base IN (SELECT value FROM json_each(?))`, SQLite built a temporary b-tree of the list at every
 * run (a page zeroed, ~10,000 instructions; twice a claim and once a check). CROSS JOIN keeps the
 * list outside: otherwise the planner reads the project's live patterns and the list for each.
 */
const LIVE_AT_SQLITE = `SELECT ${LIVE_PATTERN_COLUMNS}
    FROM json_each(?) j CROSS JOIN claim_files f INDEXED BY claim_files_live JOIN claims c ON c.id = f.claim_id JOIN sessions s ON s.id = c.session_id
    WHERE f.active = 1 AND f.project_id = ? AND f.base = j.value`;

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

/** Where a page of live patterns ended (`livePatternsOf`). */
export interface PatternPageKey {
  page_base: string;
  page_rowid: number;
}

/** See `ClaimsStore.mark`. */
export interface ClaimsMark {
  projectId: string;
  /** The greatest rowid of claim_files. */
  patterns: number;
  /** How many of the project's claims had stopped being active (projects.claims_released). */
  released: number;
  /** How many projects had been merged into it (their claims come with their own rowids). */
  merges: number;
}

export class ClaimPatternsStore {
  constructor(private readonly sql: Sql) {}

  /**
   * Up to `limit` live patterns of a project (what a watcher guards), in the order of their base
   * and rowid (the live-pattern index's), those after `after` (the last of the page before): read
   * page by page, a large project's patterns never hold the event loop in one statement.
   */
  livePatternsOf(
    projectId: string,
    limit: number,
    after: PatternPageKey | null = null,
  ): Promise<Array<LivePattern & PatternPageKey>> {
    const keyed = `${LIVE[this.sql.dialect].replace('SELECT ', 'SELECT f.base AS page_base, f.rowid AS page_rowid, ')}`;
    return after === null
      ? this.sql.all(`${keyed} ORDER BY f.base, f.rowid LIMIT ?`, [projectId, limit])
      : this.sql.all(
          // A row value: both databases seek the index to it (an OR of the two would be a filter on
          // PostgreSQL, every page reading those before it).
          `${keyed} AND (f.base, f.rowid) > (?, ?) ORDER BY f.base, f.rowid LIMIT ?`,
          [projectId, after.page_base, after.page_rowid, limit],
        );
  }

  /** Live patterns whose literal base is one of `bases` (the ancestors of a concrete path). */
  livePatternsAt(projectId: string, bases: string[]): Promise<LivePattern[]> {
    if (this.sql.dialect === 'sqlite')
      // In the order of their bases, as the index gives them (each base once).
      return this.sql.all<LivePattern>(LIVE_AT_SQLITE, [
        JSON.stringify([...new Set(bases)].sort()),
        projectId,
      ]);
    const list = inList(this.sql.dialect, bases);
    return this.sql.all<LivePattern>(`${LIVE[this.sql.dialect]} AND f.base ${list.text}`, [
      projectId,
      list.param,
    ]);
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
    if (base === '') return this.sql.all<LivePattern>(LIVE[this.sql.dialect], [projectId]);
    const up = await this.livePatternsAt(projectId, ancestors);
    // Descendants: bases starting with `base/`; '0' is the character after '/'.
    const down = await this.sql.all<LivePattern>(`${LIVE[this.sql.dialect]} AND f.base >= ? AND f.base < ?`, [
      projectId,
      `${base}/`,
      `${base}0`,
    ]);
    return up.concat(down);
  }

  /**
   * Where a project's claims stand: every pattern added to it later has a greater rowid, and
   * the project's count of claims that stopped being active tells whether any did since
   * (`changedSince`). Read before overlaps are worked out, outside the write lock. The last rowid
   * is the project's own: on the team database other projects' writes commit in parallel, and a
   * rowid of theirs can be committed before a smaller one of this project's (its patterns are
   * written only under its own lock, so in rowid order).
   */
  async mark(projectId: string): Promise<ClaimsMark> {
    // Each read here is one b-tree seek whatever the number of claims (the project's last rowid,
    // through claim_files_by_project; the patterns after a mark are read by rowid).
    const row = await this.sql.get<{ patterns: number; released: number; merges: number | string }>(
      `SELECT coalesce((SELECT rowid FROM claim_files WHERE project_id = ? ORDER BY rowid DESC LIMIT 1), 0) AS patterns,
              coalesce((SELECT claims_released FROM projects WHERE id = ?), 0) AS released,
              (SELECT count(*) FROM project_merges WHERE into_id = ?) AS merges`,
      [projectId, projectId, projectId],
    );
    return { projectId, patterns: row!.patterns, released: row!.released, merges: Number(row!.merges) };
  }

  /**
   * What changed of the project's claims since `mark`: how many stopped being active (0: none of
   * those found did), and whether another project was merged into it (its claims came with rowids
   * of their own, which the mark does not order).
   */
  async changedSince(mark: ClaimsMark): Promise<{ released: number; merged: boolean }> {
    const row = await this.sql.get<{ released: number | string; merges: number | string }>(
      `SELECT coalesce((SELECT claims_released FROM projects WHERE id = ?), 0) - CAST(? AS BIGINT) AS released,
              (SELECT count(*) FROM project_merges WHERE into_id = ?) AS merges`,
      [mark.projectId, mark.released, mark.projectId],
    );
    return { released: Number(row!.released), merged: Number(row!.merges) !== mark.merges };
  }

  /** Live patterns of the project added after `mark`. */
  livePatternsAfter(mark: ClaimsMark): Promise<LivePattern[]> {
    return this.sql.all<LivePattern>(AFTER[this.sql.dialect], [mark.patterns, mark.projectId]);
  }
}
