import { accessSync, constants, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { CollabError } from '../core/errors.js';
import { describeStorageFault, type LockHolder, lockedDatabase } from '../core/storage-faults.js';
import { SCHEMA_VERSION, stepsAfter } from './migrations/schema.js';
import { pragmaValue, type SqliteConnection, sqliteConnection } from './sqlite.js';

export type Db = SqliteConnection;

/** How long a statement waits for another process's write lock before failing with SQLITE_BUSY. */
export const DEFAULT_BUSY_TIMEOUT_MS = 10_000;

/**
 * Opens (creating if needed) the shared database file and brings its schema up to date. Held past
 * the wait by another process, it fails with DB_BUSY naming that process when `lockHolder` can.
 */
export function openDatabase(
  file: string,
  busyTimeoutMs = DEFAULT_BUSY_TIMEOUT_MS,
  lockHolder?: (file: string) => LockHolder | null,
): Db {
  const started = Date.now();
  let db: Db;
  try {
    if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
    db = sqliteConnection(file);
  } catch (error) {
    if (error instanceof CollabError) throw error; // already says what is wrong and what to do
    throw (
      describeStorageFault(folderFault(file) ?? error, file) ??
      new CollabError('DB_ERROR', `Cannot open ${file}: ${(error as Error).message}`)
    );
  }
  try {
    db.exec(`PRAGMA busy_timeout = ${busyTimeoutMs}`);
    // Many processes may open a fresh file together. Switching to WAL and migrating need locks that
    // SQLite sometimes refuses at once rather than waiting for (a reader that would have to upgrade):
    // retried until the busy timeout has passed.
    whileBusy(busyTimeoutMs, () => {
      if (pragmaValue(db, 'journal_mode') !== 'wal') db.exec('PRAGMA journal_mode = WAL');
    });
    // A page cache of 32 MB rather than SQLite's 2 MB: a long-lived server with 100,000 claims keeps
    // what it reads in memory (it is filled as pages are read, so a short process pays nothing).
    db.exec('PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON; PRAGMA cache_size = -32000');
    whileBusy(busyTimeoutMs, () => migrate(db, file));
  } catch (error) {
    db.close();
    const code = String((error as { code?: unknown }).code ?? '');
    if (code.startsWith('SQLITE_CANTOPEN') || code.startsWith('SQLITE_READONLY'))
      throw describeStorageFault(folderFault(file) ?? error, file) ?? error;
    if (isBusy(error)) throw lockedDatabase(file, Date.now() - started, lockHolder?.(file) ?? null);
    throw describeStorageFault(error, file) ?? error;
  }
  return db;
}

/**
 * Why the database's folder cannot take the files SQLite needs beside the database (its journal
 * and shared memory): a read-only file system or no permission. Null when it can.
 */
function folderFault(file: string): NodeJS.ErrnoException | null {
  if (file === ':memory:') return null;
  try {
    accessSync(dirname(file), constants.W_OK);
    return null;
  } catch (error) {
    return error as NodeJS.ErrnoException;
  }
}

export function isBusy(error: unknown): boolean {
  return ((error as { code?: unknown })?.code ?? '').toString().startsWith('SQLITE_BUSY');
}

/** Runs `fn`, again after a short pause while it fails with SQLITE_BUSY, for at most `ms`. */
export function whileBusy<T>(ms: number, fn: () => T): T {
  const deadline = Date.now() + ms;
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (let attempt = 1; ; attempt++) {
    try {
      return fn();
    } catch (error) {
      if (!isBusy(error) || Date.now() >= deadline) throw error;
      Atomics.wait(pause, 0, 0, Math.min(5 * attempt, 50));
    }
  }
}

export function schemaVersion(db: Db): number {
  return pragmaValue(db, 'user_version') as number;
}

function migrate(db: Db, file: string): void {
  const current = schemaVersion(db);
  if (current > SCHEMA_VERSION) {
    throw new CollabError(
      'DB_ERROR',
      `${file} has schema version ${current}, newer than this session-collab understands (${SCHEMA_VERSION}).`,
      'Upgrade session-collab (every process sharing this database must run the same or a newer version).',
    );
  }
  if (current === SCHEMA_VERSION) return;
  for (const migration of stepsAfter('sqlite', current)) {
    // Each migration in its own immediate transaction; a concurrent process that migrated first
    // makes the re-check skip it.
    if (migration.rebuildsTables) db.exec('PRAGMA foreign_keys = OFF');
    try {
      immediate(db, () => {
        if (schemaVersion(db) >= migration.version) return;
        db.exec(migration.sql);
        if (migration.rebuildsTables && db.prepare('PRAGMA foreign_key_check').all().length > 0) {
          throw new CollabError(
            'DB_ERROR',
            `migration ${migration.version} (${migration.name}) broke a foreign key; nothing was changed.`,
          );
        }
        db.exec(`PRAGMA user_version = ${migration.version}`);
      });
    } finally {
      if (migration.rebuildsTables) db.exec('PRAGMA foreign_keys = ON');
    }
  }
}

/**
 * Runs `fn` in a `BEGIN IMMEDIATE` transaction: the write lock is taken before anything is read,
 * so a decision made on what was read cannot be invalidated by another process. Waiting for the
 * lock is the busy timeout's job; past it, SQLITE_BUSY reaches the caller (a DB_ERROR).
 */
export function immediate<T>(db: Db, fn: () => T): T {
  db.exec('BEGIN IMMEDIATE');
  try {
    const result = fn();
    db.exec('COMMIT');
    return result;
  } catch (error) {
    rollback(db);
    throw error;
  }
}

/**
 * The error of a write whose transaction SQLite rolled back by itself (an I/O error, a full disk,
 * caught and passed over by the write): its statements after that would each commit on their own.
 * SQLite's own code for a statement so ended, so that the write groups take it for one of its errors.
 */
export function transactionLost(): Error {
  return Object.assign(
    new Error(
      'SQLite rolled this write’s transaction back after an error in it; nothing of the write is kept.',
    ),
    { code: 'SQLITE_ABORT_ROLLBACK' },
  );
}

/** Ends the open transaction, if one is still open (SQLite ends some on its own when they fail). */
export function rollback(db: Db): void {
  try {
    db.exec('ROLLBACK');
  } catch {
    // no transaction was open
  }
}
