/**
 * A worktree's changes against a base every copy of the repository shares: the merge base of HEAD
 * with the repository's default branch. Uncommitted (staged or not), untracked and committed but
 * unmerged changes all count, as git prints them (`git diff -U0 <base>`), so two copies on two
 * machines describe one change alike.
 */
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  openSync,
  readFileSync,
  readlinkSync,
  readSync,
} from 'node:fs';
import { join } from 'node:path';
import { newHash } from '../core/digest.js';
import {
  addedFile,
  type DiffCount,
  diffPieces,
  type FileChange,
  parseGitDiff,
  typeChangesJoined,
} from '../core/hunks.js';
import { gitOutputAsync, tryGitAsync } from './git.js';
import { parseGitConfig } from './git-config.js';
import { namingRemote } from './repo-identity.js';

/** How the base was found, for `status` and for a person asking why two copies differ. */
export type BaseSource = 'remote-default' | 'remote-branch' | 'local-branch' | 'head' | 'empty';

export interface ChangeBase {
  /** A commit id, or the empty tree's id in a repository with no commit yet. */
  commit: string;
  /** The branch it was measured against (`origin/main`, `main`), null for HEAD itself. */
  ref: string | null;
  source: BaseSource;
}

export interface WorktreeChanges {
  base: ChangeBase;
  files: FileChange[];
  /** Files left out past `CHANGE_LIMITS.files`. */
  omitted: number;
}

export const CHANGE_LIMITS = {
  /** Changed files kept per worktree. */
  files: 1_000,
  /** Bytes of `git diff` output read; past it every file is compared as a whole. */
  diffBytes: 32 * 1024 * 1024,
  /** Bytes of an untracked file read; a larger one is compared as a whole. */
  untrackedBytes: 1024 * 1024,
  timeoutMs: 10_000,
};

/** Bytes of a diff parsed between two turns of the event loop, about. */
const PARSED_AT_ONCE = 1024 * 1024;

/**
 * The diff command for `revs`: a commit against the worktree is git's plumbing (`diff-index`),
 * which never writes the repository's index; the porcelain `git diff` refreshes it and writes it
 * back under its lock, and a user's `git commit` or `git add` at that moment fails on the lock
 * (every check reads its caller's copy and its neighbours'). Two commits: `git diff`, which reads
 * no index.
 */
const diffCommand = (revs: string[]) => (revs.length === 1 ? 'diff-index' : 'diff');

/** The options that make a diff print the same on every machine, whatever its config. */
const DIFF_OPTIONS = [
  '-U0',
  '--full-index',
  // Renames as git's merge finds them (half the lines the same): the merge follows a renamed file.
  '--find-renames',
  '--no-color',
  '--no-ext-diff',
  '--no-textconv',
  '--no-relative',
  '--ignore-submodules',
  '--diff-algorithm=histogram',
  '--src-prefix=a/',
  '--dst-prefix=b/',
];

/**
 * The default branch the changes are measured against: the remote that names the repository
 * (`upstream`, `origin`, the first) and its HEAD (`origin/HEAD`), else its `main` or `master`;
 * without a remote, the local branch `init.defaultBranch` names, else `main`, else `master`; else
 * none (then HEAD itself is the base: only uncommitted changes count).
 */
async function defaultBranch(
  worktree: string,
  commonDir: string,
): Promise<{ ref: string; source: BaseSource } | null> {
  const remote = namingRemote(commonDir)?.name;
  if (remote) {
    const head = await tryGitAsync(worktree, 'symbolic-ref', '-q', '--short', `refs/remotes/${remote}/HEAD`);
    if (head) return { ref: head, source: 'remote-default' };
    for (const name of ['main', 'master']) {
      if (await tryGitAsync(worktree, 'rev-parse', '-q', '--verify', `refs/remotes/${remote}/${name}`))
        return { ref: `${remote}/${name}`, source: 'remote-branch' };
    }
  }
  const configured = configValue(commonDir, 'init.defaultbranch');
  for (const name of [configured, 'main', 'master']) {
    if (name && (await tryGitAsync(worktree, 'rev-parse', '-q', '--verify', `refs/heads/${name}`)))
      return { ref: name, source: 'local-branch' };
  }
  return null;
}

function configValue(commonDir: string, key: string): string | null {
  try {
    return (
      parseGitConfig(readFileSync(join(commonDir, 'config'), 'utf8'))
        .get(key)
        ?.at(-1) ?? null
    );
  } catch {
    return null;
  }
}

/** The id of the tree with nothing in it, by the repository's object format (`git hash-object -t tree`). */
const EMPTY_TREE = {
  sha1: '4b825dc642cb6eb9a060e54bf8d69288fbee4904',
  sha256: '6ef19b41225c5369f1c104d45d8d85efa9b057b53b14b4b9b939dd74decc5321',
} as const;

function objectFormat(commonDir: string): 'sha1' | 'sha256' {
  return configValue(commonDir, 'extensions.objectformat') === 'sha256' ? 'sha256' : 'sha1';
}

/**
 * The base of a worktree's changes (see `defaultBranch`). `knownHead`: HEAD's commit where the
 * caller read it from the git folder already (null: git is asked, as for a branch with no commit).
 */
export async function findBase(
  worktree: string,
  commonDir: string,
  knownHead: string | null = null,
): Promise<ChangeBase> {
  const head = knownHead ?? (await tryGitAsync(worktree, 'rev-parse', '-q', '--verify', 'HEAD^{commit}'));
  if (!head) {
    // No commit yet: everything is new, against the empty tree.
    return { commit: EMPTY_TREE[objectFormat(commonDir)], ref: null, source: 'empty' };
  }
  const branch = await defaultBranch(worktree, commonDir);
  if (branch) {
    const base = await tryGitAsync(worktree, 'merge-base', branch.ref, head);
    if (base) return { commit: base, ref: branch.ref, source: branch.source };
  }
  return { commit: head, ref: null, source: 'head' };
}

/**
 * The worktree's changes against `base` (found when not given): every changed file, or only
 * `paths` (relative to the root) when named. `untracked`: the untracked files to read, where the
 * caller listed them (`listChanges`): `paths` are then only diffed (none: no diff). Throws when git
 * is missing or fails.
 */
export async function readChanges(
  worktree: string,
  commonDir: string,
  options: { base?: ChangeBase; paths?: string[]; untracked?: string[] } = {},
): Promise<WorktreeChanges> {
  const base = options.base ?? (await findBase(worktree, commonDir));
  const pathspec = pathspecOf(options.paths);
  const files = options.paths?.length === 0 ? [] : await diffFiles(worktree, [base.commit], pathspec);
  await blobsOfPureRenames(worktree, base.commit, files);
  const seen = new Set(files.map((f) => f.path));
  const untracked = (
    options.untracked ??
    (
      await gitOutputAsync(
        worktree,
        ['ls-files', '--others', '--exclude-standard', '-z', ...pathspec],
        CHANGE_LIMITS.timeoutMs,
      )
    ).split('\0')
  ).filter((p) => p.length > 0 && !seen.has(p));
  const format = objectFormat(commonDir);
  const room = Math.max(0, CHANGE_LIMITS.files - files.length);
  for (const path of untracked.slice(0, room)) files.push(untrackedFile(worktree, path, format));
  files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const kept = files.slice(0, CHANGE_LIMITS.files);
  return { base, files: kept, omitted: seen.size + untracked.length - kept.length };
}

/** How a listed file differs from the base: git's letter (A added, D deleted, M…), `?` untracked. */
export interface ListedChange {
  path: string;
  status: string;
}

/**
 * The names of the files a whole read would find changed against `base`, with no diff of their
 * lines (git compares blobs only): those git's diff lists (a file only touched since git last looked
 * at it may be listed, and is then found unchanged when diffed), renames as the deletion and the addition
 * they are made of, and the untracked ones. A fraction of a whole read's time where the changes are
 * large. Throws when git fails or runs past its time.
 */
export async function listChanges(worktree: string, base: string): Promise<ListedChange[]> {
  const listed: ListedChange[] = [];
  const diff = (
    await gitOutputAsync(
      worktree,
      [
        diffCommand([base]),
        '--name-status',
        '-z',
        '--no-renames',
        '--ignore-submodules',
        '--no-relative',
        base,
        '--',
      ],
      CHANGE_LIMITS.timeoutMs,
    )
  ).split('\0');
  // `-z` prints each entry as its status and its path, each ended by a NUL.
  for (let i = 0; i + 1 < diff.length; i += 2) {
    const status = diff[i]!;
    const path = diff[i + 1]!;
    if (status && path) listed.push({ path, status: status[0]! });
  }
  const seen = new Set(listed.map((l) => l.path));
  for (const path of (
    await gitOutputAsync(
      worktree,
      ['ls-files', '--others', '--exclude-standard', '-z', '--'],
      CHANGE_LIMITS.timeoutMs,
    )
  ).split('\0'))
    if (path.length > 0 && !seen.has(path)) listed.push({ path, status: '?' });
  return listed;
}

/** Paths relative to the root, each taken literally (no pathspec magic); none: every file. */
function pathspecOf(paths: string[] | undefined): string[] {
  return paths ? ['--', ...paths.map((p) => `:(literal)${p}`)] : ['--'];
}

/**
 * The files `git diff` of `revs` (a base against the worktree, or two commits) changes, by lines;
 * a diff too large to read by lines, or that git cannot work out in its time (its diff of a huge
 * file can take minutes), gives every file compared as a whole (reason `large` or `slow`): the
 * read stands, where failing it would have every check try again for as long.
 */
async function diffFiles(worktree: string, revs: string[], pathspec: string[]): Promise<FileChange[]> {
  let reason: 'large' | 'slow';
  try {
    const diff = await gitOutputAsync(
      worktree,
      ['-c', 'core.quotePath=true', diffCommand(revs), ...DIFF_OPTIONS, ...revs, ...pathspec],
      CHANGE_LIMITS.timeoutMs,
      CHANGE_LIMITS.diffBytes,
    );
    // A large diff is parsed a piece at a time, other calls answered between them (13 MB took the
    // server's loop 0.3-0.4 s in one go).
    const count: DiffCount = { kept: 0 };
    const files: FileChange[] = [];
    for (const [i, piece] of diffPieces(diff, PARSED_AT_ONCE).entries()) {
      if (i > 0) await new Promise((resolve) => setImmediate(resolve));
      files.push(...parseGitDiff(piece, count));
    }
    return typeChangesJoined(files);
  } catch (error) {
    const e = error as NodeJS.ErrnoException & { killed?: boolean };
    if (e.code === 'ENOBUFS') reason = 'large';
    else if (e.killed === true) reason = 'slow';
    else throw error;
  }
  const names = await gitOutputAsync(
    worktree,
    [diffCommand(revs), '--name-only', '-z', '--no-renames', '--ignore-submodules', ...revs, ...pathspec],
    CHANGE_LIMITS.timeoutMs,
  );
  return names
    .split('\0')
    .filter((p) => p.length > 0)
    .map((path) => ({ path, baseBlob: null, newBlob: null, level: 'file', reason, hunks: [] }));
}

/**
 * What changed between two commits (`paths` only, when named), as `readChanges` reads a worktree:
 * the same diff options, so hunks compare with any copy's. Every file is kept (landed work is
 * bounded by what one request carried); a diff too large to read by lines is compared whole.
 */
export async function readCommitChanges(
  worktree: string,
  from: string,
  to: string,
  paths?: string[],
): Promise<FileChange[]> {
  const files = await diffFiles(worktree, [from, to], pathspecOf(paths));
  await blobsOfPureRenames(worktree, from, files);
  return files.slice(0, CHANGE_LIMITS.files);
}

/**
 * A file renamed with no change of content has no `index` line: its blob, the same on both sides,
 * is the base's (one git process for all of them).
 */
async function blobsOfPureRenames(worktree: string, base: string, files: FileChange[]): Promise<void> {
  const pure = files.filter((f) => f.renamedFrom !== undefined && f.baseBlob === null && f.newBlob === null);
  if (pure.length === 0) return;
  const blobs = (
    await gitOutputAsync(
      worktree,
      ['rev-parse', ...pure.map((f) => `${base}:${f.renamedFrom}`)],
      CHANGE_LIMITS.timeoutMs,
    )
  )
    .trim()
    .split('\n');
  pure.forEach((f, i) => {
    f.baseBlob = blobs[i] ?? null;
    f.newBlob = blobs[i] ?? null;
  });
}

/** An untracked file as an added one: all its lines, or the whole file when binary or large. */
function untrackedFile(worktree: string, path: string, format: 'sha1' | 'sha256'): FileChange {
  let content: Buffer;
  try {
    content = worktreeBytes(worktree, path);
  } catch (error) {
    if (error instanceof TooLarge)
      return { path, baseBlob: null, newBlob: null, level: 'file', reason: 'large', hunks: [] };
    return { path, baseBlob: null, newBlob: null, level: 'file', reason: 'unreadable', hunks: [] };
  }
  const blob = newHash(format).update(`blob ${content.length}\0`).update(content).digest('hex');
  // As git does: a NUL in the first 8,000 bytes makes a file binary.
  if (content.subarray(0, 8000).includes(0))
    return { path, baseBlob: null, newBlob: blob, level: 'file', reason: 'binary', hunks: [] };
  return addedFile(path, content.toString('utf8'), blob);
}

class TooLarge extends Error {}

/**
 * A worktree file's bytes as git would commit them: a symlink's are the path it names, never the
 * file there (outside the repository, perhaps, or a pipe that would never end); what is neither a
 * symlink nor a regular file is an error; TooLarge past the limit.
 */
function worktreeBytes(worktree: string, path: string): Buffer {
  const at = join(worktree, path);
  if (lstatSync(at).isSymbolicLink()) return Buffer.from(readlinkSync(at));
  return regularFileContent(at, path);
}

/** A worktree file's text as git would commit it (`worktreeBytes`), or null where it cannot be read. */
export function worktreeText(worktree: string, path: string): string | null {
  try {
    return worktreeBytes(worktree, path).toString('utf8');
  } catch {
    return null;
  }
}

/**
 * A regular file's bytes, opened without following a link and without blocking (a pipe never ends):
 * an error for what is no regular file, TooLarge past the limit.
 */
function regularFileContent(at: string, path: string): Buffer {
  const fd = openSync(at, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw new Error(`${path} is no regular file`);
    if (stat.size > CHANGE_LIMITS.untrackedBytes) throw new TooLarge();
    const content = Buffer.alloc(stat.size);
    readSync(fd, content, 0, stat.size, 0);
    return content;
  } finally {
    closeSync(fd);
  }
}

/**
 * A file's text at a commit, or as staged in the index (`rev` null): null when it is not there, is
 * binary, or is longer than `maxBytes`.
 */
export async function fileAt(
  worktree: string,
  rev: string | null,
  path: string,
  maxBytes = 1024 * 1024,
): Promise<string | null> {
  try {
    const text = await gitOutputAsync(
      worktree,
      ['show', `${rev ?? ''}:${path}`],
      CHANGE_LIMITS.timeoutMs,
      maxBytes,
    );
    return text.includes('\0') ? null : text;
  } catch {
    return null;
  }
}
