/**
 * The two databases' schemas are one schema: the same tables, columns, indexes and triggers after
 * every migration, on SQLite and on PostgreSQL — where the machine runs no PostgreSQL, on PGlite,
 * so this test never skips. What differs by design is listed here, each with why. And a portable
 * migration (written once with the schema builder) builds the same on both.
 */
import { join } from 'node:path';
import { sql } from 'kysely';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/store/database.js';
import type { PortableMigration } from '../../src/store/migrations/portable.js';
import { SCHEMA_VERSION, stepsAfter } from '../../src/store/migrations/schema.js';
import { migratePg, openPgPool } from '../../src/store/pg-database.js';
import { postgresForTest, type TestPostgres } from '../helpers/pg-or-pglite.js';
import { tempDir } from '../helpers/temp.js';

/** Objects one database has and the other has not, by design. */
const ONLY = {
  sqlite: {
    // SQLite's external-content FTS index of decisions is, on PostgreSQL, a column of decisions.
    // The row of SQLite's full-text table each work item's words are in (migration 30: FTS5 has no
    // index on the item); PostgreSQL's table has one (work_fts_by_item).
    tables: ['decisions_fts', 'work_fts_items'],
    indexes: [] as string[],
    // What fires triggers, as table:event (each database names and groups its triggers its own way).
    // A decision deleted is taken out of SQLite's external-content FTS index by a trigger;
    // PostgreSQL's generated tsvector column needs none.
    triggers: ['decisions:delete'],
  },
  postgresql: {
    tables: [] as string[],
    indexes: [
      // In the "C" collation, for ids found by their start (SQLite compares ids by bytes already).
      ...[
        'sessions',
        'claims',
        'messages',
        'questions',
        'agent_runs',
        'work_items',
        'reviews',
        'suggestions',
      ].map((t) => `${t}_id_c`),
      // The identity column PostgreSQL gives a table read in insertion order (SQLite's rowid).
      'claim_files_rowid',
      // Full-text search: a GIN index over a tsvector column, and the row each entry is of (SQLite's
      // FTS5 tables index themselves).
      'agent_runs_fts_by_run',
      'agent_runs_fts_search',
      'decisions_search',
      'work_fts_by_item',
      'work_fts_search',
    ],
    // The event log's NOTIFY for the hub replicas (SQLite has one file and no listeners), and its
    // pending ids, numbered in commit order as each transaction commits (migration 17: SQLite has
    // one writer at a time).
    triggers: ['events:insert', 'events:update'],
  },
};

let postgres: TestPostgres;
let pool: pg.Pool;
let sqliteFile: string;
beforeAll(async () => {
  postgres = await postgresForTest('test/store/schema-parity.test.ts');
  pool = openPgPool(postgres.url, 1);
  expect(await migratePg(pool)).toEqual({ from: 0, to: SCHEMA_VERSION });
  sqliteFile = join(tempDir('collab-parity-'), 'registry.db');
  openDatabase(sqliteFile).close();
}, 60_000);
afterAll(async () => {
  await pool?.end();
  await postgres?.stop();
});

const sorted = (names: Iterable<string>) => [...new Set(names)].sort();

function sqliteSchema() {
  const db = openDatabase(sqliteFile);
  try {
    const names = (type: string) =>
      (
        db.prepare(`SELECT name FROM sqlite_master WHERE type = ? AND sql IS NOT NULL`).all(type) as Array<{
          name: string;
        }>
      )
        .map((r) => r.name)
        .filter((n) => !n.startsWith('sqlite_') && !/_fts_(data|idx|content|docsize|config)$/.test(n));
    const tables = names('table');
    const columns = Object.fromEntries(
      tables
        .filter((t) => !t.endsWith('_fts') && !ONLY.sqlite.tables.includes(t))
        .map((t) => [
          t,
          sorted(
            (db.prepare(`PRAGMA table_info("${t}")`).all() as Array<{ name: string }>).map((c) => c.name),
          ),
        ]),
    );
    // What fires a trigger: its table and event.
    const triggers = (
      db.prepare("SELECT tbl_name AS t, sql FROM sqlite_master WHERE type = 'trigger'").all() as Array<{
        t: string;
        sql: string;
      }>
    ).map(
      (r) =>
        `${r.t}:${/(?:BEFORE|AFTER|INSTEAD OF)\s+(INSERT|UPDATE|DELETE)/i.exec(r.sql)![1]!.toLowerCase()}`,
    );
    return { tables: sorted(tables), columns, indexes: sorted(names('index')), triggers: sorted(triggers) };
  } finally {
    db.close();
  }
}

async function pgSchema() {
  const rows = async (text: string) => (await pool.query<{ name: string; t?: string }>(text)).rows;
  const tables = (await rows("SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public'")).map(
    (r) => r.name,
  );
  const columns: Record<string, string[]> = {};
  for (const r of await rows(
    "SELECT table_name AS t, column_name AS name FROM information_schema.columns WHERE table_schema = 'public' AND column_name NOT IN ('search', 'rowid')",
  ))
    columns[r.t!] = [...(columns[r.t!] ?? []), r.name];
  for (const t of Object.keys(columns)) columns[t] = sorted(columns[t]!);
  const indexes = (
    await rows(
      "SELECT indexname AS name FROM pg_indexes WHERE schemaname = 'public' AND indexname NOT IN (SELECT conname FROM pg_constraint)",
    )
  ).map((r) => r.name);
  // What fires a trigger: its table and each event of its type (INSERT 4, DELETE 8, UPDATE 16).
  const events = [
    [4, 'insert'],
    [8, 'delete'],
    [16, 'update'],
  ] as const;
  const triggers = (
    await pool.query<{ t: string; type: number }>(
      'SELECT tgrelid::regclass::text AS t, tgtype::int AS type FROM pg_trigger WHERE NOT tgisinternal',
    )
  ).rows.flatMap((r) => events.filter(([bit]) => (r.type & bit) !== 0).map(([, event]) => `${r.t}:${event}`));
  return { tables: sorted(tables), columns, indexes: sorted(indexes), triggers: sorted(triggers) };
}

describe(`the schema on both databases (PostgreSQL here: the machine's server, or PGlite)`, () => {
  it('has the same tables, columns, indexes and triggers, but for the differences by design', async () => {
    const lite = sqliteSchema();
    const post = await pgSchema();
    const without = (list: string[], drop: string[]) => list.filter((x) => !drop.includes(x));
    expect(without(post.tables, ONLY.postgresql.tables)).toEqual(without(lite.tables, ONLY.sqlite.tables));
    for (const table of Object.keys(lite.columns))
      expect(post.columns[table], table).toEqual(lite.columns[table]);
    expect(without(post.indexes, ONLY.postgresql.indexes)).toEqual(
      without(lite.indexes, ONLY.sqlite.indexes),
    );
    expect(without(post.triggers, ONLY.postgresql.triggers)).toEqual(
      without(lite.triggers, ONLY.sqlite.triggers),
    );
  });

  it('a portable migration, written once, builds the same table, index and defaults on both', async () => {
    const migration: PortableMigration = {
      version: SCHEMA_VERSION + 1,
      name: 'a table written once',
      build: (db) => [
        db.schema
          .createTable('parity_probe')
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('session_id', 'text', (c) => c.notNull().references('sessions.id').onDelete('cascade'))
          .addColumn('lines', 'integer', (c) => c.notNull().defaultTo(sql.lit(0)))
          .addColumn('created_at', 'bigint', (c) => c.notNull()),
        db.schema
          .createIndex('parity_probe_by_session')
          .on('parity_probe')
          .columns(['session_id', 'created_at']),
      ],
    };
    const [liteStep] = stepsAfter('sqlite', SCHEMA_VERSION, [migration]);
    const [pgStep] = stepsAfter('postgresql', SCHEMA_VERSION, [migration]);
    const db = openDatabase(sqliteFile);
    try {
      db.exec(liteStep!.sql);
      db.exec(
        "INSERT INTO projects (id, root, kind, created_at, updated_at) VALUES ('p', '/r', 'dir', 1, 1)",
      );
      db.exec(
        "INSERT INTO sessions (id, name, project_id, worktree, host, created_at, last_heartbeat) VALUES ('s', 'a', 'p', '/r', 'h', 1, 1)",
      );
      db.exec("INSERT INTO parity_probe (id, session_id, created_at) VALUES ('x', 's', 2)");
      expect(db.prepare('SELECT lines FROM parity_probe').get()).toEqual({ lines: 0 });
    } finally {
      db.close();
    }
    await pool.query(pgStep!.sql);
    await pool.query(
      "INSERT INTO projects (id, root, kind, created_at, updated_at) VALUES ('p', '/r', 'dir', 1, 1)",
    );
    await pool.query(
      "INSERT INTO sessions (id, name, project_id, worktree, host, created_at, last_heartbeat) VALUES ('s', 'a', 'p', '/r', 'h', 1, 1)",
    );
    await pool.query("INSERT INTO parity_probe (id, session_id, created_at) VALUES ('x', 's', 2)");
    expect((await pool.query('SELECT lines FROM parity_probe')).rows).toEqual([{ lines: 0 }]);
    const lite = sqliteSchema();
    const post = await pgSchema();
    expect(post.columns.parity_probe).toEqual(lite.columns.parity_probe);
    expect(post.indexes).toContain('parity_probe_by_session');
    expect(lite.indexes).toContain('parity_probe_by_session');
    // A value the builder would send as a parameter is refused: a migration is plain SQL.
    expect(() =>
      stepsAfter('sqlite', SCHEMA_VERSION, [
        {
          ...migration,
          build: (b) => [
            b.schema
              .createTable('t')
              .addColumn('n', 'integer')
              .addCheckConstraint('n_positive', sql`n > ${0}`),
          ],
        },
      ]),
    ).toThrow(/with parameters/);
  });
});
