import type { Db } from './database.js';

export interface DecisionRow {
  id: string;
  project_id: string;
  session_id: string;
  session_name: string;
  category: string;
  title: string;
  description: string;
  created_at: number;
  /** Order of recording (rows of one time are listed by it). */
  seq?: number;
}

export class DecisionsStore {
  private readonly insertStmt;
  private readonly listStmt;
  private readonly searchStmt;

  constructor(db: Db) {
    this.insertStmt = db.prepare(
      `INSERT INTO decisions (id, project_id, session_id, session_name, category, title, description, created_at)
       VALUES (@id, @project_id, @session_id, @session_name, @category, @title, @description, @created_at)`,
    );
    this.listStmt = db.prepare<
      [
        {
          project: string;
          category: string | null;
          limit: number;
          after_at: number | null;
          after_seq: number | null;
        },
      ],
      DecisionRow
    >(
      `SELECT id, project_id, session_id, session_name, category, title, description, created_at, seq FROM decisions
       WHERE project_id = @project AND (@category IS NULL OR category = @category)
         AND (@after_at IS NULL OR created_at < @after_at OR (created_at = @after_at AND seq < @after_seq))
       ORDER BY created_at DESC, seq DESC LIMIT @limit`,
    );
    this.searchStmt = db.prepare<
      [{ project: string; category: string | null; limit: number; query: string }],
      DecisionRow
    >(
      `SELECT d.id, d.project_id, d.session_id, d.session_name, d.category, d.title, d.description, d.created_at
       FROM decisions_fts JOIN decisions d ON d.seq = decisions_fts.rowid
       WHERE decisions_fts MATCH @query AND d.project_id = @project AND (@category IS NULL OR d.category = @category)
       ORDER BY bm25(decisions_fts, 2.0, 1.0) LIMIT @limit`,
    );
  }

  insert(row: DecisionRow): void {
    this.insertStmt.run(row);
  }

  /** Newest first, after `after` (a page's last row: its time and seq). */
  list(
    projectId: string,
    category: string | null,
    limit: number,
    after: { at: number; seq: number } | null,
  ): DecisionRow[] {
    return this.listStmt.all({
      project: projectId,
      category,
      limit,
      after_at: after?.at ?? null,
      after_seq: after?.seq ?? null,
    });
  }

  /** Full-text search; `query` is an FTS5 expression (see `ftsQuery`). Best match first. */
  search(projectId: string, query: string, category: string | null, limit: number): DecisionRow[] {
    return this.searchStmt.all({ project: projectId, category, limit, query });
  }
}
