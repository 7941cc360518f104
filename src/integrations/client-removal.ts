/**
 * What `init --remove` writes: what `init` put in each client's files taken out again (our MCP
 * server, our hooks, the collaboration rules block, the line that keeps Claude Code's local
 * approval out of git), everything else kept as it is. A file left with nothing of anyone else's
 * in it goes (null).
 */
import {
  type ClientName,
  CURSOR_RULES,
  CURSOR_RULES_HEAD,
  CURSOR_RULES_UNMARKED,
  GITIGNORE_WHY,
  mergeCursorHooks,
  mergeHooks,
  rulesBlock,
  SERVER_NAME,
} from './client-setup.js';
import { removeCodexServer } from './codex-toml.js';
import { editSettings, readSettings } from './jsonc-settings.js';

export interface PlannedRemoval {
  path: string;
  purpose: string;
  /** The file's text without what init wrote; null: the file goes. */
  after: string | null;
}

const isEmpty = (v: unknown) =>
  v === undefined || (v !== null && typeof v === 'object' && Object.keys(v as object).length === 0);

/** Settings with `keys` dropped where they are left empty; null when nothing else is left. */
function tidy(text: string, path: string, keys: string[], besides: string[] = []): string | null {
  const data = readSettings(text, path);
  const edits = keys.filter((k) => k in data && isEmpty(data[k])).map((k) => ({ at: [k], value: undefined }));
  const out = edits.length > 0 ? editSettings(text, path, edits) : text;
  const left = Object.keys(readSettings(out, path)).filter((k) => !besides.includes(k));
  return left.length === 0 ? null : out;
}

/** A settings file without our MCP server (and, `hooks`, without our hooks). */
export function withoutOurs(text: string, path: string, hooks: boolean): string | null {
  const data = readSettings(text, path);
  const servers = data.mcpServers as Record<string, unknown> | undefined;
  let out =
    servers && typeof servers === 'object' && SERVER_NAME in servers
      ? editSettings(text, path, [{ at: ['mcpServers', SERVER_NAME], value: undefined }])
      : text;
  if (hooks) out = mergeHooks(out, path, {});
  return tidy(out, path, ['mcpServers', 'hooks']);
}

/** Cursor's hooks.json without our hooks (its `version` alone is nothing left). */
export function withoutCursorHooks(text: string, path: string): string | null {
  return tidy(mergeCursorHooks(text, path, {}), path, ['hooks'], ['version']);
}

/** A JSON array setting without `value` (e.g. Claude Code's `enabledMcpjsonServers`). */
export function withoutArrayValue(text: string, path: string, key: string, value: string): string | null {
  const data = readSettings(text, path);
  const list = Array.isArray(data[key]) ? (data[key] as unknown[]) : null;
  if (!list?.includes(value)) return text;
  const kept = list.filter((v) => v !== value);
  const out = editSettings(text, path, [{ at: [key], value: kept.length > 0 ? kept : undefined }]);
  return tidy(out, path, []);
}

/** A Markdown instructions file without the collaboration rules block; null when nothing is left. */
export function withoutRules(text: string, path: string): string | null {
  const at = rulesBlock(text, path);
  if (!at) return text;
  const before = text.slice(0, at.start).replace(/\n+$/, '');
  const after = text.slice(at.end).replace(/^\n+/, '');
  const out = before === '' ? after : after === '' ? `${before}\n` : `${before}\n\n${after}`;
  return out.trim() === '' ? null : out;
}

/** Cursor's rules file without our rules: null (removed) when only its front matter is left. */
export function withoutCursorRules(text: string): string | null {
  if (text === CURSOR_RULES_UNMARKED) return null;
  const at = rulesBlock(text, CURSOR_RULES);
  if (!at) return text;
  const rest = text.slice(0, at.start) + text.slice(at.end).replace(/^\n/, '');
  return rest.trim() === CURSOR_RULES_HEAD.trim() || rest.trim() === '' ? null : rest;
}

/** A .gitignore without the entry init added under its comment; null when nothing is left. */
export function withoutGitignoreEntry(text: string, entry: string): string | null {
  const lines = text.split('\n');
  const at = lines.findIndex((l, i) => l === `# ${GITIGNORE_WHY}` && lines[i + 1] === entry);
  if (at === -1) return text;
  lines.splice(at, 2);
  if (at > 0 && lines[at - 1] === '' && (lines[at] === undefined || lines[at] === ''))
    lines.splice(at - 1, 1);
  const out = lines.join('\n');
  return out.trim() === '' ? null : out;
}

/** Everything `init --remove` writes for one client, given what the files hold now (null: missing). */
export function planRemoval(client: ClientName, read: (path: string) => string | null): PlannedRemoval[] {
  const plan: PlannedRemoval[] = [];
  const file = (path: string, purpose: string, change: (text: string) => string | null) => {
    const text = read(path);
    if (text !== null) plan.push({ path, purpose, after: change(text) });
  };
  switch (client) {
    case 'claude':
      file('.mcp.json', 'MCP server', (t) => withoutOurs(t, '.mcp.json', false));
      file('.claude/settings.json', 'hooks', (t) => withoutOurs(t, '.claude/settings.json', true));
      file('.claude/settings.local.json', 'approval of the MCP server', (t) =>
        withoutArrayValue(t, '.claude/settings.local.json', 'enabledMcpjsonServers', SERVER_NAME),
      );
      file('CLAUDE.md', 'collaboration rules', (t) => withoutRules(t, 'CLAUDE.md'));
      file('.gitignore', 'the line for .claude/settings.local.json', (t) =>
        withoutGitignoreEntry(t, '.claude/settings.local.json'),
      );
      break;
    case 'codex':
      file('.codex/hooks.json', 'hooks', (t) => withoutOurs(t, '.codex/hooks.json', true));
      file('.codex/config.toml', 'MCP server', (t) => {
        const out = removeCodexServer(t);
        return out.trim() === '' ? null : out;
      });
      file('AGENTS.md', 'collaboration rules', (t) => withoutRules(t, 'AGENTS.md'));
      break;
    case 'gemini':
      file('.gemini/settings.json', 'MCP server and hooks', (t) =>
        withoutOurs(t, '.gemini/settings.json', true),
      );
      file('GEMINI.md', 'collaboration rules', (t) => withoutRules(t, 'GEMINI.md'));
      break;
    case 'cursor':
      file('.cursor/mcp.json', 'MCP server', (t) => withoutOurs(t, '.cursor/mcp.json', false));
      file('.cursor/hooks.json', 'hooks', (t) => withoutCursorHooks(t, '.cursor/hooks.json'));
      file(CURSOR_RULES, 'collaboration rules', withoutCursorRules);
      break;
  }
  return plan.filter((p) => p.after !== read(p.path));
}
