import { newId } from '../core/ids.js';
import type { Sql } from './sql.js';

/** What one merge moved: rows by table. */
export type Moved = Record<string, number>;

export interface MergeRecord {
  id: string;
  from_id: string;
  from_root: string;
  into_id: string;
  into_root: string;
  host: string;
  /** JSON: `Moved`. */
  moved: string;
  at: number;
}

/** The tables that belong to a project (a `project_id` column), read from the schema once. */
const tablesFor = new WeakMap<Sql, Promise<string[]>>();

function projectTables(sql: Sql): Promise<string[]> {
  let tables = tablesFor.get(sql);
  if (!tables) {
    tables = (
      sql.dialect === 'sqlite'
        ? sql.all<{ name: string }>(
            `SELECT m.name AS name FROM sqlite_master m, pragma_table_info(m.name) c
             WHERE m.type = 'table' AND c.name = 'project_id' ORDER BY m.name`,
          )
        : sql.all<{ name: string }>(
            `SELECT table_name AS name FROM information_schema.columns
             WHERE table_schema = current_schema() AND column_name = 'project_id' ORDER BY table_name`,
          )
    ).then((rows) => rows.map((r) => r.name));
    tablesFor.set(sql, tables);
  }
  return tables;
}

/**
 * Moves everything of project `from` into project `into` (sessions, claims and their files,
 * messages, decisions, notifications, reviews, questions, agent runs, events: every table with a
 * `project_id`), adds up its counters, removes it and records the merge. Inside the caller's write
 * transaction: all of it or none.
 */
export async function mergeProject(
  sql: Sql,
  from: { id: string; root: string },
  into: { id: string; root: string },
  host: string,
  now: number,
): Promise<Moved> {
  const moved: Moved = {};
  for (const table of await projectTables(sql)) {
    const { changes } = await sql.run(`UPDATE ${table} SET project_id = ? WHERE project_id = ?`, [
      into.id,
      from.id,
    ]);
    if (changes > 0) moved[table] = changes;
  }
  await sql.run(
    `UPDATE projects SET claims_released = claims_released + (SELECT claims_released FROM projects WHERE id = ?),
       updated_at = ? WHERE id = ?`,
    [from.id, now, into.id],
  );
  await sql.run('DELETE FROM projects WHERE id = ?', [from.id]);
  await sql.run(
    'INSERT INTO project_merges (id, from_id, from_root, into_id, into_root, host, moved, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
    [newId(), from.id, from.root, into.id, into.root, host, JSON.stringify(moved), now],
  );
  return moved;
}

/** The merges recorded, newest first. */
export function recentMerges(sql: Sql, limit: number): Promise<MergeRecord[]> {
  return sql.all<MergeRecord>('SELECT * FROM project_merges ORDER BY at DESC, id LIMIT ?', [limit]);
}
