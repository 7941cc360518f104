/**
 * Where both copies of a file are on this machine, git's own merge of them (`git merge-tree`, the
 * ort merge `git merge` runs) settles a `textual` prediction: it stands when git stops on a
 * conflict, and becomes at most a `symbol` overlap when git merges. Hunks alone decide between
 * machines (and for the other levels: hunks that do not meet are merged by git too).
 */
import { join } from 'node:path';
import type { FilePrediction } from '../../core/merge-prediction.js';
import { mergeConflicts } from '../../integrations/git-merge-tree.js';
import { locateFolder } from '../../integrations/git-repo.js';

/** A copy of the repository on this machine: its worktree. */
export interface LocalCopy {
  worktree: string;
}

/** Files settled by git in one answer, at most (each runs git six times). */
export const SETTLED_PER_ANSWER = 5;

/**
 * `p` as git's merge of the two copies' files settles it (`git` says which way), or `p` itself
 * when there is nothing to settle or git cannot tell (a copy gone, a binary file), or null when git
 * merges cleanly and no symbol is shared.
 */
export async function settleWithGit(
  p: FilePrediction,
  baseBlob: string | null,
  ours: LocalCopy,
  theirs: LocalCopy,
): Promise<(FilePrediction & { git?: 'conflicts' | 'merges' }) | null> {
  if (p.level !== 'textual') return p;
  const place = locateFolder(ours.worktree);
  if (place.kind !== 'git') return p;
  const conflicts = await mergeConflicts(
    place.worktree,
    join(place.commonDir, 'objects'),
    p.path,
    baseBlob,
    join(ours.worktree, p.path),
    join(theirs.worktree, p.path),
  );
  if (conflicts === null) return p;
  if (conflicts) return { ...p, git: 'conflicts' };
  return p.symbols.length === 0 ? null : { ...p, level: 'symbol', git: 'merges' };
}
