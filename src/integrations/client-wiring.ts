/**
 * How the project in a folder is wired to session-collab, as `doctor` reports it: each client's
 * files that `init` writes (the MCP server, the hooks and the command they run), Codex CLI's and
 * Gemini CLI's trust, the commit guard, and the command on PATH. Each finding says how to fix it.
 */
import { accessSync, constants, existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';
import { splitCommands } from '../core/shell-words.js';
import { type ClientName, detectClients, SERVER_NAME } from './client-setup.js';
import { codexTrustFolders, geminiTrusts, samePath, trustFile } from './client-trust.js';
import { codexHookHashes } from './codex-hook-trust.js';
import {
  codexEnvMissing,
  codexTransport,
  codexTrustHooks,
  codexTrusts,
  hasCodexServer,
} from './codex-toml.js';
import { guardInstalled } from './git-hooks.js';
import { CURSOR_HOOK_EVENTS, isOurHook } from './hook-commands.js';
import { readSettings } from './jsonc-settings.js';

export interface WiringFinding {
  name: string;
  ok: boolean;
  detail: string;
  hint?: string;
}

/** The hook events each client needs for claims to be enforced, in its own names. */
const HOOK_EVENTS: Partial<Record<ClientName, string[]>> = {
  claude: ['SessionStart', 'SessionEnd', 'UserPromptSubmit', 'PreToolUse', 'PostToolUse', 'Stop'],
  gemini: ['SessionStart', 'SessionEnd', 'BeforeAgent', 'BeforeTool', 'AfterTool', 'AfterAgent'],
  codex: ['SessionStart', 'SessionEnd', 'UserPromptSubmit', 'PreToolUse', 'PostToolUse', 'Stop'],
  cursor: [...CURSOR_HOOK_EVENTS],
};

/** A settings file's object (comments allowed, as the clients allow them), or null. */
function readJson(path: string): Record<string, unknown> | null {
  try {
    return readSettings(readFileSync(path, 'utf8'), path);
  } catch {
    return null;
  }
}

/** A file's text, or null when it cannot be read. */
export function readText(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
}

/** Where a command runs from: a path that exists, or a name found on PATH (null: not found). */
export function whichCommand(command: string, env: NodeJS.ProcessEnv = process.env): string | null {
  const runnable = (path: string) => {
    try {
      accessSync(path, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  };
  if (command.includes('/')) return runnable(command) ? command : null;
  for (const dir of (env.PATH ?? '').split(delimiter))
    if (dir && runnable(join(dir, command))) return join(dir, command);
  return null;
}

/** The program (and script) our hook command runs, from its text. */
function hookProgram(command: string): { program: string; script: string | null } | null {
  const words = splitCommands(command).find((w) => w.includes('hook'));
  if (!words) return null;
  // `… then exec session-collab hook …` (the guarded form init writes).
  let start = 0;
  while (['then', 'exec', 'else', 'do'].includes(words[start] ?? '')) start++;
  const run = words.slice(start);
  const at = run.indexOf('hook');
  if (at < 1) return null;
  return { program: run[0]!, script: run.slice(1, at).find((w) => w.includes('/')) ?? null };
}

/**
 * Our hooks in a settings file's `hooks`: the events that have one, and the first command. Groups
 * of hooks (Claude Code, Gemini CLI, Codex CLI) or flat entries (Cursor).
 */
function ourHooks(settings: Record<string, unknown> | null): { events: Set<string>; command: string | null } {
  const events = new Set<string>();
  let command: string | null = null;
  type Entry = { command?: unknown; hooks?: Array<{ command?: unknown }> };
  const hooks = (settings?.hooks ?? {}) as Record<string, Entry[]>;
  for (const [event, groups] of Object.entries(hooks)) {
    if (!Array.isArray(groups)) continue;
    for (const g of groups)
      for (const h of Array.isArray(g?.hooks) ? g.hooks : [g])
        if (isOurHook(h?.command)) {
          events.add(event);
          command ??= h.command as string;
        }
  }
  return { events, command };
}

function hooksFinding(
  client: 'claude' | 'gemini' | 'codex' | 'cursor',
  root: string,
  file: string,
  env: NodeJS.ProcessEnv,
): WiringFinding {
  const name = `${client} hooks`;
  const { events, command } = ourHooks(readJson(join(root, file)));
  const missing = (HOOK_EVENTS[client] ?? []).filter((e) => !events.has(e));
  if (missing.length > 0)
    return {
      name,
      ok: false,
      detail: `${file}: no session-collab hook for ${missing.join(', ')}: edits are not checked`,
      hint: `Run session-collab init --client ${client} in ${root}.`,
    };
  const program = command ? hookProgram(command) : null;
  const found = program ? whichCommand(program.program, env) : null;
  const scriptThere = !program?.script || existsSync(program.script);
  if (!program || !found || !scriptThere)
    return {
      name,
      ok: false,
      detail: `${file}: the hooks run ${program ? [program.program, program.script].filter(Boolean).join(' ') : 'a command'}, which is not on this machine`,
      hint: `Put session-collab on PATH (in a clone of it: npm link), or run session-collab init --client ${client} --command <how this machine runs it>.`,
    };
  return {
    name,
    ok: true,
    detail: `${file}: all ${events.size} hooks, running ${[found, program.script].filter(Boolean).join(' ')}`,
  };
}

/**
 * Whether Codex trusts each of our hooks in the project's `.codex/hooks.json` (by the hash it
 * computes): an untrusted or changed one is skipped in silence.
 */
function codexHooksTrusted(root: string, userFile: string): WiringFinding {
  const file = join(root, '.codex', 'hooks.json');
  const text = readText(file);
  const hashes = text === null ? [] : codexHookHashes(file, text);
  const user = readText(userFile);
  const untrusted = hashes.filter((h) => codexTrustHooks(user, [h], userFile) !== (user ?? ''));
  return untrusted.length === 0
    ? {
        name: 'codex hook trust',
        ok: true,
        detail: `${userFile} trusts the ${hashes.length} session-collab hooks`,
      }
    : {
        name: 'codex hook trust',
        ok: false,
        detail: `${untrusted.length} of the ${hashes.length} session-collab hooks in .codex/hooks.json are not trusted (or changed since): Codex skips them in silence, so edits are not checked`,
        hint: `Run session-collab init --client codex --trust in ${root} (or review the hooks when Codex asks).`,
      };
}

/**
 * A session-collab server in the user's Codex config (every project) that reaches the hub another
 * way than the project's: Codex merges the two tables into one it cannot start ("url is not
 * supported for stdio"). What is wrong and the fix, or null.
 */
export function codexConflict(
  userFile: string,
  userText: string | null,
  projectText: string | null,
): { detail: string; hint: string } | null {
  const user = codexTransport(userText);
  const project = codexTransport(projectText);
  if (!user || !project || user === project) return null;
  return {
    detail: `${userFile} also has a session-collab server (${user}), and Codex merges it with this project's (${project}) into one it cannot start`,
    hint: `Remove [mcp_servers.${SERVER_NAME}] from ${userFile} (\`codex mcp remove ${SERVER_NAME}\` does), or set this project up with the same transport (session-collab init --client codex${user === 'http' ? ' --transport http' : ''}).`,
  };
}

/**
 * The settings file that enables the session-collab Claude Code plugin for this project (the
 * project's, its local one, or the user's), or null. The plugin brings its own server and hooks.
 */
export function claudePluginFile(root: string, env: NodeJS.ProcessEnv = process.env): string | null {
  const user = join(env.CLAUDE_CONFIG_DIR || join(homedir(), '.claude'), 'settings.json');
  for (const file of [
    join(root, '.claude', 'settings.local.json'),
    join(root, '.claude', 'settings.json'),
    user,
  ]) {
    const enabled = (readJson(file)?.enabledPlugins ?? {}) as Record<string, unknown>;
    if (Object.entries(enabled).some(([id, on]) => id.startsWith(`${SERVER_NAME}@`) && on === true))
      return file;
  }
  return null;
}

/** What `doctor` finds of the wiring of the project at `root` (a git worktree). */
export function wiringFindings(root: string, env: NodeJS.ProcessEnv = process.env): WiringFinding[] {
  const out: WiringFinding[] = [];
  const clients = detectClients((p) => existsSync(join(root, p)));
  const plugin = claudePluginFile(root, env);
  // A repository not set up for any client is not a problem of this machine: said, not counted.
  if (clients.length === 0 && !plugin)
    out.push({
      name: 'clients',
      ok: true,
      detail: `${root}: no client is set up for session-collab here (session-collab init sets them up)`,
    });
  /** Whether the client's file names our server, said with the fix when not. */
  const server = (client: ClientName, file: string, present: boolean): WiringFinding =>
    present
      ? { name: `${client} server`, ok: true, detail: `${file}: session-collab` }
      : {
          name: `${client} server`,
          ok: false,
          detail: `${file}: no session-collab server`,
          hint: `Run session-collab init --client ${client} in ${root}.`,
        };
  const inJson = (file: string) =>
    SERVER_NAME in ((readJson(join(root, file))?.mcpServers ?? {}) as Record<string, unknown>);
  if (plugin) {
    const twice = inJson('.mcp.json');
    out.push(
      twice
        ? {
            name: 'claude plugin',
            ok: false,
            detail: `${plugin} enables the session-collab plugin, and this project sets session-collab up too: Claude Code runs two session-collab servers, and every hook twice`,
            hint: `Keep one: claude plugin uninstall ${SERVER_NAME}@${SERVER_NAME} (or disable it for this project), or take session-collab out of .mcp.json and .claude/settings.json here.`,
          }
        : {
            name: 'claude plugin',
            ok: true,
            detail: `${plugin} enables the session-collab plugin: its server and hooks serve Claude Code here`,
          },
    );
  }
  /** Whether a client that reads the project's files only where trusted trusts this one. */
  const trust = (client: 'codex' | 'gemini'): WiringFinding => {
    const trusted =
      client === 'codex'
        ? codexTrusts(readText(trustFile('codex', env)), codexTrustFolders(root), samePath)
        : geminiTrusts(readText(trustFile('gemini', env)), root);
    const own =
      client === 'codex'
        ? 'Codex CLI ignores .codex/config.toml'
        : 'Gemini CLI ignores .gemini/settings.json';
    return {
      name: `${client} trust`,
      ok: trusted,
      detail: trusted ? `${root} is trusted` : `${root} is not trusted: ${own} here`,
      hint: `Run session-collab init --client ${client} --trust${client === 'gemini' ? ' (or trust the folder when Gemini CLI asks)' : ''}.`,
    };
  };
  for (const client of clients) {
    if (client === 'claude') {
      if (plugin && !inJson('.mcp.json')) continue; // the plugin serves it
      out.push(server('claude', '.mcp.json', inJson('.mcp.json')));
      out.push(hooksFinding('claude', root, '.claude/settings.json', env));
    } else if (client === 'gemini') {
      out.push(server('gemini', '.gemini/settings.json', inJson('.gemini/settings.json')));
      out.push(hooksFinding('gemini', root, '.gemini/settings.json', env));
      out.push(trust('gemini'));
    } else if (client === 'codex') {
      const toml = readText(join(root, '.codex', 'config.toml')) ?? '';
      const has = hasCodexServer(toml);
      const userFile = trustFile('codex', env);
      const conflict = has ? codexConflict(userFile, readText(userFile), toml) : null;
      const missing = has && !conflict ? codexEnvMissing(toml) : [];
      out.push(
        conflict
          ? { name: 'codex server', ok: false, ...conflict }
          : missing.length > 0
            ? {
                name: 'codex server',
                ok: false,
                detail: `.codex/config.toml starts session-collab without passing ${missing.join(', ')}: Codex gives a server only the variables its env_vars names, so with SESSION_COLLAB_HOME or a team database set, its server and its hooks would work in different databases`,
                hint: 'Run session-collab init --client codex again (it adds env_vars).',
              }
            : server('codex', '.codex/config.toml', has),
      );
      out.push(trust('codex'));
      out.push(hooksFinding('codex', root, '.codex/hooks.json', env));
      out.push(codexHooksTrusted(root, userFile));
    } else if (client === 'cursor') {
      out.push(server('cursor', '.cursor/mcp.json', inJson('.cursor/mcp.json')));
      out.push(hooksFinding('cursor', root, '.cursor/hooks.json', env));
    }
  }
  // The guard is optional: said, not counted as a problem.
  out.push({
    name: 'commit guard',
    ok: true,
    detail: guardInstalled(root)
      ? 'installed: commits touching files a live session holds are refused'
      : 'not installed (optional: session-collab guard install refuses commits touching files a live session holds)',
  });
  const onPath = whichCommand('session-collab', env);
  out.push({
    name: 'on PATH',
    ok: true,
    detail: onPath
      ? `session-collab is ${onPath}`
      : 'session-collab is not on PATH (files written with --command session-collab need it; in a clone of session-collab: npm link)',
  });
  return out;
}
