import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll } from 'vitest';

/** The PostgreSQL every test machine runs (trust auth); .ci/run makes sure it runs. */
export const PG_ADMIN_URL =
  process.env.SESSION_COLLAB_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** Whether PostgreSQL answers; when not, the caller's tests are skipped, and this says so. */
export async function pgAvailable(testFile: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: PG_ADMIN_URL, connectionTimeoutMillis: 3_000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch (error) {
    console.warn(
      `SKIPPED ${testFile}: no PostgreSQL at ${PG_ADMIN_URL} (${(error as Error).message}); .ci/run starts one.`,
    );
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

const created: string[] = [];
afterAll(async () => {
  if (created.length === 0) return;
  const client = new pg.Client({ connectionString: PG_ADMIN_URL });
  await client.connect();
  for (const name of created.splice(0)) await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await client.end();
});

/** A fresh, empty database for one test (dropped after the file), and its URL. */
export async function freshPgDatabase(): Promise<string> {
  const name = `collab_test_${randomBytes(6).toString('hex')}`;
  const client = new pg.Client({ connectionString: PG_ADMIN_URL });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${name}`);
  } finally {
    await client.end();
  }
  created.push(name);
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${name}`;
  return url.toString();
}
