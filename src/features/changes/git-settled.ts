/**
 * Where both copies of a file are on this machine, git's own three-way merge of them settles what
 * their hunks predict: `textual` when git stops on a conflict, at most a `symbol` overlap when it
 * merges. Hunks alone decide between machines.
 */
import { join } from 'node:path';
import type { FilePrediction } from '../../core/merge-prediction.js';
import { gitOutput } from '../../integrations/git.js';
import { mergeConflicts } from '../../integrations/git-merge-file.js';

/** A copy of the repository on this machine: its worktree. */
export interface LocalCopy {
  worktree: string;
}

/** Files settled by git in one answer, at most (each runs git twice). */
export const SETTLED_PER_ANSWER = 10;

/**
 * `p` as git's merge of the two copies' files settles it (`git` says which way), or `p` itself
 * when git cannot tell (a different base, a file compared as a whole, a copy gone), or null when git
 * merges cleanly and no symbol is shared.
 */
export function settleWithGit(
  p: FilePrediction,
  baseBlob: string | null,
  ours: LocalCopy,
  theirs: LocalCopy,
): (FilePrediction & { git?: 'conflicts' | 'merges' }) | null {
  if (p.level !== 'textual' && p.level !== 'symbol') return p;
  let base = '';
  if (baseBlob !== null) {
    try {
      base = gitOutput(ours.worktree, ['cat-file', 'blob', baseBlob], 5_000);
    } catch {
      return p;
    }
  }
  const conflicts = mergeConflicts(base, join(ours.worktree, p.path), join(theirs.worktree, p.path));
  if (conflicts === null) return p;
  if (conflicts > 0) return { ...p, level: 'textual', git: 'conflicts' };
  if (p.symbols.length === 0) return null;
  return { ...p, level: 'symbol', git: 'merges' };
}
