/**
 * A user's file given new text as an editor saves one: written beside it and renamed over it, so
 * that it is never half-written; through a symlink, the file the link names (the link stays); with
 * the file's own mode (a config holding a token stays private). A read-only file is not written
 * over. A file other programs edit too (a client's user config) is edited under a lock, its text
 * read again inside it, so that two edits at once both stay.
 */
import {
  chmodSync,
  lstatSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  renameSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { dirname, resolve } from 'node:path';
import { CollabError } from '../core/errors.js';
import { lockFile } from './file-lock.js';

/** Where writing `path` writes: the file a symlink names (followed to the end), else `path`. */
function writtenPath(path: string): string {
  try {
    if (!lstatSync(path).isSymbolicLink()) return path;
  } catch {
    return path;
  }
  try {
    return realpathSync(path);
  } catch {
    // A link to a file not there yet: the file it names is made.
    return resolve(dirname(path), readlinkSync(path));
  }
}

/** The mode `path` has now (null: no file), refusing one that is read-only or no file. */
function modeToKeep(path: string, shown: string): number | null {
  let stat: ReturnType<typeof statSync>;
  try {
    stat = statSync(path);
  } catch {
    return null;
  }
  if (!stat.isFile())
    throw new CollabError(
      'CONFIG_ERROR',
      `${shown} is not a file.`,
      'Move it away and run the command again.',
    );
  if ((stat.mode & 0o200) === 0)
    throw new CollabError(
      'CONFIG_ERROR',
      `${shown} is read-only: it is not written over.`,
      'Make it writable (chmod u+w) and run the command again, or leave its client out (--client).',
    );
  return stat.mode & 0o7777;
}

/** Refuses, before anything is written, what `replaceText` would refuse for each of `paths`. */
export function checkReplaceable(paths: string[]): void {
  for (const path of paths) {
    const target = writtenPath(path);
    modeToKeep(target, path);
    // The folders it goes in: where one is a file, its folder cannot be made.
    for (let dir = dirname(target); dir !== dirname(dir); dir = dirname(dir)) {
      let stat: ReturnType<typeof statSync>;
      try {
        stat = statSync(dir);
      } catch {
        continue;
      }
      if (!stat.isDirectory())
        throw new CollabError(
          'CONFIG_ERROR',
          `${dir} is a file, where ${path} needs a folder.`,
          'Move that file away and run the command again; nothing was written.',
        );
      break;
    }
  }
}

/** Gives `path` the text `text` (see the module's comment). */
export function replaceText(path: string, text: string): void {
  const target = writtenPath(path);
  const mode = modeToKeep(target, path);
  const temporary = `${target}.session-collab-${process.pid}.tmp`;
  writeFileSync(temporary, text, mode === null ? {} : { mode });
  // The mode as it was, whatever the umask took from it.
  if (mode !== null) chmodSync(temporary, mode);
  renameSync(temporary, target);
}

/**
 * Edits `path` under its lock: `edit` gets its text as it is then (null: no file) and returns the
 * new text; nothing is written where it returns the same.
 */
export function editLocked(path: string, edit: (before: string | null) => string): string | null {
  const target = writtenPath(path);
  const unlock = lockFile(target);
  if (!unlock)
    throw new CollabError(
      'CONFIG_ERROR',
      `${path} is being edited by another process (${target}.lock stays taken).`,
      'Run the command again in a moment; remove the .lock file if no other init runs.',
    );
  try {
    let before: string | null;
    try {
      before = readFileSync(target, 'utf8');
    } catch {
      before = null;
    }
    const after = edit(before);
    if (after !== before) replaceText(target, after);
    return after;
  } finally {
    unlock();
  }
}
