/**
 * Cursor's hook wire format (`.cursor/hooks.json`, its editor's agent and its `agent` CLI). Every
 * event's stdin carries `conversation_id` (the client session), `generation_id`, `hook_event_name`
 * in Cursor's words and `workspace_roots`. Edits are judged at `preToolUse` (tools `Write`,
 * `StrReplace`, `Delete`…, absolute paths), shell commands at `beforeShellExecution` (`command`,
 * `cwd`); `afterFileEdit` names the file an edit changed; only `sessionStart` and `postToolUse`
 * can add context for the model (`additional_context`). A stop is `{"permission": "deny"}` with
 * `user_message` and `agent_message`; only `beforeShellExecution` can ask the user.
 *
 * Cursor also runs Claude Code's hooks from `.claude/settings*.json`, with this same input: where
 * the project has our Cursor hooks, those runs answer nothing (each event is handled once).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isOurHook } from './hook-commands.js';

/** Cursor's own event names (camelCase, where Claude Code's are PascalCase). */
const CURSOR_EVENTS = new Set([
  'sessionStart',
  'sessionEnd',
  'preToolUse',
  'postToolUse',
  'postToolUseFailure',
  'beforeShellExecution',
  'afterShellExecution',
  'beforeMCPExecution',
  'afterMCPExecution',
  'beforeReadFile',
  'afterFileEdit',
  'beforeSubmitPrompt',
  'stop',
]);

/** Whether a hook's input comes from Cursor (its own hooks, or Claude Code's that it runs). */
export function isCursorInput(data: Record<string, unknown>): boolean {
  return (
    'conversation_id' in data ||
    'cursor_version' in data ||
    (typeof data.hook_event_name === 'string' && CURSOR_EVENTS.has(data.hook_event_name))
  );
}

/**
 * Cursor's tools that write files (its documentation names `Write` and `Delete`; edits have also
 * been seen as `StrReplace`, `MultiEdit`, `EditNotebook`, `ApplyPatch`): any tool whose name says
 * it writes, edits, replaces, patches or deletes. The same expression selects them in hooks.json.
 */
export const CURSOR_FILE_TOOL = 'Write|Edit|Replace|Patch|Delete|Notebook';
const FILE_TOOL = new RegExp(CURSOR_FILE_TOOL);
export function isCursorFileTool(name: string): boolean {
  return FILE_TOOL.test(name);
}

/** The keys a Cursor tool's input may name its file by (absolute paths). */
export const CURSOR_PATH_KEYS = ['file_path', 'path', 'target_file', 'target_notebook'];

/** A tool's input as an object (Cursor sends some as JSON text). */
function objectOf(value: unknown): Record<string, unknown> {
  if (typeof value === 'string' && value.length <= 8 * 1024 * 1024) {
    try {
      return objectOf(JSON.parse(value));
    } catch {
      return {};
    }
  }
  return value && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}

/**
 * The tool call a Cursor event is about, in the shape its `preToolUse` gives: a shell command
 * (`beforeShellExecution`) is a `Shell` call, an edit reported after the fact (`afterFileEdit`) a
 * `Write` of its file (none when it names no file).
 */
export function cursorToolCall(
  data: Record<string, unknown>,
  event: string | null,
): { toolName: string | null; toolInput: Record<string, unknown> } {
  if (event === 'beforeShellExecution')
    return {
      toolName: 'Shell',
      toolInput: typeof data.command === 'string' ? { command: data.command } : {},
    };
  if (event === 'afterFileEdit')
    return typeof data.file_path === 'string' && data.file_path !== ''
      ? { toolName: 'Write', toolInput: { file_path: data.file_path } }
      : { toolName: null, toolInput: {} };
  return {
    toolName: typeof data.tool_name === 'string' && data.tool_name !== '' ? data.tool_name : null,
    toolInput: objectOf(data.tool_input),
  };
}

/**
 * The folder a Cursor event happens in: its `cwd`, else the workspace folder holding the file it
 * names (a workspace may have several), else the first.
 */
export function cursorFolder(data: Record<string, unknown>, roots: string[]): string | null {
  if (typeof data.cwd === 'string' && data.cwd !== '') return data.cwd;
  const file = typeof data.file_path === 'string' ? data.file_path : null;
  return (file && roots.find((r) => file.startsWith(r.endsWith('/') ? r : `${r}/`))) ?? roots[0] ?? null;
}

/**
 * Cursor's answer before a tool call. Its `preToolUse` does not ask the user (an `ask` goes
 * ahead), so there an `ask` stops the call and tells the agent to ask; `beforeShellExecution` asks.
 * A warning lets the call go on with a message for the agent.
 */
export function cursorDecision(
  decision: 'deny' | 'ask' | 'warn',
  reason: string,
  clientEvent: string | null,
  askInstead: (reason: string) => string,
): Record<string, unknown> {
  if (decision === 'warn') return { permission: 'allow', agent_message: reason };
  if (decision === 'ask' && clientEvent === 'beforeShellExecution')
    return { permission: 'ask', user_message: reason, agent_message: reason };
  const text = decision === 'ask' ? askInstead(reason) : reason;
  return { permission: 'deny', user_message: text, agent_message: text };
}

/** Whether a Cursor event's answer can add context for the model. */
export function cursorTakesContext(clientEvent: string | null): boolean {
  return clientEvent === 'sessionStart' || clientEvent === 'postToolUse';
}

/**
 * Whether the workspace folder this event happens in has our Cursor hooks (its
 * `.cursor/hooks.json` runs ours before file tools and shell commands): then a run of Claude Code's
 * hooks is left to them. Read as text, comments dropped (no JSON parser on a hook's path).
 */
export function cursorHooksInstalled(roots: string[], cwd: string): boolean {
  const inside = roots
    .slice(0, MAX_ROOTS)
    .filter((r) => cwd === r || cwd.startsWith(r.endsWith('/') ? r : `${r}/`));
  return inside.some((root) => {
    try {
      const text = readFileSync(join(root, '.cursor', 'hooks.json'), 'utf8')
        .replace(/\/\*[\s\S]*?\*\//g, '')
        .replace(/^\s*\/\/.*$/gm, '');
      const lines = text.split('\n');
      const ours = (event: string) =>
        lines.some((l) => isOurHook(l) && new RegExp(`hook\\s+'?${event}\\b`).test(l));
      return ours('preToolUse') && ours('beforeShellExecution');
    } catch {
      return false;
    }
  });
}

/** Workspace folders looked at, at most (a workspace names a handful). */
const MAX_ROOTS = 20;
