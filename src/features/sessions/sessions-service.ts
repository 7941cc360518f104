import type { AppContext } from '../../app/context.js';
import { CollabError, invalidInput } from '../../core/errors.js';
import { inline, sessionName, shown } from '../../core/fence.js';
import { newId } from '../../core/ids.js';
import { LIMITS } from '../../core/limits.js';
import { decodeCursor, type Page, pageOf } from '../../core/page.js';
import { iso } from '../../core/time.js';
import { locateProject } from '../../integrations/git-repo.js';
import { processStartTime } from '../../integrations/process-probe.js';
import { newProjectId } from '../../store/projects-store.js';
import type { SessionRow, SessionWithCounts } from '../../store/sessions-store.js';
import type { ClaimsService } from '../claims/claims-service.js';
import type { NotificationsService } from '../notifications/notifications-service.js';
import { ClientSessions } from './client-sessions.js';
import { stateOf } from './liveness.js';
import { byNameOrStart } from './references.js';
import type {
  ProcessRef,
  ReleaseMode,
  SessionSummary,
  SessionView,
  StartSessionInput,
} from './session-types.js';

/** Heartbeats from calls are written at most this often (see `heartbeatDue`). */
const HEARTBEAT_EVERY_MS = 5_000;

/** Sessions read at a time for a page of the list (see `SessionsStore.iterate`). */
const LIST_BATCH = 500;

/** Live sessions a SESSION_NOT_FOUND hint names; the rest are counted. */
const HINTED_SESSIONS = 10;

export class SessionsService {
  /** Which session a connection, hook or guard acts for. */
  readonly clients: ClientSessions;

  constructor(
    private readonly app: AppContext,
    private readonly claims: ClaimsService,
    private readonly notifications: NotificationsService,
  ) {
    this.clients = new ClientSessions(app, this, claims);
  }

  async start(input: StartSessionInput): Promise<{ session: SessionRow; others: SessionWithCounts[] }> {
    const insert = this.prepare(input);
    const session = await this.app.store.write(() => insert());
    return {
      session,
      others: (await this.liveInProject(session.project_id)).filter((s) => s.id !== session.id),
    };
  }

  /** Whether a session's process has exited (so that no heartbeat can revive it). */
  processGone(session: SessionRow): boolean {
    return stateOf(this.app, { ...session, last_heartbeat: this.app.now() }) === 'inactive';
  }

  /** Where a folder belongs: its project key and worktree root (`INVALID_INPUT` if it is no folder). */
  locate(projectRoot: string): ReturnType<typeof locateProject> {
    try {
      return locateProject(projectRoot, { file: this.app.paths.repoCache });
    } catch (error) {
      // The folder as given, quoted and bounded wherever the message names it.
      throw invalidInput(
        `project_root: ${(error as Error).message.replaceAll(projectRoot, shown(projectRoot, 200))}`,
        'Give the absolute path of the project folder.',
      );
    }
  }

  async rename(session: SessionRow, given: string): Promise<SessionRow> {
    const name = sessionName(given, LIMITS.nameChars);
    if (!name) throw invalidInput('name: give a name with letters in it.');
    const { store } = this.app;
    await store.write(() => store.sessions.rename(session.id, name), { project: session.project_id });
    return { ...session, name };
  }

  /**
   * Validates a start outside any transaction; the returned function inserts (inside one), bound
   * to the identity's client session id or, when given, to another (null: to none). A session
   * bound to a client session lives as long as its client process (not one server of it); any
   * other lives by `pid`.
   */
  prepare(input: StartSessionInput): (clientSessionId?: string | null) => Promise<SessionRow> {
    const location = this.locate(input.projectRoot);
    const pid = input.pid === undefined ? process.pid : input.pid;
    const pidStart = pid === null ? null : processStartTime(pid);
    const id = newId();
    // The project's, if the insert makes it: made here too, so that an insert run again (its
    // group rolled back, store/write-groups.ts) keeps the id a read between the group's writes saw
    // (a hook's, which finds the session: it checks and claims in the session's project).
    const projectId = newProjectId();
    const name =
      sessionName(input.name ?? '', LIMITS.nameChars) ||
      `${sessionName(input.client ?? '', 60) || 'session'}-${id.slice(0, 4)}`;
    const { store } = this.app;
    const identity = input.identity;
    return async (clientSessionId = identity?.sessionId ?? null) => {
      const lives =
        clientSessionId !== null && identity?.process ? identity.process : { pid, start: pidStart };
      const now = this.app.now();
      const project = await store.projects.ensure(location, this.app.host, now, projectId);
      if (project.merged)
        this.app.log.info('project.merged', {
          into: project.id,
          key: location.key,
          from: location.formerKey,
          moved: project.merged,
        });
      await store.sessions.insert({
        id,
        name,
        project_id: project.id,
        worktree: location.worktree,
        branch: location.branch,
        client: input.client ?? null,
        host: this.app.host,
        pid: lives.pid,
        pid_start: lives.start,
        created_at: now,
        last_heartbeat: now,
        client_session_id: clientSessionId,
        client_pid: identity?.process?.pid ?? null,
        client_pid_start: identity?.process?.start ?? null,
        server_pid: input.server?.pid ?? null,
        server_pid_start: input.server?.start ?? null,
      });
      this.app.log.info('session.start', {
        session: id,
        name,
        project: project.id,
        worktree: location.worktree,
      });
      return (await store.sessions.get(id))!;
    };
  }

  /** A wake hook watches the session until `until`; null: the watch that ran until `since` ended. */
  async wakeWatch(id: string, until: number | null, since?: number): Promise<void> {
    const { store } = this.app;
    await store.write(() => store.sessions.watched(id, until, since));
  }

  async get(id: string): Promise<SessionRow> {
    const session = await this.app.store.sessions.get(id);
    if (!session) throw new CollabError('SESSION_NOT_FOUND', `No session with id ${shown(id)}.`);
    return session;
  }

  /** A session by id, or null. */
  async find(id: string): Promise<SessionRow | null> {
    return (await this.app.store.sessions.get(id)) ?? null;
  }

  /** Records the RFC (a branch) a session works on. */
  async setRfc(id: string, rfc: string | null): Promise<void> {
    await this.app.store.write(() => this.app.store.sessions.setRfc(id, rfc));
  }

  /**
   * Ends a session and sums up what it did (realm's `session_stop`): its claims and their files,
   * messages, contract changes it was told of, work submitted and reviews made.
   */
  async stop(id: string): Promise<SessionSummary> {
    const { store } = this.app;
    // Summed up after the end, from the session it returns: a call sent again sums up the one it
    // ended then (its claims released by then count all the same).
    const { session, released } = await this.end(id, 'complete', 'ended by session_stop');
    const claims = await store.claims.list({
      projectId: session.project_id,
      sessionId: session.id,
      status: 'all',
    });
    const messages = await store.messages.counts(session.id);
    const contractChanges = await store.notifications.countOfType(session.id, 'contract_updated');
    const events = await store.workEvents.countsByActor(session.id);
    return {
      session_id: session.id,
      duration_seconds: Math.round((this.app.now() - session.created_at) / 1000),
      rfc: session.rfc,
      claims: claims.length,
      files: [...new Set(claims.flatMap((c) => c.files))],
      messages_sent: messages.sent,
      messages_read: messages.read,
      contract_changes: contractChanges,
      work_submitted: events.submitted ?? 0,
      reviews: events.reviewed ?? 0,
      released_claims: released,
    };
  }

  /** A session that may act: it exists, has not ended, and is not dead or timed out. */
  async requireLive(id: string): Promise<SessionRow> {
    const session = await this.get(id);
    const state = stateOf(this.app, session);
    if (state === 'ended') {
      throw new CollabError('SESSION_INACTIVE', `Session "${session.name}" (${id}) has ended.`);
    }
    if (
      state === 'inactive' &&
      stateOf(this.app, { ...session, last_heartbeat: this.app.now() }) === 'inactive'
    ) {
      // Its process is gone: a heartbeat cannot revive it.
      throw new CollabError(
        'SESSION_INACTIVE',
        `Session "${session.name}" (${id}) is inactive: its process has exited.`,
      );
    }
    return session;
  }

  async heartbeat(id: string): Promise<SessionRow> {
    const session = await this.requireLive(id);
    await this.touch(id);
    return { ...session, last_heartbeat: this.app.now() };
  }

  /**
   * Whether a heartbeat last written at `lastBeat` is due again: every call counts as one, written
   * at most every few seconds (and four times within the inactivity threshold).
   */
  heartbeatDue(lastBeat: number): boolean {
    const every = Math.min(HEARTBEAT_EVERY_MS, (this.app.config.inactive_after_minutes * 60_000) / 4);
    return this.app.now() - lastBeat >= every;
  }

  /**
   * Records that a session was heard from. A session that had gone silent (past the inactivity
   * threshold) does not just come back: what other sessions took over while it was away wins, in
   * the same transaction (see `ClaimsService.yieldToTakeovers`).
   */
  async touch(id: string): Promise<void> {
    const { store } = this.app;
    const now = this.app.now();
    const freshSince = now - this.app.config.inactive_after_minutes * 60_000;
    if (await store.sessions.heartbeatIfFresh(id, now, freshSince)) return;
    // Back from silence: the overlaps with what others claimed meanwhile are worked out here,
    // before the write lock; inside it they are answered from the overlap cache.
    const silent = await store.sessions.get(id);
    if (silent?.status === 'active' && silent.last_heartbeat < freshSince)
      await this.claims.takeovers(
        silent,
        silent.last_heartbeat + this.app.config.inactive_after_minutes * 60_000,
      );
    await store.write(
      async () => {
        const session = await store.sessions.get(id);
        if (session?.status !== 'active') return;
        if (session.last_heartbeat < freshSince) {
          // It stopped counting once the threshold had passed.
          await this.claims.yieldToTakeovers(
            session,
            session.last_heartbeat + this.app.config.inactive_after_minutes * 60_000,
          );
          this.app.log.info('session.returned', {
            session: id,
            silent_seconds: Math.round((now - session.last_heartbeat) / 1000),
          });
        }
        await store.sessions.heartbeat(id, now);
      },
      silent ? { project: silent.project_id } : undefined,
    );
  }

  /**
   * A session by its id, else by its name (unique among the project's live sessions) or the start
   * of its id (in the project).
   */
  async findByRef(projectId: string, ref: string): Promise<SessionRow> {
    // Another project's session is not found from here, by id as by name.
    const byId = await this.app.store.sessions.get(ref);
    if (byId && byId.project_id === projectId) return byId;
    const named = (await this.app.store.sessions.byName(projectId, ref)).filter(
      (s) => stateOf(this.app, s) === 'active',
    );
    if (named.length <= 1) {
      const found = await byNameOrStart(this.app, ref, named[0], async () => projectId);
      if (found) return found;
      const live = (await this.liveInProject(projectId)).map((s) => `"${inline(s.name, 60)}" (${s.id})`);
      // A few, so that the answer stays small however many sessions there are.
      const listed = live.slice(0, HINTED_SESSIONS).join(', ');
      const more = live.length > HINTED_SESSIONS ? ` and ${live.length - HINTED_SESSIONS} more` : '';
      throw new CollabError(
        'SESSION_NOT_FOUND',
        `No session with id or name ${shown(ref, 80)} in this project.`,
        live.length > 0
          ? `Live sessions: ${listed}${more}. See collab_session_list.`
          : 'No other session is live in this project; see collab_session_list.',
      );
    }
    throw new CollabError(
      'SESSION_AMBIGUOUS',
      `${named.length} live sessions are named ${shown(ref, 80)}: ${named.map((s) => s.id).join(', ')}.`,
      'Address it by session id (see collab_session_list).',
    );
  }

  /**
   * A server process takes up an active session whose process is gone (a hub restarted, and its
   * client came back with the same MCP session): the session lives by the new process from now on.
   * Null when the session has ended.
   */
  adopt(id: string, server: ProcessRef): Promise<SessionRow | null> {
    const { store } = this.app;
    return store.write(async () => {
      const session = await store.sessions.get(id);
      if (session?.status !== 'active') return null;
      // Served until now from another machine (team mode): from now on its process is this one,
      // on this host, where its liveness can be told by pid.
      if (session.host !== this.app.host) {
        await store.sessions.moveHere(id, this.app.host, null, server);
      } else if (this.processGone(session)) {
        await store.sessions.watch(id, server.pid, server.start);
        await store.sessions.setServer(id, server.pid, server.start);
        // Like any session coming back: it yields what others claimed over its files meanwhile.
        await this.claims.yieldToTakeovers(session, session.last_heartbeat);
      }
      return (await store.sessions.get(id))!;
    });
  }

  /** Ends a session and releases its active claims. Returns how many claims were released. */
  async end(
    id: string,
    mode: ReleaseMode,
    reason: string,
  ): Promise<{ session: SessionRow; released: number }> {
    const { store } = this.app;
    const now = this.app.now();
    const result = await store.write(async () => {
      const session = await store.sessions.get(id);
      if (!session) throw new CollabError('SESSION_NOT_FOUND', `No session with id ${shown(id)}.`);
      if (session.status === 'ended') {
        throw new CollabError('SESSION_INACTIVE', `Session "${session.name}" (${id}) has already ended.`);
      }
      // Sessions whose claims sat next to this one's learn that those files are free now.
      for (const [holder, files] of await this.claims.neighbours(session)) {
        await this.notifications.notify([holder], {
          type: 'session_ended',
          subject: `session_ended:${id}`,
          payload: { session: session.name, session_id: id, files: files.slice(0, LIMITS.notifiedPaths) },
          project: session.project_id,
        });
      }
      const released = await store.claims.releaseAllOf(
        id,
        mode === 'complete' ? 'completed' : 'abandoned',
        `released when the session ended (${reason})`,
        now,
      );
      await store.sessions.end(id, now, reason);
      return { session: (await store.sessions.get(id))!, released };
    });
    this.app.log.info('session.end', { session: id, reason, released: result.released });
    return result;
  }

  /** A page of a project's sessions (of all, with null), oldest first; live ones only by default. */
  async list(
    projectId: string | null,
    includeInactive: boolean,
    page: { limit: number; cursor?: string | undefined } = { limit: Number.MAX_SAFE_INTEGER },
  ): Promise<Page<SessionView>> {
    return this.listWhere(projectId, includeInactive ? 'all' : 'live', page);
  }

  /**
   * A page of sessions, newest first: `live` ones, `open` ones (not ended: live or not answering),
   * or `all`.
   */
  async listWhere(
    projectId: string | null,
    which: 'live' | 'open' | 'all',
    page: { limit: number; cursor?: string | undefined } = { limit: Number.MAX_SAFE_INTEGER },
  ): Promise<Page<SessionView>> {
    const after =
      page.cursor === undefined ? null : (decodeCursor(page.cursor) as { at: number; id: string });
    const rows: SessionWithCounts[] = [];
    // Read in batches of a page and one more (the one that tells whether another page follows).
    const batch = Math.min(page.limit + 1, LIST_BATCH);
    for await (const row of this.app.store.sessions.iterate(projectId, which === 'all', after, batch)) {
      if (which === 'live' && stateOf(this.app, row) !== 'active') continue;
      rows.push(row);
      if (rows.length > page.limit) break;
    }
    const { items, next_cursor } = pageOf(rows, page.limit, (r) => ({ at: r.created_at, id: r.id }));
    return { items: items.map((s) => this.view(s)), next_cursor };
  }

  async liveInProject(projectId: string): Promise<SessionWithCounts[]> {
    return (await this.app.store.sessions.list(projectId, false)).filter(
      (s) => stateOf(this.app, s) === 'active',
    );
  }

  view(s: SessionWithCounts): SessionView {
    return {
      id: s.id,
      name: s.name,
      status: stateOf(this.app, s),
      active_claims: s.active_claims,
      last_heartbeat: iso(s.last_heartbeat),
      started_at: iso(s.created_at),
      branch: s.branch,
      client: s.client,
      host: s.host,
      worktree: s.worktree,
    };
  }
}
