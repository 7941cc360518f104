import type { Sql } from './sql.js';

/** A claim a session was stopped by, and what became of it. */
export interface ClaimWaitRow {
  session_id: string;
  claim_id: string;
  file: string;
  at: number;
  /** The claim now: its status, its holder's name and id. */
  status: string;
  holder: string;
  holder_id: string;
}

/** How many waits one session keeps (the oldest beyond go). */
const KEPT_PER_SESSION = 50;

/**
 * Claims sessions were stopped by (an edit refused because another session holds the file): once
 * such a claim is no longer active, the session is told at its turn's end, or woken.
 */
export class ClaimWaitsStore {
  constructor(private readonly sql: Sql) {}

  /** Records that `sessionId` waits for these claims (again: its time is kept). */
  async add(
    sessionId: string,
    projectId: string,
    waits: Array<{ claimId: string; file: string }>,
    now: number,
  ): Promise<void> {
    for (const w of waits.slice(0, KEPT_PER_SESSION))
      await this.sql.run(
        `INSERT INTO claim_waits (session_id, claim_id, project_id, file, at) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (session_id, claim_id) DO NOTHING`,
        [sessionId, w.claimId, projectId, w.file, now],
      );
    await this.sql.run(
      `DELETE FROM claim_waits WHERE session_id = ? AND claim_id NOT IN
         (SELECT claim_id FROM claim_waits WHERE session_id = ? ORDER BY at DESC LIMIT ${KEPT_PER_SESSION})`,
      [sessionId, sessionId],
    );
  }

  /** The session's waits whose claim is no longer active (released, expired, deleted). */
  freed(sessionId: string): Promise<ClaimWaitRow[]> {
    return this.sql.all<ClaimWaitRow>(
      `SELECT w.session_id, w.claim_id, w.file, w.at, COALESCE(c.status, 'released') AS status,
              COALESCE(s.name, '') AS holder, COALESCE(c.session_id, '') AS holder_id
       FROM claim_waits w LEFT JOIN claims c ON c.id = w.claim_id LEFT JOIN sessions s ON s.id = c.session_id
       WHERE w.session_id = ? AND (c.id IS NULL OR c.status <> 'active')
       ORDER BY w.at LIMIT ${KEPT_PER_SESSION}`,
      [sessionId],
    );
  }

  async anyFreed(sessionId: string): Promise<boolean> {
    const row = await this.sql.get<{ one: number }>(
      `SELECT 1 AS one FROM claim_waits w LEFT JOIN claims c ON c.id = w.claim_id
       WHERE w.session_id = ? AND (c.id IS NULL OR c.status <> 'active') LIMIT 1`,
      [sessionId],
    );
    return row !== undefined;
  }

  async remove(sessionId: string, claimIds: string[]): Promise<void> {
    for (const id of claimIds)
      await this.sql.run('DELETE FROM claim_waits WHERE session_id = ? AND claim_id = ?', [sessionId, id]);
  }

  /** Waits of sessions that ended, and waits older than `before`. */
  async purge(before: number): Promise<number> {
    const { changes } = await this.sql.run(
      `DELETE FROM claim_waits WHERE at < ? OR session_id IN (SELECT id FROM sessions WHERE status = 'ended')`,
      [before],
    );
    return changes;
  }
}
