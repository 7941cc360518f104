import type { Db } from './database.js';

export interface SessionRow {
  id: string;
  name: string;
  project_id: string;
  worktree: string;
  branch: string | null;
  client: string | null;
  host: string;
  pid: number | null;
  pid_start: string | null;
  status: 'active' | 'ended';
  created_at: number;
  last_heartbeat: number;
  ended_at: number | null;
  end_reason: string | null;
  client_session_id: string | null;
  client_pid: number | null;
  client_pid_start: string | null;
  server_pid: number | null;
  server_pid_start: string | null;
  rfc: string | null;
}

export interface SessionWithCounts extends SessionRow {
  active_claims: number;
}

export class SessionsStore {
  private readonly insertStmt;
  private readonly getStmt;
  private readonly heartbeatStmt;
  private readonly endStmt;
  private readonly renameStmt;
  private readonly byProject;
  private readonly purgeStmt;
  private readonly purgeAliasesStmt;
  private readonly silentStmt;
  private readonly byClientSession;
  private readonly byClientProcess;
  private readonly bindStmt;
  private readonly byAlias;
  private readonly aliasStmt;
  private readonly unaliasStmt;
  private readonly moveStmt;
  private readonly freshHeartbeatStmt;
  private readonly byNameStmt;
  private readonly serverStmt;
  private readonly detachStmt;
  private readonly watchStmt;
  private readonly rfcStmt;

  constructor(db: Db) {
    this.insertStmt = db.prepare(
      `INSERT INTO sessions (id, name, project_id, worktree, branch, client, host, pid, pid_start, status, created_at, last_heartbeat,
         client_session_id, client_pid, client_pid_start, server_pid, server_pid_start)
       VALUES (@id, @name, @project_id, @worktree, @branch, @client, @host, @pid, @pid_start, 'active', @created_at, @last_heartbeat,
         @client_session_id, @client_pid, @client_pid_start, @server_pid, @server_pid_start)`,
    );
    this.getStmt = db.prepare<[string], SessionRow>('SELECT * FROM sessions WHERE id = ?');
    this.heartbeatStmt = db.prepare(
      "UPDATE sessions SET last_heartbeat = ? WHERE id = ? AND status = 'active'",
    );
    this.freshHeartbeatStmt = db.prepare(
      "UPDATE sessions SET last_heartbeat = ? WHERE id = ? AND status = 'active' AND last_heartbeat >= ?",
    );
    this.endStmt = db.prepare(
      "UPDATE sessions SET status = 'ended', ended_at = ?, end_reason = ? WHERE id = ? AND status = 'active'",
    );
    this.renameStmt = db.prepare('UPDATE sessions SET name = ? WHERE id = ?');
    this.byProject = db.prepare<
      [{ project: string | null; all: number; after_at: number | null; after_id: string | null }],
      SessionWithCounts
    >(
      `SELECT s.*, (SELECT COUNT(*) FROM claims c WHERE c.session_id = s.id AND c.status = 'active') AS active_claims
       FROM sessions s
       WHERE (@project IS NULL OR s.project_id = @project) AND (@all = 1 OR s.status = 'active')
         AND (@after_at IS NULL OR s.created_at > @after_at OR (s.created_at = @after_at AND s.id > @after_id))
       ORDER BY s.created_at, s.id`,
    );
    this.purgeStmt = db.prepare("DELETE FROM sessions WHERE status = 'ended' AND ended_at < ?");
    this.purgeAliasesStmt = db.prepare(
      "DELETE FROM client_session_aliases WHERE session_id IN (SELECT id FROM sessions WHERE status = 'ended' AND ended_at < ?)",
    );
    this.byClientSession = db.prepare<[string], SessionRow>(
      "SELECT * FROM sessions WHERE client_session_id = ? AND status = 'active' ORDER BY created_at DESC LIMIT 1",
    );
    this.byAlias = db.prepare<[string], SessionRow>(
      `SELECT s.* FROM client_session_aliases a JOIN sessions s ON s.id = a.session_id
       WHERE a.client_session_id = ? AND s.status = 'active'`,
    );
    this.aliasStmt = db.prepare(
      'INSERT OR REPLACE INTO client_session_aliases (client_session_id, session_id) VALUES (?, ?)',
    );
    this.unaliasStmt = db.prepare('DELETE FROM client_session_aliases WHERE client_session_id = ?');
    this.moveStmt = db.prepare(
      'UPDATE sessions SET pid = @pid, pid_start = @pid_start, client_pid = @client_pid, client_pid_start = @client_pid_start WHERE id = @id',
    );
    this.byClientProcess = db.prepare<
      [{ pid: number; start: string | null; host: string; worktree: string }],
      SessionRow
    >(
      `SELECT * FROM sessions WHERE client_pid = @pid AND status = 'active' AND host = @host AND worktree = @worktree
         AND (client_pid_start IS @start OR client_pid_start IS NULL OR @start IS NULL)
       ORDER BY created_at DESC LIMIT 50`,
    );
    this.byNameStmt = db.prepare<[string, string], SessionRow>(
      "SELECT * FROM sessions WHERE project_id = ? AND name = ? AND status = 'active' ORDER BY created_at",
    );
    this.serverStmt = db.prepare('UPDATE sessions SET server_pid = ?, server_pid_start = ? WHERE id = ?');
    this.detachStmt = db.prepare(
      'UPDATE sessions SET server_pid = NULL, server_pid_start = NULL WHERE id = ? AND server_pid IS ? AND server_pid_start IS ?',
    );
    this.watchStmt = db.prepare('UPDATE sessions SET pid = ?, pid_start = ? WHERE id = ?');
    this.bindStmt = db.prepare('UPDATE sessions SET client_session_id = ? WHERE id = ?');
    this.rfcStmt = db.prepare('UPDATE sessions SET rfc = ? WHERE id = ?');
    this.silentStmt = db.prepare<[number], { id: string }>(
      "SELECT id FROM sessions WHERE status = 'active' AND last_heartbeat < ?",
    );
  }

  /**
   * The active session a client session id is bound to, or was bound to before the client moved
   * that session on to a new id.
   */
  findByClientSession(clientSessionId: string): SessionRow | undefined {
    return this.byClientSession.get(clientSessionId) ?? this.byAlias.get(clientSessionId);
  }

  /** The active sessions of a client process on this host, in one worktree, newest first. */
  ofClientProcess(pid: number, start: string | null, host: string, worktree: string): SessionRow[] {
    return this.byClientProcess.all({ pid, start, host, worktree });
  }

  /** Active sessions of a project with this name, oldest first. */
  byName(projectId: string, name: string): SessionRow[] {
    return this.byNameStmt.all(projectId, name);
  }

  /**
   * Binds a client session id to a session (null: unbinds it). The id it had stays an alias of it,
   * for processes of the client that still know that one.
   */
  bindClientSession(id: string, clientSessionId: string | null, previous: string | null = null): void {
    if (previous !== null && previous !== clientSessionId) this.aliasStmt.run(previous, id);
    if (clientSessionId !== null) this.unaliasStmt.run(clientSessionId);
    this.bindStmt.run(clientSessionId, id);
  }

  /** The session now lives by another process (its client resumed in a new one). */
  moveTo(
    id: string,
    p: {
      pid: number | null;
      pid_start: string | null;
      client_pid: number | null;
      client_pid_start: string | null;
    },
  ): void {
    this.moveStmt.run({ id, ...p });
  }

  /** Records the connection (server process) now acting for the session. */
  setServer(id: string, pid: number, start: string | null): void {
    this.serverStmt.run(pid, start, id);
  }

  /** Forgets the connection acting for the session, if it is still this one. */
  detachServer(id: string, pid: number, start: string | null): void {
    this.detachStmt.run(id, pid, start);
  }

  /** Sets the process whose life is the session's life. */
  watch(id: string, pid: number | null, start: string | null): void {
    this.watchStmt.run(pid, start, id);
  }

  setRfc(id: string, rfc: string | null): void {
    this.rfcStmt.run(rfc, id);
  }

  insert(row: Omit<SessionRow, 'status' | 'ended_at' | 'end_reason' | 'rfc'>): void {
    this.insertStmt.run(row);
  }

  get(id: string): SessionRow | undefined {
    return this.getStmt.get(id);
  }

  heartbeat(id: string, now: number): boolean {
    return this.heartbeatStmt.run(now, id).changes > 0;
  }

  /** A heartbeat for a session that was heard from since `freshSince`; false if it was not (or ended). */
  heartbeatIfFresh(id: string, now: number, freshSince: number): boolean {
    return this.freshHeartbeatStmt.run(now, id, freshSince).changes > 0;
  }

  end(id: string, now: number, reason: string): boolean {
    return this.endStmt.run(now, reason, id).changes > 0;
  }

  rename(id: string, name: string): void {
    this.renameStmt.run(name, id);
  }

  /** Sessions of one project (or of all, with null), with their count of active claims. */
  list(projectId: string | null, includeEnded: boolean): SessionWithCounts[] {
    return [...this.iterate(projectId, includeEnded, null)];
  }

  /** Oldest first, after `after` (a page's last row), read as they are consumed. */
  iterate(
    projectId: string | null,
    includeEnded: boolean,
    after: { at: number; id: string } | null,
  ): IterableIterator<SessionWithCounts> {
    return this.byProject.iterate({
      project: projectId,
      all: includeEnded ? 1 : 0,
      after_at: after?.at ?? null,
      after_id: after?.id ?? null,
    });
  }

  /** Sessions still marked active whose last heartbeat is older than `before`. */
  silentSince(before: number): string[] {
    return this.silentStmt.all(before).map((r) => r.id);
  }

  purgeEnded(before: number): number {
    this.purgeAliasesStmt.run(before);
    return this.purgeStmt.run(before).changes;
  }
}
