import { gitOutput } from './git.js';

export interface WorkingTreeChanges {
  /** Tracked files with changes, staged or not (both sides of a rename). */
  tracked: string[];
  /** Untracked files (not ignored). */
  untracked: string[];
}

/**
 * The uncommitted changes of a worktree, relative to its root, from `git status --porcelain -z`.
 * Throws when `git` is missing or the folder is no git worktree.
 */
export function workingTreeChanges(worktree: string, timeoutMs = 5000): WorkingTreeChanges {
  // Without the index written back (a refresh under its lock): a user's `git commit` at that moment
  // would fail on the lock.
  const out = gitOutput(
    worktree,
    ['--no-optional-locks', 'status', '--porcelain=v1', '-z', '--untracked-files=all'],
    timeoutMs,
  );
  const tracked: string[] = [];
  const untracked: string[] = [];
  const entries = out.split('\0');
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i]!;
    if (entry.length < 4) continue;
    const status = entry.slice(0, 2);
    const path = entry.slice(3);
    if (status === '??') untracked.push(path);
    else if (status !== '!!') {
      tracked.push(path);
      // A rename or copy is followed by its source path.
      if (status[0] === 'R' || status[0] === 'C') {
        const from = entries[++i];
        if (from) tracked.push(from);
      }
    }
  }
  return { tracked, untracked };
}

/** The files git tracks in a worktree (its index), relative to the root; at most `limit` of them. */
export function trackedFiles(worktree: string, limit: number, timeoutMs = 5000): string[] {
  const out = gitOutput(worktree, ['ls-files', '-z'], timeoutMs);
  const files: string[] = [];
  let start = 0;
  while (files.length < limit) {
    const end = out.indexOf('\0', start);
    if (end === -1) break;
    if (end > start) files.push(out.slice(start, end));
    start = end + 1;
  }
  return files;
}

/** The files staged for the next commit (added, copied, modified, renamed, deleted). */
export function stagedFiles(worktree: string, timeoutMs = 5000): string[] {
  const out = gitOutput(worktree, ['diff', '--cached', '--name-only', '-z', '--no-renames'], timeoutMs);
  return out.split('\0').filter((p) => p.length > 0);
}

/** Whether git ignores a path of a worktree (`.gitignore` and the rest); false when it cannot tell. */
export function gitIgnores(worktree: string, path: string, timeoutMs = 2000): boolean {
  try {
    gitOutput(worktree, ['check-ignore', '-q', '--', path], timeoutMs);
    return true; // exit 0: ignored
  } catch {
    return false; // exit 1 (not ignored), or no repository, or no git
  }
}
