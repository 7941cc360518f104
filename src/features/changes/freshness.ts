/**
 * Which files of a worktree may have changed since they were last read, without git: a stat each.
 * A file written after its read has a later modification (or status change) time; a file created or
 * deleted since changes its folder's. Times in whole seconds (a file system with coarse times, or a
 * write that fell on a second) get two seconds of slack; finer ones a little, since the kernel stamps
 * files from a clock that ticks every few milliseconds (a write just after a read may carry a time
 * just before it).
 */
import { lstatSync } from 'node:fs';
import { dirname, join } from 'node:path';

const COARSE_SLACK_MS = 2_000;
const FINE_SLACK_MS = 50;

/** Whether a stat's times are later than `since` (ms), allowing for coarse times. */
function after(st: { mtimeMs: number; ctimeMs: number }, since: number): boolean {
  return [st.mtimeMs, st.ctimeMs].some(
    (t) => t >= since - (t % 1000 === 0 ? COARSE_SLACK_MS : FINE_SLACK_MS),
  );
}

type Stat = { mtimeMs: number; ctimeMs: number } | null;

/**
 * Stats taken while judging several sessions at once, by absolute path (and by worktree and path,
 * `changeStat`): sessions working in one folder have the same files, stat once.
 */
export type Stats = Map<string, Stat>;

function statOf(path: string, stats: Stats): Stat {
  let st = stats.get(path);
  if (st !== undefined) return st;
  try {
    // The entry itself, as git sees it: a symlink's own time, not the time of what it names.
    st = lstatSync(path, { throwIfNoEntry: false }) ?? null;
  } catch {
    st = null;
  }
  stats.set(path, st);
  return st;
}

/** The nearest folder above `path` (inside `root`) that exists, or `root`. */
function nearestFolder(root: string, path: string, stats: Stats): string {
  for (let dir = dirname(path); ; dir = dirname(dir)) {
    if (dir === '.' || dir === '/' || dir === '') return root;
    if (statOf(join(root, dir), stats)) return join(root, dir);
  }
}

/**
 * What tells whether a file of a worktree changed: its stat, or where it does not exist, its
 * nearest existing folder's (null: not even that). Kept in `stats` by worktree and path, since
 * sessions of one worktree are judged on the same files.
 */
function changeStat(worktree: string, path: string, stats: Stats): Stat {
  const key = `${worktree}\0${path}`;
  let st = stats.get(key);
  if (st !== undefined) return st;
  st = statOf(join(worktree, path), stats) ?? statOf(nearestFolder(worktree, path, stats), stats);
  stats.set(key, st);
  return st;
}

/**
 * The paths among `paths` (relative to `worktree`) that may have changed since `readAt(path)` (ms;
 * when the read of that file began). `stats`: those already taken in this look (see `Stats`).
 */
export function staleAmong(
  worktree: string,
  paths: string[],
  readAt: (path: string) => number,
  stats: Stats = new Map(),
): string[] {
  return paths.filter((path) => {
    const st = changeStat(worktree, path, stats);
    return st === null || after(st, readAt(path));
  });
}
