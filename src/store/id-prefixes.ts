import type { Sql } from './sql.js';

/**
 * The tables whose rows a caller may name by the first characters of a generated id, and whether
 * a row belongs to a project (then a start is looked up in the caller's project only).
 */
export const ID_TABLES = {
  session: { table: 'sessions', byProject: true },
  claim: { table: 'claims', byProject: true },
  message: { table: 'messages', byProject: true },
  question: { table: 'questions', byProject: true },
  run: { table: 'agent_runs', byProject: true },
  landing: { table: 'landings', byProject: true },
  work_item: { table: 'work_items', byProject: false },
  review: { table: 'reviews', byProject: false },
  suggestion: { table: 'suggestions', byProject: false },
} as const;

export type IdKind = keyof typeof ID_TABLES;

/** Looking rows up by the start of their id, for every table a caller names rows of. */
export class IdPrefixesStore {
  constructor(private readonly sql: Sql) {}

  /** Whether `id` is the id of a row of `kind`. */
  async exists(kind: IdKind, id: string): Promise<boolean> {
    return (
      (await this.sql.get(`SELECT 1 AS one FROM ${ID_TABLES[kind].table} WHERE id = ?`, [id])) !== undefined
    );
  }

  /**
   * Ids of `kind` that start with `prefix`, in id order, at most `limit`; of one project's rows
   * when `projectId` is given (for kinds that belong to a project). The prefix holds only
   * letters, digits, `-` and `_` (the caller checks), all of which sort below `~`, so the ids
   * starting with it lie in [prefix, prefix + '~'): a range of the id's index (on PostgreSQL the
   * index in the "C" collation, which sorts by bytes as SQLite does).
   */
  async startingWith(
    kind: IdKind,
    prefix: string,
    limit: number,
    projectId: string | null,
  ): Promise<string[]> {
    const { table, byProject } = ID_TABLES[kind];
    const id = this.sql.dialect === 'postgresql' ? 'id COLLATE "C"' : 'id';
    const inProject = byProject && projectId !== null;
    const rows = await this.sql.all<{ id: string }>(
      `SELECT id FROM ${table} WHERE ${id} >= CAST(? AS TEXT) AND ${id} < CAST(? AS TEXT) || '~'${inProject ? ' AND project_id = ?' : ''} ORDER BY ${id} LIMIT ?`,
      inProject ? [prefix, prefix, projectId, limit] : [prefix, prefix, limit],
    );
    return rows.map((r) => r.id);
  }
}
