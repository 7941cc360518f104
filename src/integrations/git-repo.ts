import { existsSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { type IdentityCache, type RepoIdentity, repoIdentity } from './repo-identity.js';

/** A folder's place: the worktree it is in (or the folder itself, outside git). */
export interface FolderLocation {
  kind: 'git' | 'dir';
  /** Root of this worktree (or the folder): claim paths are relative to it. */
  worktree: string;
  branch: string | null;
  /** This worktree's own git folder (the folder itself outside git). */
  gitDir: string;
  /** The git folder all worktrees of this clone share (the folder itself outside git). */
  commonDir: string;
}

export interface ProjectLocation extends FolderLocation {
  /** The project's key: the repository's identity (`repo-identity.ts`), or the folder outside git. */
  key: string;
  /** What a person calls the project. */
  label: string;
  source: RepoIdentity['source'];
  /**
   * The key this place had when a project was its clone's git folder (before repositories were
   * named by what survives cloning): a project still under it is moved to `key`.
   */
  formerKey: string;
}

/**
 * Finds the worktree a folder is in by reading `.git` directly (no `git` process): a `.git`
 * folder is a main worktree, a `.git` file points to a linked worktree whose `commondir` names the
 * shared repository.
 */
export function locateFolder(folder: string): FolderLocation {
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
        return {
          kind: 'git',
          worktree: current,
          branch: readBranch(gitDir),
          gitDir,
          commonDir: commonDir(gitDir),
        };
      }
    }
    if (dirname(current) === current) break;
  }
  return { kind: 'dir', worktree: dir, branch: null, gitDir: dir, commonDir: dir };
}

/** A folder's project: its place, and the identity of the repository it is in. */
export function locateProject(folder: string, cache?: IdentityCache): ProjectLocation {
  const place = locateFolder(folder);
  if (place.kind === 'dir') {
    return {
      ...place,
      key: place.worktree,
      label: place.worktree,
      source: 'path',
      formerKey: place.worktree,
    };
  }
  const identity = repoIdentity(place.commonDir, place.worktree, cache);
  return { ...place, ...identity, formerKey: place.commonDir };
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
