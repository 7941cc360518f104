import { createRequire } from 'node:module';
import type { ClientBase, Pool } from 'pg';
import { CollabError } from '../core/errors.js';
import { SCHEMA_VERSION, stepsAfter } from './migrations/schema.js';

/** A key of PostgreSQL's advisory locks: held while a process migrates the schema. */
const MIGRATION_LOCK = 7_290_031_001;

/**
 * `pg`, loaded from node_modules when team mode is used (it stays outside the bundles, which the
 * embedded mode's processes read on every start).
 */
function pgModule(): typeof import('pg') {
  // From the bundle's folder; from source (tests), from the project's.
  const require = createRequire(typeof __filename === 'string' ? __filename : `${process.cwd()}/`);
  // On loading, `pg` asks whether it runs in a Cloudflare Worker; where Node has no `navigator`
  // (Node 20) it finds out by building a fetch `Response`, which loads fetch's whole implementation
  // (~20 ms of every hook's start in team mode). Node's own answer from Node 21 on is given instead.
  const global = globalThis as { navigator?: unknown };
  if (global.navigator !== undefined) return require('pg') as typeof import('pg');
  global.navigator = { userAgent: `Node.js/${process.versions.node.split('.')[0]}` };
  try {
    return require('pg') as typeof import('pg');
  } finally {
    delete global.navigator;
  }
}

/** A pool of connections to the team database (SESSION_COLLAB_DATABASE_URL). */
export function openPgPool(url: string, max = 10): Pool {
  const { Pool } = pgModule();
  // BIGINT columns (times in ms) come back as numbers, as they do from SQLite.
  pgModule().types.setTypeParser(20, (value: string) => Number(value));
  // So do sums and averages (NUMERIC).
  pgModule().types.setTypeParser(1700, (value: string) => Number(value));
  const pool = new Pool({ connectionString: url, max, connectionTimeoutMillis: 10_000 });
  // An idle connection the server closes (a restart, a terminated backend) is dropped from the
  // pool, and the next query opens another: not a reason for the process to fail.
  pool.on('error', () => {});
  return pool;
}

/** One connection of its own (a listener's), not from a pool. */
export function openPgClient(url: string): import('pg').Client {
  const { Client } = pgModule();
  return new Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
}

/** The schema version recorded in the team database (0: empty). */
export async function pgSchemaVersion(client: Pool | ClientBase): Promise<number> {
  const exists = await client.query<{ t: string | null }>("SELECT to_regclass('meta')::text AS t");
  if (!exists.rows[0]?.t) return 0;
  const row = await client.query<{ value: string }>("SELECT value FROM meta WHERE key = 'schema_version'");
  return Number(row.rows[0]?.value ?? 0);
}

/**
 * Brings the team database's schema up to date: on an empty database the baseline (the schema as
 * of migration 11), then each later migration's PostgreSQL text (migrations/schema.ts), each in its
 * own transaction.
 * Replicas starting together take turns on an advisory lock. Returns the versions before and after.
 */
export async function migratePg(pool: Pool): Promise<{ from: number; to: number }> {
  const client = await pool.connect();
  // Up to date (the common case, and a hook's every start): one read, no lock.
  const current = await pgSchemaVersion(client).catch(() => -1);
  if (current === SCHEMA_VERSION) {
    client.release();
    return { from: current, to: current };
  }
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    const from = await pgSchemaVersion(client);
    if (from > SCHEMA_VERSION)
      throw new CollabError(
        'DB_ERROR',
        `The team database has schema version ${from}; this session-collab knows up to ${SCHEMA_VERSION}.`,
        'Upgrade session-collab on this machine: a newer version wrote to this database.',
      );
    const step = async (version: number, sql: string) => {
      await client.query('BEGIN');
      try {
        await client.query(sql);
        await client.query(
          "INSERT INTO meta (key, value) VALUES ('schema_version', $1) ON CONFLICT (key) DO UPDATE SET value = $1",
          [String(version)],
        );
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK');
        throw error;
      }
    };
    let current = from;
    for (const migration of stepsAfter('postgresql', from)) {
      await step(migration.version, migration.sql);
      current = migration.version;
    }
    return { from, to: current };
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => {});
    client.release();
  }
}
