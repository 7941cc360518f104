import { openDatabase } from '../store/database.js';
import { migratePg, openPgPool, redactUrl } from '../store/pg-database.js';
import {
  columnReader,
  copyPostgresToSqlite,
  copySqliteToPostgres,
  type TableTally,
  tallyPostgres,
  tallySqlite,
} from '../store/transfer.js';
import type { HomePaths } from './home.js';

export interface TransferReport {
  direction: 'export' | 'import';
  sqlite: string;
  postgresql: string;
  /** Per table: rows on each side, and whether the checksums of their rows agree. */
  tables: Array<{ table: string; sqlite_rows: number; postgresql_rows: number; same: boolean }>;
  /** Every table's rows and checksum agree. */
  verified: boolean;
}

function compare(
  direction: TransferReport['direction'],
  sqlite: string,
  url: string,
  local: TableTally[],
  team: TableTally[],
): TransferReport {
  const tables = local.map((l, i) => ({
    table: l.table,
    sqlite_rows: l.rows,
    postgresql_rows: team[i]!.rows,
    same: l.rows === team[i]!.rows && l.checksum === team[i]!.checksum,
  }));
  return { direction, sqlite, postgresql: redactUrl(url), tables, verified: tables.every((t) => t.same) };
}

/**
 * `session-collab export --to <url>`: the embedded database copied into an empty team database
 * (its schema created first), then both counted and checksummed table by table.
 */
export async function exportToPostgres(paths: HomePaths, url: string): Promise<TransferReport> {
  const db = openDatabase(paths.database);
  const pool = openPgPool(url, 2);
  try {
    await migratePg(pool);
    const client = await pool.connect();
    try {
      await copySqliteToPostgres(db, client);
    } finally {
      client.release();
    }
    return compare(
      'export',
      paths.database,
      url,
      tallySqlite(db),
      await tallyPostgres(pool, columnReader(db)),
    );
  } finally {
    db.close();
    await pool.end();
  }
}

/**
 * `session-collab import --from <url>`: the team database copied into an empty embedded one (this
 * home folder's), then both counted and checksummed table by table.
 */
export async function importFromPostgres(paths: HomePaths, url: string): Promise<TransferReport> {
  const db = openDatabase(paths.database);
  const pool = openPgPool(url, 2);
  try {
    await migratePg(pool);
    await copyPostgresToSqlite(pool, db);
    return compare(
      'import',
      paths.database,
      url,
      tallySqlite(db),
      await tallyPostgres(pool, columnReader(db)),
    );
  } finally {
    db.close();
    await pool.end();
  }
}
