import { openPgClient, pgSchemaVersion } from './pg-database.js';

/** The team database as `doctor` finds it. */
export interface PgHealth {
  server: string;
  role: string;
  database: string;
  version: number;
  /** Tables of the schema the role cannot read and write, with what it lacks. */
  missingRights: Array<{ table: string; lacks: string[] }>;
  /** Whether the role may create tables (migrations need it). */
  canCreate: boolean;
  maxConnections: number;
  reservedConnections: number;
  /** Connections open to the server now, all databases. */
  inUse: number;
  /** Of them, to this database by this role. */
  ours: number;
  /** A NOTIFY seen by a LISTEN within the wait, and how long it took (ms); null when it was not. */
  listenMs: number | null;
}

const RIGHTS = ['SELECT', 'INSERT', 'UPDATE', 'DELETE'] as const;
const LISTEN_WAIT_MS = 3_000;

/** Reads the team database's state over two connections of its own (one listens). */
export async function inspectPg(url: string): Promise<PgHealth> {
  const client = openPgClient(url);
  await client.connect();
  try {
    const who = await client.query<{ role: string; database: string; server: string }>(
      "SELECT current_user AS role, current_database() AS database, current_setting('server_version') AS server",
    );
    const tables = await client.query<{ table: string; lacks: string[] | null }>(
      `SELECT c.relname AS table,
         array_remove(ARRAY[${RIGHTS.map((r) => `CASE WHEN has_table_privilege(c.oid, '${r}') THEN NULL ELSE '${r}' END`).join(', ')}], NULL) AS lacks
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
       WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p') ORDER BY c.relname`,
    );
    const create = await client.query<{ ok: boolean }>(
      "SELECT has_schema_privilege(current_schema(), 'CREATE') AS ok",
    );
    const budget = await client.query<{ max: string; reserved: string; in_use: string; ours: string }>(
      `SELECT current_setting('max_connections') AS max,
         current_setting('superuser_reserved_connections') AS reserved,
         (SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend') AS in_use,
         (SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND usename = current_user) AS ours`,
    );
    const b = budget.rows[0]!;
    return {
      ...who.rows[0]!,
      version: await pgSchemaVersion(client),
      missingRights: tables.rows
        .filter((t) => (t.lacks ?? []).length > 0)
        .map((t) => ({ table: t.table, lacks: t.lacks ?? [] })),
      canCreate: create.rows[0]?.ok === true,
      maxConnections: Number(b.max),
      reservedConnections: Number(b.reserved),
      inUse: Number(b.in_use),
      ours: Number(b.ours),
      listenMs: await listenWorks(url, client),
    };
  } finally {
    await client.end().catch(() => {});
  }
}

/** LISTEN on one connection, NOTIFY from another: how long the notification took, or null. */
async function listenWorks(url: string, notifier: import('pg').Client): Promise<number | null> {
  const listener = openPgClient(url);
  const channel = `collab_doctor_${process.pid}`;
  try {
    await listener.connect();
    await listener.query(`LISTEN ${channel}`);
    const started = Date.now();
    const heard = new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), LISTEN_WAIT_MS);
      listener.on('notification', (n) => {
        if (n.channel === channel) {
          clearTimeout(timer);
          resolve(true);
        }
      });
    });
    await notifier.query(`NOTIFY ${channel}, 'doctor'`);
    return (await heard) ? Date.now() - started : null;
  } catch {
    return null;
  } finally {
    await listener.end().catch(() => {});
  }
}
