import { randomUUID } from 'node:crypto';
import type { AppContext } from '../../app/app.js';
import { CollabError, invalidInput } from '../../core/errors.js';
import type { SessionState } from '../../core/liveness.js';
import { locateProject } from '../../integrations/git-repo.js';
import { processStartTime } from '../../integrations/process-probe.js';
import type { SessionRow, SessionWithCounts } from '../../store/sessions-store.js';

export interface StartSessionInput {
  name?: string | undefined;
  projectRoot: string;
  client?: string | null;
  /** The process whose life is the session's life (the stdio server itself by default). */
  pid?: number;
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
}

export type ReleaseMode = 'complete' | 'abandon';

export class SessionsService {
  constructor(private readonly app: AppContext) {}

  start(input: StartSessionInput): { session: SessionRow; others: SessionWithCounts[] } {
    let location: ReturnType<typeof locateProject>;
    try {
      location = locateProject(input.projectRoot);
    } catch (error) {
      throw invalidInput(
        `project_root: ${(error as Error).message}`,
        'Give the absolute path of the project folder.',
      );
    }
    const now = this.app.now();
    const pid = input.pid ?? process.pid;
    const id = randomUUID();
    const name = input.name?.trim() || `${input.client ?? 'session'}-${id.slice(0, 4)}`;
    const { store } = this.app;
    const session = store.write(() => {
      const project = store.projects.ensure(location.key, location.kind, now);
      store.sessions.insert({
        id,
        name,
        project_id: project.id,
        worktree: location.worktree,
        branch: location.branch,
        client: input.client ?? null,
        host: this.app.host,
        pid,
        pid_start: processStartTime(pid),
        created_at: now,
        last_heartbeat: now,
      });
      return store.sessions.get(id)!;
    });
    this.app.log.info('session.start', {
      session: id,
      name,
      project: session.project_id,
      worktree: location.worktree,
    });
    return { session, others: this.liveInProject(session.project_id).filter((s) => s.id !== id) };
  }

  get(id: string): SessionRow {
    const session = this.app.store.sessions.get(id);
    if (!session) throw new CollabError('SESSION_NOT_FOUND', `No session with id "${id}".`);
    return session;
  }

  /** A session that may act: it exists, has not ended, and is not dead or timed out. */
  requireLive(id: string): SessionRow {
    const session = this.get(id);
    const state = this.app.stateOf(session);
    if (state === 'ended') {
      throw new CollabError('SESSION_INACTIVE', `Session "${session.name}" (${id}) has ended.`);
    }
    if (
      state === 'inactive' &&
      this.app.stateOf({ ...session, last_heartbeat: this.app.now() }) === 'inactive'
    ) {
      // Its process is gone: a heartbeat cannot revive it.
      throw new CollabError(
        'SESSION_INACTIVE',
        `Session "${session.name}" (${id}) is inactive: its process has exited.`,
      );
    }
    return session;
  }

  heartbeat(id: string): SessionRow {
    const session = this.requireLive(id);
    this.app.store.sessions.heartbeat(id, this.app.now());
    return { ...session, last_heartbeat: this.app.now() };
  }

  /** Ends a session and releases its active claims. Returns how many claims were released. */
  end(id: string, mode: ReleaseMode, reason: string): { session: SessionRow; released: number } {
    const { store } = this.app;
    const now = this.app.now();
    const result = store.write(() => {
      const session = store.sessions.get(id);
      if (!session) throw new CollabError('SESSION_NOT_FOUND', `No session with id "${id}".`);
      if (session.status === 'ended') {
        throw new CollabError('SESSION_INACTIVE', `Session "${session.name}" (${id}) has already ended.`);
      }
      const released = store.claims.releaseAllOf(
        id,
        mode === 'complete' ? 'completed' : 'abandoned',
        `released when the session ended (${reason})`,
        now,
      );
      store.sessions.end(id, now, reason);
      return { session: store.sessions.get(id)!, released };
    });
    this.app.log.info('session.end', { session: id, reason, released: result.released });
    return result;
  }

  list(projectId: string | null, includeInactive: boolean): SessionView[] {
    return this.app.store.sessions
      .list(projectId, includeInactive)
      .map((s) => this.view(s))
      .filter((s) => includeInactive || s.status === 'active');
  }

  liveInProject(projectId: string): SessionWithCounts[] {
    return this.app.store.sessions.list(projectId, false).filter((s) => this.app.stateOf(s) === 'active');
  }

  view(s: SessionWithCounts): SessionView {
    return {
      id: s.id,
      name: s.name,
      status: this.app.stateOf(s),
      active_claims: s.active_claims,
      last_heartbeat: new Date(s.last_heartbeat).toISOString(),
      started_at: new Date(s.created_at).toISOString(),
      branch: s.branch,
      client: s.client,
    };
  }
}
