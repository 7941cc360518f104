import type { Sql } from './sql.js';

/** The tables whose rows a caller may name by id: what each kind of id is the key of. */
export const ID_TABLES = {
  session: 'sessions',
  claim: 'claims',
  message: 'messages',
  question: 'questions',
  run: 'agent_runs',
  project: 'projects',
  work_item: 'work_items',
  review: 'reviews',
  suggestion: 'suggestions',
} as const;

export type IdKind = keyof typeof ID_TABLES;

/** Looking rows up by the start of their id, for every table a caller names rows of. */
export class IdPrefixesStore {
  constructor(private readonly sql: Sql) {}

  /** Whether `id` is the id of a row of `kind`. */
  async exists(kind: IdKind, id: string): Promise<boolean> {
    return (await this.sql.get(`SELECT 1 AS one FROM ${ID_TABLES[kind]} WHERE id = ?`, [id])) !== undefined;
  }

  /**
   * Ids of `kind` that start with `prefix`, in id order, at most `limit`. The prefix holds only
   * letters, digits, `-` and `_` (the caller checks), all of which sort below `~`.
   */
  async startingWith(kind: IdKind, prefix: string, limit: number): Promise<string[]> {
    const table = ID_TABLES[kind];
    // SQLite compares bytes: every id starting with the prefix lies in [prefix, prefix + '~'), a
    // range the id's index answers. PostgreSQL's collation may not sort by bytes: a prefix test.
    const rows =
      this.sql.dialect === 'postgresql'
        ? await this.sql.all<{ id: string }>(
            `SELECT id FROM ${table} WHERE starts_with(id, CAST(? AS TEXT)) ORDER BY id LIMIT ?`,
            [prefix, limit],
          )
        : await this.sql.all<{ id: string }>(
            `SELECT id FROM ${table} WHERE id >= ? AND id < ? || '~' ORDER BY id LIMIT ?`,
            [prefix, prefix, limit],
          );
    return rows.map((r) => r.id);
  }
}
