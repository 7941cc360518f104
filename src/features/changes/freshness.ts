/**
 * Which files of a worktree may have changed since they were last read, without git: a stat each.
 * A file written after its read has a later modification (or status change) time; a file created or
 * deleted since changes its folder's. A second of slack covers file systems with coarse times.
 */
import { statSync } from 'node:fs';
import { dirname, join } from 'node:path';

const SLACK_MS = 1_000;

function statOf(path: string): { mtimeMs: number; ctimeMs: number } | null {
  try {
    return statSync(path, { throwIfNoEntry: false }) ?? null;
  } catch {
    return null;
  }
}

/** The nearest folder above `path` (inside `root`) that exists, or `root`. */
function nearestFolder(root: string, path: string): string {
  for (let dir = dirname(path); ; dir = dirname(dir)) {
    if (dir === '.' || dir === '/' || dir === '') return root;
    if (statOf(join(root, dir))) return join(root, dir);
  }
}

/**
 * The paths among `paths` (relative to `worktree`) that may have changed since `readAt(path)` (ms;
 * when the read of that file began).
 */
export function staleAmong(worktree: string, paths: string[], readAt: (path: string) => number): string[] {
  return paths.filter((path) => {
    const since = readAt(path) - SLACK_MS;
    const st = statOf(join(worktree, path));
    if (st) return st.mtimeMs >= since || st.ctimeMs >= since;
    const folder = statOf(nearestFolder(worktree, path));
    return folder === null || folder.mtimeMs >= since || folder.ctimeMs >= since;
  });
}
