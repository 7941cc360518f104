import type { Sql } from './sql.js';

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
  /** How many times in a row its turn-end hook sent its agent back with news. */
  continued_in_a_row: number;
  /** When its agent's turn last ended with nothing to go on with (idle since), else null. */
  turn_ended_at: number | null;
  /** When its person was told it is idle with news it cannot be woken for (once an idle spell). */
  idle_told_at: number | null;
  /** Until when a wake hook watches it for news that wakes it (null: none does). */
  wake_watch_until: number | null;
}

export interface SessionWithCounts extends SessionRow {
  active_claims: number;
}

/** A session's columns, named (a statement naming them reads faster than `*`: see sqlite-node.ts). */
export const SESSION_COLUMNS =
  'id, name, project_id, worktree, branch, client, host, pid, pid_start, status, created_at, last_heartbeat, ended_at, end_reason, client_session_id, client_pid, client_pid_start, rfc, server_pid, server_pid_start, continued_in_a_row, turn_ended_at, idle_told_at, wake_watch_until';
const BY_ID = `SELECT ${SESSION_COLUMNS} FROM sessions WHERE id = ?`;
const HEARTBEAT = "UPDATE sessions SET last_heartbeat = ? WHERE id = ? AND status = 'active'";
/** Sessions with their count of active claims, oldest first, after a row's time and id, at most so many. */
const BY_PROJECT = `SELECT s.*, (SELECT COUNT(*) FROM claims c WHERE c.session_id = s.id AND c.status = 'active') AS active_claims
  FROM sessions s
  WHERE (CAST(? AS TEXT) IS NULL OR s.project_id = ?) AND (? = 1 OR s.status = 'active')
    AND (CAST(? AS BIGINT) IS NULL OR s.created_at > ? OR (s.created_at = ? AND s.id > ?))
  ORDER BY s.created_at, s.id LIMIT ?`;

/** What the kept reads of sessions read. */
const SESSIONS = ['sessions'] as const;

/** Sessions, on either backend (the asynchronous SQL interface). */
export class SessionsStore {
  constructor(private readonly sql: Sql) {}

  /** Active sessions named `name`, in one project or in all. */
  activeNamed(projectId: string | null, name: string): Promise<SessionRow[]> {
    return this.sql.all<SessionRow>(
      `SELECT * FROM sessions WHERE status = 'active' AND name = ?
       AND (CAST(? AS TEXT) IS NULL OR project_id = ?) ORDER BY created_at DESC LIMIT 50`,
      [name, projectId, projectId],
    );
  }

  /**
   * The active session a client session id is bound to, or was bound to before the client moved
   * that session on to a new id.
   */
  async findByClientSession(clientSessionId: string): Promise<SessionRow | undefined> {
    return (
      (await this.sql.get<SessionRow>(
        "SELECT * FROM sessions WHERE client_session_id = ? AND status = 'active' ORDER BY created_at DESC LIMIT 1",
        [clientSessionId],
      )) ??
      (await this.sql.get<SessionRow>(
        `SELECT s.* FROM client_session_aliases a JOIN sessions s ON s.id = a.session_id
         WHERE a.client_session_id = ? AND s.status = 'active'`,
        [clientSessionId],
      ))
    );
  }

  /** The folders the active sessions of a host work in, with their projects and sessions. */
  worktreesOnHost(
    host: string,
  ): Promise<Array<{ id: string; name: string; project_id: string; worktree: string }>> {
    return this.sql.all(
      "SELECT id, name, project_id, worktree FROM sessions WHERE status = 'active' AND host = ? LIMIT 1000",
      [host],
    );
  }

  /** The active sessions of a client process on this host, in one worktree, newest first. */
  ofClientProcess(pid: number, start: string | null, host: string, worktree: string): Promise<SessionRow[]> {
    return this.sql.all<SessionRow>(
      `SELECT * FROM sessions WHERE client_pid = ? AND status = 'active' AND host = ? AND worktree = ?
         AND (client_pid_start = ? OR client_pid_start IS NULL OR CAST(? AS TEXT) IS NULL)
       ORDER BY created_at DESC LIMIT 50`,
      [pid, host, worktree, start, start],
    );
  }

  /** Whether a session of the project with this name has ended. */
  async endedNamed(projectId: string, name: string): Promise<boolean> {
    const row = await this.sql.get(
      "SELECT 1 AS one FROM sessions WHERE project_id = ? AND name = ? AND status = 'ended' LIMIT 1",
      [projectId, name],
    );
    return row !== undefined;
  }

  /** Active sessions of a project with this name, oldest first. */
  byName(projectId: string, name: string): Promise<SessionRow[]> {
    return this.sql.all<SessionRow>(
      "SELECT * FROM sessions WHERE project_id = ? AND name = ? AND status = 'active' ORDER BY created_at",
      [projectId, name],
    );
  }

  /**
   * Binds a client session id to a session (null: unbinds it). The id it had stays an alias of it,
   * for processes of the client that still know that one.
   */
  async bindClientSession(
    id: string,
    clientSessionId: string | null,
    previous: string | null = null,
  ): Promise<void> {
    if (previous !== null && previous !== clientSessionId)
      await this.sql.run(
        `INSERT INTO client_session_aliases (client_session_id, session_id) VALUES (?, ?)
         ON CONFLICT (client_session_id) DO UPDATE SET session_id = excluded.session_id`,
        [previous, id],
      );
    if (clientSessionId !== null)
      await this.sql.run('DELETE FROM client_session_aliases WHERE client_session_id = ?', [clientSessionId]);
    await this.sql.run('UPDATE sessions SET client_session_id = ? WHERE id = ?', [clientSessionId, id]);
  }

  /** The session now lives by another process (its client resumed in a new one). */
  async moveTo(
    id: string,
    p: {
      pid: number | null;
      pid_start: string | null;
      client_pid: number | null;
      client_pid_start: string | null;
    },
  ): Promise<void> {
    await this.sql.run(
      'UPDATE sessions SET pid = ?, pid_start = ?, client_pid = ?, client_pid_start = ? WHERE id = ?',
      [p.pid, p.pid_start, p.client_pid, p.client_pid_start, id],
    );
  }

  /** Records the connection (server process) now acting for the session. */
  async setServer(id: string, pid: number, start: string | null): Promise<void> {
    await this.sql.run('UPDATE sessions SET server_pid = ?, server_pid_start = ? WHERE id = ?', [
      pid,
      start,
      id,
    ]);
  }

  /** Forgets the connection acting for the session, if it is still this one. */
  async detachServer(id: string, pid: number, start: string | null): Promise<void> {
    await this.sql.run(
      `UPDATE sessions SET server_pid = NULL, server_pid_start = NULL
       WHERE id = ? AND server_pid IS NOT DISTINCT FROM ? AND server_pid_start IS NOT DISTINCT FROM ?`,
      [id, pid, start],
    );
  }

  /** Sets the process whose life is the session's life. */
  /**
   * A session served from now on by a process of another host (team mode: a replica took it over
   * from one on another machine): its host, its process and its server are this one's.
   */
  async moveHere(
    id: string,
    host: string,
    client: { pid: number; start: string | null } | null,
    server: { pid: number; start: string | null },
  ): Promise<void> {
    await this.sql.run(
      'UPDATE sessions SET host = ?, pid = ?, pid_start = ?, server_pid = ?, server_pid_start = ? WHERE id = ?',
      [host, client?.pid ?? server.pid, client ? client.start : server.start, server.pid, server.start, id],
    );
  }

  async watch(id: string, pid: number | null, start: string | null): Promise<void> {
    await this.sql.run('UPDATE sessions SET pid = ?, pid_start = ? WHERE id = ?', [pid, start, id]);
  }

  async setRfc(id: string, rfc: string | null): Promise<void> {
    await this.sql.run('UPDATE sessions SET rfc = ? WHERE id = ?', [rfc, id]);
  }

  /**
   * A turn of the session's agent ended: sent back with news (`inARow` times in a row now, not
   * idle), or with nothing (idle since `idleSince`, the count back to 0).
   */
  async turnEnded(id: string, inARow: number, idleSince: number | null): Promise<void> {
    // A new idle spell (it was not idle) is told anew.
    await this.sql.run(
      `UPDATE sessions SET continued_in_a_row = ?, turn_ended_at = ?,
         idle_told_at = CASE WHEN turn_ended_at IS NULL THEN NULL ELSE idle_told_at END
       WHERE id = ?`,
      [inARow, idleSince, id],
    );
  }

  /** The session's agent acts again: no longer idle (its next idle spell is told anew). */
  async active(id: string): Promise<void> {
    await this.sql.run(
      'UPDATE sessions SET turn_ended_at = NULL, idle_told_at = NULL WHERE id = ? AND turn_ended_at IS NOT NULL',
      [id],
    );
  }

  /**
   * Live sessions idle since their turn ended (at `endedBefore` or earlier) that nothing watches to
   * wake them (Codex, Gemini CLI, Cursor; Claude Code once its wake hook ended), not told of yet in
   * this idle spell.
   */
  idleUntold(now: number, endedBefore: number, limit: number): Promise<SessionRow[]> {
    return this.sql.all<SessionRow>(
      `SELECT * FROM sessions WHERE status = 'active' AND turn_ended_at IS NOT NULL AND turn_ended_at <= ?
         AND idle_told_at IS NULL AND (wake_watch_until IS NULL OR wake_watch_until < ?) ORDER BY turn_ended_at LIMIT ?`,
      [endedBefore, now, limit],
    );
  }

  /** A wake hook watches the session until `until`; null: the one that did (`since`) ended. */
  async watched(id: string, until: number | null, since?: number): Promise<void> {
    if (until !== null)
      await this.sql.run('UPDATE sessions SET wake_watch_until = ? WHERE id = ?', [until, id]);
    else
      await this.sql.run(
        'UPDATE sessions SET wake_watch_until = NULL WHERE id = ? AND wake_watch_until = ?',
        [id, since],
      );
  }

  /** Takes the telling of the session's idle spell (false: another process took it). */
  async takeIdleTold(id: string, now: number): Promise<boolean> {
    const { changes } = await this.sql.run(
      'UPDATE sessions SET idle_told_at = ? WHERE id = ? AND idle_told_at IS NULL AND turn_ended_at IS NOT NULL',
      [now, id],
    );
    return changes > 0;
  }

  async insert(
    row: Omit<
      SessionRow,
      | 'status'
      | 'ended_at'
      | 'end_reason'
      | 'rfc'
      | 'continued_in_a_row'
      | 'turn_ended_at'
      | 'idle_told_at'
      | 'wake_watch_until'
    >,
  ): Promise<void> {
    await this.sql.run(
      `INSERT INTO sessions (id, name, project_id, worktree, branch, client, host, pid, pid_start, status, created_at, last_heartbeat,
         client_session_id, client_pid, client_pid_start, server_pid, server_pid_start)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'active', ?, ?, ?, ?, ?, ?, ?)`,
      [
        row.id,
        row.name,
        row.project_id,
        row.worktree,
        row.branch,
        row.client,
        row.host,
        row.pid,
        row.pid_start,
        row.created_at,
        row.last_heartbeat,
        row.client_session_id,
        row.client_pid,
        row.client_pid_start,
        row.server_pid,
        row.server_pid_start,
      ],
    );
  }

  /** A session's row (a copy of its own: read at every call, it is kept, store/reads-kept.ts). */
  async get(id: string): Promise<SessionRow | undefined> {
    const row = await this.sql.kept(`session:${id}`, SESSIONS, () => this.sql.get<SessionRow>(BY_ID, [id]));
    return row && { ...row };
  }

  /** How many sessions of a project are not ended (a count over its index: one seek). */
  activeCount(projectId: string): Promise<number> {
    return this.sql.kept(`sessions active:${projectId}`, SESSIONS, async () => {
      const row = await this.sql.get<{ n: number | string }>(
        "SELECT COUNT(*) AS n FROM sessions WHERE project_id = ? AND status = 'active'",
        [projectId],
      );
      return Number(row?.n ?? 0);
    });
  }

  async heartbeat(id: string, now: number): Promise<boolean> {
    return (await this.sql.run(HEARTBEAT, [now, id])).changes > 0;
  }

  /** A heartbeat for a session that was heard from since `freshSince`; false if it was not (or ended). */
  async heartbeatIfFresh(id: string, now: number, freshSince: number): Promise<boolean> {
    const { changes } = await this.sql.run(
      "UPDATE sessions SET last_heartbeat = ? WHERE id = ? AND status = 'active' AND last_heartbeat >= ?",
      [now, id, freshSince],
    );
    return changes > 0;
  }

  async end(id: string, now: number, reason: string): Promise<boolean> {
    const { changes } = await this.sql.run(
      "UPDATE sessions SET status = 'ended', ended_at = ?, end_reason = ? WHERE id = ? AND status = 'active'",
      [now, reason, id],
    );
    return changes > 0;
  }

  async rename(id: string, name: string): Promise<void> {
    await this.sql.run('UPDATE sessions SET name = ? WHERE id = ?', [name, id]);
  }

  /** Sessions of one project (or of all, with null), with their count of active claims. */
  list(projectId: string | null, includeEnded: boolean): Promise<SessionWithCounts[]> {
    return this.page(projectId, includeEnded, null, Number.MAX_SAFE_INTEGER);
  }

  /**
   * Oldest first, after `after` (a page's last row), read as they are consumed: `batch` rows at a
   * time, so that a page stops reading early.
   */
  async *iterate(
    projectId: string | null,
    includeEnded: boolean,
    after: { at: number; id: string } | null,
    batch = 100,
  ): AsyncGenerator<SessionWithCounts> {
    let from = after;
    for (;;) {
      const rows = await this.page(projectId, includeEnded, from, batch);
      yield* rows;
      const last = rows.at(-1);
      if (rows.length < batch || !last) return;
      from = { at: last.created_at, id: last.id };
    }
  }

  private page(
    projectId: string | null,
    includeEnded: boolean,
    after: { at: number; id: string } | null,
    limit: number,
  ): Promise<SessionWithCounts[]> {
    const at = after?.at ?? null;
    return this.sql.all<SessionWithCounts>(BY_PROJECT, [
      projectId,
      projectId,
      includeEnded ? 1 : 0,
      at,
      at,
      at,
      after?.id ?? null,
      limit,
    ]);
  }

  /** Sessions still marked active whose last heartbeat is older than `before`. */
  async silentSince(before: number): Promise<string[]> {
    const rows = await this.sql.all<{ id: string }>(
      "SELECT id FROM sessions WHERE status = 'active' AND last_heartbeat < ?",
      [before],
    );
    return rows.map((r) => r.id);
  }

  async purgeEnded(before: number): Promise<number> {
    for (const table of ['client_session_aliases', 'work_item_reads'])
      await this.sql.run(
        `DELETE FROM ${table} WHERE session_id IN (SELECT id FROM sessions WHERE status = 'ended' AND ended_at < ?)`,
        [before],
      );
    return (await this.sql.run("DELETE FROM sessions WHERE status = 'ended' AND ended_at < ?", [before]))
      .changes;
  }
}
