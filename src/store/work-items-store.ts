import type { Phase, WorkStatus, WorkType } from '../core/work-status.js';
import { inList, type Sql } from './sql.js';

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
  /** The commit its submitter had checked out when it was approved (null: not known, or not approved). */
  approved_head?: string | null;
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

const INSERT = `INSERT INTO work_items (id, project_id, type, phase, title, description, content, metadata, status, version, submitted_by, submitted_by_name, created_at, updated_at)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;
const UPDATE = `UPDATE work_items SET title = ?, description = ?, content = ?, metadata = ?, phase = ?,
    status = ?, version = ?, updated_at = ? WHERE id = ?`;
const INSERT_REVISION = `INSERT INTO work_revisions (work_item_id, version, title, content, change_description, created_by, created_by_name, created_at)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`;
const FTS_INSERT = 'INSERT INTO work_fts (work_item_id, source, title, body) VALUES (?, ?, ?, ?)';
/** The filters of a search, after its hits (`w` is the work item). */
const SEARCH_FILTERS = `(CAST(? AS TEXT) IS NULL OR w.project_id = ?) AND (CAST(? AS TEXT) IS NULL OR w.type = ?)
  AND (CAST(? AS TEXT) IS NULL OR w.status = ?)`;

/** Work items, their revisions, and their full-text index rows (source 'item'). */
export class WorkItemsStore {
  constructor(private readonly sql: Sql) {}

  async insert(row: WorkItemRow): Promise<void> {
    await this.sql.run(INSERT, [
      row.id,
      row.project_id,
      row.type,
      row.phase,
      row.title,
      row.description,
      row.content,
      row.metadata,
      row.status,
      row.version,
      row.submitted_by,
      row.submitted_by_name,
      row.created_at,
      row.updated_at,
    ]);
    await this.index(row, true);
  }

  /** The work item a session submitted last (what a landing that asks for reviews looks at). */
  latestBy(sessionId: string): Promise<WorkItemRow | undefined> {
    return this.sql.get<WorkItemRow>(
      'SELECT * FROM work_items WHERE submitted_by = ? ORDER BY updated_at DESC, seq DESC LIMIT 1',
      [sessionId],
    );
  }

  get(id: string): Promise<WorkItemRow | undefined> {
    return this.sql.get<WorkItemRow>('SELECT * FROM work_items WHERE id = ?', [id]);
  }

  async update(row: WorkItemRow): Promise<void> {
    await this.sql.run(UPDATE, [
      row.title,
      row.description,
      row.content,
      row.metadata,
      row.phase,
      row.status,
      row.version,
      row.updated_at,
      row.id,
    ]);
    await this.index(row);
  }

  /** Records the commit the item's submitter had when it was approved (null: not known). */
  async setApprovedHead(workItemId: string, head: string | null): Promise<void> {
    await this.sql.run('UPDATE work_items SET approved_head = ? WHERE id = ?', [head, workItemId]);
  }

  /** Records that `sessionId` read `version` of the item (the last read counts). */
  async markRead(workItemId: string, sessionId: string, version: number, at: number): Promise<void> {
    await this.sql.run(
      `INSERT INTO work_item_reads (work_item_id, session_id, version, at) VALUES (?, ?, ?, ?)
         ON CONFLICT (work_item_id, session_id) DO UPDATE SET version = excluded.version, at = excluded.at`,
      [workItemId, sessionId, version, at],
    );
  }

  /** The version of the item `sessionId` last read, or null. */
  async readVersion(workItemId: string, sessionId: string): Promise<number | null> {
    const row = await this.sql.get<{ version: number }>(
      'SELECT version FROM work_item_reads WHERE work_item_id = ? AND session_id = ?',
      [workItemId, sessionId],
    );
    return row ? Number(row.version) : null;
  }

  async addRevision(row: RevisionRow): Promise<void> {
    await this.sql.run(INSERT_REVISION, [
      row.work_item_id,
      row.version,
      row.title,
      row.content,
      row.change_description,
      row.created_by,
      row.created_by_name,
      row.created_at,
    ]);
  }

  revisions(workItemId: string): Promise<RevisionRow[]> {
    return this.sql.all<RevisionRow>('SELECT * FROM work_revisions WHERE work_item_id = ? ORDER BY version', [
      workItemId,
    ]);
  }

  revision(workItemId: string, version: number): Promise<RevisionRow | undefined> {
    return this.sql.get<RevisionRow>('SELECT * FROM work_revisions WHERE work_item_id = ? AND version = ?', [
      workItemId,
      version,
    ]);
  }

  filter(f: WorkFilter): Promise<WorkItemRow[]> {
    const statuses = inList(this.sql.dialect, f.statuses ?? []);
    return this.sql.all<WorkItemRow>(
      `SELECT * FROM work_items
       WHERE (CAST(? AS TEXT) IS NULL OR project_id = ?) AND (CAST(? AS TEXT) IS NULL OR type = ?)
         AND (CAST(? AS TEXT) IS NULL OR phase = ?)
         AND (? = 0 OR status ${statuses.text})
         AND (CAST(? AS TEXT) IS NULL OR submitted_by IS NULL OR submitted_by <> ?)
       ORDER BY created_at, seq`,
      [
        f.projectId,
        f.projectId,
        f.type,
        f.type,
        f.phase,
        f.phase,
        f.statuses ? 1 : 0,
        statuses.param,
        f.excludeSubmitter,
        f.excludeSubmitter,
      ],
    );
  }

  async statusCounts(projectId: string): Promise<Record<string, number>> {
    const rows = await this.sql.all<{ status: string; n: number }>(
      'SELECT status, COUNT(*) AS n FROM work_items WHERE project_id = ? GROUP BY status',
      [projectId],
    );
    return Object.fromEntries(rows.map((r) => [r.status, r.n]));
  }

  /** Adds text to the search index under a source (a review's summary, a suggestion). */
  async indexText(workItemId: string, source: string, title: string, body: string): Promise<void> {
    await this.sql.run(FTS_INSERT, [workItemId, source, title, body]);
  }

  /**
   * Work items whose texts hold every word (as a prefix), best match first: SQLite's FTS5 index
   * (`score` its bm25, lower is better), or PostgreSQL's `tsvector` column (`score` its rank,
   * negated so that lower is better there too). Either way a word in a title weighs three times one
   * in a body. `matched`: the sources that matched, comma-separated.
   */
  search(
    words: string[],
    f: { projectId: string | null; type: string | null; status: string | null; limit: number },
  ): Promise<Array<WorkItemRow & { score: number; matched: string }>> {
    const filters = [f.projectId, f.projectId, f.type, f.type, f.status, f.status];
    if (this.sql.dialect === 'postgresql') {
      const query = words.map((w) => `${w.replace(/[^\p{L}\p{N}_]/gu, '')}:*`).join(' & ');
      return this.sql.all(
        `WITH hits AS (
           SELECT work_item_id,
             MAX(ts_rank('{0.1, 0.2, 0.33, 1.0}', setweight(to_tsvector('simple', title), 'A')
               || setweight(to_tsvector('simple', body), 'B'), to_tsquery('simple', ?))) AS best,
             string_agg(DISTINCT source, ',') AS matched
           FROM work_fts WHERE search @@ to_tsquery('simple', ?) GROUP BY work_item_id
         )
         SELECT w.*, -hits.best AS score, hits.matched
         FROM hits JOIN work_items w ON w.id = hits.work_item_id
         WHERE ${SEARCH_FILTERS}
         ORDER BY score LIMIT ?`,
        [query, query, ...filters, f.limit],
      );
    }
    const query = words.map((w) => `"${w}"*`).join(' ');
    return this.sql.all(
      `WITH hits AS MATERIALIZED (
         SELECT work_item_id, source, bm25(work_fts, 0, 0, 3.0, 1.0) AS score FROM work_fts WHERE work_fts MATCH ?
       )
       SELECT w.*, MIN(hits.score) AS score, group_concat(DISTINCT hits.source) AS matched
       FROM hits JOIN work_items w ON w.id = hits.work_item_id
       WHERE ${SEARCH_FILTERS}
       GROUP BY w.id ORDER BY score LIMIT ?`,
      [query, ...filters, f.limit],
    );
  }

  /**
   * The item's words in the search index, its old words taken out first (a new item has none).
   */
  private async index(row: WorkItemRow, fresh = false): Promise<void> {
    const text = [row.id, 'item', row.title, `${row.description ?? ''}\n${row.content}`];
    if (this.sql.dialect === 'postgresql') {
      if (!fresh)
        await this.sql.run("DELETE FROM work_fts WHERE work_item_id = ? AND source = 'item'", [row.id]);
      await this.sql.run(FTS_INSERT, text);
      return;
    }
    // SQLite: by the row its words were written to (work_fts_items), the full-text table having no
    // index on the item.
    if (!fresh)
      await this.sql.run(
        'DELETE FROM work_fts WHERE rowid = (SELECT fts_rowid FROM work_fts_items WHERE work_item_id = ?)',
        [row.id],
      );
    await this.sql.run(FTS_INSERT, text);
    await this.sql.run(
      `INSERT INTO work_fts_items (work_item_id, fts_rowid) VALUES (?, last_insert_rowid())
       ON CONFLICT (work_item_id) DO UPDATE SET fts_rowid = excluded.fts_rowid`,
      [row.id],
    );
  }
}
