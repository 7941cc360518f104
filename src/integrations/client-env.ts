/**
 * What a client tells the processes it starts about its session, through their environment.
 * - `SESSION_COLLAB_SESSION_ID`: an id an orchestrator chose for one of its agents; connections
 *   and hooks with the same id are one session.
 * - `CLAUDE_CODE_SESSION_ID`: Claude Code's session id, given to its MCP servers and inherited by
 *   every command its Bash tool runs. `CLAUDE_CODE_CHILD_SESSION` marks a process started from an
 *   agent's shell, where the id is the parent's, not its own.
 */
export function ownClientSessionId(env: NodeJS.ProcessEnv): string | null {
  if (env.SESSION_COLLAB_SESSION_ID) return env.SESSION_COLLAB_SESSION_ID;
  if (env.CLAUDE_CODE_CHILD_SESSION) return null;
  return env.CLAUDE_CODE_SESSION_ID || null;
}

/**
 * The client session id of a command run from an agent's shell (the git guard): the agent's own,
 * inherited. Whether it really is the caller's client is checked against its process.
 */
export function shellClientSessionId(env: NodeJS.ProcessEnv): string | null {
  return env.SESSION_COLLAB_SESSION_ID || env.CLAUDE_CODE_SESSION_ID || null;
}
