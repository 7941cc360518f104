/** What the sessions service takes and gives: how a session is started and recognised, and how it is shown. */
import type { SessionState } from '../../core/liveness.js';
import type { ProcessInfo } from '../../integrations/process-tree.js';

export interface StartSessionInput {
  name?: string | undefined;
  projectRoot: string;
  client?: string | null;
  /**
   * The process whose life is the session's life (the stdio server itself by default); null when
   * there is none to watch (then only the heartbeat tells).
   */
  pid?: number | null;
  /** Who the session belongs to: the client's session id and process (see `ClientSessions`). */
  identity?: ClientIdentity;
  /** The connection (server process) that acts for it, if one does. */
  server?: ProcessRef | null;
}

/** A process, told apart from a later one with the same pid by its start time. */
export interface ProcessRef {
  pid: number;
  start: string | null;
}

/** How a client session is recognised by every process that acts for it. */
export interface ClientIdentity {
  /**
   * The client's own session id (Claude Code's `session_id`), when it has one: never one inherited
   * from another agent's environment (see `ClientSessions`).
   */
  sessionId: string | null;
  /** The client process (Claude Code, Codex…), found by walking up the process tree. */
  process: ProcessInfo | null;
}

export interface SessionView {
  id: string;
  name: string;
  status: SessionState;
  active_claims: number;
  last_heartbeat: string;
  started_at: string;
  branch: string | null;
  client: string | null;
  /** The machine it works on. */
  host: string;
  /** The copy of the repository it works in (its worktree, on its machine). */
  worktree: string;
}

export type ReleaseMode = 'complete' | 'abandon';

/** What `stop` tells of an ended session. */
export interface SessionSummary {
  session_id: string;
  duration_seconds: number;
  rfc: string | null;
  claims: number;
  files: string[];
  messages_sent: number;
  messages_read: number;
  contract_changes: number;
  work_submitted: number;
  reviews: number;
  released_claims: number;
}
