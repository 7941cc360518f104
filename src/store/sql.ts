import { AsyncLocalStorage } from 'node:async_hooks';
import type { Pool, PoolClient } from 'pg';
import type { Db } from './database.js';
import { whileBusy } from './database.js';

/**
 * The asynchronous SQL interface both backends speak: the embedded SQLite file and the team
 * database on PostgreSQL. Statements are written once, with `?` placeholders; PostgreSQL gets them
 * numbered (`$1`, `$2`, …). This is what the store moves onto, aggregate by aggregate, so that on
 * PostgreSQL no query blocks the hub's event loop.
 */
export type Dialect = 'sqlite' | 'postgresql';

export interface Sql {
  readonly dialect: Dialect;
  all<T>(sql: string, params?: unknown[]): Promise<T[]>;
  get<T>(sql: string, params?: unknown[]): Promise<T | undefined>;
  run(sql: string, params?: unknown[]): Promise<{ changes: number }>;
}

/** Inside a write transaction. */
export interface Transaction extends Sql {
  /**
   * Serialises this transaction with every other that takes the same key, on every replica, until
   * it ends (PostgreSQL: an advisory transaction lock; SQLite: a writer already holds the database).
   */
  lock(key: string): Promise<void>;
}

export interface SqlDatabase extends Sql {
  /**
   * A transaction for writes that decide on what they read. It commits when `fn` resolves and
   * rolls back when it throws. SQLite: `BEGIN IMMEDIATE`, one at a time in this process;
   * PostgreSQL: a connection of its own for the transaction's length. Statements run through this
   * database's own methods while `fn` runs (in its async context) are part of the transaction, so
   * store modules need not be handed the transaction.
   */
  write<T>(fn: (tx: Transaction) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/** `?` placeholders numbered for PostgreSQL (`$1`…), leaving string literals and identifiers alone. */
export function numberPlaceholders(sql: string): string {
  let n = 0;
  let out = '';
  let quote: string | null = null;
  for (const c of sql) {
    if (quote) {
      if (c === quote) quote = null;
      out += c;
    } else if (c === "'" || c === '"') {
      quote = c;
      out += c;
    } else if (c === '?') {
      n += 1;
      out += `$${n}`;
    } else out += c;
  }
  return out;
}

/** SQLite through better-sqlite3: statements prepared once; its calls are synchronous underneath. */
export function sqliteSql(db: Db, busyTimeoutMs: number): SqlDatabase {
  const statements = new Map<string, import('better-sqlite3').Statement<unknown[]>>();
  const prepared = (sql: string) => {
    let statement = statements.get(sql);
    if (!statement) {
      statement = db.prepare<unknown[]>(sql);
      statements.set(sql, statement);
    }
    return statement;
  };
  const sql: Sql = {
    dialect: 'sqlite',
    all: async <T>(text: string, params: unknown[] = []) => prepared(text).all(...params) as T[],
    get: async <T>(text: string, params: unknown[] = []) => prepared(text).get(...params) as T | undefined,
    run: async (text: string, params: unknown[] = []) => ({ changes: prepared(text).run(...params).changes }),
  };
  // One transaction at a time on this connection: another caller's statements would join it.
  let queue: Promise<unknown> = Promise.resolve();
  return {
    ...sql,
    write<T>(fn: (tx: Transaction) => Promise<T>): Promise<T> {
      const turn = queue.then(async () => {
        whileBusy(busyTimeoutMs, () => db.exec('BEGIN IMMEDIATE'));
        try {
          const result = await fn({ ...sql, lock: async () => {} });
          db.exec('COMMIT');
          return result;
        } catch (error) {
          if (db.inTransaction) db.exec('ROLLBACK');
          throw error;
        }
      });
      queue = turn.catch(() => {});
      return turn;
    },
    async close() {
      db.close();
    },
  };
}

function pgSql(client: () => Pool | PoolClient): Sql {
  return {
    dialect: 'postgresql',
    all: async <T>(text: string, params: unknown[] = []) =>
      (await client().query(numberPlaceholders(text), params)).rows as T[],
    get: async <T>(text: string, params: unknown[] = []) =>
      (await client().query(numberPlaceholders(text), params)).rows[0] as T | undefined,
    run: async (text: string, params: unknown[] = []) => ({
      changes: (await client().query(numberPlaceholders(text), params)).rowCount ?? 0,
    }),
  };
}

/** PostgreSQL through a pool: reads on any connection, each transaction on one of its own. */
export function postgresSql(pool: Pool): SqlDatabase {
  const inTransaction = new AsyncLocalStorage<PoolClient>();
  return {
    ...pgSql(() => inTransaction.getStore() ?? pool),
    async write<T>(fn: (tx: Transaction) => Promise<T>): Promise<T> {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const tx: Transaction = {
          ...pgSql(() => client),
          async lock(key: string) {
            await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [key]);
          },
        };
        const result = await inTransaction.run(client, () => fn(tx));
        await client.query('COMMIT');
        return result;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => {});
        throw error;
      } finally {
        client.release();
      }
    },
    async close() {
      await pool.end();
    },
  };
}
