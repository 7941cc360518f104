import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import { CollabError } from '../core/errors.js';
import type { SqliteConnection, SqliteDriver, SqliteOpenOptions, SqliteStatement } from './sqlite.js';

let addon: string | null | undefined;

/**
 * better-sqlite3's compiled addon, found once per process where the package's build puts it. Left
 * to find it itself, better-sqlite3 asks the `bindings` package, which works out the caller's
 * folder from a stack trace and tries a dozen candidate paths: about 4 ms of every hook process.
 * Null when the addon is elsewhere (a debug build, say) or the package is not installed.
 */
export function sqliteAddon(): string | null {
  if (addon !== undefined) return addon;
  try {
    const packageJson = createRequire(__filename).resolve('better-sqlite3/package.json');
    const file = join(dirname(packageJson), 'build', 'Release', 'better_sqlite3.node');
    addon = existsSync(file) ? file : null;
  } catch {
    addon = null;
  }
  return addon;
}

/**
 * Said plainly when better-sqlite3's addon is missing or built for another Node (its install script
 * did not run, or failed); null for any other error.
 */
function unbuilt(error: unknown): CollabError | null {
  const message = (error as Error)?.message ?? '';
  if (!/bindings file|NODE_MODULE_VERSION|better_sqlite3\.node/.test(message)) return null;
  const why = /NODE_MODULE_VERSION/.test(message) ? 'is built for another Node' : 'is not built';
  return new CollabError(
    'DB_ERROR',
    `better-sqlite3's compiled addon ${why}, and Node ${process.versions.node} has no node:sqlite to use instead.`,
    "Run npm rebuild better-sqlite3 in session-collab's folder (it downloads a prebuilt binary, or compiles one with python3, make and g++), or use Node 22.13 or later.",
  );
}

/**
 * better-sqlite3 12, the driver where Node has no `node:sqlite` (Node 20). It is an optional
 * dependency, loaded from node_modules only here: a process on a Node with `node:sqlite` never reads
 * it, and an install where it could not be built still installs.
 */
export function betterSqlite(): SqliteDriver {
  let Database: typeof BetterSqlite3;
  try {
    Database = createRequire(__filename)('better-sqlite3') as typeof BetterSqlite3;
  } catch (error) {
    throw new Error(
      `Node ${process.versions.node} has no node:sqlite and better-sqlite3 is not installed (${(error as Error).message.split('\n')[0]}): use Node 22.13 or later, or install better-sqlite3 (npm install better-sqlite3@12).`,
    );
  }
  return {
    name: 'better-sqlite3',
    version: () => (createRequire(__filename)('better-sqlite3/package.json') as { version: string }).version,
    open(file: string, options: SqliteOpenOptions): SqliteConnection {
      const nativeBinding = sqliteAddon();
      let db: BetterSqlite3.Database;
      try {
        db = new Database(file, {
          readonly: options.readonly === true,
          fileMustExist: options.readonly === true,
          ...(nativeBinding ? { nativeBinding } : {}),
        });
      } catch (error) {
        throw unbuilt(error) ?? error;
      }
      return {
        name: file,
        driver: 'better-sqlite3',
        get open() {
          return db.open;
        },
        get inTransaction() {
          return db.inTransaction;
        },
        prepare: (sql: string): SqliteStatement => db.prepare<unknown[]>(sql) as unknown as SqliteStatement,
        exec: (sql: string) => {
          db.exec(sql);
        },
        close: () => db.close(),
      };
    },
  };
}
