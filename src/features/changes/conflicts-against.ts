/**
 * One set of changes compared with every other live session's recorded changes in a repository:
 * the conflicts they will meet when they merge, in the shape a check answers with. Files of other
 * copies on this machine are settled by git's own merge (`git-settled.ts`).
 */
import type { AppContext } from '../../app/context.js';
import type { FileChange } from '../../core/hunks.js';
import { LIMITS } from '../../core/limits.js';
import { type FilePrediction, predictChanges, semanticPredictions } from '../../core/merge-prediction.js';
import type { SessionRow } from '../../store/sessions-store.js';
import { stateOf } from '../sessions/liveness.js';
import { type LocalCopy, settlerFor } from './git-settled.js';
import type { PredictedConflict } from './prediction-types.js';
import { semanticView, view } from './prediction-types.js';

/** A session's worktree, when it is on this machine (git can read it). */
export function copyOf(app: AppContext, session: Pick<SessionRow, 'host' | 'worktree'>): LocalCopy | null {
  return session.host === app.host ? { worktree: session.worktree } : null;
}

/**
 * `mine` against every other live session's recorded changes (not `skip`, nor of `worktree`):
 * first `LIMITS.listedConflicts` of the conflicts, and how many more. With `copy`, the caller's
 * worktree on this machine.
 */
export async function conflictsAgainst(
  app: AppContext,
  mine: FileChange[],
  projectId: string,
  skip: Set<string>,
  worktree: string | null,
  copy: LocalCopy | null,
): Promise<{ conflicts: PredictedConflict[]; more: number }> {
  const { store } = app;
  const others = await store.changes.othersTouching(
    projectId,
    null,
    mine.map((f) => f.path),
  );
  const byPath = new Map(mine.map((f) => [f.path, f]));
  const all: PredictedConflict[] = [];
  const settle = settlerFor();
  for (const [otherId, files] of others) {
    if (skip.has(otherId)) continue;
    const other = await store.sessions.get(otherId);
    if (!other || stateOf(app, other) !== 'active') continue;
    if (worktree !== null && other.worktree === worktree && other.host === app.host) continue;
    const local = copy !== null && other.host === app.host;
    const theirs = new Map(files.map((f) => [f.path, f]));
    for (const predicted of predictChanges(mine, files)) {
      const versions = {
        base: byPath.get(predicted.path)?.baseBlob ?? null,
        ours: byPath.get(predicted.path)?.newBlob ?? null,
        theirs: theirs.get(predicted.path)?.newBlob ?? null,
      };
      const p = local ? await settle(predicted, versions, copy, other) : predicted;
      if (p) all.push(entry(other, p));
    }
  }
  // The conflicts git cannot see: an interface one side changed, used by the other's new code.
  if (mine.some((f) => f.interface?.length || f.uses?.length)) {
    for (const [otherId, files] of await store.changes.semanticOthers(projectId, null)) {
      if (skip.has(otherId)) continue;
      const other = await store.sessions.get(otherId);
      if (!other || stateOf(app, other) !== 'active') continue;
      if (worktree !== null && other.worktree === worktree && other.host === app.host) continue;
      for (const p of semanticPredictions(mine, files)) all.push(entry(other, p));
    }
  }
  return {
    conflicts: all.slice(0, LIMITS.listedConflicts),
    more: Math.max(0, all.length - LIMITS.listedConflicts),
  };
}

/** A prediction against another side (a session; or landed work, named by who landed it) as a check gives it. */
export function entry(
  other: { id: string; name: string },
  p: FilePrediction & { git?: 'conflicts' | 'merges' },
): PredictedConflict {
  return {
    session_id: other.id,
    session_name: other.name,
    level: p.level,
    file: p.path,
    // A name from the other's code (a nesting thousands deep names thousands of levels): bounded,
    // as a claimed symbol is.
    symbols: p.symbols
      .slice(0, LIMITS.listedConflicts)
      .map((s) => (s.length > 200 ? `${s.slice(0, 199)}…` : s)),
    ours: p.ours.map(view),
    theirs: p.theirs.map(view),
    ...(p.why ? { why: p.why } : {}),
    ...(p.git ? { git: p.git } : {}),
    ...(p.semantic ? { semantic: semanticView(p.semantic) } : {}),
  };
}
