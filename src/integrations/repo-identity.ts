import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import { normaliseRemoteUrl } from '../core/repo-url.js';
import { parseGitConfig, remotesOf } from './git-config.js';
import { runProgram } from './run-program.js';

/**
 * Which repository a git folder holds, by evidence that survives cloning, so that every worktree,
 * clone, container and machine of one repository is one project (README, "One repository, one
 * project"). In order:
 *
 * 1. `project: <name>` in `.session-collab.yaml` at the worktree's root: `name:<name>` (a monorepo
 *    split in two, a fork or a mirror that should join its upstream).
 * 2. A remote: the one named `upstream` (a fork's clone joins the repository it was forked from),
 *    else `origin`, else the first in the config: its URL made equal however it is spelled
 *    (`core/repo-url.ts`), `git:github.com/acme/api`. A remote that is a folder on this machine is
 *    followed to that repository, which is named by the same rules (three steps at most).
 * 3. The root commit of HEAD's first-parent history: `root:<sha>` (one `git` process, then kept in
 *    a cache file per repository).
 * 4. Nothing that survives cloning (no commit yet, or a shallow clone without a remote): the git
 *    folder's path, as for a folder outside git. A repository's first commit moves it to rule 3;
 *    its sessions and claims go with it (`ProjectsStore.ensure`).
 */
export interface RepoIdentity {
  /** The project's key (`projects.root`). */
  key: string;
  /** What a person calls it: `github.com/acme/api`, the project's name, or the folder's name. */
  label: string;
  source: 'name' | 'remote' | 'root' | 'path';
}

/** Where root commits found by `git` are kept, so that only the first hook of a repository pays. */
export interface IdentityCache {
  file: string;
}

const MAX_FOLLOWED = 3;
const MAX_CACHED = 500;
const ROOT_COMMIT_TIMEOUT_MS = 5_000;

/** The identity of the repository whose common git folder is `commonDir`, checked out at `worktree`. */
export function repoIdentity(commonDir: string, worktree: string, cache?: IdentityCache): RepoIdentity {
  const named = projectNameIn(worktree);
  if (named) return { key: `name:${named}`, label: named, source: 'name' };
  return (
    identityOf(commonDir, worktree, cache, 0) ?? { key: commonDir, label: basename(worktree), source: 'path' }
  );
}

function identityOf(
  commonDir: string,
  worktree: string,
  cache: IdentityCache | undefined,
  depth: number,
): RepoIdentity | null {
  const remote = namingRemote(commonDir)?.url ?? null;
  if (remote) {
    const normal = normaliseRemoteUrl(remote);
    if (normal) return { key: `git:${normal}`, label: normal, source: 'remote' };
    if (depth < MAX_FOLLOWED) {
      const target = gitDirAt(localPath(remote, worktree));
      if (target && target !== commonDir) {
        const followed = identityOf(target, dirname(target), cache, depth + 1);
        if (followed && followed.source !== 'path') return followed;
      }
    }
  }
  const root = rootCommit(commonDir, cache);
  return root ? { key: `root:${root}`, label: basename(worktree), source: 'root' } : null;
}

/** The remote that names the repository: `upstream`, else `origin`, else the first in the config. */
export function namingRemote(commonDir: string): { name: string; url: string } | null {
  let text: string;
  try {
    text = readFileSync(join(commonDir, 'config'), 'utf8');
  } catch {
    return null;
  }
  const remotes = remotesOf(parseGitConfig(text));
  return (
    remotes.find((r) => r.name === 'upstream') ??
    remotes.find((r) => r.name === 'origin') ??
    remotes[0] ??
    null
  );
}

function localPath(url: string, worktree: string): string {
  const path = url.startsWith('file://') ? decodeURIComponent(url.slice('file://'.length)) : url;
  return isAbsolute(path) ? path : resolve(worktree, path);
}

/** The git folder at a path: the path itself when bare, else its `.git` folder; null if neither. */
function gitDirAt(path: string): string | null {
  for (const dir of [path, join(path, '.git'), `${path}.git`]) {
    if (existsSync(join(dir, 'HEAD')) && existsSync(join(dir, 'objects'))) return dir;
  }
  return null;
}

/** `project:` from `.session-collab.yaml` at the worktree's root, when it names one. */
function projectNameIn(worktree: string): string | null {
  const file = join(worktree, '.session-collab.yaml');
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return null;
  }
  let parsed: unknown;
  try {
    parsed = yaml().parse(text.slice(0, 64 * 1024));
  } catch (error) {
    throw new Error(`${file} is not valid YAML: ${(error as Error).message.split('\n')[0]}`);
  }
  const name = parsed && typeof parsed === 'object' ? (parsed as { project?: unknown }).project : undefined;
  if (name === undefined || name === null) return null;
  if (typeof name !== 'string' || name.trim() === '' || name.length > 200)
    throw new Error(`${file}: "project" must be a name of 1 to 200 characters.`);
  return name.trim();
}

/** The yaml package, loaded only where a `.session-collab.yaml` exists (hooks rarely meet one). */
function yaml(): typeof import('yaml') {
  const require = createRequire(typeof __filename === 'string' ? __filename : `${process.cwd()}/`);
  return require('yaml') as typeof import('yaml');
}

interface CachedRoot {
  root: string;
  /**
   * The repository's objects folder, by inode and birth time: a repository made anew at the same
   * path is another.
   */
  objects: string;
}

/** The root commit of HEAD's first-parent history, or null (no commit yet, shallow, no git). */
function rootCommit(commonDir: string, cache: IdentityCache | undefined): string | null {
  if (existsSync(join(commonDir, 'shallow'))) return null;
  let objects: string;
  try {
    const stat = statSync(join(commonDir, 'objects'));
    objects = `${stat.ino}:${Math.round(stat.birthtimeMs)}`;
  } catch {
    return null;
  }
  if (!mayHaveCommits(commonDir)) return null;
  const entries = cache ? readCache(cache.file) : {};
  const hit = entries[commonDir];
  if (hit && typeof hit.root === 'string' && /^[0-9a-f]{40,64}$/.test(hit.root) && hit.objects === objects)
    return hit.root;
  let root: string | null = null;
  try {
    const out = runProgram(
      'git',
      ['--git-dir', commonDir, 'rev-list', '--max-parents=0', '--first-parent', 'HEAD'],
      {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
        timeout: ROOT_COMMIT_TIMEOUT_MS,
      },
    );
    root = /^[0-9a-f]{40,64}$/m.exec(out)?.[0] ?? null;
  } catch {
    return null;
  }
  if (root && cache) {
    const kept = Object.entries(entries)
      .filter(([dir]) => dir !== commonDir)
      .slice(-(MAX_CACHED - 1));
    writeCache(cache.file, { ...Object.fromEntries(kept), [commonDir]: { root, objects } });
  }
  return root;
}

/**
 * Whether the repository may hold a commit: a detached HEAD, packed refs or a branch. A repository
 * just made by `git init` has none of these, and its hooks then start no `git` at all.
 */
function mayHaveCommits(commonDir: string): boolean {
  try {
    if (/^[0-9a-f]{40}/.test(readFileSync(join(commonDir, 'HEAD'), 'utf8'))) return true;
  } catch {
    return true;
  }
  if (existsSync(join(commonDir, 'packed-refs'))) return true;
  try {
    return readdirSync(join(commonDir, 'refs', 'heads')).length > 0;
  } catch {
    return true;
  }
}

function readCache(file: string): Record<string, CachedRoot> {
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as unknown;
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed)
      ? (parsed as Record<string, CachedRoot>)
      : {};
  } catch {
    return {};
  }
}

/** Written whole or not at all (a temporary file renamed over it): readers never see half a file. */
function writeCache(file: string, entries: Record<string, CachedRoot>): void {
  try {
    mkdirSync(dirname(file), { recursive: true });
    const temporary = `${file}.${process.pid}.tmp`;
    writeFileSync(temporary, JSON.stringify(entries));
    renameSync(temporary, file);
  } catch {
    // A cache that cannot be written costs the next process one `git` call, nothing more.
  }
}
