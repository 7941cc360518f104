import { existsSync } from 'node:fs';
import { git, tryGit } from './git.js';
import { workingTreeChanges } from './git-status.js';

function branchExists(repo: string, branch: string): boolean {
  return tryGit(repo, 'rev-parse', '--verify', '--quiet', `refs/heads/${branch}`) !== null;
}

/** The branch others merge into: configured, else origin's HEAD, else main or master. */
export function defaultBranch(repo: string, configured: string | null): string {
  if (configured) return configured;
  const remote = tryGit(repo, 'symbolic-ref', '--short', 'refs/remotes/origin/HEAD');
  if (remote) return remote.replace(/^origin\//, '');
  for (const candidate of ['main', 'master', 'trunk']) if (branchExists(repo, candidate)) return candidate;
  return tryGit(repo, 'rev-parse', '--abbrev-ref', 'HEAD') ?? 'main';
}

/** Creates (or finds) a worktree of `repo` at `path` on `branch`, creating the branch if needed. */
export function ensureWorktree(repo: string, path: string, branch: string): 'created' | 'existing' {
  if (existsSync(path)) {
    const current = tryGit(path, 'rev-parse', '--abbrev-ref', 'HEAD');
    if (current === branch) return 'existing';
    throw new Error(`${path} exists and is not a worktree on ${branch}`);
  }
  if (branchExists(repo, branch)) git(repo, 'worktree', 'add', '--quiet', path, branch);
  else git(repo, 'worktree', 'add', '--quiet', '-b', branch, path);
  return 'created';
}

/** Where a branch is checked out (the repo itself or one of its worktrees), if anywhere. */
export function worktreeOf(repo: string, branch: string): string | null {
  const list = tryGit(repo, 'worktree', 'list', '--porcelain');
  if (!list) return null;
  let path: string | null = null;
  for (const line of list.split('\n')) {
    if (line.startsWith('worktree ')) path = line.slice('worktree '.length);
    if (line === `branch refs/heads/${branch}` && path) return path;
  }
  return null;
}

export interface BranchStatus {
  branch: string;
  base: string;
  worktree: string | null;
  uncommitted: number;
  ahead: number;
  /** Pushed: it has an upstream and no commits the upstream lacks. */
  pushed: boolean;
  upstream: string | null;
}

export function branchStatus(repo: string, branch: string, base: string): BranchStatus {
  const worktree = worktreeOf(repo, branch);
  let uncommitted = 0;
  if (worktree) {
    const changes = workingTreeChanges(worktree);
    uncommitted = new Set([...changes.tracked, ...changes.untracked]).size;
  }
  const ahead = Number(tryGit(repo, 'rev-list', '--count', `${base}..${branch}`) ?? 0);
  const upstream = tryGit(repo, 'rev-parse', '--abbrev-ref', `${branch}@{upstream}`);
  const unpushed = upstream
    ? Number(tryGit(repo, 'rev-list', '--count', `${upstream}..${branch}`) ?? 1)
    : null;
  return { branch, base, worktree, uncommitted, ahead, pushed: unpushed === 0, upstream };
}

export function currentBranch(path: string): string | null {
  return tryGit(path, 'rev-parse', '--abbrev-ref', 'HEAD');
}
