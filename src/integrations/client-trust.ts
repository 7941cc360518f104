/**
 * Whether Codex CLI and Gemini CLI trust a project folder, so that they load the configuration
 * `init` writes there (Codex: `[projects."<folder>"] trust_level = "trusted"` in
 * `$CODEX_HOME/config.toml`; Gemini CLI: `~/.gemini/trustedFolders.json`), and the change to these
 * user files that trusts it. Pure text in, text out, except for where the files are. Codex's
 * config is read and edited in codex-toml.ts.
 */
import { homedir } from 'node:os';
import { dirname, join, sep } from 'node:path';

export type TrustingClient = 'codex' | 'gemini';

/** The user file where a client records trusted folders. */
export function trustFile(client: TrustingClient, env: NodeJS.ProcessEnv = process.env): string {
  if (client === 'codex') return join(env.CODEX_HOME || join(homedir(), '.codex'), 'config.toml');
  return join(env.GEMINI_CLI_HOME || homedir(), '.gemini', 'trustedFolders.json');
}

function geminiRules(text: string | null): Record<string, string> {
  if (!text || text.trim() === '') return {};
  try {
    const data = JSON.parse(text) as unknown;
    return data && typeof data === 'object' && !Array.isArray(data) ? (data as Record<string, string>) : {};
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

/** Gemini CLI's trusted folders with `folder` trusted (as they are when it already is). */
export function geminiTrust(text: string | null, folder: string): string {
  if (geminiTrusts(text, folder)) return text ?? '';
  return `${JSON.stringify({ ...geminiRules(text), [folder]: 'TRUST_FOLDER' }, null, 2)}\n`;
}
