/**
 * Reads kept while nothing they read can have changed (SQLite): a hot read (a connection's session
 * row at every call, a check's change sets) is answered from what it returned before as long as
 * no other connection committed (SQLite's `PRAGMA data_version`) and this one wrote none of the
 * tables it reads. Under 8 clients, a session row read again cost a call ~6 % of the machine
 * server's instructions, and a check's change-set reads ~13 %.
 *
 * This connection's writes are told by the statements that make them (`wrote`): the tables a
 * statement writes (INSERT INTO, UPDATE, DELETE FROM), and, through the schema, the tables their
 * triggers and their foreign keys' actions write in turn. A statement whose tables cannot be told
 * (a CREATE, a DROP, a table the schema has not: the schema is read again), a schema changed by
 * another connection, and a rollback (what was read inside the transaction is gone), forget
 * everything kept.
 */
import type { Db } from './database.js';

/** How many reads are kept at most; past it, all are forgotten and kept anew. */
const KEPT_MAX = 2_000;
/** A read whose key is longer (a check of many paths) is read each time: what is kept stays small. */
const KEY_MAX = 1_000;
/** Statement texts whose tables are remembered at most (the store's texts are a few hundred). */
const TEXTS_MAX = 10_000;

/**
 * The tables a statement writes, by its text: every INSERT INTO, UPDATE (not an upsert's `DO
 * UPDATE`) and DELETE FROM in it, a schema's name (`main.`) passed over.
 */
const WRITES =
  /\b(?:insert\s+(?:or\s+\w+\s+)?into|replace\s+into|(?<!\bdo\s+)update(?:\s+or\s+\w+)?|delete\s+from)\s+(?:["`]?\w+["`]?\s*\.\s*)?["`]?(\w+)/gi;

/** A statement that writes rows, or reads them (`WITH … SELECT`): nothing else changes the schema. */
const ROWS = /^\s*(?:insert|update|delete|replace|with)\b/i;

function writtenBy(text: string): string[] {
  const tables: string[] = [];
  for (const m of text.matchAll(WRITES)) tables.push(m[1]!.toLowerCase());
  return tables;
}

interface Kept {
  version: number;
  epoch: number;
  stamps: number[];
  value: unknown;
}

export interface ReadsKept {
  /** `read()`'s value as it returned before, while none of `tables` can have changed since. */
  read<T>(key: string, tables: readonly string[], read: () => Promise<T>): Promise<T>;
  /** Told of every statement of this connection that may write. */
  wrote(text: string): void;
  /** Told when a transaction of this connection is rolled back. */
  rolledBack(): void;
}

/**
 * Reads kept for `db`. `transaction()` says which transaction of the connection is open (0: none):
 * inside one, no other connection can commit (this one holds the write lock), so the data version
 * is asked once per transaction.
 */
export function readsKept(db: Db, transaction: () => number): ReadsKept {
  const kept = new Map<string, Kept>();
  /** Writes of this connection, by table. */
  const writes = new Map<string, number>();
  /** Bumped when everything kept is forgotten. */
  let epoch = 0;
  /** The tables each table's writes write in turn (triggers, foreign key actions): read once. */
  let fanOut: Map<string, string[]> | null = null;
  /** The tables each statement text writes (a statement's text is one of a few hundred). */
  const byText = new Map<string, string[]>();
  let versionStatement: ReturnType<Db['prepare']> | null = null;
  let versionIn = { transaction: 0, version: 0 };
  /** The schema the fan-out was read from: another connection's migration changes it. */
  let schemaStatement: ReturnType<Db['prepare']> | null = null;
  let schemaRead = -1;
  const schemaVersion = () => {
    schemaStatement ??= db.prepare('PRAGMA schema_version');
    return Number((schemaStatement.get() as { schema_version: number }).schema_version);
  };

  /** The last transaction found rolled back by SQLite itself. */
  let lost = 0;
  const dataVersion = () => {
    let open = transaction();
    if (open !== 0 && db.inTransaction === false) {
      // SQLite rolled it back by itself (an I/O error, a full disk: the store hears of it only when
      // the transaction ends): other connections commit again meanwhile, and what was read inside
      // it is gone. (A driver that cannot tell keeps no reads: sql.ts.)
      if (lost !== open) {
        lost = open;
        forgetAll();
      }
      open = 0;
    }
    if (open !== 0 && versionIn.transaction === open) return versionIn.version;
    versionStatement ??= db.prepare('PRAGMA data_version');
    const version = Number((versionStatement.get() as { data_version: number }).data_version);
    // Another connection committed: its commit may have changed the schema (a newer version's
    // migration), whose triggers and keys say what this connection's writes write.
    if (version !== versionIn.version && fanOut !== null && schemaVersion() !== schemaRead) forgetSchema();
    versionIn = { transaction: open, version };
    return version;
  };

  const schemaFanOut = () => {
    schemaRead = schemaVersion();
    const direct = new Map<string, Set<string>>();
    const add = (from: string, to: string) => {
      const set = direct.get(from) ?? new Set<string>();
      set.add(to);
      direct.set(from, set);
    };
    const triggers = db
      .prepare("SELECT lower(tbl_name) AS tbl, sql FROM sqlite_master WHERE type = 'trigger'")
      .all() as { tbl: string; sql: string }[];
    for (const t of triggers)
      for (const to of writtenBy(t.sql.slice(t.sql.search(/\bbegin\b/i)))) add(t.tbl, to);
    const tables = db.prepare("SELECT lower(name) AS name FROM sqlite_master WHERE type = 'table'").all() as {
      name: string;
    }[];
    for (const { name } of tables) {
      direct.set(name, direct.get(name) ?? new Set());
      const keys = db.prepare('SELECT * FROM pragma_foreign_key_list(?)').all(name) as {
        table: string;
        on_update: string;
        on_delete: string;
      }[];
      for (const k of keys)
        if (!/^(NO ACTION|RESTRICT)$/i.test(k.on_update) || !/^(NO ACTION|RESTRICT)$/i.test(k.on_delete))
          add(k.table.toLowerCase(), name);
    }
    // Each table with every table its writes reach, however indirectly.
    const closed = new Map<string, string[]>();
    for (const from of direct.keys()) {
      const reached = new Set<string>();
      const stack = [from];
      while (stack.length > 0)
        for (const to of direct.get(stack.pop()!) ?? [])
          if (!reached.has(to)) {
            reached.add(to);
            stack.push(to);
          }
      closed.set(from, [...reached]);
    }
    return closed;
  };

  /** The tables a statement writes; null when it cannot be told (a table the schema has not). */
  const tablesOf = (text: string): string[] | null => {
    let tables = byText.get(text);
    if (tables === undefined) {
      fanOut ??= schemaFanOut();
      const direct = writtenBy(text);
      const all = new Set(direct);
      for (const t of direct) {
        const more = fanOut.get(t);
        if (more === undefined) return null;
        for (const m of more) all.add(m);
      }
      tables = [...all];
      if (byText.size < TEXTS_MAX) byText.set(text, tables);
    }
    return tables;
  };

  const forgetAll = () => {
    epoch++;
    kept.clear();
  };
  /** Anything may have changed, the schema too: its triggers and keys are read again. */
  const forgetSchema = () => {
    forgetAll();
    fanOut = null;
    byText.clear();
  };

  return {
    async read<T>(key: string, tables: readonly string[], read: () => Promise<T>): Promise<T> {
      if (key.length > KEY_MAX) return read();
      // The version first: a commit of another connection after it makes the next read miss.
      const version = dataVersion();
      const held = kept.get(key);
      if (held && held.version === version && held.epoch === epoch) {
        let same = true;
        for (let i = 0; i < tables.length; i++)
          if ((writes.get(tables[i]!) ?? 0) !== held.stamps[i]) {
            same = false;
            break;
          }
        if (same) return held.value as T;
      }
      // Stamped before the read: whatever changes while it waits (a write, a commit, a rollback)
      // makes the stamp older than what was read, and the next read misses.
      const stamps = tables.map((t) => writes.get(t) ?? 0);
      const entry: Kept = { version, epoch, stamps, value: undefined };
      entry.value = await read();
      if (kept.size >= KEPT_MAX) kept.clear();
      kept.set(key, entry);
      return entry.value as T;
    },
    wrote(text) {
      const tables = ROWS.test(text) ? tablesOf(text) : null;
      if (tables === null) return forgetSchema();
      // None: a read that is no SELECT (`WITH … SELECT`) changes nothing.
      for (const t of tables) writes.set(t, (writes.get(t) ?? 0) + 1);
    },
    rolledBack: forgetAll,
  };
}
