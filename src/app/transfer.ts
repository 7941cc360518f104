import type { Pool, PoolClient } from 'pg';
import { describeTeamDatabaseFault, redactUrl } from '../core/team-database-faults.js';
import type { Db } from '../store/database.js';
import { openDatabase } from '../store/database.js';
import { migratePg, openPgPool } from '../store/pg-database.js';
import {
  columnReader,
  copyPostgresToSqlite,
  copySqliteToPostgres,
  exporter,
  giveSchemaTo,
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

/**
 * A move between this home folder's embedded database and the team database at `url` (its schema
 * brought up to date first): `copy` runs, then both sides are counted and checksummed table by table.
 */
async function move(
  direction: TransferReport['direction'],
  paths: HomePaths,
  url: string,
  copy: (db: Db, client: PoolClient) => Promise<void>,
): Promise<TransferReport> {
  const db = openDatabase(paths.database);
  const pool = openPgPool(url, 2);
  try {
    const client = await connect(pool, url);
    try {
      // An export makes the schema: by the team's role, or by a superuser for it.
      const who = direction === 'export' ? await exporter(client) : null;
      await migratePg(pool);
      if (who && who.role !== who.owner) {
        await client.query('BEGIN');
        try {
          await giveSchemaTo(client, who.owner);
          await client.query('COMMIT');
        } catch (error) {
          await client.query('ROLLBACK').catch(() => {});
          throw error;
        }
      }
      await copy(db, client);
      const local = tallySqlite(db);
      const team = await tallyPostgres(client, columnReader(db));
      const tables = local.map((l, i) => ({
        table: l.table,
        sqlite_rows: l.rows,
        postgresql_rows: team[i]!.rows,
        same: l.rows === team[i]!.rows && l.checksum === team[i]!.checksum,
      }));
      return {
        direction,
        sqlite: paths.database,
        postgresql: redactUrl(url),
        tables,
        verified: tables.every((t) => t.same),
      };
    } finally {
      client.release();
    }
  } finally {
    db.close();
    await pool.end();
  }
}

/** A connection, or the reason there is none in one line (closed port, wrong password…). */
async function connect(pool: Pool, url: string): Promise<PoolClient> {
  try {
    return await pool.connect();
  } catch (error) {
    throw describeTeamDatabaseFault(error, url) ?? error;
  }
}

/** `session-collab export --to <url>`: the embedded database copied into an empty team database. */
export function exportToPostgres(paths: HomePaths, url: string): Promise<TransferReport> {
  return move('export', paths, url, copySqliteToPostgres);
}

/** `session-collab import --from <url>`: the team database copied into this home's empty embedded one. */
export function importFromPostgres(paths: HomePaths, url: string): Promise<TransferReport> {
  return move('import', paths, url, (db, client) => copyPostgresToSqlite(client, db));
}
