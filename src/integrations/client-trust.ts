/**
 * Whether Codex CLI and Gemini CLI trust a project folder, so that they load the configuration
 * `init` writes there (Codex: `[projects."<folder>"] trust_level = "trusted"` in
 * `$CODEX_HOME/config.toml`; Gemini CLI: `~/.gemini/trustedFolders.json`), and the change to these
 * user files that trusts it. Pure text in, text out, except for where the files are. Codex's
 * config is read and edited in codex-toml.ts.
 */
import { existsSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, isAbsolute, join, resolve, sep } from 'node:path';
import { editSettings, readSettings } from './jsonc-settings.js';

export type TrustingClient = 'codex' | 'gemini';

/** The user file where a client records trusted folders. */
export function trustFile(client: TrustingClient, env: NodeJS.ProcessEnv = process.env): string {
  if (client === 'codex') return join(env.CODEX_HOME || join(homedir(), '.codex'), 'config.toml');
  return join(env.GEMINI_CLI_HOME || homedir(), '.gemini', 'trustedFolders.json');
}

/** Gemini CLI's rules as it reads them (comments and trailing commas allowed); none where they cannot be read. */
function geminiRules(text: string | null): Record<string, string> {
  try {
    return readSettings(text, 'trustedFolders.json') as Record<string, string>;
  } catch {
    return {};
  }
}

const within = (folder: string, parent: string) => folder === parent || folder.startsWith(`${parent}${sep}`);

/**
 * Whether Gemini CLI's trusted folders (their text, or null) trust `folder`: the most specific rule
 * that covers it decides (a folder itself with TRUST_FOLDER, its parent with TRUST_PARENT).
 */
export function geminiTrusts(text: string | null, folder: string): boolean {
  let best: { length: number; trusted: boolean } | null = null;
  for (const [path, rule] of Object.entries(geminiRules(text))) {
    const scope = rule === 'TRUST_PARENT' ? dirname(path) : path;
    if (!within(folder, scope)) continue;
    if (!best || scope.length > best.length)
      best = { length: scope.length, trusted: rule !== 'DO_NOT_TRUST' };
  }
  return best?.trusted ?? false;
}

/**
 * Gemini CLI's trusted folders with `folder` trusted (as they are when it already is): the one rule
 * added, the user's own rules and comments as they were. A file that cannot be read as JSON with
 * comments is refused (CONFIG_ERROR), never written over.
 */
export function geminiTrust(text: string | null, folder: string): string {
  if (geminiTrusts(text, folder)) return text ?? '';
  return editSettings(text, trustFile('gemini'), [{ at: [folder], value: 'TRUST_FOLDER' }]);
}

/** A folder's canonical path (symlinks resolved), or the path as given where it does not exist. */
function canonical(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path.length > 1 ? path.replace(/\/+$/, '') : path;
  }
}

/** Whether two spellings name one folder, as Codex compares its projects' keys (canonical paths). */
export function samePath(a: string, b: string): boolean {
  return a === b || canonical(a) === canonical(b);
}

/**
 * The folders Codex looks up in its `[projects]` to decide whether it trusts a project opened in
 * `folder`: the folder itself, then the root it resolves for trust (the repository's root; for a
 * linked worktree, the main checkout's, found through the `.git` file's `gitdir:` as Codex does).
 */
export function codexTrustFolders(folder: string): string[] {
  const out = [folder];
  let dir = folder;
  for (;;) {
    const dotGit = join(dir, '.git');
    if (existsSync(dotGit)) {
      const root = statSync(dotGit).isDirectory() ? dir : mainCheckout(dir, dotGit);
      if (root && !out.some((f) => samePath(f, root))) out.push(root);
      return out;
    }
    const parent = dirname(dir);
    if (parent === dir) return out;
    dir = parent;
  }
}

/** The main checkout of a linked worktree whose `.git` file is `dotGit`, or null. */
function mainCheckout(worktree: string, dotGit: string): string | null {
  const match = /^gitdir:\s*(.+)$/m.exec(readFileSync(dotGit, 'utf8'));
  if (!match) return null;
  const target = match[1]!.trim();
  const gitDir = canonical(isAbsolute(target) ? target : resolve(worktree, target));
  const worktrees = dirname(gitDir);
  if (basename(worktrees) !== 'worktrees') return null;
  return dirname(dirname(worktrees));
}
