import type { FileChange, Hunk } from '../core/hunks.js';
import type { InterfaceChange, Use } from '../core/semantic.js';
import type { SessionRow } from './sessions-store.js';
import { inList, type Sql } from './sql.js';

/** What a check reads of another session whose copy it may read again (`neighboursOnHost`). */
export type Neighbour = Pick<
  SessionRow,
  | 'id'
  | 'project_id'
  | 'worktree'
  | 'host'
  | 'status'
  | 'last_heartbeat'
  | 'pid'
  | 'pid_start'
  | 'server_pid'
  | 'created_at'
>;

/** A session's base: what its changes are measured against (`integrations/git-changes.ts`). */
export interface ChangeSetRow {
  session_id: string;
  project_id: string;
  base_commit: string;
  base_ref: string | null;
  base_source: string;
  head_commit: string | null;
  ref_commit: string | null;
  omitted: number;
  /** When the latest read recorded began (of the whole worktree, or of some files). */
  refreshed_at: number;
  /** When the last read of the whole worktree began (null before one). */
  full_read_at: number | null;
}

interface ChangedFileRow {
  session_id: string;
  path: string;
  base_blob: string | null;
  new_blob: string | null;
  level: 'lines' | 'file';
  reason: string | null;
  hunks: string;
  renamed_from: string | null;
  interface_changes: string | null;
  name_uses: string | null;
}

function fileOf(row: ChangedFileRow): FileChange {
  return {
    path: row.path,
    baseBlob: row.base_blob,
    newBlob: row.new_blob,
    level: row.level,
    reason: row.reason,
    hunks: JSON.parse(row.hunks) as Hunk[],
    ...(row.renamed_from ? { renamedFrom: row.renamed_from } : {}),
    ...(row.interface_changes ? { interface: JSON.parse(row.interface_changes) as InterfaceChange[] } : {}),
    ...(row.name_uses ? { uses: JSON.parse(row.name_uses) as Use[] } : {}),
  };
}

/** Changed files' rows, by session. */
function bySession(rows: ChangedFileRow[]): Map<string, FileChange[]> {
  const out = new Map<string, FileChange[]>();
  for (const row of rows) {
    const files = out.get(row.session_id) ?? [];
    files.push(fileOf(row));
    out.set(row.session_id, files);
  }
  return out;
}

const FILE_COLUMNS =
  'f.session_id, f.path, f.base_blob, f.new_blob, f.level, f.reason, f.hunks, f.renamed_from, f.interface_changes, f.name_uses';

/**
 * The level of a file's row that says an edit read found it unchanged (as the base has it): kept,
 * with when that read began, so that a read begun before it, recording later, does not put its older
 * view of the file back. No change: every reader of changes leaves it out (`CHANGED`); `freshness`
 * reads its time, when the file was read. A whole read drops it as any other row it replaces, and
 * so does `forget`: at most one per file of a session, as its changes.
 */
const UNCHANGED = 'none';

/** A row of `changed_files f` that is a change (not `UNCHANGED`). */
const CHANGED = `f.level <> '${UNCHANGED}'`;

/**
 * What `freshness` reads, on SQLite: the lists (JSON) walked first, each pair sought in a primary
 * key. Written `IN (SELECT value FROM json_each(?))`, SQLite built a temporary b-tree of each list
 * at every run (a page zeroed, ~10,000 instructions each; five in the three reads of every check),
 * and one more for DISTINCT. CROSS JOIN keeps the lists outside.
 */
const FRESHNESS_SQLITE = {
  sets: 'SELECT c.session_id, c.full_read_at FROM json_each(?) a CROSS JOIN change_sets c WHERE c.session_id = a.value',
  files: `SELECT f.session_id, f.path, f.updated_at FROM json_each(?) a CROSS JOIN json_each(?) b CROSS JOIN changed_files f
    WHERE f.session_id = a.value AND f.path = b.value`,
  pending: `SELECT p.session_id FROM json_each(?) a CROSS JOIN json_each(?) b CROSS JOIN changes_pending p
    WHERE p.session_id = a.value AND p.path = b.value`,
};

/** What a check's freshness read reads. */
const FRESHNESS_TABLES = ['change_sets', 'changed_files', 'changes_pending'] as const;

/** What each session changed, file by file: written whole on a refresh, or a few files after an edit. */
export class ChangesStore {
  constructor(private readonly sql: Sql) {}

  async setOf(sessionId: string): Promise<ChangeSetRow | undefined> {
    const row = await this.sql.kept(`change set:${sessionId}`, ['change_sets'], () =>
      this.sql.get<ChangeSetRow>(
        'SELECT session_id, project_id, base_commit, base_ref, base_source, head_commit, ref_commit, omitted, refreshed_at, full_read_at FROM change_sets WHERE session_id = ?',
        [sessionId],
      ),
    );
    return row && { ...row };
  }

  /**
   * Records a session's base and its changed files: all of them (`paths` null: files no longer
   * changed are dropped), or those of `paths` only (each either changed, or no longer: then marked
   * `UNCHANGED`, when this read began, rather than dropped). Files of
   * `paths` are read against the recorded base (the caller sees that it still is): the base, and
   * the HEAD and branch it was found at, stay as they are. Either way the caller sees, in the same
   * transaction, that no whole read begun after its own (`full_read_at` later than `refreshed_at`)
   * is recorded: an older view would replace it.
   *
   * A whole read's `newerKept`: the files recorded after it began (`updated_at` later than
   * `refreshed_at`: by edit reads begun later, against the recorded base) stay as they are, neither
   * replaced nor dropped. Only when the caller sees, in the same transaction, that its base is the
   * recorded one: those files were read against it.
   *
   * Files of `paths` recorded after this read began (by an edit read begun later, that wrote first)
   * stay too, neither replaced nor dropped: that read's base was the recorded one when it wrote, and
   * it still is (a whole read that moved it since replaced every file; one begun after this read
   * dropped it), so both read against the same base, and its view is the newer. That holds of a file
   * it found unchanged as well (its `UNCHANGED` row): neither this edit read nor a whole read begun
   * before it puts the older view back. A whole read leaves no such rows: a read begun before it
   * records nothing once it is recorded.
   *
   * `refreshed_at` never goes back: a read begun before the recorded one leaves it as it is.
   *
   * `whole` with `paths`: they are those of a whole read that found every other file as recorded (their
   * rows stand): recorded as `paths` are, but a file found unchanged is dropped rather than marked, and
   * so is every earlier mark, as a whole read does; the worktree counts as read whole when it began
   * (`full_read_at`).
   */
  async record(
    set: Omit<ChangeSetRow, 'omitted' | 'full_read_at'> & { omitted?: number },
    files: FileChange[],
    paths: string[] | null,
    { newerKept = false, whole: readWhole = paths === null }: { newerKept?: boolean; whole?: boolean } = {},
  ): Promise<void> {
    const { session_id: sessionId, project_id: projectId, refreshed_at: now } = set;
    const whole = paths === null;
    const assign = (column: string) => `${column} = ${whole ? 'excluded' : 'change_sets'}.${column}`;
    const greatest = this.sql.dialect === 'sqlite' ? 'MAX' : 'GREATEST';
    await this.sql.run(
      `INSERT INTO change_sets (session_id, project_id, base_commit, base_ref, base_source, head_commit, ref_commit, omitted, refreshed_at, full_read_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ${readWhole ? '?' : 'NULL'})
       ON CONFLICT (session_id) DO UPDATE SET project_id = excluded.project_id, ${assign('base_commit')},
         ${assign('base_ref')}, ${assign('base_source')}, ${assign('head_commit')}, ${assign('ref_commit')},
         ${assign('omitted')}, refreshed_at = ${greatest}(change_sets.refreshed_at, excluded.refreshed_at),
         full_read_at = ${readWhole ? 'excluded' : 'change_sets'}.full_read_at`,
      [
        sessionId,
        projectId,
        set.base_commit,
        set.base_ref,
        set.base_source,
        set.head_commit,
        set.ref_commit,
        set.omitted ?? 0,
        now,
        ...(readWhole ? [now] : []),
      ],
    );
    // Newer rows stay: always for an edit read's paths, for a whole read when asked.
    const kept = !whole || newerKept;
    if (whole) {
      await this.sql.run(
        `DELETE FROM changed_files WHERE session_id = ?${kept ? ' AND updated_at <= ?' : ''}`,
        kept ? [sessionId, now] : [sessionId],
      );
    } else {
      // Files of `paths` found unchanged: marked so (one statement), unless a newer read recorded them.
      const changed = new Set(files.map((f) => f.path));
      const unchanged = [...new Set(paths)].filter((path) => !changed.has(path));
      if (readWhole) {
        // Read whole when this read began: a file found unchanged needs no mark, nor does one marked
        // before (its time is no later), as after a whole read; rows of newer reads stay.
        const list = unchanged.length > 0 ? inList(this.sql.dialect, unchanged) : null;
        await this.sql.run(
          `DELETE FROM changed_files WHERE session_id = ? AND updated_at <= ? AND (level = '${UNCHANGED}'${list ? ` OR path ${list.text}` : ''})`,
          list ? [sessionId, now, list.param] : [sessionId, now],
        );
      } else if (unchanged.length > 0) {
        const list =
          this.sql.dialect === 'sqlite'
            ? { rows: 'json_each(?) g WHERE true', path: 'g.value', param: JSON.stringify(unchanged) }
            : { rows: 'unnest(CAST(? AS TEXT[])) AS g(path)', path: 'g.path', param: unchanged };
        await this.sql.run(
          `INSERT INTO changed_files (session_id, project_id, path, base_blob, new_blob, level, reason, hunks, updated_at, renamed_from,
             interface_changes, name_uses)
           SELECT CAST(? AS TEXT), CAST(? AS TEXT), ${list.path}, NULL, NULL, '${UNCHANGED}', NULL, '[]', CAST(? AS BIGINT),
             NULL, NULL, NULL
           FROM ${list.rows}
           ON CONFLICT (session_id, path) DO UPDATE SET project_id = excluded.project_id, base_blob = NULL,
             new_blob = NULL, level = excluded.level, reason = NULL, hunks = excluded.hunks,
             updated_at = excluded.updated_at, renamed_from = NULL, interface_changes = NULL, name_uses = NULL
           WHERE changed_files.updated_at <= excluded.updated_at`,
          [sessionId, projectId, now, list.param],
        );
      }
    }
    for (const f of files) {
      await this.sql.run(
        `INSERT INTO changed_files (session_id, project_id, path, base_blob, new_blob, level, reason, hunks, updated_at, renamed_from,
           interface_changes, name_uses)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (session_id, path) DO UPDATE SET project_id = excluded.project_id, base_blob = excluded.base_blob,
           new_blob = excluded.new_blob, level = excluded.level, reason = excluded.reason, hunks = excluded.hunks,
           updated_at = excluded.updated_at, renamed_from = excluded.renamed_from,
           interface_changes = excluded.interface_changes, name_uses = excluded.name_uses${
             // A row left of this session's files, recorded after this read began, is newer: it stays.
             kept ? ' WHERE changed_files.updated_at <= excluded.updated_at' : ''
           }`,
        [
          sessionId,
          projectId,
          f.path,
          f.baseBlob,
          f.newBlob,
          f.level,
          f.reason,
          JSON.stringify(f.hunks),
          now,
          f.renamedFrom ?? null,
          f.interface ? JSON.stringify(f.interface) : null,
          f.uses ? JSON.stringify(f.uses) : null,
        ],
      );
    }
  }

  /**
   * What tells whether `paths` of each of `sessionIds` may have changed since they were read: when
   * its worktree was last read whole (null: never), when each of those paths was read (changed, or
   * found unchanged by an edit read: `UNCHANGED`), whether an edit asked for one of them to be read.
   * Three statements, whatever the number of sessions.
   */
  async freshness(
    sessionIds: string[],
    paths: string[],
  ): Promise<Map<string, { fullAt: number | null; times: Map<string, number>; pending: boolean }>> {
    const out = new Map(
      sessionIds.map((id) => [
        id,
        { fullAt: null as number | null, times: new Map<string, number>(), pending: false },
      ]),
    );
    if (sessionIds.length === 0) return out;
    // Asked by every check, of the same few sessions and files: kept while their tables stay.
    const rows = await this.sql.kept(
      `freshness:${JSON.stringify(sessionIds)}:${JSON.stringify(paths)}`,
      FRESHNESS_TABLES,
      () => this.freshnessRows(sessionIds, paths),
    );
    for (const row of rows.sets)
      out.get(row.session_id)!.fullAt = row.full_read_at == null ? null : Number(row.full_read_at);
    for (const row of rows.files) out.get(row.session_id)!.times.set(row.path, Number(row.updated_at));
    for (const row of rows.pending) out.get(row.session_id)!.pending = true;
    return out;
  }

  private async freshnessRows(sessionIds: string[], paths: string[]) {
    const sqlite = this.sql.dialect === 'sqlite';
    const ids = inList(this.sql.dialect, sessionIds);
    const sets = await this.sql.all<{ session_id: string; full_read_at: number | null }>(
      sqlite
        ? FRESHNESS_SQLITE.sets
        : `SELECT session_id, full_read_at FROM change_sets WHERE session_id ${ids.text}`,
      [ids.param],
    );
    if (paths.length === 0) return { sets, files: [], pending: [] };
    const list = inList(this.sql.dialect, paths);
    const files = await this.sql.all<{ session_id: string; path: string; updated_at: number }>(
      sqlite
        ? FRESHNESS_SQLITE.files
        : `SELECT session_id, path, updated_at FROM changed_files WHERE session_id ${ids.text} AND path ${list.text}`,
      [ids.param, list.param],
    );
    const pending = await this.sql.all<{ session_id: string }>(
      sqlite
        ? FRESHNESS_SQLITE.pending
        : `SELECT DISTINCT session_id FROM changes_pending WHERE session_id ${ids.text} AND path ${list.text}`,
      [ids.param, list.param],
    );
    return { sets, files, pending };
  }

  /** A session's changed files, in path order (only `paths` when named). */
  async filesOf(sessionId: string, paths?: string[]): Promise<FileChange[]> {
    const where = paths ? inList(this.sql.dialect, paths) : null;
    // Rows kept (each check asks for the caller's own); the changes are made anew from them.
    const rows = await this.sql.kept(
      `files:${sessionId}:${paths ? JSON.stringify(paths) : ''}`,
      ['changed_files'],
      () =>
        this.sql.all<ChangedFileRow>(
          `SELECT ${FILE_COLUMNS} FROM changed_files f WHERE f.session_id = ? AND ${CHANGED}${where ? ` AND f.path ${where.text}` : ''} ORDER BY f.path`,
          where ? [sessionId, where.param] : [sessionId],
        ),
    );
    return rows.map(fileOf);
  }

  /**
   * Other sessions' changes to any of `paths` in a project (or of files renamed from them), by
   * session (only sessions not ended; the caller judges liveness).
   */
  async othersTouching(
    projectId: string,
    sessionId: string | null,
    paths: string[],
  ): Promise<Map<string, FileChange[]>> {
    if (paths.length === 0) return new Map();
    const list = inList(this.sql.dialect, paths);
    const rows = await this.sql.all<ChangedFileRow>(
      `SELECT ${FILE_COLUMNS} FROM changed_files f JOIN sessions s ON s.id = f.session_id
       WHERE f.project_id = ? AND (f.path ${list.text} OR f.renamed_from ${list.text}) AND ${CHANGED}
         AND (CAST(? AS TEXT) IS NULL OR f.session_id <> ?) AND s.status = 'active'
       ORDER BY f.session_id, f.path`,
      [projectId, list.param, list.param, sessionId, sessionId],
    );
    return bySession(rows);
  }

  /**
   * Other live sessions' files that change a function's interface or call names in their changed
   * lines (what semantic conflicts are read from), by session, at most `limit` files in all, taken
   * in turn from each session (one that deleted a folder crowds no other out).
   */
  async semanticOthers(
    projectId: string,
    sessionId: string | null,
    limit = 2_000,
  ): Promise<Map<string, FileChange[]>> {
    const rows = await this.sql.all<ChangedFileRow>(
      `SELECT ${FILE_COLUMNS} FROM changed_files f JOIN sessions s ON s.id = f.session_id
       WHERE f.project_id = ? AND ((f.interface_changes IS NOT NULL AND f.interface_changes <> '[]')
           OR f.name_uses IS NOT NULL) AND ${CHANGED}
         AND (CAST(? AS TEXT) IS NULL OR f.session_id <> ?) AND s.status = 'active'
       ORDER BY ROW_NUMBER() OVER (PARTITION BY f.session_id ORDER BY f.path), f.session_id, f.path
       LIMIT ?`,
      [projectId, sessionId, sessionId, limit],
    );
    return bySession(rows);
  }

  /** Every active session's changes in a project, by session (for `status` and the dashboard). */
  async ofProject(projectId: string): Promise<Map<string, FileChange[]>> {
    const rows = await this.sql.all<ChangedFileRow>(
      `SELECT ${FILE_COLUMNS} FROM changed_files f JOIN sessions s ON s.id = f.session_id
       WHERE f.project_id = ? AND ${CHANGED} AND s.status = 'active' ORDER BY f.session_id, f.path`,
      [projectId],
    );
    return bySession(rows);
  }

  /**
   * Active sessions of a project on a host, besides one, those read longest ago first: what a check
   * needs to judge their copies (a check runs this every time; whole rows cost 4× as much).
   */
  neighboursOnHost(projectId: string, host: string, exceptId: string, limit: number): Promise<Neighbour[]> {
    return this.sql.all<Neighbour>(
      `SELECT s.id, s.project_id, s.worktree, s.host, s.status, s.last_heartbeat, s.pid, s.pid_start,
         s.server_pid, s.created_at
       FROM sessions s LEFT JOIN change_sets c ON c.session_id = s.id
       WHERE s.project_id = ? AND s.status = 'active' AND s.host = ? AND s.id <> ?
       ORDER BY COALESCE(c.refreshed_at, 0), s.id LIMIT ?`,
      [projectId, host, exceptId, limit],
    );
  }

  /**
   * Files an edit hook saw change, to be read by a serving process of `host`: one statement. A file
   * asked for again while being read is asked for anew (its request no longer taken).
   */
  async request(sessionId: string, host: string, paths: string[], now: number): Promise<void> {
    if (paths.length === 0) return;
    await this.sql.run(
      `INSERT INTO changes_pending (session_id, host, path, requested_at)
       VALUES ${paths.map(() => '(?, ?, ?, ?)').join(', ')}
       ON CONFLICT (session_id, path) DO UPDATE SET requested_at = excluded.requested_at, taken_at = NULL`,
      paths.flatMap((path) => [sessionId, host, path, now]),
    );
  }

  /**
   * Whether an edit hook asked for some of the session's files (of `paths`, when named) to be read
   * and they are not recorded yet (taken for reading or not).
   */
  async hasPending(sessionId: string, paths?: string[]): Promise<boolean> {
    const where = paths ? inList(this.sql.dialect, paths) : null;
    return (
      (await this.sql.get(
        `SELECT 1 AS x FROM changes_pending WHERE session_id = ?${where ? ` AND path ${where.text}` : ''} LIMIT 1`,
        where ? [sessionId, where.param] : [sessionId],
      )) !== undefined
    );
  }

  /**
   * Takes up to `limit` requests of a host to read, oldest first, marking them taken at `now`
   * (requests taken over `retakeMs` ago by a process that never finished are taken again): two
   * processes taking at once each get different rows. `done` removes them once read.
   */
  async take(
    host: string,
    limit: number,
    now: number,
    retakeMs: number,
  ): Promise<Array<{ session_id: string; path: string }>> {
    const free = '(taken_at IS NULL OR taken_at < ?)';
    // A read first: most polls find nothing, and then take no lock at all.
    if (
      !(await this.sql.get(`SELECT 1 AS x FROM changes_pending WHERE host = ? AND ${free} LIMIT 1`, [
        host,
        now - retakeMs,
      ]))
    )
      return [];
    // The outer condition is checked again on a row another process updated meanwhile.
    return this.sql.all<{ session_id: string; path: string }>(
      `UPDATE changes_pending SET taken_at = ? WHERE ${free} AND (session_id, path) IN (
         SELECT session_id, path FROM changes_pending WHERE host = ? AND ${free} ORDER BY requested_at LIMIT ?)
       RETURNING session_id, path`,
      [now, now - retakeMs, host, now - retakeMs, limit],
    );
  }

  /** Requests taken at `takenAt` and read since: gone, unless asked for again meanwhile. */
  async done(sessionId: string, paths: string[], takenAt: number): Promise<void> {
    if (paths.length === 0) return;
    const list = inList(this.sql.dialect, paths);
    await this.sql.run(
      `DELETE FROM changes_pending WHERE session_id = ? AND path ${list.text} AND taken_at = ?`,
      [sessionId, list.param, takenAt],
    );
  }

  /** Requests made before `before`, answered by a read of the whole worktree that began then. */
  async settle(sessionId: string, before: number): Promise<void> {
    await this.sql.run('DELETE FROM changes_pending WHERE session_id = ? AND requested_at < ?', [
      sessionId,
      before,
    ]);
  }

  async forget(sessionId: string): Promise<void> {
    await this.sql.run('DELETE FROM changed_files WHERE session_id = ?', [sessionId]);
    await this.sql.run('DELETE FROM change_sets WHERE session_id = ?', [sessionId]);
  }
}
