import type { DatabaseSync, StatementSync } from 'node:sqlite';
import type { SqliteConnection, SqliteDriver, SqliteOpenOptions, SqliteStatement } from './sqlite.js';

type NodeSqlite = typeof import('node:sqlite');

/**
 * Node's built-in `node:sqlite` (no flag since Node 22.13), or null where this Node lacks it. Node
 * 22 warns on its first use that it is experimental; that one warning is kept from the output (a
 * hook's standard error reaches the person), every other warning is not.
 */
function loadNodeSqlite(): NodeSqlite | null {
  const emitWarning = process.emitWarning;
  process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
    const text = typeof warning === 'string' ? warning : warning.message;
    if (/SQLite is an experimental feature/.test(text)) return;
    (emitWarning as (...a: unknown[]) => void).call(process, warning, ...rest);
  }) as typeof process.emitWarning;
  try {
    return (process.getBuiltinModule?.('node:sqlite') as NodeSqlite | undefined) ?? null;
  } catch {
    return null; // Node 22 before 22.13 has it only behind a flag
  } finally {
    process.emitWarning = emitWarning;
  }
}

/** SQLite's primary result codes by number (the low byte of an extended code). */
const PRIMARY: Record<number, string> = {
  1: 'ERROR',
  2: 'INTERNAL',
  3: 'PERM',
  4: 'ABORT',
  5: 'BUSY',
  6: 'LOCKED',
  7: 'NOMEM',
  8: 'READONLY',
  9: 'INTERRUPT',
  10: 'IOERR',
  11: 'CORRUPT',
  12: 'NOTFOUND',
  13: 'FULL',
  14: 'CANTOPEN',
  15: 'PROTOCOL',
  16: 'EMPTY',
  17: 'SCHEMA',
  18: 'TOOBIG',
  19: 'CONSTRAINT',
  20: 'MISMATCH',
  21: 'MISUSE',
  22: 'NOLFS',
  23: 'AUTH',
  24: 'FORMAT',
  25: 'RANGE',
  26: 'NOTADB',
  27: 'NOTICE',
  28: 'WARNING',
};

/** The extended codes whose names the store or its callers tell apart. */
const EXTENDED: Record<number, string> = {
  261: 'BUSY_RECOVERY',
  517: 'BUSY_SNAPSHOT',
  773: 'BUSY_TIMEOUT',
  264: 'READONLY_RECOVERY',
  520: 'READONLY_CANTLOCK',
  776: 'READONLY_ROLLBACK',
  1032: 'READONLY_DBMOVED',
  267: 'CORRUPT_VTAB',
  523: 'CORRUPT_SEQUENCE',
  779: 'CORRUPT_INDEX',
  275: 'CONSTRAINT_CHECK',
  787: 'CONSTRAINT_FOREIGNKEY',
  1299: 'CONSTRAINT_NOTNULL',
  1555: 'CONSTRAINT_PRIMARYKEY',
  1811: 'CONSTRAINT_TRIGGER',
  2067: 'CONSTRAINT_UNIQUE',
  2579: 'CONSTRAINT_ROWID',
};

/**
 * node:sqlite's error given SQLite's code name as better-sqlite3 gives it (`SQLITE_BUSY`,
 * `SQLITE_CONSTRAINT_UNIQUE`…), its number kept in `errcode`: what the store reads. A connection
 * used after it closed is SQLite's misuse, said as such.
 */
function named(error: unknown): unknown {
  const e = error as { code?: unknown; errcode?: unknown; message?: string };
  if (e && e.code === 'ERR_SQLITE_ERROR' && typeof e.errcode === 'number') {
    const name = EXTENDED[e.errcode] ?? PRIMARY[e.errcode & 0xff];
    if (name) e.code = `SQLITE_${name}`;
  } else if (e && e.code === 'ERR_INVALID_STATE') {
    e.code = 'SQLITE_MISUSE';
    e.message = `The database connection is not open (${e.message})`;
  }
  return error;
}

/**
 * Builds a statement's rows from arrays: node:sqlite makes each column's name a string again for
 * every row it returns as an object, which costs a row of 24 columns twice what reading it does.
 * Only for a statement that names its columns: the columns of `*` are the table's as it is when
 * the statement runs, and a newer version's migration may change them under a running server.
 * Null where this Node returns only objects, or the statement returns no columns.
 */
function rowMaker(s: StatementSync, sql: string): ((values: unknown[]) => unknown) | null {
  if (/(?:\bSELECT|\bRETURNING|,)\s*(?:[\w"`[\]]+\.)?\*/i.test(sql)) return null;
  const statement = s as StatementSync & {
    setReturnArrays?: (enabled: boolean) => void;
    columns?: () => Array<{ name: string }>;
  };
  if (typeof statement.setReturnArrays !== 'function' || typeof statement.columns !== 'function') return null;
  const names = statement.columns().map((c) => c.name);
  if (names.length === 0) return null;
  statement.setReturnArrays(true);
  // One object literal per statement: every row gets the same shape (a later column of the same
  // name wins, as it does in node:sqlite's own objects).
  return new Function(
    'v',
    `return {${names.map((name, i) => `${JSON.stringify(name)}: v[${i}]`).join(', ')}};`,
  ) as (values: unknown[]) => unknown;
}

function statement(s: StatementSync, sql: string): SqliteStatement {
  const row = rowMaker(s, sql);
  return {
    all(...params: unknown[]) {
      try {
        const rows = s.all(...(params as never[]));
        return row ? (rows as unknown as unknown[][]).map(row) : rows;
      } catch (error) {
        throw named(error);
      }
    },
    get(...params: unknown[]) {
      try {
        const got = s.get(...(params as never[]));
        return row && got !== undefined ? row(got as unknown as unknown[]) : got;
      } catch (error) {
        throw named(error);
      }
    },
    run(...params: unknown[]) {
      try {
        return { changes: Number(s.run(...(params as never[])).changes) };
      } catch (error) {
        throw named(error);
      }
    },
    *iterate(...params: unknown[]) {
      try {
        for (const got of s.iterate(...(params as never[])) as IterableIterator<unknown>)
          yield row ? row(got as unknown[]) : got;
      } catch (error) {
        throw named(error);
      }
    },
  };
}

/** Node's built-in SQLite, where this Node has it (else null). */
export function nodeSqlite(): SqliteDriver | null {
  const sqlite = loadNodeSqlite();
  if (!sqlite) return null;
  return {
    name: 'node:sqlite',
    version: () => process.versions.node,
    open(file: string, options: SqliteOpenOptions): SqliteConnection {
      let db: DatabaseSync;
      try {
        // Foreign keys are set by the store itself, as on the other driver.
        db = new sqlite.DatabaseSync(file, {
          readOnly: options.readonly === true,
          enableForeignKeyConstraints: false,
        });
      } catch (error) {
        throw named(error);
      }
      return {
        name: file,
        driver: 'node:sqlite',
        get open() {
          return db.isOpen;
        },
        get inTransaction() {
          const open = (db as { isTransaction?: unknown }).isTransaction;
          return typeof open === 'boolean' ? open : null;
        },
        prepare(sql: string) {
          try {
            return statement(db.prepare(sql), sql);
          } catch (error) {
            throw named(error);
          }
        },
        exec(sql: string) {
          try {
            db.exec(sql);
          } catch (error) {
            throw named(error);
          }
        },
        close: () => db.close(),
      };
    },
  };
}
