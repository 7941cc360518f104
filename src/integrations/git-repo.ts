import { existsSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';

export interface ProjectLocation {
  /** Stable key of the project: the git common dir (shared by all worktrees), or the folder. */
  key: string;
  kind: 'git' | 'dir';
  /** Root of this worktree (or the folder): claim paths are relative to it. */
  worktree: string;
  branch: string | null;
}

/**
 * Finds the project a folder belongs to by reading `.git` directly (no `git` process): a `.git`
 * folder is a main worktree, a `.git` file points to a linked worktree whose `commondir` names the
 * shared repository.
 */
export function locateProject(folder: string): ProjectLocation {
  let dir: string;
  try {
    dir = realpathSync(resolve(folder));
  } catch {
    throw new Error(`Folder ${folder} does not exist.`);
  }
  if (!statSync(dir).isDirectory()) throw new Error(`${folder} is not a folder.`);
  for (let current = dir; ; current = dirname(current)) {
    const dotGit = join(current, '.git');
    if (existsSync(dotGit)) {
      const gitDir = statSync(dotGit).isDirectory() ? dotGit : readGitFile(dotGit, current);
      if (gitDir) {
        return { key: commonDir(gitDir), kind: 'git', worktree: current, branch: readBranch(gitDir) };
      }
    }
    if (dirname(current) === current) break;
  }
  return { key: dir, kind: 'dir', worktree: dir, branch: null };
}

function readGitFile(file: string, worktree: string): string | null {
  const match = /^gitdir:\s*(.+)$/m.exec(readFileSync(file, 'utf8'));
  if (!match) return null;
  const target = match[1]!.trim();
  return isAbsolute(target) ? target : resolve(worktree, target);
}

function commonDir(gitDir: string): string {
  const file = join(gitDir, 'commondir');
  const target = existsSync(file) ? readFileSync(file, 'utf8').trim() : '.';
  const dir = isAbsolute(target) ? target : resolve(gitDir, target);
  try {
    return realpathSync(dir);
  } catch {
    return dir;
  }
}

function readBranch(gitDir: string): string | null {
  try {
    const head = readFileSync(join(gitDir, 'HEAD'), 'utf8').trim();
    const ref = /^ref:\s*refs\/heads\/(.+)$/.exec(head);
    return ref ? ref[1]! : `(detached ${head.slice(0, 12)})`;
  } catch {
    return null;
  }
}
