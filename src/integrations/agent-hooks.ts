/**
 * The hook wire formats of the agent clients: what arrives on a hook's stdin and what it answers
 * on stdout. Claude Code (`PreToolUse`, `PostToolUse`, `UserPromptSubmit`, `SessionStart`,
 * `SessionEnd`, `Stop`; its `hookSpecificOutput` with `permissionDecision` or `additionalContext`) and
 * Gemini CLI (`BeforeTool`, `AfterTool`, `BeforeAgent`, `AfterAgent`, `SessionStart`, `SessionEnd`;
 * a top-level `decision`) send the same input fields. Codex CLI sends Claude Code's fields and events; its
 * `apply_patch` tool names the files in its patch's headers. Cursor's differ: `cursor-hooks.ts`.
 */
import {
  CURSOR_FILE_TOOL,
  CURSOR_PATH_KEYS,
  cursorDecision,
  cursorFolder,
  cursorTakesContext,
  cursorToolCall,
  isCursorFileTool,
  isCursorInput,
} from './cursor-hooks.js';
import { isCursorHookEvent } from './hook-commands.js';
import { applyPatchFiles, applyPatchText } from './patch-files.js';

export type HookFormat = 'claude' | 'gemini' | 'codex' | 'cursor';
export type HookEvent =
  | 'session-start'
  | 'session-end'
  | 'pre-tool-use'
  | 'post-tool-use'
  | 'user-prompt-submit'
  | 'turn-end'
  | 'wake';

export interface HookInput {
  format: HookFormat;
  sessionId: string | null;
  cwd: string;
  toolName: string | null;
  toolInput: Record<string, unknown>;
  /** SessionStart: why the session starts (`startup`, `resume`, `clear`, `compact`). */
  source: string | null;
  /** SessionEnd: why it ends (`clear`, `logout`, `prompt_input_exit`, `other`…). */
  reason: string | null;
  /** Claude Code: set when a subagent (Task) makes the tool call, under its parent's session id. */
  agentId: string | null;
  /** The event in the client's own words (Cursor's events differ in what they can answer). */
  clientEvent: string | null;
  /** Cursor: the workspace's folders. */
  roots: string[];
  /**
   * At a turn's end: whether this turn goes on because a turn-end hook sent the agent back
   * (Claude Code's, Codex's and Gemini CLI's `stop_hook_active`).
   */
  stopHookActive: boolean;
  /** Cursor's `stop`: how many times in a row a hook's follow-up went on with the conversation. */
  loopCount: number | null;
}

/** SessionStart sources by which the client says its new session id carries on the previous session. */
export const CONTINUING_SOURCES = new Set(['clear', 'compact', 'resume']);

const EVENT_NAMES: Record<string, HookEvent> = {
  'session-start': 'session-start',
  SessionStart: 'session-start',
  'session-end': 'session-end',
  SessionEnd: 'session-end',
  'pre-tool-use': 'pre-tool-use',
  PreToolUse: 'pre-tool-use',
  BeforeTool: 'pre-tool-use',
  'post-tool-use': 'post-tool-use',
  PostToolUse: 'post-tool-use',
  AfterTool: 'post-tool-use',
  'user-prompt-submit': 'user-prompt-submit',
  UserPromptSubmit: 'user-prompt-submit',
  BeforeAgent: 'user-prompt-submit',
  'turn-end': 'turn-end',
  Stop: 'turn-end',
  AfterAgent: 'turn-end',
  // Run in the background at a turn's end (Claude Code's asyncRewake): wakes an idle session.
  wake: 'wake',
  // Cursor
  sessionStart: 'session-start',
  sessionEnd: 'session-end',
  preToolUse: 'pre-tool-use',
  beforeShellExecution: 'pre-tool-use',
  afterFileEdit: 'post-tool-use',
  postToolUse: 'post-tool-use',
  stop: 'turn-end',
};

export function parseHookEvent(name: string): HookEvent | null {
  return Object.hasOwn(EVENT_NAMES, name) ? (EVENT_NAMES[name] ?? null) : null;
}

/**
 * Parses a hook's stdin; throws on anything that is not a JSON object. `calledAs`: the event the
 * hook was run for (its command's word), which for Cursor's own hooks names the event even when
 * the input does not.
 */
export function parseHookInput(raw: string, fallbackCwd: string, calledAs: string | null = null): HookInput {
  const data = JSON.parse(raw) as Record<string, unknown>;
  if (data === null || typeof data !== 'object' || Array.isArray(data))
    throw new Error('hook input is not a JSON object');
  const event = typeof data.hook_event_name === 'string' ? data.hook_event_name : '';
  const str = (v: unknown) => (typeof v === 'string' && v.length > 0 ? v : null);
  const strings = (v: unknown) =>
    Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
  if (isCursorInput(data)) {
    const roots = strings(data.workspace_roots).slice(0, 100);
    const clientEvent = calledAs && isCursorHookEvent(calledAs) ? calledAs : event || null;
    return {
      format: 'cursor',
      sessionId: str(data.conversation_id) ?? str(data.session_id),
      cwd: cursorFolder(data, roots) ?? fallbackCwd,
      ...cursorToolCall(data, clientEvent),
      source: null,
      reason: str(data.reason),
      agentId: null,
      clientEvent,
      roots,
      stopHookActive: false,
      loopCount: typeof data.loop_count === 'number' && data.loop_count >= 0 ? data.loop_count : null,
    };
  }
  const toolInput = data.tool_input;
  return {
    // Codex sends Claude Code's fields, and a `turn_id` with every event but SessionStart.
    format:
      GEMINI_EVENTS.has(event) || 'timestamp' in data ? 'gemini' : 'turn_id' in data ? 'codex' : 'claude',
    sessionId: str(data.session_id),
    cwd: str(data.cwd) ?? fallbackCwd,
    toolName: str(data.tool_name),
    toolInput:
      toolInput && typeof toolInput === 'object' && !Array.isArray(toolInput)
        ? (toolInput as Record<string, unknown>)
        : {},
    source: str(data.source),
    reason: str(data.reason),
    agentId: str(data.agent_id),
    clientEvent: event || null,
    roots: [],
    stopHookActive: data.stop_hook_active === true,
    loopCount: null,
  };
}

const GEMINI_EVENTS = new Set(['BeforeTool', 'AfterTool', 'BeforeAgent', 'AfterAgent']);

/** Tools that write files, by client, and where their target path is. */
const FILE_TOOLS: Record<string, string[]> = {
  // Claude Code
  Edit: ['file_path'],
  Write: ['file_path'],
  MultiEdit: ['file_path'],
  NotebookEdit: ['notebook_path'],
  // Gemini CLI
  write_file: ['file_path'],
  replace: ['file_path'],
};
const SHELL_TOOLS = new Set(['Bash', 'run_shell_command', 'Shell']);

/** A patch in `*** Begin Patch` form among a tool call's inputs (Codex's `command`, Cursor's own key). */
function patchOf(tool: Record<string, unknown>): string | null {
  if (typeof tool.command === 'string') return tool.command;
  // Or in any field, or as a word of one (`["apply_patch", "*** Begin Patch…"]`).
  const isPatch = (v: unknown): v is string =>
    typeof v === 'string' && v.trimStart().startsWith('*** Begin Patch');
  for (const value of Object.values(tool)) {
    if (isPatch(value)) return value;
    if (Array.isArray(value)) {
      const word = value.find(isPatch);
      if (word !== undefined) return word;
    }
  }
  return null;
}

/** What a tool call is about to do to files: write these paths, or run this shell command. */
export function toolTarget(input: HookInput): { files: string[] } | { command: string } | null {
  if (!input.toolName) return null;
  // Cursor, before a file tool whose input names no file known here: the whole worktree, not nothing.
  const unknownFiles =
    input.format === 'cursor' && input.clientEvent === 'preToolUse' ? { files: ['.'] } : null;
  // Codex: the patch text is the call's `command`; its headers name the files (relative to `cwd`).
  // A patch that cannot be read stands for the whole worktree.
  if (input.toolName === 'apply_patch' || (input.format === 'cursor' && input.toolName === 'ApplyPatch')) {
    const patch = patchOf(input.toolInput);
    if (patch === null) return { files: ['.'] };
    const files = applyPatchFiles(patch) ?? ['.'];
    return files.length > 0 ? { files } : null;
  }
  const keys =
    input.format === 'cursor'
      ? isCursorFileTool(input.toolName)
        ? CURSOR_PATH_KEYS
        : undefined
      : FILE_TOOLS[input.toolName];
  if (keys) {
    const files = [
      ...new Set(
        keys.map((k) => input.toolInput[k]).filter((v): v is string => typeof v === 'string' && v.length > 0),
      ),
    ];
    return files.length > 0 ? { files } : unknownFiles;
  }
  if (SHELL_TOOLS.has(input.toolName) && typeof input.toolInput.command === 'string')
    return { command: input.toolInput.command };
  return null;
}

/** The matcher that selects the file-writing tools in a client's hook settings. */
export const EDIT_TOOL_MATCHER: Record<HookFormat, string> = {
  claude: 'Edit|Write|MultiEdit|NotebookEdit',
  gemini: 'write_file|replace',
  codex: 'apply_patch',
  cursor: CURSOR_FILE_TOOL,
};
export const SHELL_TOOL_MATCHER: Record<HookFormat, string> = {
  claude: 'Bash',
  gemini: 'run_shell_command',
  codex: 'Bash',
  cursor: 'Shell',
};

/** For a client that cannot ask the user from a hook: the stop that tells the agent to ask. */
function askTheUser(reason: string): string {
  return `${reason}\n(This client cannot ask the user from a hook: ask the user whether to go ahead; with a yes, coordinate as above and try again.)`;
}

/**
 * The answer to a pre-tool-use hook. `warn` lets the call go on and tells the agent. Codex runs the
 * tool on anything but an explicit deny — an `ask`, an unknown field — so for it an `ask` is a deny
 * that says to ask the user, and the answer holds Codex's fields only.
 */
export function toolDecision(
  format: HookFormat,
  decision: 'deny' | 'ask' | 'warn',
  reason: string,
  clientEvent: string | null = null,
): Record<string, unknown> {
  if (format === 'cursor') return cursorDecision(decision, reason, clientEvent, askTheUser);
  if (format === 'codex') {
    const hookSpecificOutput =
      decision === 'warn'
        ? { hookEventName: 'PreToolUse', additionalContext: reason }
        : {
            hookEventName: 'PreToolUse',
            permissionDecision: 'deny',
            permissionDecisionReason: decision === 'ask' ? askTheUser(reason) : reason,
          };
    return { hookSpecificOutput };
  }
  if (format === 'gemini') {
    return decision === 'warn'
      ? {
          systemMessage: reason,
          hookSpecificOutput: { hookEventName: 'BeforeTool', additionalContext: reason },
        }
      : { decision, reason };
  }
  return decision === 'warn'
    ? { hookSpecificOutput: { hookEventName: 'PreToolUse', additionalContext: reason } }
    : {
        // Claude Code's prompt for an "ask" shows the edit but not the reason: the person reads it
        // as the hook's message above the prompt.
        ...(decision === 'ask' ? { systemMessage: reason } : {}),
        hookSpecificOutput: {
          hookEventName: 'PreToolUse',
          permissionDecision: decision,
          permissionDecisionReason: reason,
        },
      };
}

/**
 * At a turn's end, the answer that sends the agent back with `text` as what it is told next:
 * Claude Code and Codex block the stop with it as the reason, Gemini CLI denies the response with
 * it as a new prompt (no `stopReason`, which it would read instead), Cursor submits it as the next
 * message.
 */
export function continueTurn(format: HookFormat, text: string): Record<string, unknown> {
  if (format === 'cursor') return { followup_message: text };
  if (format === 'gemini') return { decision: 'deny', reason: text };
  return { decision: 'block', reason: text };
}

/** Context for the agent at the start of its session. */
export function sessionContext(format: HookFormat, text: string): Record<string, unknown> {
  if (format === 'cursor') return { additional_context: text };
  return { hookSpecificOutput: { hookEventName: 'SessionStart', additionalContext: text } };
}

/**
 * Whether this hook's answer reaches the model, so news may be delivered with it (news given to an
 * answer the client drops would be lost). Cursor: its `sessionStart` and `postToolUse` only.
 */
export function takesContext(input: HookInput): boolean {
  return input.format !== 'cursor' || cursorTakesContext(input.clientEvent);
}

/**
 * Whether this after-tool hook records the files its tool wrote. Cursor's `postToolUse` does not:
 * its `afterFileEdit` reports each edited file.
 */
export function recordsEdits(input: HookInput): boolean {
  return !(input.format === 'cursor' && input.clientEvent === 'postToolUse');
}

/** Context added for the model after a tool call or with the user's prompt. */
export function addedContext(
  format: HookFormat,
  event: 'post-tool-use' | 'user-prompt-submit',
  text: string,
): Record<string, unknown> {
  if (format === 'cursor') return { additional_context: text };
  const hookEventName =
    format === 'gemini'
      ? event === 'post-tool-use'
        ? 'AfterTool'
        : 'BeforeAgent'
      : event === 'post-tool-use'
        ? 'PostToolUse'
        : 'UserPromptSubmit';
  return { hookSpecificOutput: { hookEventName, additionalContext: text } };
}

/** One find-and-replace of an edit tool's input, when its fields are there. */
function replaced(text: string, edit: Record<string, unknown>): string | null {
  const { old_string: from, new_string: to } = edit;
  if (typeof from !== 'string' || typeof to !== 'string' || from === '' || !text.includes(from)) return null;
  return edit.replace_all === true ? text.split(from).join(to) : text.replace(from, () => to);
}

/**
 * The text a file-writing tool call would leave in its file, from the file's `current` text
 * (Claude Code's Write, Edit and MultiEdit; Gemini CLI's write_file and replace; Codex's apply_patch
 * of one file; Cursor's Write, StrReplace and ApplyPatch); null when it cannot be told (another
 * tool, or an edit whose text is not in the file).
 */
export function proposedText(input: HookInput, current: string): string | null {
  const tool = input.toolInput;
  switch (input.toolName) {
    case 'Write':
    case 'write_file':
      // Cursor's Write may name its text `contents`.
      return typeof tool.content === 'string'
        ? tool.content
        : typeof tool.contents === 'string'
          ? tool.contents
          : null;
    case 'Edit':
    case 'StrReplace':
    case 'replace':
      return replaced(current, tool);
    case 'apply_patch':
    case 'ApplyPatch': {
      const patch = patchOf(tool);
      return patch === null ? null : applyPatchText(patch, current);
    }
    case 'MultiEdit': {
      if (!Array.isArray(tool.edits)) return null;
      let text: string | null = current;
      for (const edit of tool.edits) {
        if (text === null || typeof edit !== 'object' || edit === null) return null;
        text = replaced(text, edit as Record<string, unknown>);
      }
      return text;
    }
    default:
      return null;
  }
}
