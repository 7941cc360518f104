import { LIMITS } from '../core/limits.js';

/**
 * Where a process finds the client session it acts for, by what it is:
 * - `SESSION_COLLAB_SESSION_ID`: an id an orchestrator chose for one of its agents. It comes first
 *   everywhere: connections and hooks with the same id are one session.
 * - `CLAUDE_CODE_SESSION_ID`: Claude Code's session id, given to its MCP servers and inherited by
 *   every command its Bash tool runs. `CLAUDE_CODE_CHILD_SESSION` marks a process started from an
 *   agent's shell (Claude Code removes it for its own servers), where the id is the parent's.
 * - `CURSOR_CONVERSATION_ID`: Cursor's conversation, set for the commands its agent's shell runs.
 * - a hook's input `session_id` (Cursor's `conversation_id`): the client's own word.
 * An id longer than `LIMITS.clientSessionIdChars` is no id (it would be stored and indexed).
 */
const bounded = (id: string | null | undefined): string | null =>
  id && id.length <= LIMITS.clientSessionIdChars ? id : null;

/** The client session of an MCP server the client started. */
export function serverClientSessionId(env: NodeJS.ProcessEnv): string | null {
  return (
    bounded(env.SESSION_COLLAB_SESSION_ID) ??
    (env.CLAUDE_CODE_CHILD_SESSION ? null : bounded(env.CLAUDE_CODE_SESSION_ID))
  );
}

/**
 * The client session of a command run from an agent's shell (the git guard): the agent's own,
 * inherited. Whether it really is the caller's client is checked against its process.
 */
export function shellClientSessionId(env: NodeJS.ProcessEnv): string | null {
  return (
    bounded(env.SESSION_COLLAB_SESSION_ID) ??
    bounded(env.CLAUDE_CODE_SESSION_ID) ??
    bounded(env.CURSOR_CONVERSATION_ID)
  );
}

/** The client session of a hook: the orchestrator's id when it gave one, else the hook input's. */
export function hookClientSessionId(env: NodeJS.ProcessEnv, fromInput: string | null): string | null {
  return bounded(env.SESSION_COLLAB_SESSION_ID) ?? bounded(fromInput);
}
