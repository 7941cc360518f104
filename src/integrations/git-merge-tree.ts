/**
 * git's own merge of one file — ort, as `git merge` runs it (`git merge-tree --write-tree`) — for
 * two versions of it from one base: whether git stops on a conflict. The three versions become
 * objects of the repository at `cwd` (blobs, one-file trees and commits, always the same for the
 * same texts; no ref, index or worktree is touched, and git's gc prunes them): six git processes.
 */
import { runProgram } from './run-program.js';

/** The same author and dates every time, so the same versions make the same commits. */
const IDENTITY = {
  GIT_AUTHOR_NAME: 'session-collab',
  GIT_AUTHOR_EMAIL: 'session-collab@localhost',
  GIT_AUTHOR_DATE: '1700000000 +0000',
  GIT_COMMITTER_NAME: 'session-collab',
  GIT_COMMITTER_EMAIL: 'session-collab@localhost',
  GIT_COMMITTER_DATE: '1700000000 +0000',
};

function git(cwd: string, args: string[], input?: string): string {
  return runProgram('git', args, {
    cwd,
    encoding: 'utf8',
    input,
    stdio: ['pipe', 'pipe', 'pipe'],
    timeout: 5_000,
    maxBuffer: 16 * 1024 * 1024,
    env: { ...process.env, ...IDENTITY },
  });
}

/**
 * Whether git's merge of the files `ours` and `theirs` (paths on disk) from the blob `baseBlob`
 * (null: the base has no such file) stops on a conflict; null when git could not tell.
 */
export function mergeConflicts(
  cwd: string,
  baseBlob: string | null,
  ours: string,
  theirs: string,
): boolean | null {
  try {
    const [oursBlob, theirsBlob] = git(cwd, ['hash-object', '-w', '--no-filters', '--', ours, theirs])
      .trim()
      .split('\n');
    const entry = (blob: string | null | undefined) => (blob ? `100644 blob ${blob}\tfile\n` : '');
    const [baseTree, oursTree, theirsTree] = git(
      cwd,
      ['mktree', '--batch'],
      `${entry(baseBlob)}\n${entry(oursBlob)}\n${entry(theirsBlob)}`,
    )
      .trim()
      .split('\n');
    const commit = (tree: string | undefined, ...parents: string[]) =>
      git(cwd, ['commit-tree', tree!, ...parents.flatMap((p) => ['-p', p]), '-m', 'version']).trim();
    const base = commit(baseTree);
    const merged = [commit(oursTree, base), commit(theirsTree, base)];
    try {
      git(cwd, ['merge-tree', '--write-tree', '--name-only', ...merged]);
      return false;
    } catch (error) {
      // Exit status 1: the merge stopped on conflicts; anything else: git could not merge.
      return (error as { status?: number | null }).status === 1 ? true : null;
    }
  } catch {
    return null;
  }
}
