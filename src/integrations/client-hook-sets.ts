/**
 * The hooks `init` writes for each client (Claude Code, Codex CLI, Gemini CLI, Cursor), each in its
 * own file format and event names, and the command each runs: `session-collab hook <event>`, or,
 * where session-collab is missing on the machine, an answer that says so instead of failing in
 * silence. client-setup.ts merges them into the clients' files.
 */
import { shellQuote } from '../core/shell-words.js';
import { EDIT_TOOL_MATCHER, type HookFormat, SHELL_TOOL_MATCHER, toolDecision } from './agent-hooks.js';
import type { Launch } from './client-setup.js';

/** What a hook says when session-collab is not installed where the project's hooks call it. */
const MISSING = 'session-collab is not installed on this machine, though this project runs its hooks';
const MISSING_WHAT_TO_DO =
  'Put it on PATH (in a clone of session-collab: npm link; see its README), or remove its hooks from this project\u2019s client settings to work without it.';
export const MISSING_AT_EDIT = `${MISSING}, so this edit could not be checked against the claims of other sessions and was stopped. ${MISSING_WHAT_TO_DO}`;
const MISSING_AT_START = `${MISSING}: edits and shell commands that change files will be stopped until it is. ${MISSING_WHAT_TO_DO}`;

/**
 * The hook command for `event`. When the command it runs is missing (a teammate without
 * session-collab, a committed absolute path of another machine), it does not fail in silence:
 * at session start the user is told, and each edit or shell command is stopped with what to do
 * (an "ask" would pass unseen where the client accepts edits by itself).
 */
export function hookCommand(launch: Launch, event: string, format: HookFormat = 'claude'): string {
  const run = [launch.command, ...launch.args, 'hook', event].map(shellQuote).join(' ');
  const script = launch.args.find((a) => a.includes('/'));
  const present = [
    `command -v ${shellQuote(launch.command)} >/dev/null 2>&1`,
    ...(script ? [`[ -e ${shellQuote(script)} ]`] : []),
  ].join(' && ');
  const missing = missingAnswer(event, format);
  return missing
    ? `if ${present}; then exec ${run}; else printf '%s\\n' ${shellQuote(JSON.stringify(missing))}; fi`
    : run;
}

/** The hook's answer when session-collab is missing (null: none, for events that need none). */
function missingAnswer(event: string, format: HookFormat): Record<string, unknown> | null {
  if (format === 'cursor') {
    if (event === 'sessionStart') return { additional_context: MISSING_AT_START };
    return event === 'preToolUse' || event === 'beforeShellExecution'
      ? toolDecision('cursor', 'deny', MISSING_AT_EDIT)
      : null;
  }
  // Codex takes its own fields only (anything else runs the tool): a deny, and context at start.
  if (format === 'codex') {
    if (event === 'session-start')
      return { hookSpecificOutput: { hookEventName: 'SessionStart', additionalContext: MISSING_AT_START } };
    return event === 'pre-tool-use' ? toolDecision('codex', 'deny', MISSING_AT_EDIT) : null;
  }
  if (event === 'session-start') return { systemMessage: MISSING_AT_START };
  if (event !== 'pre-tool-use') return null;
  return format === 'gemini'
    ? { decision: 'deny', reason: MISSING_AT_EDIT, systemMessage: MISSING_AT_EDIT }
    : {
        systemMessage: MISSING_AT_EDIT,
        hookSpecificOutput: {
          hookEventName: 'PreToolUse',
          permissionDecision: 'deny',
          permissionDecisionReason: MISSING_AT_EDIT,
        },
      };
}

type HookGroup = { matcher?: string; hooks: Array<Record<string, unknown>> };
export type HooksConfig = Record<string, HookGroup[]>;
export type CursorHooksConfig = Record<string, Array<Record<string, unknown>>>;

/**
 * How long a client lets the wake hook run (seconds): past `wake_idle_minutes` at its largest, the
 * hook ends by itself first; the client would kill it without waking anyone.
 */
const WAKE_HOOK_SECONDS = 24 * 3600 + 60;

/**
 * The hooks for Claude Code (settings.json `hooks`, or a plugin's hooks/hooks.json). Before an edit
 * or a shell command: the conflict check. After every tool call (no matcher: all tools) and with
 * every prompt: edits become claims, and what other sessions said reaches the model. At a turn's
 * end: news that asks for action sends the agent back; and in the background (`asyncRewake`) a
 * wait that wakes the idle session when such news comes later.
 */
export function claudeHooks(launch: Launch): HooksConfig {
  const cmd = (event: string) => ({ type: 'command', command: hookCommand(launch, event), timeout: 10 });
  return {
    SessionStart: [{ hooks: [cmd('session-start')] }],
    SessionEnd: [{ hooks: [cmd('session-end')] }],
    UserPromptSubmit: [{ hooks: [cmd('user-prompt-submit')] }],
    PreToolUse: [
      { matcher: `${EDIT_TOOL_MATCHER.claude}|${SHELL_TOOL_MATCHER.claude}`, hooks: [cmd('pre-tool-use')] },
    ],
    PostToolUse: [{ hooks: [cmd('post-tool-use')] }],
    Stop: [
      {
        hooks: [cmd('turn-end'), { ...cmd('wake'), asyncRewake: true, timeout: WAKE_HOOK_SECONDS }],
      },
    ],
  };
}

/**
 * The hooks for Codex CLI (its `.codex/hooks.json`; timeouts in seconds): as Claude Code's, for its
 * `apply_patch` and `Bash` tools. Codex runs a project's hooks only in a trusted project, and each
 * only once trusted (`codexHookTrust`).
 */
export function codexHooks(launch: Launch): HooksConfig {
  const cmd = (event: string, timeout = 10) => ({
    type: 'command',
    command: hookCommand(launch, event, 'codex'),
    timeout,
  });
  return {
    SessionStart: [{ hooks: [cmd('session-start')] }],
    // Codex gives a SessionEnd hook 3 s at most (and hashes it so, for trust).
    SessionEnd: [{ hooks: [cmd('session-end', 3)] }],
    UserPromptSubmit: [{ hooks: [cmd('user-prompt-submit')] }],
    PreToolUse: [
      { matcher: `${EDIT_TOOL_MATCHER.codex}|${SHELL_TOOL_MATCHER.codex}`, hooks: [cmd('pre-tool-use')] },
    ],
    PostToolUse: [{ hooks: [cmd('post-tool-use')] }],
    // At a turn's end: news that asks for action sends the agent back (Codex cannot be woken).
    Stop: [{ hooks: [cmd('turn-end')] }],
  };
}

/**
 * The hooks for Cursor (its `.cursor/hooks.json`: flat entries, timeouts in seconds), named by
 * Cursor's events so the hook knows Cursor's own file ran it. Edits are judged before its file tools
 * run, shell commands before they execute; `afterFileEdit` records, `sessionStart` and `postToolUse`
 * deliver. `failClosed`: Cursor stops the call if the hook itself fails (crashes, times out).
 */
export function cursorHooks(launch: Launch, failClosed: boolean): CursorHooksConfig {
  const cmd = (event: string, timeout = 10) => ({
    command: hookCommand(launch, event, 'cursor'),
    timeout,
  });
  return {
    sessionStart: [cmd('sessionStart')],
    sessionEnd: [cmd('sessionEnd', 5)],
    preToolUse: [{ ...cmd('preToolUse'), matcher: EDIT_TOOL_MATCHER.cursor, failClosed }],
    beforeShellExecution: [{ ...cmd('beforeShellExecution'), failClosed }],
    afterFileEdit: [cmd('afterFileEdit')],
    postToolUse: [cmd('postToolUse')],
    // At the agent's end: news that asks for action is its next message (`followup_message`).
    stop: [cmd('stop')],
  };
}

/** The hooks for Gemini CLI (its settings.json `hooks`; timeouts in milliseconds). */
export function geminiHooks(launch: Launch): HooksConfig {
  const cmd = (event: string) => ({
    name: `session-collab ${event}`,
    type: 'command',
    command: hookCommand(launch, event, 'gemini'),
    timeout: 10_000,
  });
  return {
    SessionStart: [{ hooks: [cmd('session-start')] }],
    SessionEnd: [{ hooks: [cmd('session-end')] }],
    BeforeAgent: [{ hooks: [cmd('user-prompt-submit')] }],
    BeforeTool: [
      {
        matcher: `^(${EDIT_TOOL_MATCHER.gemini}|${SHELL_TOOL_MATCHER.gemini})$`,
        hooks: [cmd('pre-tool-use')],
      },
    ],
    AfterTool: [{ hooks: [cmd('post-tool-use')] }],
    // At the agent's end: news that asks for action is its next prompt.
    AfterAgent: [{ hooks: [cmd('turn-end')] }],
  };
}
