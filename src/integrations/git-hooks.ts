import { chmodSync, existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { git } from './git.js';

/** Marks what session-collab wrote, so that it finds (and removes) exactly that again. */
const MARK = 'session-collab guard';
const BEGIN = `# >>> ${MARK} >>>`;
const END = `# <<< ${MARK} <<<`;
const CHAINED = 'pre-commit.session-collab-chained';

export interface GuardPlace {
  /** The file that runs our check. */
  file: string;
  /** How it was put there: our own hook (chaining any other), or a block in husky's script. */
  style: 'hook' | 'husky';
}

/** Where the pre-commit guard belongs in the repository of `cwd` (all its worktrees share it). */
export function guardPlace(cwd: string): GuardPlace {
  const top = git(cwd, 'rev-parse', '--show-toplevel');
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

function ourHook(command: string): string {
  return `#!/bin/sh
${BEGIN}
# Refuses a commit that touches files another live session holds. Installed by
# \`session-collab guard install\`; \`session-collab guard uninstall\` restores what was here.
# Bypass once: git commit --no-verify   (or SESSION_COLLAB_GUARD=off git commit)
${command} guard check || exit $?
chained="$(dirname "$0")/${CHAINED}"
if [ -x "$chained" ]; then exec "$chained" "$@"; fi
${END}
`;
}

function huskyBlock(command: string): string {
  return `${BEGIN}\n${command} guard check || exit $?\n${END}\n`;
}

export type InstallResult = { place: GuardPlace; action: 'installed' | 'updated'; chained: string | null };

/** Installs (or updates) the guard; an existing hook is kept and run after the check. */
export function installGuard(cwd: string, command: string): InstallResult {
  const place = guardPlace(cwd);
  if (place.style === 'husky') {
    const existing = existsSync(place.file) ? readFileSync(place.file, 'utf8') : '';
    const had = existing.includes(BEGIN);
    const rest = removeBlock(existing);
    writeFileSync(place.file, huskyBlock(command) + rest);
    chmodSync(place.file, 0o755);
    return { place, action: had ? 'updated' : 'installed', chained: rest.trim() ? place.file : null };
  }
  const dir = resolve(place.file, '..');
  const chainedFile = join(dir, CHAINED);
  let action: InstallResult['action'] = 'installed';
  if (existsSync(place.file)) {
    const existing = readFileSync(place.file, 'utf8');
    if (existing.includes(BEGIN)) action = 'updated';
    else renameSync(place.file, chainedFile);
  }
  writeFileSync(place.file, ourHook(command));
  chmodSync(place.file, 0o755);
  return { place, action, chained: existsSync(chainedFile) ? chainedFile : null };
}

/** Removes the guard and puts back what it chained. Returns false when it was not installed. */
export function uninstallGuard(cwd: string): { place: GuardPlace; removed: boolean; restored: boolean } {
  const place = guardPlace(cwd);
  if (!existsSync(place.file) || !readFileSync(place.file, 'utf8').includes(BEGIN)) {
    return { place, removed: false, restored: false };
  }
  if (place.style === 'husky') {
    const rest = removeBlock(readFileSync(place.file, 'utf8'));
    if (rest.trim() === '') rmSync(place.file);
    else writeFileSync(place.file, rest);
    return { place, removed: true, restored: false };
  }
  rmSync(place.file);
  const chainedFile = join(resolve(place.file, '..'), CHAINED);
  if (existsSync(chainedFile)) {
    renameSync(chainedFile, place.file);
    return { place, removed: true, restored: true };
  }
  return { place, removed: true, restored: false };
}

export function guardInstalled(cwd: string): boolean {
  const place = guardPlace(cwd);
  return existsSync(place.file) && readFileSync(place.file, 'utf8').includes(BEGIN);
}

function removeBlock(text: string): string {
  const start = text.indexOf(BEGIN);
  if (start === -1) return text;
  const end = text.indexOf(END, start);
  if (end === -1) return text;
  return text.slice(0, start) + text.slice(end + END.length).replace(/^\n/, '');
}
