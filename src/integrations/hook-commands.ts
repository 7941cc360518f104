/**
 * The commands `init` writes into clients' hook settings run `session-collab hook <event>`, the
 * event in our words (`pre-tool-use`…) or, for Cursor, in Cursor's (`preToolUse`…): by the word the
 * hook can tell which settings file ran it.
 */

/** Cursor's hook events we install, in its names (as they appear in `.cursor/hooks.json`). */
export const CURSOR_HOOK_EVENTS = [
  'sessionStart',
  'sessionEnd',
  'preToolUse',
  'beforeShellExecution',
  'afterFileEdit',
  'postToolUse',
  'stop',
] as const;

const OUR_EVENTS = [
  'session-start',
  'session-end',
  'pre-tool-use',
  'post-tool-use',
  'user-prompt-submit',
  'turn-end',
  'wake',
  ...CURSOR_HOOK_EVENTS,
];
const OUR_HOOK = new RegExp(`(session-collab|cli\\.cjs)'?\\s+hook\\s+'?(${OUR_EVENTS.join('|')})\\b`);

/** Whether a hook command is one of ours (any install, any path). */
export function isOurHook(command: unknown): boolean {
  return typeof command === 'string' && OUR_HOOK.test(command);
}

/** Whether `hook <event>` was run by Cursor's own hooks file (it names the event in Cursor's words). */
export function isCursorHookEvent(event: string): boolean {
  return (CURSOR_HOOK_EVENTS as readonly string[]).includes(event);
}
