import type { AppContext } from '../../app/app.js';
import type { SessionRow, SessionWithCounts } from '../../store/sessions-store.js';
import type { ClientIdentity, ReleaseMode, SessionsService } from './sessions-service.js';

export interface ConnectionOrigin {
  /** Folder the client runs in: the project of a session started on first use. */
  cwd: string;
  /** Client name as it introduced itself (e.g. "claude-code"), once known. */
  client: () => string | null;
  pid: number;
  /**
   * Who the client is (its session id and process), so that this connection, the client's hooks
   * and the git guard share one session. Without it every connection has a session of its own.
   */
  identity?: () => ClientIdentity;
}

/**
 * One client connection (a stdio server process, or one session of a shared server). It owns the
 * connection's session: the one used whenever a tool omits `session_id`, started on first use.
 */
export class Connection {
  private sessionId: string | null = null;
  private cachedIdentity: ClientIdentity | undefined;

  constructor(
    private readonly app: AppContext,
    private readonly sessions: SessionsService,
    private readonly origin: ConnectionOrigin,
  ) {}

  get currentId(): string | null {
    return this.sessionId;
  }

  /** The folder the client runs in. */
  get cwd(): string {
    return this.origin.cwd;
  }

  /**
   * The connection's session: the client's (see `SessionsService.attach`), else one started in the
   * working folder on first use (or when the previous one ended).
   */
  current(): SessionRow {
    if (this.sessionId) {
      const row = this.app.store.sessions.get(this.sessionId);
      if (row && row.status === 'active') return row;
    }
    const create = { projectRoot: this.origin.cwd, client: this.origin.client(), pid: this.origin.pid };
    const identity = this.identity();
    const session = identity
      ? this.sessions.attach(identity, this.sessions.locate(this.origin.cwd).worktree, create)!
      : this.sessions.start(create).session;
    this.sessionId = session.id;
    return session;
  }

  /**
   * `collab_session_start`: names the client's session if it already has one in that folder's
   * worktree, otherwise starts one there (ending the one the connection had elsewhere).
   */
  start(
    name: string | undefined,
    projectRoot: string,
  ): { session: SessionRow; others: SessionWithCounts[]; resumed: boolean } {
    const location = this.sessions.locate(projectRoot);
    const identity = this.identity();
    const existing = identity
      ? this.sessions.attach(identity, location.worktree, null)
      : this.sessionId
        ? (this.app.store.sessions.get(this.sessionId) ?? null)
        : null;
    if (existing && existing.status === 'active' && existing.worktree === location.worktree) {
      const session = name?.trim() ? this.sessions.rename(existing, name.trim()) : existing;
      this.sessionId = session.id;
      const others = this.sessions.liveInProject(session.project_id).filter((s) => s.id !== session.id);
      return { session, others, resumed: true };
    }
    if (existing && existing.status === 'active') {
      this.sessions.end(existing.id, 'complete', 'replaced by collab_session_start');
    }
    const started = this.sessions.start({
      name,
      projectRoot,
      client: existing?.client ?? this.origin.client(),
      pid: this.origin.pid,
      ...(identity ? { identity } : {}),
    });
    this.sessionId = started.session.id;
    return { ...started, resumed: false };
  }

  /** A session given by id, or the connection's own; either must be able to act. */
  resolve(sessionId: string | undefined): SessionRow {
    if (sessionId === undefined || sessionId === this.sessionId) return this.current();
    return this.sessions.requireLive(sessionId);
  }

  forget(sessionId: string): void {
    if (this.sessionId === sessionId) this.sessionId = null;
  }

  /** Every tool call is a heartbeat for the connection's session (and a timer adds more). */
  heartbeat(): void {
    if (this.sessionId) this.app.store.sessions.heartbeat(this.sessionId, this.app.now());
  }

  /** The client went away: end its session, abandoning what it still held. */
  close(reason: string, mode: ReleaseMode = 'abandon'): void {
    if (!this.sessionId) return;
    const id = this.sessionId;
    this.sessionId = null;
    try {
      this.sessions.end(id, mode, reason);
    } catch (error) {
      this.app.log.warn('session.end_failed', { session: id, error: (error as Error).message });
    }
  }

  private identity(): ClientIdentity | null {
    if (!this.origin.identity) return null;
    this.cachedIdentity ??= this.origin.identity();
    return this.cachedIdentity;
  }
}
