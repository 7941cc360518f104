/**
 * SQLite writes committed together: the writes one connection begins within two turns of the
 * event loop share one `BEGIN IMMEDIATE` transaction, each run after the other as before (a
 * decision made on what it read still sees every write before it), and the transaction commits
 * once those turns are over. A commit writes every page the transaction changed to the log (two
 * writes each): under 8 clients a claim's commit wrote 14 pages and COMMIT was a third of the
 * machine server's time in SQLite; writes committed together share their pages (the tables' and
 * indexes' last leaves), and the reads between them take no lock of their own.
 *
 * A write's promise settles once its group is committed, never before: an answer sent on it says
 * what is in the file. A write that throws having changed nothing leaves the group as it is; one
 * that throws having changed rows (or on an error of SQLite's, which can end the transaction on its
 * own) cannot be undone alone without a savepoint on every write (which costs each page changed a
 * copy, more than the commit saves), so the group is rolled back and the other writes run again
 * in a group of their own: as they would have had they come after it.
 */
import type { Db } from './database.js';
import { rollback, transactionLost, whileBusy } from './database.js';

/** The writes of a group at most: a stream of writes from one turn still commits now and then. */
export const GROUP_MAX = 32;

interface Member {
  fn: () => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

export interface WriteGroups {
  /** Runs `fn` as one write of the current group (one begins when none is open); settles once committed. */
  write<T>(fn: () => Promise<T>): Promise<T>;
  /** Told by the statements a write runs: `n` rows changed. */
  changed(n: number): void;
  /** Settles once every write begun so far has settled (and its group committed). */
  settled(): Promise<void>;
  /** Whether a write is waiting, running or waiting for its group's commit. */
  busy(): boolean;
  /** The open group's transaction, by a number no other of this connection had; 0 when none is open. */
  transaction(): number;
}

/**
 * `db`'s writes in groups. `gate` is what a group waits for before it begins (the checkpointer's
 * pause, store/checkpoints.ts); `busyTimeoutMs` how long it waits for another process's write.
 */
export function writeGroups(
  db: Db,
  busyTimeoutMs: number,
  gate: () => Promise<void> | null,
  rolledBack: () => void = () => {},
): WriteGroups {
  let queue: Promise<unknown> = Promise.resolve();
  /** The open group's transaction number (0: none open), and the last one given. */
  let open = 0;
  let lastGiven = 0;
  /** The open group's writes done, each waiting for the commit with what it returned. */
  let group: { member: Member; value: unknown }[] | null = null;
  /** Rows changed since the connection opened, as the statements tell them. */
  let changes = 0;

  const commit = () => {
    const ending = group;
    group = null;
    open = 0;
    if (!ending) return;
    try {
      db.exec('COMMIT');
    } catch (error) {
      rollback(db);
      rolledBack();
      for (const { member } of ending) member.reject(error);
      return;
    }
    for (const { member, value } of ending) member.resolve(value);
  };

  /** Writes begun and not yet done running. */
  let waiting = 0;
  const enqueue = (member: Member) => {
    waiting++;
    queue = queue.then(() =>
      run(member).finally(() => {
        waiting--;
      }),
    );
  };

  const run = async (member: Member) => {
    if (group === null) {
      try {
        const held = gate();
        if (held !== null) await held;
        whileBusy(busyTimeoutMs, () => db.exec('BEGIN IMMEDIATE'));
      } catch (error) {
        member.reject(error);
        return;
      }
      group = [];
      open = ++lastGiven;
      // At the end of the next turn: the requests read in this turn's callbacks, and those that
      // came while they ran (read in the next), have begun their writes; the commit comes after
      // them. (Under 8 clients, one turn later than this one's end cut the server's time per call
      // by a tenth again; more turns, nothing more.)
      setImmediate(() =>
        setImmediate(() => {
          queue = queue.then(commit);
        }),
      );
    }
    const joined = group;
    const before = changes;
    try {
      const value = await member.fn();
      // SQLite ended the transaction under it (an error the write caught and passed over): what
      // the group wrote before is gone, as after an error of SQLite's.
      if (db.inTransaction === false) throw transactionLost();
      joined.push({ member, value });
      if (joined.length >= GROUP_MAX) commit();
    } catch (error) {
      const sqliteError = String((error as { code?: unknown })?.code ?? '').startsWith('SQLITE_');
      // Or SQLite ended the transaction under it, and the write failed of its own afterwards.
      if (changes !== before || sqliteError || db.inTransaction === false) {
        group = null;
        open = 0;
        rollback(db);
        rolledBack();
        for (const done of joined) enqueue(done.member);
      }
      member.reject(error);
    }
  };

  return {
    write<T>(fn: () => Promise<T>): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        enqueue({ fn, resolve: resolve as (value: unknown) => void, reject });
      });
    },
    changed(n) {
      changes += n;
    },
    busy() {
      return waiting > 0 || group !== null;
    },
    transaction() {
      return open;
    },
    async settled() {
      for (let last: Promise<unknown> | null = null; last !== queue; ) {
        last = queue;
        await last;
      }
      commit();
    },
  };
}
