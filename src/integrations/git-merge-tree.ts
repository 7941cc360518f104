/**
 * git's own merge of one file — ort, as `git merge` runs it (`git merge-tree --write-tree`) — for
 * two versions of it from one base: whether git stops on a conflict. The three versions become
 * blobs, one-file trees and commits in a temporary object folder that borrows the repository's
 * objects (`GIT_ALTERNATE_OBJECT_DIRECTORIES`) and is removed after: nothing is written to the
 * repository (no object, ref, index or worktree file). Six git processes.
 */
import { lstatSync, mkdtempSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { runProgramAsync } from './run-program.js';

/** The same author and dates every time: the commits are the same for the same versions. */
const IDENTITY = {
  GIT_AUTHOR_NAME: 'session-collab',
  GIT_AUTHOR_EMAIL: 'session-collab@localhost',
  GIT_AUTHOR_DATE: '1700000000 +0000',
  GIT_COMMITTER_NAME: 'session-collab',
  GIT_COMMITTER_EMAIL: 'session-collab@localhost',
  GIT_COMMITTER_DATE: '1700000000 +0000',
};

/**
 * Whether git's merge of the files `ours` and `theirs` (paths on disk) of `path` (relative to the
 * root: its name decides the merge attributes that apply) from the blob `baseBlob` (null: the base
 * has no such file) stops on a conflict; null when git could not tell. `objects` is the
 * repository's object folder, `cwd` its worktree.
 */
export async function mergeConflicts(
  cwd: string,
  objects: string,
  path: string,
  baseBlob: string | null,
  ours: string,
  theirs: string,
): Promise<boolean | null> {
  const scratch = mkdtempSync(join(tmpdir(), 'collab-merge-'));
  const env = {
    ...process.env,
    ...IDENTITY,
    GIT_OBJECT_DIRECTORY: scratch,
    GIT_ALTERNATE_OBJECT_DIRECTORIES: objects,
  };
  const git = (args: string[], input?: string) =>
    runProgramAsync('git', args, {
      cwd,
      encoding: 'utf8',
      ...(input === undefined ? {} : { input }),
      timeout: 5_000,
      maxBuffer: 16 * 1024 * 1024,
      env,
    });
  // A link's content is the path it names, as git commits it: hash-object would read what it names
  // (a pipe that never ends, a file outside the repository). Its text, in a file of the scratch.
  const asCommitted = (file: string, name: string) => {
    try {
      if (!lstatSync(file).isSymbolicLink()) return file;
    } catch {
      return file;
    }
    const copy = join(scratch, name);
    writeFileSync(copy, readlinkSync(file));
    return copy;
  };
  try {
    const [oursBlob, theirsBlob] = (
      await git([
        'hash-object',
        '-w',
        '--no-filters',
        '--',
        asCommitted(ours, 'ours'),
        asCommitted(theirs, 'theirs'),
      ])
    )
      .trim()
      .split('\n');
    // One level of tree: the file by its own name (attributes such as `CHANGELOG.md merge=union` or
    // `*.lock -merge` apply; one written for its folder, `src/*.ts`, does not).
    const name = basename(path);
    const entry = (blob: string | null | undefined) => (blob ? `100644 blob ${blob}\t${name}\n` : '');
    const [baseTree, oursTree, theirsTree] = (
      await git(['mktree', '--batch'], `${entry(baseBlob)}\n${entry(oursBlob)}\n${entry(theirsBlob)}`)
    )
      .trim()
      .split('\n');
    const commit = async (tree: string | undefined, ...parents: string[]) =>
      (await git(['commit-tree', tree!, ...parents.flatMap((p) => ['-p', p]), '-m', 'version'])).trim();
    const base = await commit(baseTree);
    const merged = await Promise.all([commit(oursTree, base), commit(theirsTree, base)]);
    try {
      await git(['merge-tree', '--write-tree', '--name-only', ...merged]);
      return false;
    } catch (error) {
      // Exit status 1: the merge stopped on conflicts; anything else: git could not merge.
      return (error as { code?: unknown }).code === 1 ? true : null;
    }
  } catch {
    return null;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
