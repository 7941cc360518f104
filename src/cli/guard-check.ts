import { CoreApp } from '../app/core-app.js';
import { describePredictions } from '../features/changes/prediction-text.js';
import { describeFences } from '../features/claims/claim-fences.js';
import type { Viewpoint } from '../features/claims/claim-types.js';
import { shellClientSessionId } from '../integrations/client-env.js';
import { stagedFiles } from '../integrations/git-status.js';
import { clientProcess } from '../integrations/process-tree.js';

export const BYPASS = 'Commit anyway with `git commit --no-verify` (or SESSION_COLLAB_GUARD=off git commit).';

/**
 * What the commit's worktree changed is read again, and what will conflict when it merges with
 * another live session's uncommitted changes is said (the commit goes ahead: merging is later).
 */
async function warnOfMerges(app: CoreApp, viewer: Viewpoint, staged: string[]): Promise<void> {
  const { conflicts } = await app.changes.predictWorktree(viewer, staged);
  const merging = conflicts.filter((c) => c.level === 'textual' || c.level === 'file');
  if (merging.length > 0) process.stderr.write(`session-collab: note — ${describePredictions(merging, 0)}\n`);
}

/**
 * `session-collab guard check`, run by the pre-commit hook: refuses (exit 1) a commit whose staged
 * files (or, for a symbol held, the symbol) another live session holds, and a session's commit of
 * files it held, lost, and another session claimed since (until it claims them again). The
 * committing session's own claims do not count; a person committing outside any session sees every
 * session's. If the check itself fails, the commit
 * goes ahead with a warning: a broken guard must not stop all work.
 */
export async function guardCheck(): Promise<void> {
  if (process.env.SESSION_COLLAB_GUARD === 'off') return;
  let app: CoreApp | undefined;
  try {
    const cwd = process.cwd();
    const staged = stagedFiles(cwd);
    if (staged.length === 0) return;
    app = await CoreApp.open({ busyTimeoutMs: 3000 });
    const identity = { sessionId: shellClientSessionId(process.env), process: clientProcess() };
    const viewer = await app.enforcement.viewpointFor(identity, cwd);
    if (!viewer) return;
    const claimed = await app.enforcement.checkPaths(
      viewer,
      staged,
      viewer.worktree,
      'This commit',
      'person',
    );
    // A symbol held, or another session's edits: only what this commit's branch changes counts.
    const verdict = await app.enforcement.narrowToCommit(viewer, claimed, 'This commit');
    const fences = await app.enforcement.fences(viewer, staged);
    if (!verdict.reason && fences.length === 0) {
      for (const note of verdict.notes) process.stderr.write(`session-collab: note — ${note}\n`);
      await warnOfMerges(app, viewer, staged);
      return;
    }
    app.log.info('guard.refused', {
      session: viewer.id,
      files: [...new Set(verdict.conflicts.map((c) => c.file))],
      fenced: fences.map((f) => f.file),
    });
    const reasons = [verdict.reason, fences.length > 0 ? describeFences(fences) : null].filter(Boolean);
    process.stderr.write(`${reasons.join('\n')}\nThe commit was refused. ${BYPASS}\n`);
    process.exitCode = 1;
  } catch (error) {
    process.stderr.write(
      `session-collab guard: could not check this commit (${(error as Error).message}); letting it through.\n`,
    );
    app?.log.error('guard.failed', { message: (error as Error).message });
  } finally {
    await app?.close();
  }
}
