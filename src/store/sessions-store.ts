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
  private readonly silentStmt;
  private readonly byClientSession;
  private readonly byClientProcess;
  private readonly bindStmt;
  private readonly rfcStmt;

  constructor(db: Db) {
    this.insertStmt = db.prepare(
      `INSERT INTO sessions (id, name, project_id, worktree, branch, client, host, pid, pid_start, status, created_at, last_heartbeat,
         client_session_id, client_pid, client_pid_start)
       VALUES (@id, @name, @project_id, @worktree, @branch, @client, @host, @pid, @pid_start, 'active', @created_at, @last_heartbeat,
         @client_session_id, @client_pid, @client_pid_start)`,
    );
    this.getStmt = db.prepare<[string], SessionRow>('SELECT * FROM sessions WHERE id = ?');
    this.heartbeatStmt = db.prepare(
      "UPDATE sessions SET last_heartbeat = ? WHERE id = ? AND status = 'active'",
    );
    this.endStmt = db.prepare(
      "UPDATE sessions SET status = 'ended', ended_at = ?, end_reason = ? WHERE id = ? AND status = 'active'",
    );
    this.renameStmt = db.prepare('UPDATE sessions SET name = ? WHERE id = ?');
    this.byProject = db.prepare<[{ project: string | null; all: number }], SessionWithCounts>(
      `SELECT s.*, (SELECT COUNT(*) FROM claims c WHERE c.session_id = s.id AND c.status = 'active') AS active_claims
       FROM sessions s
       WHERE (@project IS NULL OR s.project_id = @project) AND (@all = 1 OR s.status = 'active')
       ORDER BY s.created_at`,
    );
    this.purgeStmt = db.prepare("DELETE FROM sessions WHERE status = 'ended' AND ended_at < ?");
    this.byClientSession = db.prepare<[string], SessionRow>(
      "SELECT * FROM sessions WHERE client_session_id = ? AND status = 'active' ORDER BY created_at DESC LIMIT 1",
    );
    this.byClientProcess = db.prepare<
      [{ pid: number; start: string | null; host: string; worktree: string }],
      SessionRow
    >(
      `SELECT * FROM sessions WHERE client_pid = @pid AND status = 'active' AND host = @host AND worktree = @worktree
         AND (client_pid_start IS @start OR client_pid_start IS NULL OR @start IS NULL)
       ORDER BY created_at DESC LIMIT 1`,
    );
    this.bindStmt = db.prepare('UPDATE sessions SET client_session_id = ? WHERE id = ?');
    this.rfcStmt = db.prepare('UPDATE sessions SET rfc = ? WHERE id = ?');
    this.silentStmt = db.prepare<[number], { id: string }>(
      "SELECT id FROM sessions WHERE status = 'active' AND last_heartbeat < ?",
    );
  }

  /** The active session a client session id is bound to. */
  findByClientSession(clientSessionId: string): SessionRow | undefined {
    return this.byClientSession.get(clientSessionId);
  }

  /** The newest active session of a client process on this host, in one worktree. */
  findByClientProcess(
    pid: number,
    start: string | null,
    host: string,
    worktree: string,
  ): SessionRow | undefined {
    return this.byClientProcess.get({ pid, start, host, worktree });
  }

  bindClientSession(id: string, clientSessionId: string): void {
    this.bindStmt.run(clientSessionId, id);
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

  end(id: string, now: number, reason: string): boolean {
    return this.endStmt.run(now, reason, id).changes > 0;
  }

  rename(id: string, name: string): void {
    this.renameStmt.run(name, id);
  }

  /** Sessions of one project (or of all, with null), with their count of active claims. */
  list(projectId: string | null, includeEnded: boolean): SessionWithCounts[] {
    return this.byProject.all({ project: projectId, all: includeEnded ? 1 : 0 });
  }

  /** Sessions still marked active whose last heartbeat is older than `before`. */
  silentSince(before: number): string[] {
    return this.silentStmt.all(before).map((r) => r.id);
  }

  purgeEnded(before: number): number {
    return this.purgeStmt.run(before).changes;
  }
}
