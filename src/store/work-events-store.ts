import type { Db } from './database.js';

export type EventRole = 'worker' | 'reviewer' | 'system';

export interface WorkEventRow {
  seq: number;
  project_id: string;
  work_item_id: string | null;
  kind: string;
  actor_id: string | null;
  actor_name: string;
  role: EventRole;
  content: string;
  created_at: number;
}

/** The append-only history of the review workflow, and who watches a project as reviewer. */
export class WorkEventsStore {
  private readonly insertStmt;
  private readonly pageStmt;
  private readonly latestStmt;
  private readonly watchStmt;
  private readonly watchersStmt;
  private readonly byActorStmt;

  constructor(db: Db) {
    this.insertStmt = db.prepare(
      `INSERT INTO work_events (project_id, work_item_id, kind, actor_id, actor_name, role, content, created_at)
       VALUES (@project_id, @work_item_id, @kind, @actor_id, @actor_name, @role, @content, @created_at)`,
    );
    this.pageStmt = db.prepare<
      [{ project: string | null; item: string | null; after: number; limit: number }],
      WorkEventRow
    >(
      `SELECT * FROM work_events WHERE (@project IS NULL OR project_id = @project) AND (@item IS NULL OR work_item_id = @item)
         AND seq > @after ORDER BY seq LIMIT @limit`,
    );
    this.latestStmt = db.prepare<
      [{ project: string | null; item: string | null; exclude: string; limit: number }],
      WorkEventRow
    >(
      `SELECT * FROM (SELECT * FROM work_events WHERE (@project IS NULL OR project_id = @project)
         AND (@item IS NULL OR work_item_id = @item) AND kind NOT IN (SELECT value FROM json_each(@exclude))
         ORDER BY seq DESC LIMIT @limit) ORDER BY seq`,
    );
    this.watchStmt = db.prepare(
      'INSERT OR IGNORE INTO review_watchers (project_id, session_id) VALUES (?, ?)',
    );
    this.byActorStmt = db.prepare<[string], { kind: string; n: number }>(
      'SELECT kind, COUNT(*) AS n FROM work_events WHERE actor_id = ? GROUP BY kind',
    );
    this.watchersStmt = db.prepare<[string], { session_id: string }>(
      'SELECT session_id FROM review_watchers WHERE project_id = ?',
    );
  }

  append(row: Omit<WorkEventRow, 'seq'>): void {
    this.insertStmt.run(row);
  }

  /** The newest `limit` events (of other kinds than `exclude`), in order. */
  latest(f: {
    projectId: string | null;
    workItemId: string | null;
    exclude: string[];
    limit: number;
  }): WorkEventRow[] {
    return this.latestStmt.all({
      project: f.projectId,
      item: f.workItemId,
      exclude: JSON.stringify(f.exclude),
      limit: f.limit,
    });
  }

  /** Events in order, after `after` (a seq), at most `limit`. */
  page(f: {
    projectId: string | null;
    workItemId: string | null;
    after: number;
    limit: number;
  }): WorkEventRow[] {
    return this.pageStmt.all({ project: f.projectId, item: f.workItemId, after: f.after, limit: f.limit });
  }

  /** How many events of each kind a session caused. */
  countsByActor(sessionId: string): Record<string, number> {
    return Object.fromEntries(this.byActorStmt.all(sessionId).map((r) => [r.kind, r.n]));
  }

  watch(projectId: string, sessionId: string): void {
    this.watchStmt.run(projectId, sessionId);
  }

  watchers(projectId: string): string[] {
    return this.watchersStmt.all(projectId).map((r) => r.session_id);
  }
}
