/**
 * The one SQLite connection type the store speaks, over either driver: Node's built-in
 * `node:sqlite` where the running Node has it (22.13 and later: nothing to build at install), else
 * better-sqlite3 (an optional dependency, for Node 20). Both are synchronous underneath and run the
 * same statements; errors carry SQLite's own code names (`SQLITE_BUSY`, `SQLITE_CONSTRAINT_UNIQUE`…)
 * whichever driver raised them. `SESSION_COLLAB_SQLITE` (`node:sqlite` or `better-sqlite3`) picks a
 * driver by hand, for the benchmarks and the tests that run on both.
 */

import { betterSqlite } from './sqlite-better.js';
import { nodeSqlite } from './sqlite-node.js';

export type SqliteDriverName = 'node:sqlite' | 'better-sqlite3';

export interface SqliteStatement {
  all(...params: unknown[]): unknown[];
  get(...params: unknown[]): unknown;
  run(...params: unknown[]): { changes: number };
  iterate(...params: unknown[]): IterableIterator<unknown>;
}

export interface SqliteConnection {
  /** The file it was opened on (`:memory:` for none). */
  readonly name: string;
  readonly driver: SqliteDriverName;
  /** False once closed. */
  readonly open: boolean;
  /**
   * Whether a transaction is open on the connection, as SQLite says (it rolls one back by itself on
   * some errors: an I/O error, a full disk); null where the driver cannot tell (node:sqlite before
   * Node 22.16).
   */
  readonly inTransaction: boolean | null;
  prepare(sql: string): SqliteStatement;
  exec(sql: string): void;
  close(): void;
}

export interface SqliteOpenOptions {
  /** Opened for reading only; the file must exist. */
  readonly?: boolean;
}

export interface SqliteDriver {
  readonly name: SqliteDriverName;
  open(file: string, options: SqliteOpenOptions): SqliteConnection;
  /** The driver's version, for `doctor`. */
  version(): string;
}

export const SQLITE_DRIVER_ENV = 'SESSION_COLLAB_SQLITE';

let chosen: SqliteDriver | undefined;

/**
 * The driver this process uses, chosen once: the one `SESSION_COLLAB_SQLITE` names, else
 * `node:sqlite` where Node has it, else better-sqlite3. Throws a DB_ERROR-worthy message when
 * neither can load, saying what to do.
 */
export function sqliteDriver(): SqliteDriver {
  chosen ??= choose(process.env[SQLITE_DRIVER_ENV]?.trim());
  return chosen;
}

function choose(wanted: string | undefined): SqliteDriver {
  if (wanted && wanted !== 'node:sqlite' && wanted !== 'better-sqlite3') {
    throw new Error(
      `${SQLITE_DRIVER_ENV}=${wanted} names no SQLite driver: use node:sqlite or better-sqlite3.`,
    );
  }
  if (wanted === 'better-sqlite3') return betterSqlite();
  const builtIn = nodeSqlite();
  if (builtIn) return builtIn;
  if (wanted === 'node:sqlite') {
    throw new Error(
      `${SQLITE_DRIVER_ENV}=node:sqlite, but Node ${process.versions.node} has no node:sqlite (it has since 22.13).`,
    );
  }
  return betterSqlite();
}

/** A connection to `file` through this process's driver; the store opens every connection here. */
export function sqliteConnection(file: string, options: SqliteOpenOptions = {}): SqliteConnection {
  return sqliteDriver().open(file, options);
}

/** A pragma's value (its first column of its first row), e.g. `pragmaValue(db, 'user_version')`. */
export function pragmaValue(db: SqliteConnection, pragma: string): unknown {
  const row = db.prepare(`PRAGMA ${pragma}`).get() as Record<string, unknown> | undefined;
  return row === undefined ? undefined : Object.values(row)[0];
}
