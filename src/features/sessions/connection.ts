import type { AppContext } from '../../app/app.js';
import type { SessionRow } from '../../store/sessions-store.js';
import type { ReleaseMode, SessionsService } from './sessions-service.js';

export interface ConnectionOrigin {
  /** Folder the client runs in: the project of a session started on first use. */
  cwd: string;
  /** Client name as it introduced itself (e.g. "claude-code"), once known. */
  client: () => string | null;
  pid: number;
}

/**
 * One client connection (a stdio server process, or one session of a shared server). It owns the
 * connection's session: the one used whenever a tool omits `session_id`, started on first use.
 */
export class Connection {
  private sessionId: string | null = null;

  constructor(
    private readonly app: AppContext,
    private readonly sessions: SessionsService,
    private readonly origin: ConnectionOrigin,
  ) {}

  get currentId(): string | null {
    return this.sessionId;
  }

  /** The connection's session, started in the working folder if there is none (or it ended). */
  current(): SessionRow {
    if (this.sessionId) {
      const row = this.app.store.sessions.get(this.sessionId);
      if (row && row.status === 'active') return row;
    }
    const { session } = this.sessions.start({
      projectRoot: this.origin.cwd,
      client: this.origin.client(),
      pid: this.origin.pid,
    });
    this.sessionId = session.id;
    return session;
  }

  /** A session given by id, or the connection's own; either must be able to act. */
  resolve(sessionId: string | undefined): SessionRow {
    if (sessionId === undefined || sessionId === this.sessionId) return this.current();
    return this.sessions.requireLive(sessionId);
  }

  adopt(session: SessionRow): void {
    this.sessionId = session.id;
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
}
