/**
 * The git side of landing (`features/landing/`): a copy's state, its target fetched, the work
 * replayed on it in a scratch worktree (never the agent's own), and the target moved only from
 * the commit it was replayed on (compare-and-swap: a push with a lease, or a fast-forward).
 */

import {
  closeSync,
  constants,
  existsSync,
  fstatSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  rmSync,
} from 'node:fs';
import { join } from 'node:path';
import { isBranchName } from '../core/branch-name.js';
import { gitWords } from './git.js';
import { parseGitConfig, remotesOf } from './git-config.js';
import { readRef } from './git-refs.js';
import { locateFolder } from './git-repo.js';

/** git run for landing: no hooks of the repository (the project's check is `land.check`), no signing. */
const QUIET = [
  '-c',
  'core.hooksPath=/dev/null',
  '-c',
  'commit.gpgSign=false',
  '-c',
  'advice.detachedHead=false',
];
const TIMEOUT_MS = 60_000;
/** What may take long: a first fetch, a worktree of a large repository (LFS), a long replay. */
const LONG_TIMEOUT_MS = 10 * 60_000;

/** A conflicted file larger than this is not read for its markers. */
const CONFLICT_BYTES = 2 * 1024 * 1024;

/** The committer git records when the repository names none (a CI machine, a fresh container). */
const FALLBACK_COMMITTER = {
  GIT_COMMITTER_NAME: 'session-collab',
  GIT_COMMITTER_EMAIL: 'session-collab@localhost',
};

/**
 * The environment git runs in: the process's, without what would point git at another repository
 * or index (a hook's `GIT_DIR`, `GIT_INDEX_FILE`…), and never waiting for a password at a prompt.
 */
function gitEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, GIT_TERMINAL_PROMPT: '0', ...extra };
  for (const key of [
    'GIT_DIR',
    'GIT_WORK_TREE',
    'GIT_INDEX_FILE',
    'GIT_COMMON_DIR',
    'GIT_OBJECT_DIRECTORY',
    'GIT_ALTERNATE_OBJECT_DIRECTORIES',
    'GIT_PREFIX',
  ])
    delete env[key];
  return env;
}

async function run(
  cwd: string,
  args: string[],
  extra?: NodeJS.ProcessEnv,
  timeoutMs = TIMEOUT_MS,
): Promise<string> {
  const { runProgramAsync } = await import('./run-program.js');
  return runProgramAsync('git', [...QUIET, ...args], {
    cwd,
    encoding: 'utf8',
    timeout: timeoutMs,
    maxBuffer: 16 * 1024 * 1024,
    env: gitEnv(extra),
  });
}

/** As `run`, null when git fails. */
async function tryRun(cwd: string, ...args: string[]): Promise<string | null> {
  try {
    return (await run(cwd, args)).trim();
  } catch {
    return null;
  }
}

/** A copy asking to land: where it is, its branch and HEAD, and what is uncommitted. */
export interface CopyState {
  worktree: string;
  commonDir: string;
  /** The branch checked out; null when HEAD is detached. */
  branch: string | null;
  head: string | null;
  /** Tracked files with uncommitted changes (staged or not), the first few. */
  dirty: string[];
}

export async function copyState(folder: string): Promise<CopyState | null> {
  const place = locateFolder(folder);
  if (place.kind !== 'git') return null;
  const head = await tryRun(place.worktree, 'rev-parse', '-q', '--verify', 'HEAD^{commit}');
  const branch = await tryRun(place.worktree, 'symbolic-ref', '-q', '--short', 'HEAD');
  const status = await run(place.worktree, ['status', '--porcelain=v1', '-z', '--untracked-files=no']);
  const dirty = status
    .split('\0')
    .filter((e) => e.length > 3 && /^[ MADRCUT?!]{2} /.test(e))
    .map((e) => e.slice(3))
    .slice(0, 20);
  return { worktree: place.worktree, commonDir: place.commonDir, branch, head, dirty };
}

/**
 * The remote a copy lands through: `preferred` (the project's `land.remote`), else the one
 * `branch.<onto>.remote` names, else `origin`, else the first; null for a copy with no remote
 * (worktrees of one repository share its branches).
 */
export function landingRemote(commonDir: string, onto: string, preferred: string | null): string | null {
  let config: ReturnType<typeof parseGitConfig>;
  try {
    config = parseGitConfig(readFileSync(join(commonDir, 'config'), 'utf8'));
  } catch {
    return null;
  }
  const names = remotesOf(config).map((r) => r.name);
  if (names.length === 0) return null;
  if (preferred && names.includes(preferred)) return preferred;
  const tracked = config.get(`branch.${onto}.remote`)?.at(-1);
  if (tracked && names.includes(tracked)) return tracked;
  return names.includes('origin') ? 'origin' : names[0]!;
}

/**
 * The target's commit now: fetched from `remote` first (into `refs/remotes/<remote>/<onto>`), or
 * the local branch when there is no remote. Null when there is no such branch.
 */
export async function currentTarget(
  worktree: string,
  remote: string | null,
  onto: string,
): Promise<string | null> {
  if (remote === null) return tryRun(worktree, 'rev-parse', '-q', '--verify', `refs/heads/${onto}^{commit}`);
  const ref = `refs/remotes/${remote}/${onto}`;
  try {
    await run(
      worktree,
      ['fetch', '--quiet', '--no-tags', remote, `+refs/heads/${onto}:${ref}`],
      undefined,
      LONG_TIMEOUT_MS,
    );
  } catch (error) {
    if (/couldn't find remote ref|no such ref/i.test(gitWords(error))) return null;
    throw error;
  }
  // What the fetch wrote, read from the git folder (no second process), else asked of git.
  const place = locateFolder(worktree);
  const read = place.kind === 'git' ? readRef(place.gitDir, place.commonDir, ref) : null;
  return read ?? tryRun(worktree, 'rev-parse', '-q', '--verify', `${ref}^{commit}`);
}

/** The repository's default branch: the remote's HEAD, else `init.defaultBranch`, `main` or `master`. */
export async function defaultTarget(worktree: string, commonDir: string): Promise<string> {
  const remote = landingRemote(commonDir, 'main', null);
  if (remote) {
    const head = await tryRun(worktree, 'symbolic-ref', '-q', '--short', `refs/remotes/${remote}/HEAD`);
    // A name git would refuse as a branch (`-x`, written into the ref by hand) is no target.
    const named = head?.slice(remote.length + 1);
    if (named && isBranchName(named)) return named;
    for (const name of ['main', 'master'])
      if (await tryRun(worktree, 'rev-parse', '-q', '--verify', `refs/remotes/${remote}/${name}`))
        return name;
  }
  const configured = await tryRun(worktree, 'config', 'init.defaultBranch');
  for (const name of [configured, 'main', 'master'])
    if (
      name &&
      isBranchName(name) &&
      (await tryRun(worktree, 'rev-parse', '-q', '--verify', `refs/heads/${name}`))
    )
      return name;
  return 'main';
}

/** What a copy would land on `target`: how many of its commits are not there, and the files they change. */
export async function workToLand(
  worktree: string,
  target: string,
  head: string,
): Promise<{ commits: number; files: string[]; base: string } | null> {
  const base = await tryRun(worktree, 'merge-base', target, head);
  // No common history (unrelated, or cut by a shallow clone): nothing to replay onto it.
  if (!base) return null;
  const commits = Number((await run(worktree, ['rev-list', '--count', `${target}..${head}`])).trim());
  const files = (await run(worktree, ['diff', '--name-only', '-z', '--no-renames', base, head]))
    .split('\0')
    .filter((p) => p.length > 0);
  return { commits, files, base };
}

/** Adds a scratch worktree of the copy's repository at `path`, detached at `commit`. */
export async function addScratch(worktree: string, path: string, commit: string): Promise<void> {
  await removeScratch(worktree, path);
  await run(worktree, ['worktree', 'add', '--quiet', '--detach', path, commit], undefined, LONG_TIMEOUT_MS);
}

/**
 * Removes a scratch worktree (what a killed lander left too) and git's record of it — only of it:
 * other worktrees' records stay, whether their folders are reachable from here or not.
 */
export async function removeScratch(worktree: string, path: string): Promise<void> {
  if (existsSync(path))
    await run(worktree, ['worktree', 'remove', '--force', '--force', path]).catch(() => {});
  rmSync(path, { recursive: true, force: true });
  const place = locateFolder(worktree);
  if (place.kind !== 'git') return;
  const records = join(place.commonDir, 'worktrees');
  let names: string[];
  try {
    names = readdirSync(records);
  } catch {
    return;
  }
  for (const name of names) {
    try {
      const gitdir = readFileSync(join(records, name, 'gitdir'), 'utf8').trim();
      if (gitdir === join(path, '.git')) rmSync(join(records, name), { recursive: true, force: true });
    } catch {
      // Not a record of ours.
    }
  }
}

/** One place where the replay stopped: a file, and what each side has there. */
export interface ReplayConflict {
  file: string;
  /** Lines of the file as git left it with markers, where each conflict starts (empty: no markers, e.g. deleted on one side). */
  lines: number[];
  /** The target's side and the work's side of the first conflict, quoted by the caller. */
  target: string;
  work: string;
}

export type Replayed =
  /** The replayed tip, and the commits it put on the target, oldest first. */
  | { ok: true; commit: string; commits: string[] }
  | { ok: false; conflicts: ReplayConflict[]; stoppedAt: string | null };

/**
 * Replays the commits of the scratch worktree's HEAD that `target` lacks onto `target` (a rebase:
 * merge commits are not kept, the commits they brought are replayed one by one; commits already
 * on the target are dropped). On a conflict the rebase is undone and what met is said.
 */
export async function replay(scratch: string, target: string, base: string): Promise<Replayed> {
  const named =
    (await tryRun(scratch, 'config', 'user.email')) && (await tryRun(scratch, 'config', 'user.name'));
  try {
    await run(
      scratch,
      [
        '-c',
        'rebase.autoStash=false',
        '-c',
        'rebase.updateRefs=false',
        'rebase',
        '--quiet',
        '--no-rebase-merges',
        '--onto',
        target,
        base,
      ],
      named ? {} : FALLBACK_COMMITTER,
      LONG_TIMEOUT_MS,
    );
  } catch (error) {
    // Names as they are (-z: not quoted, whatever their characters).
    const conflicted = (await tryRun(scratch, 'diff', '--name-only', '-z', '--diff-filter=U')) ?? '';
    if (!conflicted) throw new Error(`git could not replay the work: ${gitWords(error)}`);
    const stoppedAt = await tryRun(scratch, 'rev-parse', '-q', '--verify', 'REBASE_HEAD');
    const conflicts = conflicted
      .split('\0')
      .filter(Boolean)
      .slice(0, 20)
      .map((file) => conflictIn(scratch, file));
    await run(scratch, ['rebase', '--abort']).catch(() => {});
    return { ok: false, conflicts, stoppedAt };
  }
  // One process: the replayed commits, newest first (the first is the tip).
  const list = (await run(scratch, ['rev-list', '-n', '1000', `${target}..HEAD`])).trim();
  const commits = list ? list.split('\n').reverse() : [];
  const commit = commits.at(-1) ?? (await run(scratch, ['rev-parse', 'HEAD'])).trim();
  return { ok: true, commit, commits };
}

/** A file git left with conflict markers: where each conflict starts and the first one's two sides. */
function conflictIn(scratch: string, file: string): ReplayConflict {
  const text = markedText(join(scratch, file));
  if (text === null) return { file, lines: [], target: '', work: '' };
  const lines = text.split('\n');
  const starts: number[] = [];
  let target = '';
  let work = '';
  for (let i = 0; i < lines.length && starts.length < 20; i++) {
    if (!lines[i]!.startsWith('<<<<<<< ')) continue;
    starts.push(i + 1);
    if (starts.length > 1) continue;
    const middle = lines.findIndex((l, j) => j > i && l.startsWith('======='));
    const end = lines.findIndex((l, j) => j > middle && l.startsWith('>>>>>>> '));
    if (middle === -1 || end === -1) continue;
    // With diff3 markers the base's lines sit between `|||||||` and `=======`.
    const ours = lines.slice(i + 1, middle);
    const baseAt = ours.findIndex((l) => l.startsWith('||||||| '));
    target = (baseAt === -1 ? ours : ours.slice(0, baseAt)).join('\n');
    work = lines.slice(middle + 1, end).join('\n');
  }
  return { file, lines: starts, target, work };
}

/**
 * What a conflicted file holds, to find its markers: null for what is no regular file (a symlink
 * is not followed: it could name /dev/zero or a pipe) or is too large to read for them.
 */
function markedText(path: string): string | null {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return null;
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile() || stat.size > CONFLICT_BYTES) return null;
    const buffer = Buffer.alloc(Math.min(stat.size, CONFLICT_BYTES));
    const read = readSync(fd, buffer, 0, buffer.length, 0);
    return buffer.toString('utf8', 0, read);
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}

/** The target's commits since `base` that changed `file`, newest first (who the work meets). */
export async function commitsTouching(
  worktree: string,
  base: string,
  target: string,
  file: string,
  limit = 3,
): Promise<Array<{ commit: string; author: string; subject: string }>> {
  const out =
    (await tryRun(
      worktree,
      'log',
      `-n${limit}`,
      '--format=%H%x09%an%x09%s',
      `${base}..${target}`,
      '--',
      `:(literal)${file}`,
    )) ?? '';
  return out
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [commit = '', author = '', ...subject] = line.split('\t');
      return { commit, author, subject: subject.join('\t') };
    });
}

/** The commits between two commits, oldest first (what a landing put on the target). */
export async function commitsBetween(
  worktree: string,
  from: string,
  to: string,
  limit = 200,
): Promise<string[]> {
  const out = (await tryRun(worktree, 'rev-list', '--reverse', `-n${limit}`, `${from}..${to}`)) ?? '';
  return out.split('\n').filter(Boolean);
}

/** Whether `commit` is `target` or in its history. */
export async function contains(worktree: string, target: string, commit: string): Promise<boolean> {
  try {
    await run(worktree, ['merge-base', '--is-ancestor', commit, target]);
    return true;
  } catch {
    return false;
  }
}

/** When a commit was made (its committer's time, in ms), or null when git cannot say. */
export async function committedAt(worktree: string, commit: string): Promise<number | null> {
  const seconds = await tryRun(worktree, 'show', '-s', '--format=%ct', commit);
  return seconds && /^\d+$/.test(seconds) ? Number(seconds) * 1000 : null;
}

/** A file's text at a commit (a `.session-collab.yaml` as landed), or null. */
export function textAt(worktree: string, commit: string, path: string): Promise<string | null> {
  return tryRun(worktree, 'show', `${commit}:${path}`);
}

export type Moved =
  | { moved: true; worktree: string | null }
  | { moved: false; why: 'target_moved' }
  | { moved: false; why: 'checked_out_dirty'; worktree: string; detail: string };

/** Where a local branch is checked out (a worktree of the repository), if anywhere. */
async function checkedOutAt(worktree: string, branch: string): Promise<string | null> {
  const list = (await tryRun(worktree, 'worktree', 'list', '--porcelain')) ?? '';
  let path: string | null = null;
  for (const line of list.split('\n')) {
    if (line.startsWith('worktree ')) path = line.slice('worktree '.length);
    if (line === `branch refs/heads/${branch}` && path) return path;
  }
  return null;
}

/**
 * Moves the target from `from` to `to`, only if it is still at `from`: a push with a lease on
 * `from` through `remote`, else the local branch — by a fast-forward of the worktree that has it
 * checked out (its files move with it; refused when its uncommitted changes are in the way), or
 * `update-ref` with the old value. Says whether it moved, or why not.
 */
export async function moveTarget(
  worktree: string,
  remote: string | null,
  onto: string,
  from: string,
  to: string,
): Promise<Moved> {
  if (remote !== null) {
    try {
      await run(
        worktree,
        [
          'push',
          '--porcelain',
          `--force-with-lease=refs/heads/${onto}:${from}`,
          remote,
          `${to}:refs/heads/${onto}`,
        ],
        undefined,
        LONG_TIMEOUT_MS,
      );
      return { moved: true, worktree: null };
    } catch (error) {
      const porcelain = String((error as { stdout?: unknown }).stdout ?? '');
      // The lease said no: someone moved the target since it was read.
      if (/^!\t.*\[rejected\].*\((stale info|fetch first|non-fast-forward)\)/m.test(porcelain))
        return { moved: false, why: 'target_moved' };
      // Anything else (the remote refused it, or took it and answered too late): what is there now says.
      const now = await currentTarget(worktree, remote, onto).catch(() => null);
      if (now !== null && now !== from && (await contains(worktree, now, to)))
        return { moved: true, worktree: null };
      if (now !== null && now !== from) return { moved: false, why: 'target_moved' };
      throw new Error(`git could not push to ${remote}: ${gitWords(error)} ${porcelain.trim()}`.trim());
    }
  }
  const at = await checkedOutAt(worktree, onto);
  if (at !== null) {
    const head = await tryRun(at, 'rev-parse', '-q', '--verify', 'HEAD');
    if (head !== from) return { moved: false, why: 'target_moved' };
    try {
      // Never a stash of the worktree's own changes (merge.autoStash): in the way, they refuse it.
      await run(at, ['merge', '--ff-only', '--no-autostash', '--quiet', to]);
      return { moved: true, worktree: at };
    } catch (error) {
      const moved = await tryRun(at, 'rev-parse', '-q', '--verify', 'HEAD');
      if (moved !== from) return { moved: false, why: 'target_moved' };
      return { moved: false, why: 'checked_out_dirty', worktree: at, detail: gitWords(error) };
    }
  }
  try {
    await run(worktree, ['update-ref', '-m', 'session-collab: landed', `refs/heads/${onto}`, to, from]);
    return { moved: true, worktree: null };
  } catch (error) {
    const now = await tryRun(worktree, 'rev-parse', '-q', '--verify', `refs/heads/${onto}`);
    if (now !== from) return { moved: false, why: 'target_moved' };
    throw new Error(`git could not move ${onto}: ${gitWords(error)}`);
  }
}
