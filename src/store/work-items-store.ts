import type { Phase, WorkStatus, WorkType } from '../core/work-status.js';
import type { Db } from './database.js';

export interface WorkItemRow {
  id: string;
  project_id: string;
  type: WorkType;
  phase: Phase;
  title: string;
  description: string | null;
  content: string;
  metadata: string;
  status: WorkStatus;
  version: number;
  submitted_by: string | null;
  submitted_by_name: string;
  created_at: number;
  updated_at: number;
}

export interface RevisionRow {
  work_item_id: string;
  version: number;
  title: string;
  content: string;
  change_description: string;
  created_by: string | null;
  created_by_name: string;
  created_at: number;
}

export interface WorkFilter {
  projectId: string | null;
  type: string | null;
  phase: string | null;
  statuses: WorkStatus[] | null;
  excludeSubmitter: string | null;
}

/** Work items, their revisions, and their full-text index rows (source 'item'). */
export class WorkItemsStore {
  private readonly insertStmt;
  private readonly getStmt;
  private readonly updateStmt;
  private readonly insertRevision;
  private readonly revisionsStmt;
  private readonly revisionStmt;
  private readonly filterStmt;
  private readonly ftsDelete;
  private readonly ftsInsert;
  private readonly searchStmt;
  private readonly countsStmt;

  constructor(db: Db) {
    this.insertStmt = db.prepare(
      `INSERT INTO work_items (id, project_id, type, phase, title, description, content, metadata, status, version, submitted_by, submitted_by_name, created_at, updated_at)
       VALUES (@id, @project_id, @type, @phase, @title, @description, @content, @metadata, @status, @version, @submitted_by, @submitted_by_name, @created_at, @updated_at)`,
    );
    this.getStmt = db.prepare<[string], WorkItemRow>('SELECT * FROM work_items WHERE id = ?');
    this.updateStmt = db.prepare(
      `UPDATE work_items SET title = @title, description = @description, content = @content, metadata = @metadata, phase = @phase,
         status = @status, version = @version, updated_at = @updated_at WHERE id = @id`,
    );
    this.insertRevision = db.prepare(
      `INSERT OR IGNORE INTO work_revisions (work_item_id, version, title, content, change_description, created_by, created_by_name, created_at)
       VALUES (@work_item_id, @version, @title, @content, @change_description, @created_by, @created_by_name, @created_at)`,
    );
    this.revisionsStmt = db.prepare<[string], RevisionRow>(
      'SELECT * FROM work_revisions WHERE work_item_id = ? ORDER BY version',
    );
    this.revisionStmt = db.prepare<[string, number], RevisionRow>(
      'SELECT * FROM work_revisions WHERE work_item_id = ? AND version = ?',
    );
    this.filterStmt = db.prepare<
      [
        {
          project: string | null;
          type: string | null;
          phase: string | null;
          statuses: string | null;
          exclude: string | null;
        },
      ],
      WorkItemRow
    >(
      `SELECT * FROM work_items
       WHERE (@project IS NULL OR project_id = @project) AND (@type IS NULL OR type = @type) AND (@phase IS NULL OR phase = @phase)
         AND (@statuses IS NULL OR status IN (SELECT value FROM json_each(@statuses)))
         AND (@exclude IS NULL OR submitted_by IS NULL OR submitted_by <> @exclude)
       ORDER BY created_at, seq`,
    );
    this.ftsDelete = db.prepare("DELETE FROM work_fts WHERE work_item_id = ? AND source = 'item'");
    this.ftsInsert = db.prepare(
      'INSERT INTO work_fts (work_item_id, source, title, body) VALUES (?, ?, ?, ?)',
    );
    this.searchStmt = db.prepare<
      [{ query: string; project: string | null; type: string | null; status: string | null; limit: number }],
      WorkItemRow & { score: number; matched: string }
    >(
      `WITH hits AS MATERIALIZED (
         SELECT work_item_id, source, bm25(work_fts, 0, 0, 3.0, 1.0) AS score FROM work_fts WHERE work_fts MATCH @query
       )
       SELECT w.*, MIN(hits.score) AS score, group_concat(DISTINCT hits.source) AS matched
       FROM hits JOIN work_items w ON w.id = hits.work_item_id
       WHERE (@project IS NULL OR w.project_id = @project) AND (@type IS NULL OR w.type = @type) AND (@status IS NULL OR w.status = @status)
       GROUP BY w.id ORDER BY score LIMIT @limit`,
    );
    this.countsStmt = db.prepare<[string], { status: string; n: number }>(
      'SELECT status, COUNT(*) AS n FROM work_items WHERE project_id = ? GROUP BY status',
    );
  }

  insert(row: WorkItemRow): void {
    this.insertStmt.run(row);
    this.index(row);
  }

  get(id: string): WorkItemRow | undefined {
    return this.getStmt.get(id);
  }

  update(row: WorkItemRow): void {
    this.updateStmt.run(row);
    this.index(row);
  }

  addRevision(row: RevisionRow): void {
    this.insertRevision.run(row);
  }

  revisions(workItemId: string): RevisionRow[] {
    return this.revisionsStmt.all(workItemId);
  }

  revision(workItemId: string, version: number): RevisionRow | undefined {
    return this.revisionStmt.get(workItemId, version);
  }

  filter(f: WorkFilter): WorkItemRow[] {
    return this.filterStmt.all({
      project: f.projectId,
      type: f.type,
      phase: f.phase,
      statuses: f.statuses ? JSON.stringify(f.statuses) : null,
      exclude: f.excludeSubmitter,
    });
  }

  statusCounts(projectId: string): Record<string, number> {
    return Object.fromEntries(this.countsStmt.all(projectId).map((r) => [r.status, r.n]));
  }

  /** Adds text to the search index under a source (a review's summary, a suggestion). */
  indexText(workItemId: string, source: string, title: string, body: string): void {
    this.ftsInsert.run(workItemId, source, title, body);
  }

  search(
    query: string,
    f: { projectId: string | null; type: string | null; status: string | null; limit: number },
  ) {
    return this.searchStmt.all({
      query,
      project: f.projectId,
      type: f.type,
      status: f.status,
      limit: f.limit,
    });
  }

  private index(row: WorkItemRow): void {
    this.ftsDelete.run(row.id);
    this.ftsInsert.run(row.id, 'item', row.title, `${row.description ?? ''}\n${row.content}`);
  }
}
