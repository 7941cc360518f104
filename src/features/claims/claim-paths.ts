/**
 * Paths as clients give them, turned into the patterns claims hold: relative to the worktree,
 * normalised, within the limits, a literal directory standing for everything below it.
 */
import { realpathSync, statSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve } from 'node:path';
import type { Logger } from '../../app/log.js';
import { joinTarget, looksLikeSymbol, SYMBOL_CHARS, splitTarget } from '../../core/claim-target.js';
import { CollabError, invalidInput } from '../../core/errors.js';
import { inline } from '../../core/fence.js';
import { glob } from '../../core/glob.js';
import { languageOf, SYMBOL_EXTENSIONS } from '../../core/languages.js';
import { isGlob, normalizePattern } from '../../core/paths.js';
import { workingTreeChanges } from '../../integrations/git-status.js';

/**
 * Normalises client paths against the session's worktree; a literal directory claims all below. A
 * target may name one symbol of a file (`src/auth.ts#login`): its path is normalised, its symbol kept.
 */
export function normalizeFiles(
  files: string[],
  session: { worktree: string },
  field = 'files',
  { targets = true } = {},
): string[] {
  if (files.length === 0) throw invalidInput(`${field}: give at least one path or pattern.`);
  const out: string[] = [];
  for (const file of files) {
    const target = targets ? splitTarget(file.trim()) : { path: file, symbol: null };
    let pattern: string;
    try {
      pattern = normalizePattern(target.path, session.worktree);
    } catch (error) {
      if (error instanceof CollabError) throw invalidInput(`${field}: ${error.message}`, error.hint);
      throw error;
    }
    if (target.symbol === null) {
      if (targets) refuseMisreadSymbol(file, pattern, session.worktree, field);
      if (!isGlob(pattern) && isDirectory(join(session.worktree, pattern))) pattern = `${pattern}/**`;
      // A glob of too many alternatives is refused before anything is written; a literal path
      // compiles to nothing that can fail, and is compiled only when it is matched (each claim
      // names new files: compiled here, they filled the cache of compiled globs with one-offs).
      if (isGlob(pattern)) glob(pattern);
    } else if (pattern.endsWith('**') || isDirectory(join(session.worktree, pattern))) {
      throw invalidInput(
        `${field}: "${inline(file, 120)}" names a symbol of a folder.`,
        'A symbol is one file\'s: give "path/to/file.ts#name".',
      );
    }
    const normal = joinTarget(pattern, target.symbol);
    if (!out.includes(normal)) out.push(normal);
  }
  return out;
}

/**
 * `src/*.ts#login` or `README.md#Intro`: written as a symbol claim, but a symbol names one file of a
 * language whose symbols are read. Refused, unless a file of that very name exists.
 */
function refuseMisreadSymbol(file: string, pattern: string, worktree: string, field: string): void {
  const at = pattern.lastIndexOf('#');
  if (at <= 0 || pattern.includes('/', at) || exists(join(worktree, pattern))) return;
  const path = pattern.slice(0, at);
  const tail = pattern.slice(at + 1);
  const symbolFile = !isGlob(path) && languageOf(path) !== null;
  // After a file whose symbols are read, `#` starts a symbol: a malformed one is no file's name.
  if (!symbolFile && !looksLikeSymbol(tail)) return;
  const why = symbolFile
    ? tail.length > SYMBOL_CHARS
      ? `a symbol's name is at most ${SYMBOL_CHARS} characters`
      : `"${inline(tail, 60)}" is not a symbol's name (letters, digits, _ and $, joined by dots)`
    : isGlob(path)
      ? 'a symbol names one file'
      : `symbols are read only in files ending in ${SYMBOL_EXTENSIONS.map((e) => `.${e}`).join(', ')}`;
  throw invalidInput(
    `${field}: "${inline(file, 120)}" reads as a symbol of ${isGlob(path) ? 'a glob' : `"${inline(path, 120)}"`}, but ${why}.`,
    symbolFile
      ? `Name the symbol only, e.g. "${inline(path, 120)}#login" or "${inline(path, 120)}#User.save"; or claim the file itself.`
      : `Claim the file itself ("${inline(path, 120)}")${isGlob(path) ? ', or the symbol in each file' : ''}.`,
  );
}

/** The uncommitted changes (staged, unstaged, untracked) of the session's worktree. */
export function changedFiles(session: { worktree: string }): string[] {
  let changes: { tracked: string[]; untracked: string[] };
  try {
    changes = workingTreeChanges(session.worktree);
  } catch (error) {
    throw invalidInput(
      `from_git: cannot read the changes of ${session.worktree} (${(error as Error).message.split('\n')[0]}).`,
      'from_git needs a git worktree and the git command; list the files instead.',
    );
  }
  const files = [...new Set([...changes.tracked, ...changes.untracked])];
  if (files.length === 0) {
    throw invalidInput(
      `from_git: ${session.worktree} has no uncommitted changes to claim.`,
      'List the files you are about to change instead.',
    );
  }
  return files;
}

/**
 * Normalises paths a client acted on (absolute, or relative to `cwd`), leaving out those outside
 * the session's worktree: hooks see every file an agent touches, not only project files.
 */
export function normalizeInside(
  paths: string[],
  cwd: string,
  session: { worktree: string },
  log: Logger,
): string[] {
  const out: string[] = [];
  for (const p of paths) {
    // Through a symlinked folder a file is still the worktree's file: compare real paths.
    const absolute = realPathOf(resolve(cwd, p.replace(/\\/g, '/')));
    const rel = relative(session.worktree, absolute);
    // `..env` is a file in the worktree; `..` and `../x` are outside it.
    if (rel === '..' || rel.startsWith('../') || rel.startsWith('..\\') || isAbsolute(rel)) continue;
    let pattern: string | undefined;
    try {
      // Files an agent touched, never symbols: `notes#draft.md` is a file name.
      [pattern] = normalizeFiles([rel === '' ? '.' : rel], session, 'files', { targets: false });
    } catch (error) {
      // Past the limits on paths (longer than any file system allows): no file to protect.
      if (!(error instanceof CollabError) || error.code !== 'INVALID_INPUT') throw error;
      log.info('path.skipped', { path: inline(rel, 120), reason: error.message.slice(0, 200) });
      continue;
    }
    if (pattern && !out.includes(pattern)) out.push(pattern);
  }
  return out;
}

/**
 * The real path of a file that may not exist yet: its nearest existing ancestor resolved, the rest
 * appended as given.
 */
function realPathOf(path: string): string {
  const rest: string[] = [];
  for (let current = path; ; ) {
    try {
      return join(realpathSync(current), ...rest.reverse());
    } catch {
      const parent = dirname(current);
      if (parent === current) return path;
      rest.push(basename(current));
      current = parent;
    }
  }
}

function exists(path: string): boolean {
  try {
    return statSync(path, { throwIfNoEntry: false }) !== undefined;
  } catch {
    return false;
  }
}

/** Whether a folder is there; most paths a client names are files, or do not exist yet. */
function isDirectory(path: string): boolean {
  try {
    // No exception (and its stack trace) for a path that does not exist: the common case.
    return statSync(path, { throwIfNoEntry: false })?.isDirectory() === true;
  } catch {
    return false;
  }
}
