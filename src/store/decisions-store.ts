import type { Sql } from './sql.js';

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

const COLUMNS = 'id, project_id, session_id, session_name, category, title, description, created_at';

/** Decisions, on either backend (the asynchronous SQL interface). */
export class DecisionsStore {
  constructor(private readonly sql: Sql) {}

  async insert(row: DecisionRow): Promise<void> {
    await this.sql.run(`INSERT INTO decisions (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, [
      row.id,
      row.project_id,
      row.session_id,
      row.session_name,
      row.category,
      row.title,
      row.description,
      row.created_at,
    ]);
  }

  get(id: string): Promise<DecisionRow | undefined> {
    return this.sql.get<DecisionRow>(`SELECT ${COLUMNS} FROM decisions WHERE id = ?`, [id]);
  }

  /** Newest first, after `after` (a page's last row: its time and seq). */
  list(
    projectId: string,
    category: string | null,
    limit: number,
    after: { at: number; seq: number } | null,
  ): Promise<DecisionRow[]> {
    return this.sql.all<DecisionRow>(
      `SELECT ${COLUMNS}, seq FROM decisions
       WHERE project_id = ? AND (CAST(? AS TEXT) IS NULL OR category = ?)
         AND (CAST(? AS BIGINT) IS NULL OR created_at < ? OR (created_at = ? AND seq < ?))
       ORDER BY created_at DESC, seq DESC LIMIT ?`,
      [
        projectId,
        category,
        category,
        after?.at ?? null,
        after?.at ?? null,
        after?.at ?? null,
        after?.seq ?? null,
        limit,
      ],
    );
  }

  /**
   * Full-text search for decisions holding every word (as a prefix), best match first: SQLite's
   * FTS5 index, or PostgreSQL's `tsvector` column.
   */
  search(projectId: string, words: string[], category: string | null, limit: number): Promise<DecisionRow[]> {
    if (this.sql.dialect === 'postgresql') {
      const query = words.map((w) => `${w.replace(/[^\p{L}\p{N}_]/gu, '')}:*`).join(' & ');
      return this.sql.all<DecisionRow>(
        `SELECT ${COLUMNS} FROM decisions
         WHERE search @@ to_tsquery('simple', ?) AND project_id = ? AND (CAST(? AS TEXT) IS NULL OR category = ?)
         ORDER BY ts_rank(search, to_tsquery('simple', ?)) DESC, seq DESC LIMIT ?`,
        [query, projectId, category, category, query, limit],
      );
    }
    const query = words.map((w) => `"${w}"*`).join(' ');
    return this.sql.all<DecisionRow>(
      `SELECT d.id, d.project_id, d.session_id, d.session_name, d.category, d.title, d.description, d.created_at
       FROM decisions_fts JOIN decisions d ON d.seq = decisions_fts.rowid
       WHERE decisions_fts MATCH ? AND d.project_id = ? AND (CAST(? AS TEXT) IS NULL OR d.category = ?)
       ORDER BY bm25(decisions_fts, 2.0, 1.0) LIMIT ?`,
      [query, projectId, category, category, limit],
    );
  }
}
