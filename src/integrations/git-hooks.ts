import {
  chmodSync,
  existsSync,
  lstatSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { CollabError } from '../core/errors.js';
import { shellQuote } from '../core/shell-words.js';
import { git, tryGit } from './git.js';

/** Marks what session-collab wrote, so that it finds (and removes) exactly that again. */
const MARK = 'session-collab guard';
const BEGIN = `# >>> ${MARK} >>>`;
const END = `# <<< ${MARK} <<<`;
const CHAINED = 'pre-commit.session-collab-chained';
/** What uninstall leaves to run the hooks it could not simply put back; install takes it out again. */
const RUNNER_BEGIN = '# >>> hooks that were here before the session-collab guard, in order >>>';
const RUNNER_END = '# <<< hooks that were here before the session-collab guard <<<';

export interface GuardPlace {
  /** The file that runs our check. */
  file: string;
  /** How it was put there: our own hook (chaining any other), or a block in husky's script. */
  style: 'hook' | 'husky';
}

/** Where the pre-commit guard belongs in the repository of `cwd` (all its worktrees share it). */
export function guardPlace(cwd: string): GuardPlace {
  const top = tryGit(cwd, 'rev-parse', '--show-toplevel');
  if (top === null)
    throw new CollabError(
      'INVALID_INPUT',
      `${cwd} is not inside a git repository: the commit guard is a git hook.`,
      'Run `session-collab guard install` from a folder of the repository it should guard.',
    );
  let hooksPath = '';
  try {
    hooksPath = git(cwd, 'config', '--get', 'core.hooksPath');
  } catch {
    hooksPath = '';
  }
  // husky (v9) points core.hooksPath at .husky/_, whose scripts it regenerates; the user's own
  // script is .husky/pre-commit, and that is where the guard goes.
  if (hooksPath && /(^|\/)\.husky\/_\/?$/.test(hooksPath)) {
    const dir = resolve(top, hooksPath, '..');
    return { file: join(dir, 'pre-commit'), style: 'husky' };
  }
  let dir = git(cwd, 'rev-parse', '--git-path', 'hooks');
  if (!isAbsolute(dir)) dir = resolve(cwd, dir);
  return { file: join(dir, 'pre-commit'), style: 'hook' };
}

/** How the guard runs session-collab: a program and its arguments (this Node and this install's script). */
export interface GuardLaunch {
  command: string;
  args: string[];
}

/**
 * The check: where session-collab is not there (a teammate without it, a clone on another machine,
 * an install moved), the commit goes ahead with a word on stderr, rather than every commit failing
 * on a missing program: the claims it would check are made only where session-collab runs.
 */
function checkLine(launch: GuardLaunch): string {
  const words = [launch.command, ...launch.args].map(shellQuote);
  const present = [
    `command -v ${words[0]} >/dev/null 2>&1`,
    ...launch.args.filter((a) => a.includes('/')).map((a) => `[ -e ${shellQuote(a)} ]`),
  ].join(' && ');
  return `if ${present}; then ${words.join(' ')} guard check || exit $?; else echo ${shellQuote(`session-collab guard: ${[launch.command, ...launch.args].join(' ')} is not here; this commit is not checked against other sessions' claims.`)} >&2; fi`;
}

/**
 * Our block in a plain hook: the check, then every hook that was there before (chained, oldest
 * first). Lines a user adds around the block stay theirs.
 */
function ourBlock(launch: GuardLaunch): string {
  return `${BEGIN}
# Refuses a commit that touches files another live session holds. Installed by
# \`session-collab guard install\`; \`session-collab guard uninstall\` restores what was here.
# Bypass once: git commit --no-verify   (or SESSION_COLLAB_GUARD=off git commit)
${checkLine(launch)}
${RUN_CHAINED}
${END}
`;
}

/** Runs the hooks that were in place before, oldest first, stopping at the first that refuses. */
const RUN_CHAINED = `for chained in "$(dirname "$0")"/${CHAINED} "$(dirname "$0")"/${CHAINED}.*; do
  if [ -x "$chained" ]; then "$chained" "$@" || exit $?; fi
done`;

/** The chained hooks in the order they were found (the first one, then .2, .3…). */
function chainedFiles(dir: string): string[] {
  const numbered = readdirSync(dir)
    .filter((f) => f.startsWith(`${CHAINED}.`))
    .sort((a, b) => Number(a.slice(CHAINED.length + 1)) - Number(b.slice(CHAINED.length + 1)));
  return [...(existsSync(join(dir, CHAINED)) ? [CHAINED] : []), ...numbered].map((f) => join(dir, f));
}

/** Where a hook found in place goes: the first free chain slot (never over an earlier one). */
function nextChainSlot(dir: string): string {
  if (!existsSync(join(dir, CHAINED))) return join(dir, CHAINED);
  for (let n = 2; ; n++) if (!existsSync(join(dir, `${CHAINED}.${n}`))) return join(dir, `${CHAINED}.${n}`);
}

/** Whether a hook holds anything besides its shebang and blank lines. */
function hasContent(text: string): boolean {
  return text.split('\n').some((l) => l.trim() !== '' && !l.startsWith('#!'));
}

function huskyBlock(launch: GuardLaunch): string {
  return `${BEGIN}\n${checkLine(launch)}\n${END}\n`;
}

export type InstallResult = {
  place: GuardPlace;
  action: 'installed' | 'updated';
  chained: string | null;
  /** The hook file is tracked by git (husky's script): what it names is this machine's. */
  tracked: boolean;
};

/** Installs (or updates) the guard; an existing hook is kept and run after the check. */
export function installGuard(cwd: string, launch: GuardLaunch): InstallResult {
  const place = guardPlace(cwd);
  if (place.style === 'husky') {
    const existing = existsSync(place.file) ? readFileSync(place.file, 'utf8') : '';
    const had = existing.includes(BEGIN);
    const rest = removeBlock(existing);
    writeFileSync(place.file, huskyBlock(launch) + rest);
    chmodSync(place.file, 0o755);
    const tracked = tryGit(cwd, 'ls-files', '--error-unmatch', '--', place.file) !== null;
    return {
      place,
      action: had ? 'updated' : 'installed',
      chained: rest.trim() ? place.file : null,
      tracked,
    };
  }
  const dir = resolve(place.file, '..');
  let action: InstallResult['action'] = 'installed';
  let text = `#!/bin/sh\n${ourBlock(launch)}`;
  if (existsSync(place.file)) {
    const existing = readFileSync(place.file, 'utf8');
    if (existing.includes(BEGIN)) {
      // Ours already: refresh the block, keep whatever the user added around it.
      action = 'updated';
      text = replaceBlock(existing, ourBlock(launch));
    } else if (lstatSync(place.file).isSymbolicLink()) {
      // A link (to a script the repository keeps): the link itself is chained, and comes back as one.
      renameSync(place.file, nextChainSlot(dir));
    } else {
      // Someone else's (perhaps rewritten over ours by another tool): kept, and run after the check.
      // What an earlier uninstall left to run the chain is not kept: the block runs the chain. Its
      // mode is kept: a hook git does not run (not executable) is not run by the chain either.
      const own = removeBetween(existing, RUNNER_BEGIN, RUNNER_END);
      const mode = statSync(place.file).mode & 0o777;
      if (hasContent(own)) {
        const slot = nextChainSlot(dir);
        writeFileSync(slot, own);
        chmodSync(slot, mode);
      }
      rmSync(place.file);
    }
  }
  writeFileSync(place.file, text);
  chmodSync(place.file, 0o755);
  const chained = chainedFiles(dir);
  return { place, action, chained: chained.length > 0 ? chained.join(', ') : null, tracked: false };
}

/**
 * Removes the guard and puts back what it chained, keeping lines a user added to the hook. With one
 * chained hook and nothing added, that hook is back as it was; otherwise the hook keeps the added
 * lines and runs the chained hooks, in order.
 */
export function uninstallGuard(cwd: string): { place: GuardPlace; removed: boolean; restored: boolean } {
  const place = guardPlace(cwd);
  if (!existsSync(place.file) || !readFileSync(place.file, 'utf8').includes(BEGIN)) {
    return { place, removed: false, restored: false };
  }
  const text = readFileSync(place.file, 'utf8');
  if (!text.includes(END, text.indexOf(BEGIN)))
    throw new CollabError(
      'INVALID_STATE',
      `${place.file} has the guard's first line (${BEGIN}) but not its last (${END}): what is ours cannot be told from what is yours, so nothing was changed.`,
      `Remove the guard's lines from ${place.file} by hand (or put back its last line and run this again).`,
    );
  const rest = removeBlock(text);
  if (place.style === 'husky') {
    if (rest.trim() === '') rmSync(place.file);
    else writeFileSync(place.file, rest);
    return { place, removed: true, restored: false };
  }
  const chained = chainedFiles(resolve(place.file, '..'));
  if (chained.length === 0) {
    if (hasContent(rest)) writeFileSync(place.file, rest);
    else rmSync(place.file);
    return { place, removed: true, restored: false };
  }
  if (chained.length === 1 && !hasContent(rest)) {
    rmSync(place.file);
    renameSync(chained[0]!, place.file);
    return { place, removed: true, restored: true };
  }
  // The chain runs where the guard's block was, so that everything keeps its order.
  const existing = readFileSync(place.file, 'utf8');
  writeFileSync(place.file, replaceBlock(existing, `${RUNNER_BEGIN}\n${RUN_CHAINED}\n${RUNNER_END}\n`));
  chmodSync(place.file, 0o755);
  return { place, removed: true, restored: true };
}

export function guardInstalled(cwd: string): boolean {
  const place = guardPlace(cwd);
  return existsSync(place.file) && readFileSync(place.file, 'utf8').includes(BEGIN);
}

function replaceBlock(text: string, block: string): string {
  const start = text.indexOf(BEGIN);
  const end = text.indexOf(END, start);
  if (start === -1 || end === -1) return text;
  return text.slice(0, start) + block + text.slice(end + END.length).replace(/^\n/, '');
}

function removeBlock(text: string): string {
  return removeBetween(text, BEGIN, END);
}

function removeBetween(text: string, begin: string, end: string): string {
  const start = text.indexOf(begin);
  if (start === -1) return text;
  const stop = text.indexOf(end, start);
  if (stop === -1) return text;
  return text.slice(0, start) + text.slice(stop + end.length).replace(/^\n/, '');
}
