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

/** Files settled by git in one answer, at most (each runs git six times); those settled before are free. */
export const SETTLED_PER_ANSWER = 5;

/**
 * What git's merge said of a file's three versions, by path and blobs: the same versions merge the
 * same way, so a check asked again while neither copy changed runs no git (every check of two
 * copies that meet in a file ran git thirty times). Bounded: past it, forgotten and kept anew.
 */
const merged = new Map<string, boolean>();
const MERGED_KEPT = 2_000;

/** The versions a settled file is known by: its base and the two copies' blobs as their reads recorded them. */
export interface Versions {
  base: string | null;
  ours: string | null;
  theirs: string | null;
}

/**
 * `p` as git's merge of the two copies' files settles it (`git` says which way), or `p` itself
 * when there is nothing to settle or git cannot tell (a copy gone, a binary file), or null when git
 * merges cleanly and no symbol is shared.
 */
export async function settleWithGit(
  p: FilePrediction,
  versions: Versions,
  ours: LocalCopy,
  theirs: LocalCopy,
): Promise<Settled> {
  return (await settled(p, versions, ours, theirs, true))!;
}

type Settled = (FilePrediction & { git?: 'conflicts' | 'merges' }) | null;

/**
 * Settles the predictions of one answer: those settled before from what git said then, git run
 * for the first `budget` of the others; the rest stay as predicted.
 */
export function settlerFor(
  budget = SETTLED_PER_ANSWER,
): (p: FilePrediction, versions: Versions, ours: LocalCopy, theirs: LocalCopy) => Promise<Settled> {
  let left = budget;
  return async (p, versions, ours, theirs) => {
    const known = await settled(p, versions, ours, theirs, false);
    if (known !== undefined) return known;
    if (left <= 0) return p;
    left--;
    return settleWithGit(p, versions, ours, theirs);
  };
}

/** As `settleWithGit`; undefined where git would have to run and `run` is false. */
async function settled(
  p: FilePrediction,
  versions: Versions,
  ours: LocalCopy,
  theirs: LocalCopy,
  run: boolean,
): Promise<Settled | undefined> {
  if (p.level !== 'textual') return p;
  const place = locateFolder(ours.worktree);
  if (place.kind !== 'git') return p;
  const key =
    versions.ours && versions.theirs
      ? `${place.commonDir}\0${p.path}\0${versions.base}\0${versions.ours}\0${versions.theirs}`
      : null;
  let conflicts = key === null ? undefined : merged.get(key);
  if (conflicts === undefined) {
    if (!run) return undefined;
    const found = await mergeConflicts(
      place.worktree,
      join(place.commonDir, 'objects'),
      p.path,
      versions.base,
      join(ours.worktree, p.path),
      join(theirs.worktree, p.path),
    );
    if (found === null) return p;
    if (key !== null) {
      if (merged.size >= MERGED_KEPT) merged.clear();
      merged.set(key, found);
    }
    conflicts = found;
  }
  if (conflicts) return { ...p, git: 'conflicts' };
  return p.symbols.length === 0 ? null : { ...p, level: 'symbol', git: 'merges' };
}
