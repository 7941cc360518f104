/**
 * A PostgreSQL for a test that must always run (the schema parity test): a fresh database on the
 * machine's server where one answers, else PGlite (PostgreSQL compiled to WebAssembly, in this
 * process) served over the wire protocol on a loopback port, so that `pg` reaches either alike.
 */
import pg from 'pg';
import { PG_ADMIN_URL } from './pg.js';

export interface TestPostgres {
  url: string;
  /** 'server': the machine's PostgreSQL; 'pglite': the in-process one (one connection at a time). */
  kind: 'server' | 'pglite';
  stop(): Promise<void>;
}

async function serverAnswers(): Promise<boolean> {
  const client = new pg.Client({ connectionString: PG_ADMIN_URL, connectionTimeoutMillis: 3_000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

export async function postgresForTest(testFile: string): Promise<TestPostgres> {
  if (await serverAnswers()) {
    const { freshPgDatabase } = await import('./pg.js');
    return { url: await freshPgDatabase(), kind: 'server', stop: async () => {} };
  }
  console.warn(`${testFile}: no PostgreSQL at ${PG_ADMIN_URL}; running on PGlite (in-process PostgreSQL).`);
  const { PGlite } = await import('@electric-sql/pglite');
  const { PGLiteSocketServer } = await import('@electric-sql/pglite-socket');
  const db = await PGlite.create();
  const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0 });
  await server.start();
  const port = Number(server.getServerConn().split(':').pop());
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    kind: 'pglite',
    stop: async () => {
      await server.stop();
      await db.close();
    },
  };
}
