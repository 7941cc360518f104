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

/** Whether a hook's input comes from Cursor (its own hooks, or Claude Code's that it runs). */
export function isCursorInput(data: Record<string, unknown>): boolean {
  return typeof data.conversation_id === 'string' && 'generation_id' in data;
}

/** Cursor's file-writing tools (`preToolUse`), and the keys its input may name the file by. */
export const CURSOR_FILE_TOOLS = new Set([
  'Write',
  'StrReplace',
  'Edit',
  'MultiEdit',
  'Delete',
  'EditNotebook',
  'ApplyPatch',
]);
export const CURSOR_PATH_KEYS = ['file_path', 'path', 'target_file', 'target_notebook'];

/**
 * The tool call a Cursor event is about, in the shape its `preToolUse` gives: a shell command
 * (`beforeShellExecution`) is a `Shell` call, an edit reported after the fact (`afterFileEdit`) a
 * `Write` of its file.
 */
export function cursorToolCall(data: Record<string, unknown>): {
  toolName: string | null;
  toolInput: Record<string, unknown>;
} {
  const event = data.hook_event_name;
  if (event === 'beforeShellExecution')
    return {
      toolName: 'Shell',
      toolInput: typeof data.command === 'string' ? { command: data.command } : {},
    };
  if (event === 'afterFileEdit')
    return {
      toolName: 'Write',
      toolInput: typeof data.file_path === 'string' ? { file_path: data.file_path } : {},
    };
  const input = data.tool_input;
  return {
    toolName: typeof data.tool_name === 'string' && data.tool_name !== '' ? data.tool_name : null,
    toolInput:
      input && typeof input === 'object' && !Array.isArray(input) ? (input as Record<string, unknown>) : {},
  };
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

/** Whether one of the workspace's `.cursor/hooks.json` runs our hooks. */
export function cursorHooksInstalled(roots: string[]): boolean {
  return roots.some((root) => {
    try {
      const data = JSON.parse(readFileSync(join(root, '.cursor', 'hooks.json'), 'utf8')) as {
        hooks?: Record<string, unknown>;
      };
      return Object.values(data.hooks ?? {}).some(
        (entries) =>
          Array.isArray(entries) && entries.some((e) => isOurHook((e as { command?: unknown })?.command)),
      );
    } catch {
      return false;
    }
  });
}
