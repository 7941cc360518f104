import { CollabError } from './errors.js';

/** A database file found damaged (on opening it, or by SQLite's check), and how to recover. */
export function damagedDatabase(file: string, detail: string): CollabError {
  return new CollabError(
    'DB_ERROR',
    `${file} is damaged (${detail}).`,
    `Run \`session-collab doctor --repair\`: it keeps what can be read and moves the damaged file aside (or move it aside yourself, mv "${file}" "${file}.damaged", and start afresh).`,
  );
}

/** A process that holds the database's write lock. */
export interface LockHolder {
  pid: number;
  command: string;
  stopped: boolean;
}

/**
 * The database stayed locked by another process past the wait: who holds it, when that is known,
 * and what to do about it (a stopped process holds it until it is continued or ended).
 */
export function lockedDatabase(
  file: string,
  waitedMs: number | null,
  holder: LockHolder | null,
): CollabError {
  const waited = waitedMs === null ? '' : ` for ${Math.round(waitedMs / 100) / 10} s`;
  if (!holder)
    return new CollabError(
      'DB_BUSY',
      `${file} stayed locked by another process${waited}, longer than the wait allows.`,
      'Call again in a moment. If it persists, `fuser` or `lsof` on registry.db names the process that holds it.',
    );
  const who = `pid ${holder.pid}${holder.command ? ` (${holder.command.replace(/[\x00-\x1f\x7f]/g, ' ')})` : ''}`;
  return new CollabError(
    'DB_BUSY',
    `${file} stayed locked${waited}: ${who} holds its write lock${holder.stopped ? ' and is stopped' : ''}.`,
    holder.stopped
      ? `Continue it (kill -CONT ${holder.pid}) or end it (kill ${holder.pid}); then call again.`
      : `Call again in a moment. If it persists, that process is stuck: end it (kill ${holder.pid}).`,
  );
}

/**
 * What a storage fault means for a person, in one line and a hint: a damaged or unreadable
 * database, a read-only or full disk, a home path that is not a folder. Null for anything else.
 */
export function describeStorageFault(error: unknown, file: string): CollabError | null {
  const e = error as { code?: unknown; message?: string };
  const code = typeof e?.code === 'string' ? e.code : '';
  const message = e?.message ?? String(error);
  if (
    code === 'SQLITE_NOTADB' ||
    code.startsWith('SQLITE_CORRUPT') ||
    /not a database|malformed/i.test(message)
  )
    return damagedDatabase(file, message);
  if (code === 'EROFS')
    return new CollabError(
      'DB_ERROR',
      `${file} cannot be written: its folder is on a read-only file system.`,
      'Point SESSION_COLLAB_HOME at a writable folder, or remount that file system read-write.',
    );
  if (code.startsWith('SQLITE_READONLY') || code === 'EACCES' || code === 'EPERM')
    return new CollabError(
      'DB_ERROR',
      `${file} cannot be written (${message}).`,
      'Make the session-collab home folder writable, or point SESSION_COLLAB_HOME at one that is.',
    );
  if (code === 'SQLITE_FULL' || code === 'ENOSPC')
    return new CollabError(
      'DB_ERROR',
      `The disk holding ${file} is full.`,
      'Free some space (`df -h` tells where), or point SESSION_COLLAB_HOME at another disk.',
    );
  if (code === 'ENOTDIR' || code === 'EEXIST')
    return new CollabError(
      'CONFIG_ERROR',
      `A path on the way to ${file} is a file, not a folder (${message}).`,
      'Set SESSION_COLLAB_HOME to a folder, or move that file away.',
    );
  if (code.startsWith('SQLITE_BUSY') || /database is locked/i.test(message))
    return lockedDatabase(file, null, null);
  if (code === 'SQLITE_CANTOPEN')
    return new CollabError(
      'DB_ERROR',
      `${file} cannot be opened (${message}).`,
      'Check that the session-collab home folder exists and is writable; run `session-collab doctor`.',
    );
  return null;
}
