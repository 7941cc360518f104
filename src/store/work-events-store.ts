import { inList, type Sql } from './sql.js';

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

const INSERT = `INSERT INTO work_events (project_id, work_item_id, kind, actor_id, actor_name, role, content, created_at)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?)`;

/** The append-only history of the review workflow, and who watches a project as reviewer. */
export class WorkEventsStore {
  constructor(private readonly sql: Sql) {}

  async append(row: Omit<WorkEventRow, 'seq'>): Promise<void> {
    await this.sql.run(INSERT, [
      row.project_id,
      row.work_item_id,
      row.kind,
      row.actor_id,
      row.actor_name,
      row.role,
      row.content,
      row.created_at,
    ]);
  }

  /** The newest `limit` events (of other kinds than `exclude`), in order. */
  latest(f: {
    projectId: string | null;
    workItemId: string | null;
    exclude: string[];
    limit: number;
  }): Promise<WorkEventRow[]> {
    const exclude = inList(this.sql.dialect, f.exclude);
    return this.sql.all<WorkEventRow>(
      `SELECT * FROM (SELECT * FROM work_events WHERE (CAST(? AS TEXT) IS NULL OR project_id = ?)
         AND (CAST(? AS TEXT) IS NULL OR work_item_id = ?) AND NOT (kind ${exclude.text})
         ORDER BY seq DESC LIMIT ?) AS newest ORDER BY seq`,
      [f.projectId, f.projectId, f.workItemId, f.workItemId, exclude.param, f.limit],
    );
  }

  /** Events in order, after `after` (a seq), at most `limit`. */
  page(f: {
    projectId: string | null;
    workItemId: string | null;
    after: number;
    limit: number;
  }): Promise<WorkEventRow[]> {
    return this.sql.all<WorkEventRow>(
      `SELECT * FROM work_events WHERE (CAST(? AS TEXT) IS NULL OR project_id = ?) AND (CAST(? AS TEXT) IS NULL OR work_item_id = ?)
         AND seq > ? ORDER BY seq LIMIT ?`,
      [f.projectId, f.projectId, f.workItemId, f.workItemId, f.after, f.limit],
    );
  }

  /** How many events of each kind a session caused. */
  async countsByActor(sessionId: string): Promise<Record<string, number>> {
    const rows = await this.sql.all<{ kind: string; n: number }>(
      'SELECT kind, COUNT(*) AS n FROM work_events WHERE actor_id = ? GROUP BY kind',
      [sessionId],
    );
    return Object.fromEntries(rows.map((r) => [r.kind, r.n]));
  }

  async watch(projectId: string, sessionId: string): Promise<void> {
    await this.sql.run(
      'INSERT INTO review_watchers (project_id, session_id) VALUES (?, ?) ON CONFLICT DO NOTHING',
      [projectId, sessionId],
    );
  }

  async watchers(projectId: string): Promise<string[]> {
    const rows = await this.sql.all<{ session_id: string }>(
      'SELECT session_id FROM review_watchers WHERE project_id = ?',
      [projectId],
    );
    return rows.map((r) => r.session_id);
  }
}
