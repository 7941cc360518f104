/** Which files the watcher of writes no hook saw looks at, and how it tells their content apart. */
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';

/** Files larger than this are told apart by size and time, not read. */
export const MAX_HASHED_BYTES = 4 * 1024 * 1024;
/** Folders never watched, wherever they are: dependencies, build output, caches, git's own. */
export const IGNORED = [
  '.git',
  'node_modules',
  'dist',
  'build',
  'out',
  'target',
  'coverage',
  '.next',
  '.cache',
  '__pycache__',
  '.venv',
  'venv',
];
export const IGNORED_NAMES = new Set(IGNORED);
/** Editors' and tools' temporary files (an atomic save writes one, then renames it). */
export const TEMPORARY = /(^\.#|^#.*#$|~$|\.sw[a-p]$|\.tmp$|\.tmp\.|\.orig$|\.crswap$)/;

export const ignoredPath = (rel: string) => rel.split('/').some((part) => IGNORED_NAMES.has(part));

/** A file's content digest, or null when it is gone or not a file. */
export function digestOf(path: string): string | null {
  try {
    const st = statSync(path, { throwIfNoEntry: false });
    if (!st?.isFile()) return null;
    if (st.size > MAX_HASHED_BYTES) return `large:${st.size}:${st.mtimeMs}`;
    return createHash('sha1').update(readFileSync(path)).digest('hex');
  } catch {
    return null;
  }
}
