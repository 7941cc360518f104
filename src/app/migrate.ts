import { existsSync } from 'node:fs';
import { describeTeamDatabaseFault, redactUrl } from '../core/team-database-faults.js';
import { openDatabase, schemaVersion } from '../store/database.js';
import { SCHEMA_VERSION } from '../store/migrations/schema.js';
import { migratePg, openPgPool } from '../store/pg-database.js';
import { sqliteConnection } from '../store/sqlite.js';
import { databaseUrl, loadConfig } from './config.js';
import type { HomePaths } from './home.js';

export interface MigrationReport {
  /** Where: the SQLite file, or the team database's URL without its password. */
  database: string;
  kind: 'sqlite' | 'postgresql';
  from: number;
  to: number;
}

/**
 * `session-collab migrate`: brings the database in use up to this version's schema and says from
 * which version: the team database when a URL is set (SESSION_COLLAB_DATABASE_URL or config
 * `database_url`), else the embedded SQLite file. Every process also migrates when it opens the
 * database; this is the explicit step, e.g. before rolling out hub replicas of a new version.
 */
export async function migrateDatabase(
  paths: HomePaths,
  env: NodeJS.ProcessEnv = process.env,
): Promise<MigrationReport> {
  const url = databaseUrl(loadConfig(paths.config), env);
  if (url) {
    const pool = openPgPool(url, 1);
    try {
      const { from, to } = await migratePg(pool);
      return { database: redactUrl(url), kind: 'postgresql', from, to };
    } catch (error) {
      throw describeTeamDatabaseFault(error, url) ?? error;
    } finally {
      await pool.end();
    }
  }
  let from = 0;
  if (existsSync(paths.database)) {
    const peek = sqliteConnection(paths.database, { readonly: true });
    try {
      from = schemaVersion(peek);
    } finally {
      peek.close();
    }
  }
  openDatabase(paths.database).close();
  return { database: paths.database, kind: 'sqlite', from, to: SCHEMA_VERSION };
}
