import { afterEach, beforeAll } from 'vitest';
import { migratePg, openPgPool } from '../../src/store/pg-database.js';
import { postgresSql, type SqlDatabase } from '../../src/store/sql.js';
import { testApp } from './app.js';
import { freshPgDatabase, pgAvailable } from './pg.js';

/**
 * A store's tests on either database: `backends` opens a migrated one (SQLite: a test app's;
 * PostgreSQL: a fresh database), closed after each test; `pgUp()` says whether PostgreSQL answers
 * (told once by `pgAvailable` when it does not).
 */
export function sqlBackends(testFile: string): {
  backends: Record<'sqlite' | 'postgresql', () => Promise<SqlDatabase>>;
  pgUp: () => boolean;
} {
  let up = false;
  beforeAll(async () => {
    up = await pgAvailable(testFile);
  });
  const closers: Array<() => Promise<unknown> | unknown> = [];
  afterEach(async () => {
    for (const close of closers.splice(0)) await close();
  });
  return {
    pgUp: () => up,
    backends: {
      sqlite: async () => {
        const app = await testApp();
        closers.push(() => app.close());
        return app.store.sql;
      },
      postgresql: async () => {
        const pool = openPgPool(await freshPgDatabase(), 2);
        await migratePg(pool);
        const sql = postgresSql(pool);
        closers.push(() => sql.close());
        return sql;
      },
    },
  };
}
