import { AsyncLocalStorage } from 'node:async_hooks';
import type { Pool, PoolClient } from 'pg';
import { TextsByLength } from '../core/texts-by-length.js';
import { type Db, transactionLost } from './database.js';
import { readsKept } from './reads-kept.js';
import type { SqliteStatement } from './sqlite.js';
import { writeGroups } from './write-groups.js';

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
  /**
   * `read()`'s value as it returned before, while nothing in `tables` can have changed since
   * (SQLite: store/reads-kept.ts); read each time on PostgreSQL, and on a SQLite driver that cannot
   * tell whether SQLite rolled a transaction back by itself (node:sqlite before Node 22.16: what was
   * kept inside it would outlive it). The value is shared by every
   * caller it is returned to: never changed by one (a row is copied before it is handed on).
   */
  kept<T>(key: string, tables: readonly string[], read: () => Promise<T>): Promise<T>;
}

/** Inside a write transaction. */
export interface Transaction extends Sql {
  /**
   * Serialises this transaction with every other that takes the same key, on every replica, until
   * it ends (PostgreSQL: an advisory transaction lock; SQLite: a writer already holds the database).
   */
  lock(key: string): Promise<void>;
}

/**
 * What a write transaction decides on: one project (its id), whose writes take turns with each
 * other only, or, when absent, anything at all, which takes its turn with every write.
 */
export interface WriteScope {
  project: string;
}

export interface SqlDatabase extends Sql {
  /**
   * A transaction for writes that decide on what they read. It commits when `fn` resolves and
   * rolls back when it throws. SQLite: `BEGIN IMMEDIATE`, one at a time (whatever the scope), the
   * writes begun in one turn of the event loop committed together (store/write-groups.ts);
   * PostgreSQL: a connection of its own for the transaction's length, and a turn among the
   * writes of its `scope` on every replica (without one, among all writes). Statements run
   * through this database's own methods while `fn` runs (in its async context) are part of the
   * transaction, so store modules need not be handed the transaction.
   */
  write<T>(fn: (tx: Transaction) => Promise<T>, scope?: WriteScope): Promise<T>;
  close(): Promise<void>;
}

/**
 * `?` placeholders numbered for PostgreSQL (`$1`…) by a tokenizer that knows what else a `?` can be
 * in its SQL: text in string literals (`'…'`, `E'…'` with backslash escapes), quoted identifiers,
 * dollar-quoted bodies (`$$…$$`, `$tag$…$tag$`) and comments (`-- …`, nested `/* … *\/`) stays as
 * it is; the JSONB operators `?|` and `?&` stay operators; and `??` is a literal `?` (how the
 * JSONB `?` operator is written, as JDBC does).
 */
export function numberPlaceholders(sql: string): string {
  return replacePlaceholders(sql, (n) => `$${n}`);
}

/**
 * Each `?` placeholder of `sql` (as `numberPlaceholders` tells them) replaced by what `replace`
 * makes of its number (from 1).
 */
export function replacePlaceholders(sql: string, replace: (n: number) => string): string {
  let n = 0;
  let out = '';
  let i = 0;
  /** Copies up to and including the first `end` at or after `from` (or the rest). */
  const copyThrough = (from: number, end: string) => {
    const at = sql.indexOf(end, from);
    const stop = at === -1 ? sql.length : at + end.length;
    out += sql.slice(i, stop);
    i = stop;
  };
  while (i < sql.length) {
    const c = sql[i]!;
    const next = sql[i + 1];
    if (c === "'") {
      // A string: '' is a quote inside it; after E, a backslash escapes the next character.
      const escapes = i > 0 && /[eE]/.test(sql[i - 1]!) && !/\w/.test(sql[i - 2] ?? '');
      let j = i + 1;
      while (j < sql.length) {
        if (escapes && sql[j] === '\\') j += 2;
        else if (sql[j] === "'" && sql[j + 1] === "'") j += 2;
        else if (sql[j] === "'") break;
        else j++;
      }
      out += sql.slice(i, j + 1);
      i = j + 1;
    } else if (c === '"') copyThrough(i + 1, '"');
    else if (c === '-' && next === '-') copyThrough(i, '\n');
    else if (c === '/' && next === '*') {
      let depth = 0;
      let j = i;
      while (j < sql.length) {
        if (sql[j] === '/' && sql[j + 1] === '*') {
          depth++;
          j += 2;
        } else if (sql[j] === '*' && sql[j + 1] === '/') {
          depth--;
          j += 2;
          if (depth === 0) break;
        } else j++;
      }
      out += sql.slice(i, j);
      i = j;
    } else if (c === '$' && /[A-Za-z_$]/.test(next ?? '') && !/[\w$]/.test(sql[i - 1] ?? '')) {
      const tag = /^\$[A-Za-z_]\w*\$|^\$\$/.exec(sql.slice(i))?.[0];
      if (tag) copyThrough(i + tag.length, tag);
      else {
        out += c;
        i++;
      }
    } else if (c === '?') {
      if (next === '?') {
        out += '?';
        i += 2;
      } else if ((next === '|' || next === '&') && sql[i + 2] !== next) {
        out += c + next;
        i += 2;
      } else {
        n += 1;
        out += replace(n);
        i++;
      }
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

/**
 * A list of values as one parameter, for `column IN (…)` of any length: `text` replaces the
 * parenthesised list (`WHERE id ${inList.text}`), `param` is its one parameter. On SQLite the list
 * becomes a temporary b-tree at every run (~10,000 instructions): a read on every call walks the
 * list (`FROM json_each(?) CROSS JOIN …`) instead, as claim-patterns-store.ts and changes-store.ts do.
 */
export function inList(
  dialect: Dialect,
  values: readonly (string | number)[],
): { text: string; param: unknown } {
  return dialect === 'postgresql'
    ? { text: `= ANY(CAST(? AS ${typeof values[0] === 'number' ? 'BIGINT' : 'TEXT'}[]))`, param: [...values] }
    : { text: 'IN (SELECT value FROM json_each(?))', param: JSON.stringify(values) };
}

/**
 * The text SQLite prepares for `text`: each `?` written `+?`, the same value to SQLite. SQLite plans
 * a statement again when a value is bound to a parameter its planner looked into (a `col = ?` of a
 * primary key, of a join or with an ORDER BY; a `LIMIT ?`), and clearing the bindings counts as
 * binding: node:sqlite clears them before every run, so such a statement was parsed and planned
 * again on every run (SQLite 3.54; 3.53 under better-sqlite3 for a `LIMIT ?`). A `+?` is no bare
 * parameter to the planner, which makes the same plan of it (the same index; `EXPLAIN QUERY PLAN`).
 * Measured: a read by primary key 2.4 → 1.0 µs, by an index with ORDER BY 8.3 → 3.0 µs, with
 * `LIMIT ?` 3.2 → 1.3 µs. A text whose quotes or comments the tokenizer (PostgreSQL's) would not
 * read as SQLite does (`[…]`, backquotes, comments), or with a `??`, is left as it is.
 */
export function sqliteText(text: string): string {
  if (/[`[]|--|\/\*/.test(text)) return text;
  const marked = replacePlaceholders(text, () => '\u0000');
  return marked.replaceAll('\u0000', '?') === text ? marked.replaceAll('\u0000', '+?') : text;
}

/**
 * SQLite (either driver, store/sqlite.ts): statements prepared once; its calls are synchronous underneath.
 * One connection serves every caller of the process, so a write is kept to itself: while one runs,
 * a statement from outside it (another request's, between two of the write's awaits) waits for it
 * to end, rather than joining it. Writes are committed in groups (store/write-groups.ts): a read
 * between two writes of a group sees what they did before their commit, as they will commit it.
 */
export interface SqliteSqlDatabase extends SqlDatabase {
  /**
   * What a write waits for before it begins, when it must (null: nothing). The checkpointer
   * (store/checkpoints.ts) holds writes back for a moment so that the log can start over.
   */
  gateWrites(gate: (() => Promise<void> | null) | null): void;
}

export function sqliteSql(db: Db, busyTimeoutMs: number): SqliteSqlDatabase {
  // Most texts are built as they run (`SELECT ${COLUMNS} …`): found by length, then text.
  const statements = new TextsByLength<SqliteStatement>();
  const prepare = (text: string) => {
    let statement = statements.get(text);
    if (!statement) {
      statement = db.prepare(sqliteText(text));
      statements.set(text, statement);
    }
    return statement;
  };
  const inTransaction = new AsyncLocalStorage<object>();
  let open: object | null = null;
  let gate: (() => Promise<void> | null) | null = null;
  const groups = writeGroups(
    db,
    busyTimeoutMs,
    () => gate?.() ?? null,
    () => reads.rolledBack(),
  );
  const reads = readsKept(db, () => groups.transaction());
  /** The write running now (settled: none). */
  let running: Promise<unknown> = Promise.resolve();
  const inside = () => open !== null && inTransaction.getStore() === open;
  /** What a statement run by `all`/`get` may change: nothing when it is a SELECT. */
  const readsOnly = (text: string) => {
    let i = 0;
    while (i < text.length && text.charCodeAt(i) <= 32) i++;
    // 'SELECT' and a space, in any case (| 32 makes a capital letter small).
    return (
      (text.charCodeAt(i) | 32) === 115 &&
      (text.charCodeAt(i + 1) | 32) === 101 &&
      (text.charCodeAt(i + 2) | 32) === 108 &&
      (text.charCodeAt(i + 3) | 32) === 101 &&
      (text.charCodeAt(i + 4) | 32) === 99 &&
      (text.charCodeAt(i + 5) | 32) === 116 &&
      text.charCodeAt(i + 6) <= 32
    );
  };
  /**
   * Runs the statement `text` (`fn`): inside the caller's write, at once; outside one, a read once
   * the write another caller is running has ended (between two writes of a group, it reads inside
   * the group's transaction: what those writes did, as they will commit it), and a change as a
   * write of its own, so that it commits (or not) as a whole, and is answered once committed.
   */
  const statement = async <T>(text: string, fn: () => T): Promise<T> => {
    if (inside()) {
      // Its transaction rolled back by SQLite itself: the statement would commit on its own.
      if (db.inTransaction === false) throw transactionLost();
      return fn();
    }
    if (!readsOnly(text)) return write(async () => fn());
    while (open !== null) await running;
    return fn();
  };
  /**
   * Told after each statement that may write, in the same turn as it ran: the write groups (rows
   * changed) and the reads kept (tables written; after, so that no read between kept the old rows).
   */
  const wrote = (text: string, changes: number) => {
    groups.changed(changes);
    reads.wrote(text);
  };
  const sql: Sql = {
    dialect: 'sqlite',
    all: <T>(text: string, params: unknown[] = []) =>
      statement(text, () => {
        if (readsOnly(text)) return prepare(text).all(...params) as T[];
        let changes = 0;
        try {
          const out = prepare(text).all(...params) as T[];
          changes = 1;
          return out;
        } finally {
          wrote(text, changes);
        }
      }),
    get: <T>(text: string, params: unknown[] = []) =>
      statement(text, () => {
        if (readsOnly(text)) return prepare(text).get(...params) as T | undefined;
        let changes = 0;
        try {
          const out = prepare(text).get(...params) as T | undefined;
          changes = 1;
          return out;
        } finally {
          wrote(text, changes);
        }
      }),
    run: (text: string, params: unknown[] = []) =>
      statement(text, () => {
        let changes = 0;
        try {
          changes = Number(prepare(text).run(...params).changes);
          return { changes };
        } finally {
          wrote(text, changes);
        }
      }),
    kept:
      db.inTransaction === null
        ? (_key, _tables, read) => read()
        : (key, tables, read) => reads.read(key, tables, read),
  };
  function write<T>(fn: (tx: Transaction) => Promise<T>): Promise<T> {
    // A write inside a write joins it.
    if (inside()) return fn({ ...sql, lock: async () => {} });
    return groups.write(async () => {
      const token = {};
      open = token;
      const done = inTransaction.run(token, () => fn({ ...sql, lock: async () => {} }));
      running = done.catch(() => {});
      try {
        return await done;
      } finally {
        open = null;
      }
    });
  }
  return {
    ...sql,
    write,
    gateWrites(given) {
      gate = given;
    },
    async close() {
      // Closed at once when no write is under way (a hook closes it just before it exits).
      if (groups.busy()) await groups.settled();
      db.close();
    },
  };
}

/**
 * Each statement text as a named prepared statement: PostgreSQL parses and plans it once per
 * connection, not on every call (the store's texts are fixed; values are always parameters).
 */
const prepared = new Map<string, { name: string; text: string }>();
function statement(text: string, values: unknown[]) {
  let known = prepared.get(text);
  if (!known) {
    known = { name: `collab_${prepared.size}`, text: numberPlaceholders(text) };
    prepared.set(text, known);
  }
  return { ...known, values };
}

function pgSql(client: () => Pool | PoolClient): Sql {
  return {
    dialect: 'postgresql',
    all: async <T>(text: string, params: unknown[] = []) =>
      (await client().query(statement(text, params))).rows as T[],
    get: async <T>(text: string, params: unknown[] = []) =>
      (await client().query(statement(text, params))).rows[0] as T | undefined,
    run: async (text: string, params: unknown[] = []) => ({
      changes: (await client().query(statement(text, params))).rowCount ?? 0,
    }),
    kept: (_key, _tables, read) => read(),
  };
}

/** A statement that writes (a `WITH … INSERT` too). */
const WRITES = /^\s*(?:WITH\b[\s\S]*\b)?(?:INSERT|UPDATE|DELETE)\b/i;

/** An SQL string literal (for a statement sent without parameters). */
const quoteLiteral = (text: string) => `'${text.replace(/'/g, "''")}'`;

/** The advisory lock every write transaction of the team database holds until it ends. */
const WRITE_LOCK = 7_290_031_002;

function transaction(client: PoolClient): Transaction {
  return {
    ...pgSql(() => client),
    async lock(key: string) {
      await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [key]);
    },
  };
}

/**
 * PostgreSQL through a pool: reads on any connection, each transaction on one of its own. A
 * process's writes queue here before they take a connection, so that writes waiting for the lock
 * never hold every connection of the pool from the reads; past `lockWaitMs` waiting for the lock,
 * a write fails (as SQLite's do past the busy timeout) rather than wait for ever.
 */
export function postgresSql(pool: Pool, lockWaitMs = 10_000): SqlDatabase {
  const inTransaction = new AsyncLocalStorage<{ client: PoolClient; done: boolean }>();
  /** The client of the transaction this async context runs in (none once it has ended). */
  const current = (): PoolClient | null => {
    const open = inTransaction.getStore();
    return open && !open.done ? open.client : null;
  };
  const outside = pgSql(() => current() ?? pool);
  /**
   * Runs `fn` in a transaction of its own once this process's earlier writes of the same `key`
   * are done, under `lock` (advisory locks, held until it ends): its turn among the writes on
   * every replica. (One round trip: statements without parameters go together.)
   */
  const transact = <T>(key: string, lock: string, fn: (tx: Transaction) => Promise<T>): Promise<T> => {
    const turn = (queues.get(key) ?? Promise.resolve()).then(async () => {
      const client = await pool.connect();
      const open = { client, done: false };
      try {
        await client.query(`BEGIN; SET LOCAL lock_timeout = ${Math.max(1, Math.round(lockWaitMs))}; ${lock}`);
        const result = await inTransaction.run(open, () => fn(transaction(client)));
        await client.query('COMMIT');
        return result;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => {});
        throw error;
      } finally {
        open.done = true;
        client.release();
      }
    });
    const settled = turn.then(
      () => {},
      () => {},
    );
    queues.set(key, settled);
    // A key's queue is forgotten once nothing waits in it.
    void settled.then(() => {
      if (queues.get(key) === settled) queues.delete(key);
    });
    return turn;
  };
  // This process's writes wait here for their turn, one queue per key, so that writes waiting for
  // a lock never hold every connection of the pool from the reads.
  const queues = new Map<string, Promise<void>>();
  // A write outside a transaction is one of its own. It decides on nothing it read, so it waits
  // only for the writes that decide on anything at all (a shared hold on their lock).
  const single =
    <R>(read: (text: string, params?: unknown[]) => Promise<R>) =>
    (text: string, params?: unknown[]): Promise<R> =>
      current() || !WRITES.test(text)
        ? read(text, params)
        : transact('statement', `SELECT pg_advisory_xact_lock_shared(${WRITE_LOCK})`, () =>
            read(text, params),
          );
  const database: SqlDatabase = {
    dialect: 'postgresql',
    all: single(outside.all) as Sql['all'],
    get: single(outside.get) as Sql['get'],
    run: single(outside.run),
    kept: outside.kept,
    write<T>(fn: (tx: Transaction) => Promise<T>, scope?: WriteScope): Promise<T> {
      const joined = current();
      // A write inside a write joins it.
      if (joined) return fn(transaction(joined));
      // A write that decides on what it read takes its turn, on every replica, as SQLite's
      // writers do: with a scope, among the writes of its project (a shared hold on the lock of
      // all writes, and its project's own); without, among all writes.
      if (!scope) return transact('all', `SELECT pg_advisory_xact_lock(${WRITE_LOCK})`, fn);
      const key = `project:${scope.project}`;
      return transact(
        key,
        `SELECT pg_advisory_xact_lock_shared(${WRITE_LOCK}); SELECT pg_advisory_xact_lock(hashtextextended(${quoteLiteral(key)}, 0))`,
        fn,
      );
    },
    async close() {
      await pool.end();
    },
  };
  return database;
}
