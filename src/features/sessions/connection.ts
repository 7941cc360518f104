import type { AppContext } from '../../app/context.js';
import { CollabError } from '../../core/errors.js';
import { shown } from '../../core/fence.js';
import {
  ANSWERED_KEPT,
  answeredCall,
  type CallRecording,
  newRecording,
  recordingWrites,
  unrecorded,
} from '../../store/call-records-store.js';
import type { SessionRow, SessionWithCounts } from '../../store/sessions-store.js';
import type { ClientIdentity, ProcessRef } from './session-types.js';
import type { SessionsService } from './sessions-service.js';

export interface ConnectionOrigin {
  /** Folder the client runs in: the project of a session started on first use. */
  cwd: string;
  /** Client name as it introduced itself (e.g. "claude-code"), once known. */
  client: () => string | null;
  /** The process serving this connection (for a stdio server, the server itself). */
  server: ProcessRef;
  /** The name of the session it starts, unless collab_session_start gives one. */
  name?: string | null;
  /**
   * Who the client is (its own session id and its process), so that this connection, the
   * client's hooks and the git guard share one session. Without it the connection has a session
   * of its own.
   */
  identity?: () => ClientIdentity;
  /** Told when the connection takes a session on (an HTTP hub records which one, for reconnects). */
  onAttach?: (sessionId: string) => void | Promise<void>;
  /**
   * The client's environment, for what runs on its behalf (agent CLIs): a relayed client's own;
   * this process's when not given (a stdio server is the client's child).
   */
  env?: NodeJS.ProcessEnv;
  /**
   * The client may be on another machine (an HTTP client with a token, or not over loopback): the
   * folder it names is one of its own machine, so nothing is run or read there on its behalf.
   */
  remote?: boolean;
  /**
   * The client may send a call again, to another server, when this one dies before answering (a
   * relay): each call's writes are recorded, so that one sent again does nothing twice.
   */
  recordsCalls?: boolean;
}

/**
 * One client connection (a stdio server process, or one session of a shared server). It owns the
 * connection's session: the one used whenever a tool omits `session_id`, started on first use,
 * and the only one it may act as.
 */
export class Connection {
  private sessionId: string | null = null;
  /** The session's row as last read; its fixed fields (id, project, start) are what others use. */
  private row: SessionRow | null = null;
  private cachedIdentity: ClientIdentity | undefined;
  private lastBeat = 0;
  /** Calls in flight whose writes are recorded, by request id (as JSON). */
  private readonly recording = new Map<string, CallRecording>();
  /** Keys of answered calls whose records are still kept (see `CallRecording.answered`). */
  private readonly answeredCalls: string[] = [];

  constructor(
    private readonly app: AppContext,
    private readonly sessions: SessionsService,
    private readonly origin: ConnectionOrigin,
  ) {}

  get currentId(): string | null {
    return this.sessionId;
  }

  /**
   * The connection's session as this connection last read it (null when it has none): enough to
   * know who it is and since when (its status and names may have changed since) without reading
   * the row again for each response.
   */
  get lastRead(): Pick<SessionRow, 'id' | 'project_id' | 'created_at'> | null {
    return this.row !== null && this.row.id === this.sessionId ? this.row : null;
  }

  /** The connection's session's whole row as last read (null when it has none). */
  get lastRow(): SessionRow | null {
    return this.row !== null && this.row.id === this.sessionId ? this.row : null;
  }

  /** The folder the client runs in. */
  get cwd(): string {
    return this.origin.cwd;
  }

  /** Whether the client may be on another machine (see `ConnectionOrigin.remote`). */
  get remote(): boolean {
    return this.origin.remote === true;
  }

  /** The client's environment (see `ConnectionOrigin.env`). */
  get env(): NodeJS.ProcessEnv {
    return this.origin.env ?? process.env;
  }

  /**
   * The connection's session: its client session's (see `ClientSessions.forConnection`), else one
   * started in the working folder on first use (or when the previous one ended).
   */
  async current(): Promise<SessionRow> {
    if (this.sessionId) {
      const row = await this.app.store.sessions.get(this.sessionId);
      if (row && row.status === 'active') {
        this.row = row;
        return row;
      }
    }
    // Calls a client sends together (they may overlap now that the store answers asynchronously)
    // open one session between them, not one each.
    // The connection's own: not a write of the call it happens in (store/call-records-store.ts).
    this.opening ??= unrecorded(() =>
      this.open({
        projectRoot: this.origin.cwd,
        client: this.origin.client(),
        name: this.origin.name ?? undefined,
      }),
    ).finally(() => {
      this.opening = null;
    });
    return this.opening;
  }

  /** The session being opened on first use, while it is. */
  private opening: Promise<SessionRow> | null = null;

  /**
   * `collab_session_start`: names this connection's session (or its client session's) if it has
   * one in that folder's worktree, otherwise starts one there (ending the one it had elsewhere).
   * Another connection's session is never resumed.
   */
  async start(
    name: string | undefined,
    projectRoot: string,
  ): Promise<{ session: SessionRow; others: SessionWithCounts[]; resumed: boolean }> {
    const location = this.sessions.locate(projectRoot);
    const identity = this.identity();
    const existing = this.sessionId
      ? ((await this.app.store.sessions.get(this.sessionId)) ?? null)
      : identity
        ? await this.sessions.clients.forConnection(identity, this.origin.server, location.worktree, null)
        : null;
    const others = async (s: SessionRow) =>
      (await this.sessions.liveInProject(s.project_id)).filter((o) => o.id !== s.id);
    if (existing && existing.status === 'active' && existing.worktree === location.worktree) {
      const session = name?.trim() ? await this.sessions.rename(existing, name.trim()) : existing;
      await this.attached(session);
      return { session, others: await others(session), resumed: true };
    }
    if (existing && existing.status === 'active') {
      await this.sessions.end(existing.id, 'complete', 'replaced by collab_session_start');
    }
    const session = await this.open({
      name: name?.trim() || this.origin.name || undefined,
      projectRoot,
      client: existing?.client ?? this.origin.client(),
    });
    return { session, others: await others(session), resumed: false };
  }

  /** The session for `create`: the client session's (found or started), else a new one of its own. */
  private async open(create: {
    projectRoot: string;
    client: string | null;
    name: string | undefined;
  }): Promise<SessionRow> {
    const identity = this.identity();
    const session = identity
      ? (await this.sessions.clients.forConnection(
          identity,
          this.origin.server,
          this.sessions.locate(create.projectRoot).worktree,
          create,
        ))!
      : (await this.sessions.start({ ...create, server: this.origin.server, pid: this.origin.server.pid }))
          .session;
    await this.attached(session);
    return session;
  }

  /**
   * The session a tool acts as: the connection's own. A `session_id` naming another live session is
   * refused (NOT_OWNER): one connection never acts as another.
   */
  async actor(sessionId: string | undefined): Promise<SessionRow> {
    const own = await this.current();
    if (sessionId === undefined || sessionId === own.id) return own;
    const other = await this.sessions.requireLive(sessionId);
    throw new CollabError(
      'NOT_OWNER',
      `Session "${other.name}" (${other.id}) belongs to another connection; this connection is session "${own.name}" (${own.id}).`,
    );
  }

  /**
   * The session whose eyes a read looks through: any session of the connection's project given by
   * id, else the connection's own. Another project's is not found from here.
   */
  async viewer(sessionId: string | undefined): Promise<SessionRow> {
    const own = await this.current();
    if (sessionId === undefined || sessionId === own.id) return own;
    const other = await this.sessions.get(sessionId);
    if (other.project_id !== own.project_id)
      throw new CollabError(
        'SESSION_NOT_FOUND',
        `No session with id ${shown(sessionId)} in this project.`,
        "See this project's sessions with collab_session_list.",
      );
    return other;
  }

  /**
   * Takes up a session this connection had before it was served by another process (an MCP session
   * over HTTP after a hub restart): false when that session has ended (the next call starts anew).
   */
  async resume(sessionId: string): Promise<boolean> {
    const session = await this.sessions.adopt(sessionId, this.origin.server);
    if (!session) return false;
    await this.attached(session);
    return true;
  }

  forget(sessionId: string): void {
    if (this.sessionId === sessionId) this.sessionId = null;
  }

  /**
   * Runs one call of the client (`id`, its request id) with its writes recorded where the client
   * may send it again (`recordsCalls`); `again` when it is such a call sent again.
   */
  recorded<T>(id: string | number, again: boolean, fn: () => Promise<T>): Promise<T> {
    if (!this.origin.recordsCalls) return fn();
    const key = JSON.stringify(id);
    const call = newRecording(
      `${this.origin.server.pid}:${this.origin.server.start}:${key}`,
      again,
      this.answeredCalls,
    );
    this.recording.set(key, call);
    // Calls never answered (cancelled) are not kept for ever.
    if (this.recording.size > ANSWERED_KEPT) {
      const [oldest, left] = this.recording.entries().next().value!;
      left.over = true;
      this.recording.delete(oldest);
    }
    return recordingWrites(call, fn);
  }

  /**
   * The answer to the call `id` is on its way to the client (handed to the system): what its
   * writes recorded is forgotten with the connection's next write.
   */
  answered(id: string | number): void {
    const key = JSON.stringify(id);
    const call = this.recording.get(key);
    if (!call) return;
    this.recording.delete(key);
    answeredCall(call);
  }

  /**
   * Every tool call is a heartbeat for the connection's session, written at most every few
   * seconds; the server's timer beats with `always`.
   */
  async heartbeat(always = false): Promise<void> {
    if (!this.sessionId || !(always || this.sessions.heartbeatDue(this.lastBeat))) return;
    await unrecorded(() => this.sessions.touch(this.sessionId!));
    this.lastBeat = this.app.now();
  }

  /** The client went away: its session ends, unless its client session lives on without it. */
  async close(reason: string): Promise<void> {
    if (!this.sessionId) return;
    const id = this.sessionId;
    this.sessionId = null;
    try {
      await this.sessions.clients.leave(id, this.origin.server, reason);
    } catch (error) {
      this.app.log.warn('session.end_failed', { session: id, error: (error as Error).message });
    }
  }

  /** Takes a session on: heard from now (a session that was silent settles what it missed). */
  private async attached(session: SessionRow): Promise<void> {
    this.row = session;
    if (this.sessionId === session.id) return;
    this.sessionId = session.id;
    await unrecorded(async () => {
      await this.origin.onAttach?.(session.id);
      await this.sessions.touch(session.id);
    });
    this.lastBeat = this.app.now();
  }

  private identity(): ClientIdentity | null {
    if (!this.origin.identity) return null;
    this.cachedIdentity ??= this.origin.identity();
    return this.cachedIdentity;
  }
}
