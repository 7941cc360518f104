import { type Db, openDatabase } from './database.js';
import { sqliteConnection } from './sqlite.js';

/** What a salvage kept of one table: rows copied, and rows (or the rest of the table) lost. */
export interface TableSalvage {
  table: string;
  copied: number;
  /** Rows refused by the new database (their parent was lost), or -1: the rest could not be read. */
  lost: number;
}

/**
 * Copies what can still be read of a damaged database into a new one at `target`, created with the
 * current schema. Tables are copied parents first; rows are read in order until a damaged page stops
 * a table, and a row whose parent was lost is left out (so the copy is consistent). Full-text
 * indexes are rebuilt by the copy itself. The damaged file is only read.
 */
export function salvageDatabase(damaged: string, target: string): TableSalvage[] {
  let source: Db | null = null;
  try {
    source = sqliteConnection(damaged, { readonly: true });
  } catch {
    source = null; // not even a header to read: an empty database is all there is
  }
  const fresh = openDatabase(target);
  try {
    const out: TableSalvage[] = [];
    for (const table of tablesParentsFirst(fresh)) {
      out.push(source ? copyTable(source, fresh, table) : { table, copied: 0, lost: -1 });
    }
    return out;
  } finally {
    fresh.close();
    source?.close();
  }
}

function copyTable(source: Db, fresh: Db, table: string): TableSalvage {
  const result: TableSalvage = { table, copied: 0, lost: 0 };
  let columns: string[];
  try {
    const theirs = new Set(
      (source.prepare(`PRAGMA table_info("${table}")`).all() as Array<{ name: string }>).map((c) => c.name),
    );
    columns = (fresh.prepare(`PRAGMA table_info("${table}")`).all() as Array<{ name: string }>)
      .map((c) => c.name)
      .filter((c) => theirs.has(c));
  } catch {
    return { ...result, lost: -1 };
  }
  if (columns.length === 0) return result; // a table this file never had
  const list = columns.map((c) => `"${c}"`).join(', ');
  const insert = fresh.prepare(
    `INSERT OR IGNORE INTO "${table}" (${list}) VALUES (${columns.map(() => '?').join(', ')})`,
  );
  const read = source.prepare(`SELECT ${list} FROM "${table}"`);
  fresh.exec('BEGIN');
  try {
    for (const row of read.iterate() as IterableIterator<Record<string, unknown>>) {
      try {
        if (insert.run(...columns.map((c) => row[c])).changes > 0) result.copied++;
      } catch {
        result.lost++; // its parent row was lost
      }
    }
  } catch {
    result.lost = -1; // a damaged page: the rest of this table cannot be read
  }
  fresh.exec('COMMIT');
  return result;
}

/** The database's own tables (not SQLite's, not full-text shadow tables), each after its parents. */
function tablesParentsFirst(db: Db): string[] {
  const rows = db
    .prepare("SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
    .all() as Array<{ name: string; sql: string }>;
  const virtual = rows.filter((r) => /^CREATE VIRTUAL/i.test(r.sql)).map((r) => r.name);
  const tables = rows
    .map((r) => r.name)
    .filter((name) => !virtual.some((v) => name === v || name.startsWith(`${v}_`)));
  const parents = new Map(
    tables.map((t) => [
      t,
      (db.prepare(`PRAGMA foreign_key_list("${t}")`).all() as Array<{ table: string }>)
        .map((f) => f.table)
        .filter((p) => p !== t),
    ]),
  );
  const ordered: string[] = [];
  const visit = (t: string, path: Set<string>) => {
    if (ordered.includes(t) || path.has(t)) return;
    path.add(t);
    for (const p of parents.get(t) ?? []) visit(p, path);
    ordered.push(t);
  };
  for (const t of tables) visit(t, new Set());
  return ordered;
}
