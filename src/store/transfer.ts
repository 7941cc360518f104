import { createHash } from 'node:crypto';
import type { PoolClient } from 'pg';
import { CollabError } from '../core/errors.js';
import { type Db, immediate } from './database.js';
import { numberPlaceholders } from './sql.js';

/** What one table held on each side of a move: rows and a SHA-256 of them in key order. */
export interface TableTally {
  table: string;
  rows: number;
  checksum: string;
}

/**
 * The tables a move copies, parents first (foreign keys hold at every step), each with its key
 * order. SQLite's FTS index of decisions is derived (rebuilt by its trigger on SQLite, a generated
 * column on PostgreSQL); `meta` holds each database's own bookkeeping.
 */
export const TRANSFER_TABLES: Array<{ table: string; order: string }> = [
  { table: 'projects', order: 'id' },
  { table: 'sessions', order: 'id' },
  { table: 'claims', order: 'id' },
  { table: 'claim_files', order: 'claim_id, rowid' },
  { table: 'change_sets', order: 'session_id' },
  { table: 'changed_files', order: 'session_id, path' },
  { table: 'changes_pending', order: 'session_id, path' },
  { table: 'hook_sightings', order: 'id' },
  { table: 'project_merges', order: 'id' },
  { table: 'messages', order: 'id' },
  { table: 'message_reads', order: 'message_id, session_id' },
  { table: 'claim_waits', order: 'session_id, claim_id' },
  { table: 'landings', order: 'id' },
  { table: 'landing_meetings', order: 'id' },
  { table: 'decisions', order: 'seq' },
  { table: 'notifications', order: 'id' },
  { table: 'realm_state', order: 'realm, key' },
  { table: 'work_items', order: 'seq' },
  { table: 'work_revisions', order: 'work_item_id, version' },
  { table: 'reviews', order: 'seq' },
  { table: 'suggestions', order: 'seq' },
  { table: 'review_responses', order: 'seq' },
  { table: 'work_events', order: 'seq' },
  { table: 'review_watchers', order: 'project_id, session_id' },
  { table: 'work_item_reads', order: 'work_item_id, session_id' },
  { table: 'work_fts', order: 'work_item_id, source, title, body' },
  { table: 'client_session_aliases', order: 'client_session_id' },
  { table: 'realms', order: 'root' },
  { table: 'questions', order: 'id' },
  { table: 'question_messages', order: 'chat_id, message_id' },
  { table: 'telegram_drafts', order: 'chat_id, message_id' },
  { table: 'telegram_pollers', order: 'bot' },
  { table: 'leases', order: 'name' },
  { table: 'call_records', order: 'call, step' },
  { table: 'agent_runs', order: 'id' },
  { table: 'agent_runs_fts', order: 'run_id, prompt' },
  { table: 'agent_conversations', order: 'session_id, provider, conversation' },
  { table: 'hub_tokens', order: 'id' },
  { table: 'mcp_sessions', order: 'id' },
  { table: 'dashboard_logins', order: 'hash' },
  { table: 'dashboard_sessions', order: 'hash' },
  { table: 'events', order: 'id' },
];

/** Tables whose key a PostgreSQL identity column gives, to be set past the copied rows. */
const IDENTITIES: Record<string, string> = {
  decisions: 'seq',
  work_items: 'seq',
  reviews: 'seq',
  suggestions: 'seq',
  review_responses: 'seq',
  work_events: 'seq',
  events: 'id',
};

/** Rows are read and written this many at a time. */
const BATCH = 500;

/** The columns of a table that a move copies: SQLite's, in SQLite's order (PostgreSQL has the same). */
function columnsOf(db: Db, table: string): string[] {
  return (
    db.prepare(`SELECT name FROM pragma_table_xinfo(?) WHERE hidden = 0`).all(table) as Array<{
      name: string;
    }>
  )
    .map((c) => c.name)
    .filter((name) => !(table.endsWith('_fts') && name === 'rank'));
}

/** A row's values in column order. */
const valuesOf = (row: Record<string, unknown>, columns: string[]): unknown[] =>
  columns.map((c) => (row[c] === undefined ? null : row[c]));

/** One row as the checksum sees it: values in column order, numbers as numbers, text as text. */
const line = (row: Record<string, unknown>, columns: string[]): string =>
  JSON.stringify(valuesOf(row, columns));

/** A table's rows in key order, from the embedded database. */
function sqliteRows(
  db: Db,
  table: string,
  columns: string[],
  order: string,
): Iterable<Record<string, unknown>> {
  return db.prepare(`SELECT ${columns.join(', ')} FROM ${table} ORDER BY ${order}`).iterate() as Iterable<
    Record<string, unknown>
  >;
}

/**
 * A table's rows in key order, from the team database, a batch at a time through a cursor (one
 * pass over the table, whatever its size). The client must not be in a transaction of its own.
 */
async function* postgresRows(
  client: PoolClient,
  table: string,
  columns: string[],
  order: string,
): AsyncGenerator<Record<string, unknown>> {
  await client.query('BEGIN READ ONLY');
  try {
    await client.query(
      `DECLARE rows NO SCROLL CURSOR FOR SELECT ${columns.join(', ')} FROM ${table} ORDER BY ${order}`,
    );
    for (;;) {
      const page = await client.query(`FETCH ${BATCH} FROM rows`);
      yield* page.rows;
      if (page.rows.length < BATCH) break;
    }
  } finally {
    await client.query('COMMIT').catch(() => {});
  }
}

/** Counts and checksums of the embedded database's tables. */
export function tallySqlite(db: Db): TableTally[] {
  return TRANSFER_TABLES.map(({ table, order }) => {
    const columns = columnsOf(db, table);
    const hash = createHash('sha256');
    let rows = 0;
    for (const row of sqliteRows(db, table, columns, order)) {
      hash.update(`${line(row, columns)}\n`);
      rows += 1;
    }
    return { table, rows, checksum: hash.digest('hex') };
  });
}

/** Counts and checksums of the team database's tables, in the same terms. */
export async function tallyPostgres(
  client: PoolClient,
  columnsFor: (table: string) => string[],
): Promise<TableTally[]> {
  const out: TableTally[] = [];
  for (const { table, order } of TRANSFER_TABLES) {
    const columns = columnsFor(table);
    const hash = createHash('sha256');
    let rows = 0;
    for await (const row of postgresRows(client, table, columns, order)) {
      hash.update(`${line(row, columns)}\n`);
      rows += 1;
    }
    out.push({ table, rows, checksum: hash.digest('hex') });
  }
  return out;
}

/**
 * Copies the embedded database into an empty team database in one transaction, triggers off (the
 * rows, events included, are copied as they are), then sets each identity past the copied keys.
 * `columnsFrom` is the embedded database, which both sides' columns are read from.
 */
export async function copySqliteToPostgres(db: Db, client: PoolClient): Promise<void> {
  await client.query('BEGIN');
  try {
    for (const { table } of TRANSFER_TABLES) {
      const { rows } = await client.query<{ n: string }>(`SELECT count(*)::text AS n FROM ${table}`);
      if (Number(rows[0]!.n) > 0)
        throw new CollabError(
          'INVALID_INPUT',
          `The team database is not empty (${table} has rows).`,
          'Export into a new, empty PostgreSQL database (`session-collab migrate` creates its tables).',
        );
    }
    // Triggers would log the copied rows as new events and count releases again. Turned off table
    // by table (which the tables' owner may do; session_replication_role needs a superuser), in
    // this transaction only.
    for (const { table } of TRANSFER_TABLES) await client.query(`ALTER TABLE ${table} DISABLE TRIGGER USER`);
    for (const { table, order } of TRANSFER_TABLES) {
      const columns = columnsOf(db, table);
      const identity = IDENTITIES[table] ? ' OVERRIDING SYSTEM VALUE' : '';
      let batch: Record<string, unknown>[] = [];
      const flush = async () => {
        if (batch.length === 0) return;
        const values = batch.map(() => `(${columns.map(() => '?').join(', ')})`).join(', ');
        const sql = numberPlaceholders(
          `INSERT INTO ${table} (${columns.join(', ')})${identity} VALUES ${values}`,
        );
        await client.query(
          sql,
          batch.flatMap((row) => valuesOf(row, columns)),
        );
        batch = [];
      };
      for (const row of sqliteRows(db, table, columns, order)) {
        batch.push(row);
        if (batch.length === BATCH) await flush();
      }
      await flush();
      const key = IDENTITIES[table];
      if (key)
        await client.query(
          `SELECT setval(pg_get_serial_sequence('${table}', '${key}'), coalesce((SELECT max(${key}) FROM ${table}), 0) + 1, false)`,
        );
    }
    for (const { table } of TRANSFER_TABLES) await client.query(`ALTER TABLE ${table} ENABLE TRIGGER USER`);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  }
}

/**
 * Copies the team database into an empty embedded one, in one transaction, with its triggers
 * kept from logging the copied rows twice (the copied event log replaces what they wrote).
 */
export async function copyPostgresToSqlite(client: PoolClient, db: Db): Promise<void> {
  for (const { table } of TRANSFER_TABLES) {
    const n = (db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
    if (n > 0)
      throw new CollabError(
        'INVALID_INPUT',
        `The embedded database is not empty (${table} has rows).`,
        'Import into a new home folder (SESSION_COLLAB_HOME pointing at an empty folder).',
      );
  }
  // Read everything first (bounded by the database's size), then write it in one transaction.
  const data: Array<{ table: string; columns: string[]; rows: Record<string, unknown>[] }> = [];
  for (const { table, order } of TRANSFER_TABLES) {
    const columns = columnsOf(db, table);
    const rows: Record<string, unknown>[] = [];
    for await (const row of postgresRows(client, table, columns, order)) rows.push(row);
    data.push({ table, columns, rows });
  }
  immediate(db, () => {
    for (const { table, columns, rows } of data) {
      // The triggers logged the copied sessions, claims… as new events: the copied log is the one
      // (events come last).
      if (table === 'events') db.prepare('DELETE FROM events').run();
      const insert = db.prepare(
        `INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`,
      );
      for (const row of rows) insert.run(...valuesOf(row, columns));
    }
    // The row of each work item's words in the copied search index (what migration 30 maps).
    db.prepare(
      `INSERT INTO work_fts_items (work_item_id, fts_rowid)
       SELECT work_item_id, max(rowid) FROM work_fts WHERE source = 'item' GROUP BY work_item_id`,
    ).run();
  });
}

/** The columns of each table, as the embedded database has them (PostgreSQL's are the same). */
export function columnReader(db: Db): (table: string) => string[] {
  return (table) => columnsOf(db, table);
}

/** Who runs an export, and whether they may: the database's owner (the team's role) or a superuser. */
export async function exporter(
  client: PoolClient,
): Promise<{ role: string; owner: string; superuser: boolean }> {
  const { rows } = await client.query<{ role: string; owner: string; superuser: boolean }>(
    `SELECT current_user AS role, pg_get_userbyid(d.datdba) AS owner, r.rolsuper AS superuser
     FROM pg_database d, pg_roles r WHERE d.datname = current_database() AND r.rolname = current_user`,
  );
  const who = rows[0]!;
  if (!who.superuser && who.role !== who.owner)
    throw new CollabError(
      'INVALID_INPUT',
      `Export needs the team database's owner ("${who.owner}") or a superuser; it is connected as "${who.role}".`,
      `Run it with the URL of role "${who.owner}" (the role the team uses), or as a superuser; or make "${who.role}" the owner: ALTER DATABASE ... OWNER TO "${who.role}".`,
    );
  return who;
}

/**
 * The schema's tables, sequences and functions made by the exporter given to the database's owner
 * (the team's role): a superuser's export leaves nothing the team cannot read. In the caller's
 * transaction or none.
 */
export async function giveSchemaTo(client: PoolClient, owner: string): Promise<number> {
  const { rows } = await client.query<{ kind: string; name: string }>(
    `SELECT CASE c.relkind WHEN 'S' THEN 'SEQUENCE' ELSE 'TABLE' END AS kind, quote_ident(c.relname) AS name
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
       WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p', 'S') AND c.relowner = current_user::regrole
         AND NOT (c.relkind = 'S' AND EXISTS (SELECT 1 FROM pg_depend d WHERE d.objid = c.oid AND d.deptype IN ('a', 'i')))
     UNION ALL
     SELECT 'FUNCTION', p.oid::regprocedure::text FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
       WHERE n.nspname = current_schema() AND p.proowner = current_user::regrole`,
  );
  const quoted = (await client.query<{ q: string }>('SELECT quote_ident($1) AS q', [owner])).rows[0]!.q;
  for (const r of rows) await client.query(`ALTER ${r.kind} ${r.name} OWNER TO ${quoted}`);
  return rows.length;
}
