import type { AppContext } from '../../app/context.js';
import { processAlive, processStartTime } from '../../integrations/process-probe.js';
import { type ProcessInfo, processNamed } from '../../integrations/process-tree.js';
import type { SessionRow } from '../../store/sessions-store.js';
import type { ClaimsService } from '../claims/claims-service.js';
import { stateOf } from './liveness.js';
import type { ClientIdentity, ProcessRef, StartSessionInput } from './session-types.js';
import type { SessionsService } from './sessions-service.js';

/** What a hook or the git guard found: its session, or the sessions it cannot tell apart. */
export interface HookSession {
  session: SessionRow | null;
  /**
   * Live sessions of the client process when it has several and nothing says which is this one:
   * an edit is then judged against the claims of every other process's sessions, and nobody's
   * claims grow.
   */
  ambiguous: SessionRow[];
}

/** The process itself, as a `ProcessRef`. */
/**
 * A client process on this host that another process named by pid and start time (the hub hears it
 * from a client's `hub-headers`): null unless that process lives and started then.
 */
export function namedClientProcess(pid: number, start: string): ProcessInfo | null {
  return processNamed(pid, start);
}

export function ownProcess(): ProcessRef {
  return { pid: process.pid, start: processStartTime(process.pid) };
}

/**
 * Which collab session a connection, a hook or the git guard acts for, decided on evidence only
 * (docs/architecture.md, "Sessions across processes"):
 * - A client session id names one session. It is the client's own word when it comes from the
 *   client (a hook's input, a server started by the client); a session already bound to it whose
 *   client is another live process is not this caller's (the id was inherited: an agent run from
 *   another agent's shell).
 * - Without an id, the client process stands in only when it has exactly one live session in the
 *   worktree that no other connection holds.
 * - Two live connections share a session only through the same client session id.
 * Every find-or-create is one immediate transaction, so processes starting together agree.
 */
export class ClientSessions {
  constructor(
    private readonly app: AppContext,
    private readonly sessions: SessionsService,
    private readonly claims: ClaimsService,
  ) {}

  /**
   * The session of a connection (a stdio server): the one bound to the client's session id, else
   * the one session of its client process that no connection holds, else a new one (when `create`
   * is given). The connection is recorded as the one acting for it.
   */
  async forConnection(
    identity: ClientIdentity,
    server: ProcessRef,
    worktree: string,
    create: Omit<StartSessionInput, 'identity' | 'server' | 'pid'> | null,
  ): Promise<SessionRow | null> {
    const { store } = this.app;
    // Bound to the client session id, it lives by the client; a session of the connection alone
    // lives as long as the server (see `SessionsService.prepare`).
    const insert = create ? this.sessions.prepare({ ...create, identity, server, pid: server.pid }) : null;
    const bound = identity.sessionId
      ? await store.sessions.findByClientSession(identity.sessionId)
      : undefined;
    if (bound) await this.prepareResume(bound);
    return store.write(async () => {
      let id = identity.sessionId;
      if (id) {
        const bound = await this.bound(id);
        if (bound && this.otherClient(bound, identity)) {
          this.app.log.info('identity.inherited', { client_session: id, session: bound.id });
          id = null;
        } else if (bound) {
          await this.resumeIfDead(bound, identity, server);
          // Bound on another machine until now (team mode): it is served from this one.
          if (bound.host !== this.app.host)
            await store.sessions.moveHere(bound.id, this.app.host, identity.process, server);
          else await store.sessions.setServer(bound.id, server.pid, server.start);
          return (await store.sessions.get(bound.id))!;
        } else return insert ? await insert(id) : null;
      }
      const free = (await this.liveOfProcess(identity, worktree)).filter((s) => !this.heldByOther(s, server));
      if (free.length === 1) {
        await store.sessions.setServer(free[0]!.id, server.pid, server.start);
        return free[0]!;
      }
      return insert ? await insert(null) : null;
    });
  }

  /**
   * The session of a hook or the git guard. By the client session id first; a new id is bound to
   * an existing session only when the client says the session goes on (`continues`: Claude Code's
   * SessionStart after /clear, /compact or --resume) or when the client process has exactly one
   * live session and it is bound to no id yet (only hooks bind: the guard, `create` null, only
   * looks). Without an id, the client process stands in when it has exactly one live session in
   * the worktree.
   */
  async forHook(
    identity: ClientIdentity,
    worktree: string,
    options: { create: Omit<StartSessionInput, 'identity' | 'pid' | 'server'> | null; continues?: boolean },
  ): Promise<HookSession> {
    const { store } = this.app;
    // The common case, on every tool call: the id names a live session of this client. Using it
    // decides nothing and writes nothing, so it needs no write lock.
    if (identity.sessionId) {
      const bound = await store.sessions.findByClientSession(identity.sessionId);
      if (bound && !this.sessions.processGone(bound) && !this.otherClient(bound, identity))
        return { session: bound, ambiguous: [] };
      if (bound && options.create) await this.prepareResume(bound);
    }
    const insert = options.create
      ? this.sessions.prepare({
          ...options.create,
          identity,
          server: null,
          // The client's process; a hook itself is gone in a moment.
          pid: identity.process?.pid ?? null,
        })
      : null;
    return store.write(async (): Promise<HookSession> => {
      let id = identity.sessionId;
      if (id) {
        const bound = await this.bound(id);
        if (bound && !this.otherClient(bound, identity)) {
          // Only a hook (not the guard, which only looks) brings a session back to life.
          if (options.create) await this.resumeIfDead(bound, identity, null);
          return { session: (await store.sessions.get(bound.id))!, ambiguous: [] };
        }
        if (bound) {
          // Someone else's id (inherited, or made up): never acted on as theirs.
          this.app.log.info('identity.foreign', { client_session: id, session: bound.id });
          id = null;
        }
      }
      const mine = await this.liveOfProcess(identity, worktree);
      if (id) {
        const unbound = mine.filter((s) => s.client_session_id === null);
        const adopt = options.continues
          ? unbound.length === 1
            ? unbound[0]
            : mine.length === 1
              ? mine[0]
              : undefined
          : mine.length === 1 && unbound.length === 1
            ? unbound[0]
            : undefined;
        if (adopt && options.create) {
          await store.sessions.bindClientSession(adopt.id, id, adopt.client_session_id);
          // Bound to a client session, it lives as long as the client (not one server of it).
          if (identity.process)
            await store.sessions.watch(adopt.id, identity.process.pid, identity.process.start);
          this.app.log.info('identity.bound', {
            client_session: id,
            session: adopt.id,
            previous: adopt.client_session_id,
          });
          return { session: (await store.sessions.get(adopt.id))!, ambiguous: [] };
        }
        if (options.continues && mine.length > 1)
          this.app.log.info('identity.ambiguous', { client_session: id, candidates: mine.map((s) => s.id) });
        return { session: insert ? await insert(id) : null, ambiguous: [] };
      }
      if (mine.length === 1) return { session: mine[0]!, ambiguous: [] };
      if (mine.length > 1) {
        this.app.log.info('identity.ambiguous', {
          client_pid: identity.process?.pid ?? null,
          candidates: mine.map((s) => s.id),
        });
        return { session: null, ambiguous: mine };
      }
      return { session: insert ? await insert(null) : null, ambiguous: [] };
    });
  }

  /**
   * The client ended a session (its SessionEnd hook). After /clear (`reason` "clear") the client
   * goes on under a new id: the session keeps its claims and waits, unbound, for that id (the old
   * one stays an alias). Decided and done in one transaction on the session bound to this very id,
   * so that a SessionStart that took the session on (before, or while this hook ran) is not undone.
   */
  async endClientSession(identity: ClientIdentity, worktree: string, reason: string | null): Promise<void> {
    const { store } = this.app;
    const id = identity.sessionId;
    await store.write(async () => {
      const session = id
        ? await store.sessions.findByClientSession(id)
        : await this.onlyOfProcess(identity, worktree);
      if (!session || this.otherClient(session, identity)) return;
      if (id && session.client_session_id !== id) return; // moved on to another id already
      if (reason === 'clear') {
        await store.sessions.bindClientSession(session.id, null, session.client_session_id);
        this.app.log.info('identity.unbound', { session: session.id, client_session: id });
        return;
      }
      // Ended in the transaction that found it still this id's (the write inside joins this one).
      await this.sessions.end(session.id, 'complete', 'the client session ended');
    });
  }

  /**
   * A connection goes away. The session ends with it unless the client session lives on without it
   * (bound to a client session id whose process still runs): then it only stops being held. Decided
   * and done in one transaction, so that a client that took the session up again (before, or while
   * the connection went away) keeps it.
   */
  async leave(sessionId: string, server: ProcessRef, reason: string): Promise<boolean> {
    const { store } = this.app;
    return store.write(async () => {
      const session = await store.sessions.get(sessionId);
      if (session?.status !== 'active') return false;
      // A client on another host (team mode) cannot be probed by pid: its heartbeat decides.
      const clientLives =
        session.client_session_id !== null &&
        session.client_pid !== null &&
        session.pid === session.client_pid &&
        (session.host === this.app.host
          ? processAlive(session.client_pid, session.client_pid_start)
          : stateOf(this.app, session) === 'active');
      if (clientLives) {
        await store.sessions.detachServer(session.id, server.pid, server.start);
        return false;
      }
      // Ended in the transaction that found it so (the write inside joins this one).
      await this.sessions.end(session.id, 'abandon', reason);
      return true;
    });
  }

  /** The active session bound to a client session id (or known by it before), live or not. */
  private bound(clientSessionId: string): Promise<SessionRow | undefined> {
    return this.app.store.sessions.findByClientSession(clientSessionId);
  }

  /**
   * The client session goes on in a new process (Claude Code's --resume, a restarted orchestrator
   * agent) after the one it lived by died: the session moves to the new process and, like any
   * session coming back, yields what others claimed over its files since it was last heard from.
   */
  private async resumeIfDead(
    session: SessionRow,
    identity: ClientIdentity,
    server: ProcessRef | null,
  ): Promise<void> {
    if (!this.sessions.processGone(session)) return;
    const p = identity.process;
    const lives = p ?? server;
    await this.app.store.sessions.moveTo(session.id, {
      pid: lives?.pid ?? null,
      pid_start: lives?.start ?? null,
      client_pid: p?.pid ?? null,
      client_pid_start: p?.start ?? null,
    });
    await this.claims.yieldToTakeovers(session, session.last_heartbeat);
    await this.app.store.sessions.heartbeat(session.id, this.app.now());
    this.app.log.info('identity.resumed', { session: session.id, client_session: session.client_session_id });
  }

  /**
   * Before the write lock: if the session would be resumed (its process died), the overlaps with
   * what others claimed since are worked out now and remembered, so that `resumeIfDead` inside
   * the lock finds them in the overlap cache.
   */
  private async prepareResume(session: SessionRow): Promise<void> {
    if (this.sessions.processGone(session)) await this.claims.takeovers(session, session.last_heartbeat);
  }

  /** The one live session of the client process in the worktree, if it has exactly one. */
  private async onlyOfProcess(identity: ClientIdentity, worktree: string): Promise<SessionRow | undefined> {
    const mine = await this.liveOfProcess(identity, worktree);
    return mine.length === 1 ? mine[0] : undefined;
  }

  /** Live sessions of the identity's client process in the worktree; dead ones found are ended. */
  private async liveOfProcess(identity: ClientIdentity, worktree: string): Promise<SessionRow[]> {
    const p = identity.process;
    if (!p) return [];
    const rows = await this.app.store.sessions.ofClientProcess(p.pid, p.start, this.app.host, worktree);
    const live: SessionRow[] = [];
    for (const row of rows) {
      if (this.sessions.processGone(row)) await this.endDead(row);
      else if (stateOf(this.app, row) === 'active') live.push(row);
    }
    return live;
  }

  private async endDead(session: SessionRow): Promise<void> {
    const now = this.app.now();
    await this.app.store.claims.releaseAllOf(
      session.id,
      'abandoned',
      'released: the session’s process exited',
      now,
    );
    await this.app.store.sessions.end(session.id, now, 'process exited');
  }

  /**
   * Whether a session belongs to another live client process than the identity's. A caller whose
   * client process cannot be found is not taken at its word for a session whose client lives.
   */
  private otherClient(session: SessionRow, identity: ClientIdentity): boolean {
    const p = identity.process;
    if (session.client_pid === null || session.host !== this.app.host) return false;
    const same =
      p !== null &&
      session.client_pid === p.pid &&
      (session.client_pid_start === null || p.start === null || session.client_pid_start === p.start);
    return !same && processAlive(session.client_pid, session.client_pid_start);
  }

  /** Whether another live connection (server process) acts for the session. */
  private heldByOther(session: SessionRow, server: ProcessRef): boolean {
    if (session.server_pid === null || session.host !== this.app.host) return false;
    if (session.server_pid === server.pid && session.server_pid_start === server.start) return false;
    return processAlive(session.server_pid, session.server_pid_start);
  }
}
